"""The native CPU device (``native:cpu:0``): kernels compiled by spirjit into
host machine code, work-items as loops, run on spirjit's own threads over
the host's memory. It is listed only where ``SPIRJIT_NATIVE=1`` is set
(ctest's pytest_native tier sets it); without it the tests here that need
it are skipped, and the opt-in itself is tested in a subprocess.

Each result is compared with NumPy. Kernels with barriers, group
collectives and local memory run cut at their barriers, a group's items
running each region in turn (compiler/NativeBarriers.h)."""

import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import spirjit
from spirjit import errors
from spirjit import kernel_api as kapi

NATIVE = "native:cpu:0"
PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(
    spirjit.__file__)))
HERE = os.path.abspath(__file__)


def lineno(function, text):
    """The line of ``function``'s source that contains ``text``."""
    import inspect
    lines, first = inspect.getsourcelines(function)
    for k, line in enumerate(lines):
        if text in line:
            return first + k
    raise AssertionError(f"{text!r} not in {function.__name__}")


@pytest.fixture
def native(monkeypatch):
    """Launches without DeviceArrays go to the native CPU device."""
    if not any(d.filter_string == NATIVE for d in spirjit.devices()):
        pytest.skip("the native CPU device is listed only with "
                    "SPIRJIT_NATIVE=1")
    monkeypatch.setenv("SPIRJIT_DEVICE", NATIVE)
    return spirjit.Device(NATIVE)


# --- kernels ---------------------------------------------------------------

@spirjit.kernel
def vecadd(item: kapi.Item, a, b, c):
    i = item.get_id(0)
    c[i] = a[i] + b[i]


@spirjit.kernel
def place_2d(item: kapi.Item, a, out):
    i = item.get_id(0)
    j = item.get_id(1)
    out[i, j] = a[i, j] * 2 + i * 1000 + j


@spirjit.kernel
def place_3d(item: kapi.Item, out):
    i = item.get_id(0)
    j = item.get_id(1)
    k = item.get_id(2)
    out[i, j, k] = (i * item.get_range(1) + j) * item.get_range(2) + k


@spirjit.kernel
def nd_ids(item: kapi.NdItem, out):
    # Per work-item: its global id, local id, group id and group count in
    # each dimension, and the local range, at its global position.
    i = item.get_global_id(0)
    j = item.get_global_id(1)
    g = item.get_group()
    for d in range(2):
        out[i, j, d] = item.get_global_id(d)
        out[i, j, 2 + d] = item.get_local_id(d)
        out[i, j, 4 + d] = g.get_group_id(d)
        out[i, j, 6 + d] = g.get_group_range(d)
        out[i, j, 8 + d] = item.get_local_range(d)


@spirjit.kernel
def nd_scale(item: kapi.NdItem, a, out):
    i = item.get_global_id(0)
    out[i] = a[i] * item.get_local_id(0) + item.get_group().get_group_id(0)


@spirjit.kernel
def with_barrier(item: kapi.NdItem, a):
    i = item.get_global_id(0)
    a[i] += 1
    kapi.group_barrier(item.get_group())
    a[i] *= 2


@spirjit.kernel
def reverse_in_group(item: kapi.NdItem, a, out, scratch):
    # Each item reads what another wrote before the barrier.
    lid = item.get_local_id(0)
    n = item.get_local_range(0)
    scratch[lid] = a[item.get_global_id(0)]
    kapi.group_barrier(item.get_group())
    out[item.get_global_id(0)] = scratch[n - 1 - lid]


@spirjit.kernel
def tree_reduction(item: kapi.NdItem, a, out, scratch):
    lid = item.get_local_id(0)
    scratch[lid] = a[item.get_global_id(0)]
    s = item.get_local_range(0) // 2
    while s > 0:
        kapi.group_barrier(item.get_group())
        if lid < s:
            scratch[lid] += scratch[lid + s]
        s //= 2
    if lid == 0:
        out[item.get_group().get_group_id(0)] = scratch[0]


@spirjit.kernel
def rotate_in_loop(item: kapi.NdItem, a, out, steps, scratch):
    # A barrier in a uniform loop, values carried across it: after `steps`
    # turns each item holds the value `steps` places to its right.
    lid = item.get_local_id(0)
    n = item.get_local_range(0)
    value = a[item.get_global_id(0)]
    for _ in range(steps):
        scratch[lid] = value
        kapi.group_barrier(item.get_group())
        value = scratch[(lid + 1) % n]
        kapi.group_barrier(item.get_group())
    out[item.get_global_id(0)] = value


@spirjit.kernel
def uniform_step_divergent_count(item: kapi.NdItem, out, scratch):
    # k goes through the same values in every item (no closed form LLVM
    # could compute it from lid with), but each item leaves the loop at its
    # own iteration: after it k differs between items, and is kept per item
    # across the barrier, not once per group as uniform values are.
    lid = item.get_local_id(0)
    k = 0
    while k < lid:
        k = k * 3 + 1
    scratch[lid] = k
    kapi.group_barrier(item.get_group())
    out[item.get_global_id(0)] = (
        k * 100 + scratch[(lid + 1) % item.get_local_range(0)])


@spirjit.kernel
def private_across_barrier(item: kapi.NdItem, a, out):
    # A private array written before a barrier and read after it: each
    # work-item's own, though they all run before any reads.
    i = item.get_global_id(0)
    window = kapi.PrivateArray(4, np.float64)
    for k in range(4):
        window[k] = a[i] * (k + 1)
    kapi.group_barrier(item.get_group())
    total = 0.0
    for k in range(4):
        total += window[k]
    out[i] = total


@spirjit.kernel
def with_group_reduce(item: kapi.NdItem, a, out):
    i = item.get_global_id(0)
    out[i] = kapi.group_reduce(item.get_group(), a[i], "+")


@spirjit.kernel
def group_reduce_all(item: kapi.NdItem, a, out):
    i = item.get_global_id(0)
    g = item.get_group()
    out[i, 0] = kapi.group_reduce(g, a[i], "+")
    out[i, 1] = kapi.group_reduce(g, a[i], "min")
    out[i, 2] = kapi.group_reduce(g, a[i], "max")
    out[i, 3] = kapi.group_broadcast(g, a[i], 2)


@spirjit.kernel
def group_reduce_2d(item: kapi.NdItem, a, out):
    i = item.get_global_id(0)
    j = item.get_global_id(1)
    out[i, j] = kapi.group_reduce(item.get_group(), a[i, j], "+")


@spirjit.kernel
def uniform_early_return(item: kapi.NdItem, a, out):
    # Whole groups return before the barrier (the group id is the same for
    # every item of a group), the others pass it.
    i = item.get_global_id(0)
    if item.get_group().get_group_id(0) % 2 == 1:
        return
    out[i] = kapi.group_reduce(item.get_group(), a[i], "max")


@spirjit.device_func
def shift_left(item, scratch, value):
    # Barriers in a device function (inlined into the kernel before it is
    # cut at them).
    lid = item.get_local_id(0)
    scratch[lid] = value
    kapi.group_barrier(item.get_group())
    result = scratch[(lid + 1) % item.get_local_range(0)]
    kapi.group_barrier(item.get_group())
    return result


def shifts_then_sum(**options):
    @spirjit.kernel(**options)
    def kernel(item: kapi.NdItem, a, out, scratch):
        i = item.get_global_id(0)
        value = a[i]
        for _ in range(3):
            value = shift_left(item, scratch, value)
        out[i] = value * 1000 + kapi.group_reduce(item.get_group(), value,
                                                  "+")
    return kernel


@spirjit.kernel
def group_max_3d(item: kapi.NdItem, a, out):
    i = item.get_global_id(0)
    j = item.get_global_id(1)
    k = item.get_global_id(2)
    out[i, j, k] = kapi.group_reduce(item.get_group(), a[i, j, k], "max")


@spirjit.kernel
def divergent_barrier(item: kapi.NdItem, a):
    i = item.get_global_id(0)
    if i % 2 == 0:
        kapi.group_barrier(item.get_group())
    a[i] = 1


@spirjit.kernel
def local_atomics(item: kapi.NdItem, a, out, counter):
    # Local memory as a per-group counter, host atomics on it.
    if item.get_local_id(0) == 0:
        counter[0] = 0
    kapi.group_barrier(item.get_group())
    kapi.AtomicRef(counter, index=0,
                   address_space=kapi.AddressSpace.LOCAL).fetch_add(
                       a[item.get_global_id(0)])
    kapi.group_barrier(item.get_group())
    if item.get_local_id(0) == 0:
        out[item.get_group().get_group_id(0)] = counter[0]


@spirjit.kernel
def count_atomically(item: kapi.Item, counter, total):
    i = item.get_id(0)
    kapi.AtomicRef(counter, index=0).fetch_add(1)
    kapi.AtomicRef(total, index=0).fetch_add(np.float32(i % 4))


@spirjit.kernel
def private_window(item: kapi.Item, a, out):
    # A private array indexed at run time: each work-item's own, though the
    # work-items share one loop.
    i = item.get_id(0)
    p = kapi.PrivateArray(4, np.float32)
    for k in range(4):
        p[k] = a[i] + k
    s = np.float32(0)
    for k in range(4):
        s += p[(i + k) % 4] * k
    out[i] = s


@spirjit.kernel
def math_kernel(item: kapi.Item, a, out):
    i = item.get_id(0)
    out[i] = np.sin(a[i]) + np.exp(a[i] * 0.25) + np.sqrt(a[i])


@spirjit.kernel
def collatz_steps(item: kapi.Item, a, out):
    # A loop of its own in each work-item: the work-item loop around it is
    # not innermost, and LLVM's vectoriser, asked for it, gives up.
    i = item.get_id(0)
    x = a[i]
    steps = 0
    while x != 1:
        x = x // 2 if x % 2 == 0 else 3 * x + 1
        steps += 1
    out[i] = steps


@spirjit.jit
def prange_axpy(a, x, y):
    out = np.empty_like(x)
    for i in spirjit.prange(x.shape[0]):
        out[i] = a * x[i] + y[i]
    return out


# --- the opt-in ----------------------------------------------------------

def run_listing(env_native):
    source = textwrap.dedent("""
        import spirjit
        print([d.filter_string for d in spirjit.devices()])
    """)
    env = dict(os.environ)
    env["PYTHONPATH"] = PACKAGE_ROOT
    env.pop("SPIRJIT_DEVICE", None)
    if env_native is None:
        env.pop("SPIRJIT_NATIVE", None)
    else:
        env["SPIRJIT_NATIVE"] = env_native
    proc = subprocess.run([sys.executable, "-c", source], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout.strip().splitlines()[-1]


def test_listed_only_with_spirjit_native():
    assert NATIVE not in run_listing(None)
    assert NATIVE not in run_listing("0")
    assert f"'{NATIVE}'" in run_listing("1")


def test_spirjit_devices_lists_it_when_opted_in(tool_command):
    import json
    env = dict(os.environ, SPIRJIT_NATIVE="1")
    env.pop("SPIRJIT_DEVICE", None)
    proc = subprocess.run(tool_command("spirjit-devices") + ["--json"],
                          env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    listed = {d["filter_string"]: d for d in json.loads(proc.stdout)}
    assert listed[NATIVE]["backend"] == "native"
    assert listed[NATIVE]["device_type"] == "cpu"


def test_device_properties(native):
    assert native.filter_string == NATIVE
    assert native.backend == "native"
    assert native.device_type == "cpu"
    assert native.has_fp64 and native.has_atomic64
    assert native.host_unified_memory
    assert spirjit.default_device() == native


# --- Range and NdRange launches -----------------------------------------

@pytest.mark.parametrize("n", [1, 7, 256, 100003])
def test_vecadd(native, n):
    a = np.arange(n, dtype=np.float32)
    b = np.full(n, 0.5, dtype=np.float32)
    c = np.zeros_like(a)
    spirjit.call_kernel(vecadd, kapi.Range(n), a, b, c)
    np.testing.assert_array_equal(c, a + b)


@pytest.mark.parametrize("shape", [(37, 53), (1, 1000), (1000, 3)])
def test_2d_range(native, shape):
    a = np.random.default_rng(1).random(shape)
    out = np.zeros(shape)
    spirjit.call_kernel(place_2d, kapi.Range(*shape), a, out)
    i, j = np.indices(shape)
    np.testing.assert_array_equal(out, a * 2 + i * 1000 + j)


def test_3d_range(native):
    shape = (5, 17, 33)
    out = np.full(shape, -1, dtype=np.int64)
    spirjit.call_kernel(place_3d, kapi.Range(*shape), out)
    np.testing.assert_array_equal(out, np.arange(out.size).reshape(shape))


@pytest.mark.parametrize("global_, local", [((8, 12), (4, 3)),
                                            ((6, 64), (1, 16)),
                                            ((16, 16), (16, 16))])
def test_nd_range_without_barriers(native, global_, local):
    out = np.full(global_ + (10,), -1, dtype=np.int64)
    spirjit.call_kernel(nd_ids, kapi.NdRange(global_, local), out)
    i, j = np.indices(global_)
    ids = np.stack([i, j], axis=-1)
    np.testing.assert_array_equal(out[..., 0:2], ids)
    np.testing.assert_array_equal(out[..., 2:4], ids % local)
    np.testing.assert_array_equal(out[..., 4:6], ids // local)
    np.testing.assert_array_equal(
        out[..., 6:8], np.broadcast_to(np.array(global_) // local, ids.shape))
    np.testing.assert_array_equal(
        out[..., 8:10], np.broadcast_to(np.array(local), ids.shape))


def test_nd_range_1d(native):
    n, local = 1024, 64
    a = np.arange(n, dtype=np.float64)
    out = np.zeros(n)
    spirjit.call_kernel(nd_scale, kapi.NdRange((n,), (local,)), a, out)
    ids = np.arange(n)
    np.testing.assert_array_equal(out, a * (ids % local) + ids // local)


def test_atomics_are_host_atomics(native):
    n = 10000
    counter = np.zeros(1, dtype=np.int32)
    total = np.zeros(1, dtype=np.float32)
    spirjit.call_kernel(count_atomically, kapi.Range(n), counter, total)
    assert counter[0] == n
    assert total[0] == np.sum(np.arange(n) % 4)


def test_private_arrays_stay_per_work_item(native):
    n = 4099
    a = np.arange(n, dtype=np.float32)
    out = np.zeros_like(a)
    spirjit.call_kernel(private_window, kapi.Range(n), a, out)
    i = np.arange(n)
    k = np.arange(4)
    p = a[:, None] + (i[:, None] + k) % 4
    np.testing.assert_allclose(out, (p * k).sum(axis=1), rtol=1e-6)


def test_math_functions_from_the_c_library(native):
    a = np.linspace(0, 10, 3001, dtype=np.float64)
    out = np.zeros_like(a)
    spirjit.call_kernel(math_kernel, kapi.Range(a.size), a, out)
    np.testing.assert_allclose(
        out, np.sin(a) + np.exp(a * 0.25) + np.sqrt(a), rtol=1e-13)


def test_loops_it_cannot_vectorise_print_nothing(native, capfd):
    a = np.arange(1, 1001, dtype=np.int64)
    out = np.zeros_like(a)
    spirjit.call_kernel(collatz_steps, kapi.Range(a.size), a, out)

    def steps(x):
        n = 0
        while x != 1:
            x = x // 2 if x % 2 == 0 else 3 * x + 1
            n += 1
        return n

    np.testing.assert_array_equal(out, [steps(int(x)) for x in a])
    captured = capfd.readouterr()
    assert captured.out == "" and captured.err == ""


def test_async_launches_in_order(native):
    n = 50000
    a = spirjit.asarray(np.zeros(n, dtype=np.float32), device=NATIVE)
    one = spirjit.asarray(np.ones(n, dtype=np.float32), device=NATIVE)
    events = [spirjit.call_kernel_async(vecadd, kapi.Range(n), [], a, one, a)
              for _ in range(5)]
    events[-1].wait()
    np.testing.assert_array_equal(spirjit.asnumpy(a), np.full(n, 5))


# --- vector math -----------------------------------------------------------

@spirjit.kernel
def sine(item: kapi.Item, a, b):
    i = item.get_id(0)
    b[i] = np.sin(a[i])


@spirjit.kernel
def exponential(item: kapi.Item, a, b):
    i = item.get_id(0)
    b[i] = np.exp(a[i])


@spirjit.kernel
def logarithm(item: kapi.Item, a, b):
    i = item.get_id(0)
    b[i] = np.log(a[i])


@spirjit.kernel
def error_function(item: kapi.Item, a, b):
    i = item.get_id(0)
    b[i] = math.erf(a[i])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kernel, ufunc, low, high", [
    (sine, np.sin, -100.0, 100.0), (exponential, np.exp, -80.0, 80.0),
    (logarithm, np.log, 1e-3, 1e6),
    (error_function, np.vectorize(math.erf), -6.0, 6.0)])
def test_math_in_vectorised_loops(native, kernel, ufunc, low, high, dtype):
    # Where the host has libmvec (x86-64 with AVX2) the loop calls its
    # vector variants (lit-tests/native/vector-math.py), elsewhere libm's
    # scalar functions: either way within libmvec's bound (4 ulp) of the
    # correctly rounded result, and NumPy's own within a few more. 1003
    # items: whole vectors and a remainder the loop runs one at a time.
    a = np.random.default_rng(3).uniform(low, high, 1003).astype(dtype)
    b = np.zeros_like(a)
    spirjit.call_kernel(kernel, kapi.Range(a.size), a, b)
    np.testing.assert_array_max_ulp(b, ufunc(a).astype(dtype), maxulp=8)


# --- barriers, group collectives, local memory -----------------------------

def test_barrier(native):
    a = np.arange(16.0)
    spirjit.call_kernel(with_barrier, kapi.NdRange((16,), (8,)), a)
    np.testing.assert_array_equal(a, (np.arange(16.0) + 1) * 2)


@pytest.mark.parametrize("n, local", [(64, 16), (1000, 8), (12, 1)])
def test_local_memory_between_items(native, n, local):
    a = np.arange(n, dtype=np.float32)
    out = np.zeros(n, dtype=np.float32)
    spirjit.call_kernel(reverse_in_group, kapi.NdRange((n,), (local,)), a,
                        out, kapi.LocalAccessor(local, np.float32))
    np.testing.assert_array_equal(
        out, a.reshape(-1, local)[:, ::-1].reshape(-1))


@pytest.mark.parametrize("n, local", [(1 << 16, 256), (4096, 64), (64, 1)])
def test_local_memory_tree_reduction(native, n, local):
    a = np.random.default_rng(1).random(n)
    out = np.zeros(n // local)
    spirjit.call_kernel(tree_reduction, kapi.NdRange((n,), (local,)), a, out,
                        kapi.LocalAccessor(local, np.float64))
    np.testing.assert_allclose(out, a.reshape(-1, local).sum(axis=1))


def test_value_left_at_different_iterations_across_a_barrier(native):
    n, local = 128, 64
    out = np.zeros(n, dtype=np.int64)
    spirjit.call_kernel(uniform_step_divergent_count,
                        kapi.NdRange((n,), (local,)), out,
                        kapi.LocalAccessor(local, np.int64))
    lid = np.arange(n) % local
    steps = np.array([0, 1, 4, 13, 40, 121])
    k = steps[np.searchsorted(steps, lid)]
    np.testing.assert_array_equal(out, k * 100 + np.roll(
        k.reshape(-1, local), -1, axis=1).reshape(-1))


@pytest.mark.parametrize("steps", [0, 1, 5, 19])
def test_barrier_in_a_uniform_loop(native, steps):
    n, local = 96, 32
    a = np.arange(n, dtype=np.int64)
    out = np.zeros(n, dtype=np.int64)
    spirjit.call_kernel(rotate_in_loop, kapi.NdRange((n,), (local,)), a, out,
                        steps, kapi.LocalAccessor(local, np.int64))
    groups = a.reshape(-1, local)
    np.testing.assert_array_equal(
        out, np.roll(groups, -steps, axis=1).reshape(-1))


def test_private_memory_across_a_barrier(native):
    a = np.arange(64.0)
    out = np.zeros(64)
    spirjit.call_kernel(private_across_barrier, kapi.NdRange((64,), (16,)),
                        a, out)
    np.testing.assert_array_equal(out, a * 10)


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64])
def test_group_collectives(native, dtype):
    n, local = 240, 24
    a = (np.random.default_rng(2).random(n) * 1000).astype(dtype)
    out = np.zeros((n, 4), dtype=dtype)
    spirjit.call_kernel(group_reduce_all, kapi.NdRange((n,), (local,)), a,
                        out)
    groups = a.reshape(-1, local)
    expected = np.stack([groups.sum(axis=1, dtype=dtype), groups.min(axis=1),
                         groups.max(axis=1), groups[:, 2]], axis=1)
    np.testing.assert_allclose(out, np.repeat(expected, local, axis=0),
                               rtol=1e-5)


def test_group_reduce_over_2d_groups(native):
    a = np.arange(8 * 12, dtype=np.int64).reshape(8, 12)
    out = np.zeros_like(a)
    spirjit.call_kernel(group_reduce_2d, kapi.NdRange((8, 12), (4, 3)), a,
                        out)
    sums = a.reshape(2, 4, 4, 3).sum(axis=(1, 3))
    np.testing.assert_array_equal(
        out, np.repeat(np.repeat(sums, 4, axis=0), 3, axis=1))


@pytest.mark.parametrize("options", [{}, {"opt": 0}, {"debug": True}],
                         ids=["opt2", "opt0", "debug"])
def test_barriers_in_a_device_function_in_a_loop(native, options):
    n, local = 64, 16
    a = np.arange(n, dtype=np.int64)
    out = np.zeros(n, dtype=np.int64)
    spirjit.call_kernel(shifts_then_sum(**options),
                        kapi.NdRange((n,), (local,)), a, out,
                        kapi.LocalAccessor(local, np.int64))
    groups = a.reshape(-1, local)
    np.testing.assert_array_equal(
        out, np.roll(groups, -3, axis=1).reshape(-1) * 1000
        + np.repeat(groups.sum(axis=1), local))


def test_group_reduce_over_3d_groups(native):
    a = np.random.default_rng(4).random((4, 6, 8))
    out = np.zeros_like(a)
    spirjit.call_kernel(group_max_3d, kapi.NdRange((4, 6, 8), (2, 3, 4)), a,
                        out)
    maxima = a.reshape(2, 2, 2, 3, 2, 4).max(axis=(1, 3, 5))
    np.testing.assert_array_equal(
        out, maxima.repeat(2, axis=0).repeat(3, axis=1).repeat(4, axis=2))


def test_uniform_early_return_before_a_collective(native):
    a = np.arange(64.0)
    out = np.full(64, -1.0)
    spirjit.call_kernel(uniform_early_return, kapi.NdRange((64,), (8,)), a,
                        out)
    group = np.arange(64) // 8
    np.testing.assert_array_equal(
        out, np.where(group % 2 == 1, -1.0, group * 8 + 7))


def test_local_atomics(native):
    n, local = 4096, 128
    a = np.arange(n, dtype=np.int32)
    out = np.zeros(n // local, dtype=np.int32)
    spirjit.call_kernel(local_atomics, kapi.NdRange((n,), (local,)), a, out,
                        kapi.LocalAccessor(1, np.int32))
    np.testing.assert_array_equal(out, a.reshape(-1, local).sum(axis=1))


def test_divergent_barrier_is_refused(native):
    with pytest.raises(errors.CompileError) as info:
        spirjit.call_kernel(divergent_barrier, kapi.NdRange((16,), (8,)),
                            np.zeros(16))
    line = lineno(divergent_barrier.py_func, "kapi.group_barrier(")
    branch = lineno(divergent_barrier.py_func, "if i % 2 == 0:")
    assert str(info.value) == (
        f"{HERE}:{line}: 'group_barrier' runs only in the work-items that "
        f"take one side of the branch at line {branch}, which depends on "
        f"the work-item's id: every work-item of a group must reach it, or "
        f"the group deadlocks; move it out of the branch")


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_device_array_reductions(native, dtype):
    host = (np.random.default_rng(3).random(311 * 321) * 1000).astype(dtype)
    d = spirjit.asarray(host, device=NATIVE)
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(spirjit.asnumpy(d.sum()), host.sum(),
                               rtol=rtol)
    assert spirjit.asnumpy(d.max()) == host.max()
    assert spirjit.asnumpy(d.min()) == host.min()
    assert spirjit.asnumpy(d.argmax()) == host.argmax()
    assert spirjit.asnumpy(d.argmin()) == host.argmin()
    np.testing.assert_allclose(
        spirjit.asnumpy(d.reshape(311, 321).sum(axis=0)),
        host.reshape(311, 321).sum(axis=0), rtol=rtol)


# --- DeviceArrays on the host's memory -------------------------------------

def test_device_array_round_trips(native):
    host = np.arange(24, dtype=np.int64).reshape(4, 6)
    d = spirjit.asarray(host, device=NATIVE)
    assert d.device == native
    np.testing.assert_array_equal(spirjit.asnumpy(d), host)
    np.testing.assert_array_equal(spirjit.asnumpy(d[1:3, ::2]),
                                  host[1:3, ::2])
    z = spirjit.zeros((3, 5), dtype=np.float32, device=NATIVE)
    np.testing.assert_array_equal(spirjit.asnumpy(z), np.zeros((3, 5)))
    d[0, 0] = 100
    assert spirjit.asnumpy(d)[0, 0] == 100


def test_allocation_beyond_the_hosts_memory(native):
    with pytest.raises(errors.OutOfDeviceMemoryError) as info:
        spirjit.empty(2 ** 50, np.uint8, device=NATIVE)
    assert info.value.backend == "native"
    assert info.value.code == "OUT_OF_HOST_MEMORY"
    assert "cannot allocate 1125899906842624 bytes" in str(info.value)


def test_kernel_on_device_arrays(native):
    n = 3000
    a = spirjit.asarray(np.arange(n, dtype=np.float32), device=NATIVE)
    b = spirjit.asarray(np.ones(n, dtype=np.float32), device=NATIVE)
    c = spirjit.empty(n, dtype=np.float32, device=NATIVE)
    spirjit.call_kernel(vecadd, kapi.Range(n), a, b, c)
    np.testing.assert_array_equal(spirjit.asnumpy(c), np.arange(n) + 1)


def test_numpy_arrays_used_in_place(native):
    # The host's memory is the device's: a NumPy array a kernel writes is
    # the very memory it launched on.
    a = np.arange(1000, dtype=np.float32)
    view = a[100:600]
    spirjit.call_kernel(vecadd, kapi.Range(view.size), view, view, view)
    expected = np.arange(1000, dtype=np.float32)
    expected[100:600] *= 2
    np.testing.assert_array_equal(a, expected)


def test_jit_prange(native):
    x = np.linspace(0, 1, 10001)
    y = np.arange(10001.0)
    np.testing.assert_allclose(prange_axpy(2.5, x, y), 2.5 * x + y)
    xd = spirjit.asarray(x, device=NATIVE)
    yd = spirjit.asarray(y, device=NATIVE)
    result = prange_axpy(2.5, xd, yd)
    assert result.device == native
    np.testing.assert_allclose(spirjit.asnumpy(result), 2.5 * x + y)
