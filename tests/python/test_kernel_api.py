"""The kernel API (``spirjit.kernel_api``, "kapi") on every device: the item,
nd-item and group getters, local memory with barriers (reductions, a scan, a
tiled matrix multiply), private arrays, atomics and fences, the enum
constants, group collectives, asynchronous launches and the errors that
wrong launches and wrong atomics raise.  Every result is compared with a
formula or with NumPy."""

import operator
import re

import numpy as np
import pytest

import spirjit
from spirjit import errors
from spirjit import kernel_api as kapi
from kapi_kernels import (atomic_cas_counter, hillis_steele_scan,
                          local_accumulate, tiled_matmul, tree_reduce)


def dtype_id(dtype):
    return np.dtype(dtype).name


# ---------------------------------------------------------------------------
# 1. getters of Item, NdItem and Group in 1, 2 and 3 dimensions

ITEM_COLUMNS = 9      # id(0..2), range(0..2), linear id, linear range, dims
ND_COLUMNS = 30       # see expected_nd_getters


@spirjit.kernel
def item_getters(item: kapi.Item, out):
    # The row is the row-major position computed here from get_id and
    # get_range, independently of get_linear_id (which is itself checked).
    row = 0
    for d in range(item.dimensions):
        row = row * item.get_range(d) + item.get_id(d)
    for d in range(item.dimensions):
        out[row, d] = item.get_id(d)
        out[row, 3 + d] = item.get_range(d)
    out[row, 6] = item.get_linear_id()
    out[row, 7] = item.get_linear_range()
    out[row, 8] = item.dimensions


@spirjit.kernel
def nd_getters(item: kapi.NdItem, out):
    g = item.get_group()
    row = 0
    for d in range(item.dimensions):
        row = row * item.get_global_range(d) + item.get_global_id(d)
    for d in range(item.dimensions):
        out[row, d] = item.get_global_id(d)
        out[row, 3 + d] = item.get_local_id(d)
        out[row, 6 + d] = item.get_global_range(d)
        out[row, 9 + d] = item.get_local_range(d)
        out[row, 17 + d] = g.get_group_id(d)
        out[row, 21 + d] = g.get_group_range(d)
        out[row, 25 + d] = g.get_local_range(d)
    out[row, 12] = item.get_global_linear_id()
    out[row, 13] = item.get_local_linear_id()
    out[row, 14] = item.get_global_linear_range()
    out[row, 15] = item.get_local_linear_range()
    out[row, 16] = item.dimensions
    out[row, 20] = g.get_group_linear_id()
    out[row, 24] = g.get_group_linear_range()
    out[row, 28] = g.get_local_linear_range()
    out[row, 29] = g.dimensions


# The same getters with constant dimension arguments, one kernel per rank.
@spirjit.kernel
def nd_getters_3d_constant(item: kapi.NdItem, out):
    g = item.get_group()
    i = item.get_global_id(0)
    j = item.get_global_id(1)
    k = item.get_global_id(2)
    out[i, j, k, 0] = item.get_local_id(0)
    out[i, j, k, 1] = item.get_local_id(1)
    out[i, j, k, 2] = item.get_local_id(2)
    out[i, j, k, 3] = g.get_group_id(0)
    out[i, j, k, 4] = g.get_group_id(1)
    out[i, j, k, 5] = g.get_group_id(2)
    out[i, j, k, 6] = item.get_global_range(2)
    out[i, j, k, 7] = item.get_local_range(1)
    out[i, j, k, 8] = g.get_group_range(2)
    out[i, j, k, 9] = g.get_local_range(0)
    out[i, j, k, 10] = item.get_global_linear_id()
    out[i, j, k, 11] = item.get_local_linear_id()
    out[i, j, k, 12] = g.get_group_linear_id()
    out[i, j, k, 13] = item.dimensions + 10 * g.dimensions


@spirjit.kernel
def item_getters_2d_constant(item: kapi.Item, out):
    i = item.get_id(0)
    j = item.get_id(1)
    out[i, j, 0] = item.get_range(0)
    out[i, j, 1] = item.get_range(1)
    out[i, j, 2] = item.get_linear_id()
    out[i, j, 3] = item.get_linear_range()
    out[i, j, 4] = item.dimensions


def row_major(index, extents):
    linear = 0
    for i, n in zip(index, extents):
        linear = linear * n + i
    return linear


def expected_item_getters(shape):
    rank = len(shape)
    rows = []
    for index in np.ndindex(*shape):
        row = [-1] * ITEM_COLUMNS
        for d in range(rank):
            row[d] = index[d]
            row[3 + d] = shape[d]
        row[6] = row_major(index, shape)
        row[7] = int(np.prod(shape))
        row[8] = rank
        rows.append(row)
    return np.array(rows, dtype=np.int64)


def expected_nd_getters(global_shape, local_shape):
    rank = len(global_shape)
    groups = tuple(g // l for g, l in zip(global_shape, local_shape))
    rows = []
    for gid in np.ndindex(*global_shape):
        lid = tuple(i % l for i, l in zip(gid, local_shape))
        grp = tuple(i // l for i, l in zip(gid, local_shape))
        row = [-1] * ND_COLUMNS
        for d in range(rank):
            row[d] = gid[d]
            row[3 + d] = lid[d]
            row[6 + d] = global_shape[d]
            row[9 + d] = local_shape[d]
            row[17 + d] = grp[d]
            row[21 + d] = groups[d]
            row[25 + d] = local_shape[d]
        row[12] = row_major(gid, global_shape)
        row[13] = row_major(lid, local_shape)
        row[14] = int(np.prod(global_shape))
        row[15] = int(np.prod(local_shape))
        row[16] = rank
        row[20] = row_major(grp, groups)
        row[24] = int(np.prod(groups))
        row[28] = int(np.prod(local_shape))
        row[29] = rank
        rows.append(row)
    return np.array(rows, dtype=np.int64)


@pytest.mark.parametrize("shape", [(7,), (1,), (3, 5), (2, 3, 4), (4, 1, 6)],
                         ids=str)
def test_item_getters(device_filter, shape):
    out = np.full((int(np.prod(shape)), ITEM_COLUMNS), -1, np.int64)
    spirjit.call_kernel(item_getters, kapi.Range(*shape), out)
    np.testing.assert_array_equal(out, expected_item_getters(shape))


@pytest.mark.parametrize("global_shape, local_shape", [
    ((12,), (4,)),
    ((8,), (8,)),
    ((4, 6), (2, 3)),
    ((6, 4), (6, 1)),
    ((4, 6, 4), (2, 3, 2)),
    ((6, 4, 10), (3, 2, 5)),
], ids=str)
def test_nd_item_and_group_getters(device_filter, global_shape, local_shape):
    out = np.full((int(np.prod(global_shape)), ND_COLUMNS), -1, np.int64)
    spirjit.call_kernel(nd_getters, kapi.NdRange(global_shape, local_shape),
                        out)
    np.testing.assert_array_equal(
        out, expected_nd_getters(global_shape, local_shape))


def test_nd_getters_with_constant_dimensions_3d(device_filter):
    gs, ls = (4, 6, 10), (2, 3, 5)
    out = np.full(gs + (14,), -1, np.int64)
    spirjit.call_kernel(nd_getters_3d_constant, kapi.NdRange(gs, ls), out)
    full = expected_nd_getters(gs, ls).reshape(gs + (ND_COLUMNS,))
    want = np.stack([
        full[..., 3], full[..., 4], full[..., 5],        # local ids
        full[..., 17], full[..., 18], full[..., 19],     # group ids
        full[..., 8], full[..., 10], full[..., 23], full[..., 25],
        full[..., 12], full[..., 13], full[..., 20],
        np.full(gs, 33),
    ], axis=-1)
    np.testing.assert_array_equal(out, want)


def test_item_getters_with_constant_dimensions_2d(device_filter):
    shape = (5, 9)
    out = np.full(shape + (5,), -1, np.int64)
    spirjit.call_kernel(item_getters_2d_constant, kapi.Range(*shape), out)
    i, j = np.indices(shape)
    want = np.stack([np.full(shape, 5), np.full(shape, 9), i * 9 + j,
                     np.full(shape, 45), np.full(shape, 2)], axis=-1)
    np.testing.assert_array_equal(out, want)


def test_ranges_accept_numpy_integers_and_range_objects(device_filter):
    gs = kapi.Range(np.int64(4), np.int32(6))
    out = np.full((24, ND_COLUMNS), -1, np.int64)
    spirjit.call_kernel(nd_getters, kapi.NdRange(gs, kapi.Range(2, 3)), out)
    np.testing.assert_array_equal(out, expected_nd_getters((4, 6), (2, 3)))
    out1 = np.full((16, ND_COLUMNS), -1, np.int64)
    spirjit.call_kernel(nd_getters, kapi.NdRange(np.uint16(16), 4), out1)
    np.testing.assert_array_equal(out1, expected_nd_getters((16,), (4,)))


# ---------------------------------------------------------------------------
# 2. local memory: accumulation, tree reduction, scan, tiled matmul

@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32,
                                   np.float64], ids=dtype_id)
def test_local_memory_accumulation(device_filter, require_dtypes, dtype):
    require_dtypes(dtype)
    groups, L, chunk = 8, 32, 1000
    rng = np.random.default_rng(1)
    a = rng.integers(-100, 100, groups * chunk).astype(dtype)
    partial = np.zeros(groups, dtype)
    spirjit.call_kernel(local_accumulate, kapi.NdRange(groups * L, L), a,
                        partial, kapi.LocalAccessor(L, dtype))
    # integer-valued data: every summation order is exact
    np.testing.assert_array_equal(partial,
                                  a.reshape(groups, chunk).sum(axis=1))


@pytest.mark.parametrize("dtype", [np.float64, np.int64], ids=dtype_id)
@pytest.mark.parametrize("L", [256, 64])
def test_tree_reduction_2_pow_20(device_filter, require_dtypes, dtype, L):
    require_dtypes(dtype)
    n = 1 << 20
    rng = np.random.default_rng(2)
    if np.dtype(dtype).kind == "f":
        # integer-valued doubles: sums are exact in any order
        a = rng.integers(-1000, 1000, n).astype(dtype)
    else:
        a = rng.integers(-2**40, 2**40, n, dtype=dtype)
    partial = np.zeros(n // L, dtype)
    spirjit.call_kernel(tree_reduce, kapi.NdRange(n, L), a, partial,
                        kapi.LocalAccessor(L, dtype))
    np.testing.assert_array_equal(partial, a.reshape(-1, L).sum(axis=1))
    assert partial.sum() == a.sum()


def test_tree_reduction_on_device_arrays(device_filter):
    n, L = 1 << 20, 128
    a = np.random.default_rng(9).integers(-10**6, 10**6, n, dtype=np.int64)
    da = spirjit.asarray(a)
    dpartial = spirjit.zeros(n // L, np.int64)
    spirjit.call_kernel(tree_reduce, kapi.NdRange(n, L), da, dpartial,
                        kapi.LocalAccessor(L, np.int64))
    np.testing.assert_array_equal(spirjit.asnumpy(dpartial),
                                  a.reshape(-1, L).sum(axis=1))


def test_tree_reduction_float64_random(device_filter, require_dtypes):
    require_dtypes(np.float64)
    n, L = 1 << 20, 256
    a = np.random.default_rng(3).random(n)
    partial = np.zeros(n // L)
    spirjit.call_kernel(tree_reduce, kapi.NdRange(n, L), a, partial,
                        kapi.LocalAccessor(L, np.float64))
    np.testing.assert_allclose(partial, a.reshape(-1, L).sum(axis=1),
                               rtol=1e-13)
    np.testing.assert_allclose(partial.sum(), a.sum(), rtol=1e-12)


def test_kernel_is_compiled_for_its_local_accessor_extents(device_filter,
                                                           tmp_path,
                                                           monkeypatch):
    # Extents known at compile time let the device compiler see a tile's
    # strides; each new extent is a specialisation, a repeated one is not.
    monkeypatch.setenv("SPIRJIT_CACHE_DIR", str(tmp_path))

    kernel = spirjit.kernel(hillis_steele_scan.py_func)
    for n in (64, 32, 64):
        a = np.ones(n, np.int32)
        out = np.zeros(n, np.int32)
        spirjit.call_kernel(kernel, kapi.NdRange(n, n), a, out,
                            kapi.LocalAccessor((2, n), np.int32))
        np.testing.assert_array_equal(out, np.arange(1, n + 1))
    assert kernel.stats["compiles"] == 2
    assert kernel.stats["memory_hits"] == 1


@pytest.mark.parametrize("n", [1, 2, 7, 64, 256, 1000, 1024])
def test_inclusive_scan_of_ones(device_filter, n):
    a = np.ones(n, np.int32)
    out = np.zeros(n, np.int32)
    spirjit.call_kernel(hillis_steele_scan, kapi.NdRange(n, n), a, out,
                        kapi.LocalAccessor((2, n), np.int32))
    # element k is k + 1 for every k (a `>` for `>=` would leave out[k]
    # one short wherever k is a power of two)
    np.testing.assert_array_equal(out, np.arange(1, n + 1, dtype=np.int32))


@pytest.mark.parametrize("dtype", [np.int64, np.float64], ids=dtype_id)
def test_inclusive_scan_random(device_filter, require_dtypes, dtype):
    require_dtypes(dtype)
    n = 512
    a = np.random.default_rng(4).integers(-50, 50, n).astype(dtype)
    out = np.zeros(n, dtype)
    spirjit.call_kernel(hillis_steele_scan, kapi.NdRange(n, n), a, out,
                        kapi.LocalAccessor((2, n), dtype))
    np.testing.assert_array_equal(out, np.cumsum(a))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=dtype_id)
@pytest.mark.parametrize("M, K, N, T", [(64, 48, 80, 8), (32, 32, 16, 16)])
def test_tiled_matmul(device_filter, require_dtypes, dtype, M, K, N, T):
    require_dtypes(dtype)
    rng = np.random.default_rng(5)
    A = rng.standard_normal((M, K)).astype(dtype)
    B = rng.standard_normal((K, N)).astype(dtype)
    C = np.zeros((M, N), dtype)
    spirjit.call_kernel(tiled_matmul, kapi.NdRange((M, N), (T, T)), A, B, C,
                        kapi.LocalAccessor((T, T), dtype),
                        kapi.LocalAccessor((T, T), dtype))
    want = A.astype(np.float64) @ B.astype(np.float64)
    rtol = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(C, want, rtol=rtol, atol=rtol * K)
    assert C.dtype == dtype


def test_tiled_matmul_integers_exact(device_filter):
    rng = np.random.default_rng(6)
    A = rng.integers(-9, 9, (64, 48)).astype(np.int64)
    B = rng.integers(-9, 9, (48, 80)).astype(np.int64)
    C = np.zeros((64, 80), np.int64)
    spirjit.call_kernel(tiled_matmul, kapi.NdRange((64, 80), (8, 8)), A, B, C,
                        kapi.LocalAccessor((8, 8), np.int64),
                        kapi.LocalAccessor((8, 8), np.int64))
    np.testing.assert_array_equal(C, A @ B)


@spirjit.kernel
def local_3d_transpose(item: kapi.NdItem, a, out, loc):
    # a 3-D LocalAccessor, written at one position and read at another
    i = item.get_local_id(0)
    j = item.get_local_id(1)
    k = item.get_local_id(2)
    loc[i, j, k] = a[item.get_global_id(0), item.get_global_id(1),
                     item.get_global_id(2)]
    kapi.group_barrier(item.get_group())
    n0 = item.get_local_range(0)
    n1 = item.get_local_range(1)
    n2 = item.get_local_range(2)
    out[item.get_global_id(0), item.get_global_id(1),
        item.get_global_id(2)] = loc[n0 - 1 - i, n1 - 1 - j, n2 - 1 - k]


def test_local_accessor_3d(device_filter):
    gs, ls = (4, 6, 8), (2, 3, 4)
    a = np.arange(np.prod(gs), dtype=np.float32).reshape(gs)
    out = np.zeros_like(a)
    spirjit.call_kernel(local_3d_transpose, kapi.NdRange(gs, ls), a, out,
                        kapi.LocalAccessor(ls, np.float32))
    blocks = a.reshape(2, 2, 2, 3, 2, 4).copy()
    want = blocks[:, ::-1, :, ::-1, :, ::-1].reshape(gs)
    np.testing.assert_array_equal(out, want)


# ---------------------------------------------------------------------------
# 3. PrivateArray

@spirjit.kernel
def private_1d(item: kapi.Item, out):
    i = item.get_id(0)
    p = kapi.PrivateArray(8, np.int64)
    for k in range(8):
        p[k] = i * 10 + k
    s = 0
    for k in range(8):
        s += p[7 - k] * (k + 1)
    out[i] = s


@spirjit.kernel
def private_1d_zeros(item: kapi.Item, out):
    i = item.get_id(0)
    p = kapi.PrivateArray(16, np.float64, fill_zeros=True)
    p[i % 16] = 1.5
    s = 0.0
    for k in range(16):
        s += p[k] * (k + 1)
    out[i] = s


@spirjit.kernel
def private_2d(item: kapi.Item, out):
    i = item.get_id(0)
    p = kapi.PrivateArray((3, 4), np.float32)
    for r in range(3):
        for c in range(4):
            p[r, c] = r * 4 + c + i
    for r in range(3):
        for c in range(4):
            out[i, r, c] = p[2 - r, c] * 2
    out[i, 0, 0] = p[1][3]


@spirjit.kernel
def private_2d_zeros(item: kapi.Item, out):
    i = item.get_id(0)
    p = kapi.PrivateArray(shape=(3, 2), dtype=np.int32, fill_zeros=True)
    p[i % 3, i % 2] = i + 1
    for r in range(3):
        for c in range(2):
            out[i, r, c] = p[r, c]


def test_private_array_1d(device_filter):
    out = np.zeros(50, np.int64)
    spirjit.call_kernel(private_1d, kapi.Range(50), out)
    k = np.arange(8)
    want = [((i * 10 + 7 - k) * (k + 1)).sum() for i in range(50)]
    np.testing.assert_array_equal(out, want)


def test_private_array_1d_fill_zeros(device_filter, require_dtypes):
    require_dtypes(np.float64)
    out = np.zeros(40)
    spirjit.call_kernel(private_1d_zeros, kapi.Range(40), out)
    np.testing.assert_array_equal(out, [1.5 * (i % 16 + 1) for i in range(40)])


def test_private_array_2d(device_filter):
    out = np.zeros((20, 3, 4), np.float32)
    spirjit.call_kernel(private_2d, kapi.Range(20), out)
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    want = np.stack([(base[::-1] + i) * 2 for i in range(20)])
    want[:, 0, 0] = [7 + i for i in range(20)]
    np.testing.assert_array_equal(out, want)


def test_private_array_2d_fill_zeros(device_filter):
    out = np.full((30, 3, 2), -1, np.int32)
    spirjit.call_kernel(private_2d_zeros, kapi.Range(30), out)
    want = np.zeros((30, 3, 2), np.int32)
    for i in range(30):
        want[i, i % 3, i % 2] = i + 1
    np.testing.assert_array_equal(out, want)


@spirjit.kernel
def private_partial_sums(item: kapi.Item, a, out):
    # Partial sums in a private array at an index masked to its size: the
    # loop-carried dependence Intel's CPU runtime dropped
    # (compiler/PrivateIndices.h), which left [4, 5, 6, 7] for row 0.
    i = item.get_id(0)
    h = kapi.PrivateArray(4, a.dtype, fill_zeros=True)
    for j in range(a.shape[1]):
        h[j % 4] += a[i, j]
    for k in range(4):
        out[i, k] = h[k]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_private_partial_sums_keep_every_iteration(device_filter,
                                                   require_dtypes, dtype):
    require_dtypes(dtype)
    a = np.arange(3 * 10).reshape(3, 10).astype(dtype)
    out = np.zeros((3, 4), dtype)
    spirjit.call_kernel(private_partial_sums, kapi.Range(3), a, out)
    want = np.zeros((3, 4), dtype)
    for j in range(10):
        want[:, j % 4] += a[:, j]
    np.testing.assert_array_equal(out, want)


# ---------------------------------------------------------------------------
# 4. atomics

def dtype_params(dtypes):
    return [pytest.param(d, id=dtype_id(d)) for d in dtypes]


ATOMIC_DTYPES = dtype_params([np.int32, np.uint32, np.int64, np.uint64,
                              np.float32, np.float64])
INT_DTYPES = dtype_params([np.int32, np.uint32, np.int64, np.uint64])

# One work-item applies every operation once, each to its own element, so
# the returned old values are deterministic.  Element k of `a` starts at
# init[k]; the operand is v[k].
OPS = ["add", "sub", "min_changes", "min_keeps", "max_changes", "max_keeps",
       "exchange", "load", "store", "cas_success", "cas_failure"]
BIT_OPS = ["and", "or", "xor"]


@pytest.fixture
def require_atomic_dtypes(device, require_dtypes):
    """Skips dtypes the device cannot compute with, and 64-bit atomics on
    devices without them."""

    def check(*dtypes):
        require_dtypes(*dtypes)
        for dtype in dtypes:
            if np.dtype(dtype).itemsize == 8 and not device.has_atomic64:
                pytest.skip(f"{device.name} has no 64-bit atomics")

    return check


def atomic_operands(dtype):
    """(init, v) for OPS (and BIT_OPS for integers) in `dtype`: values that
    need the full width and the right signedness (a signed compare of
    uint32 0x80000000 or a 32-bit add of int64 values would be caught)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        big = dtype.type(1.5e30) if dtype.itemsize == 4 else dtype.type(3e300)
        pairs = [(2.5, 0.25), (2.5, -7.75), (1.5, -big), (-1.5, big),
                 (-2.5, big), (2.5, -big), (-0.5, 6.25), (-3.25, 0),
                 (0, -9.5), (4.75, 8.5), (4.75, 8.5)]
    elif dtype.kind == "u":
        top = int(np.iinfo(dtype).max)
        hi = top // 2 + 1                      # only the top bit set
        pairs = [(top - 1, 5), (3, 5), (hi, 7), (7, hi), (7, hi), (hi, 7),
                 (hi + 1, 1), (top, 0), (0, top), (hi + 3, 9), (hi + 3, 9),
                 (top - 6, hi | 12), (hi | 3, 12), (top, hi | 5)]
    else:
        top = int(np.iinfo(dtype).max)
        low = int(np.iinfo(dtype).min)
        pairs = [(top - 1, 5), (low + 2, 5), (-(top // 2), 7),
                 (-7, top // 2), (-7, top // 2), (top // 2, -7),
                 (low, -1), (top, 0), (0, low), (-12345, 9), (-12345, 9),
                 (-1, top // 3), (low | 3, 12), (top // 5, -1)]
    init = np.array([p[0] for p in pairs], dtype)
    v = np.array([p[1] for p in pairs], dtype)
    return init, v


def expected_atomics(dtype, init, v):
    """(final a, old values, cas results, final expected array)."""
    with np.errstate(over="ignore"):
        final = init.copy()
        final[0] = init[0] + v[0]
        final[1] = init[1] - v[1]
        final[2] = min(init[2], v[2])
        final[3] = min(init[3], v[3])
        final[4] = max(init[4], v[4])
        final[5] = max(init[5], v[5])
        final[6] = v[6]
        final[8] = v[8]
        final[9] = v[9]                     # success: desired stored
        if np.dtype(dtype).kind != "f":
            final[11] = init[11] & v[11]
            final[12] = init[12] | v[12]
            final[13] = init[13] ^ v[13]
    old = init.copy()
    old[8:11] = 0                           # store / compare_exchange: none
    exp = np.array([init[9], init[10]], dtype)   # failure: gets the current
    return final, old, np.array([1, 0], np.int32), exp


@spirjit.kernel
def atomic_ops_one_item(item: kapi.Item, a, v, old, ok, exp):
    old[0] = kapi.AtomicRef(a, 0).fetch_add(v[0])
    old[1] = kapi.AtomicRef(a, 1).fetch_sub(v[1])
    old[2] = kapi.AtomicRef(a, 2).fetch_min(v[2])
    old[3] = kapi.AtomicRef(a, 3).fetch_min(v[3])
    old[4] = kapi.AtomicRef(a, 4).fetch_max(v[4])
    old[5] = kapi.AtomicRef(a, 5).fetch_max(v[5])
    old[6] = kapi.AtomicRef(a, 6).exchange(v[6])
    old[7] = kapi.AtomicRef(a, 7).load()
    kapi.AtomicRef(a, index=8).store(v[8])
    r9 = kapi.AtomicRef(a, 9)
    ok[0] = r9.compare_exchange(exp, v[9])          # exp[0] == a[9]
    r10 = kapi.AtomicRef(a, 10)
    ok[1] = r10.compare_exchange(exp, v[10], 1)     # exp[1] != a[10]


@spirjit.kernel
def atomic_bit_ops_one_item(item: kapi.Item, a, v, old):
    old[11] = kapi.AtomicRef(a, 11).fetch_and(v[11])
    old[12] = kapi.AtomicRef(a, 12).fetch_or(v[12])
    old[13] = kapi.AtomicRef(a, 13).fetch_xor(v[13])


@pytest.mark.parametrize("dtype", ATOMIC_DTYPES)
def test_atomic_ops_old_values_global(device_filter, require_atomic_dtypes,
                                      dtype):
    require_atomic_dtypes(dtype)
    init, v = atomic_operands(dtype)
    a = init.copy()
    old = np.zeros_like(init)
    ok = np.full(2, 7, np.int32)
    exp = np.array([init[9], init[9]], dtype)    # exp[1] != init[10]:
    exp[1] = init[10] - 1 if np.dtype(dtype).kind != "u" else init[10] + 1
    spirjit.call_kernel(atomic_ops_one_item, kapi.Range(1), a, v, old, ok,
                        exp)
    if np.dtype(dtype).kind != "f":
        spirjit.call_kernel(atomic_bit_ops_one_item, kapi.Range(1), a, v, old)
    final, want_old, want_ok, want_exp = expected_atomics(dtype, init, v)
    n = len(init) if np.dtype(dtype).kind != "f" else len(OPS)
    np.testing.assert_array_equal(a[:n], final[:n])
    np.testing.assert_array_equal(old[:n], want_old[:n])
    np.testing.assert_array_equal(ok, want_ok)
    np.testing.assert_array_equal(exp, want_exp)


@spirjit.kernel
def atomic_ops_one_item_2d(item: kapi.Item, a, v, old, ok, exp):
    # a has shape (2, 7): element k lives at (k // 7, k % 7)
    old[0] = kapi.AtomicRef(a, (0, 0)).fetch_add(v[0])
    old[1] = kapi.AtomicRef(a, (0, 1)).fetch_sub(v[1])
    old[2] = kapi.AtomicRef(a, (0, 2)).fetch_min(v[2])
    old[3] = kapi.AtomicRef(a, (0, 3)).fetch_min(v[3])
    old[4] = kapi.AtomicRef(a, (0, 4)).fetch_max(v[4])
    old[5] = kapi.AtomicRef(a, (0, 5)).fetch_max(v[5])
    old[6] = kapi.AtomicRef(a, (0, 6)).exchange(v[6])
    old[7] = kapi.AtomicRef(a, index=(1, 0)).load()
    kapi.AtomicRef(a, (1, 1)).store(v[8])
    ok[0] = kapi.AtomicRef(a, (1, 2)).compare_exchange(exp, v[9])
    ok[1] = kapi.AtomicRef(a, (1, 3)).compare_exchange(
        expected_ref=exp, desired=v[10], expected_idx=1)


@spirjit.kernel
def atomic_bit_ops_one_item_2d(item: kapi.Item, a, v, old):
    old[11] = kapi.AtomicRef(a, (1, 4)).fetch_and(v[11])
    old[12] = kapi.AtomicRef(a, (1, 5)).fetch_or(v[12])
    old[13] = kapi.AtomicRef(a, (1, 6)).fetch_xor(v[13])


@pytest.mark.parametrize("dtype", ATOMIC_DTYPES)
def test_atomic_ops_old_values_global_2d(device_filter, require_atomic_dtypes,
                                         dtype):
    require_atomic_dtypes(dtype)
    init, v = atomic_operands(dtype)
    full = np.zeros(14, dtype)
    full[:len(init)] = init
    a = full.reshape(2, 7).copy()
    old = np.zeros(14, dtype)
    ok = np.full(2, 7, np.int32)
    exp = np.array([init[9], init[9]], dtype)
    exp[1] = init[10] - 1 if np.dtype(dtype).kind != "u" else init[10] + 1
    spirjit.call_kernel(atomic_ops_one_item_2d, kapi.Range(1), a, v, old, ok,
                        exp)
    if np.dtype(dtype).kind != "f":
        spirjit.call_kernel(atomic_bit_ops_one_item_2d, kapi.Range(1), a, v,
                            old)
    final, want_old, want_ok, want_exp = expected_atomics(dtype, init, v)
    n = len(init) if np.dtype(dtype).kind != "f" else len(OPS)
    np.testing.assert_array_equal(a.reshape(-1)[:n], final[:n])
    np.testing.assert_array_equal(old[:n], want_old[:n])
    np.testing.assert_array_equal(ok, want_ok)
    np.testing.assert_array_equal(exp, want_exp)


@spirjit.kernel
def atomic_ops_local(item: kapi.NdItem, a, v, old, ok, exp, loc):
    # the same operations on local memory, by one work-item of a group of
    # one; a is copied into loc before and back after
    for k in range(a.shape[0]):
        loc[k] = a[k]
    kapi.group_barrier(item.get_group())
    old[0] = kapi.AtomicRef(loc, 0).fetch_add(v[0])
    old[1] = kapi.AtomicRef(loc, 1).fetch_sub(v[1])
    old[2] = kapi.AtomicRef(loc, 2).fetch_min(v[2])
    old[3] = kapi.AtomicRef(loc, 3).fetch_min(v[3])
    old[4] = kapi.AtomicRef(loc, 4).fetch_max(v[4])
    old[5] = kapi.AtomicRef(loc, 5).fetch_max(v[5])
    old[6] = kapi.AtomicRef(loc, 6).exchange(v[6])
    old[7] = kapi.AtomicRef(loc, 7, memory_scope=kapi.MemoryScope.WORK_GROUP,
                            address_space=kapi.AddressSpace.LOCAL).load()
    kapi.AtomicRef(loc, 8).store(v[8])
    ok[0] = kapi.AtomicRef(loc, 9).compare_exchange(exp, v[9])
    ok[1] = kapi.AtomicRef(loc, 10).compare_exchange(exp, v[10], 1)
    kapi.group_barrier(item.get_group())
    for k in range(a.shape[0]):
        a[k] = loc[k]


@spirjit.kernel
def atomic_bit_ops_local(item: kapi.NdItem, a, v, old, loc):
    for k in range(a.shape[0]):
        loc[k] = a[k]
    kapi.group_barrier(item.get_group())
    old[11] = kapi.AtomicRef(loc, 11).fetch_and(v[11])
    old[12] = kapi.AtomicRef(loc, 12).fetch_or(v[12])
    old[13] = kapi.AtomicRef(loc, 13,
                             address_space=kapi.AddressSpace.LOCAL
                             ).fetch_xor(v[13])
    kapi.group_barrier(item.get_group())
    for k in range(a.shape[0]):
        a[k] = loc[k]


@pytest.mark.parametrize("dtype", ATOMIC_DTYPES)
def test_atomic_ops_old_values_local(device_filter, require_atomic_dtypes,
                                     dtype):
    require_atomic_dtypes(dtype)
    init, v = atomic_operands(dtype)
    a = init.copy()
    old = np.zeros_like(init)
    ok = np.full(2, 7, np.int32)
    exp = np.array([init[9], init[9]], dtype)
    exp[1] = init[10] - 1 if np.dtype(dtype).kind != "u" else init[10] + 1
    loc = kapi.LocalAccessor(len(init), dtype)
    spirjit.call_kernel(atomic_ops_local, kapi.NdRange(1, 1), a, v, old, ok,
                        exp, loc)
    if np.dtype(dtype).kind != "f":
        spirjit.call_kernel(atomic_bit_ops_local, kapi.NdRange(1, 1), a, v,
                            old, loc)
    final, want_old, want_ok, want_exp = expected_atomics(dtype, init, v)
    n = len(init) if np.dtype(dtype).kind != "f" else len(OPS)
    np.testing.assert_array_equal(a[:n], final[:n])
    np.testing.assert_array_equal(old[:n], want_old[:n])
    np.testing.assert_array_equal(ok, want_ok)
    np.testing.assert_array_equal(exp, want_exp)


@spirjit.kernel
def atomic_literals(item: kapi.Item, a, old):
    # Python literals are converted to the element type
    old[0] = kapi.AtomicRef(a, 0).fetch_add(3)
    old[1] = kapi.AtomicRef(a, 1).fetch_sub(1)
    old[2] = kapi.AtomicRef(a, 2).fetch_max(100)
    old[3] = kapi.AtomicRef(a, 3).exchange(42)
    kapi.AtomicRef(a, 4).store(9)


@pytest.mark.parametrize("dtype", ATOMIC_DTYPES)
def test_atomic_python_literals(device_filter, require_atomic_dtypes,
                                dtype):
    require_atomic_dtypes(dtype)
    a = np.array([1, 0, 5, 6, 7], dtype)
    old = np.zeros(5, dtype)
    spirjit.call_kernel(atomic_literals, kapi.Range(1), a, old)
    with np.errstate(over="ignore"):
        want = np.array([4, 0, 100, 42, 9], dtype)
        want[1] = a.dtype.type(0) - a.dtype.type(1)   # uint wraps
    np.testing.assert_array_equal(a, want)
    np.testing.assert_array_equal(old[:4], np.array([1, 0, 5, 6], dtype))


@spirjit.kernel
def atomic_float_literal_add(item: kapi.Item, a):
    kapi.AtomicRef(a, 0).fetch_add(0.5)
    kapi.AtomicRef(a, 1).fetch_sub(0.25)


@pytest.mark.parametrize("dtype", dtype_params([np.float32, np.float64]))
def test_atomic_float_literals_under_contention(device_filter,
                                                require_atomic_dtypes, dtype):
    require_atomic_dtypes(dtype)
    a = np.zeros(2, dtype)
    spirjit.call_kernel(atomic_float_literal_add, kapi.Range(1000), a)
    np.testing.assert_array_equal(a, np.array([500.0, -250.0], dtype))


@spirjit.kernel
def atomic_contention(item: kapi.Item, a, olds):
    i = item.get_id(0)
    kapi.AtomicRef(a, 0).fetch_add(1)
    kapi.AtomicRef(a, 1).fetch_sub(1)
    kapi.AtomicRef(a, 2).fetch_max(a.dtype.type(i))
    kapi.AtomicRef(a, 3).fetch_min(a.dtype.type(i + 5))
    olds[i] = kapi.AtomicRef(a, 4).exchange(a.dtype.type(i))


@pytest.mark.parametrize("dtype", ATOMIC_DTYPES)
def test_atomic_contention_global(device_filter, require_atomic_dtypes,
                                  dtype):
    require_atomic_dtypes(dtype)
    n = 1000
    a = np.array([0, 2000, 0, 5000, 7777], dtype)
    olds = np.zeros(n, dtype)
    spirjit.call_kernel(atomic_contention, kapi.Range(n), a, olds)
    np.testing.assert_array_equal(a[:4], np.array([n, 1000, n - 1, 5], dtype))
    # every exchange returns the previous value: olds and the final value
    # are a permutation of the initial value and all ids
    seen = np.sort(np.append(olds, a[4]))
    np.testing.assert_array_equal(
        seen, np.sort(np.append(np.arange(n), 7777)).astype(dtype))


@spirjit.kernel
def atomic_bit_contention(item: kapi.Item, a, bits):
    i = item.get_id(0)
    one = a.dtype.type(1)
    kapi.AtomicRef(a, 0).fetch_or(one << a.dtype.type(i % bits))
    kapi.AtomicRef(a, 1).fetch_and(~(one << a.dtype.type(i % bits)))
    kapi.AtomicRef(a, 2).fetch_xor(one)


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_atomic_bit_contention(device_filter, require_atomic_dtypes, dtype):
    require_atomic_dtypes(dtype)
    a = np.array([0, -1, 5], np.int64).astype(dtype)
    bits = np.dtype(dtype).itemsize * 8
    spirjit.call_kernel(atomic_bit_contention, kapi.Range(1001), a, bits)
    allbits = np.array(-1, np.int64).astype(dtype)
    np.testing.assert_array_equal(a, np.array([allbits, 0, 4], dtype))


@spirjit.kernel
def atomic_contention_2d(item: kapi.Item, a):
    i = item.get_id(0)
    kapi.AtomicRef(a, (i % 2, i % 3)).fetch_add(1)


@pytest.mark.parametrize("dtype", ATOMIC_DTYPES)
def test_atomic_contention_2d_tuple_index(device_filter, require_atomic_dtypes,
                                          dtype):
    require_atomic_dtypes(dtype)
    a = np.zeros((2, 3), dtype)
    spirjit.call_kernel(atomic_contention_2d, kapi.Range(1200), a)
    np.testing.assert_array_equal(a, np.full((2, 3), 200, dtype))


@pytest.mark.parametrize("dtype", ATOMIC_DTYPES)
def test_atomic_compare_exchange_loop(device_filter, require_atomic_dtypes,
                                      dtype):
    require_atomic_dtypes(dtype)
    a = np.zeros(1, dtype)
    spirjit.call_kernel(atomic_cas_counter, kapi.Range(1000), a)
    assert a[0] == 1000


@spirjit.kernel
def atomic_local_contention(item: kapi.NdItem, out, loc):
    lid = item.get_local_linear_id()
    g = item.get_group()
    if lid == 0:
        loc[0] = 0
        loc[1] = 0
        loc[2] = 1000000
    kapi.group_barrier(g)
    kapi.AtomicRef(loc, 0).fetch_add(1)
    kapi.AtomicRef(loc, 1, memory_scope=kapi.MemoryScope.WORK_GROUP,
                   address_space=kapi.AddressSpace.LOCAL).fetch_max(
        loc.dtype.type(lid))
    kapi.AtomicRef(loc, index=2).fetch_min(loc.dtype.type(lid + 3))
    kapi.group_barrier(g)
    if lid == 0:
        gid = g.get_group_linear_id()
        out[gid, 0] = loc[0]
        out[gid, 1] = loc[1]
        out[gid, 2] = loc[2]


@pytest.mark.parametrize("dtype", ATOMIC_DTYPES)
@pytest.mark.parametrize("gs, ls", [(4000, 1000), ((8, 60), (4, 30))],
                         ids=["1d", "2d"])
def test_atomic_contention_local(device_filter, require_atomic_dtypes, dtype,
                                 gs, ls):
    require_atomic_dtypes(dtype)
    nd = kapi.NdRange(gs, ls)
    groups = int(np.prod(nd.global_range)) // int(np.prod(nd.local_range))
    size = int(np.prod(nd.local_range))
    out = np.zeros((groups, 3), dtype)
    spirjit.call_kernel(atomic_local_contention, nd, out,
                        kapi.LocalAccessor(3, dtype))
    np.testing.assert_array_equal(
        out, np.tile(np.array([size, size - 1, 3], dtype), (groups, 1)))


@spirjit.kernel
def atomic_local_bit_contention(item: kapi.NdItem, out, loc, bits):
    lid = item.get_local_id(0)
    g = item.get_group()
    if lid == 0:
        loc[0] = 0
        loc[1] = ~loc.dtype.type(0)
        loc[2] = 0
    kapi.group_barrier(g)
    one = loc.dtype.type(1)
    bit = loc.dtype.type(lid % bits)
    kapi.AtomicRef(loc, 0).fetch_or(one << bit)
    kapi.AtomicRef(loc, 1).fetch_and(~(one << bit))
    kapi.AtomicRef(loc, 2).fetch_xor(one)
    kapi.group_barrier(g)
    if lid == 0:
        out[g.get_group_id(0), 0] = loc[0]
        out[g.get_group_id(0), 1] = loc[1]
        out[g.get_group_id(0), 2] = loc[2]


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_atomic_bit_contention_local(device_filter, require_atomic_dtypes,
                                     dtype):
    require_atomic_dtypes(dtype)
    out = np.zeros((3, 3), dtype)
    spirjit.call_kernel(atomic_local_bit_contention,
                        kapi.NdRange(3 * 129, 129), out,
                        kapi.LocalAccessor(3, dtype),
                        np.dtype(dtype).itemsize * 8)
    allbits = np.array(-1, np.int64).astype(dtype)
    np.testing.assert_array_equal(
        out, np.tile(np.array([allbits, 0, 1], dtype), (3, 1)))


MEMORY_ORDERS = [kapi.MemoryOrder.RELAXED, kapi.MemoryOrder.ACQ_REL,
                 kapi.MemoryOrder.SEQ_CST]
MEMORY_SCOPES = [kapi.MemoryScope.WORK_GROUP, kapi.MemoryScope.DEVICE,
                 kapi.MemoryScope.SYSTEM]


def make_ordered_counter(order, scope):
    # order and scope are closure values: compile-time constants
    @spirjit.kernel
    def ordered_counter(item: kapi.Item, a):
        kapi.AtomicRef(a, 0, memory_order=order,
                       memory_scope=scope).fetch_add(1)
        kapi.AtomicRef(a, 1, order, scope).fetch_add(2)

    return ordered_counter


@pytest.mark.parametrize("scope", MEMORY_SCOPES, ids=lambda s: s.name)
@pytest.mark.parametrize("order", MEMORY_ORDERS, ids=lambda o: o.name)
def test_atomic_memory_orders_and_scopes(device_filter, order, scope):
    a = np.zeros(2, np.int32)
    spirjit.call_kernel(make_ordered_counter(order, scope), kapi.Range(1000),
                        a)
    np.testing.assert_array_equal(a, [1000, 2000])


@spirjit.kernel
def fence_publish(item: kapi.NdItem, data, flag, out):
    # Item 0 writes the data, fences (release) and raises the flag; the
    # barrier orders the others after it (no spinning), and they read the
    # flag, fence (acquire) and read the data.
    lid = item.get_local_id(0)
    n = item.get_local_range(0)
    if lid == 0:
        for k in range(n):
            data[k] = k * 3 + 1
        kapi.atomic_fence(kapi.MemoryOrder.RELEASE, kapi.MemoryScope.DEVICE)
        kapi.AtomicRef(flag, 0).store(1)
    kapi.group_barrier(item.get_group(), kapi.MemoryScope.DEVICE)
    if kapi.AtomicRef(flag, 0, memory_order=kapi.MemoryOrder.RELAXED
                      ).load() == 1:
        kapi.atomic_fence(kapi.MemoryOrder.ACQUIRE, kapi.MemoryScope.DEVICE)
        out[lid] = data[lid]
    else:
        out[lid] = -1


def test_release_acquire_fence(device_filter):
    n = 128
    data = np.zeros(n, np.int64)
    flag = np.zeros(1, np.int32)
    out = np.zeros(n, np.int64)
    spirjit.call_kernel(fence_publish, kapi.NdRange(n, n), data, flag, out)
    np.testing.assert_array_equal(out, np.arange(n) * 3 + 1)
    assert flag[0] == 1


@spirjit.kernel
def publish_with_barrier(item: kapi.NdItem, data, flag, out):
    # the pattern above without atomic_fence: a device-scope barrier orders
    # item 0's plain writes and atomic store before everyone's reads
    lid = item.get_local_id(0)
    n = item.get_local_range(0)
    if lid == 0:
        for k in range(n):
            data[k] = k * 3 + 1
        kapi.AtomicRef(flag, 0, memory_order=kapi.MemoryOrder.RELAXED
                       ).store(1)
    kapi.group_barrier(item.get_group(), kapi.MemoryScope.DEVICE)
    if kapi.AtomicRef(flag, 0).load() == 1:
        out[lid] = data[lid]
    else:
        out[lid] = -1


def test_publish_ordered_by_device_scope_barrier(device_filter):
    n = 128
    data = np.zeros(n, np.int64)
    flag = np.zeros(1, np.int32)
    out = np.zeros(n, np.int64)
    spirjit.call_kernel(publish_with_barrier, kapi.NdRange(n, n), data, flag,
                        out)
    np.testing.assert_array_equal(out, np.arange(n) * 3 + 1)
    assert flag[0] == 1


@spirjit.kernel
def fences_every_order(item: kapi.Item, a):
    i = item.get_id(0)
    a[i] = 1
    kapi.atomic_fence(kapi.MemoryOrder.ACQ_REL, kapi.MemoryScope.WORK_GROUP)
    kapi.atomic_fence(kapi.MemoryOrder.SEQ_CST, kapi.MemoryScope.SYSTEM)
    kapi.atomic_fence(memory_order=kapi.MemoryOrder.ACQUIRE,
                      memory_scope=kapi.MemoryScope.DEVICE)
    kapi.atomic_fence(kapi.MemoryOrder.RELEASE, kapi.MemoryScope.SUB_GROUP)
    a[i] += 1


def test_atomic_fence_orders_and_scopes_compile(device_filter):
    a = np.zeros(64, np.int32)
    spirjit.call_kernel(fences_every_order, kapi.Range(64), a)
    np.testing.assert_array_equal(a, np.full(64, 2))


# ---------------------------------------------------------------------------
# 5. enum constants

ALL_ENUM_MEMBERS = (list(kapi.MemoryOrder) + list(kapi.MemoryScope)
                    + list(kapi.AddressSpace))


@spirjit.kernel
def store_enums(item: kapi.Item, out):
    out[0] = kapi.MemoryOrder.RELAXED
    out[1] = kapi.MemoryOrder.ACQUIRE
    out[2] = kapi.MemoryOrder.RELEASE
    out[3] = kapi.MemoryOrder.ACQ_REL
    out[4] = kapi.MemoryOrder.SEQ_CST
    out[5] = kapi.MemoryScope.WORK_ITEM
    out[6] = kapi.MemoryScope.SUB_GROUP
    out[7] = kapi.MemoryScope.WORK_GROUP
    out[8] = kapi.MemoryScope.DEVICE
    out[9] = kapi.MemoryScope.SYSTEM
    out[10] = kapi.AddressSpace.PRIVATE
    out[11] = kapi.AddressSpace.GLOBAL
    out[12] = kapi.AddressSpace.CONSTANT
    out[13] = kapi.AddressSpace.LOCAL
    out[14] = kapi.AddressSpace.GENERIC
    out[15] = kapi.MemoryOrder.SEQ_CST + kapi.MemoryScope.DEVICE * 10


def test_enum_constants(device_filter):
    assert [int(m) for m in ALL_ENUM_MEMBERS] == [0, 1, 3, 4, 5, 0, 1, 2, 3,
                                                  4, 0, 1, 2, 3, 4]
    out = np.full(16, -1, np.int64)
    spirjit.call_kernel(store_enums, kapi.Range(1), out)
    np.testing.assert_array_equal(
        out, [int(m) for m in ALL_ENUM_MEMBERS] + [35])


@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.float64],
                         ids=dtype_id)
def test_enum_constants_into_other_dtypes(device_filter, require_dtypes,
                                          dtype):
    require_dtypes(dtype)
    out = np.full(16, -1, dtype)
    spirjit.call_kernel(store_enums, kapi.Range(1), out)
    np.testing.assert_array_equal(
        out, np.array([int(m) for m in ALL_ENUM_MEMBERS] + [35], dtype))


@spirjit.kernel
def cas_expected_in_every_memory(item: kapi.NdItem, a, out, le, lm):
    # compare_exchange's expected_ref in global (out), local (le) and
    # private (p) memory, on global (a) and local (lm) targets
    p = kapi.PrivateArray(2, a.dtype)
    p[0] = a.dtype.type(5)
    p[1] = a.dtype.type(98)
    le[0] = a.dtype.type(5)
    le[1] = a.dtype.type(99)
    lm[0] = a.dtype.type(3)
    kapi.group_barrier(item.get_group())
    ok0 = kapi.AtomicRef(a, 0).compare_exchange(le, a.dtype.type(10))
    ok1 = kapi.AtomicRef(a, 1).compare_exchange(le, a.dtype.type(11), 1)
    ok2 = kapi.AtomicRef(a, 2).compare_exchange(p, a.dtype.type(12))
    ok3 = kapi.AtomicRef(a, 3).compare_exchange(p, a.dtype.type(13), 1)
    ok4 = kapi.AtomicRef(lm, 0).compare_exchange(p, a.dtype.type(20), 1)
    ok5 = kapi.AtomicRef(lm, 0).compare_exchange(p, a.dtype.type(21), 1)
    ok6 = kapi.AtomicRef(lm, 0).compare_exchange(out, a.dtype.type(22), 9)
    out[0] = ok0
    out[1] = ok1
    out[2] = ok2
    out[3] = ok3
    out[4] = ok4
    out[5] = ok5
    out[6] = ok6
    out[7] = le[1]
    out[8] = p[1]
    kapi.group_barrier(item.get_group())
    out[10] = lm[0]


@pytest.mark.parametrize("dtype", dtype_params([np.int32, np.uint32,
                                                np.float32, np.int64,
                                                np.float64]))
def test_compare_exchange_expected_in_global_local_private(
        device_filter, require_atomic_dtypes, dtype):
    require_atomic_dtypes(dtype)
    a = np.full(4, 5, dtype)
    out = np.zeros(11, dtype)
    out[9] = 77                   # expected for ok6: wrong, gets lm's 21
    spirjit.call_kernel(cas_expected_in_every_memory, kapi.NdRange(1, 1), a,
                        out, kapi.LocalAccessor(2, dtype),
                        kapi.LocalAccessor(1, dtype))
    np.testing.assert_array_equal(a, np.array([10, 5, 12, 5], dtype))
    np.testing.assert_array_equal(
        out, np.array([1, 0, 1, 0, 0, 1, 0, 5, 3, 21, 21], dtype))


# ---------------------------------------------------------------------------
# 6. group_reduce and group_broadcast

@spirjit.kernel
def group_collectives(item: kapi.NdItem, a, m, out, src):
    g = item.get_group()
    i = item.get_global_linear_id()
    x = a[i]
    out[i, 0] = kapi.group_reduce(g, x, operator.add)
    out[i, 1] = kapi.group_reduce(g, m[i], operator.mul)
    out[i, 2] = kapi.group_reduce(g, x, min)
    out[i, 3] = kapi.group_reduce(g, x, max)
    out[i, 4] = kapi.group_broadcast(g, x)
    out[i, 5] = kapi.group_broadcast(g, x, 3)
    out[i, 6] = kapi.group_broadcast(g, x, local_id=src)


def expected_collectives(a, m, global_shape, local_shape, src):
    table = expected_nd_getters(global_shape, local_shape)
    # rows are in row-major global order, = the linear id used in the kernel
    group_of = table[:, 20]
    local_of = table[:, 13]
    out = np.zeros((a.size, 7), a.dtype)
    for grp in np.unique(group_of):
        members = group_of == grp
        xs = a[members]
        locals_ = local_of[members]
        out[members, 0] = xs.sum()
        out[members, 1] = m[members].prod()
        out[members, 2] = xs.min()
        out[members, 3] = xs.max()
        out[members, 4] = xs[locals_ == 0][0]
        out[members, 5] = xs[locals_ == 3][0]
        out[members, 6] = xs[locals_ == src][0]
    return out


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32,
                                   np.float64], ids=dtype_id)
@pytest.mark.parametrize("global_shape, local_shape", [
    ((64,), (16,)), ((8, 12), (4, 4)), ((4, 4, 6), (2, 2, 3)),
    ((256,), (256,)), ((120,), (40,)), ((10, 12), (5, 12))], ids=str)
def test_group_reduce_and_broadcast(device_filter, require_dtypes, dtype,
                                    global_shape, local_shape):
    require_dtypes(dtype)
    n = int(np.prod(global_shape))
    rng = np.random.default_rng(7)
    a = rng.integers(-1000, 1000, n).astype(dtype)
    # products of +-1 and +-2 are exact in every dtype (at most 2**16 here
    # for a group of 16; groups of 256 use +-1 only)
    choices = [-2, -1, 1, 2] if np.prod(local_shape) <= 16 else [-1, 1]
    m = rng.choice(choices, n).astype(dtype)
    src = int(np.prod(local_shape)) - 1
    out = np.zeros((n, 7), dtype)
    spirjit.call_kernel(group_collectives,
                        kapi.NdRange(global_shape, local_shape), a, m, out,
                        src)
    np.testing.assert_array_equal(
        out, expected_collectives(a, m, global_shape, local_shape, src))


@spirjit.kernel
def group_reduce_float_sum(item: kapi.NdItem, a, out):
    g = item.get_group()
    s = kapi.group_reduce(g, a[item.get_global_id(0)], operator.add)
    if item.get_local_id(0) == 0:
        out[g.get_group_id(0)] = s


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=dtype_id)
def test_group_reduce_float_sum_random(device_filter, require_dtypes, dtype):
    require_dtypes(dtype)
    a = np.random.default_rng(8).random(1 << 14).astype(dtype)
    out = np.zeros(64, dtype)
    spirjit.call_kernel(group_reduce_float_sum, kapi.NdRange(1 << 14, 256),
                        a, out)
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(out, a.reshape(64, 256).astype(np.float64)
                               .sum(axis=1), rtol=rtol)


@spirjit.kernel
def reverse_in_local_memory(item: kapi.NdItem, a, out, tile):
    li = item.get_local_id(0)
    tile[li] = a[item.get_global_id(0)]
    kapi.group_barrier(item.get_group())
    out[item.get_global_id(0)] = tile[item.get_local_range(0) - 1 - li]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128],
                         ids=dtype_id)
def test_a_local_accessor_holds_complex_numbers(device_filter,
                                                require_dtypes, dtype):
    # (DeviceArrays' complex matrix products stage their tiles so.)
    require_dtypes(dtype)
    a = (np.arange(32) + 1j * np.arange(32)[::-1]).astype(dtype)
    out = np.zeros_like(a)
    spirjit.call_kernel(reverse_in_local_memory, kapi.NdRange(32, 8), a, out,
                        kapi.LocalAccessor(8, dtype))
    np.testing.assert_array_equal(out, a.reshape(4, 8)[:, ::-1].ravel())


@spirjit.kernel
def group_complex_collectives(item: kapi.NdItem, a, out):
    g = item.get_group()
    x = a[item.get_global_id(0)]
    total = kapi.group_reduce(g, x, "+")
    product = kapi.group_reduce(g, x, operator.mul)
    second = kapi.group_broadcast(g, x, 1)
    if item.get_local_id(0) == 0:
        out[g.get_group_id(0), 0] = total
        out[g.get_group_id(0), 1] = product
        out[g.get_group_id(0), 2] = second


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128],
                         ids=dtype_id)
def test_group_reduce_and_broadcast_of_complex_numbers(device_filter,
                                                       require_dtypes, dtype):
    # Sums and products of complex numbers are defined (the simulator's
    # group_reduce computes them too): DeviceArrays' complex reductions
    # fold their groups with them.
    require_dtypes(dtype)
    rng = np.random.default_rng(9)
    a = np.exp(2j * np.pi * rng.random(64)).astype(dtype)  # |a| = 1
    out = np.zeros((4, 3), dtype)
    spirjit.call_kernel(group_complex_collectives, kapi.NdRange(64, 16), a,
                        out)
    groups = a.reshape(4, 16)
    rtol = 1e-5 if dtype == np.complex64 else 1e-12
    np.testing.assert_allclose(out[:, 0], groups.sum(axis=1), rtol=rtol)
    np.testing.assert_allclose(out[:, 1], groups.prod(axis=1), rtol=rtol)
    np.testing.assert_array_equal(out[:, 2], groups[:, 1])


@spirjit.kernel
def group_complex_order(item: kapi.NdItem, a, out):
    g = item.get_group()
    x = a[item.get_global_id(0)]
    low = kapi.group_reduce(g, x, "min")
    high = kapi.group_reduce(g, x, max)
    if item.get_local_id(0) == 0:
        out[g.get_group_id(0), 0] = low
        out[g.get_group_id(0), 1] = high


@pytest.mark.parametrize("simulated", [False, True],
                         ids=["compiled", "simulated"])
def test_group_reduce_orders_complex_numbers_as_numpy(device_filter,
                                                      simulated):
    # Python's min and max refuse complex numbers; group_reduce orders
    # them as np.minimum and np.maximum do (real part, then imaginary
    # part; a NaN part wins), compiled or simulated.
    a = np.array([1 + 2j, 1 + 3j, -4j, 0.5 - 9j,
                  2 + 0j, complex(np.nan, 1), 3 + 3j, -1 + 0j,
                  2 - 1j, 2 + 1j, 2 + 0j, 2 - 5j,
                  complex(1, np.nan), 9 + 9j, 0j, -9 + 9j]).astype(np.complex64)
    out = np.zeros((4, 2), np.complex64)
    launch = kapi.call_kernel if simulated else spirjit.call_kernel
    launch(group_complex_order, kapi.NdRange(16, 4), a, out)
    groups = a.reshape(4, 4)
    for column, reduction in enumerate((np.min, np.max)):
        want = reduction(groups, axis=1)
        got = out[:, column]
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_array_equal(got[~np.isnan(want)],
                                      want[~np.isnan(want)])


# ---------------------------------------------------------------------------
# 7. asynchronous launches chained by events

@spirjit.kernel
def add_one(item: kapi.Item, a):
    i = item.get_id(0)
    a[i] += 1


@spirjit.kernel
def scale_into(item: kapi.Item, a, factor, out):
    i = item.get_id(0)
    out[i] = a[i] * factor


@spirjit.kernel
def add_into(item: kapi.Item, a, b, out):
    i = item.get_id(0)
    out[i] = a[i] + b[i]


def test_async_chain_on_device_arrays(device_filter):
    n = 1 << 16
    x = np.arange(n, dtype=np.float64) if spirjit.Device(
        device_filter).has_fp64 else np.arange(n, dtype=np.float32)
    da = spirjit.asarray(x)
    out = np.zeros_like(x)
    ev = spirjit.call_kernel_async(add_one, kapi.Range(n), [], da)
    events = [ev]
    for _ in range(9):
        ev = spirjit.call_kernel_async(add_one, kapi.Range(n), [ev], da)
        events.append(ev)
    last = spirjit.call_kernel_async(scale_into, kapi.Range(n), [ev], da, 3,
                                     out)
    assert isinstance(last, spirjit.Event)
    last.wait()
    np.testing.assert_array_equal(out, (x + 10) * 3)
    for e in events:
        e.wait()                  # waiting again on finished events is fine
    np.testing.assert_array_equal(spirjit.asnumpy(da), x + 10)


def test_async_diamond_of_events(device_filter):
    n = 4096
    x = np.arange(n, dtype=np.int64)
    da, db = spirjit.asarray(x), spirjit.asarray(x * 7)
    dc = spirjit.zeros(n, np.int64)
    ea = spirjit.call_kernel_async(add_one, kapi.Range(n), [], da)
    eb = spirjit.call_kernel_async(add_one, kapi.Range(n), (), db)
    ec = spirjit.call_kernel_async(add_into, kapi.Range(n), [ea, eb], da, db,
                                   dc)
    out = np.zeros(n, np.int64)
    ed = spirjit.call_kernel_async(scale_into, kapi.Range(n), [ec], dc, 2,
                                   out)
    ed.wait()
    np.testing.assert_array_equal(out, (x + 1 + x * 7 + 1) * 2)


def test_async_numpy_arguments_written_back_after_wait(device_filter):
    n = 10000
    a = np.arange(n, dtype=np.int32)
    b = np.full(n, 5, np.int32)
    out = np.zeros(n, np.int32)
    ev = spirjit.call_kernel_async(add_into, kapi.Range(n), [], a, b, out)
    ev.wait()
    np.testing.assert_array_equal(out, a + 5)
    # a NumPy array the kernel updates in place, after a DeviceArray step
    dx = spirjit.asarray(np.ones(n, np.int32))
    e1 = spirjit.call_kernel_async(add_one, kapi.Range(n), [], dx)
    acc = np.arange(n, dtype=np.int32)
    e2 = spirjit.call_kernel_async(add_into, kapi.Range(n), [e1], acc, dx,
                                   acc)
    e2.wait()
    np.testing.assert_array_equal(acc, np.arange(n) * 1 + 2)


@spirjit.kernel
def nd_local_sum_async(item: kapi.NdItem, a, out, loc):
    lid = item.get_local_id(0)
    loc[lid] = a[item.get_global_id(0)]
    kapi.group_barrier(item.get_group())
    if lid == 0:
        s = loc[0]
        for k in range(1, item.get_local_range(0)):
            s += loc[k]
        out[item.get_group().get_group_id(0)] = s


def test_async_nd_range_with_local_accessor(device_filter):
    a = np.arange(1024, dtype=np.int64)
    out = np.zeros(16, np.int64)
    ev = spirjit.call_kernel_async(nd_local_sum_async, kapi.NdRange(1024, 64),
                                   [], a, out,
                                   kapi.LocalAccessor(64, np.int64))
    ev.wait()
    np.testing.assert_array_equal(out, a.reshape(16, 64).sum(axis=1))


def test_async_compile_errors_at_the_call(device_filter):
    a = np.zeros(8, np.int32)
    with pytest.raises(errors.TypingError, match="NdRange"):
        spirjit.call_kernel_async(nd_local_sum_async, kapi.Range(8), [], a, a,
                                  kapi.LocalAccessor(8, np.int64))


# ---------------------------------------------------------------------------
# 8. errors

@spirjit.kernel
def nd_kernel(item: kapi.NdItem, a):
    a[item.get_global_id(0)] = 1


@spirjit.kernel
def item_kernel(item: kapi.Item, a):
    a[item.get_id(0)] = 1


@spirjit.kernel
def item_kernel_with_local(item: kapi.Item, a, loc):
    a[item.get_id(0)] = 1


@spirjit.kernel
def unannotated_kernel_with_local(item, a, loc):
    a[item.get_id(0)] = 1


@spirjit.kernel
def nd_kernel_with_local(item: kapi.NdItem, a, loc):
    a[item.get_global_id(0)] = 1


@pytest.mark.parametrize("kernel, index_space, local, words", [
    (nd_kernel, kapi.Range(8), False, r"NdItem.*NdRange"),
    (item_kernel, kapi.NdRange(8, 4), False, r"Item.*Range.*NdItem"),
    (item_kernel_with_local, kapi.Range(8), True, r"LocalAccessor.*NdRange"),
    (unannotated_kernel_with_local, kapi.Range(8), True,
     r"LocalAccessor.*NdRange"),
    (nd_kernel_with_local, kapi.Range(8), True, r"NdRange"),
], ids=["nditem-over-range", "item-over-ndrange", "local-with-range",
        "unannotated-local-with-range", "nditem-local-with-range"])
def test_kernel_launch_mismatch(device_filter, kernel, index_space, local,
                                words):
    a = np.zeros(8, np.int32)
    args = (a, kapi.LocalAccessor(4, np.int32)) if local else (a,)
    with pytest.raises(errors.TypingError, match=words) as info:
        spirjit.call_kernel(kernel, index_space, *args)
    assert isinstance(info.value, TypeError)
    assert isinstance(info.value, errors.SpirjitError)
    assert kernel.__name__ in str(info.value) or "LocalAccessor" in str(
        info.value)
    assert not a.any()


@pytest.mark.parametrize("make, words", [
    (lambda: kapi.NdRange(8, 3), "not divisible"),
    (lambda: kapi.NdRange((8, 6), (4, 4)), "not divisible"),
    (lambda: kapi.NdRange((8, 4), 4), "rank"),
    (lambda: kapi.NdRange((8, 4), (4, 2, 1)), "rank"),
    (lambda: kapi.NdRange((8, 4, 2, 2), (1, 1, 1, 1)), "1 to 3"),
    (lambda: kapi.Range(2, 2, 2, 2), "1 to 3"),
    (lambda: kapi.Range(0), "positive"),
    (lambda: kapi.Range(3, -1), "positive"),
    (lambda: kapi.NdRange(0, 1), "positive"),
    (lambda: kapi.NdRange(8, 0), "positive"),
    (lambda: kapi.NdRange((4, 0), (2, 1)), "positive"),
    (lambda: kapi.Range(2.0), "integer"),
    (lambda: kapi.Range(np.float64(2.0)), "integer"),
    (lambda: kapi.NdRange(2.0, 1), "2.0"),
    (lambda: kapi.NdRange(8, 2.0), "2.0"),
    (lambda: kapi.NdRange((8, 2.0), (4, 1)), "integer"),
    (lambda: kapi.Range(True), "integer"),
], ids=["indivisible", "indivisible-2d", "rank-2-1", "rank-2-3", "4-dims",
        "range-4-dims", "zero", "negative", "nd-zero-global", "nd-zero-local",
        "nd-zero-2d", "float", "numpy-float", "nd-float-global",
        "nd-float-local", "nd-float-in-tuple", "bool"])
def test_invalid_ranges(make, words):
    with pytest.raises(errors.InvalidRangeError, match=words) as info:
        make()
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, errors.SpirjitError)


def test_local_size_above_device_maximum(device_filter, device):
    limit = device.max_work_group_size
    a = np.zeros(2 * limit, np.int32)
    with pytest.raises(errors.InvalidRangeError, match=str(limit)):
        spirjit.call_kernel(nd_kernel, kapi.NdRange(2 * limit, 2 * limit), a)
    # the product counts, not each extent
    with pytest.raises(errors.InvalidRangeError, match=str(limit)):
        spirjit.call_kernel(nd_kernel, kapi.NdRange((2, limit), (2, limit)),
                            a)
    with pytest.raises(errors.InvalidRangeError):
        spirjit.call_kernel_async(nd_kernel, kapi.NdRange(2 * limit,
                                                          2 * limit), [], a)
    assert not a.any()
    # exactly the maximum is fine
    spirjit.call_kernel(nd_kernel, kapi.NdRange(limit, limit), a)
    np.testing.assert_array_equal(a[:limit], 1)


@spirjit.kernel
def atomic_typed_value(item: kapi.Item, a, v):
    kapi.AtomicRef(a, 0).fetch_add(v[0])


@spirjit.kernel
def atomic_typed_store(item: kapi.Item, a, v):
    kapi.AtomicRef(a, 0).store(v)


@spirjit.kernel
def atomic_float_and(item: kapi.Item, a):
    kapi.AtomicRef(a, 0).fetch_and(1)


@spirjit.kernel
def atomic_float_or(item: kapi.Item, a):
    kapi.AtomicRef(a, 0).fetch_or(1)


@spirjit.kernel
def atomic_float_xor(item: kapi.Item, a):
    kapi.AtomicRef(a, 0).fetch_xor(1)


@spirjit.kernel
def atomic_local_space_on_global(item: kapi.Item, a):
    kapi.AtomicRef(a, 0, address_space=kapi.AddressSpace.LOCAL).fetch_add(1)


@spirjit.kernel
def atomic_global_space_on_local(item: kapi.NdItem, a, loc):
    kapi.AtomicRef(loc, 0,
                   address_space=kapi.AddressSpace.GLOBAL).fetch_add(1)


@pytest.mark.parametrize("kernel, index_space, args, words", [
    (atomic_typed_value, kapi.Range(1),
     lambda: (np.zeros(1, np.int32), np.ones(1, np.float64)), "float64"),
    (atomic_typed_value, kapi.Range(1),
     lambda: (np.zeros(1, np.int32), np.ones(1, np.int64)), "int64"),
    (atomic_typed_value, kapi.Range(1),
     lambda: (np.zeros(1, np.float32), np.ones(1, np.float64)), "float64"),
    (atomic_typed_store, kapi.Range(1),
     lambda: (np.zeros(1, np.uint32), np.float32(1)), "float32"),
    (atomic_float_and, kapi.Range(1), lambda: (np.zeros(1, np.float32),),
     "integer"),
    (atomic_float_or, kapi.Range(1), lambda: (np.zeros(1, np.float64),),
     "integer"),
    (atomic_float_xor, kapi.Range(1), lambda: (np.zeros(1, np.float32),),
     "integer"),
    (atomic_local_space_on_global, kapi.Range(1),
     lambda: (np.zeros(1, np.int32),), "LOCAL"),
    (atomic_global_space_on_local, kapi.NdRange(1, 1),
     lambda: (np.zeros(1, np.int32), kapi.LocalAccessor(1, np.int32)),
     "GLOBAL"),
], ids=["float64-into-int32", "int64-into-int32", "float64-into-float32",
        "float32-store-into-uint32", "and-float32", "or-float64",
        "xor-float32", "local-space-on-global", "global-space-on-local"])
def test_atomic_typing_errors(device_filter, kernel, index_space, args,
                              words):
    with pytest.raises(errors.TypingError, match=words) as info:
        spirjit.call_kernel(kernel, index_space, *args())
    assert isinstance(info.value, TypeError)
    # the message points at the user's line
    assert "test_kernel_api.py:" in str(info.value)
    assert info.value.lineno is not None


def test_divergent_barrier_is_a_compile_error_at_its_line():
    @spirjit.kernel
    def divergent(nd: kapi.NdItem, a):
        i = nd.get_global_id(0)
        if i % 2 == 0:
            kapi.group_barrier(nd.get_group())
        a[i] = 1

    with pytest.raises(spirjit.errors.CompileError,
                       match=r"test_kernel_api.py:\d+: 'group_barrier' runs "
                             r"only in the work-items that take one side"):
        spirjit.call_kernel(divergent, kapi.NdRange(kapi.Range(8),
                                                    kapi.Range(4)),
                            np.zeros(8))

    @spirjit.kernel
    def loop_with_varying_trips(nd: kapi.NdItem, a):
        i = nd.get_local_id(0)
        for _ in range(i):
            kapi.group_barrier(nd.get_group())
        a[i] = 1

    with pytest.raises(spirjit.errors.CompileError, match="group_barrier"):
        spirjit.call_kernel(loop_with_varying_trips,
                            kapi.NdRange(kapi.Range(8), kapi.Range(4)),
                            np.zeros(8))


EARLY_RETURN_SCRIPT = """
import numpy as np, spirjit
from spirjit import kernel_api as kapi

@spirjit.kernel
def early(it: kapi.NdItem, a):
    if it.get_local_id(0) == 0:
        return
    kapi.group_barrier(it.get_group())
    a[it.get_global_id(0)] = 1

try:
    spirjit.call_kernel(early, kapi.NdRange(kapi.Range(8), kapi.Range(4)),
                        np.zeros(8))
    print("no error")
except spirjit.errors.SpirjitError as e:
    print(type(e).__name__, e.lineno)
    print(e)
"""


def test_issue31_barrier_after_an_early_return_is_a_compile_error(
        device_filter, run_isolated):
    # Issue 31: work-item 0 returns, the others wait at the barrier for it:
    # PoCL crashed (SIGSEGV). API.md promises a CompileError at the
    # barrier's line. In a process of its own, should the check regress.
    lines = EARLY_RETURN_SCRIPT.splitlines()
    barrier = 1 + next(i for i, text in enumerate(lines)
                       if "group_barrier" in text)
    ret = 1 + next(i for i, text in enumerate(lines)
                   if text.strip() == "return")
    done = run_isolated(EARLY_RETURN_SCRIPT)
    assert done.returncode == 0, done.stderr
    kind, message = done.stdout.splitlines()
    assert kind == f"CompileError {barrier}"
    assert re.match(rf".*isolated\.py:{barrier}: 'group_barrier' is not "
                    rf"reached by the work-items that return at line {ret}",
                    message)


def test_barrier_before_an_early_return_is_fine():
    @spirjit.kernel
    def late(nd: kapi.NdItem, a, out):
        i = nd.get_global_id(0)
        kapi.group_barrier(nd.get_group())
        if nd.get_local_id(0) == 0:
            return
        out[i] = a[i]

    a = np.arange(8.0)
    out = np.zeros(8)
    spirjit.call_kernel(late, kapi.NdRange(kapi.Range(8), kapi.Range(4)),
                        a, out)
    np.testing.assert_array_equal(out, np.where(np.arange(8) % 4 == 0, 0, a))


def test_barrier_after_a_divergent_if_is_fine():
    @spirjit.kernel
    def converged(nd: kapi.NdItem, a, out):
        i = nd.get_global_id(0)
        x = 0.0
        if i % 2 == 0:
            x = a[i]
        kapi.group_barrier(nd.get_group())
        out[i] = x

    a = np.arange(8.0)
    out = np.zeros(8)
    spirjit.call_kernel(converged, kapi.NdRange(kapi.Range(8), kapi.Range(4)),
                        a, out)
    np.testing.assert_array_equal(out, np.where(np.arange(8) % 2 == 0, a, 0))


@spirjit.kernel
def publish_through_global(nd: kapi.NdItem, shared, out):
    # Work-item 0 writes a global array between two barriers; the others
    # read it before and after. With its arrays disjoint (noalias
    # parameters) LLVM took the barriers for no access to them and reused
    # the first load for the second: every item but 0 saw the old value.
    i = nd.get_global_id(0)
    before = shared[0]
    kapi.group_barrier(nd.get_group())
    if nd.get_local_id(0) == 0:
        shared[0] = 5
    kapi.group_barrier(nd.get_group())
    out[i] = before * 10 + shared[0]


def test_barrier_orders_accesses_to_disjoint_arrays(device_filter):
    shared = np.zeros(1, dtype=np.int64)
    out = np.zeros(8, dtype=np.int64)
    spirjit.call_kernel(publish_through_global,
                        kapi.NdRange(kapi.Range(8), kapi.Range(8)), shared,
                        out)
    np.testing.assert_array_equal(out, np.full(8, 5))
