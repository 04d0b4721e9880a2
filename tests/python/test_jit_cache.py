"""A jit function's host code is kept in the disk cache like its kernels: a
second process links the object file the first compiled (stats["host"]
says which), an entry that is cut short, overwritten or not an object file
is compiled and stored again with the right result, and with the cache off
nothing is read or written.

Each case runs fresh interpreters (``run_isolated``) sharing a
SPIRJIT_CACHE_DIR under ``tmp_path``, on the device ``device_filter``
names."""

import json
import struct

import pytest

# A prange reduction between host code that calls a device function, on
# float32 and float64 arrays (two specialisations): prints the statistics
# and whether the results are NumPy's.
SCRIPT = """
import json

import numpy as np
import spirjit
from spirjit import prange


@spirjit.device_func
def weight(x):
    return x * WEIGHT


@spirjit.jit
def weighted_sum(a, b):
    s = 0.0
    for i in prange(a.shape[0]):
        b[i] = weight(a[i])
        s += b[i]
    return weight(s) + a.shape[0]


right = True
for dtype in (np.float32, np.float64):
    a = np.arange(100, dtype=dtype)
    b = np.zeros_like(a)
    got = weighted_sum(a, b)
    right &= bool(np.allclose(b, a * WEIGHT))
    right &= bool(np.isclose(got, (a * WEIGHT).sum() * WEIGHT + 100))
stats = weighted_sum.stats
print(json.dumps({"host": stats["host"], "kernels": stats["kernels"],
                  "compiles": stats["compiles"], "right": right}))
"""


@pytest.fixture
def run_jit(run_isolated, tmp_path, monkeypatch):
    """``run_jit(weight=2.0)`` runs SCRIPT with the cache at
    tmp_path/cache and returns what it printed."""
    monkeypatch.setenv("SPIRJIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("SPIRJIT_DISABLE_CACHE", raising=False)

    def run(weight=2.0):
        done = run_isolated(SCRIPT.replace("WEIGHT", repr(weight)))
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.splitlines()[-1])

    return run


def host_entries(tmp_path):
    return sorted((tmp_path / "cache").glob("*.host.kernel"))


def fnv1a(data):
    h = 14695981039346656037
    for byte in data:
        h = ((h ^ byte) * 1099511628211) % (1 << 64)
    return h


def field(data, at):
    """(bytes, next offset) of the u64-sized field at `at`."""
    (n,) = struct.unpack_from("<Q", data, at)
    return data[at + 8:at + 8 + n], at + 8 + n


def replace_object(path, object_bytes):
    """Replaces an entry's object file, keeping its key and entry name,
    with a valid checksum (runtime/DiskCache.cpp's and HostCall.cpp's
    framing): the entry reaches the linker."""
    data = path.read_bytes()
    magic = b"SPIRJIT-CACHE-1\n"
    assert data.startswith(magic)
    _, at = field(data, len(magic))
    head = data[:at]
    payload, _ = field(data, at)
    name, _ = field(payload, 0)
    payload = (struct.pack("<Q", len(name)) + name +
               struct.pack("<Q", len(object_bytes)) + object_bytes)
    head += struct.pack("<Q", len(payload)) + payload
    path.write_bytes(head + struct.pack("<Q", fnv1a(head)))


def test_second_process_links_host_code_from_disk(device_filter, run_jit,
                                                  tmp_path):
    first = run_jit()
    assert first["right"]
    assert first["compiles"] == 2
    assert first["host"]["compiles"] == 2 and first["host"]["disk_hits"] == 0
    assert len(host_entries(tmp_path)) == 2

    second = run_jit()
    assert second["right"]
    assert second["compiles"] == 2
    assert second["host"] == {"compiles": 0, "memory_hits": 0,
                              "disk_hits": 2, "compile_seconds": 0.0}
    assert second["kernels"]["disk_hits"] == 2
    assert second["kernels"]["compiles"] == 0


def test_device_function_change_is_a_miss(device_filter, run_jit, tmp_path):
    # The key holds the device functions' code, not only the jit
    # function's: a changed callee compiles anew and gives its own result.
    assert run_jit(2.0)["host"]["compiles"] == 2
    changed = run_jit(3.0)
    assert changed["right"]
    assert changed["host"]["compiles"] == 2
    assert changed["host"]["disk_hits"] == 0
    assert len(host_entries(tmp_path)) == 4


@pytest.mark.parametrize("damage", ["truncated", "overwritten", "not-object"])
def test_damaged_entry_is_compiled_again(device_filter, run_jit, tmp_path,
                                         damage):
    run_jit()
    for path in host_entries(tmp_path):
        if damage == "truncated":
            path.write_bytes(path.read_bytes()[:len(path.read_bytes()) // 2])
        elif damage == "overwritten":
            path.write_bytes(b"\0" * 4096)
        else:
            replace_object(path, b"\x7fELF" + b"\x01" * 2000)

    again = run_jit()
    assert again["right"]
    assert again["host"]["compiles"] == 2
    assert again["host"]["disk_hits"] == 0
    # ... and stored again: the next process links it.
    assert run_jit()["host"]["disk_hits"] == 2


def test_cache_off_reads_and_writes_nothing(device_filter, run_jit, tmp_path,
                                            monkeypatch):
    run_jit()
    monkeypatch.setenv("SPIRJIT_DISABLE_CACHE", "1")
    for path in host_entries(tmp_path):
        path.unlink()
    off = run_jit()
    assert off["right"]
    assert off["host"]["compiles"] == 2 and off["host"]["disk_hits"] == 0
    assert off["kernels"]["disk_hits"] == 0
    assert host_entries(tmp_path) == []


# A read through a mask: its host code needs the jit library's a[mask],
# which the compiler asks for once typed (LibraryOperationsNeeded).
MASK_SCRIPT = """
import json

import numpy as np
import spirjit


@spirjit.jit
def positives(a):
    return a[a > 0]


a = np.arange(-5.0, 5.0, dtype=np.float32)
right = bool(np.array_equal(positives(a), a[a > 0]))
print(json.dumps({"host": positives.stats["host"], "right": right}))
"""


def test_a_mask_read_links_from_disk_too(device_filter, run_isolated,
                                         tmp_path, monkeypatch):
    # The description with the library's a[mask] keys the entry, and a
    # second process asks for it as the first did.
    monkeypatch.setenv("SPIRJIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("SPIRJIT_DISABLE_CACHE", raising=False)
    runs = []
    for _ in range(2):
        done = run_isolated(MASK_SCRIPT)
        assert done.returncode == 0, done.stderr
        runs.append(json.loads(done.stdout.splitlines()[-1]))
    first, second = runs
    assert first["right"] and second["right"]
    assert first["host"]["compiles"] == 1
    assert second["host"]["compiles"] == 0
    assert second["host"]["disk_hits"] == 1


# A default is on the function, not in its code object: a process whose
# default differs must not link the other's kernel or host code.
DEFAULTS_SCRIPT = """
import numpy as np
import spirjit


@spirjit.device_func
def scaled(x, factor=FACTOR):
    return x * factor


@spirjit.kernel
def apply(item, a):
    i = item.get_id(0)
    a[i] = scaled(a[i])


@spirjit.jit
def offset(a, by=FACTOR):
    return a + by


a = np.ones(4)
spirjit.call_kernel(apply, spirjit.Range(4), a)
print(a[0], offset(np.zeros(1))[0])
"""


def test_an_edited_default_is_a_miss(device_filter, run_isolated, tmp_path,
                                     monkeypatch):
    monkeypatch.setenv("SPIRJIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("SPIRJIT_DISABLE_CACHE", raising=False)
    for factor in ("2.0", "3.0", "2.0"):
        done = run_isolated(DEFAULTS_SCRIPT.replace("FACTOR", factor))
        assert done.returncode == 0, done.stderr
        assert done.stdout.split() == [factor, factor]
