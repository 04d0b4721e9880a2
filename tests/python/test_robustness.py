"""Ordinary code that once broke or fooled the compiler (issue 13): each
kernel's result is compared with NumPy or plain Python on every device.

Integer widths: LLVM's optimiser knows work-item ids lie below 2^62 and
narrows compares, remainders and switches on them to i62, i3, ...; SPIR-V
has 8, 16, 32 and 64 bits only, so these kernels once ended in an internal
compiler error."""

import cmath

import numpy as np
import pytest

import spirjit
from spirjit import kernel_api as kapi

N = 40


def launch(kernel, n, *args):
    spirjit.call_kernel(kernel, kapi.Range(n), *args)


def reference(body):
    """`body(i)` for every work-item id, as the kernels below compute it."""
    return np.array([body(i) for i in range(N)], dtype=np.int64)


# --------------------------------------------------------------------------
# Integer widths SPIR-V lacks

@spirjit.kernel
def id_in_pair(item: kapi.Item, out):
    i = item.get_id(0)
    if i == 1 or i == 2:
        out[i] = 7
    else:
        out[i] = 3


@spirjit.kernel
def id_remainders(item: kapi.Item, out):
    i = item.get_id(0)
    if i % 8 == 3 or i % 8 == 5:
        out[i] = 1
    elif i % 4 < 2:
        out[i] = 2
    else:
        out[i] = (i % 3 == 1) + (i % 7 < 2) * 10


@spirjit.kernel
def id_elif_chain(item: kapi.Item, out):
    i = item.get_id(0)
    if i == 0:
        out[i] = 10
    elif i == 1:
        out[i] = 11
    elif i == 2:
        out[i] = 12
    elif i == 33:
        out[i] = 15
    else:
        out[i] = -1


def test_compare_with_two_ids(device_filter):
    out = np.zeros(N, np.int64)
    launch(id_in_pair, N, out)
    np.testing.assert_array_equal(
        out, reference(lambda i: 7 if i == 1 or i == 2 else 3))


def test_remainders_of_ids(device_filter):
    def body(i):
        if i % 8 == 3 or i % 8 == 5:
            return 1
        if i % 4 < 2:
            return 2
        return (i % 3 == 1) + (i % 7 < 2) * 10

    out = np.zeros(N, np.int64)
    launch(id_remainders, N, out)
    np.testing.assert_array_equal(out, reference(body))


def test_elif_chain_on_id(device_filter):
    cases = {0: 10, 1: 11, 2: 12, 33: 15}
    out = np.zeros(N, np.int64)
    launch(id_elif_chain, N, out)
    np.testing.assert_array_equal(out,
                                  reference(lambda i: cases.get(i, -1)))


# --------------------------------------------------------------------------
# Python ints: literal arithmetic that stays within int64 is exact; reads
# of locals that every feasible path assigns compile (the error cases are
# in errors/test_robustness_errors.py).

@spirjit.kernel
def assigned_on_every_taken_path(item: kapi.Item, out):
    i = item.get_id(0)
    if i > 2:
        x = 1
    else:
        x = 2
    # a constant non-empty range runs its body at least once
    for k in range(3):
        v = k * i
    # read only under the condition that assigned it
    if i > 5:
        y = i
    if i > 5:
        x += y
    # assigned in an earlier iteration before it is read
    for k in range(4):
        if k > 0:
            x += z
        z = k
    out[i] = x + v + k + (2**62 + 2**62 - 1) // 2**61


def test_locals_assigned_on_every_taken_path(device_filter):
    def body(i):
        x = (1 if i > 2 else 2) + (i if i > 5 else 0) + 0 + 1 + 2
        return x + 2 * i + 3 + (2**62 + 2**62 - 1) // 2**61

    out = np.zeros(N, np.int64)
    launch(assigned_on_every_taken_path, N, out)
    np.testing.assert_array_equal(out, reference(body))


# --------------------------------------------------------------------------
# range() near the ends of int64: Python's loop ends where its counter would
# pass INT64_MAX; a wrapped counter once started the loop over, for ever.
# Run in a fresh interpreter with a timeout: a regression hangs the device.

def test_range_ending_near_int64_max_terminates(device_filter, run_isolated):
    result = run_isolated("""
        import numpy as np
        import spirjit
        from spirjit import kernel_api as kapi

        @spirjit.kernel
        def near_max(item: kapi.Item, start, out):
            i = item.get_id(0)
            count = 0
            last = 0
            for k in range(start, 9223372036854775807):
                count += 1
                last = k
            out[i, 0] = count
            out[i, 1] = last
            count = 0
            for k in range(start, 9223372036854775807, 3):
                count += 1
            out[i, 2] = count
            count = 0
            for k in range(-start, -9223372036854775807 - 1, -5):
                count += 1
            out[i, 3] = count

        out = np.zeros((2, 4), np.int64)
        start = 9223372036854775807 - 7
        spirjit.call_kernel(near_max, kapi.Range(2), np.int64(start), out)
        print(out[0].tolist(), out[1].tolist())
        """, timeout=60)
    assert result.returncode == 0, result.stderr
    start = 2**63 - 1 - 7
    row = [len(range(start, 2**63 - 1)), 2**63 - 2,
           len(range(start, 2**63 - 1, 3)),
           len(range(-start, -2**63, -5))]
    assert result.stdout.split("\n")[0] == f"{row} {row}"


# --------------------------------------------------------------------------
# Division by zero in floats and complex numbers: NumPy's values.

@spirjit.kernel
def float_division_by_zero(item: kapi.Item, x, y, out):
    i = item.get_id(0)
    out[i, 0] = x[i] // y[i]
    out[i, 1] = x[i] % y[i]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_floor_division_by_zero(device_filter, require_dtypes, dtype):
    require_dtypes(dtype)
    x = np.array([1, -1, 0, -0.0, np.inf, -np.inf, np.nan, 7.5, -7.5, 3],
                 dtype=dtype)
    y = np.array([0, 0, 0, 0, -0.0, 0, 0, -0.0, -0.0, 2], dtype=dtype)
    out = np.zeros((len(x), 2), dtype)
    launch(float_division_by_zero, len(x), x, y, out)
    with np.errstate(all="ignore"):
        expected = np.stack([np.floor_divide(x, y), np.mod(x, y)], axis=1)
    np.testing.assert_array_equal(out, expected)
    numbers = ~np.isnan(expected)  # a nan's sign bit means nothing
    np.testing.assert_array_equal(np.signbit(out[numbers]),
                                  np.signbit(expected[numbers]))


@spirjit.kernel
def complex_edge_cases(item: kapi.Item, a, b, out):
    i = item.get_id(0)
    out[i, 0] = a[i] / b[i]
    out[i, 1] = a[i] ** b[i]
    out[i, 2] = cmath.sqrt(a[i])


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_division_power_and_sqrt_edge_cases(device_filter,
                                                    require_dtypes, dtype):
    require_dtypes(dtype)
    huge = np.finfo(np.dtype(dtype).char.lower()).max / 2
    a = np.array([1 + 1j, 1 + 0j, 0j, -2 + 3j, 0j, 0j, 0j, 0j,
                  complex(huge, huge), complex(-huge, huge), -4 + 0j,
                  complex(1e-310 if dtype == np.complex128 else 1e-40,
                          1e-310 if dtype == np.complex128 else 1e-40)],
                 dtype=dtype)
    b = np.array([0j, 0j, 0j, 0j, -1, -1 + 1j, 2.5, 0j, 1, 1, 1, 1],
                 dtype=dtype)
    out = np.zeros((len(a), 3), dtype)
    launch(complex_edge_cases, len(a), a, b, out)
    with np.errstate(all="ignore"):
        quotient = a / b
        power = a[4:8] ** b[4:8]
    np.testing.assert_array_equal(out[:4, 0], quotient[:4])
    np.testing.assert_array_equal(out[4:8, 1], power)
    roots = np.array([cmath.sqrt(complex(z)) for z in a], dtype=dtype)
    np.testing.assert_allclose(out[8:, 2], roots[8:],
                               rtol=1e-5 if dtype == np.complex64 else 1e-12)


# --------------------------------------------------------------------------
# os.fork(): a child that launches on a device its parent opened either
# works (Intel's CPU runtime) or gets a DeviceError saying what to do
# (PoCL, whose worker threads stay in the parent); it never hangs.

def test_launch_in_a_forked_child_works_or_says_why(device_filter,
                                                    run_isolated):
    result = run_isolated("""
        import os
        import numpy as np
        import spirjit
        from spirjit import kernel_api as kapi

        @spirjit.kernel
        def two(item, a):
            a[item.get_id(0)] = 2

        a = np.zeros(4)
        spirjit.call_kernel(two, kapi.Range(4), a)
        pid = os.fork()
        if pid == 0:
            b = np.zeros(4)
            try:
                spirjit.call_kernel(two, kapi.Range(4), b)
                print("child ran", b.tolist(), flush=True)
            except spirjit.errors.DeviceError as e:
                print("child error", e, flush=True)
            os._exit(0)
        os.waitpid(pid, 0)
        print("parent done", flush=True)
    """, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "parent done" in result.stdout
    assert ("child ran [2.0, 2.0, 2.0, 2.0]" in result.stdout or
            ("os.fork()" in result.stdout and "'spawn'" in result.stdout)), \
        result.stdout


# Issue 31: a parent that only listed the devices had started PoCL's worker
# threads (the OpenCL loader starts PoCL when it lists platforms), and a
# child's first launch on PoCL waited for ever. The parent kills a child
# that hangs, so the test ends either way.
FORKED_CHILD = """
    import os, sys, time
    import numpy as np
    import spirjit
    from spirjit import kernel_api as kapi

    @spirjit.kernel
    def two(item, a):
        a[item.get_id(0)] = 2

    {parent}
    pid = os.fork()
    if pid == 0:
        b = np.zeros(4)
        try:
            spirjit.call_kernel(two, kapi.Range(4),
                                spirjit.asarray(b, device={device!r}))
            print("child ran", flush=True)
        except spirjit.errors.DeviceError as e:
            print("child error", e, flush=True)
        os._exit(0)
    end = time.monotonic() + 60
    while os.waitpid(pid, os.WNOHANG) == (0, 0):
        if time.monotonic() > end:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            print("child hung", flush=True)
            break
        time.sleep(0.05)
    print("parent done", flush=True)
"""


def test_forked_child_uses_a_device_its_parent_only_listed(device_filter,
                                                           run_isolated):
    result = run_isolated(FORKED_CHILD.format(
        parent="assert spirjit.devices()", device=device_filter), timeout=120)
    assert result.returncode == 0, result.stderr
    if spirjit.Device(device_filter).backend == "cuda":
        # Listing CUDA devices initialises the driver in the parent, and
        # CUDA never works in a child forked after that: the child is told
        # so, naming what to do, and never hangs.
        lines = result.stdout.splitlines()
        assert lines[-1] == "parent done", result.stdout
        assert lines[0].startswith("child error") and "'spawn'" in lines[0], \
            result.stdout
        return
    assert result.stdout == "child ran\nparent done\n", result.stdout


def test_forked_child_uses_pocl_after_its_parent_used_another_device(
        run_isolated):
    # The parent's launch starts every OpenCL driver in it, PoCL's too:
    # the child is told why it cannot use PoCL, and never hangs.
    devices = spirjit.devices()
    pocl = [d for d in devices if d.platform == "Portable Computing Language"]
    others = [d for d in devices if d.backend == "opencl" and d not in pocl]
    if not pocl or not others:
        pytest.skip("needs PoCL and another OpenCL device")
    parent = ("spirjit.call_kernel(two, kapi.Range(4), "
              f"spirjit.asarray(np.zeros(4), device={others[0].filter_string!r}))")
    result = run_isolated(FORKED_CHILD.format(
        parent=parent, device=pocl[0].filter_string), timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[-1] == "parent done" and lines[0].startswith("child error"), \
        result.stdout
    assert "os.fork()" in lines[0] and "'spawn'" in lines[0], lines[0]


# --------------------------------------------------------------------------
# A __sycl_usm_array_interface__ whose pointer is not memory of this process
# (null, or another runtime's device-only allocation) is a ValueError that
# says so; reading it once crashed the interpreter.

def test_usm_interface_with_a_pointer_not_in_this_process(run_isolated):
    result = run_isolated("""
        import spirjit

        class Fake:
            def __init__(self, pointer):
                self.__sycl_usm_array_interface__ = {
                    "data": (pointer, False), "shape": (4,), "strides": None,
                    "typestr": "<f8", "version": 1, "syclobj": None}

        for pointer in (0, 0xdeadbeef000):
            try:
                spirjit.asarray(Fake(pointer))
                print("accepted", pointer)
            except ValueError as e:
                print("ValueError:", e)
    """, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("is not memory of this process") == 2, \
        result.stdout
