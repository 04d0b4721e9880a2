"""The runtime as users meet it: devices and filter strings, DeviceArrays
(creation, views, interop through DLPack and ``__sycl_usm_array_interface__``),
compute follows data, asynchronous launches and allocation errors.

Everything that depends on a device runs once per device (``device_filter``).
Two-device behaviour runs in-process when two devices exist, and also in a
subprocess that asks PoCL for two CPU devices (``POCL_DEVICES``), so that it
is exercised on a one-device machine too."""

import gc
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import spirjit
from producers import DLPackOnly
from spirjit import _array_primitives, errors
from spirjit import kernel_api as kapi

DEVICES = spirjit.devices()
PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(
    spirjit.__file__)))


def run_python(tmp_path, source, env=None, args=(), timeout=60):
    """Runs ``source`` in a fresh interpreter importing this checkout's
    spirjit; ``env`` entries override the inherited environment (None
    removes one)."""
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(source))
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = PACKAGE_ROOT
    for key, value in (env or {}).items():
        if value is None:
            full_env.pop(key, None)
        else:
            full_env[key] = value
    return subprocess.run([sys.executable, str(script), *args], env=full_env,
                          capture_output=True, text=True, timeout=timeout)


def last_json(proc):
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


# --- kernels ---------------------------------------------------------------

@spirjit.kernel
def inc1(item: kapi.Item, a):
    i = item.get_id(0)
    a[i] += 1


@spirjit.kernel
def inc2(item: kapi.Item, a):
    i = item.get_id(0)
    j = item.get_id(1)
    a[i, j] += 1


@spirjit.kernel
def inc3(item: kapi.Item, a):
    a[item.get_id(0), item.get_id(1), item.get_id(2)] += 1


INC = {1: inc1, 2: inc2, 3: inc3}


@spirjit.kernel
def axpy(item: kapi.Item, a, b, c):
    i = item.get_id(0)
    c[i] = 2 * a[i] + b[i]


@spirjit.kernel
def copy1(item: kapi.Item, src, dst):
    i = item.get_id(0)
    dst[i] = src[i]


def increment(x):
    """Adds 1 to every element of DeviceArray or NumPy array ``x``."""
    spirjit.call_kernel(INC[x.ndim], kapi.Range(*x.shape), x)


def sample(rng, dtype, shape):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, dtype=dtype,
                            endpoint=True)
    values = rng.standard_normal(shape) * 100
    if dtype.kind == "c":
        values = values + 1j * rng.standard_normal(shape)
    return values.astype(dtype)


# === 1. Devices ============================================================

def test_devices_nonempty_and_unique():
    devices = spirjit.devices()
    assert devices, "spirjit found no device"
    assert all(isinstance(d, spirjit.Device) for d in devices)
    filters = [d.filter_string for d in devices]
    assert len(set(filters)) == len(filters), filters
    # Calling again gives equal devices.
    assert spirjit.devices() == devices


def test_filter_string_selects_itself(device):
    for d in spirjit.devices():
        assert spirjit.Device(d.filter_string) == d
        assert spirjit.Device(d) == d  # a Device is accepted as a filter
        assert hash(spirjit.Device(d.filter_string)) == hash(d)
    assert spirjit.Device(device.filter_string).filter_string == \
        device.filter_string


def _expected_matches(filter_string):
    """The devices a filter selects, by the API's rule: backend and type
    restrict; the index counts among the devices matching the other parts."""
    backend = dtype = None
    index = None
    for part in filter_string.split(":"):
        if not part:
            continue
        if part in ("opencl", "level_zero", "cuda"):
            backend = part
        elif part in ("cpu", "gpu", "accelerator"):
            dtype = part
        else:
            index = int(part)
    matches = [d for d in DEVICES
               if (backend is None or d.backend == backend)
               and (dtype is None or d.device_type == dtype)]
    if index is not None:
        matches = matches[index:index + 1]
    return matches


@pytest.mark.parametrize("filter_string", [
    "opencl", "cpu", "gpu", "accelerator", "opencl:cpu", "opencl:gpu",
    "cpu:0", "gpu:0", "opencl:cpu:0", "opencl:0", "opencl::0", "0", "cpu:1",
    "level_zero", "opencl:cpu:99"])
def test_partial_filters(filter_string):
    expected = _expected_matches(filter_string)
    if expected:
        chosen = spirjit.Device(filter_string)
        assert chosen == expected[0]
        if ":" not in filter_string and not filter_string.isdigit():
            # A one-part filter names a backend or a type.
            assert filter_string in (chosen.backend, chosen.device_type)
    else:
        with pytest.raises(errors.DeviceError) as info:
            spirjit.Device(filter_string)
        message = str(info.value)
        for d in DEVICES:
            assert d.filter_string in message
        assert filter_string in message


def test_opencl_and_cpu_filters_pick_matching_devices():
    for d in DEVICES:
        assert d.backend in ("opencl", "cuda", "level_zero", "native")
    opencl = [d for d in DEVICES if d.backend == "opencl"]
    if not opencl:
        pytest.skip("no OpenCL device")
    assert spirjit.Device("opencl") == opencl[0]
    cpus = [d for d in opencl if d.device_type == "cpu"]
    if not cpus:
        pytest.skip("no CPU device")
    assert spirjit.Device("cpu") == cpus[0]
    assert spirjit.Device("cpu:0") == cpus[0]
    assert spirjit.Device("opencl:cpu") == cpus[0]


def test_filter_matching_nothing_lists_devices():
    with pytest.raises(errors.DeviceError) as info:
        spirjit.Device("opencl:cpu:4242")
    assert isinstance(info.value, errors.SpirjitError)
    assert isinstance(info.value, RuntimeError)
    message = str(info.value)
    assert "opencl:cpu:4242" in message
    for d in DEVICES:
        assert d.filter_string in message


def test_malformed_filter_is_rejected():
    # Not specified which class; it must not be accepted silently.
    with pytest.raises((ValueError, errors.DeviceError)) as info:
        spirjit.Device("opencl:bogus")
    assert "bogus" in str(info.value)


def test_device_properties(device):
    assert isinstance(device.name, str) and device.name
    assert device.backend in ("opencl", "cuda", "native")
    assert device.device_type in ("cpu", "gpu", "accelerator")
    assert isinstance(device.vendor, str) and device.vendor
    assert isinstance(device.max_work_group_size, int)
    assert device.max_work_group_size > 0
    for flag in ("has_fp64", "has_atomic64", "supports_spirv"):
        assert isinstance(getattr(device, flag), bool), flag
    for size in ("global_mem_size", "local_mem_size"):
        value = getattr(device, size)
        assert isinstance(value, int) and value > 0, (size, value)
    assert device.filter_string.startswith(
        f"{device.backend}:{device.device_type}")
    assert device.filter_string in repr(device)
    with pytest.raises(AttributeError):
        device.no_such_property


def test_default_device(monkeypatch):
    monkeypatch.delenv("SPIRJIT_DEVICE", raising=False)
    default = spirjit.default_device()
    assert isinstance(default, spirjit.Device)
    assert default in spirjit.devices()
    for d in DEVICES:
        monkeypatch.setenv("SPIRJIT_DEVICE", d.filter_string)
        assert spirjit.default_device() == d


_DEFAULT_SCRIPT = """
    import json
    import numpy as np
    import spirjit
    from spirjit import kernel_api as kapi

    @spirjit.kernel
    def inc(item, a):
        a[item.get_id(0)] += 1

    a = np.zeros(4, np.int32)
    spirjit.call_kernel(inc, kapi.Range(4), a)
    print(json.dumps({"default": spirjit.default_device().filter_string,
                      "result": a.tolist()}))
"""


def test_spirjit_device_env_picks_default(tmp_path, device):
    out = last_json(run_python(tmp_path, _DEFAULT_SCRIPT, env={
        "SPIRJIT_DEVICE": device.filter_string, "SPIRJIT_DISABLE_CACHE": "1"}))
    assert out == {"default": device.filter_string, "result": [1, 1, 1, 1]}


def test_spirjit_device_env_partial_filter(tmp_path):
    out = last_json(run_python(tmp_path, _DEFAULT_SCRIPT, env={
        "SPIRJIT_DEVICE": DEVICES[0].backend, "SPIRJIT_DISABLE_CACHE": "1"}))
    assert out["default"] == spirjit.Device(DEVICES[0].backend).filter_string


def test_spirjit_device_env_matching_nothing(tmp_path):
    proc = run_python(tmp_path, """
        import json
        import numpy as np
        import spirjit
        from spirjit import kernel_api as kapi

        @spirjit.kernel
        def inc(item, a):
            a[item.get_id(0)] += 1

        out = {"devices": [d.filter_string for d in spirjit.devices()]}
        try:
            spirjit.default_device()
        except spirjit.errors.DeviceError as e:
            out["default_error"] = str(e)
        try:
            spirjit.call_kernel(inc, kapi.Range(4), np.zeros(4, np.int32))
        except spirjit.errors.DeviceError as e:
            out["launch_error"] = str(e)
        print(json.dumps(out))
    """, env={"SPIRJIT_DEVICE": "opencl:gpu:4242",
              "SPIRJIT_DISABLE_CACHE": "1"})
    out = last_json(proc)
    assert out["devices"] == [d.filter_string for d in DEVICES]
    for key in ("default_error", "launch_error"):
        assert key in out, out
        assert "opencl:gpu:4242" in out[key]
        for d in DEVICES:
            assert d.filter_string in out[key]


@pytest.mark.parametrize("how", ["script", "module"])
def test_spirjit_devices_tool(how, monkeypatch, tool_command):
    monkeypatch.delenv("SPIRJIT_DEVICE", raising=False)
    env = dict(os.environ)
    env["PYTHONPATH"] = PACKAGE_ROOT
    env["SPIRJIT_PYTHON"] = sys.executable
    command = tool_command("spirjit-devices") \
        if how == "script" else [sys.executable, "-m", "spirjit.devices_tool"]
    proc = subprocess.run(command, env=env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for d in DEVICES:
        assert d.filter_string in proc.stdout
        assert d.name in proc.stdout
    default = spirjit.default_device().filter_string
    marked = [line for line in proc.stdout.splitlines()
              if line.startswith("*") and "[" in line]
    assert len(marked) == 1 and f"[{default}]" in marked[0], proc.stdout


def test_spirjit_devices_tool_marks_spirjit_device(tool_command):
    last = DEVICES[-1]
    env = dict(os.environ)
    env["PYTHONPATH"] = PACKAGE_ROOT
    env["SPIRJIT_PYTHON"] = sys.executable
    env["SPIRJIT_DEVICE"] = last.filter_string
    proc = subprocess.run(tool_command("spirjit-devices"),
                          env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    marked = [line for line in proc.stdout.splitlines()
              if line.startswith("*") and "[" in line]
    assert len(marked) == 1 and f"[{last.filter_string}]" in marked[0]


# === 2. DeviceArray ========================================================

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32,
          np.uint32, np.int64, np.uint64, np.float32, np.float64,
          np.complex64, np.complex128]
SHAPES = [(7,), (1,), (0,), (3, 5), (2, 3, 4), (1, 1, 1)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_asarray_asnumpy_round_trip(device, dtype, shape):
    a = sample(np.random.default_rng(len(shape)), dtype, shape)
    x = spirjit.asarray(a, device=device)
    assert isinstance(x, spirjit.DeviceArray)
    assert x.shape == a.shape and isinstance(x.shape, tuple)
    assert x.dtype == a.dtype
    assert x.strides == a.strides  # bytes, C order
    assert x.ndim == a.ndim
    assert x.size == a.size
    assert x.device == device
    back = spirjit.asnumpy(x)
    assert isinstance(back, np.ndarray)
    assert back.dtype == a.dtype and back.shape == a.shape
    np.testing.assert_array_equal(back, a)
    host = np.asarray(x)
    assert host.dtype == a.dtype
    np.testing.assert_array_equal(host, a)
    assert len(x) == shape[0]


@pytest.mark.parametrize("layout", ["fortran", "strided", "reversed"])
def test_asarray_of_non_contiguous_numpy(device, layout):
    base = np.arange(60, dtype=np.int32).reshape(5, 12)
    a = {"fortran": np.asfortranarray(base),
         "strided": base[::2, 1::3],
         "reversed": base[::-1, ::-2]}[layout]
    x = spirjit.asarray(a, device=device)
    assert x.shape == a.shape
    np.testing.assert_array_equal(spirjit.asnumpy(x), a)
    # The strides describe the device copy consistently (bytes).
    assert all(s % 4 == 0 for s in x.strides)


def test_asarray_dtype_and_device_arguments(device):
    assert spirjit.asarray([1, 2, 3]).dtype == np.asarray([1, 2, 3]).dtype
    assert spirjit.asarray([1.5, 2]).dtype == np.float64
    x = spirjit.asarray(np.arange(4), dtype=np.float32,
                        device=device.filter_string)
    assert x.dtype == np.float32 and x.device == device
    np.testing.assert_array_equal(spirjit.asnumpy(x), [0, 1, 2, 3])
    y = spirjit.asarray(x)
    assert y.device == device
    np.testing.assert_array_equal(spirjit.asnumpy(y), [0, 1, 2, 3])
    z = spirjit.asarray(x, dtype=np.int16)
    assert z.dtype == np.int16
    np.testing.assert_array_equal(spirjit.asnumpy(z), [0, 1, 2, 3])
    s = spirjit.asarray(7.5, device=device)  # a 0-d array
    assert s.shape == () and s.ndim == 0 and s.size == 1
    assert spirjit.asnumpy(s)[()] == 7.5


@pytest.mark.parametrize("as_object", [False, True], ids=["filter", "Device"])
def test_creation_functions(device, as_object):
    where = device if as_object else device.filter_string
    e = spirjit.empty((2, 3), device=where)
    assert e.shape == (2, 3) and e.dtype == np.float64 and e.device == device
    assert e.strides == (24, 8)
    z = spirjit.zeros(5, device=where)
    assert z.dtype == np.float64 and z.shape == (5,)
    np.testing.assert_array_equal(spirjit.asnumpy(z), np.zeros(5))
    o = spirjit.ones((2, 2), device=where)
    assert o.dtype == np.float64
    np.testing.assert_array_equal(spirjit.asnumpy(o), np.ones((2, 2)))
    assert spirjit.zeros(3, np.int16, device=where).dtype == np.int16
    assert spirjit.ones(3, dtype=np.uint8, device=where).dtype == np.uint8
    assert spirjit.empty(4, np.float32, device=where).device == device
    assert spirjit.empty((0, 3), device=where).size == 0


@pytest.mark.parametrize("fill_value", [7, 2.5, True, np.float32(1.25),
                                        np.int8(-3), 1 + 2j, np.uint16(9)],
                         ids=repr)
def test_full_infers_dtype_like_numpy(device, fill_value):
    x = spirjit.full((2, 3), fill_value, device=device)
    expected = np.full((2, 3), fill_value)
    assert x.dtype == expected.dtype
    assert x.device == device
    np.testing.assert_array_equal(spirjit.asnumpy(x), expected)
    if isinstance(fill_value, complex):
        return
    y = spirjit.full(4, fill_value, dtype=np.float32, device=device)
    assert y.dtype == np.float32 and y.shape == (4,)
    np.testing.assert_array_equal(spirjit.asnumpy(y),
                                  np.full(4, fill_value, dtype=np.float32))


@pytest.mark.parametrize("host", [True, False],
                         ids=["numpy-in-place", "kernel"])
def test_filled_arrays_are_filled_on_the_device(device, host):
    # Both ways a device fills: NumPy in place where the host addresses
    # its memory, a kernel everywhere (no whole array on the host first).
    if host and not spirjit.empty(1, device=device)._host_addressable:
        pytest.skip("the host does not address this device's memory")
    cases = [((2, 3), 0, np.int16), ((3, 2, 4), 1, np.complex64),
             (5, 7, None), ((4,), 2 ** 63, np.uint64), ((2, 2), 2.7, int),
             ((), 2.5, np.float32), ((0, 3), 1.0, None), (3, True, None),
             ((2, 3), [1, 2, 3], np.float32),
             ((2, 2), np.array([[1], [2]]), np.int8),
             (4, spirjit.asarray(-1.5, device=device), None)]
    with _array_primitives.use_host(host):
        for shape, fill_value, dtype in cases:
            x = spirjit.full(shape, fill_value, dtype, device=device)
            expected = np.full(shape, np.asarray(fill_value), dtype)
            assert x.device == device and x.dtype == expected.dtype
            np.testing.assert_array_equal(spirjit.asnumpy(x), expected)
        z = spirjit.zeros_like(spirjit.ones((2, 5), np.int32, device=device))
        assert z.device == device and z.dtype == np.int32
        np.testing.assert_array_equal(spirjit.asnumpy(z), 0)
    with pytest.raises(ValueError, match=r"could not broadcast input array "
                                         r"from shape \(2,\) into shape "
                                         r"\(2,3\)"):
        spirjit.full((2, 3), [1, 2], device=device)


def test_empty_like_zeros_like(device):
    x = spirjit.asarray(np.arange(12, dtype=np.int16).reshape(3, 4),
                        device=device)
    e = spirjit.empty_like(x)
    assert (e.shape, e.dtype, e.device) == (x.shape, x.dtype, device)
    z = spirjit.zeros_like(x)
    assert (z.shape, z.dtype, z.device) == (x.shape, x.dtype, device)
    np.testing.assert_array_equal(spirjit.asnumpy(z),
                                  np.zeros((3, 4), np.int16))
    # Of a view: the view's shape, a fresh contiguous array.
    zv = spirjit.zeros_like(x[:, ::2])
    assert zv.shape == (3, 2) and zv.strides == (4, 2)
    # Of a NumPy array: on the default device.
    h = spirjit.zeros_like(np.ones((2, 3), np.int8))
    assert (h.shape, h.dtype) == ((2, 3), np.int8)
    assert h.device == spirjit.default_device()
    np.testing.assert_array_equal(spirjit.asnumpy(h), 0)


def test_negative_shape_raises(device):
    with pytest.raises(ValueError):
        spirjit.empty(-1, device=device)
    with pytest.raises(ValueError):
        spirjit.empty((3, -2), device=device)


def test_np_asarray_with_dtype(device):
    x = spirjit.asarray(np.arange(5, dtype=np.int32), device=device)
    y = np.asarray(x, dtype=np.float64)
    assert y.dtype == np.float64
    np.testing.assert_array_equal(y, np.arange(5.0))
    np.testing.assert_array_equal(np.array(x), np.arange(5))


KEYS = {
    1: [slice(None), slice(2, 9), slice(None, None, 3), slice(1, None, 2),
        slice(None, None, -1), slice(8, 1, -3), slice(-3, None),
        slice(5, 2), slice(None, None, -4), Ellipsis, (Ellipsis,)],
    2: [(slice(None), slice(None, None, -1)), (slice(1, None, 2), slice(2, 5)),
        (1,), (-1, slice(None, None, 2)), (slice(None), 3), (Ellipsis, 2),
        (slice(None, None, -2), slice(None, None, -3)), (slice(4, 1, -1),),
        (slice(2, 2), slice(None))],
    3: [(slice(None, None, -1), slice(None), slice(1, None, 2)), (1,),
        (Ellipsis, -1), (0, slice(None, None, 2), 3),
        (slice(None, None, 2), Ellipsis, slice(None, None, -2)),
        (slice(1, 2), slice(None, None, -1), slice(None, None, -1))],
}
BASES = {1: (10,), 2: (6, 7), 3: (3, 4, 5)}


@pytest.mark.parametrize("ndim,key", [(n, k) for n in KEYS for k in KEYS[n]],
                         ids=lambda v: repr(v))
def test_slicing_equals_numpy(device, ndim, key):
    a = np.arange(np.prod(BASES[ndim]), dtype=np.int32).reshape(BASES[ndim])
    x = spirjit.asarray(a, device=device)
    v, expected = x[key], a[key]
    assert isinstance(v, spirjit.DeviceArray)
    assert v.shape == expected.shape
    assert v.strides == expected.strides
    assert v.ndim == expected.ndim and v.size == expected.size
    assert v.dtype == expected.dtype and v.device == device
    np.testing.assert_array_equal(spirjit.asnumpy(v), expected)
    np.testing.assert_array_equal(np.asarray(v), expected)


def test_views_of_views_equal_numpy(device):
    a = np.arange(120, dtype=np.float32).reshape(4, 5, 6)
    x = spirjit.asarray(a, device=device)
    v = x[1:, ::-1][::2, 1:4][..., ::-3]
    e = a[1:, ::-1][::2, 1:4][..., ::-3]
    assert v.shape == e.shape and v.strides == e.strides
    np.testing.assert_array_equal(spirjit.asnumpy(v), e)


def test_integer_indexing(device):
    a = np.arange(24, dtype=np.int64).reshape(2, 3, 4)
    x = spirjit.asarray(a, device=device)
    assert x[1, 2, 3] == a[1, 2, 3]
    assert x[-1, -1, -1] == a[-1, -1, -1]
    assert x[0][1][2] == a[0][1][2]
    with pytest.raises(IndexError):
        x[2]
    with pytest.raises(IndexError):
        x[0, -4]
    with pytest.raises(IndexError):
        x[0, 0, 0, 0]


VIEW_WRITES = [
    (np.float32, (12,), (slice(2, 11, 3),)),
    (np.float32, (12,), (slice(None, None, -2),)),
    (np.uint8, (13,), (slice(1, None, 3),)),      # an odd byte offset
    (np.int16, (9,), (slice(7, 0, -3),)),
    (np.int64, (5, 6), (slice(1, None, 2), slice(None, None, -1))),
    (np.float64, (5, 6), (slice(None, None, -2), slice(1, 5))),
    (np.int32, (5, 6), (3,)),                      # a row
    (np.int32, (5, 6), (slice(None), 4)),          # a column
    (np.int32, (4, 5, 6), (slice(1, 3), slice(None, None, -2),
                           slice(1, None, 2))),
]


@pytest.mark.parametrize("dtype,shape,key", VIEW_WRITES,
                         ids=lambda v: getattr(v, "__name__", repr(v)))
def test_kernel_writes_through_view(device, require_dtypes, dtype, shape,
                                    key):
    require_dtypes(dtype)
    a = np.arange(np.prod(shape)).reshape(shape).astype(dtype)
    x = spirjit.asarray(a, device=device)
    view = x[key]
    increment(view)
    expected = a.copy()
    expected[key] += 1
    np.testing.assert_array_equal(spirjit.asnumpy(x), expected)
    np.testing.assert_array_equal(spirjit.asnumpy(view), expected[key])


@pytest.mark.parametrize("key", [None, (slice(None), None),
                                 (Ellipsis, None), (None, 1)], ids=repr)
def test_newaxis_indexing(device, key):
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    v = spirjit.asarray(a, device=device)[key]
    assert v.shape == a[key].shape
    np.testing.assert_array_equal(spirjit.asnumpy(v), a[key])


def test_len_of_0d_array_is_type_error(device):
    with pytest.raises(TypeError):
        len(spirjit.asarray(1.0, device=device))


def test_to_device_same_device_is_identity(device):
    x = spirjit.asarray(np.arange(3.0), device=device)
    assert x.to_device(device) is x
    assert x.to_device(device.filter_string) is x
    assert spirjit.asarray(x, device=device) is x


@pytest.mark.skipif(len(DEVICES) < 2, reason="needs two devices")
def test_to_device_other_device():
    a = np.arange(10, dtype=np.int32)
    x = spirjit.asarray(a, device=DEVICES[0])
    y = x.to_device(DEVICES[1])
    assert y.device == DEVICES[1] and x.device == DEVICES[0]
    np.testing.assert_array_equal(spirjit.asnumpy(y), a)
    increment(y)
    np.testing.assert_array_equal(spirjit.asnumpy(x), a)  # a copy


DLPACK_CASES = [
    (np.float32, (8,), ()), (np.float64, (3, 4), ()), (np.int8, (5,), ()),
    (np.uint64, (2, 3, 4), ()), (np.complex64, (6,), ()),
    (np.bool_, (7,), ()), (np.int32, (6, 5), (slice(1, None, 2),)),
    (np.int16, (9,), (slice(None, None, -2),)),
    (np.float32, (4, 6), (slice(None, None, -1), slice(1, 5, 2))),
]


@pytest.mark.parametrize("dtype,shape,key", DLPACK_CASES,
                         ids=lambda v: getattr(v, "__name__", repr(v)))
def test_np_from_dlpack(device, dtype, shape, key):
    a = sample(np.random.default_rng(3), dtype, shape)
    x = spirjit.asarray(a, device=device)[key]
    dev = x.__dlpack_device__()
    assert isinstance(dev, tuple) and len(dev) == 2
    if dev[0] != 1:
        pytest.skip(f"device memory not host-addressable (DLPack device "
                    f"{dev}); NumPy cannot import it")
    h = np.from_dlpack(x)
    assert h.dtype == a.dtype and h.shape == x.shape
    assert h.strides == x.strides
    np.testing.assert_array_equal(h, spirjit.asnumpy(x))
    np.testing.assert_array_equal(h, a[key])


def test_dlpack_shares_memory_with_kernels(device):
    if device.device_type == "cpu" and "Portable Computing Language" in \
            getattr(device, "platform", ""):
        # The API: PoCL's CPU device reports kDLCPU.
        assert spirjit.zeros(1, device=device).__dlpack_device__()[0] == 1
    x = spirjit.asarray(np.arange(10, dtype=np.float32), device=device)
    if x.__dlpack_device__()[0] != 1:
        pytest.skip("device memory not host-addressable")
    h = np.from_dlpack(x)
    view = x[1::3]
    hv = np.from_dlpack(view)
    increment(x)
    np.testing.assert_array_equal(h, np.arange(10) + 1)   # no copy
    np.testing.assert_array_equal(hv, np.arange(10)[1::3] + 1)
    increment(view)
    np.testing.assert_array_equal(h[1::3], np.arange(10)[1::3] + 2)
    # The host writing through the NumPy view is what the device sees.
    # (NumPy marks imports of the legacy unversioned "dltensor" capsule
    # read-only; only a versioned DLPack >= 1.0 capsule can say writable.)
    if not h.flags.writeable:
        return
    h[0] = 100
    np.testing.assert_array_equal(spirjit.asnumpy(x)[0], 100)
    out = spirjit.zeros(10, np.float32, device=device)
    spirjit.call_kernel(copy1, kapi.Range(10), x, out)
    assert spirjit.asnumpy(out)[0] == 100


def test_dlpack_view_keeps_memory_alive(device):
    x = spirjit.asarray(np.arange(1000, dtype=np.int64), device=device)
    if x.__dlpack_device__()[0] != 1:
        pytest.skip("device memory not host-addressable")
    h = np.from_dlpack(x[10:])
    del x
    gc.collect()
    # Reuse the freed memory if it had been freed.
    others = [spirjit.full(1000, -1, np.int64, device=device)
              for _ in range(4)]
    np.testing.assert_array_equal(h, np.arange(10, 1000))
    del others


@pytest.mark.parametrize("source", ["contiguous", "strided", "reversed",
                                    "fortran", "2d"])
def test_spirjit_from_dlpack_numpy(device, source):
    base = np.arange(30, dtype=np.float32)
    a = {"contiguous": base, "strided": base[1::4], "reversed": base[::-1],
         "fortran": np.asfortranarray(base.reshape(5, 6)),
         "2d": base.reshape(5, 6)[:, ::2]}[source]
    x = spirjit.from_dlpack(a, device=device)
    assert isinstance(x, spirjit.DeviceArray)
    assert x.device == device
    assert x.dtype == a.dtype and x.shape == a.shape
    np.testing.assert_array_equal(spirjit.asnumpy(x), a)
    y = spirjit.from_dlpack(a)
    np.testing.assert_array_equal(spirjit.asnumpy(y), a)


def test_spirjit_from_dlpack_any_producer(device):
    a = np.arange(12, dtype=np.int16).reshape(3, 4)[:, ::-1]
    x = spirjit.from_dlpack(DLPackOnly(a), device=device)
    assert isinstance(x, spirjit.DeviceArray) and x.device == device
    np.testing.assert_array_equal(spirjit.asnumpy(x), a)
    y = spirjit.asarray(DLPackOnly(a), device=device)
    np.testing.assert_array_equal(spirjit.asnumpy(y), a)


def test_spirjit_from_dlpack_of_device_array(device):
    x = spirjit.asarray(np.arange(6, dtype=np.int32), device=device)
    y = spirjit.from_dlpack(x)
    assert isinstance(y, spirjit.DeviceArray) and y.device == device
    np.testing.assert_array_equal(spirjit.asnumpy(y), np.arange(6))


class UsmOnly:
    """An array-like that exposes only ``__sycl_usm_array_interface__`` (as
    a dpctl.tensor.usm_ndarray would), keeping its producer alive."""

    def __init__(self, owner, interface):
        self._owner = owner
        self.__sycl_usm_array_interface__ = interface


@pytest.mark.parametrize("key", [(), (slice(1, None, 2),),
                                 (slice(None, None, -1),),
                                 (slice(None, None, -2), slice(1, 4))],
                         ids=repr)
def test_sycl_usm_array_interface(device, key):
    a = np.arange(30, dtype=np.int32).reshape(5, 6)
    base = spirjit.asarray(a, device=device)
    x = base[key]
    try:
        info = x.__sycl_usm_array_interface__
    except AttributeError as e:
        pytest.skip(f"no USM interface on this device: {e}")
    for k in ("data", "shape", "strides", "typestr", "version"):
        assert k in info, k
    pointer, readonly = info["data"]
    assert isinstance(pointer, int) and pointer != 0
    assert readonly is False
    assert tuple(info["shape"]) == x.shape
    assert tuple(info["strides"]) == tuple(s // 4 for s in x.strides)
    assert tuple(info["strides"]) == tuple(s // 4 for s in a[key].strides)
    assert np.dtype(info["typestr"]) == np.int32
    assert info["version"] >= 1
    # The first element's address, given the offset (in elements).
    base_pointer = base.__sycl_usm_array_interface__["data"][0]
    first = pointer + 4 * (info.get("offset") or 0)
    expected_offset = (a[key].__array_interface__["data"][0]
                       - a.__array_interface__["data"][0])
    assert first - base_pointer == expected_offset
    # asarray reads an object that exposes nothing but this interface.
    y = spirjit.asarray(UsmOnly(x, info), device=device)
    assert isinstance(y, spirjit.DeviceArray)
    assert y.shape == x.shape and y.dtype == x.dtype
    np.testing.assert_array_equal(spirjit.asnumpy(y), a[key])


def test_sycl_usm_array_interface_without_strides(device):
    # dpctl's convention: strides None means C-contiguous.
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = spirjit.asarray(a, device=device)
    try:
        info = dict(x.__sycl_usm_array_interface__)
    except AttributeError as e:
        pytest.skip(f"no USM interface on this device: {e}")
    info["strides"] = None
    y = spirjit.asarray(UsmOnly(x, info))
    np.testing.assert_array_equal(spirjit.asnumpy(y), a)



def usm_over(owner, readonly=False):
    """A dpnp/dpctl-style array over host memory (shared or host USM on a
    CPU device is host memory)."""
    return UsmOnly(owner, {"data": (owner.ctypes.data, readonly),
                           "shape": owner.shape, "strides": None,
                           "typestr": owner.dtype.str, "version": 1})


def test_other_producers_host_arrays_go_into_kernels_in_place(device_filter):
    # API.md "Other array producers": kernel writes reach the owner. Such
    # arrays were rejected by call_kernel, and asarray's copy lost writes.
    owner = np.zeros((3, 4))
    spirjit.call_kernel(inc2, kapi.Range(3, 4), usm_over(owner))
    np.testing.assert_array_equal(owner, np.ones((3, 4)))
    spirjit.call_kernel(inc2, kapi.Range(3, 4), DLPackOnly(owner))
    np.testing.assert_array_equal(owner, np.full((3, 4), 2.0))
    # Asynchronously too: written back once the event is waited for.
    event = spirjit.call_kernel_async(inc2, kapi.Range(3, 4), (),
                                      usm_over(owner))
    event.wait()
    np.testing.assert_array_equal(owner, np.full((3, 4), 3.0))


def test_read_only_usm_array_written_by_a_kernel_is_a_typing_error(
        device_filter):
    owner = np.zeros(4)
    with pytest.raises(errors.TypingError, match="read-only"):
        spirjit.call_kernel(inc1, kapi.Range(4), usm_over(owner, True))
    assert not owner.any()

# === 3. Compute follows data ==============================================

def test_kernel_runs_on_device_arrays_device(device, monkeypatch):
    # Whatever the default is, the arrays' device runs the kernel.
    for default in DEVICES:
        monkeypatch.setenv("SPIRJIT_DEVICE", default.filter_string)
        a = spirjit.asarray(np.arange(16, dtype=np.float32), device=device)
        b = spirjit.ones(16, np.float32, device=device)
        c = spirjit.zeros(16, np.float32, device=device)
        spirjit.call_kernel(axpy, kapi.Range(16), a, b, c)
        assert c.device == device
        np.testing.assert_array_equal(spirjit.asnumpy(c),
                                      2 * np.arange(16, dtype=np.float32) + 1)


def test_numpy_and_device_arrays_mixed(device):
    a = spirjit.asarray(np.arange(8, dtype=np.float32), device=device)
    b = np.full(8, 3, np.float32)
    b.flags.writeable = False  # read-only inputs are fine when only read
    c = np.zeros(8, np.float32)
    spirjit.call_kernel(axpy, kapi.Range(8), a, b, c)
    np.testing.assert_array_equal(c, 2 * np.arange(8) + 3)
    np.testing.assert_array_equal(b, np.full(8, 3))
    # NumPy in, DeviceArray out.
    d = spirjit.zeros(8, np.float32, device=device)
    spirjit.call_kernel(axpy, kapi.Range(8), np.arange(8, dtype=np.float32),
                        b, d)
    np.testing.assert_array_equal(spirjit.asnumpy(d), 2 * np.arange(8) + 3)


@pytest.mark.parametrize("layout", ["contiguous", "strided", "reversed"])
def test_numpy_arguments_read_and_written(device_filter, layout):
    base_a = np.arange(40, dtype=np.int32)
    base_c = np.full(40, -1, np.int32)
    pick = {"contiguous": slice(0, 10), "strided": slice(3, 33, 3),
            "reversed": slice(29, None, -3)}[layout]
    a, c = base_a[pick], base_c[pick]
    before_a = base_a.copy()
    b = np.arange(10, dtype=np.int32)[::-1].copy()
    spirjit.call_kernel(axpy, kapi.Range(10), a, b, c)
    # Inputs the kernel only reads are untouched, every byte of them.
    np.testing.assert_array_equal(base_a, before_a)
    expected = np.full(40, -1, np.int32)
    expected[pick] = 2 * before_a[pick] + b
    np.testing.assert_array_equal(base_c, expected)


def test_readonly_numpy_written_raises(device_filter):
    a = np.zeros(4, np.float32)
    a.flags.writeable = False
    with pytest.raises(errors.TypingError) as info:
        spirjit.call_kernel(inc1, kapi.Range(4), a)
    assert isinstance(info.value, TypeError)
    assert "read-only" in str(info.value)
    np.testing.assert_array_equal(a, 0)
    # The same with DeviceArrays in the launch.
    src = spirjit.ones(4, np.float32)
    with pytest.raises(errors.TypingError):
        spirjit.call_kernel(copy1, kapi.Range(4), src, a)
    np.testing.assert_array_equal(a, 0)


@spirjit.kernel
def atomic_count(item: kapi.Item, a):
    kapi.AtomicRef(a, 0).fetch_add(1)


@spirjit.kernel
def atomic_store(item: kapi.Item, a):
    i = item.get_id(0)
    kapi.AtomicRef(a, i).store(3)


@pytest.mark.parametrize("kernel,expected", [(atomic_count, [4, 0, 0, 0]),
                                             (atomic_store, [3, 3, 3, 3])],
                         ids=["fetch_add", "store"])
def test_atomic_writes_to_numpy_copy_written_back(device_filter, kernel,
                                                  expected):
    base = np.zeros(4, np.int32)
    a = base[::-1]
    spirjit.call_kernel(kernel, kapi.Range(4), a)
    np.testing.assert_array_equal(a, expected)


@pytest.mark.parametrize("kernel,expected", [(atomic_count, [4, 0, 0, 0]),
                                             (atomic_store, [3, 3, 3, 3])],
                         ids=["fetch_add", "store"])
def test_atomic_writes_to_numpy_and_device_arrays(device, kernel, expected):
    a = np.zeros(4, np.int32)
    spirjit.call_kernel(kernel, kapi.Range(4), a)
    np.testing.assert_array_equal(a, expected)
    x = spirjit.zeros(4, np.int32, device=device)
    spirjit.call_kernel(kernel, kapi.Range(4), x)
    np.testing.assert_array_equal(spirjit.asnumpy(x), expected)


def test_atomic_on_readonly_numpy_raises(device_filter):
    a = np.zeros(4, np.int32)
    a.flags.writeable = False
    with pytest.raises(errors.TypingError):
        spirjit.call_kernel(atomic_count, kapi.Range(4), a)
    np.testing.assert_array_equal(a, 0)


@pytest.mark.skipif(len(DEVICES) < 2, reason="needs two devices")
def test_arrays_on_two_devices_raise():
    d0, d1 = DEVICES[0], DEVICES[1]
    a = spirjit.ones(4, np.float32, device=d0)
    c = spirjit.zeros(4, np.float32, device=d1)
    with pytest.raises(errors.DeviceInferenceError) as info:
        spirjit.call_kernel(copy1, kapi.Range(4), a, c)
    assert isinstance(info.value, ValueError)
    assert d0.filter_string in str(info.value)
    assert d1.filter_string in str(info.value)
    np.testing.assert_array_equal(spirjit.asnumpy(c), 0)


_TWO_DEVICE_SCRIPT = """
    import json
    import numpy as np
    import spirjit
    from spirjit import kernel_api as kapi

    devices = spirjit.devices()
    if len(devices) < 2:
        print(json.dumps({"skip": [d.filter_string for d in devices]}))
        raise SystemExit(0)
    d0, d1 = devices[0], devices[1]
    out = {"devices": [d.filter_string for d in devices]}

    @spirjit.kernel
    def copy1(item, src, dst):
        i = item.get_id(0)
        dst[i] = src[i] + 1

    a = spirjit.asarray(np.arange(4, dtype=np.float32), device=d0)
    c = spirjit.zeros(4, np.float32, device=d1)
    try:
        spirjit.call_kernel(copy1, kapi.Range(4), a, c)
        out["error"] = None
    except Exception as e:
        out["error"] = [type(e).__name__, isinstance(e, ValueError), str(e)]
    out["c_untouched"] = spirjit.asnumpy(c).tolist()

    # The index counts among the devices matching the other parts.
    out["cpu1"] = spirjit.Device("cpu:1").filter_string
    out["opencl1"] = spirjit.Device("opencl:1").filter_string

    # Compute follows data: the default is d0, the arrays live on d1.
    stats = lambda: {k: copy1.stats[k] for k in ("compiles", "memory_hits")}
    spirjit.call_kernel(copy1, kapi.Range(4), np.zeros(4, np.float32),
                        np.zeros(4, np.float32))
    out["after_numpy"] = stats()
    a1 = a.to_device(d1)
    out["moved"] = [a1.device.filter_string, a.device.filter_string,
                    a1 is a]
    spirjit.call_kernel(copy1, kapi.Range(4), a1, c)
    out["after_d1"] = stats()
    out["c"] = spirjit.asnumpy(c).tolist()
    # NumPy arguments go to the DeviceArrays' device.
    host_out = np.zeros(4, np.float32)
    spirjit.call_kernel(copy1, kapi.Range(4), a1, host_out)
    out["host_out"] = host_out.tolist()
    out["after_mixed"] = stats()
    print(json.dumps(out))
"""


def test_two_devices_in_subprocess(tmp_path):
    platforms = {getattr(d, "platform", "") for d in DEVICES}
    if not any("Portable Computing Language" in p for p in platforms):
        pytest.skip("POCL_DEVICES needs PoCL")
    out = last_json(run_python(tmp_path, _TWO_DEVICE_SCRIPT, env={
        "POCL_DEVICES": "pthread basic", "SPIRJIT_DEVICE": "opencl:cpu:0",
        "SPIRJIT_DISABLE_CACHE": "1",
        # OpenCL CPU devices only: a GPU would be listed first.
        "SPIRJIT_CUDA_DRIVER": os.devnull}))
    if "skip" in out:
        pytest.skip(f"PoCL gave {out['skip']} for POCL_DEVICES")
    d0, d1 = out["devices"][:2]
    name, is_value_error, message = out["error"]
    assert name == "DeviceInferenceError" and is_value_error
    assert d0 in message and d1 in message
    assert out["c_untouched"] == [0, 0, 0, 0]
    assert out["cpu1"] == d1 and out["opencl1"] == d1
    assert out["moved"] == [d1, d0, False]
    assert out["c"] == [1, 2, 3, 4]
    assert out["host_out"] == [1, 2, 3, 4]
    # One specialisation per device: the launch on d1's arrays compiled
    # for d1 even though the default device is d0 ...
    assert out["after_numpy"]["compiles"] == 1
    assert out["after_d1"]["compiles"] == 2
    # ... and the mixed launch reused d1's.
    assert out["after_mixed"] == {"compiles": 2, "memory_hits": 1}


# === 7. Errors and async ==================================================

def test_absurd_allocation_raises_out_of_device_memory(device):
    with pytest.raises(errors.OutOfDeviceMemoryError) as info:
        spirjit.empty(2 ** 50, np.uint8, device=device)
    e = info.value
    assert isinstance(e, MemoryError)
    assert isinstance(e, errors.DeviceError)
    assert isinstance(e, errors.SpirjitError)
    assert isinstance(e.code, str) and e.code and e.code in str(e)
    # zeros, ones and full allocate on the device as empty does (not first
    # on the host, which had raised NumPy's MemoryError).
    for make in (spirjit.zeros, spirjit.ones,
                 lambda shape, dtype, device: spirjit.full(shape, 2, dtype,
                                                           device=device)):
        with pytest.raises(errors.OutOfDeviceMemoryError):
            make((2 ** 25, 2 ** 25), np.uint8, device=device)
    # The device still works afterwards.
    x = spirjit.zeros(4, np.int32, device=device)
    increment(x)
    np.testing.assert_array_equal(spirjit.asnumpy(x), 1)


@spirjit.kernel
def _stage_through_local(nd: kapi.NdItem, a, loc):
    i = nd.get_global_id(0)
    loc[nd.get_local_id(0)] = a[i]
    kapi.group_barrier(nd.get_group())
    a[i] = loc[nd.get_local_id(0)] + 1


@pytest.mark.parametrize("how", ["call_kernel", "call_kernel_async"])
def test_local_memory_beyond_the_device_is_refused(device, how):
    # PoCL 3.1 aborts the process on this; spirjit refuses it first.
    a = spirjit.zeros(64, np.float32, device=device)
    too_big = kapi.LocalAccessor((device.local_mem_size // 4 + 1,),
                                 np.float32)
    space = kapi.NdRange((64,), (64,))
    with pytest.raises(errors.OutOfDeviceMemoryError) as info:
        if how == "call_kernel":
            spirjit.call_kernel(_stage_through_local, space, a, too_big)
        else:
            spirjit.call_kernel_async(_stage_through_local, space, (), a,
                                      too_big)
    message = str(info.value)
    assert f"needs {device.local_mem_size + 4} bytes of work-group local " \
        "memory" in message
    assert f"{device.name} has {device.local_mem_size}" in message
    assert "use smaller LocalAccessors" in message
    # The device still works, and a LocalAccessor that fits runs.
    spirjit.call_kernel(_stage_through_local, space, a,
                        kapi.LocalAccessor((64,), np.float32))
    np.testing.assert_array_equal(spirjit.asnumpy(a), 1)


LLVM_AS = "/usr/lib/llvm-15/bin/llvm-as"
UNDEFINED_CALL = """
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v128:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64-unknown-unknown"
declare spir_func float @no_such_function(float)
define spir_kernel void @broken(float addrspace(1)* %a) {
  %v = load float, float addrspace(1)* %a
  %r = call spir_func float @no_such_function(float %v)
  store float %r, float addrspace(1)* %a
  ret void
}
!opencl.spir.version = !{!0}
!opencl.ocl.version = !{!0}
!0 = !{i32 1, i32 2}
"""


def test_driver_build_failure_raises_device_error_with_build_log(
        device, tmp_path):
    # spirjit's own modules always build; a program the driver rejects is
    # handed to the same runtime call a kernel's compile uses.
    from spirjit import _spirjit
    if device.backend == "native":
        pytest.skip("the native device has no driver compiler: spirjit "
                    "makes its machine code itself")
    if device.supports_spirv:
        words = np.array([0x07230203, 0x00010000, 0, 99, 0, 0xDEADBEEF],
                         np.uint32)
        with pytest.raises(errors.DeviceError) as info:
            _spirjit._build_program(device._device, "spirv", words.tobytes())
        e = info.value
        assert e.backend == "opencl"
        assert e.code.startswith("CL_") and e.code in str(e)
        return
    if not os.path.exists(LLVM_AS):
        pytest.skip("needs llvm-as (llvm-15)")
    source = tmp_path / "broken.ll"
    source.write_text(UNDEFINED_CALL)
    subprocess.run([LLVM_AS, "-opaque-pointers=0", str(source), "-o",
                    str(tmp_path / "broken.bc")], check=True)
    with pytest.raises(errors.DeviceError) as info:
        _spirjit._build_program(device._device, "spir",
                                (tmp_path / "broken.bc").read_bytes())
    e = info.value
    assert not isinstance(e, errors.OutOfDeviceMemoryError)
    assert e.code == "CL_BUILD_PROGRAM_FAILURE"
    assert "no_such_function" in e.build_log
    assert str(e).startswith(f"clBuildProgram on {device.name}: "
                             "CL_BUILD_PROGRAM_FAILURE\nbuild log:\n")
    assert "no_such_function" in str(e)


@pytest.mark.parametrize("shape", [(2 ** 32, 2 ** 32), (2 ** 62, 4)],
                         ids=str)
def test_overflowing_shape_raises(device, shape):
    with pytest.raises((ValueError, MemoryError)):
        spirjit.empty(shape, np.uint8, device=device)


def test_call_kernel_async_returns_event_and_writes_back(device_filter):
    a = np.arange(8, dtype=np.float32)
    b = np.ones(8, np.float32)
    c = np.zeros(8, np.float32)
    event = spirjit.call_kernel_async(axpy, kapi.Range(8), [], a, b, c)
    assert isinstance(event, spirjit.Event)
    event.wait()
    assert event.done
    np.testing.assert_array_equal(c, 2 * a + 1)
    event.wait()  # waiting twice is harmless
    np.testing.assert_array_equal(c, 2 * a + 1)


def test_call_kernel_async_dependencies(device):
    x = spirjit.zeros(16, np.int32, device=device)
    events = []
    for _ in range(5):
        events.append(spirjit.call_kernel_async(inc1, kapi.Range(16),
                                                events[-1:], x))
    events[-1].wait()
    np.testing.assert_array_equal(spirjit.asnumpy(x), 5)
    for e in events:
        e.wait()
    # An empty tuple and None-free sequences are accepted as dependencies.
    host = np.zeros(16, np.int32)
    e1 = spirjit.call_kernel_async(inc1, kapi.Range(16), (), host)
    e2 = spirjit.call_kernel_async(inc1, kapi.Range(16), [e1], x)
    e2.wait()
    e1.wait()
    np.testing.assert_array_equal(host, 1)
    np.testing.assert_array_equal(spirjit.asnumpy(x), 6)


def test_call_kernel_async_raises_compile_errors_at_call(device_filter):
    def bad(item, a):
        i = item.get_id(0)
        a[i] = "text"
    with pytest.raises(errors.CompileError):
        spirjit.call_kernel_async(spirjit.kernel(bad), kapi.Range(4), [],
                                  np.zeros(4, np.float32))
    ro = np.zeros(4, np.float32)
    ro.flags.writeable = False
    with pytest.raises(errors.TypingError):
        spirjit.call_kernel_async(inc1, kapi.Range(4), [], ro)


_DROPPED_EVENT_SCRIPT = """
    import gc
    import sys
    import numpy as np
    import spirjit
    from spirjit import kernel_api as kapi

    @spirjit.kernel
    def add(item, a, k):
        a[item.get_id(0)] += k

    n = 1 << 20
    make = (lambda: np.zeros(n, np.float32)) if sys.argv[1] == "numpy" \\
        else (lambda: spirjit.zeros(n, np.float32))
    for _ in range(50):
        # Fire and forget: neither the Event nor the array is kept.
        spirjit.call_kernel_async(add, kapi.Range(n), [], make(), 1.0)
    gc.collect()
    a = np.zeros(4, np.float32)
    spirjit.call_kernel(add, kapi.Range(4), a, 1.0)
    print("ok", a.tolist())
"""


@pytest.mark.parametrize("kind", ["numpy", "device_array"])
def test_dropped_event_keeps_arguments_alive(tmp_path, device_filter, kind):
    for _ in range(3):  # the crash is a race; three runs make it certain
        proc = run_python(tmp_path, _DROPPED_EVENT_SCRIPT, args=(kind,),
                          env={"SPIRJIT_DISABLE_CACHE": "1"})
        assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
        assert proc.stdout.strip().endswith("ok [1.0, 1.0, 1.0, 1.0]")
