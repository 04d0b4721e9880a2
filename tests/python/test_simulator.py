"""``kapi.call_kernel`` runs a kernel as plain Python, item by item: it must
give what the device gives (and what NumPy gives), so that users can debug a
kernel in the simulator and trust the result."""

import numpy as np
import pytest

import spirjit
from spirjit import kernel_api as kapi


@spirjit.kernel
def vecadd(item: kapi.Item, a, b, c):
    i = item.get_id(0)
    c[i] = a[i] + b[i]


@spirjit.kernel
def stencil_2d(item: kapi.Item, a, out):
    i = item.get_id(0)
    j = item.get_id(1)
    rows = item.get_range(0)
    cols = item.get_range(1)
    s = a[i, j] * 4
    if i > 0:
        s -= a[i - 1, j]
    if i < rows - 1:
        s -= a[i + 1][j]
    if j > 0:
        s -= a[i, j - 1]
    if j < cols - 1:
        s -= a[i][j + 1]
    out[i, j] = s


@spirjit.kernel
def queries(item: kapi.Item, out):
    n = item.get_linear_id()
    out[n, 0] = item.get_linear_range()
    out[n, 1] = item.dimensions
    out[n, 2] = item.get_id(item.dimensions - 1)
    out[n, 3] = item.get_range(0)


@spirjit.kernel
def loops(item: kapi.Item, a, out):
    i = item.get_id(0)
    n = a[i]
    s = 0
    for k in range(n, -4, -3):
        if k % 2 == 0:
            continue
        s = s * 2 + k // 2
    c = 0
    while n > 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        c += 1
    out[i] = s * 1000 + c


def both(kernel, index_space, make_args):
    """Runs ``kernel`` on the device and in the simulator on fresh copies of
    the same arguments; returns both argument tuples."""
    device_args = make_args()
    simulated_args = make_args()
    spirjit.call_kernel(kernel, index_space, *device_args)
    with np.errstate(over="ignore"):  # NumPy scalars warn where they wrap
        kapi.call_kernel(kernel, index_space, *simulated_args)
    return device_args, simulated_args


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32,
                                   np.uint8],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", [1, 7, 1024])
def test_vecadd_simulator_matches_device(device_filter, require_dtypes,
                                         dtype, n):
    require_dtypes(dtype)

    def make():
        r = np.random.default_rng(n)
        if np.dtype(dtype).kind == "f":
            a = (r.standard_normal(n) * 100).astype(dtype)
            b = (r.standard_normal(n) * 100).astype(dtype)
        else:
            a = r.integers(0, 200, n).astype(dtype)
            b = r.integers(0, 200, n).astype(dtype)
        return a, b, np.zeros(n, dtype=dtype)

    (a, b, c_device), (_, _, c_sim) = both(vecadd, kapi.Range(n), make)
    with np.errstate(over="ignore"):
        expected = a + b
    np.testing.assert_array_equal(c_sim, expected)
    np.testing.assert_array_equal(c_device, c_sim)


@pytest.mark.parametrize("layout", ["C", "F", "strided", "reversed"])
def test_2d_simulator_matches_device(device_filter, require_dtypes, layout):
    require_dtypes(np.float64)
    base = (np.arange(12 * 15).reshape(12, 15) % 11).astype(np.float64)
    views = {"C": lambda m: m, "F": np.asfortranarray,
             "strided": lambda m: m[::2, 1::3], "reversed": lambda m: m[::-1]}

    def make():
        a = views[layout](base.copy())
        return a, np.zeros(a.shape)

    shape = views[layout](base).shape
    (a, out_device), (_, out_sim) = both(stencil_2d, kapi.Range(*shape), make)
    padded = np.pad(a, 1)
    expected = (4 * a - padded[:-2, 1:-1] - padded[2:, 1:-1]
                - padded[1:-1, :-2] - padded[1:-1, 2:])
    np.testing.assert_array_equal(out_sim, expected)
    np.testing.assert_array_equal(out_device, out_sim)


@pytest.mark.parametrize("shape", [(10,), (3, 4), (2, 3, 4)])
def test_item_queries_simulator_matches_device(device_filter, shape):
    n = int(np.prod(shape))

    def make():
        return (np.full((n, 4), -1, dtype=np.int64),)

    (out_device,), (out_sim,) = both(queries, kapi.Range(*shape), make)
    np.testing.assert_array_equal(out_device, out_sim)
    np.testing.assert_array_equal(out_sim[:, 0], n)
    np.testing.assert_array_equal(out_sim[:, 1], len(shape))
    np.testing.assert_array_equal(out_sim[:, 2], np.arange(n) % shape[-1])
    np.testing.assert_array_equal(out_sim[:, 3], shape[0])


def test_control_flow_simulator_matches_device(device_filter):
    def make():
        return np.arange(-5, 30, dtype=np.int64), np.zeros(35, np.int64)

    (_, out_device), (_, out_sim) = both(loops, kapi.Range(35), make)
    np.testing.assert_array_equal(out_device, out_sim)


def test_simulator_accepts_plain_functions_and_index_forms():
    def fill(item, out):
        out[item.get_id(0), item.get_id(1)] = item.get_linear_id()

    for index_space in (kapi.Range(3, 5), (3, 5), [3, 5]):
        out = np.zeros((3, 5), dtype=np.int64)
        kapi.call_kernel(fill, index_space, out)
        np.testing.assert_array_equal(out, np.arange(15).reshape(3, 5))

    def fill_1d(item, out):
        out[item.get_id(0)] = item.get_range(0)

    out = np.zeros(6, dtype=np.int64)
    kapi.call_kernel(fill_1d, 6, out)
    np.testing.assert_array_equal(out, 6)


def test_simulator_rejects_invalid_ranges():
    with pytest.raises(spirjit.errors.InvalidRangeError):
        kapi.call_kernel(vecadd, 0, np.zeros(1), np.zeros(1), np.zeros(1))


@spirjit.kernel
def returns_before_barrier(nd: kapi.NdItem, a):
    if nd.get_global_id(0) == 0:
        return
    kapi.group_barrier(nd.get_group())  # (line 166)
    a[nd.get_global_id(0)] = 1


@spirjit.kernel
def nd_kernel(nd: kapi.NdItem, a):
    a[nd.get_global_id(0)] = 1


@spirjit.kernel
def item_kernel(item: kapi.Item, a):
    a[item.get_id(0)] = 1


@spirjit.kernel
def returns_a_value(item, a):
    a[0] = 1
    return 5


def test_simulator_raises_what_the_device_launch_raises():
    # A barrier one work-item never reaches had deadlocked the simulator;
    # a launch of the wrong kind failed inside the kernel with an
    # AttributeError, and a returned value was dropped.
    with pytest.raises(spirjit.errors.CompileError,
                       match=r"test_simulator.py:166: 'group_barrier' is not "
                             r"reached by every work-item"):
        kapi.call_kernel(returns_before_barrier, kapi.NdRange(8, 4),
                         np.zeros(8))
    with pytest.raises(spirjit.errors.TypingError,
                       match="must be launched over a kapi.NdRange"):
        kapi.call_kernel(nd_kernel, kapi.Range(4), np.zeros(4))
    with pytest.raises(spirjit.errors.TypingError,
                       match="must be launched over a kapi.Range"):
        kapi.call_kernel(item_kernel, kapi.NdRange(4, 2), np.zeros(4))
    with pytest.raises(spirjit.errors.KernelHasReturnValueError,
                       match="must not return a value"):
        kapi.call_kernel(returns_a_value, kapi.Range(1), np.zeros(1))
