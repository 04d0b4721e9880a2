"""compiler/ArrayOps.def, the one table of array operations, walked against
NumPy: every row names a real ufunc (or reduction) with the stated arity,
aliases, loops, identity and NaN rule; DeviceArrays compute exactly the
table's ufuncs; and every elementwise row gives NumPy's answer (NaN, inf,
-0.0 and integer edge cases included; the Array API standard's special
values where the table follows it, `standard`) in a kernel (`np.add(x[i], y[i])`),
in a jit function on scalars and on whole arrays, and on DeviceArrays.

Each surface computes all rows of one dtype in one compiled function, so
the cost is a few compilations per dtype and device."""

import numpy as np
import pytest

import spirjit
from spirjit import _array_ops, _spirjit
from spirjit import kernel_api as kapi

ROWS = _spirjit.array_ops()
UFUNCS = [r for r in ROWS if r["kind"] == "Elementwise"]
REDUCTIONS = [r for r in ROWS if r["kind"] == "Reduction"]


def _kinds_of(ufunc):
    """The dtype kinds of NumPy's loops for the first operand, as the
    table's Loops column spells them."""
    kinds = {np.dtype(t[0]).kind for t in ufunc.types if t[0] not in "OmM"}
    return "".join(k for k in "biufc" if k in kinds)


@pytest.mark.parametrize("row", UFUNCS, ids=[r["numpy"] for r in UFUNCS])
def test_row_is_numpys_ufunc(row):
    ufunc = getattr(np, row["numpy"])
    assert isinstance(ufunc, np.ufunc) and ufunc.__name__ == row["numpy"]
    assert (ufunc.nin, ufunc.nout) == (row["arity"], 1)
    for alias in row["aliases"] + ([row["array_api"]] if row["array_api"]
                                   else []):
        assert getattr(np, alias) is ufunc, f"np.{alias}"
    assert row["loops"] == _kinds_of(ufunc)
    identity = ufunc.identity
    assert row["identity"] == ("" if identity is None else str(identity))


def test_numpy_has_no_other_alias_of_a_row():
    """Every NumPy name of a row's ufunc is in the row: a name missing there
    would be a ufunc one surface knows and another does not."""
    names = {}
    for row in UFUNCS:
        for name in [row["numpy"], row["array_api"]] + row["aliases"]:
            if name:
                names[name] = row["numpy"]
    for name in dir(np):
        value = getattr(np, name)
        if isinstance(value, np.ufunc) and value.__name__ in names.values():
            assert names.get(name) == value.__name__, f"np.{name}"


def test_reductions_are_numpys():
    for row in REDUCTIONS:
        function = getattr(np, row["numpy"])
        assert callable(function)
        for alias in row["aliases"]:
            assert getattr(np, alias)(np.arange(3.0)) == \
                function(np.arange(3.0))
        if row["identity"]:
            empty = function(np.zeros(0))
            assert str(empty.item() if row["result"] != "Bool" else
                       bool(empty)) in (row["identity"],
                                        row["identity"] + ".0")
        elif row["numpy"] == "mean":  # no identity: NaN, with a warning
            with pytest.warns(RuntimeWarning):
                assert np.isnan(function(np.zeros(0)))
        else:
            with pytest.raises(ValueError):
                function(np.zeros(0))
        if row["scalar_op"]:
            assert isinstance(getattr(np, row["scalar_op"]), np.ufunc)
    values = np.array([1.0, np.nan, 3.0, np.nan])
    for row in REDUCTIONS:
        got = getattr(np, row["numpy"])(values)
        if row["nan"] == "Propagate":
            assert np.isnan(got), row["numpy"]
        elif row["nan"] == "FirstIndex":
            assert got == 1, row["numpy"]
        else:
            assert row["nan"] == "Truthy" and got, row["numpy"]


def test_nan_rules():
    nan = np.float64(np.nan)
    two = np.float64(2.0)
    for row in UFUNCS:
        ufunc = getattr(np, row["numpy"])
        rule, name = row["nan"], row["numpy"]
        if "f" not in row["loops"]:
            assert rule == "NotApplicable", name
            continue
        with np.errstate(invalid="ignore"):
            if name == "ldexp":
                answers = [ufunc(nan, 2)]
            elif row["arity"] == 1:
                answers = [ufunc(nan)]
            else:
                answers = [ufunc(nan, two), ufunc(two, nan)]
        if rule == "Propagate":
            assert all(np.isnan(a) for a in answers), name
        elif rule == "FirstOperand":
            assert np.isnan(answers[0]) and not np.isnan(answers[1]), name
        elif rule == "Ignore":
            assert all(a == two for a in answers), name
        elif rule == "Unordered":
            assert all(a == (name == "not_equal") for a in answers), name
        elif rule == "Truthy":
            assert all(a == ufunc(True, True) if row["arity"] == 2 else
                       a == ufunc(True) for a in answers), name
        else:
            assert rule == "Tests", name


def test_device_arrays_compute_exactly_the_table():
    names = {r["numpy"] for r in UFUNCS}
    assert set(_array_ops.UFUNCS) == names


# --------------------------------------------------------------------------
# Answers: every elementwise row on every surface, against NumPy

DTYPES = [np.bool_, np.uint8, np.int32, np.int64, np.float32, np.float64,
          np.complex128]
# NumPy's complex loops that kernels lack: refused at compile time (see
# test_complex_gaps_are_refused), never a wrong answer. None now: the
# inverse trigonometric and hyperbolic ones came last (LowerMath.cpp's
# complexInverse).
COMPLEX_GAPS = set()
# Complex power compiles but one corner differs: an infinite base with a
# NaN in the exponent gives nan+nanj where NumPy (C's cpow, whose product
# recovers infinities as C99's Annex G says) gives inf+nanj. Its other
# special values are test_complex_power_special_values'.
COMPLEX_INEXACT = {"power"}
_FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 7.25, 1e-3, np.inf,
           -np.inf, np.nan]


def _values(dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return np.array([False, True])
    if dtype.kind == "f":
        return np.array(_FLOATS, dtype=dtype)
    if dtype.kind == "c":
        return np.array([0, 1, -1, 0.5 + 2j, -2.5 - 1j, 3j, -0.0 + 1j,
                         complex(np.inf, 0), complex(-np.inf, 0),
                         complex(np.nan, 0), complex(1, np.nan),
                         complex(0, np.inf), 30 - 1j], dtype=dtype)
    info = np.iinfo(dtype)
    if dtype.kind == "u":
        return np.array([0, 1, 2, 3, 7, 100, 127, 128, 200, info.max, 5, 64],
                        dtype=dtype)
    return np.array([0, 1, -1, 2, -7, 7, 3, 100, info.max, info.min, -100,
                     5], dtype=dtype)


def _inputs(dtype):
    """x and y: every pair of the dtype's values; s: exponents and shift
    counts up to beyond the width (NumPy refuses negative integer powers);
    e: ldexp's int32 exponents."""
    v = _values(dtype)
    x, y = np.repeat(v, len(v)), np.tile(v, len(v))
    bits = np.dtype(dtype).itemsize * 8
    s = np.resize(np.array([0, 1, 2, 3, 4, bits - 1, bits, bits + 8]),
                  x.size).astype(dtype)
    e = np.resize(np.array([0, 1, -1, 3, -3, 10, -10, 200], np.int32),
                  x.size)
    return x, y, s, e


def _operands(row, dtype):
    """The names of the operands a row takes for this dtype."""
    if row["numpy"] == "ldexp":
        return ("x", "e")
    if row["arity"] == 1:
        return ("x",)
    if np.dtype(dtype).kind in "iu" and row["numpy"] in (
            "power", "left_shift", "right_shift"):
        return ("x", "s")
    return ("x", "y")


def _numpy_dtype(row, dtype):
    """NumPy's result dtype for this row on this dtype (float16 read as
    float32, which spirjit computes in its place), or None where NumPy has
    no loop."""
    ufunc = getattr(np, row["numpy"])
    inputs = {"x": np.dtype(dtype), "y": np.dtype(dtype), "s": np.dtype(dtype),
              "e": np.dtype(np.int32)}
    try:
        loop = ufunc.resolve_dtypes(tuple(inputs[o] for o in
                                          _operands(row, dtype)) + (None,))
    except TypeError:
        return None
    result = loop[-1]
    return np.dtype(np.float32) if result == np.float16 else result


def _rows_for(dtype):
    rows = [r for r in UFUNCS if _numpy_dtype(r, dtype) is not None]
    if np.dtype(dtype).kind == "c":
        rows = [r for r in rows
                if r["numpy"] not in COMPLEX_GAPS | COMPLEX_INEXACT]
    return rows


def standard(name, args, answer):
    """NumPy's answer, but the Array API standard's special values where
    the table follows the standard instead (ArrayOps.def, "Values at
    infinities"): floor_divide with an infinite operand is x / y; complex
    expm1 keeps a zero imaginary part and gives inf + NaN j or -1 + 0j for
    an infinite real part with an infinite or NaN imaginary one; complex
    tanh of an infinite real part is +-1 with a zero signed as the
    imaginary part."""
    if name == "floor_divide" and answer.dtype.kind == "f":
        x, y = args
        with np.errstate(all="ignore"):
            return np.where(np.isinf(x) | np.isinf(y), np.true_divide(x, y),
                            answer).astype(answer.dtype)
    if name not in ("expm1", "tanh") or answer.dtype.kind != "c":
        return answer
    z = np.asarray(args[0]).astype(answer.dtype)
    answer = np.array(answer, copy=True)
    re, im = z.real, z.imag
    with np.errstate(all="ignore"):
        if name == "expm1":
            flat = im == 0
            answer.real[flat] = np.expm1(re[flat]) + 0.0
            answer.imag[flat] = im[flat]
            wild = ~(np.abs(im) < np.inf)
            up, down = wild & (re == np.inf), wild & (re == -np.inf)
            answer.real[up], answer.imag[up] = np.inf, np.nan
            answer.real[down], answer.imag[down] = -1.0, 0.0
        else:
            big = np.isinf(re)
            answer.real[big] = np.sign(re[big])
            answer.imag[big] = np.copysign(0.0, im[big])
    return answer


def _expected(rows, dtype, arrays):
    columns = []
    with np.errstate(all="ignore"):
        for row in rows:
            args = [arrays[o] for o in _operands(row, dtype)]
            result = _numpy_dtype(row, dtype)
            if np.dtype(dtype) in (np.uint8, np.bool_) and \
                    result == np.float32:
                args = [a.astype(np.float32) if a.dtype == dtype else a
                        for a in args]  # float16 in NumPy
            answer = standard(row["numpy"], args,
                              getattr(np, row["numpy"])(*args))
            assert answer.dtype == result, row["numpy"]
            columns.append(answer)
    return columns


_EXACT = {"fabs", "copysign", "rint", "floor", "ceil", "trunc", "isnan",
          "isinf", "isfinite", "square", "sign", "reciprocal", "conjugate",
          "fmax", "fmin", "logical_and", "logical_or", "logical_xor",
          "logical_not", "ldexp", "fmod", "sqrt"}


def _check(rows, dtype, got, expected, surface):
    assert len(got) == len(expected) == len(rows)
    for row, g, e in zip(rows, got, expected):
        g = np.asarray(g)
        if g.dtype.kind == "c" and e.dtype.kind != "c":  # a complex out=
            assert not g.imag.any(), row["numpy"]
            g = g.real
        if e.dtype.kind == "c":  # each part as a float
            _check([row] * 2, dtype, [g.real, g.imag], [e.real, e.imag],
                   surface + " (real, imaginary part)")
            continue
        what = f"{surface}: np.{row['numpy']} on {np.dtype(dtype).name}"
        # Transcendental functions (float powers too) may differ by ulps
        # from NumPy's; everything else is exact.
        inexact = (row["scalar"] == "Math" and row["numpy"] not in _EXACT) \
            or (row["numpy"] == "power" and e.dtype.kind == "f") \
            or (row["numpy"] in ("sqrt", "absolute", "sign") and
                np.dtype(dtype).kind == "c")  # |z| by hypot: 1 ulp off on CUDA
        if not inexact:
            np.testing.assert_array_equal(g.astype(np.float64),
                                          e.astype(np.float64), err_msg=what)
            # -0.0 too, where NumPy's answer does not depend on its SIMD
            # path (fmax/fmin of -0.0 and 0.0 does).
            if e.dtype.kind == "f" and row["numpy"] not in ("fmax", "fmin"):
                zeros = e == 0
                np.testing.assert_array_equal(
                    np.signbit(g.astype(np.float64)[zeros]),
                    np.signbit(e[zeros]), err_msg=what + " (sign of 0)")
        else:
            rtol = 1e-5 if e.dtype == np.float32 else 1e-13
            np.testing.assert_allclose(g.astype(np.float64),
                                       e.astype(np.float64), rtol=rtol,
                                       atol=1e-300, equal_nan=True,
                                       err_msg=what)


def _call(row, dtype, prefix="", index=""):
    args = ", ".join(f"{prefix}{o}{index}" for o in _operands(row, dtype))
    return f"np.{row['numpy']}({args})"


def _compile(source, name):
    namespace = {"np": np}
    exec(compile(source, f"<array-ops {name}>", "exec"), namespace)
    return namespace[name]


_COMPILED = {}


def _surface(kind, dtype):
    """The compiled function of one surface for one dtype, made once."""
    key = (kind, np.dtype(dtype).name)
    if key not in _COMPILED:
        rows = _rows_for(dtype)
        if kind == "kernel":
            lines = [f"    out[i, {c}] = {_call(r, dtype, index='[i]')}"
                     for c, r in enumerate(rows)]
            source = ("def table_kernel(item, x, y, s, e, out):\n"
                      "    i = item.get_id(0)\n" + "\n".join(lines) + "\n")
            function = spirjit.kernel(_compile(source, "table_kernel"))
        else:
            # Tuples of at most 25 values: CPython builds longer ones as
            # lists, which jit code does not take.
            parts = []
            for start in range(0, len(rows), 25):
                calls = ",\n        ".join(
                    _call(r, dtype) for r in rows[start:start + 25])
                source = (f"def table_{kind}(x, y, s, e):\n"
                          f"    return (\n        {calls},\n    )\n")
                parts.append(spirjit.jit(_compile(source, f"table_{kind}")))

            def function(*args):
                return tuple(v for part in parts for v in part(*args))
        _COMPILED[key] = function
    return _COMPILED[key]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_kernels_give_numpys_answers(device_filter, require_dtypes, dtype):
    require_dtypes(np.float64)
    rows = _rows_for(dtype)
    x, y, s, e = _inputs(dtype)
    out = np.zeros((x.size, len(rows)),
                   np.complex128 if x.dtype.kind == "c" else np.float64)
    spirjit.call_kernel(_surface("kernel", dtype), kapi.Range(x.size), x, y,
                        s, e, out)
    expected = _expected(rows, dtype, {"x": x, "y": y, "s": s, "e": e})
    _check(rows, dtype, out.T, expected, "kernel")


# jit functions make no complex arrays yet.
@pytest.mark.parametrize("dtype", DTYPES[:-1], ids=lambda d: np.dtype(d).name)
def test_jit_array_expressions_give_numpys_answers(device_filter,
                                                   require_dtypes, dtype):
    require_dtypes(np.float64)
    rows = _rows_for(dtype)
    x, y, s, e = _inputs(dtype)
    got = _surface("arrays", dtype)(x, y, s, e)
    for row, g in zip(rows, got):
        assert g.dtype == _numpy_dtype(row, dtype), row["numpy"]
    expected = _expected(rows, dtype, {"x": x, "y": y, "s": s, "e": e})
    _check(rows, dtype, got, expected, "jit arrays")


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_jit_scalars_give_numpys_answers(dtype):
    rows = _rows_for(dtype)
    x, y, s, e = _inputs(dtype)
    function = _surface("scalars", dtype)
    got = np.array([function(*args) for args in zip(x, y, s, e)],
                   dtype=np.complex128 if x.dtype.kind == "c" else
                   np.float64).T
    expected = _expected(rows, dtype, {"x": x, "y": y, "s": s, "e": e})
    _check(rows, dtype, got, expected, "jit scalars")


@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.float64,
                                   np.complex128],
                         ids=lambda d: np.dtype(d).name)
def test_device_arrays_give_numpys_answers(device, require_dtypes, dtype):
    require_dtypes(np.float64)
    rows = _rows_for(dtype)
    arrays = dict(zip("xyse", _inputs(dtype)))
    on_device = {k: spirjit.asarray(v, device=device)
                 for k, v in arrays.items()}
    got = []
    for row in rows:
        result = getattr(np, row["numpy"])(
            *(on_device[o] for o in _operands(row, dtype)))
        assert isinstance(result, spirjit.DeviceArray), row["numpy"]
        assert result.dtype == _numpy_dtype(row, dtype), row["numpy"]
        got.append(np.asarray(result))
    _check(rows, dtype, got, _expected(rows, dtype, arrays), "DeviceArray")


# --------------------------------------------------------------------------
# NumPy's NaN rule for extremes in jit code (ArrayOps.def's Propagate)

@spirjit.jit
def _extremes(a, b):
    return (np.maximum(a, b), np.minimum(a, b), a.min(), a.max(),
            np.min(b), np.max(b), np.maximum(a[0], a[1]),
            np.minimum(a[1], a[0]))


@pytest.mark.parametrize("where", [0, 1, 5, 999])
def test_jit_extremes_keep_a_nan(device_filter, where):
    a = np.linspace(-1.0, 1.0, 1000)
    b = a[::-1].copy()
    a[where] = np.nan
    got = _extremes(a, b)
    expected = (np.maximum(a, b), np.minimum(a, b), a.min(), a.max(),
                np.min(b), np.max(b), np.maximum(a[0], a[1]),
                np.minimum(a[1], a[0]))
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("name", sorted(COMPLEX_GAPS))
def test_complex_gaps_are_refused(name):
    kernel = spirjit.kernel(_compile(
        f"def gap(item, x, out):\n    out[0] = np.{name}(x[0])\n"
        if getattr(np, name).nin == 1 else
        f"def gap(item, x, out):\n    out[0] = np.{name}(x[0], x[0])\n",
        "gap"))
    with pytest.raises(spirjit.errors.UnsupportedFeatureError,
                       match=f"numpy.{name}\\(\\) of a complex number is "
                             "not supported in kernels"):
        spirjit.call_kernel(kernel, kapi.Range(1), np.zeros(1, complex),
                            np.zeros(1, complex))


def test_complex_power_special_values(device_filter):
    """NumPy's npy_cpow: 0j ** z is 0 for z.real > 0, and an integer power
    multiplies, so (inf+0j) ** 1 stays inf+0j."""
    kernel = _compile("def cpow(item, x, y, out):\n"
                      "    i = item.get_id(0)\n"
                      "    out[i] = np.power(x[i], y[i])\n", "cpow")
    v = np.array([0, 1, -1, 0.5 + 2j, -2.5 - 1j, 3j, -0.0 + 1j, 2 + 0j,
                  -3 + 0j, complex(np.inf, 0), complex(-np.inf, 0),
                  complex(np.nan, 0), complex(0, np.inf)])
    x, y = np.repeat(v, v.size), np.tile(v, v.size)
    out = np.zeros(x.size, complex)
    spirjit.call_kernel(spirjit.kernel(kernel), kapi.Range(x.size), x, y,
                        out)
    with np.errstate(all="ignore"):
        expected = np.power(x, y)
    for part in ("real", "imag"):
        np.testing.assert_allclose(getattr(out, part),
                                   getattr(expected, part), rtol=1e-13,
                                   atol=1e-300, equal_nan=True)


def test_kernel_refuses_what_numpy_refuses():
    kernel = spirjit.kernel(_compile(
        "def negate(item, b, out):\n    out[0] = np.negative(b[0])\n",
        "negate"))
    with pytest.raises(spirjit.errors.TypingError,
                       match=r"<array-ops negate>:2: numpy.negative\(\) of "
                             "a bool is not defined"):
        spirjit.call_kernel(kernel, kapi.Range(1), np.zeros(1, bool),
                            np.zeros(1, bool))


# --------------------------------------------------------------------------
# NEP 50: a Python number takes the other operand's type

@spirjit.kernel
def _weak(item, small, single, out8, out32, outbool):
    i = item.get_id(0)
    out8[i] = np.add(small[i], 1)           # int8: 127 + 1 wraps
    out32[i] = np.multiply(single[i], 0.1)  # float32 * 0.1 in float32
    outbool[i] = np.less(small[i], 1000)    # compared by value


@spirjit.jit
def _weak_arrays(small, single):
    return np.add(small, 1), np.multiply(single, 0.1), np.divide(small, 2)


def test_ufuncs_take_python_numbers_weakly(device_filter):
    small = np.array([127, -128, 5], np.int8)
    single = np.array([3.0, 1e-3, 7.0], np.float32)
    out8, out32 = np.zeros(3, np.int8), np.zeros(3, np.float32)
    outbool = np.zeros(3, bool)
    spirjit.call_kernel(_weak, kapi.Range(3), small, single, out8, out32,
                        outbool)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(out8, np.add(small, 1))
    np.testing.assert_array_equal(out32, np.multiply(single, 0.1))
    np.testing.assert_array_equal(outbool, np.less(small, 1000))
    got = _weak_arrays(small, single)
    for g, e in zip(got, (np.add(small, 1), np.multiply(single, 0.1),
                          np.divide(small, 2))):
        assert g.dtype == e.dtype
        np.testing.assert_array_equal(g, e)


# --------------------------------------------------------------------------
# The Array API standard's special values where NumPy's differ

def test_standard_special_values_on_device_arrays(device, require_dtypes):
    """floor_divide with an infinite operand, complex expm1 and tanh at
    infinite and NaN parts: the standard's values on DeviceArrays, both
    where NumPy computes small values in place on a CPU device and where
    a kernel computes them (more than 2^14 elements)."""
    require_dtypes(np.float64)
    inf, nan = np.inf, np.nan
    x = np.array([inf, inf, -inf, -inf, 1.0, -1.0, 1.0, -1.0, 7.0, inf])
    y = np.array([2.0, -2.0, 2.0, -2.0, -inf, inf, inf, -inf, 2.0, inf])
    want = np.array([inf, -inf, -inf, inf, -0.0, -0.0, 0.0, 0.0, 3.0, nan])
    z = np.array([complex(0.0, 0.0), complex(-0.0, 0.0), complex(inf, 0.0),
                  complex(inf, inf), complex(inf, nan), complex(-inf, inf),
                  complex(-inf, nan), complex(nan, 0.0), complex(0.5, 1.0)])
    want_expm1 = [(0.0, 0.0), (0.0, 0.0), (inf, 0.0), (inf, nan), (inf, nan),
                  (-1.0, 0.0), (-1.0, 0.0), (nan, 0.0)]
    t = np.array([complex(inf, 2.0), complex(inf, 4.0), complex(inf, -2.0),
                  complex(-inf, 2.0)])
    want_tanh = [(1.0, 0.0), (1.0, 0.0), (1.0, -0.0), (-1.0, 0.0)]
    for copies in (1, 2000):
        got = np.asarray(spirjit.asarray(np.tile(x, copies), device=device) //
                         spirjit.asarray(np.tile(y, copies), device=device))
        np.testing.assert_array_equal(got, np.tile(want, copies))
        numbers = ~np.isnan(np.tile(want, copies))
        assert (np.signbit(got[numbers]) ==
                np.signbit(np.tile(want, copies)[numbers])).all()
        e = np.asarray(spirjit.expm1(spirjit.asarray(np.tile(z, copies),
                                                     device=device)))
        h = np.asarray(spirjit.tanh(spirjit.asarray(np.tile(t, copies),
                                                    device=device)))
        for got, expected in ((e, want_expm1), (h, want_tanh)):
            for i, (re, im) in enumerate(expected):
                for part, value in ((got.real[i::len(got) // copies], re),
                                    (got.imag[i::len(got) // copies], im)):
                    np.testing.assert_array_equal(part, value, err_msg=str(i))
                    assert (np.signbit(part) == np.signbit(value)).all() or \
                        np.isnan(value), i
        np.testing.assert_allclose(e[-1], np.expm1(z[-1]), rtol=1e-12)
