"""Math inside kernels: every function of compiler/MathFunctions.def through
``math.`` and ``numpy.`` as listed there, on float32 and float64 inputs in
their valid domains, against Python's math and NumPy; the Python/NumPy type
rules (math.floor is an int, numpy.floor a float); predicates on nan and inf;
log with a base, ldexp, round; the builtins abs/min/max/int/float/bool and
NumPy dtype constructors.

float32 results are compared with float64 references at rtol 1e-5, float64
results tightly. Outputs are float64 arrays, so that a float32 result shows
itself: every value is exactly a float32."""

import math
import pathlib
import re

import numpy as np
import pytest

import spirjit
from spirjit import kernel_api as kapi

import test_numpy_functions_more as more

DTYPES = [np.float32, np.float64]
DTYPE_IDS = ["float32", "float64"]


def launch(kernel, n, *args):
    spirjit.call_kernel(kernel, kapi.Range(n), *args)


def tolerances(dtype):
    """(rtol, atol) of a device result against a float64 reference."""
    if dtype == np.float32:
        return 1e-5, 1e-6
    return 1e-13, 1e-15


def assert_float32_values(values, what):
    """Every value is a float32: the result was computed in float32."""
    values = np.asarray(values, dtype=np.float64)
    finite = np.isfinite(values)
    narrowed = values[finite].astype(np.float32).astype(np.float64)
    np.testing.assert_array_equal(narrowed, values[finite],
                                  err_msg=f"{what}: not a float32 result")


ROWS = 12
_rng = np.random.default_rng(1234)


def domain(lo, hi, *extra):
    """ROWS inputs: ``extra`` values first, then uniform ones in [lo, hi]."""
    values = list(extra) + list(_rng.uniform(lo, hi, ROWS - len(extra)))
    return np.array(values[:ROWS], dtype=np.float64)


# Inputs for each function (NumPy aliases map to the math name).
DOMAINS = {
    "sqrt": domain(0, 100, 0.0, 1.0, 2.0, 1e-6),
    "exp": domain(-20, 20, 0.0, 1.0, -1.0),
    "expm1": domain(-2, 2, 1e-5, -1e-5, 0.0),
    "exp2": domain(-20, 20, 0.0, 3.0, -1.0, 0.5),
    "log": domain(1e-3, 1e3, 1.0, 2.0, 0.5, 1e-3),
    "log1p": domain(-0.9, 10, 1e-5, 0.0, -0.5),
    "log2": domain(1e-3, 1e3, 1.0, 8.0, 0.25, 3.0),
    "log10": domain(1e-3, 1e3, 1.0, 100.0, 0.001, 7.0),
    "sin": domain(-3, 3, 0.0, 0.5, -1.0),
    "cos": domain(-3, 3, 0.0, 0.5, -1.0),
    "tan": domain(-1.5, 1.5, 0.0, 0.5, -1.0),
    "sinh": domain(-5, 5, 0.0, 1e-4, -2.0),
    "cosh": domain(-5, 5, 0.0, 1.0, -2.0),
    "tanh": domain(-5, 5, 0.0, 1e-4, -0.5),
    "asin": domain(-1, 1, 0.0, 1.0, -1.0, 0.5),
    "acos": domain(-1, 1, 0.0, 1.0, -1.0, 0.5),
    "atan": domain(-10, 10, 0.0, 1.0, -1e3),
    "asinh": domain(-10, 10, 0.0, 1.0, -1e3),
    "acosh": domain(1.01, 10, 1.5, 2.0, 1e3),
    "atanh": domain(-0.99, 0.99, 0.0, 0.5, -0.5),
    "cbrt": domain(-100, 100, 0.0, 27.0, -8.0, 2.0),
    "erf": domain(-3, 3, 0.0, 0.5, -1.0),
    "erfc": domain(-2, 3, 0.0, 0.5, 2.0),
    "gamma": domain(0.1, 10, 1.0, 5.0, 0.5, -2.5, -0.5),
    "lgamma": domain(3, 20, 0.1, 0.5, 0.9, -2.5),
    "fabs": domain(-10, 10, 0.0, -0.0, -3.5),
    "rint": domain(-10, 10, 0.5, 1.5, 2.5, -0.5, -2.5, 3.7),
    "radians": domain(-360, 360, 0.0, 180.0, 90.0),
    "degrees": domain(-7, 7, 0.0, math.pi, -math.pi / 2),
    "square": domain(-100, 100, 0.0, -3.0, 1e-3),
    "floor": domain(-10, 10, 0.5, -0.5, 2.0, -2.0, -2.5),
    "ceil": domain(-10, 10, 0.5, -0.5, 2.0, -2.0, -2.5),
    "trunc": domain(-10, 10, 0.5, -0.5, 2.0, -2.0, -2.5),
}

NUMPY_ALIASES = {"arcsin": "asin", "arccos": "acos", "arctan": "atan",
                 "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh",
                 "deg2rad": "radians", "rad2deg": "degrees",
                 "arctan2": "atan2", "power": "pow"}


# --------------------------------------------------------------------------
# One-argument functions, math.*: column c applies MATH_UNARY[c] to x[:, c]

MATH_UNARY = ["sqrt", "exp", "expm1", "exp2", "log", "log1p", "log2",
              "log10", "sin", "cos", "tan", "sinh", "cosh", "tanh", "asin",
              "acos", "atan", "asinh", "acosh", "atanh", "cbrt", "erf",
              "erfc", "gamma", "lgamma", "fabs", "radians", "degrees"]


@spirjit.kernel
def math_unary(item: kapi.Item, x, out):
    i = item.get_id(0)
    out[i, 0] = math.sqrt(x[i, 0])
    out[i, 1] = math.exp(x[i, 1])
    out[i, 2] = math.expm1(x[i, 2])
    out[i, 3] = math.exp2(x[i, 3])
    out[i, 4] = math.log(x[i, 4])
    out[i, 5] = math.log1p(x[i, 5])
    out[i, 6] = math.log2(x[i, 6])
    out[i, 7] = math.log10(x[i, 7])
    out[i, 8] = math.sin(x[i, 8])
    out[i, 9] = math.cos(x[i, 9])
    out[i, 10] = math.tan(x[i, 10])
    out[i, 11] = math.sinh(x[i, 11])
    out[i, 12] = math.cosh(x[i, 12])
    out[i, 13] = math.tanh(x[i, 13])
    out[i, 14] = math.asin(x[i, 14])
    out[i, 15] = math.acos(x[i, 15])
    out[i, 16] = math.atan(x[i, 16])
    out[i, 17] = math.asinh(x[i, 17])
    out[i, 18] = math.acosh(x[i, 18])
    out[i, 19] = math.atanh(x[i, 19])
    out[i, 20] = math.cbrt(x[i, 20])
    out[i, 21] = math.erf(x[i, 21])
    out[i, 22] = math.erfc(x[i, 22])
    out[i, 23] = math.gamma(x[i, 23])
    out[i, 24] = math.lgamma(x[i, 24])
    out[i, 25] = math.fabs(x[i, 25])
    out[i, 26] = math.radians(x[i, 26])
    out[i, 27] = math.degrees(x[i, 27])


NUMPY_UNARY = ["sqrt", "exp", "expm1", "exp2", "log", "log1p", "log2",
               "log10", "sin", "cos", "tan", "sinh", "cosh", "tanh",
               "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh",
               "cbrt", "fabs", "rint", "radians", "degrees", "deg2rad",
               "rad2deg", "square", "floor", "ceil", "trunc"]


@spirjit.kernel
def numpy_unary(item: kapi.Item, x, out):
    i = item.get_id(0)
    out[i, 0] = np.sqrt(x[i, 0])
    out[i, 1] = np.exp(x[i, 1])
    out[i, 2] = np.expm1(x[i, 2])
    out[i, 3] = np.exp2(x[i, 3])
    out[i, 4] = np.log(x[i, 4])
    out[i, 5] = np.log1p(x[i, 5])
    out[i, 6] = np.log2(x[i, 6])
    out[i, 7] = np.log10(x[i, 7])
    out[i, 8] = np.sin(x[i, 8])
    out[i, 9] = np.cos(x[i, 9])
    out[i, 10] = np.tan(x[i, 10])
    out[i, 11] = np.sinh(x[i, 11])
    out[i, 12] = np.cosh(x[i, 12])
    out[i, 13] = np.tanh(x[i, 13])
    out[i, 14] = np.arcsin(x[i, 14])
    out[i, 15] = np.arccos(x[i, 15])
    out[i, 16] = np.arctan(x[i, 16])
    out[i, 17] = np.arcsinh(x[i, 17])
    out[i, 18] = np.arccosh(x[i, 18])
    out[i, 19] = np.arctanh(x[i, 19])
    out[i, 20] = np.cbrt(x[i, 20])
    out[i, 21] = np.fabs(x[i, 21])
    out[i, 22] = np.rint(x[i, 22])
    out[i, 23] = np.radians(x[i, 23])
    out[i, 24] = np.degrees(x[i, 24])
    out[i, 25] = np.deg2rad(x[i, 25])
    out[i, 26] = np.rad2deg(x[i, 26])
    out[i, 27] = np.square(x[i, 27])
    out[i, 28] = np.floor(x[i, 28])
    out[i, 29] = np.ceil(x[i, 29])
    out[i, 30] = np.trunc(x[i, 30])


def unary_inputs(names, dtype):
    return np.stack([DOMAINS[NUMPY_ALIASES.get(n, n)] for n in names],
                    axis=1).astype(dtype)


def check_columns(out, reference, names, dtype, module):
    rtol, atol = tolerances(dtype)
    for column, name in enumerate(names):
        np.testing.assert_allclose(
            out[:, column], reference[:, column], rtol=rtol, atol=atol,
            err_msg=f"{module}.{name} on {np.dtype(dtype).name}")
        if dtype == np.float32:
            assert_float32_values(out[:, column], f"{module}.{name}")


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_math_unary(device_filter, require_dtypes, dtype):
    require_dtypes(np.float64)
    x = unary_inputs(MATH_UNARY, dtype)
    out = np.zeros(x.shape)
    launch(math_unary, len(x), x, out)
    wide = x.astype(np.float64)
    reference = np.array([[getattr(math, name)(v) for name, v in
                           zip(MATH_UNARY, row)] for row in wide.tolist()])
    check_columns(out, reference, MATH_UNARY, dtype, "math")


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_numpy_unary(device_filter, require_dtypes, dtype):
    require_dtypes(np.float64)
    x = unary_inputs(NUMPY_UNARY, dtype)
    out = np.zeros(x.shape)
    launch(numpy_unary, len(x), x, out)
    wide = x.astype(np.float64)
    reference = np.stack([getattr(np, name)(wide[:, column])
                          for column, name in enumerate(NUMPY_UNARY)],
                         axis=1)
    check_columns(out, reference, NUMPY_UNARY, dtype, "numpy")
    # rint, floor, ceil, trunc, fabs are exact, in either precision
    for name in ("fabs", "rint", "floor", "ceil", "trunc"):
        column = NUMPY_UNARY.index(name)
        np.testing.assert_array_equal(
            out[:, column], getattr(np, name)(x[:, column]), err_msg=name)
    # numpy.rint rounds half to even
    column = NUMPY_UNARY.index("rint")
    assert out[:4, column].tolist() == [0.0, 2.0, 2.0, -0.0]


# --------------------------------------------------------------------------
# Two-argument functions

MATH_BINARY = ["atan2", "hypot", "copysign", "fmod", "pow"]
NUMPY_BINARY = ["arctan2", "hypot", "copysign", "fmod", "power"]

BINARY_DOMAINS = {
    # (first arguments, second arguments)
    "atan2": (domain(-5, 5, 0.0, 1.0, -1.0, 1.0, -0.0),
              domain(-5, 5, 1.0, 0.0, -1.0, -1.0, -1.0)),
    "hypot": (domain(-50, 50, 3.0, 0.0, -5.0), domain(-50, 50, 4.0, 0.0, 12.0)),
    "copysign": (domain(-9, 9, 1.0, 2.5, -3.0, 0.0),
                 domain(-9, 9, -0.0, -1.0, 2.0, -5.0)),
    "fmod": (domain(-20, 20, 7.5, -7.5, 7.5, 6.0),
             domain(0.5, 6, 2.0, 2.0, -2.0, 3.0)),
    "pow": (np.concatenate([domain(0.01, 10, 2.0, 2.0, 9.0),
                            [-2.0, -3.0, -0.5]])[-ROWS:],
            np.concatenate([domain(-4, 4, 10.0, -1.0, 0.5),
                            [3.0, 2.0, -3.0]])[-ROWS:]),
}


@spirjit.kernel
def binary_funcs(item: kapi.Item, x, y, n, out):
    i = item.get_id(0)
    out[i, 0] = math.atan2(x[i, 0], y[i, 0])
    out[i, 1] = math.hypot(x[i, 1], y[i, 1])
    out[i, 2] = math.copysign(x[i, 2], y[i, 2])
    out[i, 3] = math.fmod(x[i, 3], y[i, 3])
    out[i, 4] = math.pow(x[i, 4], y[i, 4])
    out[i, 5] = np.arctan2(x[i, 0], y[i, 0])
    out[i, 6] = np.hypot(x[i, 1], y[i, 1])
    out[i, 7] = np.copysign(x[i, 2], y[i, 2])
    out[i, 8] = np.fmod(x[i, 3], y[i, 3])
    out[i, 9] = np.power(x[i, 4], y[i, 4])
    out[i, 10] = math.ldexp(x[i, 5], n[i])
    out[i, 11] = np.ldexp(x[i, 5], n[i])
    # log with a base (math.log only)
    out[i, 12] = math.log(abs(x[i, 1]) + 1, abs(y[i, 1]) + 2)
    out[i, 13] = math.log(abs(x[i, 1]) + 1, 2)
    out[i, 14] = math.log(abs(x[i, 1]) + 1, 10.0)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_binary_functions(device_filter, require_dtypes, dtype):
    require_dtypes(np.float64)
    x = np.stack([BINARY_DOMAINS[name][0] for name in MATH_BINARY] +
                 [domain(-100, 100, 1.0, -0.75, 0.0, 3.0)], axis=1
                 ).astype(dtype)
    y = np.stack([BINARY_DOMAINS[name][1] for name in MATH_BINARY], axis=1
                 ).astype(dtype)
    n = np.array([0, 1, -1, 10, -10, 3, -3, 20, 5, -20, 2, 7],
                 dtype=np.int32)
    out = np.zeros((ROWS, 15))
    launch(binary_funcs, ROWS, x, y, n, out)
    wx, wy = x.astype(np.float64), y.astype(np.float64)
    columns = [[getattr(math, name)(a, b) for a, b in
                zip(wx[:, c].tolist(), wy[:, c].tolist())]
               for c, name in enumerate(MATH_BINARY)]
    columns += [getattr(np, name)(wx[:, c], wy[:, c])
                for c, name in enumerate(NUMPY_BINARY)]
    columns += [[math.ldexp(a, int(k)) for a, k in zip(wx[:, 5], n)],
                np.ldexp(wx[:, 5], n)]
    columns += [[math.log(abs(a) + 1, abs(b) + 2) for a, b in
                 zip(wx[:, 1].tolist(), wy[:, 1].tolist())],
                [math.log(abs(a) + 1, 2) for a in wx[:, 1].tolist()],
                [math.log(abs(a) + 1, 10.0) for a in wx[:, 1].tolist()]]
    reference = np.array(columns, dtype=np.float64).T
    names = MATH_BINARY + NUMPY_BINARY + ["math.ldexp", "np.ldexp",
                                          "log(x, b)", "log(x, 2)",
                                          "log(x, 10.0)"]
    rtol, atol = tolerances(dtype)
    for column, name in enumerate(names):
        np.testing.assert_allclose(out[:, column], reference[:, column],
                                   rtol=rtol, atol=atol, err_msg=name)
        if dtype == np.float32 and column < 12:
            assert_float32_values(out[:, column], name)
    # copysign, fmod and ldexp are exact
    for column in (2, 3, 7, 8, 10, 11):
        np.testing.assert_array_equal(out[:, column], reference[:, column],
                                      err_msg=names[column])
    assert np.signbit(out[0, 2]) and np.signbit(out[0, 7])  # copysign(1, -0)


# --------------------------------------------------------------------------
# Predicates

@spirjit.kernel
def predicates(item: kapi.Item, x, k, out):
    i = item.get_id(0)
    v = x[i]
    out[i, 0] = math.isnan(v)
    out[i, 1] = math.isinf(v)
    out[i, 2] = math.isfinite(v)
    out[i, 3] = np.isnan(v)
    out[i, 4] = np.isinf(v)
    out[i, 5] = np.isfinite(v)
    # integers are never nan or inf
    out[i, 6] = math.isnan(k[i])
    out[i, 7] = np.isinf(k[i])
    out[i, 8] = math.isfinite(k[i])
    # the result is a bool: it works as a condition and in `not`
    out[i, 9] = 5 if math.isnan(v) or np.isinf(v) else 3
    out[i, 10] = not math.isfinite(v)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_predicates_on_nan_and_inf(device_filter, require_dtypes, dtype):
    require_dtypes(dtype)
    info = np.finfo(dtype)
    x = np.array([0.0, -0.0, 1.5, np.nan, -np.nan, np.inf, -np.inf,
                  info.max, -info.max, info.tiny, info.smallest_subnormal],
                 dtype=dtype)
    k = np.arange(len(x), dtype=np.int64) - 3
    out = np.zeros((len(x), 11), dtype=np.int32)
    launch(predicates, len(x), x, k, out)
    xs = x.tolist()
    expected = [[math.isnan(v), math.isinf(v), math.isfinite(v),
                 np.isnan(v), np.isinf(v), np.isfinite(v),
                 False, False, True,
                 5 if math.isnan(v) or math.isinf(v) else 3,
                 not math.isfinite(v)] for v in xs]
    np.testing.assert_array_equal(out, np.array(expected, dtype=np.int32))


# --------------------------------------------------------------------------
# floor/ceil/trunc: ints in math, floats in NumPy

@spirjit.kernel
def rounding(item: kapi.Item, x, iout, fout):
    i = item.get_id(0)
    v = x[i]
    iout[i, 0] = math.floor(v)
    iout[i, 1] = math.ceil(v)
    iout[i, 2] = math.trunc(v)
    iout[i, 3] = math.floor(v) // 2      # integer floor division
    iout[i, 4] = math.floor(v) % 3
    iout[i, 5] = math.floor(v) + 16777217  # exact as an int
    iout[i, 6] = math.ceil(v) * 2 ** 40
    fout[i, 0] = np.floor(v)
    fout[i, 1] = np.ceil(v)
    fout[i, 2] = np.trunc(v)
    fout[i, 3] = np.floor(v) + 16777217    # float arithmetic of x's dtype
    fout[i, 4] = math.floor(v) / 2         # int / int is a float
    fout[i, 5] = np.floor(v) // 2
    fout[i, 6] = np.trunc(v) * 0.1


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_floor_ceil_trunc_types(device_filter, require_dtypes, dtype):
    require_dtypes(np.float64)
    x = np.array([-2.5, -0.5, 0.0, 0.5, 2.5, 3.99, -7.25, 10.0, 4.5, -3.0,
                  1e6 + 0.5, -1e6 - 0.5], dtype=dtype)
    iout = np.zeros((len(x), 7), dtype=np.int64)
    fout = np.zeros((len(x), 7), dtype=np.float64)
    launch(rounding, len(x), x, iout, fout)
    xs = x.astype(np.float64).tolist()
    floors = [math.floor(v) for v in xs]
    expected_i = [[f, math.ceil(v), math.trunc(v), f // 2, f % 3,
                   f + 16777217, math.ceil(v) * 2 ** 40]
                  for v, f in zip(xs, floors)]
    assert iout.tolist() == expected_i
    # NumPy: np.floor keeps the float dtype, and the literal is weak
    expected_f = np.stack([np.floor(x), np.ceil(x), np.trunc(x),
                           np.floor(x) + 16777217,
                           np.array(floors) / 2, np.floor(x) // 2,
                           np.trunc(x) * 0.1], axis=1)
    assert expected_f.dtype == np.float64 or dtype == np.float32
    np.testing.assert_array_equal(fout, expected_f.astype(np.float64))
    if dtype == np.float32:
        # 4 + 16777217 is 16777221 as an int, 16777220 in float32
        row = xs.index(4.5)
        assert iout[row, 5] == 16777221
        assert fout[row, 3] == 16777220.0


def test_floor_of_large_float64(device_filter, require_dtypes):
    require_dtypes(np.float64)

    @spirjit.kernel
    def big_floor(item, x, out):
        i = item.get_id(0)
        out[i] = math.floor(x[i]) + 1

    x = np.array([2.0 ** 53 - 1, -(2.0 ** 60), 1e15 + 0.5, 9.2e18])
    out = np.zeros(len(x), dtype=np.int64)
    launch(big_floor, len(x), x, out)
    assert out.tolist() == [math.floor(v) + 1 for v in x.tolist()]


# --------------------------------------------------------------------------
# round

@spirjit.kernel
def rounds(item: kapi.Item, x, iout, fout):
    i = item.get_id(0)
    v = x[i]
    iout[i] = round(v)
    fout[i, 0] = round(v)
    fout[i, 1] = round(v, 2)
    fout[i, 2] = round(v, 0)
    fout[i, 3] = round(v, 1)
    fout[i, 4] = round(v) // 2 * 3  # an int: integer arithmetic


def test_round(device_filter, require_dtypes):
    require_dtypes(np.float64)
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, 2.6, -2.6, 0.125,
                  0.375, 1.234, -1.239, 12345.6789, 0.0, -0.0, 1e15 + 0.5])
    iout = np.zeros(len(x), dtype=np.int64)
    fout = np.zeros((len(x), 5))
    launch(rounds, len(x), x, iout, fout)
    xs = x.tolist()
    # Python rounds half to even: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -0.5 -> 0
    assert iout[:4].tolist() == [0, 2, 2, 0]
    assert iout.tolist() == [round(v) for v in xs]
    np.testing.assert_array_equal(fout[:, 0], [float(round(v)) for v in xs])
    # round(x) is an int, and an int has no negative zero
    assert not np.signbit(fout[3, 0])
    # round(x, n) on the inputs where Python and NumPy agree (not on
    # 1e15 + 0.5, where scaling by 10**n loses the half)
    moderate = x[:-1]
    for column, digits in ((1, 2), (2, 0), (3, 1)):
        expected = [round(v, digits) for v in moderate.tolist()]
        np.testing.assert_array_equal(np.round(moderate, digits), expected)
        np.testing.assert_allclose(fout[:-1, column], expected, rtol=1e-15,
                                   atol=0, err_msg=f"round(x, {digits})")
    assert fout[9, 1] == 0.12 and fout[10, 1] == 0.38
    np.testing.assert_array_equal(fout[:, 4],
                                  [round(v) // 2 * 3 for v in xs])


def test_round_float32_keeps_float32(device_filter, require_dtypes):
    require_dtypes(np.float64)

    @spirjit.kernel
    def round32(item, x, out):
        i = item.get_id(0)
        out[i, 0] = round(x[i], 2)
        out[i, 1] = round(x[i])

    x = np.array([1.234, 0.125, -7.777, 2.5], dtype=np.float32)
    out = np.zeros((4, 2))
    launch(round32, 4, x, out)
    assert_float32_values(out[:, 0], "round(float32, 2)")
    np.testing.assert_allclose(out[:, 0], np.round(x, 2), rtol=1e-6)
    np.testing.assert_array_equal(out[:, 1], [1, 0, -8, 2])


# --------------------------------------------------------------------------
# Builtins: abs, min, max, int, float, bool

@spirjit.kernel
def builtins_kernel(item: kapi.Item, s8, u8, i32, f32, f64, out):
    i = item.get_id(0)
    a = s8[i]
    b = u8[i]
    c = i32[i]
    f = f32[i]
    d = f64[i]
    out[i, 0] = abs(a)                # int8: abs(-128) wraps to -128
    out[i, 1] = abs(c)
    out[i, 2] = abs(f)
    out[i, 3] = abs(d)
    out[i, 4] = abs(d < 0) + abs(-3)  # bool and literal
    out[i, 5] = min(a, b)             # int8 and uint8 -> int16
    out[i, 6] = max(a, b)
    out[i, 7] = max(c, f)             # int32 and float32 -> float64
    out[i, 8] = max(c, f, 2.5)        # three arguments
    out[i, 9] = min(f, 0.1)           # float32 and a weak literal
    out[i, 10] = min(a, b, c)         # -> int32
    out[i, 11] = max(d, c, 1)
    out[i, 12] = min(d, -1, f)
    out[i, 13] = int(f)               # truncates toward zero
    out[i, 14] = int(d)
    out[i, 15] = int(a) * 1000        # a Python int: no int8 wrap
    out[i, 16] = int(d < 0)
    out[i, 17] = float(c) / 3
    out[i, 18] = float(f) * 0.1       # Python floats: float64 arithmetic
    out[i, 19] = float(i) + 0.5
    out[i, 20] = bool(d)
    out[i, 21] = bool(a)
    out[i, 22] = int(bool(f)) + int(bool(c))
    out[i, 23] = abs(-d) * max(a, 0)


def builtins_reference(s8, u8, i32, f32, f64):
    rows = []
    for a, b, c, f, d, i in zip(s8, u8, i32, f32, f64, range(len(s8))):
        py_a, py_b, py_c = int(a), int(b), int(c)
        py_f, py_d = float(f), float(d)
        with np.errstate(over="ignore"):
            abs_a, abs_c = np.abs(a), np.abs(c)  # int8, int32 wrap
        rows.append([
            float(abs_a), float(abs_c), abs(py_f), abs(py_d),
            (py_d < 0) + 3,
            min(py_a, py_b), max(py_a, py_b),
            max(py_c, py_f), max(py_c, py_f, 2.5),
            float(min(f, np.float32(0.1))),
            min(py_a, py_b, py_c), max(py_d, py_c, 1), min(py_d, -1, py_f),
            int(py_f), int(py_d), py_a * 1000, int(py_d < 0),
            py_c / 3, py_f * 0.1, i + 0.5,
            bool(py_d), bool(py_a), bool(py_f) + bool(py_c),
            abs(-py_d) * max(int(a), 0)])
    return np.array(rows, dtype=np.float64)


def test_builtins(device_filter, require_dtypes):
    require_dtypes(np.float64)
    s8 = np.array([-128, -1, 0, 5, 127, -7, 3, 100], dtype=np.int8)
    u8 = np.array([200, 0, 255, 5, 1, 9, 3, 99], dtype=np.uint8)
    i32 = np.array([16777217, -3, 0, 7, -2 ** 31, 2 ** 31 - 1, 1, -40],
                   dtype=np.int32)
    f32 = np.array([0.5, -2.75, 0.0, 0.05, -1e-3, 3.3, 12.75, -7.9],
                   dtype=np.float32)
    f64 = np.array([-0.0, 2.5, 0.75, 1e-300, -1.5, 0.0, 7.25, -1e15])
    out = np.zeros((8, 24))
    launch(builtins_kernel, 8, s8, u8, i32, f32, f64, out)
    expected = builtins_reference(s8, u8, i32, f32, f64)
    for column in range(24):
        np.testing.assert_array_equal(out[:, column], expected[:, column],
                                      err_msg=f"column {column}")
    # the discriminating cases
    assert out[0, 0] == -128           # int8 abs wraps as in NumPy
    assert out[0, 7] == 16777217.0     # float64, not float32 (16777216)
    assert out[3, 9] == float(np.float32(0.05))
    assert out[4, 9] == float(np.float32(-1e-3))
    assert out[0, 9] == float(np.float32(0.1))  # the float32 literal
    assert out[0, 15] == -128000
    assert not np.signbit(out[0, 3])   # abs(-0.0) is 0.0


# --------------------------------------------------------------------------
# NumPy dtype constructors and a.dtype.type

@spirjit.kernel
def constructors(item: kapi.Item, i64, f64, f32, s8, out):
    i = item.get_id(0)
    n = i64[i]
    d = f64[i]
    out[i, 0] = np.float32(d)
    out[i, 1] = np.float64(f32[i]) * 0.1
    out[i, 2] = np.int8(n)            # wraps like astype
    out[i, 3] = np.uint8(n)
    out[i, 4] = np.int16(n)
    out[i, 5] = np.int8(d)            # truncates (in range)
    out[i, 6] = np.float32(n)         # rounds to a float32
    out[i, 7] = f32.dtype.type(d)     # float32
    out[i, 8] = s8.dtype.type(n)      # int8, wraps
    out[i, 9] = np.int8(n) + np.int8(100)  # int8 arithmetic wraps
    out[i, 10] = np.float32(d) * 0.1  # float32 arithmetic
    out[i, 11] = np.uint32(n) // 3
    out[i, 12] = np.int64(f32[i])
    out[i, 13] = np.bool_(d)


def test_dtype_constructors(device_filter, require_dtypes):
    require_dtypes(np.float64)
    i64 = np.array([0, 127, 128, 300, -129, -1, 255, 16777217, 2 ** 40 + 5,
                    -2 ** 33 - 7], dtype=np.int64)
    f64 = np.array([0.1, -3.7, 127.9, -128.5, 1 / 3, 2.7, 0.0, -0.0, 99.5,
                    -100.25])
    f32 = np.array([0.1, 1.7, -2.5, 1e6, 7.9, -0.3, 0.0, 3.0, -1e9, 5.5],
                   dtype=np.float32)
    s8 = np.zeros(10, dtype=np.int8)
    out = np.zeros((10, 14))
    launch(constructors, 10, i64, f64, f32, s8, out)
    with np.errstate(over="ignore"):
        int8_sum = i64.astype(np.int8) + np.int8(100)
    expected = np.stack([
        f64.astype(np.float32), f32.astype(np.float64) * 0.1,
        i64.astype(np.int8), i64.astype(np.uint8), i64.astype(np.int16),
        f64.astype(np.int8), i64.astype(np.float32), f64.astype(np.float32),
        i64.astype(np.int8), int8_sum,
        f64.astype(np.float32) * 0.1, i64.astype(np.uint32) // 3,
        f32.astype(np.int64), f64.astype(bool)], axis=1).astype(np.float64)
    for column in range(14):
        np.testing.assert_array_equal(out[:, column], expected[:, column],
                                      err_msg=f"column {column}")
    assert out[3, 2] == 44 and out[4, 2] == 127 and out[6, 3] == 255
    assert out[7, 6] == 16777216.0


# --------------------------------------------------------------------------
# Integer arguments: the result types of Python and NumPy

@spirjit.kernel
def int_arguments(item: kapi.Item, s8, s16, i32, i64, out):
    i = item.get_id(0)
    out[i, 0] = np.sqrt(s8[i])       # int8 -> float32 (as in numba)
    out[i, 1] = np.sqrt(s16[i])      # int16 -> float32 (as in NumPy)
    out[i, 2] = np.sqrt(i32[i])      # int32 -> float64
    out[i, 3] = math.sqrt(s8[i])     # math: a Python float
    out[i, 4] = np.exp(s8[i])
    out[i, 5] = math.log(i64[i] + 1)
    out[i, 6] = math.log(i64[i] + 1, 2)
    out[i, 7] = np.floor(s8[i]) + 0.5  # floor of an int is that int
    out[i, 8] = math.floor(i64[i])
    out[i, 9] = np.square(i32[i])      # stays int32 (wraps)
    out[i, 10] = math.pow(i64[i], 2)


def test_integer_arguments(device_filter, require_dtypes):
    require_dtypes(np.float64)
    s8 = np.array([2, 3, 5, 10, 50, 0], dtype=np.int8)
    s16 = s8.astype(np.int16) * 7
    i32 = np.array([2, 3, 5, 50000, 2 ** 31 - 1, 0], dtype=np.int32)
    i64 = np.array([1, 7, 1023, 10 ** 12, 3, 0], dtype=np.int64)
    out = np.zeros((6, 11))
    launch(int_arguments, 6, s8, s16, i32, i64, out)
    with np.errstate(over="ignore"):
        squares = np.square(i32)
    # NumPy computes int8 in float16, which spirjit lacks; like numba it
    # takes float32, the smallest float it has that holds every int8.
    assert np.sqrt(s16).dtype == np.float32
    expected = np.stack([
        np.sqrt(s8.astype(np.float32)), np.sqrt(s16), np.sqrt(i32),
        [math.sqrt(v) for v in s8.tolist()], np.exp(s8.astype(np.float32)),
        [math.log(v + 1) for v in i64.tolist()],
        [math.log(v + 1, 2) for v in i64.tolist()],
        np.floor(s8) + 0.5, i64, squares,
        [math.pow(v, 2) for v in i64.tolist()]], axis=1).astype(np.float64)
    np.testing.assert_allclose(out, expected, rtol=1e-6)
    for column in (0, 1, 4):
        assert_float32_values(out[:, column], f"column {column}")
    np.testing.assert_array_equal(out[:, 2], np.sqrt(i32))
    np.testing.assert_array_equal(out[:, 3],
                                  [math.sqrt(v) for v in s8.tolist()])
    np.testing.assert_array_equal(out[:, 8:10], expected[:, 8:10])


# --------------------------------------------------------------------------
# The table is covered

def test_every_table_entry_is_tested():
    """Every `math` row of MathFunctions.def, and every NumPy function that
    ArrayOps.def computes with one of its rows, has a test here."""
    table = pathlib.Path(__file__).resolve().parents[2] / "compiler" / \
        "MathFunctions.def"
    if not table.exists():
        pytest.skip("compiler/MathFunctions.def is not in this checkout")
    entries = re.findall(r'^MATH\((\w+), "(\w+)"', table.read_text(),
                         re.MULTILINE)
    assert len(entries) > 40
    tested_math = set(MATH_UNARY) | set(MATH_BINARY) | {
        "ldexp", "floor", "ceil", "trunc", "isnan", "isinf", "isfinite",
        "nextafter"}
    # NumPy's names: here, in test_numpy_functions_more.py, and every
    # elementwise row of ArrayOps.def on every surface in
    # test_array_ops_table.py.
    tested_numpy = set(NUMPY_UNARY) | set(NUMPY_BINARY) | {
        "ldexp", "isnan", "isinf", "isfinite", "signbit", "nextafter",
        "logaddexp", "logaddexp2", "heaviside", "gcd", "lcm",
        "bitwise_count"} | set(more.UNARY) | \
        set(more.BINARY)
    rows = {name for _, name in entries}
    for where, name in entries:
        assert where in ("Math", "Array"), name
        if where == "Math":
            assert name in tested_math, f"math.{name} is not tested"
            assert hasattr(math, name)
    for op in spirjit._spirjit.array_ops():
        if op["scalar"] == "Math":
            assert op["scalar_op"] in rows, op["numpy"]
            assert op["numpy"] in tested_numpy, \
                f"numpy.{op['numpy']} is not tested"


@spirjit.kernel
def _next_after(item, x, y, out):
    i = item.get_id(0)
    out[i] = math.nextafter(x[i], y[i])


def test_math_nextafter(device_filter):
    x = np.array([1.0, 0.0, -0.0, 1e308, np.inf, np.nan, 5e-324])
    y = np.array([2.0, -1.0, 1.0, np.inf, 0.0, 1.0, 0.0])
    out = np.zeros_like(x)
    launch(_next_after, x.size, x, y, out)
    np.testing.assert_array_equal(
        out, [math.nextafter(a, b) for a, b in zip(x.tolist(), y.tolist())])


@pytest.mark.xfail(strict=True, reason=(
    "bool() returns a Python bool, and True + True is 2 in Python (and in "
    "numba); spirjit types bool(x) as a NumPy bool, so bool(1.5) + "
    "bool(2.5) gives 1 (logical or)"))
def test_python_bools_add_as_ints(device_filter):
    @spirjit.kernel
    def bool_sum(item, f, out):
        i = item.get_id(0)
        out[i] = bool(f[i]) + bool(f[i] + 1)

    f = np.array([1.5, 0.0, -1.0], dtype=np.float32)
    out = np.zeros(3, dtype=np.int64)
    launch(bool_sum, 3, f, out)
    assert out.tolist() == [bool(v) + bool(v + 1) for v in f.tolist()]
