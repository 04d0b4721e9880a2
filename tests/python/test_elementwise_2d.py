"""2-D and 3-D launches: item queries follow the row-major convention
(dimension 0 slowest), and kernels index arrays of any layout correctly,
C, Fortran, strided and negative-stride views alike, for reading and for
writing."""

import numpy as np
import pytest

import spirjit
from spirjit import kernel_api as kapi


@spirjit.kernel
def axpy_2d(item: kapi.Item, a, b, out):
    i = item.get_id(0)
    j = item.get_id(1)
    out[i, j] = a[i, j] * 3 + b[i][j]


@spirjit.kernel
def copy_rows(item: kapi.Item, a, out):
    i = item.get_id(0)
    j = item.get_id(1)
    out[i][j] = a[i][j]


@spirjit.kernel
def transpose(item: kapi.Item, a, out):
    i = item.get_id(0)
    j = item.get_id(1)
    out[j, i] = a[i, j]


@spirjit.kernel
def row_sums(item: kapi.Item, a, out):
    i = item.get_id(0)
    s = 0.0
    for j in range(a.shape[1]):
        s += a[i, j]
    out[i] = s


@spirjit.kernel
def item_queries_1d(item: kapi.Item, out):
    i = item.get_id(0)
    out[i, 0] = item.get_id(0)
    out[i, 1] = item.get_range(0)
    out[i, 2] = item.get_linear_id()
    out[i, 3] = item.get_linear_range()
    out[i, 4] = item.dimensions


@spirjit.kernel
def item_queries_2d(item: kapi.Item, out):
    i = item.get_id(0)
    j = item.get_id(1)
    out[i, j, 0] = item.get_id(0)
    out[i, j, 1] = item.get_id(1)
    out[i, j, 2] = item.get_range(0)
    out[i, j, 3] = item.get_range(1)
    out[i, j, 4] = item.get_linear_id()
    out[i, j, 5] = item.get_linear_range()
    out[i, j, 6] = item.dimensions


@spirjit.kernel
def item_queries_3d(item: kapi.Item, out):
    i = item.get_id(0)
    j = item.get_id(1)
    k = item.get_id(2)
    out[i, j, k, 0] = item.get_id(0)
    out[i, j, k, 1] = item.get_id(1)
    out[i, j, k, 2] = item.get_id(2)
    out[i, j, k, 3] = item.get_range(0)
    out[i, j, k, 4] = item.get_range(1)
    out[i, j, k, 5] = item.get_range(2)
    out[i, j, k, 6] = item.get_linear_id()
    out[i, j, k, 7] = item.get_linear_range()
    out[i, j, k, 8] = item.dimensions


@spirjit.kernel
def scatter_linear(item: kapi.Item, out):
    # Every item writes its own linear id at its linear position: a wrong
    # linearisation leaves holes or duplicates.
    out[item.get_linear_id()] = item.get_linear_id()


def base_matrix(rows=24, cols=30, dtype=np.float64):
    return (np.arange(rows * cols, dtype=np.int64).reshape(rows, cols) % 97
            - 40).astype(dtype)


def with_layout(x, layout):
    """An array equal to 2-D ``x`` whose memory has the given layout; every
    non-trivial layout is a view into a larger or reordered buffer."""
    r, c = x.shape
    if layout == "C":
        return np.ascontiguousarray(x)
    if layout == "F":
        return np.asfortranarray(x)
    if layout == "strided":  # as a[::2, 1::3]
        big = np.zeros((2 * r, 3 * c + 1), dtype=x.dtype)
        view = big[::2, 1::3]
    elif layout == "negative_rows":  # as a[::-1]
        view = np.zeros_like(x)[::-1]
    elif layout == "negative_cols":  # as a[:, ::-1]
        view = np.zeros_like(x)[:, ::-1]
    elif layout == "negative_both":  # as a[::-2, ::-3]
        big = np.zeros((2 * r, 3 * c), dtype=x.dtype)
        view = big[::-2, ::-3]
    elif layout == "transposed":
        view = np.zeros((c, r), dtype=x.dtype).T
    elif layout == "F_strided":
        big = np.zeros((2 * r, 2 * c), dtype=x.dtype, order="F")
        view = big[1::2, ::2]
    else:
        raise ValueError(layout)
    assert view.shape == x.shape
    view[...] = x
    return view


LAYOUTS = ["C", "F", "strided", "negative_rows", "negative_cols",
           "negative_both", "transposed", "F_strided"]


def outermost_base(a):
    while a.base is not None:
        a = a.base
    return a


def test_layouts_are_what_they_say():
    m = base_matrix(6, 5)
    for layout in LAYOUTS:
        v = with_layout(m, layout)
        np.testing.assert_array_equal(v, m)
    assert with_layout(m, "C").flags.c_contiguous
    assert with_layout(m, "F").flags.f_contiguous
    assert not with_layout(m, "F").flags.c_contiguous
    for layout in ["strided", "negative_both", "F_strided"]:
        v = with_layout(m, layout)
        assert not v.flags.c_contiguous and not v.flags.f_contiguous
    assert with_layout(m, "negative_rows").strides[0] < 0
    assert with_layout(m, "negative_cols").strides[1] < 0


@pytest.mark.parametrize("b_layout", ["C", "F", "strided", "negative_both"])
@pytest.mark.parametrize("a_layout", LAYOUTS)
def test_axpy_2d_layouts(device_filter, require_dtypes, a_layout, b_layout):
    require_dtypes(np.float64)
    a = with_layout(base_matrix(), a_layout)
    b = with_layout(base_matrix()[::-1] * 0.5 + 1, b_layout)
    out = np.zeros(a.shape, dtype=np.float64)
    spirjit.call_kernel(axpy_2d, kapi.Range(*a.shape), a, b, out)
    np.testing.assert_array_equal(out, a * 3 + b)


def test_axpy_2d_numpy_slices(device_filter, require_dtypes):
    # The views of the brief, taken directly with NumPy slicing.
    require_dtypes(np.float64)
    m = base_matrix()
    for a in (m[::2, 1::3], m[::-1], m[:, ::-1], np.asfortranarray(m)[::3]):
        b = np.ones(a.shape)
        out = np.zeros(a.shape)
        spirjit.call_kernel(axpy_2d, kapi.Range(*a.shape), a, b, out)
        np.testing.assert_array_equal(out, a * 3 + 1)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64, np.uint8],
                         ids=lambda d: np.dtype(d).name)
def test_axpy_2d_dtypes(device_filter, dtype):
    a = base_matrix(9, 13).astype(dtype)
    b = with_layout(base_matrix(9, 13).astype(dtype)[::-1], "F")
    out = np.zeros(a.shape, dtype=dtype)
    spirjit.call_kernel(axpy_2d, kapi.Range(9, 13), a, b, out)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(out, a * 3 + b)


@pytest.mark.parametrize("out_layout", LAYOUTS)
def test_write_into_views(device_filter, out_layout):
    # Writes land exactly where NumPy's view says, and nowhere else.
    view = with_layout(np.full((12, 10), -7, dtype=np.int64), out_layout)
    base = outermost_base(view)
    base[...] = -7
    source = np.arange(1, view.size + 1, dtype=np.int64).reshape(view.shape)
    spirjit.call_kernel(copy_rows, kapi.Range(*view.shape), source, view)
    np.testing.assert_array_equal(view, source)
    assert np.count_nonzero(base != -7) == view.size


def test_write_into_numpy_slice_views(device_filter):
    base = np.zeros((10, 12), dtype=np.int32)
    for take in (lambda m: m[1::2, ::-3], lambda m: m[::-1],
                 lambda m: m[:, 1::3]):
        base[...] = 0
        view = take(base)
        source = np.arange(1, view.size + 1,
                           dtype=np.int32).reshape(view.shape)
        spirjit.call_kernel(copy_rows, kapi.Range(*view.shape), source, view)
        expected = np.zeros_like(base)
        take(expected)[...] = source
        np.testing.assert_array_equal(base, expected)


def test_transpose_uses_both_ids(device_filter):
    a = base_matrix(5, 8, np.int32)
    out = np.zeros((8, 5), dtype=np.int32)
    spirjit.call_kernel(transpose, kapi.Range(5, 8), a, out)
    np.testing.assert_array_equal(out, a.T)


@pytest.mark.parametrize("layout", ["C", "F", "strided", "negative_cols"])
def test_row_sums_loop_over_shape(device_filter, require_dtypes, layout):
    require_dtypes(np.float64)
    a = with_layout(base_matrix(), layout)
    out = np.zeros(a.shape[0], dtype=np.float64)
    spirjit.call_kernel(row_sums, kapi.Range(a.shape[0]), a, out)
    np.testing.assert_allclose(out, a.sum(axis=1), rtol=1e-12)


@pytest.mark.parametrize("n", [1, 5, 64])
def test_item_queries_1d(device_filter, n):
    out = np.full((n, 5), -1, dtype=np.int64)
    spirjit.call_kernel(item_queries_1d, kapi.Range(n), out)
    ids = np.arange(n)
    np.testing.assert_array_equal(out[:, 0], ids)
    np.testing.assert_array_equal(out[:, 1], n)
    np.testing.assert_array_equal(out[:, 2], ids)
    np.testing.assert_array_equal(out[:, 3], n)
    np.testing.assert_array_equal(out[:, 4], 1)


@pytest.mark.parametrize("shape", [(5, 7), (1, 9), (8, 1), (16, 16)])
def test_item_queries_2d(device_filter, shape):
    rows, cols = shape
    out = np.full((rows, cols, 7), -1, dtype=np.int64)
    spirjit.call_kernel(item_queries_2d, kapi.Range(rows, cols), out)
    i, j = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    np.testing.assert_array_equal(out[..., 0], i)
    np.testing.assert_array_equal(out[..., 1], j)
    np.testing.assert_array_equal(out[..., 2], rows)
    np.testing.assert_array_equal(out[..., 3], cols)
    # Row-major: dimension 0 is the slowest.
    np.testing.assert_array_equal(out[..., 4], i * cols + j)
    np.testing.assert_array_equal(out[..., 4],
                                  np.arange(rows * cols).reshape(rows, cols))
    np.testing.assert_array_equal(out[..., 5], rows * cols)
    np.testing.assert_array_equal(out[..., 6], 2)


@pytest.mark.parametrize("shape", [(3, 4, 5), (2, 1, 3), (1, 1, 1), (4, 3, 2)])
def test_item_queries_3d(device_filter, shape):
    d0, d1, d2 = shape
    out = np.full(shape + (9,), -1, dtype=np.int64)
    spirjit.call_kernel(item_queries_3d, kapi.Range(*shape), out)
    i, j, k = np.meshgrid(np.arange(d0), np.arange(d1), np.arange(d2),
                          indexing="ij")
    np.testing.assert_array_equal(out[..., 0], i)
    np.testing.assert_array_equal(out[..., 1], j)
    np.testing.assert_array_equal(out[..., 2], k)
    np.testing.assert_array_equal(out[..., 3], d0)
    np.testing.assert_array_equal(out[..., 4], d1)
    np.testing.assert_array_equal(out[..., 5], d2)
    np.testing.assert_array_equal(out[..., 6], (i * d1 + j) * d2 + k)
    np.testing.assert_array_equal(out[..., 7], d0 * d1 * d2)
    np.testing.assert_array_equal(out[..., 8], 3)


@pytest.mark.parametrize("shape", [(37,), (6, 7), (3, 5, 4)])
def test_linear_ids_cover_the_range_once(device_filter, shape):
    n = int(np.prod(shape))
    out = np.full(n, -1, dtype=np.int64)
    spirjit.call_kernel(scatter_linear, kapi.Range(*shape), out)
    np.testing.assert_array_equal(out, np.arange(n))


def test_3d_arrays_any_layout(device_filter):
    @spirjit.kernel
    def double_3d(item, a, out):
        i = item.get_id(0)
        j = item.get_id(1)
        k = item.get_id(2)
        out[i][j][k] = a[i, j, k] + a[i][j][k]

    a = np.arange(2 * 3 * 4, dtype=np.int32).reshape(2, 3, 4)
    for view in (a, np.asfortranarray(a), a.transpose(2, 0, 1)[::-1],
                 a[:, ::-2, 1:]):
        out = np.zeros(view.shape, dtype=np.int32)
        spirjit.call_kernel(double_3d, kapi.Range(*view.shape), view, out)
        np.testing.assert_array_equal(out, 2 * view)
    # Writing through a 3-D view with a negative stride.
    base = np.zeros((4, 2, 3), dtype=np.int32)
    view = base.transpose(1, 2, 0)[:, ::-1]
    source = np.arange(view.size, dtype=np.int32).reshape(view.shape)
    spirjit.call_kernel(double_3d, kapi.Range(*view.shape), source, view)
    np.testing.assert_array_equal(view, 2 * source)
    expected = np.zeros((4, 2, 3), dtype=np.int32)
    expected.transpose(1, 2, 0)[:, ::-1] = 2 * source
    np.testing.assert_array_equal(base, expected)


def test_shape_ndim_size_len_inside_kernel(device_filter):
    @spirjit.kernel
    def describe(item, a, out):
        i = item.get_id(0)
        j = item.get_id(1)
        rows, cols = a.shape
        out[i, j, 0] = rows
        out[i, j, 1] = cols
        out[i, j, 2] = a.ndim
        out[i, j, 3] = a.size
        out[i, j, 4] = len(a)
        out[i, j, 5] = a.shape[1]
        out[i, j, 6] = a[-1 - i, -1 - j]  # negative indices wrap around

    a = base_matrix(4, 6, np.int64)[:, ::-1]
    out = np.zeros((4, 6, 7), dtype=np.int64)
    spirjit.call_kernel(describe, kapi.Range(4, 6), a, out)
    np.testing.assert_array_equal(out[..., 0], 4)
    np.testing.assert_array_equal(out[..., 1], 6)
    np.testing.assert_array_equal(out[..., 2], 2)
    np.testing.assert_array_equal(out[..., 3], 24)
    np.testing.assert_array_equal(out[..., 4], 4)
    np.testing.assert_array_equal(out[..., 5], 6)
    np.testing.assert_array_equal(out[..., 6], a[::-1, ::-1])
