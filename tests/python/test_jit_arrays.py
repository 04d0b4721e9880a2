"""Array expressions in @spirjit.jit functions, against NumPy, on every
device: whole-array arithmetic, ufuncs, comparisons and np.where, slices
and array assignment, in-place operators, and the reductions a.sum(),
np.min/max/prod/mean and a.dot(b). Each statement becomes a prange loop
(compiler/ArrayExpressions.h); consecutive ones over the same shape fuse."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import spirjit
from spirjit import dpjit, prange
from spirjit.errors import TypingError, UnsupportedFeatureError


@dpjit
def axpy(a, x, y):
    return a * x + y


@dpjit
def ufuncs(x):
    return np.sqrt(np.abs(x)) + np.exp(-x * x) - abs(x) * np.sin(x)


@dpjit
def clip_negative(x):
    return np.where(x > 0, x, 0.0)


@dpjit
def stencil(u, v):
    v[1:-1, 1:-1] = (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] +
                     u[1:-1, 2:]) * 0.25


@dpjit
def jacobi(u, iterations):
    v = u.copy()
    for _ in range(iterations):
        v[1:-1, 1:-1] = (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] +
                         u[1:-1, 2:]) * 0.25
        u, v = v, u
    return u


@dpjit
def reductions(a, b):
    return (a.sum(), np.sum(a * 2), np.min(a), a.max(), np.prod(a[:3]),
            a.mean(), a.dot(b), np.dot(a, b))


def numpy_reductions(a, b):
    return (a.sum(), np.sum(a * 2), np.min(a), a.max(), np.prod(a[:3]),
            a.mean(), a.dot(b), np.dot(a, b))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [0, 1, 7, 1000, 4099])
def test_elementwise(device, require_dtypes, dtype, n):
    require_dtypes(dtype)
    x = np.linspace(-2, 3, n).astype(dtype)
    y = np.arange(n, dtype=dtype)
    out = axpy(2.5, x, y)
    # A Python float argument is a float64 at run time (as in numba): the
    # result is what NumPy gives for np.float64(2.5).
    want = np.float64(2.5) * x + y
    assert out.dtype == want.dtype
    np.testing.assert_allclose(out, want, rtol=1e-6)
    np.testing.assert_allclose(ufuncs(x), np.sqrt(np.abs(x)) +
                               np.exp(-x * x) - abs(x) * np.sin(x),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(clip_negative(x), np.where(x > 0, x, 0.0))


def test_numpy_result_types():
    @dpjit
    def kinds(i32, f32, u8):
        return i32 + 1, i32 / 2, f32 * 2.0, i32 * f32, u8 > 3, -i32, i32 // 3

    i32 = np.arange(-4, 5, dtype=np.int32)
    f32 = np.linspace(0, 1, 9, dtype=np.float32)
    u8 = np.arange(9, dtype=np.uint8)
    got = kinds(i32, f32, u8)
    want = (i32 + 1, i32 / 2, f32 * 2.0, i32 * f32, u8 > 3, -i32, i32 // 3)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        np.testing.assert_array_equal(g, w)


def test_broadcasting_numbers_and_rows(device):
    @dpjit
    def f(m, row, s):
        return m * row + s

    m = np.arange(12.0).reshape(3, 4)
    row = np.array([1.0, -1.0, 2.0, 0.5])
    np.testing.assert_array_equal(f(m, row, 3.0), m * row + 3.0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(3, 3), (6, 7), (65, 33)])
def test_stencil_slices(device, require_dtypes, dtype, shape):
    require_dtypes(dtype)
    u = np.random.default_rng(1).random(shape).astype(dtype)
    v = np.zeros_like(u)
    stencil(u, v)
    w = np.zeros_like(u)
    w[1:-1, 1:-1] = (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] +
                     u[1:-1, 2:]) * 0.25
    np.testing.assert_allclose(v, w, rtol=1e-6)


def test_jacobi_array_expression_in_sequential_loop(device):
    u = np.zeros((40, 30))
    u[0, :] = 1.0
    got = jacobi(u.copy(), 25)
    want_u = u.copy()
    want_v = want_u.copy()
    for _ in range(25):
        want_v[1:-1, 1:-1] = (want_u[:-2, 1:-1] + want_u[2:, 1:-1] +
                              want_u[1:-1, :-2] + want_u[1:-1, 2:]) * 0.25
        want_u, want_v = want_v, want_u
    np.testing.assert_allclose(got, want_u, rtol=1e-12)


def test_slice_assignment_forms(device):
    @dpjit
    def f(a, b):
        a[:] = 1.0
        a[::3] = b[:a.shape[0] // 3 + 1] * 2
        a[-2:] = -1
        b[2, 1:] = 7

    a = np.zeros(10)
    b = np.arange(12.0)
    want_a = a.copy()
    want_b = b.copy()
    want_a[:] = 1.0
    want_a[::3] = want_b[:want_a.shape[0] // 3 + 1] * 2
    want_a[-2:] = -1
    with pytest.raises(TypingError):
        f(a, b)  # b is 1-D: b[2, 1:] has too many indices
    a2 = np.zeros(10)
    b2 = np.arange(12.0).reshape(3, 4)

    @dpjit
    def g(a, b):
        a[:] = 1.0
        a[::3] = b[0, :] * 2
        a[-2:] = -1
        b[2, 1:] = 7

    g(a2, b2)
    want = np.ones(10)
    want[::3] = np.arange(4.0) * 2
    want[-2:] = -1
    np.testing.assert_array_equal(a2, want)
    want_b = np.arange(12.0).reshape(3, 4)
    want_b[2, 1:] = 7
    np.testing.assert_array_equal(b2, want_b)


def test_in_place_operators_write_the_array(device):
    @dpjit
    def f(a, b):
        a += b
        a[1:] *= 2
        c = a
        c -= 1
        return a

    a = np.arange(6.0)
    b = np.ones(6)
    out = f(a, b)
    want = np.arange(6.0) + 1
    want[1:] *= 2
    want -= 1
    np.testing.assert_array_equal(a, want)
    np.testing.assert_array_equal(out, want)


def issue31_in_place_on_a_result(a):
    c = a + 1.0
    c *= 2.0
    return c


def issue31_in_place_on_a_copy(a, b):
    k = b.copy()
    k += a
    return k


def issue31_where_then_a_statement(a):
    e = np.where(a > 1, a, -a)
    f = e * 2.0
    g = a * 3.0
    return f, g, e


def issue31_where_in_place(m):
    e = np.where(m > 4, m, -m) + m[0]
    e -= 1.0
    return e


@pytest.mark.parametrize("fn, args", [
    (issue31_in_place_on_a_result, (np.arange(6.0),)),
    (issue31_in_place_on_a_copy, (np.arange(6.0), np.ones(6))),
    (issue31_where_then_a_statement, (np.arange(6.0),)),
    (issue31_where_in_place, (np.arange(12.0).reshape(3, 4),)),
])
def test_issue31_in_place_on_computed_arrays_and_where(device, fn, args):
    # Issue 31: an in-place operator on an array the function computed, and
    # np.where followed by another statement, were internal errors.
    want = fn(*[a.copy() for a in args])
    got = dpjit(fn)(*args)
    if not isinstance(want, tuple):
        got, want = (got,), (want,)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    # the arguments are left alone
    np.testing.assert_array_equal(args[0], np.arange(args[0].size).reshape(
        args[0].shape))


def test_overlapping_assignment_reads_before_writing(device):
    @dpjit
    def shift(a):
        a[1:] = a[:-1]
        a[:-1] += a[1:]

    a = np.arange(8.0)
    want = a.copy()
    want[1:] = want[:-1]
    want[:-1] += want[1:]
    shift(a)
    np.testing.assert_array_equal(a, want)


def test_expression_read_before_a_later_write(device):
    @dpjit
    def f(a, out):
        t = a + 1.0
        a[:] = 0.0
        out[:] = t

    a = np.arange(5.0)
    out = np.zeros(5)
    f(a, out)
    np.testing.assert_array_equal(out, np.arange(5.0) + 1)
    np.testing.assert_array_equal(a, np.zeros(5))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
@pytest.mark.parametrize("n", [1, 5, 1001])
def test_reductions(device, require_dtypes, dtype, n):
    require_dtypes(dtype)
    rng = np.random.default_rng(n)
    a = (rng.random(n) * 10 - 3).astype(dtype)
    b = (rng.random(n) * 4).astype(dtype)
    got = reductions(a, b)
    want = numpy_reductions(a, b)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4)
    assert type(got[0]) is (int if dtype == np.int32 else float)


def test_sum_of_int32_does_not_wrap(device):
    @dpjit
    def f(a):
        return a.sum()

    a = np.full(1000, 2**30, dtype=np.int32)
    assert f(a) == 1000 * 2**30


def test_two_dimensional_reductions(device):
    @dpjit
    def f(m):
        return m.sum(), m.max(), (m[1:, :] * m[:-1, :]).sum()

    m = np.arange(35.0).reshape(5, 7)
    got = f(m)
    assert got == (m.sum(), m.max(), (m[1:, :] * m[:-1, :]).sum())


def test_min_of_empty_array_is_a_value_error(device):
    @dpjit
    def f(a):
        return a.min()

    with pytest.raises(ValueError, match="zero-size array to reduction "
                                         "operation minimum"):
        f(np.zeros(0))


def test_shape_mismatch_is_a_value_error_naming_the_line(device):
    @dpjit
    def f(a, b):
        return a + b

    with pytest.raises(ValueError, match=r"test_jit_arrays.py:\d+: operands "
                                         r"could not be broadcast together: "
                                         r"an extent of 4 meets one of 3"):
        f(np.zeros(3), np.zeros(4))


def test_device_arrays_give_device_arrays(device):
    a = spirjit.asarray(np.arange(6.0, dtype=np.float32), device=device)
    b = spirjit.asarray(np.ones(6, dtype=np.float32), device=device)
    out = axpy(2.0, a, b)
    assert isinstance(out, spirjit.DeviceArray)
    assert out.device == device
    np.testing.assert_array_equal(out.asnumpy(), 2.0 * np.arange(6.0) + 1)
    assert reductions(a, b)[0] == 15.0


def test_copy_and_astype(device):
    @dpjit
    def f(a):
        c = a.copy()
        c[0] = 100.0
        return c, (a * 2).astype(np.int32), np.copy(a)

    a = np.arange(4.0)
    c, i, d = f(a)
    assert a[0] == 0.0 and c[0] == 100.0
    assert i.dtype == np.int32
    np.testing.assert_array_equal(i, [0, 2, 4, 6])
    np.testing.assert_array_equal(d, a)


def test_consecutive_statements_fuse_into_one_kernel(tmp_path):
    source = tmp_path / "fused.py"
    source.write_text(textwrap.dedent("""
        import numpy as np
        def f(a, b):
            c = a + b
            d = c * 2.0
            e = np.sqrt(d)
            return e, d
    """))
    out = subprocess.run(
        [sys.executable, "-m", "spirjit.dump_ir", "--jit", "--stage", "parfor",
         "--sig", "(float64[::1], float64[::1])", str(source), "f"],
        capture_output=True, text=True, check=True).stdout
    # One loop holds the three statements; the host runs it in one of two
    # copies: reading a and b as they are, or stretching whichever has an
    # extent of 1 (NumPy's broadcasting, decided at run time). Each element
    # is written from the statement's graph, which calls the ufunc by name.
    kernels = [k.split("; -----")[0] for k in out.split("; parfor ")[1:]]
    assert len(kernels) == 2, out
    for kernel in kernels:
        assert "numpy.sqrt'" in kernel and kernel.count("setitem") == 2, kernel


def test_errors():
    # (A slice used as a value is a view now: test_jit_views.py; `@` is
    # the jit library's matmul: test_jit_library.py.)
    @dpjit
    def bad_in_place(a):
        a += 0.5

    with pytest.raises(TypingError, match="same_kind"):
        bad_in_place(np.zeros(3, dtype=np.int64))

    @dpjit
    def out(a, b):
        return a.sum(out=b)

    with pytest.raises(TypeError, match="unexpected value for argument "
                       "'out'"):
        out(np.zeros((2, 2)), np.zeros(2))

    @spirjit.kernel
    def kernel_slice(item, a):
        a[1:] = 0

    with pytest.raises(UnsupportedFeatureError, match="slices"):
        spirjit.call_kernel(kernel_slice, spirjit.Range(1), np.zeros(3))


def test_numpy_ufuncs_that_are_operators(device):
    @dpjit
    def f(a, b):
        return (np.add(a, b), np.subtract(a, 1), np.multiply(a, b),
                np.divide(a, b), np.less(a, b), np.negative(a),
                np.floor_divide(a, 2), np.maximum(a, b))

    a = np.arange(1.0, 9.0)
    b = np.full(8, 3.0)
    got = f(a, b)
    want = (np.add(a, b), np.subtract(a, 1), np.multiply(a, b),
            np.divide(a, b), np.less(a, b), np.negative(a),
            np.floor_divide(a, 2), np.maximum(a, b))
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


@spirjit.vectorize(["float64(float64, float64)", "float32(float32, float32)"])
def hypot2(x, y):
    return (x * x + y * y) ** 0.5


@spirjit.vectorize
def relu(x):
    return x if x > 0 else 0.0


def test_vectorize_functions_apply_element_by_element(device):
    @dpjit
    def f(a, b):
        return hypot2(a, b) + relu(a - 2.0), hypot2(a, b).sum()

    a = np.arange(5.0)
    b = np.ones(5)
    got, total = f(a, b)
    np.testing.assert_allclose(got, np.hypot(a, b) + np.maximum(a - 2, 0))
    assert total == pytest.approx(np.hypot(a, b).sum())
    # The loop is the one a call from Python takes: NumPy's linear search
    # takes the first signature float32 casts to safely, here float64.
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    assert f(a32, b32)[0].dtype == hypot2(a32, b32).dtype == np.float64


# Complex arrays made in jit code, and the parts of any array (issue 29).
@dpjit
def complex_made(n):
    z = np.zeros(n, np.complex128)
    for i in prange(n):
        z[i] = complex(i, -i)
    return z, np.ones(3, dtype=np.complex64), np.full(2, 1 + 2j)


@dpjit
def parts(z):
    return z.real * 2, z.imag + 1, np.conj(z), (z.real ** 2 + z.imag ** 2).sum()


def test_complex_arrays_and_their_parts(device, require_dtypes):
    require_dtypes(np.complex128)
    z, ones, full = complex_made(4)
    np.testing.assert_array_equal(z, np.arange(4) - 1j * np.arange(4))
    assert ones.dtype == np.complex64 and full.dtype == np.complex128
    np.testing.assert_array_equal(full, [1 + 2j, 1 + 2j])
    z = np.array([1 + 2j, -3 + 0.5j, 2 - 1j])
    for arg in (z, spirjit.asarray(z, device=device)):
        got = parts(arg)
        want = (z.real * 2, z.imag + 1, np.conj(z),
                (z.real ** 2 + z.imag ** 2).sum())
        for g, w in zip(got, want):
            g = g.asnumpy() if hasattr(g, "asnumpy") else g
            np.testing.assert_allclose(g, w)
            assert np.asarray(g).dtype == np.asarray(w).dtype or np.ndim(w) == 0
    r = np.arange(3.0)
    np.testing.assert_array_equal(parts(r)[0], r * 2)
    np.testing.assert_array_equal(parts(r)[1], np.ones(3))



# Sums and products of complex numbers: a.sum(), a.prod(), a.mean() and a
# prange loop's `s += z` / `p *= z`, as numba reduces them (issue 29).
@dpjit
def complex_reductions(z):
    s = 0j
    p = 1 + 0j
    for i in prange(z.shape[0]):
        s += z[i] * 2
        p *= z[i]
    return s, p, z.sum(), z.prod(), z.mean(), (z * z).sum()


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@pytest.mark.parametrize("n", [1, 7, 1000, 100_003])
def test_complex_sums_and_products(device, require_dtypes, dtype, n):
    require_dtypes(dtype)
    rng = np.random.default_rng(n)
    # Products of many factors stay finite near the unit circle.
    angle = rng.random(n) * 2 * np.pi
    z = (np.exp(1j * angle) * (1 + 1e-6 * rng.random(n))).astype(dtype)
    got = complex_reductions(spirjit.asarray(z, device=device))
    want = (2 * z.sum(), z.prod(), z.sum(), z.prod(), z.mean(),
            (z * z).sum())
    tolerance = 1e-4 if dtype == np.complex64 else 1e-9
    for g, w in zip(got, want):
        g = complex(g.asnumpy() if hasattr(g, "asnumpy") else g)
        assert abs(g - complex(w)) <= tolerance * max(1.0, abs(w)) * (
            1 + np.log2(n)), (g, w)