"""The disk cache holds code the process runs, so it must never block, never
trust what it should not, and never crash (API.md, "Disk cache safety"):
its directory is created 0700; a directory another user owns or others can
write is refused with one RuntimeWarning and the kernel compiles without
the cache; anything but a regular file at an entry's path (a FIFO, a
directory, a symlink) is a miss.

Each case runs fresh interpreters with their own SPIRJIT_CACHE_DIR under
``tmp_path`` and a timeout, so a hang fails the test instead of blocking the
suite."""

import json
import os
import stat
import subprocess
import sys

import pytest

import spirjit

PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(
    spirjit.__file__)))

# Launches two kernels (two compiles that each consult the cache) with
# every warning recorded, and prints the statistics and the warnings.
SCRIPT = """
import json
import warnings

import numpy as np
import spirjit
from spirjit import kernel_api as kapi


@spirjit.kernel
def scale(item, a, out):
    i = item.get_id(0)
    out[i] = a[i] * 3.0


@spirjit.kernel
def shift(item, a, out):
    i = item.get_id(0)
    out[i] = a[i] + 1.0


a = np.arange(8, dtype=np.float32)
out = np.zeros_like(a)
shifted = np.zeros_like(a)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    spirjit.call_kernel(scale, kapi.Range(8), a, out)
    spirjit.call_kernel(scale, kapi.Range(8), a, out)
    spirjit.call_kernel(shift, kapi.Range(8), a, shifted)
stats = scale.stats
print(json.dumps({
    "compiles": stats["compiles"], "disk_hits": stats["disk_hits"],
    "out": out.tolist(), "shifted": shifted.tolist(),
    "warnings": [[w.category.__name__, str(w.message)] for w in caught]}))
"""

# One plain launch, the warning filters left to the command line.
PLAIN_SCRIPT = """
import numpy as np
import spirjit
from spirjit import kernel_api as kapi


@spirjit.kernel
def scale(item, a, out):
    i = item.get_id(0)
    out[i] = a[i] * 3.0


a = np.arange(8, dtype=np.float32)
spirjit.call_kernel(scale, kapi.Range(8), a, np.zeros_like(a))
"""

EXPECTED = [3.0 * i for i in range(8)]
SHIFTED = [i + 1.0 for i in range(8)]


class Runner:
    def __init__(self, tmp_path, cache):
        self.cache = cache
        self.script = tmp_path / "cache_safety_script.py"
        self.script.write_text(SCRIPT)
        self.plain = tmp_path / "cache_safety_plain.py"
        self.plain.write_text(PLAIN_SCRIPT)

    def process(self, script, *python_options):
        env = dict(os.environ)
        env["PYTHONPATH"] = PACKAGE_ROOT
        env.pop("SPIRJIT_DISABLE_CACHE", None)
        env.pop("SPIRJIT_DUMP_DIR", None)
        env["SPIRJIT_CACHE_DIR"] = str(self.cache)
        # A hang (a FIFO opened for reading) raises TimeoutExpired: a
        # failure, not a blocked suite.
        return subprocess.run(
            [sys.executable, *python_options, str(script)], env=env,
            capture_output=True, text=True, timeout=120)

    def run(self):
        proc = self.process(self.script)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        result = json.loads(proc.stdout.strip().splitlines()[-1])
        assert result["out"] == EXPECTED
        assert result["shifted"] == SHIFTED
        return result

    def entries(self):
        """The two kernels' entries, as the first process stored them."""
        files = sorted(self.cache.glob("*.kernel"))
        assert len(files) == 2, files
        return files


@pytest.fixture
def runner(tmp_path, device_filter):
    return Runner(tmp_path, tmp_path / "cache")


def counts(result):
    return result["compiles"], result["disk_hits"]


def test_fresh_cache_directory_and_parents_are_private(tmp_path,
                                                       device_filter):
    runner = Runner(tmp_path, tmp_path / "made" / "by" / "spirjit")
    assert counts(runner.run()) == (1, 0)
    for folder in (tmp_path / "made", tmp_path / "made" / "by",
                   runner.cache):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    assert counts(runner.run()) == (0, 1)


def test_fifo_at_an_entry_is_a_miss_not_a_hang(runner):
    first = runner.run()
    assert first["warnings"] == []
    entries = runner.entries()
    for entry in entries:
        entry.unlink()
        os.mkfifo(entry)
    # No writer ever opens the FIFOs: reading one as a file would block.
    assert counts(runner.run()) == (1, 0)
    # The stores replaced the FIFOs with real entries.
    assert all(entry.is_file() for entry in entries)
    assert counts(runner.run()) == (0, 1)


def test_directory_at_an_entry_is_a_miss_every_time(runner):
    runner.run()
    entries = runner.entries()
    for entry in entries:
        entry.unlink()
        entry.mkdir()
        (entry / "inside").write_text("not an entry")
    # Storing over the directory fails quietly; every later launch works.
    for _ in range(2):
        result = runner.run()
        assert counts(result) == (1, 0)
        assert result["warnings"] == []
    assert all(entry.is_dir() for entry in entries)


def test_symlink_at_an_entry_is_a_miss(runner, tmp_path):
    runner.run()
    # Valid entries, but reached through links: not trusted.
    for index, entry in enumerate(runner.entries()):
        elsewhere = tmp_path / f"elsewhere-{index}.kernel"
        entry.rename(elsewhere)
        entry.symlink_to(elsewhere)
    assert counts(runner.run()) == (1, 0)


def check_refused(runner, reason):
    result = runner.run()
    assert counts(result) == (1, 0)
    # Two compiles, one warning for the process.
    assert len(result["warnings"]) == 1, result["warnings"]
    category, message = result["warnings"][0]
    assert category == "RuntimeWarning"
    assert str(runner.cache) in message
    assert reason in message
    assert "chmod 700" in message and "SPIRJIT_CACHE_DIR" in message
    # Nothing was read from or written to it.
    assert list(runner.cache.glob("*.kernel")) == []
    assert counts(runner.run()) == (1, 0)
    # python -W error::RuntimeWarning makes the warning an error.
    strict = runner.process(runner.plain, "-W", "error::RuntimeWarning")
    assert strict.returncode != 0
    assert "RuntimeWarning" in strict.stderr and reason in strict.stderr


def test_world_writable_cache_directory_is_refused(runner):
    runner.cache.mkdir()
    runner.cache.chmod(0o777)
    check_refused(runner, "writable by others (mode 0777)")


def test_group_writable_cache_directory_is_refused(runner):
    runner.cache.mkdir()
    runner.cache.chmod(0o770)
    check_refused(runner, "writable by its group (mode 0770)")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="giving a directory to another user needs root")
def test_cache_directory_of_another_user_is_refused(runner):
    runner.cache.mkdir(mode=0o700)
    os.chown(runner.cache, 65534, 65534)
    check_refused(runner, "is owned by user 65534")
