"""The array library's parallel primitives (spirjit._library_kernels) on
every device, against NumPy's answers: scans, stable argsort and sort,
stream compaction, masked scatter, take/put by index, searchsorted."""

import numpy as np
import pytest

import spirjit
from spirjit import _library_kernels as LK
from spirjit import _library_scan as LS
from spirjit import errors

INT_DTYPES = [np.int8, np.int16, np.int32, np.int64,
              np.uint8, np.uint16, np.uint32, np.uint64]
SORT_DTYPES = [np.bool_] + INT_DTYPES + [np.float32, np.float64]


@pytest.fixture
def put(device):
    """``put(np_array)``: the array as a DeviceArray on the test's device."""
    return lambda a: spirjit.asarray(np.asarray(a), device=device)


def rt(put):
    return put(np.zeros(1))._device


def descending_argsort(x):
    """array-api-strict's argsort(descending=True) along axis 1."""
    n = x.shape[1]
    return n - 1 - np.flip(np.argsort(np.flip(x, axis=1), axis=1,
                                      kind="stable"), axis=1)


# --------------------------------------------------------------- iota

@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, np.float32])
@pytest.mark.parametrize("n", [0, 1, 200])
def test_iota(put, dtype, n):
    out = LK.iota(n, dtype, rt(put))
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out.asnumpy(), np.arange(n, dtype=dtype))


# --------------------------------------------------------------- scans

@pytest.mark.parametrize("rows,n", [(1, 1), (1, 7), (3, 1000), (1, 4099),
                                    (1, 100000), (1, 10**6), (40, 33),
                                    (0, 5), (3, 0)])
def test_scan_sizes(put, rows, n):
    x = np.random.default_rng(n).integers(-1000, 1000, (rows, n))
    out = LK.scan_rows(put(x), "+", np.int64)
    assert out.shape == (rows, n) and out.flags.c_contiguous
    np.testing.assert_array_equal(out.asnumpy(), np.cumsum(x, axis=1))


@pytest.mark.parametrize("rows,n", [(1, 33), (3, 1000), (1, 2047),
                                    (2, 2048), (1, 4099)])
@pytest.mark.parametrize("op", ["+", "*"])
def test_scan_of_short_rows_by_one_tile_is_numpys(put, monkeypatch, rows, n,
                                                  op):
    # GPUs scan a row shorter than a tile as one work-group's tile; forced
    # here on every device.
    monkeypatch.setattr(LS, "SCAN_TILES", True)
    x = np.random.default_rng(n).integers(-3, 4, (rows, n))
    out = LK.scan_rows(put(x), op, np.int64)
    want = np.cumsum(x, axis=1) if op == "+" else np.cumprod(x, axis=1)
    np.testing.assert_array_equal(out.asnumpy(), want)


def test_scan_float_sums(put):
    x = np.random.default_rng(1).random((2, 10007), dtype=np.float32)
    np.testing.assert_allclose(LK.scan_rows(put(x), "+", np.float32).asnumpy(),
                               np.cumsum(x, axis=1), rtol=2e-5)


@pytest.mark.parametrize("dtype,op", [(np.int8, "+"), (np.uint8, "*"),
                                      (np.int32, "*"), (np.uint64, "+")])
def test_scan_integer_wraparound(put, dtype, op):
    x = np.random.default_rng(2).integers(1, 100, (2, 1500)).astype(dtype)
    if dtype == np.uint64:
        x[:, ::7] = np.uint64(2**63 + 5)
    fn = np.cumsum if op == "+" else np.cumprod
    np.testing.assert_array_equal(LK.scan_rows(put(x), op, dtype).asnumpy(),
                                  fn(x, axis=1, dtype=dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_scan_nan_and_inf_propagate(put, require_dtypes, dtype):
    require_dtypes(dtype)
    x = np.ones((4, 300), dtype=dtype)
    x[0, 50] = np.inf                       # inf onwards
    x[1, 40], x[1, 250] = np.inf, -np.inf   # inf, then NaN in a later chunk
    x[2, 100] = np.nan
    x[3, 10], x[3, 11] = 0, np.inf          # product: 0 * inf is NaN
    for op, fn in (("+", np.cumsum), ("*", np.cumprod)):
        with np.errstate(invalid="ignore"):
            expected = fn(x, axis=1)
        np.testing.assert_allclose(LK.scan_rows(put(x), op, dtype).asnumpy(),
                                   expected, equal_nan=True)


def test_scan_converts_elements_first(put, require_dtypes):
    require_dtypes(np.float64)
    mask = np.random.default_rng(3).random((3, 2000)) < 0.5
    np.testing.assert_array_equal(
        LK.scan_rows(put(mask), "+", np.int64).asnumpy(),
        np.cumsum(mask, axis=1))
    # products of int32 elements past int32's range, in float64
    x = np.arange(1, 101, dtype=np.int32).reshape(1, 100)
    np.testing.assert_allclose(
        LK.scan_rows(put(x), "*", np.float64).asnumpy(),
        np.cumprod(x, axis=1, dtype=np.float64), rtol=1e-12)


def test_scan_complex(put, require_dtypes):
    require_dtypes(np.complex128)
    rng = np.random.default_rng(9)
    x = (rng.random((2, 500)) + 1j * rng.random((2, 500)) - 0.5)
    for op, fn in (("+", np.cumsum), ("*", np.cumprod)):
        np.testing.assert_allclose(
            LK.scan_rows(put(x), op, np.complex128).asnumpy(),
            fn(x, axis=1), rtol=1e-9, atol=1e-300)


def test_scan_any_layout(put):
    x = np.arange(3 * 900).reshape(900, 3) % 17
    d = put(x)
    np.testing.assert_array_equal(LK.scan_rows(d.T, "+", np.int64).asnumpy(),
                                  np.cumsum(x.T, axis=1))
    np.testing.assert_array_equal(
        LK.scan_rows(d[::-3, 1:], "+", np.int64).asnumpy(),
        np.cumsum(x[::-3, 1:], axis=1))
    # a lazy expression is evaluated by the launch
    np.testing.assert_array_equal(
        LK.scan_rows((d + 1).T, "+", np.int64).asnumpy(),
        np.cumsum((x + 1).T, axis=1))


def test_scan_bad_arguments(put):
    with pytest.raises(errors.InvalidArgumentError, match="'-'"):
        LK.scan_rows(put(np.ones((2, 2))), "-", np.float32)
    with pytest.raises(errors.InvalidArgumentError, match="2 dimensions"):
        LK.scan_rows(put(np.ones(4)), "+", np.float32)
    with pytest.raises(errors.TypingError, match="DeviceArray"):
        LK.scan_rows(np.ones((2, 2)), "+", np.float32)


# --------------------------------------------------------------- sorting

@pytest.mark.parametrize("dtype", SORT_DTYPES)
def test_argsort_dtypes_stable(put, require_dtypes, dtype):
    require_dtypes(dtype)
    rng = np.random.default_rng(4)
    # few distinct values: many ties, so stability shows
    x = rng.integers(0, 2 if dtype == np.bool_ else 9, (3, 300)).astype(dtype)
    if np.dtype(dtype).kind in "iu":
        x[0, :5] = np.iinfo(dtype).max
        x[1, :5] = np.iinfo(dtype).min
    d = put(x)
    np.testing.assert_array_equal(LK.argsort_rows(d).asnumpy(),
                                  np.argsort(x, axis=1, kind="stable"))
    np.testing.assert_array_equal(LK.argsort_rows(d, True).asnumpy(),
                                  descending_argsort(x))
    s = LK.sort_rows(d, descending=True)
    assert s.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(s.asnumpy(),
                                  np.take_along_axis(x, descending_argsort(x),
                                                     axis=1))
    np.testing.assert_array_equal(LK.sort_rows(d).asnumpy(),
                                  np.sort(x, axis=1))


@pytest.mark.parametrize("n", [1, 2, 7, 1000, 4099, 100000])
def test_argsort_sizes(put, n):
    rng = np.random.default_rng(n)
    x = rng.integers(0, max(2, n // 10), (1, n)).astype(np.float32)
    out = LK.argsort_rows(put(x))
    assert out.dtype == np.int64 and out.shape == (1, n)
    assert out.flags.c_contiguous
    np.testing.assert_array_equal(out.asnumpy(),
                                  np.argsort(x, axis=1, kind="stable"))


def test_argsort_many_rows(put):
    x = np.random.default_rng(5).integers(-50, 50, (200, 37)).astype(np.int32)
    np.testing.assert_array_equal(LK.argsort_rows(put(x)).asnumpy(),
                                  np.argsort(x, axis=1, kind="stable"))
    np.testing.assert_array_equal(LK.sort_rows(put(x), True).asnumpy(),
                                  -np.sort(-x, axis=1))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sort_nan_inf_signed_zero(put, require_dtypes, dtype):
    require_dtypes(dtype)
    x = np.array([[np.nan, 1.0, -np.inf, 0.0, np.nan, -0.0, np.inf, 1.0,
                   -2.5, np.nan, 0.0]], dtype=dtype)
    d = put(x)
    np.testing.assert_array_equal(LK.argsort_rows(d).asnumpy(),
                                  np.argsort(x, axis=1, kind="stable"))
    # descending: NaNs first, equal elements in their original order
    np.testing.assert_array_equal(LK.argsort_rows(d, True).asnumpy(),
                                  descending_argsort(x))
    assert list(LK.argsort_rows(d, True).asnumpy()[0, :3]) == [0, 4, 9]
    s = LK.sort_rows(d).asnumpy()
    np.testing.assert_array_equal(s, np.sort(x, axis=1))
    # -0.0 and 0.0 are equal keys: their original order, and signs, stay
    np.testing.assert_array_equal(np.signbit(s), np.signbit(
        np.take_along_axis(x, np.argsort(x, axis=1, kind="stable"), 1)))


def test_argsort_complex(put, require_dtypes):
    require_dtypes(np.complex128)
    nan = np.nan
    x = np.array([[1 + 2j, 1 + 1j, nan + 1j, 0 + 5j, 1 + nan * 1j, 1 + 1j,
                   complex(nan, nan), -1 + 0j, 0 + 5j, 2 + 0j]])
    for dtype in (np.complex64, np.complex128):
        xc = x.astype(dtype)
        np.testing.assert_array_equal(LK.argsort_rows(put(xc)).asnumpy(),
                                      np.argsort(xc, axis=1, kind="stable"))
        np.testing.assert_array_equal(LK.sort_rows(put(xc)).asnumpy(),
                                      np.sort(xc, axis=1))


def test_argsort_any_layout_and_empty(put):
    x = np.random.default_rng(6).integers(0, 5, (60, 4)).astype(np.int16)
    np.testing.assert_array_equal(LK.argsort_rows(put(x).T).asnumpy(),
                                  np.argsort(x.T, axis=1, kind="stable"))
    np.testing.assert_array_equal(
        LK.sort_rows(put(x)[::-2, :].T).asnumpy(), np.sort(x[::-2].T, axis=1))
    for shape in ((0, 5), (3, 0)):
        assert LK.argsort_rows(put(np.zeros(shape))).shape == shape
        assert LK.sort_rows(put(np.zeros(shape, np.int8))).shape == shape


# --------------------------------------------------------------- compact

@pytest.mark.parametrize("n", [0, 1, 7, 1000, 100000])
def test_compact(put, n):
    rng = np.random.default_rng(n)
    mask = rng.random(n) < 0.3
    values = rng.integers(-99, 99, n).astype(np.int16)
    positions = LK.compact(put(mask))
    assert positions.dtype == np.int64
    np.testing.assert_array_equal(positions.asnumpy(), np.flatnonzero(mask))
    picked = LK.compact(put(mask), put(values))
    assert picked.dtype == np.int16
    np.testing.assert_array_equal(picked.asnumpy(), values[mask])


def test_compact_all_none_strided_lazy(put):
    values = np.arange(3000, dtype=np.float32)
    d = put(values)
    for mask in (np.ones(3000, bool), np.zeros(3000, bool)):
        np.testing.assert_array_equal(LK.compact(put(mask), d).asnumpy(),
                                      values[mask])
    # a strided mask and values view, and a lazy mask expression
    np.testing.assert_array_equal(
        LK.compact((d % 3 == 0)[::2], d[::-2]).asnumpy(),
        values[::-2][(values % 3 == 0)[::2]])


def test_compact_bad_arguments(put):
    with pytest.raises(errors.TypingError, match="bool"):
        LK.compact(put(np.arange(3)))
    with pytest.raises(IndexError, match="did not match"):
        LK.compact(put(np.ones(3, bool)), put(np.ones(4)))


# --------------------------------------------------------------- scatter

@pytest.mark.parametrize("n", [1, 7, 1000, 100000])
def test_scatter_masked(put, n):
    rng = np.random.default_rng(n)
    dest = rng.random(n).astype(np.float32)
    mask = rng.random(n) < 0.5
    src = rng.integers(0, 1000, int(mask.sum()))  # int64: converted
    d = put(dest)
    assert LK.scatter_masked(d, put(mask), put(src)) is d
    dest[mask] = src
    np.testing.assert_array_equal(d.asnumpy(), dest)


def test_scatter_masked_one_value_and_errors(put):
    dest = np.arange(10, dtype=np.int32)
    mask = dest % 2 == 0
    d = put(dest)
    LK.scatter_masked(d, put(mask), put(np.array([-7])))
    dest[mask] = [-7]
    np.testing.assert_array_equal(d.asnumpy(), dest)
    with pytest.raises(ValueError) as numpy_error:
        dest[mask] = np.arange(3)
    with pytest.raises(errors.InvalidArgumentError) as ours:
        LK.scatter_masked(d, put(mask), put(np.arange(3)))
    assert str(ours.value) == str(numpy_error.value)
    # a view of dest written in place; nothing to write
    LK.scatter_masked(d[::2], put(np.zeros(5, bool)), put(np.zeros(0)))
    LK.scatter_masked(d[::3], put(np.ones(4, bool)), put(np.arange(4)))
    dest[::3] = np.arange(4)
    np.testing.assert_array_equal(d.asnumpy(), dest)


# --------------------------------------------------------------- take/put

@pytest.mark.parametrize("idx_dtype", INT_DTYPES)
def test_take_rows_index_dtypes(put, idx_dtype):
    x = np.arange(2 * 10 * 3, dtype=np.float32).reshape(2, 10, 3)
    signed = np.dtype(idx_dtype).kind == "i"
    idx = np.array([0, 9, 3, 3, -1, -10, 5] if signed else [0, 9, 3, 3, 5],
                   dtype=idx_dtype)
    out = LK.take_rows(put(x), put(idx))
    assert out.shape == (2, len(idx), 3) and out.flags.c_contiguous
    np.testing.assert_array_equal(out.asnumpy(), x[:, idx])


def test_take_rows_layouts_and_sizes(put):
    rng = np.random.default_rng(7)
    base = rng.random((6, 4099, 4)).astype(np.float32)
    x = base[::2, :, ::-1]
    idx = rng.integers(-4099, 4099, 1000)
    np.testing.assert_array_equal(
        LK.take_rows(put(base)[::2, :, ::-1], put(idx)[::-1]).asnumpy(),
        x[:, idx[::-1]])
    x1 = np.arange(7, dtype=np.int8).reshape(1, 7, 1)
    np.testing.assert_array_equal(
        LK.take_rows(put(x1), put(np.array([6]))).asnumpy(), x1[:, [6]])
    assert LK.take_rows(put(x1), put(np.zeros(0, np.int64))).shape == (1, 0, 1)
    assert LK.take_rows(put(np.zeros((0, 5, 2))),
                        put(np.array([4]))).shape == (0, 1, 2)


@pytest.mark.parametrize("bad", [[1, 12, -20], [3, -11, 40], [10]])
def test_take_and_put_out_of_bounds(put, bad):
    x = np.zeros((2, 10, 3))
    with pytest.raises(IndexError) as numpy_error:
        np.take(x, bad, axis=1)
    with pytest.raises(errors.ArrayIndexError) as ours:
        LK.take_rows(put(x), put(np.array(bad)), axis=1)
    assert str(ours.value) == str(numpy_error.value)
    with pytest.raises(errors.ArrayIndexError) as ours:
        LK.put_rows(put(x), put(np.array(bad)),
                    put(np.zeros((2, len(bad), 3))))
    assert str(ours.value) == "index %d is out of bounds for axis 0 with " \
        "size 10" % next(b for b in bad if not -10 <= b < 10)
    big = np.array([3, 2**63 + 1], dtype=np.uint64)
    with pytest.raises(IndexError, match=f"index {2**63 + 1} is out"):
        LK.take_rows(put(x), put(big))
    with pytest.raises(IndexError, match="integer"):
        LK.take_rows(put(x), put(np.array([1.0])))


@pytest.mark.parametrize("m", [1, 7, 1000])
def test_put_rows(put, m):
    rng = np.random.default_rng(m)
    x = rng.random((3, 50, 2))
    idx = rng.integers(-50, 50, m)          # repeats: the last write wins
    values = rng.random((3, m, 2)).astype(np.float32)
    d = put(x.astype(np.float32))
    assert LK.put_rows(d, put(idx), put(values)) is d
    expected = x.astype(np.float32)
    expected[:, idx] = values
    np.testing.assert_array_equal(d.asnumpy(), expected)
    # values broadcast to (pre, m, post) by a view with zero strides
    row = np.arange(m, dtype=np.int64)
    LK.put_rows(d, put(idx), put(row)._view([3, m, 2], [0, 8, 0], 0))
    expected[:, idx] = row[None, :, None]
    np.testing.assert_array_equal(d.asnumpy(), expected)


def test_put_rows_duplicates_last_wins_and_aliasing(put):
    x = np.arange(20, dtype=np.int64).reshape(1, 20, 1)
    idx = np.array([5, -15, 5, 2, 19, 2])
    values = np.arange(100, 106).reshape(1, 6, 1)
    d = put(x)
    LK.put_rows(d, put(idx), put(values))
    expected = x.copy()
    expected[:, idx] = values
    np.testing.assert_array_equal(d.asnumpy(), expected)
    # values read from x itself: NumPy reads them all before writing
    perm = np.arange(19, -1, -1)
    LK.put_rows(d, put(perm), d)
    expected[:, perm] = expected.copy()
    np.testing.assert_array_equal(d.asnumpy(), expected)


# --------------------------------------------------------------- search

@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.float32, np.float64])
def test_searchsorted(put, require_dtypes, side, dtype):
    require_dtypes(dtype)
    rng = np.random.default_rng(8)
    a = np.sort(rng.integers(0, 50, 1000).astype(dtype))
    v = rng.integers(-5, 60, (7, 30)).clip(0, 255).astype(dtype)
    if np.dtype(dtype).kind == "f":
        a[-10:] = np.nan
        a = np.sort(a)
        v[0, :4] = [np.nan, np.inf, -np.inf, 49]
    out = LK.searchsorted(put(a), put(v), side)
    assert out.dtype == np.int64 and out.shape == v.shape
    np.testing.assert_array_equal(out.asnumpy(), np.searchsorted(a, v, side))


def test_searchsorted_edges(put):
    a = np.array([1, 2, 2, 2, 3], dtype=np.int64)
    v = np.array([[0, 1, 2], [3, 4, 2]], dtype=np.int64)
    for side in ("left", "right"):
        # a strided v, mixed dtypes (float v in an int a), an empty a
        np.testing.assert_array_equal(
            LK.searchsorted(put(a), put(v).T, side).asnumpy(),
            np.searchsorted(a, v.T, side))
        vf = np.array([1.5, 2.0, -0.5])
        np.testing.assert_array_equal(
            LK.searchsorted(put(a), put(vf), side).asnumpy(),
            np.searchsorted(a, vf, side))
        np.testing.assert_array_equal(
            LK.searchsorted(put(a[:0]), put(v), side).asnumpy(),
            np.zeros(v.shape, np.int64))
    flags = np.array([False, False, True, True])
    for side in ("left", "right"):
        np.testing.assert_array_equal(
            LK.searchsorted(put(flags), put(np.array([True, False])),
                            side).asnumpy(),
            np.searchsorted(flags, [True, False], side))
    assert LK.searchsorted(put(a), put(np.zeros((0, 3), np.int64))).shape \
        == (0, 3)
    np.testing.assert_array_equal(
        LK.searchsorted(put(a), put(np.array(2))).asnumpy(), 1)
    with pytest.raises(errors.InvalidArgumentError, match="side"):
        LK.searchsorted(put(a), put(v), "middle")


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64,
                                   np.uint16, np.uint32, np.uint64,
                                   np.float32, np.float64, np.bool_],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("form", ["device's", "tiled"])
def test_radix_sort_of_long_rows_orders_extremes_as_numpy(device, dtype,
                                                          require_dtypes,
                                                          form, monkeypatch):
    # Rows of at least RADIX_MIN elements take the radix sort: keys made
    # from the bits (signs, both zeros, NaNs last, the extreme integers).
    # "tiled" forces the GPUs' form (whole tiles ranked in local memory)
    # on every device, over several tiles and a partial one.
    require_dtypes(dtype)
    rng = np.random.default_rng(3)
    n = LK.RADIX_MIN + 37
    if form == "tiled":
        from spirjit import _library_radix
        monkeypatch.setattr(_library_radix, "TILED", True)
        n = 2 * _library_radix.TILE + 37
    if np.dtype(dtype).kind == "f":
        h = rng.standard_normal(n).astype(dtype)
        h[::9] = np.nan
        h[1::13] = -0.0
        h[2::13] = 0.0
        h[3], h[4] = np.inf, -np.inf
        h[5] = np.finfo(dtype).tiny / 4  # a subnormal
    elif dtype is np.bool_:
        h = rng.integers(0, 2, n).astype(bool)
    else:
        info = np.iinfo(dtype)
        h = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        h[:4] = [info.min, info.max, 0, info.min]
    x = spirjit.asarray(h.reshape(1, n), device=device)
    np.testing.assert_array_equal(LK.argsort_rows(x).asnumpy()[0],
                                  np.argsort(h, kind="stable"))
    want = n - 1 - np.flip(np.argsort(np.flip(h), kind="stable"))
    np.testing.assert_array_equal(LK.argsort_rows(x, True).asnumpy()[0], want)
    np.testing.assert_array_equal(LK.sort_rows(x).asnumpy()[0],
                                  h[np.argsort(h, kind="stable")])


@pytest.mark.parametrize("tiles", [1, 7, 2048, 5000])
def test_radix_digit_scan_gives_each_tiles_offsets(put, tiles):
    # The tiled sort's scan of the digit-major counts, a group a digit:
    # every tile's offset among the keys of its digit, and each digit's
    # total. Rows longer than a group's chunk (2048 counts) take several
    # chunks, the last one partial (a sort of 2^24 keys has 4096 tiles).
    from spirjit import _library_radix
    import spirjit.kernel_api as kapi
    digits = 3
    counts = np.random.default_rng(tiles).integers(
        0, 4097, (digits, tiles)).astype(np.int32)
    offsets = put(np.full(digits * tiles, -1, np.int32))
    totals = put(np.full(digits, -1, np.int32))
    width = 256
    spirjit.call_kernel(_library_radix._radix_digit_scan,
                        kapi.NdRange((digits * width,), (width,)),
                        put(counts.ravel()), offsets, totals, tiles)
    want = np.cumsum(counts, axis=1) - counts
    np.testing.assert_array_equal(offsets.asnumpy().reshape(digits, tiles),
                                  want)
    np.testing.assert_array_equal(totals.asnumpy(), counts.sum(axis=1))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8,
                                   np.int64, np.uint32],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("zero", [1.0, 0.0, -0.0])
def test_tiled_sort_of_keys_alone_gives_numpys_values(device, dtype,
                                                      require_dtypes,
                                                      monkeypatch, zero):
    # Floats without NaNs or zeros of both signs, and integers, sort as
    # keys alone (no index travels) on the tiled form: the values decoded
    # from the sorted keys must be NumPy's, bit for bit, both ways.
    require_dtypes(dtype)
    from spirjit import _library_radix
    monkeypatch.setattr(_library_radix, "TILED", True)
    rng = np.random.default_rng(5)
    n = 2 * _library_radix.TILE + 11
    if np.dtype(dtype).kind == "f":
        h = rng.standard_normal(n).astype(dtype)
        h[:3] = [np.inf, -np.inf, np.finfo(dtype).tiny / 4]
        h[3::101] = zero
    else:
        info = np.iinfo(dtype)
        h = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    x = spirjit.asarray(h.reshape(1, n), device=device)
    assert _library_radix.radix_sorted(x, False) is not None
    want = np.sort(h)
    np.testing.assert_array_equal(LK.sort_rows(x).asnumpy()[0].view(
        f"u{h.itemsize}"), want.view(f"u{h.itemsize}"))
    np.testing.assert_array_equal(LK.sort_rows(x, True).asnumpy()[0].view(
        f"u{h.itemsize}"), want[::-1].view(f"u{h.itemsize}"))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16,
                                   np.uint8, np.int64],
                         ids=lambda d: np.dtype(d).name)
def test_argpartition_of_a_long_row_selects_as_numpy(device, dtype,
                                                     require_dtypes):
    # One kth of a long row is selected (radix select, then one scan that
    # places every index), not sorted: the kth element is NumPy's, smaller
    # ones come before it and larger after, ties and NaNs included.
    require_dtypes(dtype)
    from spirjit import _array_primitives, _library_select
    rng = np.random.default_rng(8)
    n = _library_select.SELECT_MIN + 123
    if np.dtype(dtype).kind == "f":
        h = rng.standard_normal(n).astype(dtype)
        h[::50] = np.nan
        h[1::70] = -0.0
        h[2::70] = 0.0
    else:
        info = np.iinfo(dtype)
        h = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    h[::3] = h[4]                                  # many ties
    want = np.sort(h)
    x = spirjit.asarray(h, device=device)
    with _array_primitives.use_host(False):
        for kth in (0, 1, n // 3, n - 1, -100):
            got = np.argpartition(x, kth)
            assert isinstance(got, spirjit.DeviceArray)
            order = got.asnumpy()
            np.testing.assert_array_equal(np.sort(order), np.arange(n))
            k = kth % n
            v = h[order]
            np.testing.assert_array_equal(v[k], want[k])
            if not np.isnan(want[k]):
                assert not np.any(v[:k] > v[k])
                assert not np.any(v[k + 1:] < v[k])
            np.testing.assert_array_equal(np.partition(x, kth).asnumpy()[k],
                                          want[k])


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.complex64,
                                   np.bool_], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", [2, 3, 100, 1000, 2048])
def test_group_sort_of_short_rows_is_numpys_stable_order(device, dtype, n,
                                                         require_dtypes,
                                                         monkeypatch):
    # GPUs sort short rows a row a work-group in local memory; forced
    # here on every device: NumPy's stable order both ways, NaNs and
    # ties included, over several rows.
    require_dtypes(dtype)
    monkeypatch.setattr(LK, "GROUP_SORT", True)
    rng = np.random.default_rng(n)
    h = rng.integers(0, 7, (3, n)).astype(dtype)
    if np.dtype(dtype).kind in "fc":
        h = h + rng.standard_normal((3, n)).astype(dtype)
        h[:, ::5] = h[:, 1:2]
        h[:, ::7] = np.nan
    x = spirjit.asarray(h, device=device)
    np.testing.assert_array_equal(LK.argsort_rows(x).asnumpy(),
                                  np.argsort(h, axis=1, kind="stable"))
    want = n - 1 - np.flip(np.argsort(np.flip(h, 1), axis=1,
                                      kind="stable"), 1)
    np.testing.assert_array_equal(LK.argsort_rows(x, True).asnumpy(), want)
    np.testing.assert_array_equal(LK.sort_rows(x).asnumpy(),
                                  np.sort(h, axis=1, kind="stable"))
