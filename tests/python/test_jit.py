"""@spirjit.jit / dpjit with prange, against NumPy, on every device.

The host code around the loops is compiled (LLVM's JIT); each prange nest
runs as a kernel on the device of the arrays (SPIRJIT_DEVICE for NumPy-only
calls, which the device fixture sets)."""

import math

import numpy as np
import pytest

import spirjit
from spirjit import dpjit, prange
from spirjit import kernel_api as kapi
from spirjit.errors import (DeviceInferenceError, TypingError,
                            UnsupportedFeatureError)


@dpjit
def vecadd(a, b, c):
    for i in prange(a.shape[0]):
        c[i] = a[i] + b[i]


@dpjit
def axpy_ranged(a, x, y, start, stop, step):
    for i in prange(start, stop, step):
        y[i] = a * x[i] + y[i]


@dpjit
def total(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i]
    return s


@dpjit
def index_sums(start, stop, step):
    count = 0
    s = 0
    for i in prange(start, stop, step):
        count += 1
        s += i
    return count, s


@dpjit
def stats(a):
    lo = a[0]
    hi = a[0]
    s = 0.0
    p = 1.0
    for i in prange(a.shape[0]):
        lo = min(lo, a[i])
        hi = max(hi, a[i])
        s += a[i]
        p *= 1.0 + a[i] * 1e-3
    return lo, hi, s, p


@dpjit
def bits(a):
    o = 0
    x = 0
    n = -1
    for i in prange(a.shape[0]):
        o |= a[i]
        x ^= a[i]
        n &= a[i] | 256
    return o, x, n


@dpjit
def conditional_sum(a):
    s = 0.0
    m = 0.0
    for i in prange(a.shape[0]):
        if a[i] > 0.5:
            s += a[i]
        else:
            s -= 1.0
        for k in range(3):
            m += a[i] * k
    return s, m


@dpjit
def jacobi(u, v, iterations):
    n, m = u.shape
    for it in range(iterations):
        for i in prange(1, n - 1):
            for j in prange(1, m - 1):
                v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] +
                                  u[i, j - 1] + u[i, j + 1])
        u, v = v, u
    return u


@dpjit
def cube(a):
    n0, n1, n2 = a.shape
    for i in prange(n0):
        for j in prange(n1):
            for k in prange(n2):
                a[i, j, k] = i * 100 + j * 10 + k


@dpjit
def make(n, dtype_like):
    out = np.empty(n, dtype=dtype_like.dtype)
    z = np.zeros((2, n))
    o = np.ones_like(dtype_like)
    f = np.full(3, 7.5)
    for i in prange(n):
        out[i] = i * 2
    return out, z, o, f


@dpjit
def host_scalars(x, n):
    t = 0
    k = 0
    while k < n:
        if k % 2 == 0:
            t += k * x
        k += 1
    return t, math.sqrt(x) + 1.5


@dpjit
def rowsum(a, out):
    for i in prange(a.shape[0]):
        s = 0.0
        for j in range(a.shape[1]):
            s += a[i, j]
        out[i] = s


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [0, 1, 7, 1000, 4099])
def test_vecadd(device, require_dtypes, dtype, n):
    require_dtypes(dtype)
    a = np.random.rand(n).astype(dtype)
    b = np.random.rand(n).astype(dtype)
    c = np.zeros(n, dtype)
    vecadd(a, b, c)
    np.testing.assert_allclose(c, a + b, rtol=1e-6)


def test_prange_start_stop_step(device):
    x = np.arange(50, dtype=np.float64)
    y = np.ones(50)
    axpy_ranged(2.0, x, y, 3, 40, 4)
    expect = np.ones(50)
    expect[3:40:4] += 2 * x[3:40:4]
    np.testing.assert_array_equal(y, expect)


def test_prange_nonpositive_step(device):
    x = np.arange(10.0)
    with pytest.raises(TypingError, match="step must be positive"):
        axpy_ranged(1.0, x, x.copy(), 0, 10, 0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [0, 1, 5, 100003])
def test_sum_reduction(device, require_dtypes, dtype, n):
    require_dtypes(dtype)
    a = np.random.rand(n).astype(dtype)
    got = total(a)
    assert got == pytest.approx(float(a.sum(dtype=np.float64)), rel=1e-5,
                                abs=1e-9)


# Around the shares a reduction is split into (512 work-items on two CPU
# cores, 65536 on a GPU) and their leftover iterations, which run in a
# second launch: integer sums say whether each iteration ran exactly once.
@pytest.mark.parametrize("start,stop,step", [
    (0, 511, 1), (0, 512, 1), (0, 513, 1), (0, 1025, 1), (7, 5000, 3),
    (0, 65535, 1), (0, 65537, 1), (3, 131075, 2), (5, 6, 1)])
def test_reduction_runs_each_iteration_once(device, start, stop, step):
    count, s = index_sums(start, stop, step)
    want = range(start, stop, step)
    assert (count, s) == (len(want), sum(want))


def test_several_reductions(device):
    a = np.random.rand(10007)
    lo, hi, s, p = stats(a)
    assert lo == a.min() and hi == a.max()
    assert s == pytest.approx(a.sum())
    assert p == pytest.approx(np.prod(1.0 + a * 1e-3), rel=1e-9)


def test_bitwise_reductions(device):
    a = np.random.randint(0, 200, size=5000).astype(np.int64)
    o, x, n = bits(a)
    assert o == np.bitwise_or.reduce(a)
    assert x == np.bitwise_xor.reduce(a)
    assert n == np.bitwise_and.reduce(a | 256) & -1


def test_reduction_under_if_and_inner_loop(device):
    a = np.random.rand(3001)
    s, m = conditional_sum(a)
    assert s == pytest.approx(a[a > 0.5].sum() - (a <= 0.5).sum())
    assert m == pytest.approx(3 * a.sum())


@dpjit
def subtract_divide(a, s, t):
    for i in prange(a.shape[0]):
        s -= a[i]
        t /= a[i]
    return s, t


@pytest.mark.parametrize("n", [0, 1, 7, 1001])
def test_subtract_and_divide_reductions(device, n):
    # numba's parfor reductions: -= combines the partials with +, /= with *.
    a = 1.0 + np.random.rand(n)
    s, t = subtract_divide(a, 10.0, 5.0)
    want_s, want_t = subtract_divide.py_func(a, 10.0, 5.0)
    assert s == pytest.approx(want_s) and t == pytest.approx(want_t)


@dpjit
def whole_array_sum(x):
    y = np.zeros(4)
    for i in prange(x.shape[0]):
        y += x[i]
    return y


@dpjit
def row_reductions(A, y, p):
    for i in prange(A.shape[0]):
        y += A[i, :]
        if i % 2 == 0:
            p *= A[i, :]
        else:
            p /= 2.0
    return y, p


@dpjit
def array_and_scalar_reductions(A, y):
    s = 0.0
    for i in prange(1, A.shape[0], 2):
        for j in range(A.shape[1]):
            y -= A[i, j]
        s += A[i, 0]
    return y, s


@pytest.mark.parametrize("n", [0, 1, 5, 300])
def test_whole_array_reductions(device, n):
    # numba's prange_ok_result_whole_arr: an array updated in place by
    # +=, -=, *= or /= across iterations is a reduction, and the array
    # passed in is the one updated.
    x = np.random.rand(n, 4)
    np.testing.assert_allclose(whole_array_sum(x),
                               whole_array_sum.py_func(x))
    A = 1.0 + np.random.rand(n, 3)
    y, p = np.ones(3), np.full(3, 2.0)
    want = row_reductions.py_func(A, y.copy(), p.copy())
    got = row_reductions(A, y, p)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12)
    np.testing.assert_allclose(y, want[0], rtol=1e-12)
    y = np.zeros(3)
    want = array_and_scalar_reductions.py_func(A, y.copy())
    got = array_and_scalar_reductions(A, y)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
    assert got[1] == pytest.approx(want[1])


def test_whole_array_reduction_by_new_array_is_an_error():
    @spirjit.jit
    def f(x):
        y = np.zeros(4)
        for i in prange(x.shape[0]):
            y = y + x[i]
        return y

    with pytest.raises(UnsupportedFeatureError, match=r"test_jit.py:\d+: "):
        f(np.ones((3, 4)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_jacobi_2d_nested_in_sequential_loop(device, require_dtypes, dtype):
    require_dtypes(dtype)
    u = np.random.rand(37, 53).astype(dtype)
    got = jacobi(u.copy(), u.copy(), 7)
    uu, vv = u.copy(), u.copy()
    for _ in range(7):
        vv[1:-1, 1:-1] = 0.25 * (uu[:-2, 1:-1] + uu[2:, 1:-1] +
                                 uu[1:-1, :-2] + uu[1:-1, 2:])
        uu, vv = vv, uu
    np.testing.assert_allclose(got, uu, rtol=1e-5)


def test_three_dimensional_nest(device):
    a = np.zeros((3, 5, 7), np.int64)
    cube(a)
    i, j, k = np.indices(a.shape)
    np.testing.assert_array_equal(a, i * 100 + j * 10 + k)


def test_allocation_and_returns(device):
    like = np.zeros(4, np.float32)
    out, z, o, f = make(6, like)
    assert isinstance(out, np.ndarray) and out.dtype == np.float32
    np.testing.assert_array_equal(out, np.arange(6) * 2)
    np.testing.assert_array_equal(z, np.zeros((2, 6)))
    assert o.dtype == np.float32 and (o == 1).all() and o.shape == (4,)
    np.testing.assert_array_equal(f, np.full(3, 7.5))


def test_host_code_scalars():
    t, r = host_scalars(3, 10)
    assert t == 3 * (0 + 2 + 4 + 6 + 8)
    assert r == pytest.approx(math.sqrt(3) + 1.5)


def test_inner_sequential_loop(device):
    a = np.random.rand(17, 33)
    out = np.zeros(17)
    rowsum(a, out)
    np.testing.assert_allclose(out, a.sum(axis=1))


def test_device_arrays_stay_on_their_device(device):
    a = spirjit.asarray(np.arange(8.0), device=device)
    b = spirjit.asarray(np.ones(8), device=device)
    c = spirjit.zeros(8, device=device)
    vecadd(a, b, c)
    np.testing.assert_array_equal(c.asnumpy(), np.arange(8.0) + 1)
    assert total(a) == 28.0
    out, z, o, f = make(5, spirjit.zeros(3, dtype="float32", device=device))
    assert isinstance(out, spirjit.DeviceArray)
    assert out.device == device


def test_mixed_devices_rejected():
    devices = spirjit.devices()
    if len(devices) < 2:
        pytest.skip("needs two devices")
    a = spirjit.zeros(4, device=devices[0])
    b = spirjit.zeros(4, device=devices[1])
    with pytest.raises(DeviceInferenceError):
        vecadd(a, b, a)


def test_device_keyword(device):
    @spirjit.jit(device=device.filter_string)
    def fill(a):
        for i in prange(a.shape[0]):
            a[i] = 3

    a = np.zeros(5)
    fill(a)
    assert (a == 3).all()


def test_numba_style_prange_import():
    numba = pytest.importorskip("numba")

    @spirjit.jit
    def f(a):
        for i in numba.prange(a.shape[0]):
            a[i] = i

    a = np.zeros(4)
    f(a)
    np.testing.assert_array_equal(a, np.arange(4.0))


def test_non_reduction_carried_scalar_is_an_error():
    @spirjit.jit
    def f(a):
        last = 0.0
        for i in prange(a.shape[0]):
            a[i] = a[i] - last
            last = a[i]
        return last

    with pytest.raises(UnsupportedFeatureError,
                       match=r"test_jit.py:\d+: .*not as a reduction"):
        f(np.ones(4))


def test_break_in_prange_is_an_error():
    @spirjit.jit
    def f(a):
        for i in prange(a.shape[0]):
            if a[i] > 1:
                break
            a[i] = 0

    with pytest.raises(UnsupportedFeatureError, match="cannot be left early"):
        f(np.ones(4))


def test_kernel_api_in_jit_is_an_error():
    from spirjit import kernel_api as kapi

    @spirjit.jit
    def f(a):
        for i in prange(a.shape[0]):
            kapi.group_barrier(None)

    with pytest.raises(UnsupportedFeatureError,
                       match=r"test_jit.py:\d+: .*kernel API"):
        f(np.ones(4))


def test_one_compile_per_signature(device):
    @spirjit.jit
    def f(a):
        for i in prange(a.shape[0]):
            a[i] += 1

    a = np.zeros(3)
    f(a)
    f(a)
    f(np.zeros(3, np.float32))
    assert f.stats["compiles"] == 2
    np.testing.assert_array_equal(a, [2, 2, 2])


def test_issue31_second_call_is_a_memory_hit(device):
    # API.md: jit functions report compiles, memory hits and disk hits; a
    # call that finds its specialisation made is a memory hit.
    @spirjit.jit
    def f(a):
        for i in prange(a.shape[0]):
            a[i] += 1

    a = np.zeros(3)
    f(a)
    assert (f.stats["compiles"], f.stats["memory_hits"]) == (1, 0)
    f(a)
    assert (f.stats["compiles"], f.stats["memory_hits"]) == (1, 1)
    assert f.stats["host"]["memory_hits"] == 1
    np.testing.assert_array_equal(a, [2, 2, 2])


def test_plain_python_prange():
    assert list(prange(2, 8, 3)) == [2, 5]


def test_host_element_access_on_gpu_memory_is_an_error():
    gpus = [d for d in spirjit.devices() if d.backend == "cuda"]
    if not gpus:
        pytest.skip("needs a device whose memory the host cannot address")

    @spirjit.jit
    def first(a):
        return a[0]

    with pytest.raises(UnsupportedFeatureError,
                       match=r"test_jit.py:\d+: .*cannot address"):
        first(spirjit.zeros(3, device=gpus[0]))


@dpjit
def scale_in_place(a, s):
    for i in prange(a.shape[0]):
        a[i] *= s
    return a.sum()


@dpjit
def norm(a):
    return np.sqrt((a * a).sum())


def test_jit_functions_call_jit_functions(device):
    # The callees' loops become the caller's: one function, its kernels on
    # the caller's device.
    factor = 3.0

    @dpjit
    def outer(a):
        first = scale_in_place(a, 2.0)
        n = norm(a) * factor
        return first, n, scale_in_place(a, 0.5)

    a = np.arange(5.0)
    first, n, last = outer(a)
    assert first == 20.0
    assert n == pytest.approx(math.sqrt((np.arange(5.0) * 2) @
                                        (np.arange(5.0) * 2)) * 3)
    assert last == 10.0
    np.testing.assert_array_equal(a, np.arange(5.0))
    d = spirjit.asarray(np.ones(4), device=device)
    assert outer(d)[0] == 8.0


def test_recursive_jit_function_is_an_error():
    @dpjit
    def down(n):
        if n <= 0:
            return 0
        return down(n - 1)

    with pytest.raises(UnsupportedFeatureError,
                       match=r"test_jit.py:\d+: .*recursion is not supported"):
        down(3)


def test_keyword_arguments_to_a_jit_callee_go_to_their_parameters():
    @dpjit
    def caller(a):
        return norm(a=a)

    @dpjit
    def misspelt(a):
        return norm(b=a)

    assert caller(np.ones(4)) == norm(np.ones(4))
    with pytest.raises(TypeError, match=r"test_jit.py:\d+: 'norm' got an "
                       r"unexpected value for argument 'b'"):
        misspelt(np.ones(3))



def test_len_of_an_array_in_host_code_and_prange(device):
    @spirjit.jit
    def scaled(a, b):
        n = len(a)
        out = np.empty(n)
        for i in spirjit.prange(len(b)):
            out[i] = a[i] * len(b)
        return out, n

    a = np.arange(3.0)
    out, n = scaled(a, np.ones((3, 2)))
    assert n == 3 and out.tolist() == [0.0, 3.0, 6.0]
    out, n = scaled(spirjit.asarray(a, device=device),
                    spirjit.ones((3, 2), device=device))
    assert n == 3 and out.asnumpy().tolist() == [0.0, 3.0, 6.0]


@spirjit.jit
def arange1(stop):
    return np.arange(stop)


@spirjit.jit
def arange2(start, stop):
    return np.arange(start, stop)


@spirjit.jit
def arange3(start, stop, step):
    return np.arange(start, stop, step)


# np.arange of one, two and three arguments.
ARANGES = (arange1, arange2, arange3)


@pytest.mark.parametrize("bounds", [(5,), (2, 10, 3), (10, 2, -3), (5, 0, 1),
                                    (0.0, 1.0, 0.3), (1.5,), (-2, 2.5, 0.5),
                                    (3, 9), (9, 3), (-7, 8, 4)])
def test_arange_is_numpys(bounds):
    want = np.arange(*bounds)
    got = ARANGES[len(bounds) - 1](*bounds)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want)


def test_arange_dtype_placement_and_use_in_prange(device):
    @spirjit.jit
    def weights(x):
        idx = np.arange(x.shape[0])
        ramp = np.arange(1, 2 * x.shape[0] + 1, 2, dtype=np.float32)
        out = np.empty(x.shape[0])
        for i in spirjit.prange(x.shape[0]):
            out[i] = x[i] * idx[i] + ramp[i]
        return out, idx, ramp

    out, idx, ramp = weights(np.full(4, 2.0))
    assert idx.dtype == np.int64 and ramp.dtype == np.float32
    assert out.tolist() == [1.0, 5.0, 9.0, 13.0]
    out, idx, ramp = weights(spirjit.full(4, 2.0, device=device))
    assert isinstance(idx, spirjit.DeviceArray) and idx.device == device
    assert out.asnumpy().tolist() == [1.0, 5.0, 9.0, 13.0]
    assert ramp.asnumpy().tolist() == [1.0, 3.0, 5.0, 7.0]


def test_arange_errors_name_the_line():
    @spirjit.jit
    def stepped(step):
        return np.arange(0, 5, step)  # <- arange-step

    with pytest.raises(ZeroDivisionError,
                       match=rf"{__file__}:\d+: np.arange\(\)'s step is 0"):
        stepped(0)

    @spirjit.jit
    def complex_into_float(n):
        return np.arange(n * 1j, dtype=np.float64)  # <- arange-float

    from source_markers import marked_line
    with pytest.raises(TypingError) as info:
        complex_into_float(3)
    assert f"test_jit.py:{marked_line(__file__, 'arange-float')}: " \
        "np.arange() with complex bounds or step makes complex numbers, " \
        "not float64" in str(info.value)

    @spirjit.jit
    def complex_steps(stop, step):
        return np.arange(0, stop, step)  # <- arange-complex

    where = f"test_jit.py:{marked_line(__file__, 'arange-complex')}: "
    with pytest.raises(ZeroDivisionError) as info:
        complex_steps(5 + 1j, 0j)
    assert where + "np.arange(): complex division by zero" in str(info.value)
    with pytest.raises(ValueError) as info:
        complex_steps(complex(np.nan, 1), 1 + 0j)
    assert where + "np.arange(): arange: cannot compute length" in \
        str(info.value)


# Complex bounds and steps (issue 29), as NumPy 2 makes them: the length is
# min(ceil(q.real), ceil(q.imag)) of q = (stop - start) / step, and the
# elements from start + i * ((start + step) - start). numba computes
# start + i * step, which differs in the last bits: (0.1+0.2j, 3+3j,
# 0.3+0.1j) gives NumPy's 0.7000000000000001 in element 2, numba 0.7.
@pytest.mark.parametrize("bounds", [(0, 5 + 1j), (1j, 4j, 1j), (0, 5 + 5j),
                                    (5 + 5j,), (0, 10 + 10j, 1 + 0.5j),
                                    (0.1 + 0.2j, 3 + 3j, 0.3 + 0.1j),
                                    (0.5, 4.2 + 3j, 0.7 + 0.2j),
                                    (3 + 3j, 0, -1 - 1j), (2, 7 + 1e-9j),
                                    (0, 5, 1 + 0j)])
def test_complex_arange_is_numpys(device, bounds):
    want = np.arange(*bounds)
    got = ARANGES[len(bounds) - 1](*bounds)
    assert got.dtype == want.dtype
    assert got.tolist() == want.tolist()


def test_complex_arange_dtypes(device):
    @spirjit.jit
    def made():
        return (np.arange(5, dtype=np.complex64),
                np.arange(0, 10 + 10j, 1 + 0.5j, dtype=np.complex64),
                np.arange(1.5, 4, dtype=np.complex128),
                np.arange(stop=3 + 3j))

    want = (np.arange(5, dtype=np.complex64),
            np.arange(0, 10 + 10j, 1 + 0.5j, dtype=np.complex64),
            np.arange(1.5, 4, dtype=np.complex128), np.arange(3 + 3j))
    for g, w in zip(made(), want):
        assert g.dtype == w.dtype
        assert g.tolist() == w.tolist()


# Arrays made inside a prange body (numba's per-iteration arrays): each
# work-item's own, of a constant shape (issue 29).
@dpjit
def per_iteration_arrays(a, out):
    for i in prange(a.shape[0]):
        t = np.zeros(3)
        u = np.ones((2, 2), np.float32)
        w = np.full(4, 2.5)
        e = np.empty(2, dtype=np.int64)
        t[0] = a[i]
        t[1] = a[i] * 2
        e[0] = i
        e[1] = i + 1
        out[i] = t[0] + t[1] + t[2] + u[1, 1] + w[3] + e[1]
    return out


@dpjit
def row_histograms(a, out):
    for i in prange(a.shape[0]):
        h = np.zeros(4)
        for j in range(a.shape[1]):
            h[j % 4] += a[i, j]
        for k in range(4):
            out[i, k] = h[k]
    return out


@dpjit
def sized_at_run_time(a, n):
    for i in prange(a.shape[0]):
        t = np.zeros(n)  # <- runtime-shape
        a[i] = t[0]
    return a


def test_arrays_made_in_a_prange_body_are_per_iteration(device):
    a = np.arange(8.0)
    np.testing.assert_array_equal(per_iteration_arrays(a, np.empty(8)),
                                  a * 3 + 1 + 2.5 + np.arange(1, 9))
    m = np.arange(36.0).reshape(4, 9)
    want = np.zeros((4, 4))
    for j in range(9):
        want[:, j % 4] += m[:, j]
    np.testing.assert_array_equal(row_histograms(m, np.empty((4, 4))), want)


def test_an_array_of_run_time_shape_in_a_prange_body_is_an_error(device):
    from source_markers import marked_line
    with pytest.raises(spirjit.errors.TypingError) as info:
        sized_at_run_time(np.ones(4), 3)
    message = str(info.value)
    assert f"test_jit.py:{marked_line(__file__, 'runtime-shape')}" in message
    assert "the shape of np.zeros() (each work-item's own array) must be a " \
        "constant" in message


# Branches on what is known when the function compiles (a.ndim, `x is
# None` where the types tell) are pruned before typing, as numba prunes
# them: the other branch may be code that only fits other ranks (issue 29).
@dpjit
def total_of_any_rank(a):
    s = 0.0
    if a.ndim == 1:
        for i in prange(a.shape[0]):
            s += a[i]
    else:
        for i in prange(a.shape[0]):
            for j in range(a.shape[1]):
                s += a[i, j]
    return s


@dpjit
def weighted(a, w):
    if w is None:
        return a.sum()
    return (a * w).sum()


@spirjit.kernel
def mark_by_rank(item, a):
    i = item.get_id(0)
    if a.ndim == 2:
        a[i, 0] = 1.0
    else:
        a[i] = 2.0


def test_branches_on_ranks_are_pruned(device):
    assert total_of_any_rank(np.arange(5.0)) == 10.0
    assert total_of_any_rank(np.arange(6.0).reshape(2, 3)) == 15.0
    assert weighted(np.ones(3), np.full(3, 2.0)) == 6.0
    one, two = np.zeros(3), np.zeros((3, 2))
    spirjit.call_kernel(mark_by_rank, kapi.Range(3), one)
    spirjit.call_kernel(mark_by_rank, kapi.Range(3), two)
    np.testing.assert_array_equal(one, [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(two[:, 0], [1.0, 1.0, 1.0])
