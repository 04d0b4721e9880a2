"""The LSD radix sort of one long row, for the library's argsort and sort
(``_library_kernels.argsort_rows``/``sort_rows`` call it for single rows
of at least ``RADIX_MIN`` elements).

Contract: ``radix_order(x, descending)`` gives the stable ascending order
of the (1, n) real or integer row ``x`` (NumPy's: NaNs last, both zeros
equal), or array-api-strict's descending one, as a 1-D int64 DeviceArray.
The values become unsigned keys in the same order (``_radix_int_keys``,
``_radix_float_keys`` through a view of the floats' bits); each pass sorts
by RADIX_BITS bits from the lowest, as two launches and a scan of digit
counts: a work-item counts its RADIX_CHUNK consecutive keys, the counts are
scanned digit by digit across items, and each item moves its keys, in
order, to the places the scan gives (a stable pass). No work-group waits on
another.
"""

import numpy as np

from . import kernel
from . import kernel_api as kapi
from ._library_kernels import _as_row, _empty, _launch, iota, scan_rows

RADIX_BITS = 4
RADIX = 1 << RADIX_BITS
RADIX_CHUNK = 256


@kernel
def _radix_int_keys(item, x, keys, bias, flip, desc):
    """keys[i] = x's integer as an unsigned key in the same order:
    (x + bias) ^ flip, every bit flipped for a descending sort."""
    i = item.get_id(0)
    t = keys.dtype.type
    k = t(np.int64(x[0, i]) + bias) ^ flip
    if desc:
        k = ~k
    keys[i] = k


@kernel
def _radix_float_keys(item, bits, keys, sign, inf, desc):
    """keys[i] = the float whose bits are bits[0, i] as an unsigned key in
    NumPy's order: negatives below positives, both zeros one key, every NaN
    after +inf (every bit flipped for a descending sort)."""
    i = item.get_id(0)
    t = keys.dtype.type
    b = t(bits[0, i])
    mag = b & (sign - t(1))
    if mag > inf:
        k = ~t(0)
    elif mag == t(0):
        k = sign
    elif (b & sign) != t(0):
        k = ~b
    else:
        k = b | sign
    if desc:
        k = ~k
    keys[i] = k


@kernel
def _radix_count(item, keys, counts, shift, chunk, items):
    """counts[d * items + t] = how many keys of item t's chunk have the
    digit d (4 bits at ``shift``)."""
    t = item.get_id(0)
    n = keys.shape[0]
    c = kapi.PrivateArray(RADIX, np.int64, True)
    kt = keys.dtype.type
    lo = t * chunk
    hi = min(lo + chunk, n)
    for j in range(lo, hi):
        c[int((keys[j] >> kt(shift)) & kt(RADIX - 1))] += 1
    for d in range(RADIX):
        counts[d * items + t] = c[d]


@kernel
def _radix_scatter(item, keys, idx, out_keys, out_idx, ends, counts, shift,
                   chunk, items):
    """Item t moves its chunk's (key, index) pairs, in order, to the places
    the scanned counts give each digit: a stable pass."""
    t = item.get_id(0)
    n = keys.shape[0]
    at = kapi.PrivateArray(RADIX, np.int64)
    for d in range(RADIX):
        at[d] = ends[d * items + t] - counts[d * items + t]
    kt = keys.dtype.type
    lo = t * chunk
    hi = min(lo + chunk, n)
    for j in range(lo, hi):
        k = keys[j]
        d = int((k >> kt(shift)) & kt(RADIX - 1))
        p = at[d]
        out_keys[p] = k
        out_idx[p] = idx[j]
        at[d] = p + 1


def radix_order(x, descending):
    """The stable ascending (or array-api-strict descending) order of the
    (1, n) real or integer row x, by an LSD radix sort of unsigned keys
    made from its values: a 1-D int64 DeviceArray."""
    n = x.shape[1]
    width = 64 if x.dtype.itemsize == 8 else 32
    key_dtype = np.dtype(np.uint64 if width == 64 else np.uint32)
    keys = _empty((n,), key_dtype, x)
    desc = 1 if descending else 0
    kt = key_dtype.type
    if x.dtype.kind == "f":
        bits = x._view(list(x.shape), list(x.strides), x._offset,
                       np.dtype(np.uint64 if width == 64 else np.uint32))
        inf = np.float64(np.inf) if width == 64 else np.float32(np.inf)
        _launch(_radix_float_keys, (n,), bits, keys, kt(1) << kt(width - 1),
                kt(inf.view(key_dtype)), desc)
        significant = width
    else:
        source = 8 * x.dtype.itemsize if x.dtype.kind != "b" else 1
        signed = x.dtype.kind == "i"
        if signed and source < 64:
            bias, flip = 1 << (source - 1), 0   # into [0, 2**source)
        elif signed:
            bias, flip = 0, 1 << 63             # int64: the sign bit
        else:
            bias, flip = 0, 0
        _launch(_radix_int_keys, (n,), x, keys, np.int64(bias), kt(flip),
                desc)
        # Ascending keys of narrow integers use their low bits only; a
        # descending sort flips them all.
        significant = width if descending else max(source, RADIX_BITS)
    idx = iota(n, np.int64, x._device)
    other_keys = _empty((n,), key_dtype, x)
    other_idx = _empty((n,), np.int64, x)
    items = -(-n // RADIX_CHUNK)
    counts = _empty((RADIX * items,), np.int64, x)
    for shift in range(0, significant, RADIX_BITS):
        _launch(_radix_count, (items,), keys, counts, shift, RADIX_CHUNK,
                items)
        ends = scan_rows(_as_row(counts), "+", np.int64)
        ends = ends._view([RADIX * items], [8], ends._offset)
        _launch(_radix_scatter, (items,), keys, idx, other_keys, other_idx,
                ends, counts, shift, RADIX_CHUNK, items)
        keys, other_keys = other_keys, keys
        idx, other_idx = other_idx, idx
    return idx
