"""The array library's parallel primitives (scans, sorts, stream compaction,
gathers and scatters by index, binary search), written once as ordinary
spirjit kernels.

Contract: every public function takes DeviceArrays of one device (any
layout; lazy expressions are evaluated by the launches that take them) and
returns new C-contiguous DeviceArrays on that device, or writes the one
array it is documented to write. Each answer is NumPy's: ``scan_rows`` is
``np.cumsum``/``np.cumprod`` along axis 1 (floats up to rounding, since the
sums are grouped differently), ``argsort_rows`` is ``np.argsort(kind=
"stable")`` (and array-api-strict's ``descending=True``), ``searchsorted`` is
``np.searchsorted``, index errors are NumPy's ``IndexError`` messages. No
algorithm waits on another work-group (OpenCL promises no forward progress
between them): work that needs a global order is split into launches
(tile totals, a scan of those, a rescan; one launch per bitonic stage; the
radix sort's passes, in _library_radix.py).
Range launches, and NdRange launches of at most 256 items a group (or the
device's largest power of two below that) for the tiled scans.
Empty inputs launch nothing. The Array API layer decides shapes, axes,
dtypes and broadcasting and calls these.
"""

import numpy as np

from . import device_func, errors, kernel
from . import kernel_api as kapi
from ._library_base import (_as_row, _check_array, _device, _empty,
                            _enqueue, _group_width, _launch, _local,
                            _nd_range, _properties, _same_buffer)
from ._library_scan import scan_rows

__all__ = ["iota", "fill", "scan_rows", "argsort_rows", "sort_rows",
           "compact", "scatter_masked", "take_rows", "put_rows",
           "searchsorted"]

# Single rows of at least RADIX_MIN elements sort by the radix sort
# (_library_radix.py); shorter rows, and many rows, by the bitonic sort.
RADIX_MIN = 2048

# Entries of a row one work-item of a bitonic sort orders by itself: the
# stages whose compared pairs lie within such blocks run as one launch.
SORT_BLOCK = 128

# On GPUs, rows of up to GROUP_SORT_MAX entries (padded) sort a row a
# work-group in local memory, the whole sort one launch. GROUP_SORT: None
# (GPUs only), True or False forces it (tests).
GROUP_SORT_MAX = 2048
GROUP_SORT = None


# --------------------------------------------------------------------------
# Orders

@device_func
def _lt(a, b):
    """a < b in NumPy's sort order: NaN after everything (and equal to NaN).
    For integers the NaN tests fold away."""
    return a < b or (b != b and a == a)


@device_func
def _lt_complex(a, b):
    """a < b in NumPy's order of complex numbers (npysort's CLT):
    lexicographic, real part then imaginary part, NaNs last."""
    ar = a.real
    ai = a.imag
    br = b.real
    bi = b.imag
    if ar < br:
        return ai == ai or bi != bi
    if ar > br:
        return bi != bi and ai == ai
    if ar == br or (ar != ar and br != br):
        return ai < bi or (bi != bi and ai == ai)
    return br != br


def _make_sort_kernels(lt):
    @device_func
    def before(ka, ia, kb, ib, desc):
        """Whether (ka, ia) comes before (kb, ib) in the result: by key
        (ascending with NaNs last, or descending with NaNs first), equal
        keys by original index, which makes the sort stable."""
        if desc:
            if lt(kb, ka):
                return True
            if lt(ka, kb):
                return False
        else:
            if lt(ka, kb):
                return True
            if lt(kb, ka):
                return False
        return ia < ib

    @device_func
    def swaps(ka, ia, kb, ib, i, n, k, desc):
        """Whether a bitonic stage of block k swaps entries i (ka, ia) and
        its partner (kb, ib): the order is ascending where i & k is 0, and
        entries whose idx >= n are padding, after every element."""
        b_first = False
        if ib >= n:
            b_first = False
        elif ia >= n:
            b_first = True
        else:
            b_first = before(kb, ib, ka, ia, desc)
        return b_first == ((i & k) == 0)

    @device_func
    def compare_exchange(keys, idx, r, i, m, n, k, desc):
        """Orders entries i < m of row r for block k of a bitonic sort."""
        ka = keys[r, i]
        ia = idx[r, i]
        kb = keys[r, m]
        ib = idx[r, m]
        if swaps(ka, ia, kb, ib, i, n, k, desc):
            keys[r, i] = kb
            idx[r, i] = ib
            keys[r, m] = ka
            idx[r, m] = ia

    @kernel
    def bitonic_step(item, keys, idx, n, k, j, desc):
        """One compare-exchange stage (block k, distance j) of a bitonic
        sort of each row of (keys, idx)."""
        r = item.get_id(0)
        t = item.get_id(1)
        i = (t // j) * (2 * j) + t % j
        compare_exchange(keys, idx, r, i, i + j, n, k, desc)

    @kernel
    def bitonic_block(item, keys, idx, n, k_lo, k_hi, block, desc):
        """The stages of blocks k_lo..k_hi (powers of two) whose distance
        is below ``block``, for one ``block`` of entries per item: pairs
        that never leave the item's block, so one item does them in order
        and no other needs to wait."""
        r = item.get_id(0)
        base = item.get_id(1) * block
        half = block // 2
        k = k_lo
        while k <= k_hi:
            j = min(k // 2, half)
            while j >= 1:
                for s in range(half):
                    i = base + (s // j) * (2 * j) + s % j
                    compare_exchange(keys, idx, r, i, i + j, n, k, desc)
                j = j // 2
            k = k * 2

    @device_func
    def exchange_local(lk, li, i, m, n, k, desc):
        """compare_exchange on one row staged in local memory."""
        ka = lk[i]
        ia = li[i]
        kb = lk[m]
        ib = li[m]
        if swaps(ka, ia, kb, ib, i, n, k, desc):
            lk[i] = kb
            li[i] = ib
            lk[m] = ka
            li[m] = ia

    @kernel
    def bitonic_group(item: kapi.NdItem, keys, idx, n, desc, lk, li):
        """The whole bitonic sort of row r (a power-of-two length that
        fits local memory) by work-group r: the row is staged in local
        memory and each stage's pairs are shared among the group's items,
        a barrier apart."""
        group = item.get_group()
        r = group.get_group_id(0)
        i = item.get_local_id(1)
        width = item.get_local_range(1)
        size = keys.shape[1]
        half = size // 2
        for j in range(i, size, width):
            lk[j] = keys[r, j]
            li[j] = idx[r, j]
        kapi.group_barrier(group)
        k = 2
        while k <= size:
            j = k // 2
            while j >= 1:
                for t in range(i, half, width):
                    a = (t // j) * (2 * j) + t % j
                    exchange_local(lk, li, a, a + j, n, k, desc)
                kapi.group_barrier(group)
                j = j // 2
            k = k * 2
        for j in range(i, size, width):
            keys[r, j] = lk[j]
            idx[r, j] = li[j]

    @kernel
    def search(item, a, v, out, right):
        """out[i] = the insertion point of v[i] in the sorted a."""
        i = item.get_id(0)
        key = v[i]
        lo = 0
        hi = a.shape[0]
        while lo < hi:
            mid = (lo + hi) // 2
            go = False
            if right:
                go = not lt(key, a[mid])
            else:
                go = lt(a[mid], key)
            if go:
                lo = mid + 1
            else:
                hi = mid
        out[i] = lo

    return (bitonic_step, bitonic_block, bitonic_group), search


_bitonic_real, _search_real = _make_sort_kernels(_lt)
_bitonic_complex, _search_complex = _make_sort_kernels(_lt_complex)


# --------------------------------------------------------------------------
# Kernels

@kernel
def _iota(item, out):
    i = item.get_id(0)
    out[i] = out.dtype.type(i)


@kernel
def _fill(item, out, value):
    out[item.get_id(0)] = value


@kernel
def _sort_init(item, x, keys, idx):
    """keys[r, j] = x[r, j] (as the key dtype), idx[r, j] = j; the
    columns past x's are padding."""
    r = item.get_id(0)
    j = item.get_id(1)
    t = keys.dtype.type
    if j < x.shape[1]:
        keys[r, j] = t(x[r, j])
    else:
        keys[r, j] = t(0)
    idx[r, j] = j


@kernel
def _copy_2d(item, src, out):
    r = item.get_id(0)
    j = item.get_id(1)
    out[r, j] = src[r, j]


@kernel
def _gather_2d(item, x, idx, out):
    r = item.get_id(0)
    j = item.get_id(1)
    out[r, j] = x[r, idx[r, j]]


@kernel
def _compact_values(item, mask, pos, values, out):
    i = item.get_id(0)
    if mask[i]:
        out[pos[0, i] - 1] = values[i]


@kernel
def _compact_positions(item, mask, pos, out):
    i = item.get_id(0)
    if mask[i]:
        out[pos[0, i] - 1] = i


@kernel
def _scatter_masked(item, dest, mask, pos, src):
    i = item.get_id(0)
    if mask[i]:
        dest[i] = dest.dtype.type(src[pos[0, i] - 1])


@kernel
def _out_of_bounds(item, idx, n, out):
    """out[j] = whether idx[j] lies outside [-n, n) (signed idx)."""
    j = item.get_id(0)
    k = np.int64(idx[j])
    out[j] = k < -n or k >= n


@kernel
def _out_of_bounds_unsigned(item, idx, n, out):
    j = item.get_id(0)
    out[j] = np.uint64(idx[j]) >= n


@kernel
def _take(item, x, idx, out):
    p = item.get_id(0)
    j = item.get_id(1)
    q = item.get_id(2)
    k = np.int64(idx[j])
    if k < 0:
        k = k + x.shape[1]
    out[p, j, q] = x[p, k, q]


@kernel
def _put_claim(item, idx, n, winner):
    """winner[k] = the last j with idx[j] == k (NumPy's last write wins)."""
    j = item.get_id(0)
    k = np.int64(idx[j])
    if k < 0:
        k = k + n
    kapi.AtomicRef(winner, k).fetch_max(np.int32(j))


@kernel
def _put(item, x, idx, values, winner):
    p = item.get_id(0)
    j = item.get_id(1)
    q = item.get_id(2)
    k = np.int64(idx[j])
    if k < 0:
        k = k + x.shape[1]
    if winner[k] == j:
        x[p, k, q] = x.dtype.type(values[p, j, q])


# --------------------------------------------------------------------------
# Helpers

_SORTABLE = "biuf"


def _sort_dtype_kind(dtype, what):
    if dtype.kind in _SORTABLE:
        return False
    if dtype.kind == "c":
        return True
    raise errors.NotSupportedError(
        f"{what} does not support arrays of dtype {dtype}")


# --------------------------------------------------------------------------
# Public functions

def iota(n, dtype, device):
    """The 1-D DeviceArray [0, 1, ..., n-1] of ``dtype`` on ``device`` (a
    runtime device, as ``x._device``)."""
    from ._array_ops import _empty as empty
    n = int(n)
    if n < 0:
        raise errors.InvalidArgumentError(
            f"iota: the length must be non-negative, not {n}")
    out = empty((n,), dtype, device)
    if n:
        _launch(_iota, (n,), out)
    return out


def fill(out, value):
    """Writes ``value`` (a NumPy scalar of its dtype) into every element of
    the C-contiguous DeviceArray ``out``."""
    _check_array(out, "fill: out")
    n = out.size
    if n:
        _launch(_fill, (n,), out._view([n], [out.dtype.itemsize],
                                       out._offset), value)


def _sorts_by_groups(x, padded, key_dtype):
    """Whether rows of ``padded`` keys sort a row a work-group in local
    memory: on GPUs with the local memory for a row's keys and indices
    (``GROUP_SORT``: None), or everywhere (True, tests) or nowhere."""
    if GROUP_SORT is not None:
        return GROUP_SORT
    props = _properties(x)
    need = padded * (np.dtype(key_dtype).itemsize + 8) + 4096
    return props.get("device_type") == "gpu" and \
        (props.get("local_mem_size") or 0) >= need


def _sorted_pairs(x, descending):
    """(keys, idx) of shape (rows, P), P the power of two >= n: each row's
    (key, original index) pairs in the result's order, padding last."""
    _check_array(x, "argsort: x", 2)
    is_complex = _sort_dtype_kind(x.dtype, "argsort")
    rows, n = x.shape
    padded = 1
    while padded < n:
        padded *= 2
    key_dtype = np.dtype(np.uint8) if x.dtype.kind == "b" else x.dtype
    keys = _empty((rows, padded), key_dtype, x)
    idx = _empty((rows, padded), np.int64, x)
    _launch(_sort_init, (rows, padded), x, keys, idx)
    step, block_steps, whole = \
        _bitonic_complex if is_complex else _bitonic_real
    desc = 1 if descending else 0
    if 2 <= padded <= GROUP_SORT_MAX and \
            _sorts_by_groups(x, padded, key_dtype):
        # GPUs: a row a work-group, in local memory (one item running the
        # stages of a block alone would wait on memory at every step).
        width = min(padded // 2, _group_width(x))
        _enqueue(whole, _nd_range((rows, width), (1, width)), keys,
                 idx, n, desc, _local((padded,), key_dtype),
                 _local((padded,), np.int64))
        return keys, idx
    # Stages whose pairs stay inside blocks of SORT_BLOCK entries run as
    # one launch, an item a block; the wider ones one launch each.
    block = min(SORT_BLOCK, padded)
    _launch(block_steps, (rows, padded // block), keys, idx, n, 2, block,
            block, desc)
    k = 2 * block
    while k <= padded:
        j = k // 2
        while j >= block:
            _launch(step, (rows, padded // 2), keys, idx, n, k, j, desc)
            j //= 2
        _launch(block_steps, (rows, padded // block), keys, idx, n, k, k,
                block, desc)
        k *= 2
    return keys, idx


def argsort_rows(x, descending=False):
    """The stable argsort of each row of the 2-D ``x``: a (rows, n) int64
    DeviceArray. Ascending is ``np.argsort(x, axis=1, kind="stable")``
    (NaNs last; complex numbers by real part, then imaginary part);
    descending is array-api-strict's ``argsort(descending=True)``: larger
    keys first, NaNs first, equal keys in their original order."""
    _check_array(x, "argsort_rows: x", 2)
    _sort_dtype_kind(x.dtype, "argsort_rows")
    rows, n = x.shape
    out = _empty((rows, n), np.int64, x)
    if rows == 0 or n == 0:
        return out
    if rows == 1 and n >= RADIX_MIN and x.dtype.kind != "c":
        from ._library_radix import radix_order
        order = radix_order(x, descending)
        return order._view([1, n], [0, 8], order._offset)
    _, idx = _sorted_pairs(x, descending)
    if idx.shape[1] == n:
        return idx
    _launch(_copy_2d, (rows, n), idx, out)
    return out


def sort_rows(x, descending=False):
    """Each row of the 2-D ``x`` sorted (in ``argsort_rows``' order): a
    (rows, n) DeviceArray of x's dtype."""
    _check_array(x, "sort_rows: x", 2)
    _sort_dtype_kind(x.dtype, "sort_rows")
    rows, n = x.shape
    out = _empty((rows, n), x.dtype, x)
    if rows == 0 or n == 0:
        return out
    if rows == 1 and n >= RADIX_MIN and x.dtype.kind != "c":
        from ._library_radix import radix_order, radix_sorted
        done = radix_sorted(x, descending)
        if done is not None:
            return done._view([1, n], [0, x.dtype.itemsize], done._offset)
        order = radix_order(x, descending)
        idx = order._view([1, n], [0, 8], order._offset)
    else:
        _, idx = _sorted_pairs(x, descending)
    # The original elements, so -0.0 and NaN payloads come back unchanged.
    _launch(_gather_2d, (rows, n), x, idx, out)
    return out


def _mask_positions(mask):
    """(pos, count): pos the (1, n) inclusive scan of the mask (element i
    is the 1-based rank of a True at i), int32 below 2**31 elements (half
    the memory traffic of int64), count its last value, read to the
    host."""
    dtype = np.dtype(np.int32 if mask.shape[0] < 2 ** 31 else np.int64)
    pos = scan_rows(_as_row(mask), "+", dtype)
    count = int(pos._view([], [], pos._offset +
                          dtype.itemsize * (mask.shape[0] - 1)))
    return pos, count


def _check_mask(mask, what):
    _check_array(mask, f"{what}: mask", 1)
    if mask.dtype != np.dtype(np.bool_):
        raise errors.TypingError(
            f"{what}: mask must be a bool DeviceArray, not {mask.dtype}")


def compact(mask, values=None):
    """The elements of the 1-D ``values`` where the 1-D bool ``mask`` is
    True, in order (``values[mask]``); with ``values`` None, the int64
    positions of the Trues (``np.flatnonzero(mask)``)."""
    _check_mask(mask, "compact")
    n = mask.shape[0]
    if values is not None:
        _check_array(values, "compact: values", 1)
        _device(mask, values)
        if values.shape[0] != n:
            raise errors.ArrayIndexError(
                f"boolean index did not match indexed array along axis 0; "
                f"size of axis is {values.shape[0]} but size of "
                f"corresponding boolean axis is {n}")
    dtype = values.dtype if values is not None else np.dtype(np.int64)
    if n == 0:
        return _empty((0,), dtype, mask)
    pos, count = _mask_positions(mask)
    out = _empty((count,), dtype, mask)
    if count:
        if values is None:
            _launch(_compact_positions, (n,), mask, pos, out)
        else:
            _launch(_compact_values, (n,), mask, pos, values, out)
    return out


def scatter_masked(dest, mask, src):
    """dest[mask] = src, in place: the 1-D ``src`` (count(mask) elements,
    or one, which is repeated) written in order where the 1-D bool ``mask``
    is True; src converted to dest's dtype."""
    _check_array(dest, "scatter_masked: dest", 1)
    _check_mask(mask, "scatter_masked")
    _check_array(src, "scatter_masked: src", 1)
    _device(dest, mask, src)
    n = dest.shape[0]
    if mask.shape[0] != n:
        raise errors.ArrayIndexError(
            f"boolean index did not match indexed array along axis 0; size "
            f"of axis is {n} but size of corresponding boolean axis is "
            f"{mask.shape[0]}")
    if n == 0:
        count = 0
    else:
        pos, count = _mask_positions(mask)
    if src.shape[0] != count and src.shape[0] != 1:
        raise errors.InvalidArgumentError(
            f"NumPy boolean array indexing assignment cannot assign "
            f"{src.shape[0]} input values to the {count} output values "
            f"where the mask is true")
    if count == 0:
        return dest
    if src.shape[0] == 1 and count != 1:
        src = src._view([count], [0], src._offset)
    if _same_buffer(src, dest):
        src = src.copy()
    _launch(_scatter_masked, (n,), dest, mask, pos, src)
    return dest


def _check_indices(idx, n, axis):
    """ArrayIndexError (NumPy's message) naming the first index of ``idx``
    outside [-n, n)."""
    if idx.dtype.kind not in "iu":
        raise errors.ArrayIndexError(
            "arrays used as indices must be of integer (or boolean) type")
    m = idx.shape[0]
    if m == 0:
        return
    lo = int(idx.min())
    hi = int(idx.max())
    if lo >= -n and hi < n:
        return
    bad = _empty((m,), np.bool_, idx)
    if idx.dtype.kind == "u":
        _launch(_out_of_bounds_unsigned, (m,), idx, np.uint64(n), bad)
    else:
        _launch(_out_of_bounds, (m,), idx, np.int64(n), bad)
    first = int(compact(bad)._view([], [], 0))
    value = int(idx._view([], [], idx._offset + first * idx.strides[0]))
    raise errors.ArrayIndexError(
        f"index {value} is out of bounds for axis {axis} with size {n}")


def take_rows(x, idx, axis=0, checked=False):
    """out[p, j, q] = x[p, idx[j], q] for the 3-D ``x`` (pre, n, post) and
    the 1-D integer ``idx`` (negative indices count from the end): a
    (pre, len(idx), post) DeviceArray of x's dtype. An index outside
    [-n, n) raises ArrayIndexError with NumPy's message (``axis`` is the
    axis it names); ``checked``: the caller has checked them."""
    _check_array(x, "take_rows: x", 3)
    _check_array(idx, "take_rows: idx", 1)
    _device(x, idx)
    pre, n, post = x.shape
    m = idx.shape[0]
    if not checked:
        _check_indices(idx, n, axis)
    out = _empty((pre, m, post), x.dtype, x)
    if pre and m and post:
        _launch(_take, (pre, m, post), x, idx, out)
    return out


def put_rows(x, idx, values, axis=0):
    """x[p, idx[j], q] = values[p, j, q], in place, for the 3-D ``x``
    (pre, n, post), the 1-D integer ``idx`` and ``values`` of shape
    (pre, len(idx), post) (converted to x's dtype). Where an index repeats,
    the last write wins, as in NumPy. Index errors as ``take_rows``."""
    _check_array(x, "put_rows: x", 3)
    _check_array(idx, "put_rows: idx", 1)
    _check_array(values, "put_rows: values", 3)
    _device(x, idx, values)
    pre, n, post = x.shape
    m = idx.shape[0]
    if tuple(values.shape) != (pre, m, post):
        raise errors.InvalidArgumentError(
            f"put_rows: values have shape {tuple(values.shape)}, not "
            f"{(pre, m, post)}")
    _check_indices(idx, n, axis)
    if not (pre and m and post):
        return x
    if m >= 2**31 - 1:
        raise errors.NotSupportedError(
            "put_rows takes fewer than 2**31 - 1 indices")
    if _same_buffer(values, x):
        values = values.copy()
    if _same_buffer(idx, x):
        idx = idx.copy()
    winner = _empty((n,), np.int32, x)
    _launch(_fill, (n,), winner, np.int32(-1))
    _launch(_put_claim, (m,), idx, np.int64(n), winner)
    _launch(_put, (pre, m, post), x, idx, values, winner)
    return x


def searchsorted(a, v, side="left"):
    """np.searchsorted(a, v, side) for the sorted 1-D ``a`` (ascending,
    NaNs last) and ``v`` of any shape: an int64 DeviceArray of v's shape.
    Both are compared in their common dtype (np.result_type)."""
    _check_array(a, "searchsorted: a", 1)
    _check_array(v, "searchsorted: v")
    _device(a, v)
    if side not in ("left", "right"):
        raise errors.InvalidArgumentError(
            f"side must be 'left' or 'right' (got {side!r})")
    common = np.result_type(a.dtype, v.dtype)
    is_complex = _sort_dtype_kind(common, "searchsorted")
    if a.dtype != common:
        a = a.astype(common)
    if v.dtype != common:
        v = v.astype(common)
    out = _empty(tuple(v.shape), np.int64, v)
    size = out.size
    if size == 0:
        return out
    if not v.flags.c_contiguous:
        v = v.copy()
    flat_v = v._view([size], [v.dtype.itemsize], v._offset)
    flat_out = out._view([size], [8], out._offset)
    kern = _search_complex if is_complex else _search_real
    _launch(kern, (size,), a, flat_v, flat_out, 1 if side == "right" else 0)
    return out
