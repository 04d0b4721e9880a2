"""The C++ extension interface (issue 27, item 5): the example module of
examples/extension, built once with the machine's C++ compiler against the
installed header (spirjit.get_include()) and pybind11's, computes A @ x on
DeviceArrays on their own queue or stream, on every device, as NumPy
does."""

import gc
import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig
import weakref

import numpy as np
import pytest

import spirjit

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / \
    "extension"
PACKAGE_ROOT = pathlib.Path(spirjit.__file__).resolve().parents[1]


def test_get_include_names_the_header():
    header = pathlib.Path(spirjit.get_include()) / "spirjit" / \
        "extension.hpp"
    assert header.is_file()
    assert "type_caster<spirjit::array_view>" in header.read_text()


@pytest.fixture(scope="module")
def matvec(tmp_path_factory):
    pytest.importorskip("pybind11", reason="building the example extension "
                        "needs pybind11 (pip install pybind11)")
    pytest.importorskip("setuptools", reason="building the example "
                        "extension needs setuptools")
    compiler = (sysconfig.get_config_var("CXX") or "c++").split()[0]
    if shutil.which(compiler) is None:
        pytest.skip(f"no C++ compiler ({compiler}) to build the example "
                    "extension")
    out = tmp_path_factory.mktemp("matvec")
    env = dict(os.environ)
    # setup.py imports spirjit for its header: this one.
    env["PYTHONPATH"] = os.pathsep.join(
        [str(PACKAGE_ROOT)] + [p for p in [env.get("PYTHONPATH")] if p])
    built = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext", "--build-lib",
         str(out), "--build-temp", str(out / "objects")],
        cwd=EXAMPLE, env=env, capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stdout + built.stderr
    sys.path.insert(0, str(out))
    try:
        import matvec as module
        yield module
    finally:
        sys.path.remove(str(out))
        sys.modules.pop("matvec", None)


def backend_has_kernel(device):
    if device.backend == "level_zero":
        pytest.skip("the example has no Level Zero kernel")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matvec_equals_numpy(matvec, device, require_dtypes, dtype):
    require_dtypes(dtype)
    backend_has_kernel(device)
    rng = np.random.default_rng(1)
    a = rng.random((37, 19)).astype(dtype)
    v = rng.random(19).astype(dtype)
    y = matvec.matvec(spirjit.asarray(a, device=device),
                      spirjit.asarray(v, device=device))
    assert isinstance(y, spirjit.DeviceArray)
    assert y.device == device and y.dtype == dtype and y.shape == (37,)
    np.testing.assert_allclose(np.asarray(y), a @ v,
                               rtol=1e-5 if dtype == np.float32 else 1e-12)


def test_pending_inputs_are_computed_first(matvec, device, require_dtypes):
    require_dtypes(np.float64)
    backend_has_kernel(device)
    rng = np.random.default_rng(2)
    a, v = rng.random((64, 48)), rng.random(48)
    A = spirjit.asarray(a, device=device) * 2.0
    x = spirjit.asarray(v, device=device) + 1.0
    assert spirjit._spirjit._pending(A) and spirjit._spirjit._pending(x)
    y = matvec.matvec(A, x)
    # And spirjit's next work on y comes after the extension's.
    z = y * 0.5 - 1.0
    np.testing.assert_allclose(np.asarray(z), (2 * a) @ (v + 1) * 0.5 - 1.0,
                               rtol=1e-12)


@pytest.mark.parametrize("layout", ["strided", "transposed", "reversed"])
def test_non_contiguous_inputs(matvec, device, require_dtypes, layout):
    require_dtypes(np.float64)
    backend_has_kernel(device)
    rng = np.random.default_rng(3)
    base = spirjit.asarray(rng.random((40, 60)), device=device)
    A = {"strided": base[::2, 1::3], "transposed": base.T[:30, ::4],
         "reversed": base[::-3, ::-2]}[layout]
    assert not matvec.describe(A)["c_contiguous"]
    vector = spirjit.asarray(rng.random(2 * A.shape[1]), device=device)
    x = vector[::-2]
    y = matvec.matvec(A, x)
    np.testing.assert_allclose(np.asarray(y), np.asarray(A) @ np.asarray(x),
                               rtol=1e-12)


def test_host_memory_from_dlpack(matvec, device):
    backend_has_kernel(device)
    # A DeviceArray over NumPy's memory: an OpenCL buffer (cl_mem) rather
    # than SVM where the device uses host memory in place.
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    v = np.ones(4, dtype=np.float32)
    y = matvec.matvec(spirjit.from_dlpack(a, device=device),
                      spirjit.from_dlpack(v, device=device))
    np.testing.assert_allclose(np.asarray(y), a @ v)


def test_inputs_dropped_at_once_stay_alive_for_the_kernel(matvec, device,
                                                          require_dtypes):
    require_dtypes(np.float64)
    backend_has_kernel(device)
    # DeviceArrays over NumPy's memory, dropped as the call returns, before
    # the kernel is known to have run: the NumPy arrays must live on until
    # the device is done with the queue.
    a, v = np.full((64, 64), 0.5), np.full(64, 2.0)
    A = spirjit.from_dlpack(a, device=device)
    if A.usm_type != "host":
        pytest.skip(f"{device.filter_string} copies host memory")
    watched = weakref.ref(a)
    y = matvec.matvec(A, spirjit.from_dlpack(v, device=device))
    del a, A
    gc.collect()
    assert watched() is not None
    np.testing.assert_array_equal(np.asarray(y), np.full(64, 64.0))
    gc.collect()  # the read waited for the queue: now they may go
    assert watched() is None


def test_what_the_header_gives(matvec, device):
    x = spirjit.asarray(np.zeros((4, 6), dtype=np.int32), device=device)
    view = x[1:, ::2]
    got = matvec.describe(view)
    assert got["shape"] == view.shape and got["strides"] == view.strides
    assert (got["typestr"], got["kind"], got["itemsize"]) == ("<i4", "i", 4)
    assert got["backend"] == device.backend
    assert got["filter_string"] == device.filter_string
    assert got["device_type"] == device.device_type
    assert got["has_pointer"]
    # The native device's queue is spirjit's own thread pool: no handle.
    assert got["has_queue"] == (device.backend != "native")
    assert bool(got["host_data"]) == x._host_addressable
    assert matvec.device_of(device) == device


def test_numpy_arrays_are_not_converted(matvec, device):
    # As dpctl4pybind11 takes only usm_ndarrays: no silent copy to a device.
    with pytest.raises(TypeError, match="incompatible function arguments"):
        matvec.matvec(np.ones((2, 2)), spirjit.ones(2, device=device))


def test_errors_name_the_problem(matvec, device):
    A = spirjit.ones((3, 4), dtype=np.float32, device=device)
    with pytest.raises(ValueError, match="A has 4 columns and x 5 elements"):
        matvec.matvec(A, spirjit.ones(5, dtype=np.float32, device=device))
    with pytest.raises(TypeError, match="must both be float32 or both "
                       "float64, not "
                       "<i4 and <i4"):
        ints = spirjit.ones((3, 4), dtype=np.int32, device=device)
        matvec.matvec(ints, spirjit.ones(4, dtype=np.int32, device=device))
    with pytest.raises(ValueError, match="A must be 2-D and x 1-D"):
        matvec.matvec(A[0], A[0])


def test_arrays_on_two_devices_raise(matvec):
    devices = spirjit.devices()
    if len(devices) < 2:
        pytest.skip("needs two devices")
    A = spirjit.ones((2, 2), dtype=np.float32, device=devices[0])
    x = spirjit.ones(2, dtype=np.float32, device=devices[1])
    with pytest.raises(ValueError, match=f"A is on {devices[0].filter_string}"
                       f" and x on {devices[1].filter_string}"):
        matvec.matvec(A, x)


def test_level_zero_is_not_implemented(matvec):
    devices = [d for d in spirjit.devices() if d.backend == "level_zero"]
    if not devices:
        pytest.skip("no Level Zero device")
    A = spirjit.ones((2, 2), dtype=np.float32, device=devices[0])
    x = spirjit.ones(2, dtype=np.float32, device=devices[0])
    with pytest.raises(NotImplementedError, match="this example has no "
                       "kernel for level_zero devices"):
        matvec.matvec(A, x)
