"""The Level Zero backend from Python, through the loader's null driver.

The null driver (docs/level-zero.md) accepts every call and executes
nothing: kernels compile, modules are created, arguments are bound and
launches are appended, but no memory changes. So these tests check that
the whole path — device listing, filters, shared memory, compile, module,
launch, events, errors — goes through without failing, and that memory
the host writes round-trips; results of kernels are checked on OpenCL.

Each test runs a fresh interpreter: the driver is chosen when the loader
starts, once per process. The validation layer checks every parameter.
"""

import os
import subprocess
import sys
import textwrap

import pytest

import spirjit

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
DEFAULT_DRIVER = os.path.join(ROOT, "build", "level-zero-src", "build", "lib",
                              "libze_null.so.1")
NULL_DRIVER = os.environ.get("SPIRJIT_ZE_NULL_DRIVER") or DEFAULT_DRIVER

needs_null_driver = pytest.mark.skipif(
    not os.path.exists(NULL_DRIVER) and "SPIRJIT_ZE_NULL_DRIVER" not in os.environ,
    reason="the null driver is not built (scripts/build-ze-null-driver.sh)")


KERNELS = """
@spirjit.kernel
def scale(item: kapi.Item, a, b, factor):
    i = item.get_id(0)
    b[i] = a[i] * factor

@spirjit.kernel
def tile(nd: kapi.NdItem, a, scratch):
    i = nd.get_global_id(0)
    j = nd.get_local_id(0)
    scratch[j] = a[i]
    kapi.group_barrier(nd.get_group())
    a[i] = scratch[j]
"""


def run(code, driver=True, extra_env=None, kernels=False):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(spirjit.__file__))
    for key in ("ZE_ENABLE_ALT_DRIVERS", "ZE_ENABLE_NULL_DRIVER",
                "SPIRJIT_DEVICE"):
        env.pop(key, None)
    if driver:
        assert os.path.exists(NULL_DRIVER), f"no null driver at {NULL_DRIVER}"
        env["ZE_ENABLE_ALT_DRIVERS"] = NULL_DRIVER
        env["ZE_ENABLE_VALIDATION_LAYER"] = "1"
        env["ZE_ENABLE_PARAMETER_VALIDATION"] = "1"
    env.update(extra_env or {})
    prelude = textwrap.dedent("""
        import numpy as np
        import spirjit
        from spirjit import kernel_api as kapi, errors
    """)
    result = subprocess.run([sys.executable, "-c",
                             prelude + (KERNELS if kernels else "") +
                             textwrap.dedent(code)],
                            env=env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_no_driver_lists_no_level_zero_device():
    out = run("""
        print([d.backend for d in spirjit.devices()])
        try:
            spirjit.Device("level_zero")
        except errors.DeviceError as e:
            print("ERROR", e)
    """, driver=False)
    backends, error = out.split("\n", 1)
    assert "level_zero" not in backends
    assert error.startswith("ERROR no device matches 'level_zero'; devices:")
    assert "opencl:cpu:0" in error  # lists what exists


def test_empty_alt_drivers_variable_does_not_crash():
    # libze1 1.8's zeInit crashes on ZE_ENABLE_ALT_DRIVERS="".
    out = run("print(len(spirjit.devices()) > 0)", driver=False,
              extra_env={"ZE_ENABLE_ALT_DRIVERS": ""})
    assert out.strip() == "True"


@needs_null_driver
def test_null_device_is_listed_with_its_properties():
    out = run("""
        d = spirjit.Device("level_zero:gpu:0")
        print(d.filter_string, d.backend, d.device_type, d.name)
        print(d.supports_spirv, d.has_fp64, d.max_work_group_size)
        print(spirjit.Device("level_zero") == d, spirjit.Device("gpu:0") == d)
        print(spirjit.devices()[0] == d)
        print(spirjit.default_device().backend)
    """)
    lines = out.splitlines()
    assert lines[0] == "level_zero:gpu:0 level_zero gpu Null Device"
    assert lines[1] == "True False 0"
    assert lines[2] == "True True"
    assert lines[3] == "True"
    assert lines[4] == "level_zero"  # GPUs come first: it is the default


@needs_null_driver
def test_spirjit_devices_tool_lists_the_null_device():
    out = run("""
        from spirjit import devices_tool
        devices_tool.main([])
    """)
    assert "level_zero:gpu:0" in out and "Null Device" in out


@needs_null_driver
def test_arrays_round_trip_through_shared_memory():
    out = run("""
        d = spirjit.Device("level_zero")
        a = np.arange(24, dtype=np.float32).reshape(4, 6)
        x = spirjit.asarray(a, device=d)
        assert x.device == d
        assert np.array_equal(np.asarray(x), a)
        assert np.array_equal(np.asarray(x[1:, ::-2]), a[1:, ::-2])
        z = spirjit.full((3,), 7, dtype=np.int32, device="level_zero")
        assert np.array_equal(spirjit.asnumpy(z), [7, 7, 7])
        # Shared memory is host-addressable: DLPack hands it to NumPy.
        assert x.__dlpack_device__() == (1, 0)
        assert np.array_equal(np.from_dlpack(x), a)
        # To and from the OpenCL device.
        y = x.to_device("opencl:cpu:0").to_device(d)
        assert np.array_equal(np.asarray(y), a)
        print("ok")
    """)
    assert out.strip() == "ok"




@needs_null_driver
def test_launches_run_the_full_path():
    out = run(kernels=True, code="""
        d = spirjit.Device("level_zero")
        x = spirjit.asarray(np.arange(64, dtype=np.float32), device=d)
        y = spirjit.zeros(64, dtype=np.float32, device=d)
        spirjit.call_kernel(scale, kapi.Range(64), x, y, np.float32(2))
        print(scale.stats["compiles"])
        # Asynchronous launches with events, and dependencies.
        e1 = spirjit.call_kernel_async(scale, kapi.Range(64), (), x, y,
                                       np.float32(3))
        e2 = spirjit.call_kernel_async(scale, kapi.Range(64), [e1], y, x,
                                       np.float32(1))
        e2.wait()
        print(e1.done or True, e2.done)
        # NdRange with local memory.
        spirjit.call_kernel(tile, kapi.NdRange((64,), (16,)), x,
                            kapi.LocalAccessor((16,), np.float32))
        # NumPy arguments are copied in and back (unchanged: the null
        # driver runs nothing).
        a = np.arange(8, dtype=np.float32)
        b = np.full(8, -1, dtype=np.float32)
        spirjit.call_kernel(scale, kapi.Range(8), a, b, np.float32(2))
        print(b.tolist() == [-1.0] * 8)
        for _ in range(300):  # past one event pool
            spirjit.call_kernel_async(scale, kapi.Range(64), (), x, y,
                                      np.float32(2))
        spirjit.call_kernel(scale, kapi.Range(64), x, y, np.float32(2))
        print("done")
    """, extra_env={"SPIRJIT_DEVICE": "level_zero"})
    assert out.split() == ["1", "True", "True", "True", "done"]


@needs_null_driver
def test_float64_on_a_device_without_fp64_is_a_typing_error():
    out = run(kernels=True, code="""
        d = spirjit.Device("level_zero")
        x = spirjit.asarray(np.arange(4, dtype=np.float64), device=d)
        try:
            spirjit.call_kernel(scale, kapi.Range(4), x, x, 2.0)
        except errors.TypingError as e:
            print(type(e).__name__, e)
    """)
    assert out.startswith("TypingError argument 1 is float64, but Null "
                          "Device has no double precision; use float32")


@needs_null_driver
def test_a_float64_operation_on_a_device_without_fp64_fails_at_its_line():
    # float32 arguments, a float64 product: the compiler refuses it at the
    # product's line, before the driver's build could fail on it.
    out = run(code="""
        @spirjit.kernel
        def widen(item: kapi.Item, a, b):
            i = item.get_id(0)
            b[i] = a[i] * np.float64(3)

        x = spirjit.zeros(4, dtype=np.float32, device="level_zero")
        try:
            spirjit.call_kernel(widen, kapi.Range(4), x, x)
        except errors.TypingError as e:
            print(type(e).__name__,
                  e.lineno - widen.py_func.__code__.co_firstlineno, e)
    """)
    name, offset, message = out.split(" ", 2)
    assert (name, offset) == ("TypingError", "3"), out
    assert "float64" in message and "Null Device" in message, out


@needs_null_driver
def test_arrays_on_opencl_and_level_zero_are_a_device_inference_error():
    out = run(kernels=True, code="""
        x = spirjit.zeros(4, dtype=np.float32, device="level_zero")
        y = spirjit.zeros(4, dtype=np.float32, device="opencl:cpu:0")
        try:
            spirjit.call_kernel(scale, kapi.Range(4), y, x, np.float32(1))
        except errors.DeviceInferenceError as e:
            print(e)
    """)
    assert "opencl:cpu:0" in out and "level_zero:gpu:0 (Null Device)" in out


@needs_null_driver
def test_second_process_gets_the_kernel_from_the_disk_cache(tmp_path):
    code = """
        x = spirjit.zeros(4, dtype=np.float32, device="level_zero")
        spirjit.call_kernel(scale, kapi.Range(4), x, x, np.float32(1))
        print(scale.stats["compiles"], scale.stats["disk_hits"])
    """
    env = {"SPIRJIT_CACHE_DIR": str(tmp_path)}
    assert run(code, kernels=True, extra_env=env).split() == ["1", "0"]
    # No native binary from this driver: the cached SPIR-V is built again.
    assert run(code, kernels=True, extra_env=env).split() == ["0", "1"]
