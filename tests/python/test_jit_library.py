"""NumPy functions and array methods in @spirjit.jit host code that the jit
library writes in the jit language (issue 29: `a.std()`, `np.var(a)`,
`a.fill(v)`, `a.argmax()`, `np.linspace(...)`), on NumPy arrays and
DeviceArrays of every device, compared with NumPy; keywords go to their
parameters; what is not taken is an UnsupportedFeatureError at the user's
line."""

import numpy as np
import pytest

import spirjit
from spirjit import jit, prange
from spirjit.errors import UnsupportedFeatureError

from source_markers import marked_line


def values(n=1000, dtype=np.float64, seed=0):
    return (np.random.default_rng(seed).random(n) * 10 - 3).astype(dtype)


@jit
def moments(a):
    return a.std(), a.var(), np.std(a), np.var(a)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_std_and_var_are_numpys(device, require_dtypes, dtype):
    require_dtypes(dtype)
    a = values(dtype=dtype) if dtype != np.int64 else \
        np.arange(-500, 500, 3, dtype=np.int64)
    got = moments(a)
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    for value, want in zip(got, (a.std(), a.var(), a.std(), a.var())):
        np.testing.assert_allclose(value, want, rtol=rtol)


@jit
def standardize(a):
    return (a - a.mean()) / a.std()


def test_std_inside_an_array_expression_on_device_arrays(device):
    a = values()
    got = standardize(spirjit.asarray(a, device=device))
    assert isinstance(got, spirjit.DeviceArray)
    np.testing.assert_allclose(got.asnumpy(), (a - a.mean()) / a.std(),
                               rtol=1e-12, atol=1e-12)


@jit
def filled(a, v):
    a.fill(v)
    return a


@pytest.mark.parametrize("shape", [(7,), (3, 5)])
def test_fill_writes_every_element(device, shape):
    a = np.zeros(shape)
    got = filled(a, 2.5)
    np.testing.assert_array_equal(got, np.full(shape, 2.5))
    np.testing.assert_array_equal(a, np.full(shape, 2.5))  # written back


@jit
def extremes(a):
    return a.argmax(), a.argmin(), np.argmax(a), np.argmin(a)


@pytest.mark.parametrize("case", ["random", "ties", "nan", "one"])
def test_argmax_argmin_follow_numpys_rule(device, case):
    a = {"random": values(),
         "ties": np.array([1.0, 5.0, 2.0, 5.0, -1.0, -1.0]),
         "nan": np.array([1.0, 9.0, np.nan, 3.0, np.nan]),
         "one": np.array([4.0])}[case]
    got = extremes(a)
    assert tuple(int(g) for g in got) == (
        a.argmax(), a.argmin(), np.argmax(a), np.argmin(a))


@jit
def spaced(start, stop, n):
    return np.linspace(start, stop, n), np.linspace(start, stop, num=n)


@jit
def spaced50(start, stop):
    return np.linspace(start, stop)


@pytest.mark.parametrize("n", [1, 2, 7, 1000])
def test_linspace_is_numpys(device, n):
    for got in spaced(-1.5, 2.0, n):
        got = np.asarray(got.asnumpy() if hasattr(got, "asnumpy") else got)
        np.testing.assert_allclose(got, np.linspace(-1.5, 2.0, n),
                                   rtol=1e-15, atol=1e-15)
        assert got[-1] == 2.0 or n == 1
    got = spaced50(0.0, 1.0)
    got = got.asnumpy() if hasattr(got, "asnumpy") else got
    np.testing.assert_allclose(got, np.linspace(0.0, 1.0), rtol=1e-15)


@jit
def rows_std(a, out):
    for i in prange(a.shape[0]):
        out[i] = a[i, 0]
    return out.std()


def test_library_call_after_a_prange_loop(device):
    a = np.random.default_rng(1).random((64, 3))
    got = rows_std(a, np.empty(64))
    np.testing.assert_allclose(got, a[:, 0].std(), rtol=1e-12)


@jit
def helper_calls_library(a):
    return moments(a)[0]


def test_library_call_in_a_called_jit_function(device):
    a = values()
    np.testing.assert_allclose(helper_calls_library(a), a.std(), rtol=1e-12)


@jit
def std_with_axis(a):
    return a.std(0)  # <- axis


def test_an_argument_the_library_does_not_take_is_a_clear_error(device):
    with pytest.raises(UnsupportedFeatureError) as info:
        std_with_axis(values())
    message = str(info.value)
    assert f"test_jit_library.py:{marked_line(__file__, 'axis')}" in message
    assert "a.std() takes 0 argument(s) in jit code, not 1" in message


@jit
def linspace_bad_keyword(n):
    return np.linspace(0.0, 1.0, count=n)  # <- keyword


def test_an_unknown_keyword_names_the_argument(device):
    with pytest.raises(TypeError) as info:
        linspace_bad_keyword(5)
    message = str(info.value)
    assert f"test_jit_library.py:{marked_line(__file__, 'keyword')}" in message
    assert "got an unexpected value for argument 'count'" in message


@jit
def to_list(a):
    return a.tolist()  # <- tolist


def test_a_method_jit_code_lacks_says_jit_functions(device):
    with pytest.raises(spirjit.errors.TypingError) as info:
        to_list(values())
    message = str(info.value)
    assert f"test_jit_library.py:{marked_line(__file__, 'tolist')}" in message
    assert "has no attribute 'tolist' usable in jit functions" in message


@jit
def products(a, b):
    return a @ b, np.dot(a, b), a.dot(b), np.matmul(a, b)


@pytest.mark.parametrize("shapes", [((5, 4), (4, 3)), ((5, 4), (4,)),
                                    ((4,), (4, 3)), ((4,), (4,))])
def test_matrix_products_are_numpys(device, shapes):
    rng = np.random.default_rng(0)
    a, b = (rng.random(s) for s in shapes)
    want = a @ b
    for got in products(spirjit.asarray(a, device=device),
                        spirjit.asarray(b, device=device)):
        got = got.asnumpy() if hasattr(got, "asnumpy") else got
        np.testing.assert_allclose(got, want, rtol=1e-12)
        assert np.shape(got) == np.shape(want)


def test_matrix_product_dtypes_are_numpys(device, require_dtypes):
    require_dtypes(np.float64)
    a32 = np.arange(6, dtype=np.float32).reshape(2, 3)
    b32 = np.arange(6, dtype=np.float32).reshape(3, 2)
    for a, b in ((a32, b32), (a32, b32.astype(np.float64)),
                 (a32.astype(np.int64), b32.astype(np.int64))):
        got = products(a, b)[0]
        assert got.dtype == (a @ b).dtype
        np.testing.assert_array_equal(got, a @ b)


@jit
def misaligned(a, b):
    return a @ b  # <- misaligned


def test_a_misaligned_product_is_numpys_value_error(device):
    with pytest.raises(ValueError) as info:
        misaligned(np.ones((2, 3)), np.ones((2, 3)))
    message = str(info.value)
    assert f"test_jit_library.py:{marked_line(__file__, 'misaligned')}: " \
        "matmul: the operands' inner extents differ (3 and 2)" in message
    with pytest.raises(ValueError, match="takes 1-D and 2-D arrays, not 3-D"):
        misaligned(np.ones((2, 2, 2)), np.ones((2, 2)))


@jit
def over_axes(a):
    return (a.sum(axis=0), a.sum(1), np.sum(a, axis=-1), a.mean(0),
            a.min(axis=1), np.max(a, 0), a.prod(0), np.amin(a, 0),
            np.argmax(a), a.argmin())


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
def test_reductions_over_an_axis_are_numpys(device, require_dtypes, dtype):
    require_dtypes(np.float64)
    a = (np.arange(12.0).reshape(3, 4) - 5).astype(dtype)
    got = over_axes(spirjit.asarray(a, device=device))
    want = (a.sum(axis=0), a.sum(1), np.sum(a, axis=-1), a.mean(0),
            a.min(axis=1), np.max(a, 0), a.prod(0), np.amin(a, 0),
            np.argmax(a), a.argmin())
    for g, w in zip(got, want):
        g = g.asnumpy() if hasattr(g, "asnumpy") else g
        np.testing.assert_allclose(g, w, rtol=1e-6)
        if np.ndim(w):
            assert g.dtype == w.dtype


@jit
def axis_too_far(a):
    return a.sum(axis=2)  # <- axis-bounds


def test_an_axis_out_of_bounds_is_numpys_error(device):
    with pytest.raises(ValueError) as info:
        axis_too_far(np.ones((2, 2)))
    assert f"test_jit_library.py:{marked_line(__file__, 'axis-bounds')}: axis 2 " \
        "is out of bounds for array of dimension 2" in str(info.value)


@jit
def sorts(a):
    b = a.copy()
    b.sort()
    return np.sort(a), np.argsort(a), a.argsort(), b


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.int64])
@pytest.mark.parametrize("n", [0, 1, 2, 5, 64, 1000, 4099])
def test_sort_and_argsort_are_numpys(device, require_dtypes, dtype, n):
    require_dtypes(np.float64)
    rng = np.random.default_rng(n)
    a = rng.integers(-50, 50, n).astype(dtype)  # ties on purpose
    if a.dtype.kind == "f" and n > 3:
        a[[1, n // 2]] = np.nan  # NumPy sorts NaN last
        a[2] = -np.inf
    got_sorted, got_order, got_method_order, got_in_place = sorts(
        spirjit.asarray(a, device=device))
    want = np.sort(a)
    np.testing.assert_array_equal(got_sorted.asnumpy(), want)
    np.testing.assert_array_equal(got_in_place.asnumpy(), want)
    # Stable: ties keep their order (NumPy's kind="stable").
    stable = np.argsort(a, kind="stable")
    np.testing.assert_array_equal(got_order.asnumpy(), stable)
    np.testing.assert_array_equal(got_method_order.asnumpy(), stable)
    assert got_order.asnumpy().dtype == np.int64
    assert got_sorted.dtype == a.dtype


@jit
def sorts_numpy_in_place(a):
    a.sort()


def test_sort_in_place_writes_the_callers_numpy_array(device):
    a = np.array([3.0, -1.0, np.nan, 2.0, -1.0])
    sorts_numpy_in_place(a)
    np.testing.assert_array_equal(a, [-1.0, -1.0, 2.0, 3.0, np.nan])


@jit
def sort_2d(a):
    return np.sort(a)  # <- sort-rank


def test_sorting_a_2d_array_is_a_clear_error(device):
    with pytest.raises(ValueError) as info:
        sort_2d(np.ones((2, 2)))
    assert f"test_jit_library.py:{marked_line(__file__, 'sort-rank')}: " \
        "np.sort in jit code takes 1-D arrays, not 2-D ones" in str(info.value)


@jit
def scans(a):
    return np.cumsum(a), a.cumsum(), np.cumprod(a), a.cumprod()


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32,
                                   np.int64, np.bool_])
@pytest.mark.parametrize("shape", [(0,), (1,), (7,), (1000,), (3, 5)])
def test_cumsum_and_cumprod_are_numpys(device, require_dtypes, dtype, shape):
    require_dtypes(np.float64)
    rng = np.random.default_rng(sum(shape))
    a = rng.integers(-3, 4, shape).astype(dtype)
    if a.dtype.kind == "f":
        a = a * np.asarray(0.5, dtype) + np.asarray(1, dtype)  # no zeros
    got = scans(spirjit.asarray(a, device=device))
    want = (np.cumsum(a), a.cumsum(), np.cumprod(a), a.cumprod())
    for g, w in zip(got, want):
        g = g.asnumpy()
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-5)


@jit
def small_int_statistics(a, m):
    return (np.mean(a), a.mean(), np.var(a), np.std(a), np.average(a),
            np.trace(m), m.sum(axis=0), m.mean(axis=1), m.max(axis=0),
            np.cumsum(a), np.dot(a, a))


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.uint16,
                                   np.int32, np.uint64, np.bool_])
def test_narrow_integers_accumulate_as_numpys_do(device, dtype):
    # Means in float64, sums and traces in int64 or uint64, cumulative
    # sums of unsigned integers in uint64, dot in the operands' own type:
    # a weak 0 had taken uint8's type (a mean of 100s was 12.75), cumsum
    # of uint64 came back int64, and axis reductions of narrow integers
    # were rejected by spirv-val (a select of vectors on one bool).
    a = np.full(301, 100 if dtype != np.bool_ else 1, dtype)
    a[0] = 7 if dtype != np.bool_ else 0
    if dtype == np.int32:
        a[:] = 2**30
    if dtype == np.uint64:
        a[:2] = 2**63 + 5
    m = (np.arange(12).reshape(3, 4) * 20).astype(dtype)
    got = small_int_statistics(a, m)
    want = (np.mean(a), a.mean(), np.var(a), np.std(a), np.average(a),
            np.trace(m), m.sum(axis=0), m.mean(axis=1), m.max(axis=0),
            np.cumsum(a), np.dot(a, a))
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g, np.float64),
                                   np.asarray(w, np.float64), rtol=1e-12)
        assert np.asarray(g).dtype == np.asarray(w).dtype or \
            np.ndim(w) == 0, (g, w)
