"""Shared fixtures of spirjit's Python tests.

``device_filter`` runs a test once per OpenCL device spirjit sees (those
``SPIRJIT_TEST_DEVICES`` matches, where it is set: ctest's pytest_native
names the native CPU device so), with ``SPIRJIT_DEVICE`` naming that
device, so every launch without DeviceArrays goes there.  ``require_dtypes`` skips float64 cases on devices without double
precision.  ``run_isolated`` runs a snippet in a fresh interpreter: for the
few cases where a compiler bug takes the whole process down, which would
otherwise end the test session. ``tool_command`` runs spirjit's
command-line tools. The suite also runs against an installed wheel (ctest's
``wheel``): the package and its tools are found from ``spirjit.__file__``,
never assumed to be the checkout's.
"""

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap

# Every test session starts with an empty disk cache of its own, so tests
# that count compilations see this session's compilations only; it goes
# when the session ends (left behind, they had filled a developer's /tmp:
# 1454 of them, 38 GB).
_CACHE_DIR = tempfile.mkdtemp(prefix="spirjit-test-cache-")
os.environ["SPIRJIT_CACHE_DIR"] = _CACHE_DIR
atexit.register(shutil.rmtree, _CACHE_DIR, ignore_errors=True)

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import spirjit  # noqa: E402

# On a CPU runtime, DeviceArray values small enough that a launch costs
# more than the work are computed by NumPy in place (API.md, "Where the work
# runs"). The suite tests the kernels at every size; test_host_arrays.py
# tests the NumPy path.
spirjit._spirjit._host_evaluation(False)

_DEVICES = spirjit.devices()
if os.environ.get("SPIRJIT_TEST_DEVICES"):
    _DEVICES = [spirjit.Device._wrap(d) for d in spirjit._spirjit.match_devices(
        os.environ["SPIRJIT_TEST_DEVICES"])]
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(
    spirjit.__file__)))


@pytest.fixture(params=_DEVICES or [None],
                ids=[d.filter_string for d in _DEVICES] or ["no-device"])
def device_filter(request, monkeypatch):
    """The filter string of one OpenCL device; SPIRJIT_DEVICE is set to it."""
    device = request.param
    if device is None:
        pytest.skip("spirjit found no OpenCL device")
    monkeypatch.setenv("SPIRJIT_DEVICE", device.filter_string)
    assert spirjit.default_device() == device
    return device.filter_string


@pytest.fixture
def device(device_filter):
    """The spirjit.Device that ``device_filter`` selected."""
    return spirjit.Device(device_filter)


@pytest.fixture
def require_dtypes(device):
    """``require_dtypes(*dtypes)`` skips the test when the current device
    cannot compute with one of the dtypes (float64 without fp64)."""

    def check(*dtypes):
        for dtype in dtypes:
            dtype = np.dtype(dtype)
            if dtype in (np.dtype(np.float64), np.dtype(np.complex128)) \
                    and not device.has_fp64:
                pytest.skip(f"{device.name} has no double precision")

    return check


@pytest.fixture
def run_isolated(tmp_path):
    """``run_isolated(source)`` runs ``source`` (dedented) in a new Python
    process that imports spirjit from this checkout and inherits the
    environment (SPIRJIT_DEVICE included); returns the CompletedProcess."""

    def run(source, timeout=120):
        script = tmp_path / "isolated.py"
        script.write_text(textwrap.dedent(source))
        env = dict(os.environ)
        env["PYTHONPATH"] = _PACKAGE_ROOT + os.pathsep + env.get(
            "PYTHONPATH", "")
        return subprocess.run([sys.executable, str(script)], env=env,
                              capture_output=True, text=True,
                              timeout=timeout)

    return run


@pytest.fixture
def tool_command():
    """``tool_command(name)``: the command line that runs spirjit's tool
    ``name`` (spirjit-devices, spirjit-dump-ir) for the spirjit under test:
    the script in the checkout's tools/ when spirjit is the checkout's,
    else the console script installed beside this Python (a venv that the
    wheel was installed in)."""

    def command(name):
        script = os.path.join(os.path.dirname(_PACKAGE_ROOT), "tools", name)
        if os.path.isfile(script):
            return [script]
        return [os.path.join(os.path.dirname(sys.executable), name)]

    return command


def pytest_collection_modifyitems(config, items):
    """``SPIRJIT_TEST_SAMPLE=N`` keeps the first of every N tests of each
    file, in the file's order: the wheel tier (tests/wheel/run_wheel.py)
    runs every file so, against the installed package, where ctest's own
    tiers run every test on every device."""
    every = int(os.environ.get("SPIRJIT_TEST_SAMPLE", "1") or 1)
    if every <= 1:
        return
    kept, dropped, seen = [], [], {}
    for item in items:
        index = seen.get(item.fspath, 0)
        seen[item.fspath] = index + 1
        (kept if index % every == 0 else dropped).append(item)
    config.hook.pytest_deselected(items=dropped)
    items[:] = kept
