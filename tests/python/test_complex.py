"""Complex numbers inside kernels: complex64 and complex128 arrays, Python
complex and NumPy complex scalar arguments, arithmetic with complex, real and
literal operands, comparisons, abs, .real/.imag/.conjugate(), complex(),
the cmath functions spirjit has, and the typing errors complex numbers give.

Results are compared with NumPy and cmath: complex64 at rtol 1e-5 (and every
complex64 result must be exactly a complex64, which shows the computation
stayed in single precision), complex128 tightly."""

import cmath
import math

import numpy as np
import pytest

import spirjit
from spirjit import errors
from spirjit import kernel_api as kapi

import source_markers

CDTYPES = [np.complex64, np.complex128]
CDTYPE_IDS = ["complex64", "complex128"]
REAL_OF = {np.complex64: np.float32, np.complex128: np.float64}

def marked_line(name):
    """The number of the one line of this file marked ``# <- name``."""
    return source_markers.marked_line(__file__, name)


def launch(kernel, n, *args):
    spirjit.call_kernel(kernel, kapi.Range(n), *args)


def rtol_of(dtype):
    return 1e-5 if dtype == np.complex64 else 1e-13


def assert_complex64_values(values, what):
    values = np.asarray(values, dtype=np.complex128)
    narrowed = values.astype(np.complex64).astype(np.complex128)
    np.testing.assert_array_equal(narrowed, values,
                                  err_msg=f"{what}: not a complex64 result")


def assert_close(actual, expected, dtype, what, atol=None):
    rtol = rtol_of(dtype)
    if atol is None:
        atol = 1e-5 if dtype == np.complex64 else 1e-13
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol,
                               err_msg=what)


Z = np.array([1 + 2j, -3.5 + 0.25j, 0.5 - 4j, -1 - 1j, 2 + 0j, 0 + 3j,
              7.25 - 0.5j, -0.75 + 6j])
W = np.array([0.5 - 1j, 2 + 2j, -1.5 + 0.5j, 3 + 0j, 0 + 1j, -2 - 3j,
              1 + 2j, 0.25 + 0.25j])
X = np.array([0.5, -2.0, 3.25, 1.0, -0.125, 4.0, -7.0, 0.1])
K = np.array([1, -2, 3, 0, 7, -5, 100, 2 ** 20], dtype=np.int32)
PY_COMPLEX = 0.1 + 0.3j                 # a Python complex: complex128
NP_COMPLEX64 = np.complex64(0.5 - 1.25j)
CONSTANT = 1.5 - 0.5j                   # a module-level complex constant


# --------------------------------------------------------------------------
# Arithmetic

@spirjit.kernel
def complex_arithmetic(item: kapi.Item, z, w, x, k, out, s, s64):
    i = item.get_id(0)
    a = z[i]
    b = w[i]
    r = x[i]
    out[i, 0] = a + b
    out[i, 1] = a - b
    out[i, 2] = a * b
    out[i, 3] = a / b
    out[i, 4] = a ** b
    out[i, 5] = a + r              # complex and real arrays
    out[i, 6] = a * r
    out[i, 7] = r / a
    out[i, 8] = a - 2.5            # Python literals are weak
    out[i, 9] = 3 * a
    out[i, 10] = a / 2
    out[i, 11] = a * 1j
    out[i, 12] = (1 + 2j) - a
    out[i, 13] = a ** 2
    out[i, 14] = a ** 0.5
    out[i, 15] = -a
    out[i, 16] = +a
    out[i, 17] = a + s64           # np.complex64 scalar argument
    out[i, 18] = r * 1j + 0.1      # a real times a complex literal
    out[i, 19] = a ** -1
    out[i, 20] = a * CONSTANT
    out[i, 21] = a * s             # Python complex argument: complex128
    out[i, 22] = k[i] * (1 + 1j)   # int32 and a complex: complex128
    v = a
    v += b
    v *= 2
    v -= 1j
    v /= b
    out[i, 23] = v


def arithmetic_reference(z, w, x, k):
    """In NumPy with z's dtype (and NEP 50 weak literals)."""
    with np.errstate(all="ignore"):
        columns = [z + w, z - w, z * w, z / w, z ** w, z + x, z * x, x / z,
                   z - 2.5, 3 * z, z / 2, z * 1j, (1 + 2j) - z, z ** 2,
                   z ** 0.5, -z, +z, z + NP_COMPLEX64, x * 1j + 0.1,
                   z ** -1, z * CONSTANT,
                   z.astype(np.complex128) * PY_COMPLEX,
                   k * (1 + 1j)]
        v = z + w
        v *= 2
        v -= 1j
        v /= w
        columns.append(v)
    for column in columns[:21]:
        assert column.dtype == z.dtype
    assert columns[21].dtype == columns[22].dtype == np.complex128
    return columns


# columns whose result has the array's complex dtype (the others are
# complex128 whatever the arrays are)
SAME_DTYPE_COLUMNS = list(range(21)) + [23]


@pytest.mark.parametrize("dtype", CDTYPES, ids=CDTYPE_IDS)
def test_arithmetic(device_filter, require_dtypes, dtype):
    require_dtypes(np.complex128)
    z = Z.astype(dtype)
    w_full = np.repeat(W, 2).astype(dtype)
    w = w_full[::2]                     # a strided view
    x = X.astype(REAL_OF[dtype])
    n = len(z)
    out = np.zeros((n, 24), dtype=np.complex128)
    launch(complex_arithmetic, n, z, w, x, K, out, PY_COMPLEX, NP_COMPLEX64)
    expected = arithmetic_reference(z, w, x, K)
    for column, e in enumerate(expected):
        assert_close(out[:, column], e.astype(np.complex128), dtype,
                     f"column {column}")
        if dtype == np.complex64 and column in SAME_DTYPE_COLUMNS:
            assert_complex64_values(out[:, column], f"column {column}")
    # exact operations are exact
    for column in (0, 1, 5, 6, 8, 9, 11, 12, 15, 16, 17, 22):
        np.testing.assert_array_equal(out[:, column],
                                      expected[column].astype(np.complex128),
                                      err_msg=f"column {column}")
    # the Python complex argument computes in complex128
    np.testing.assert_allclose(out[:, 21], expected[21], rtol=1e-15)
    if dtype == np.complex64:
        assert not np.array_equal(out[:, 21], (z * np.complex64(PY_COMPLEX))
                                  .astype(np.complex128))


# --------------------------------------------------------------------------
# Comparisons, abs, parts, conjugate, complex()

@spirjit.kernel
def complex_parts(item: kapi.Item, z, w, x, out, rout):
    i = item.get_id(0)
    a = z[i]
    b = w[i]
    r = x[i]
    rout[i, 0] = abs(a)
    rout[i, 1] = a.real
    rout[i, 2] = a.imag
    rout[i, 3] = a == b
    rout[i, 4] = a != b
    rout[i, 5] = a == a
    rout[i, 6] = a == 2                 # a literal int
    rout[i, 7] = a != 3j                # a literal complex
    rout[i, 8] = a.real * a.imag - abs(b)
    rout[i, 9] = r.real + r.imag        # a real has parts too
    rout[i, 10] = 1 if a == r else 0    # complex == real
    rout[i, 11] = (a * 2).imag
    out[i, 0] = a.conjugate()
    out[i, 1] = complex(a.real * 2, a.imag - 1)
    out[i, 2] = complex(r)
    out[i, 3] = complex(r, 2)
    out[i, 4] = complex(3, -1) * a
    out[i, 5] = a.conjugate() * a
    out[i, 6] = b.conjugate().conjugate()
    if abs(a) > abs(b):                 # if/else storing complex values
        out[i, 7] = a
    else:
        out[i, 7] = b


@pytest.mark.parametrize("dtype", CDTYPES, ids=CDTYPE_IDS)
def test_parts_and_comparisons(device_filter, require_dtypes, dtype):
    require_dtypes(np.complex128)
    z = Z.astype(dtype)
    w = W.astype(dtype)
    w[1] = z[1]                         # one equal pair
    x = X.astype(REAL_OF[dtype])
    x[4] = 2.0                          # z[4] == 2 + 0j == x[4]
    n = len(z)
    out = np.zeros((n, 8), dtype=np.complex128)
    rout = np.zeros((n, 12), dtype=np.float64)
    launch(complex_parts, n, z, w, x, out, rout)
    real = REAL_OF[dtype]
    expected_r = np.stack([
        np.abs(z), z.real, z.imag, z == w, z != w, z == z, z == 2, z != 3j,
        z.real * z.imag - np.abs(w), x.real + x.imag, z == x,
        (z * 2).imag], axis=1).astype(np.float64)
    assert np.abs(z).dtype == real
    for column in range(12):
        if column in (0, 8):
            np.testing.assert_allclose(rout[:, column], expected_r[:, column],
                                       rtol=rtol_of(dtype),
                                       err_msg=f"column {column}")
        else:
            np.testing.assert_array_equal(rout[:, column],
                                          expected_r[:, column],
                                          err_msg=f"column {column}")
    assert rout[:, 3].tolist() == [0, 1, 0, 0, 0, 0, 0, 0]
    assert rout[:, 6].tolist() == [0, 0, 0, 0, 1, 0, 0, 0]
    assert rout[:, 10].tolist() == [0, 0, 0, 0, 1, 0, 0, 0]
    if dtype == np.complex64:
        assert_complex64_values(rout[:, 0], "abs")
    expected = np.stack([
        z.conjugate(), np.array([complex(v.real * 2, v.imag - 1)
                                 for v in z.tolist()]),
        x.astype(np.complex128), x + 2j,
        complex(3, -1) * z.astype(np.complex128), z.conjugate() * z, w,
        np.where(np.abs(z) > np.abs(w), z, w)], axis=1)
    for column in range(8):
        np.testing.assert_array_equal(out[:, column],
                                      expected[:, column]
                                      .astype(np.complex128),
                                      err_msg=f"column {column}")


# --------------------------------------------------------------------------
# cmath

@spirjit.kernel
def cmath_functions(item: kapi.Item, z, x, out, rout):
    i = item.get_id(0)
    a = z[i]
    r = x[i]
    out[i, 0] = cmath.sqrt(a)
    out[i, 1] = cmath.exp(a)
    out[i, 2] = cmath.log(a)
    out[i, 3] = cmath.rect(abs(r), r)
    out[i, 4] = cmath.sqrt(r - 2)       # a real gives a complex
    out[i, 5] = cmath.log(r - 10)
    out[i, 6] = cmath.exp(cmath.log(a))
    out[i, 7] = cmath.sqrt(a) * cmath.sqrt(a)
    rout[i, 0] = cmath.phase(a)
    rout[i, 1] = cmath.phase(r)
    rout[i, 2] = abs(cmath.rect(2, r))


@pytest.mark.parametrize("dtype", CDTYPES, ids=CDTYPE_IDS)
def test_cmath(device_filter, require_dtypes, dtype):
    require_dtypes(np.complex128)
    z = Z.astype(dtype)
    x = X.astype(REAL_OF[dtype])
    n = len(z)
    out = np.zeros((n, 8), dtype=np.complex128)
    rout = np.zeros((n, 3), dtype=np.float64)
    launch(cmath_functions, n, z, x, out, rout)
    zs = z.astype(np.complex128).tolist()
    xs = x.astype(np.float64).tolist()
    expected = np.array([[cmath.sqrt(a), cmath.exp(a), cmath.log(a),
                          cmath.rect(abs(r), r), cmath.sqrt(r - 2),
                          cmath.log(r - 10), a, a]
                         for a, r in zip(zs, xs)])
    for column in range(8):
        assert_close(out[:, column], expected[:, column], dtype,
                     f"column {column}")
        if dtype == np.complex64:
            assert_complex64_values(out[:, column], f"column {column}")
    expected_r = np.array([[cmath.phase(a), cmath.phase(r),
                            abs(cmath.rect(2, r))] for a, r in zip(zs, xs)])
    np.testing.assert_allclose(rout, expected_r, rtol=rtol_of(dtype),
                               atol=1e-6 if dtype == np.complex64 else 1e-15)
    # branch cut: the square root of a negative real is +i times a root
    assert out[0, 4].real == 0 and out[0, 4].imag > 0
    assert out[0, 5].imag == math.pi or dtype == np.complex64


@spirjit.kernel
def cmath_predicates(item: kapi.Item, z, out):
    i = item.get_id(0)
    a = z[i]
    out[i, 0] = cmath.isnan(a)
    out[i, 1] = cmath.isinf(a)
    out[i, 2] = cmath.isfinite(a)
    out[i, 3] = cmath.isnan(a.real)
    out[i, 4] = a == a


@pytest.mark.parametrize("dtype", CDTYPES, ids=CDTYPE_IDS)
def test_cmath_predicates(device_filter, require_dtypes, dtype):
    require_dtypes(dtype)
    nan, inf = float("nan"), float("inf")
    values = [complex(0, 0), complex(1.5, -2), complex(nan, 0),
              complex(0, nan), complex(inf, 0), complex(1, -inf),
              complex(nan, inf), complex(-inf, nan), complex(inf, inf)]
    z = np.array(values, dtype=dtype)
    out = np.zeros((len(z), 5), dtype=np.int32)
    launch(cmath_predicates, len(z), z, out)
    expected = [[cmath.isnan(v), cmath.isinf(v), cmath.isfinite(v),
                 math.isnan(v.real), v == v] for v in values]
    np.testing.assert_array_equal(out, np.array(expected, dtype=np.int32))


# --------------------------------------------------------------------------
# Scalar arguments and results stored into complex arrays

def test_complex_scalar_arguments(device_filter, require_dtypes):
    require_dtypes(np.complex128)

    @spirjit.kernel
    def scalars(item, out64, out128, s, s64, s128, f):
        i = item.get_id(0)
        out64[i, 0] = s64 * i            # complex64 stays complex64
        out64[i, 1] = s64 + f            # np.float32: complex64
        out64[i, 2] = s * i              # a Python complex: complex128,
        out128[i, 0] = s * i             # narrowed when stored
        out128[i, 1] = s128 / (i + 1)
        out128[i, 2] = s64 * s           # complex64 and complex128
        out128[i, 3] = s64 ** 2

    n = 5
    out64 = np.zeros((n, 3), dtype=np.complex64)
    out128 = np.zeros((n, 4), dtype=np.complex128)
    s, s64 = 1.1 - 2.2j, np.complex64(0.3 + 0.7j)
    s128 = np.complex128(-4.5 + 1e-9j)
    f = np.float32(0.1)
    launch(scalars, n, out64, out128, s, s64, s128, f)
    idx = np.arange(n)
    np.testing.assert_array_equal(out64[:, 0], s64 * idx.astype(np.float32))
    np.testing.assert_array_equal(out64[:, 1], np.full(n, s64 + f))
    np.testing.assert_array_equal(out64[:, 2],
                                  (s * idx).astype(np.complex64))
    np.testing.assert_array_equal(out128[:, 0], s * idx)
    np.testing.assert_allclose(out128[:, 1], s128 / (idx + 1), rtol=1e-15)
    np.testing.assert_allclose(out128[:, 2],
                               np.complex128(s64) * s, rtol=1e-15)
    np.testing.assert_allclose(out128[:, 3], s64 ** 2, rtol=1e-6)


def test_real_values_stored_into_complex_arrays(device_filter,
                                                require_dtypes):
    require_dtypes(np.complex128)

    @spirjit.kernel
    def widen(item, x, k, out):
        i = item.get_id(0)
        out[i, 0] = x[i]
        out[i, 1] = k[i]
        out[i, 2] = 2.5
        out[i, 3] = x[i] > 0

    x = np.array([0.5, -1.25, 3.0])
    k = np.array([7, -8, 0], dtype=np.int16)
    out = np.zeros((3, 4), dtype=np.complex64)
    launch(widen, 3, x, k, out)
    expected = np.stack([x, k, np.full(3, 2.5), x > 0], axis=1)
    np.testing.assert_array_equal(out, expected.astype(np.complex64))


# --------------------------------------------------------------------------
# What complex numbers cannot do

def orders(item, z, w, out):
    i = item.get_id(0)
    out[i] = z[i] < w[i]  # <- ordering


def orders_literal(item, z, w, out):
    i = item.get_id(0)
    out[i] = z[i] >= 1j  # <- ordering-literal


def floor_divides(item, z, w, out):
    i = item.get_id(0)
    out[i] = z[i] // w[i]  # <- floor-division


def modulo(item, z, w, out):
    i = item.get_id(0)
    out[i] = z[i] % w[i]  # <- modulo


def stores_into_float(item, z, w, out):
    i = item.get_id(0)
    out[i] = z[i] * 2  # <- store-into-float


def stores_literal_into_float(item, z, w, out):
    i = item.get_id(0)
    out[i] = 1j  # <- literal-into-float


@pytest.mark.parametrize("function, marker, words", [
    (orders, "ordering", ["complex", "<"]),
    (orders_literal, "ordering-literal", ["complex", ">="]),
    (floor_divides, "floor-division", ["//", "complex"]),
    (modulo, "modulo", ["%", "complex"]),
    (stores_into_float, "store-into-float", ["complex", "float32"]),
    (stores_literal_into_float, "literal-into-float", ["complex"]),
], ids=lambda v: v if isinstance(v, str) else None)
def test_complex_typing_errors(device_filter, function, marker, words):
    z = np.ones(4, dtype=np.complex64)
    w = np.ones(4, dtype=np.complex64)
    out = np.zeros(4, dtype=np.float32)
    with pytest.raises(errors.TypingError) as info:
        launch(spirjit.kernel(function), 4, z, w, out)
    message = str(info.value)
    for word in words:
        assert word in message, (word, message)
    line = marked_line(marker)
    assert info.value.lineno == line
    assert f"{__file__}:{line}" in message
    assert isinstance(info.value, TypeError)


def test_math_of_complex_points_to_cmath(device_filter):
    def uses_math_sqrt(item, z, out):
        i = item.get_id(0)
        out[i] = math.sqrt(z[i])  # <- math-of-complex

    z = np.ones(4, dtype=np.complex128)
    out = np.zeros(4, dtype=np.complex128)
    with pytest.raises(errors.CompileError) as info:
        launch(spirjit.kernel(uses_math_sqrt), 4, z, out)
    assert "cmath" in str(info.value)
    assert info.value.lineno == marked_line("math-of-complex")


@pytest.mark.parametrize("dtype", CDTYPES, ids=CDTYPE_IDS)
def test_numpy_conjugate_of_a_complex_number(device_filter, require_dtypes,
                                              dtype):
    def conjugates(item, z, out):
        i = item.get_id(0)
        out[i, 0] = np.conjugate(z[i])
        out[i, 1] = np.conj(z[i]) * z[i]

    require_dtypes(np.complex128)
    z = Z.astype(dtype)
    out = np.zeros((len(z), 2), dtype=dtype)
    launch(spirjit.kernel(conjugates), len(z), z, out)
    np.testing.assert_array_equal(out[:, 0], np.conjugate(z))
    np.testing.assert_allclose(out[:, 1], np.conj(z) * z,
                               rtol=rtol_of(dtype))


def complex_tree_sum(item: kapi.NdItem, x, out, re, im):
    # A complex accumulator around a loop, then a tree over local memory
    # behind barriers: Intel's CPU runtime crashed in its code generator on
    # the struct phi this made, before the phis were split per field.
    lid = item.get_local_id(0)
    g = item.get_group()
    acc = x[0] * 0
    k = lid
    while k < x.shape[0]:
        acc += x[k]
        k += item.get_local_range(0)
    re[lid] = acc.real
    im[lid] = acc.imag
    kapi.group_barrier(g)
    s = item.get_local_range(0) // 2
    while s > 0:
        if lid < s:
            re[lid] += re[lid + s]
            im[lid] += im[lid + s]
        kapi.group_barrier(g)
        s //= 2
    if lid == 0:
        out[0] = complex(re[0], im[0])


@pytest.mark.parametrize("dtype", CDTYPES, ids=CDTYPE_IDS)
def test_complex_accumulator_before_a_barrier_loop(device_filter,
                                                   require_dtypes, dtype):
    require_dtypes(np.complex128)
    x = (np.arange(100) + 1j * np.arange(100)[::-1]).astype(dtype)
    out = np.zeros(1, dtype=dtype)
    real = REAL_OF[dtype]
    spirjit.call_kernel(spirjit.kernel(complex_tree_sum),
                        kapi.NdRange((8,), (8,)), x, out,
                        kapi.LocalAccessor((8,), real),
                        kapi.LocalAccessor((8,), real))
    np.testing.assert_allclose(out, [x.sum()], rtol=rtol_of(dtype))


# --------------------------------------------------------------------------
# Known bugs

@pytest.mark.parametrize("form", ["conditional-expression", "if-else"])
def test_selecting_a_complex_value(device_filter, require_dtypes, form):
    require_dtypes(np.complex128)

    def conditional(item, z, w, out):
        i = item.get_id(0)
        a = z[i]
        b = w[i]
        out[i] = a if abs(a) > abs(b) else b

    def if_else(item, z, w, out):
        i = item.get_id(0)
        a = z[i]
        b = w[i]
        if i > 1:
            v = a
        else:
            v = b
        out[i] = v

    z = Z.astype(np.complex128)
    w = W.astype(np.complex128)
    out = np.zeros(len(z), dtype=np.complex128)
    if form == "if-else":
        launch(spirjit.kernel(if_else), len(z), z, w, out)
        expected = np.where(np.arange(len(z)) > 1, z, w)
    else:
        launch(spirjit.kernel(conditional), len(z), z, w, out)
        expected = np.where(np.abs(z) > np.abs(w), z, w)
    np.testing.assert_array_equal(out, expected)


def test_complex_of_a_complex(device_filter, require_dtypes):
    require_dtypes(np.complex128)

    @spirjit.kernel
    def complex_of_complex(item, z, out):
        i = item.get_id(0)
        out[i, 0] = complex(z[i])
        out[i, 1] = complex(z[i], 1)

    z = Z.astype(np.complex128)
    out = np.zeros((len(z), 2), dtype=np.complex128)
    launch(complex_of_complex, len(z), z, out)
    np.testing.assert_array_equal(out[:, 0], z)
    np.testing.assert_array_equal(out[:, 1],
                                  [complex(v, 1) for v in z.tolist()])


def test_min_of_complex_is_a_typing_error(device_filter):
    def complex_min(item, z, w, out):
        i = item.get_id(0)
        out[i] = min(z[i], w[i])  # <- complex-min

    z = np.ones(4, dtype=np.complex64)
    out = np.zeros(4, dtype=np.complex64)
    with pytest.raises(errors.TypingError) as info:
        launch(spirjit.kernel(complex_min), 4, z, z, out)
    assert info.value.lineno == marked_line("complex-min")


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128],
                         ids=["complex64", "complex128"])
def test_inverse_trigonometric_and_hyperbolic_functions_as_numpy(
        device, dtype, require_dtypes):
    # asin acos atan asinh acosh atanh of complex numbers in kernels (the
    # logarithm forms, the Taylor series near 0, log(2z) far away), across
    # magnitudes and on both sides of the branch cuts (signed zeros).
    require_dtypes(dtype)
    rng = np.random.default_rng(4)
    scales = (1e-10, 1e-3, 0.05, 0.5, 1, 3, 1e3, 1e20) + \
        ((1e200,) if dtype == np.complex128 else ())
    values = np.concatenate(
        [(rng.standard_normal(40) + 1j * rng.standard_normal(40)) * s
         for s in scales] +
        [np.array([0j, 2 + 0j, complex(2, -0.0), -2 + 0j, complex(-2, -0.0),
                   2j, -2j, complex(-0.0, 2), 0.5 + 0j, complex(0, -0.0)])])
    values = values.astype(dtype)
    x = spirjit.asarray(values, device=device)
    tolerance = 1e-13 if dtype == np.complex128 else 3e-6
    for name, reference in (("asin", np.arcsin), ("acos", np.arccos),
                            ("atan", np.arctan), ("asinh", np.arcsinh),
                            ("acosh", np.arccosh), ("atanh", np.arctanh)):
        got = getattr(spirjit, name)(x).asnumpy()
        assert got.dtype == dtype
        want = reference(values)
        np.testing.assert_allclose(got, want, rtol=tolerance, atol=0,
                                   err_msg=name)
