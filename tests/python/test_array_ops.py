"""DeviceArray arithmetic against NumPy, on every device: operators (in-place
and reflected), ufuncs, np.where, reductions, astype/copy/reshape/T, the
matrix product; NumPy 2 broadcasting and NEP 50 result dtypes; 0-d, empty and
non-contiguous operands; the errors."""

import re

import numpy as np
import pytest

import spirjit
from spirjit import errors

DTYPES = [np.float32, np.float64, np.int32, np.int64, np.bool_]


def data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        return rng.integers(1, 50, shape).astype(dtype)
    return rng.uniform(0.5, 4.0, shape).astype(dtype)


def check(result, expected, device):
    """``result`` is a DeviceArray on ``device`` equal to NumPy's
    ``expected`` in dtype, shape and values."""
    assert isinstance(result, spirjit.DeviceArray)
    assert result.device == device
    assert result.dtype == np.asarray(expected).dtype
    assert result.shape == np.shape(expected)
    np.testing.assert_allclose(np.asarray(result), expected, rtol=2e-6)


def test_done_when_example(device):
    x = data((1000,), np.float32)
    X = spirjit.asarray(x, device=device)
    check(X * 4, x * 4, device)
    check(np.sqrt(X), np.sqrt(x), device)
    total = X.sum()
    assert total.shape == () and total.device == device
    assert float(total) == pytest.approx(float(x.sum()), rel=1e-5)


@pytest.mark.parametrize("op", ["+", "-", "*", "/", "//", "%", "**"])
def test_float_operators_with_broadcasting(device, op):
    a, b = data((3, 4), np.float64), data((4,), np.float64, seed=1)
    A, B = spirjit.asarray(a, device=device), spirjit.asarray(b,
                                                               device=device)
    run = eval(f"lambda x, y: x {op} y")
    check(run(A, B), run(a, b), device)
    check(run(A, 2.5), run(a, 2.5), device)        # DeviceArray op scalar
    check(run(3.0, A), run(3.0, a), device)        # reflected
    check(run(b, A), run(b, a), device)            # NumPy operand joins


@pytest.mark.parametrize("op", ["+", "-", "*", "//", "%", "&", "|", "^",
                                "<<", ">>"])
def test_integer_operators(device, op):
    a, b = data((5, 6), np.int32), data((5, 6), np.int64, seed=3) % 7 + 1
    A, B = spirjit.asarray(a, device=device), spirjit.asarray(b,
                                                               device=device)
    run = eval(f"lambda x, y: x {op} y")
    check(run(A, B), run(a, b), device)            # int32 op int64 -> int64
    check(run(A, 3), run(a, 3), device)            # weak scalar: int32


def test_unary_operators(device):
    f, i, b = data((7,), np.float32), data((7,), np.int64), data((7,), bool)
    F, I, B = (spirjit.asarray(v, device=device) for v in (f, i, b))
    check(-F, -f, device)
    check(+F, +f, device)
    check(abs(-F), abs(-f), device)
    check(~I, ~i, device)
    check(-I, -i, device)
    check(~B, ~b, device)                          # logical not, as NumPy


def test_operator_methods_called_directly(device):
    # The operators are C functions (not pybind11's): called by hand with
    # the wrong arguments they raise Python's TypeError, as a method does;
    # reflected ones swap their operands.
    a = data(5, np.float32)
    A = spirjit.asarray(a, device=device)
    with pytest.raises(TypeError):
        A.__add__()
    with pytest.raises(TypeError):
        A.__neg__(A)
    check(A.__rsub__(1.0), 1.0 - a, device)
    check(A.__rtruediv__(A), a / a, device)
    check(A.__neg__(), -a, device)
    assert A.__add__("x") is NotImplemented


@pytest.mark.parametrize("op", ["&", "|", "^", "==", "!=", "+", "*"])
def test_bool_operators(device, op):
    a, b = data((9,), bool), data((9,), bool, seed=5)
    A, B = spirjit.asarray(a, device=device), spirjit.asarray(b,
                                                               device=device)
    run = eval(f"lambda x, y: x {op} y")
    check(run(A, B), run(a, b), device)


@pytest.mark.parametrize("op", ["<", "<=", ">", ">=", "==", "!="])
def test_comparisons(device, op):
    a = np.array([1.0, 2.0, np.nan, 4.0, 2.0])
    A = spirjit.asarray(a, device=device)
    run = eval(f"lambda x, y: x {op} y")
    check(run(A, 2.0), run(a, 2.0), device)
    check(run(2, A), run(2, a), device)


@pytest.mark.parametrize("left,right", [
    (np.float32, np.int32), (np.int32, np.float32), (np.bool_, np.int32),
    (np.int64, np.float64), (np.float32, np.float64), (np.bool_, np.bool_)])
def test_promotion_follows_numpy(device, left, right):
    a, b = data((6,), left), data((6,), right, seed=2)
    A, B = spirjit.asarray(a, device=device), spirjit.asarray(b,
                                                               device=device)
    check(A + B, a + b, device)


def test_nep50_python_scalars_are_weak(device):
    f = spirjit.asarray(data((4,), np.float32), device=device)
    i = spirjit.asarray(data((4,), np.int32), device=device)
    assert (f * 2.0).dtype == np.float32
    assert (i + 1).dtype == np.int32
    assert (i + 1.5).dtype == np.float64
    assert (i / 2).dtype == np.float64
    assert (f + np.float64(1)).dtype == np.float64  # a NumPy scalar is not
    small = spirjit.asarray(np.arange(3, dtype=np.int8), device=device)
    with pytest.raises(OverflowError):
        small + 300                                 # as NumPy 2 refuses it


@pytest.mark.parametrize("expr", [
    "f * np.float32(0.5)", "np.float32(0.5) * f", "f * np.float64(0.5)",
    "f + np.int64(3)", "i8 + np.int8(3)", "i8 + np.int64(300)",
    "i8 * np.uint8(200)", "i8 - np.int8(-128)", "c * np.complex64(1+2j)",
    "c + np.float32(1)", "f > np.float32(2)", "f + np.bool_(True)",
    "f ** np.float32(2)", "np.float16(1.5) + f", "f - np.float32(np.nan)",
])
def test_numpy_scalars_are_strong_operands(device, expr):
    """NumPy scalars (np.float32(0.5) in float32 code) keep their dtype
    under NEP 50, and their values, as NumPy gives them."""
    host = {"f": np.arange(1, 6, dtype=np.float32),
            "i8": np.array([-3, 0, 1, 2, 127], dtype=np.int8),
            "c": np.arange(1, 6, dtype=np.complex64) * (1 - 1j)}
    arrays = {k: spirjit.asarray(v, device=device) for k, v in host.items()}
    want = eval(expr, {"np": np}, host)
    got = np.asarray(eval(expr, {"np": np}, arrays))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_inplace_operators(device):
    a = data((4, 5), np.float64)
    A = spirjit.asarray(a, device=device)
    before = A._buffer_key
    A += spirjit.asarray(data((5,), np.float64, seed=1), device=device)
    a += data((5,), np.float64, seed=1)
    A *= 2
    a *= 2
    A -= 1
    a -= 1
    assert A._buffer_key == before                  # written in place
    check(A, a, device)
    I = spirjit.asarray(np.arange(6, dtype=np.int32), device=device)
    I <<= 2
    check(I, np.arange(6, dtype=np.int32) << 2, device)
    with pytest.raises(TypeError, match="same_kind"):
        I += 1.5


def test_inplace_with_overlapping_operands(device):
    a = np.arange(10.0)
    A = spirjit.asarray(a, device=device)
    A[1:] += A[:-1]
    a[1:] += a[:-1].copy()
    check(A, a, device)


def test_ufuncs_stay_on_device(device):
    x = data((3, 5), np.float32)
    X = spirjit.asarray(x, device=device)
    for ufunc in (np.sqrt, np.exp, np.log, np.sin, np.cos, np.tanh,
                  np.floor, np.absolute, np.square, np.isnan):
        check(ufunc(X), ufunc(x), device)
    y = data((5,), np.float32, seed=9)
    for ufunc in (np.maximum, np.minimum, np.arctan2, np.hypot, np.power):
        check(ufunc(X, y), ufunc(x, y), device)
    i = data((4,), np.int32)
    check(np.sqrt(spirjit.asarray(i, device=device)), np.sqrt(i), device)


def test_ufunc_out(device):
    x, y = data((8,), np.float32), data((8,), np.float32, seed=4)
    X, Y = spirjit.asarray(x, device=device), spirjit.asarray(y,
                                                               device=device)
    Z = spirjit.empty((8,), np.float64, device=device)
    assert np.add(X, Y, out=Z) is Z
    check(Z, np.add(x, y, dtype=np.float64), device)
    with pytest.raises(ValueError, match="shape"):
        np.add(X, Y, out=spirjit.empty((3,), np.float32, device=device))


def test_unknown_ufunc_is_a_clear_type_error(device):
    X = spirjit.asarray(np.arange(4), device=device)
    with pytest.raises(TypeError, match="numpy.subtract.reduceat has no "
                       "spirjit kernel"):
        np.subtract.reduceat(X, [0, 2])
    with pytest.raises(TypeError, match="numpy.power.accumulate"):
        np.power.accumulate(X)


def test_where(device):
    x = data((3, 4), np.float32)
    X = spirjit.asarray(x, device=device)
    check(np.where(X > 2, X, 0.0), np.where(x > 2, x, 0.0), device)
    check(np.where(X > 2, X, np.float64(0)),
          np.where(x > 2, x, np.float64(0)), device)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", ["sum", "prod", "min", "max", "mean"])
def test_reductions(device, op, dtype):
    x = data((37, 53), dtype)
    if op == "prod" and x.dtype.kind == "f":
        x = (1 + (x - 2) / 1000).astype(dtype)  # a finite product
    X = spirjit.asarray(x, device=device)
    for axis in (None, 0, 1, -1):
        result = getattr(X, op)(axis=axis)
        expected = getattr(x, op)(axis=axis)
        assert result.dtype == expected.dtype
        np.testing.assert_allclose(np.asarray(result), expected, rtol=1e-5)
    check(getattr(X, op)(axis=1, keepdims=True),
          getattr(x, op)(axis=1, keepdims=True), device)
    assert getattr(np, op)(X).shape == ()           # __array_function__


def test_large_sum_is_a_tree_over_several_passes(device):
    x = np.arange(1 << 20, dtype=np.int64)
    X = spirjit.asarray(x, device=device)
    assert int(X.sum()) == int(x.sum())
    assert float(spirjit.asarray(x.astype(np.float64), device=device).max()) \
        == x.max()


def test_reductions_of_views_and_3d(device):
    x = data((6, 7, 8), np.float64)
    X = spirjit.asarray(x, device=device)
    for view in (lambda v: v[:, ::2, 1:], lambda v: v.T,
                 lambda v: v[::-1]):
        for axis in (None, 0, 1, 2):
            np.testing.assert_allclose(
                np.asarray(view(X).sum(axis=axis)), view(x).sum(axis=axis))


def test_empty_and_zero_d(device):
    e = spirjit.asarray(np.zeros((0, 3), np.float32), device=device)
    check(e + 1, np.zeros((0, 3), np.float32) + 1, device)
    check(e.sum(axis=0), np.zeros((0, 3), np.float32).sum(axis=0), device)
    assert float(e.sum()) == 0.0
    with pytest.raises(ValueError, match="zero-size array"):
        e.max()
    s = spirjit.asarray(np.float64(3.0), device=device)
    check(s * 2, np.float64(6.0) * np.ones(()), device)
    check(s + spirjit.asarray(np.arange(3.0), device=device),
          3.0 + np.arange(3.0), device)
    assert float(s.sum()) == 3.0


def test_non_contiguous_and_four_dimensional(device):
    x = data((8, 9), np.float32)
    X = spirjit.asarray(x, device=device)
    check(X[::2, 1::3] * X[1::2, ::3], x[::2, 1::3] * x[1::2, ::3], device)
    check(X[::-1] - X.T.T, x[::-1] - x, device)
    y = data((2, 3, 4, 5), np.float64)
    Y = spirjit.asarray(y, device=device)
    check(Y + y[0, 0], y + y[0, 0], device)
    check(Y[:, ::2] * 2, y[:, ::2] * 2, device)


def test_astype_copy_reshape_transpose(device):
    x = data((4, 6), np.float64)
    X = spirjit.asarray(x, device=device)
    check(X.astype(np.int32), x.astype(np.int32), device)
    check(X.astype(bool), x.astype(bool), device)
    c = X.copy()
    c[0, 0] = -1.0
    assert X[0, 0] == x[0, 0]                       # a copy, not a view
    r = X.reshape(3, 8)
    check(r, x.reshape(3, 8), device)
    r[0, 0] = 42.0                                  # a view of X
    assert X[0, 0] == 42.0
    x[0, 0] = 42.0
    check(X.reshape(-1), x.reshape(-1), device)
    check(X.T.reshape(24), x.T.reshape(24), device)  # non-contiguous: copy
    check(X.T, x.T, device)
    check(np.transpose(X), x.T, device)
    with pytest.raises(ValueError):
        X.reshape(5, 5)


@pytest.mark.parametrize("dtype", [np.float16, ">f8", "S3"],
                         ids=["float16", "big-endian", "bytes"])
def test_astype_to_a_dtype_devices_lack_is_a_typing_error(device, dtype):
    # As asarray says it (an internal compiler error before).
    X = spirjit.asarray(np.array([1.5, 2.0], np.float32), device=device)
    with pytest.raises(errors.TypingError,
                       match=re.escape(f"arrays of dtype {np.dtype(dtype)} "
                                       "cannot live on a device "
                                       "(DeviceArrays hold bool")):
        X.astype(dtype)
    with pytest.raises(TypeError, match="cannot live on a device"):
        spirjit.asarray(X, dtype=dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64],
                         ids=lambda d: np.dtype(d).name)
def test_matmul(device, dtype):
    a, b = data((33, 17), dtype), data((17, 29), dtype, seed=1)
    A, B = spirjit.asarray(a, device=device), spirjit.asarray(b,
                                                               device=device)
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(np.asarray(A @ B), a @ b, rtol=rtol)
    v, w = data((17,), dtype, seed=2), data((29,), dtype, seed=3)
    V = spirjit.asarray(v, device=device)
    W = spirjit.asarray(w, device=device)
    for got, want in ((A @ V, a @ v), (V @ B, v @ b), (V @ V, v @ v),
                      (A.dot(B), a.dot(b)), (np.dot(B, W), b.dot(w)),
                      (A @ b, a @ b), (A.T.T @ B[:, ::2], a @ b[:, ::2])):
        assert isinstance(got, spirjit.DeviceArray) and got.device == device
        assert got.shape == np.shape(want) and got.dtype == dtype
        np.testing.assert_allclose(np.asarray(got), want, rtol=rtol)
    with pytest.raises(ValueError, match="mismatch"):
        A @ A


@pytest.mark.parametrize("dtypes", [
    (np.int32, np.int32), (np.int64, np.float32), (np.uint64, np.int64),
    (np.complex64, np.float32), (np.int32, np.complex64),
    (np.complex128, np.complex128), (np.bool_, np.bool_),
    (np.int8, np.uint8), (np.bool_, np.int16), (np.int16, np.int16)],
    ids=lambda d: "@".join(
        np.dtype(t).name for t in d))
def test_matmul_promotes_as_numpy(device, require_dtypes, dtypes):
    # One kernel (spirjit._array_library.matmul) for every dtype: NumPy's
    # loop dtype comes from the result's, and the tiles are staged in it
    # (complex tiles in local memory too). The inner loop over a tile of
    # narrow integers or bools vectorises into reductions the SPIR target
    # expands (SPIRVLegalize.h, expandVectorReductions).
    a, b = data((20, 37), dtypes[0]), data((37, 18), dtypes[1], seed=1)
    if np.dtype(dtypes[0]).kind == "c":
        a = a + 1j * data((20, 37), dtypes[0], seed=2)
    want = a @ b
    require_dtypes(want.dtype)
    A, B = (spirjit.asarray(v, device=device) for v in (a, b))
    rtol = 1e-5 if want.dtype in (np.float32, np.complex64) else 1e-12
    for got, expected in ((A @ B, want), (B.T @ A.T, want.T),
                          (A[::2, 1:] @ B[1:, ::3], a[::2, 1:] @ b[1:, ::3]),
                          (A[3] @ B, a[3] @ b)):
        assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_allclose(np.asarray(got), expected, rtol=rtol)


def test_scalar_conversions(device):
    X = spirjit.asarray(np.array([2.5]), device=device)
    assert float(X) == 2.5 and int(X) == 2 and bool(X) and X.item() == 2.5
    with pytest.raises(ValueError, match="ambiguous"):
        bool(spirjit.asarray(np.arange(3), device=device))
    with pytest.raises(TypeError):
        float(spirjit.asarray(np.arange(3.0), device=device))


@pytest.mark.parametrize("value", [np.array([3], np.int32),
                                   np.array([[3.5]], np.float32),
                                   np.array([True]),
                                   np.array([1 + 2j], np.complex64),
                                   np.array([2 ** 63], np.uint64)],
                         ids=lambda a: a.dtype.name)
def test_item_is_a_python_scalar_as_numpy_gives(device, value):
    # json.dumps and `type(v) is int` need Python's numbers, as
    # ndarray.item() gives them.
    X = spirjit.asarray(value, device=device)
    for args in [(), (0,), ((0,) * value.ndim,)]:
        got, expected = X.item(*args), value.item(*args)
        assert type(got) is type(expected) and got == expected


def test_item_of_several_elements_is_numpys_value_error(device):
    X = spirjit.asarray(np.arange(3.0), device=device)
    with pytest.raises(ValueError, match="can only convert an array of "
                       "size 1 to a Python scalar") as info:
        X.item()
    assert not isinstance(info.value, errors.CompileError)
    assert X.item(2) == 2.0


def test_numpy_functions_stay_on_the_device_or_say_they_cannot(device):
    X = spirjit.asarray(np.arange(5.0), device=device)
    assert np.allclose(X, np.arange(5.0))
    joined = np.concatenate([X, X])
    assert isinstance(joined, spirjit.DeviceArray) and joined.device == X.device
    np.testing.assert_array_equal(joined.asnumpy(), np.tile(np.arange(5.0), 2))
    # No silent host copy (API.md): a function without a device version
    # raises, naming itself and the way to compute it on the host.
    with pytest.raises(NotImplementedError,
                       match=r"numpy\.einsum_path has no DeviceArray "
                             r"version.*np\.asarray\(x\)") as info:
        np.einsum_path("i,i", X, X)
    assert isinstance(info.value, errors.NotSupportedError)


def test_mixed_devices_are_rejected():
    devices = spirjit.devices()
    if len(devices) < 2:
        pytest.skip("needs two devices")
    a = spirjit.asarray(np.arange(4.0), device=devices[0])
    b = spirjit.asarray(np.arange(4.0), device=devices[1])
    for run in (lambda: a + b, lambda: np.where(a > 1, a, b),
                lambda: a @ b, lambda: np.add(a, a, out=b)):
        with pytest.raises(errors.DeviceInferenceError) as info:
            run()
        message = str(info.value)
        assert devices[0].filter_string in message
        assert devices[1].filter_string in message
        assert "to_device" in message


def test_numpy_operand_first_joins_the_device_arrays_device(device):
    # The default device is `device`; the DeviceArray lives on another one,
    # and a NumPy operand that comes before it goes there too (API.md).
    others = [d for d in spirjit.devices() if d != device]
    if not others:
        pytest.skip("needs two devices")
    other = others[0]
    n = np.arange(5.0)
    index = np.array([0, 1])
    values, weights = np.array([0, 1, 1]), np.array([1.0, 2.0, 3.0])
    bins, q = np.array([0.0, 2.0, 5.0]), np.array([10.0, 50.0])
    cases = [
        (lambda on: np.searchsorted(n, on(n)), np.searchsorted(n, n)),
        (lambda on: np.bincount(values, weights=on(weights)),
         np.bincount(values, weights=weights)),
        (lambda on: np.take_along_axis(n, on(index), axis=0),
         np.take_along_axis(n, index, axis=0)),
        (lambda on: np.histogram(n, bins=on(bins))[0],
         np.histogram(n, bins=bins)[0]),
        (lambda on: np.percentile(n, on(q)), np.percentile(n, q)),
        (lambda on: np.outer(n, on(n)), np.outer(n, n)),
        (lambda on: np.tensordot(n, on(n), axes=1),
         np.tensordot(n, n, axes=1)),
    ]
    for run, expected in cases:
        check(run(lambda v: spirjit.asarray(v, device=other)), expected,
              other)


def test_kernels_are_generated_once_and_cached(device, run_isolated):
    X = spirjit.asarray(np.arange(6.0), device=device)
    np.asarray(X * 4)
    before = spirjit._spirjit._array_kernel_stats()
    # Python scalars are kernel parameters: one kernel for every factor.
    assert list(np.asarray(X * 5)) == [0, 5, 10, 15, 20, 25]
    np.asarray(X * 6)
    after = spirjit._spirjit._array_kernel_stats()
    assert after["expressions"] == before["expressions"]
    assert after["compiles"] == before["compiles"]
    # A new process finds the kernel in the disk cache.
    script = """
        import os
        os.environ["SPIRJIT_HOST_NUMPY"] = "0"  # a kernel, however small
        import numpy as np, spirjit
        X = spirjit.asarray(np.arange(6.0))
        assert list(np.asarray(X * 4)) == [0, 4, 8, 12, 16, 20]
        stats = spirjit._spirjit._array_kernel_stats()
        print(stats["disk_hits"], stats["compiles"])
    """
    first = run_isolated(script)
    assert first.returncode == 0, first.stderr
    second = run_isolated(script)
    assert second.returncode == 0, second.stderr
    hits, compiles = map(int, second.stdout.split())
    assert hits >= 1 and compiles == 0


def test_assignment_from_a_device_array_runs_on_the_device(device):
    x = np.arange(10.0)
    X = spirjit.asarray(x, device=device)
    X[1:] = X[:-1]                                  # overlapping
    x[1:] = x[:-1].copy()
    check(X, x, device)
    X[::2] = spirjit.asarray(np.arange(5, dtype=np.int32), device=device)
    x[::2] = np.arange(5)
    check(X, x, device)
    M = spirjit.zeros((3, 4), device=device)
    M[...] = spirjit.asarray(np.arange(4.0), device=device)  # broadcast
    check(M, np.broadcast_to(np.arange(4.0), (3, 4)), device)
