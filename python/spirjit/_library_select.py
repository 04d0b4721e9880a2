"""Selection of one rank in a long row, for argpartition and partition
(``_array_primitives.argpartition`` calls ``argpartition_row`` for one kth
of one row of at least SELECT_MIN elements).

Contract: ``argpartition_row(x, kth)`` gives, for the 1-D real or integer
DeviceArray ``x`` and 0 <= kth < n, NumPy's argpartition of x at kth as a
1-D int64 DeviceArray: the index of the kth smallest element (NaNs last,
both zeros equal) at place kth, the indices of smaller elements before it
and of larger ones after it, each group in the order of x. It finds the
kth key by a radix select: the values become the radix sort's unsigned
keys (``_library_radix._radix_keys``), and each pass counts, among the
keys that share the digits found so far, how many have each 8-bit digit
below them (a group's counts in local memory, added into 256 global
counters), reads the 256 counts back and picks the digit holding rank
kth. Then one scan of packed counts (smaller below bit 32, equal above)
places every index. No work-group waits on another; 2 + 3 launches and a
read back of 1 KiB per 8 bits of key, and 3 launches to partition.
"""

import numpy as np

from . import kernel
from . import kernel_api as kapi
from ._library_kernels import _as_row, _empty, _fill, _launch, scan_rows

SELECT_MIN = 1 << 14

# A counting group: GROUP items, each counting ITEMS keys a group apart.
GROUP = 256
ITEMS = 16


@kernel
def _select_count(item: kapi.NdItem, keys, counts, prefix, above, shift,
                  local):
    """counts[d] += how many keys k with (k & above) == prefix have the
    8-bit digit d at ``shift``."""
    group = item.get_group()
    g = group.get_group_id(0)
    i = item.get_local_id(0)
    n = keys.shape[0]
    kt = keys.dtype.type
    local[i] = np.int32(0)
    kapi.group_barrier(group)
    base = g * GROUP * ITEMS
    for k in range(ITEMS):
        j = base + k * GROUP + i
        if j < n:
            key = keys[j]
            if (key & above) == prefix:
                d = int((key >> kt(shift)) & kt(255))
                kapi.AtomicRef(local, d,
                               address_space=kapi.AddressSpace.LOCAL
                               ).fetch_add(np.int32(1))
    kapi.group_barrier(group)
    c = local[i]
    if c != np.int32(0):
        kapi.AtomicRef(counts, i).fetch_add(np.int64(c))


@kernel
def _select_flags(item, keys, flags, pivot):
    """flags[0, i] = 1 where keys[i] < pivot, 1 << 32 where it equals it."""
    i = item.get_id(0)
    k = keys[i]
    f = np.int64(0)
    if k < pivot:
        f = np.int64(1)
    elif k == pivot:
        f = np.int64(1) << np.int64(32)
    flags[0, i] = f


@kernel
def _select_place(item, keys, scanned, pivot, out):
    """out[the place of index i] = i, from the inclusive scan of flags."""
    i = item.get_id(0)
    n = keys.shape[0]
    low = np.int64(0xFFFFFFFF)
    s = scanned[0, i]
    last = scanned[0, n - 1]
    less = s & low
    equal = s >> np.int64(32)
    k = keys[i]
    if k < pivot:
        at = less - 1
    elif k == pivot:
        at = (last & low) + equal - 1
    else:
        at = (last & low) + (last >> np.int64(32)) + i - less - equal
    out[at] = i


def argpartition_row(x, kth):
    """NumPy's argpartition of the 1-D ``x`` at 0 <= kth < n: a 1-D int64
    DeviceArray (see the module's contract)."""
    from . import call_kernel
    from ._library_radix import _radix_keys
    n = x.shape[0]
    keys, significant, _ = _radix_keys(_as_row(x), False)
    kt = keys.dtype.type
    counts = _empty((256,), np.dtype(np.int64), x)
    groups = -(-n // (GROUP * ITEMS))
    space = kapi.NdRange((groups * GROUP,), (GROUP,))
    prefix = 0
    above = 0
    rank = int(kth)
    top = -(-significant // 8) * 8   # digits above the keys' bits are 0
    for shift in range(top - 8, -1, -8):
        _launch(_fill, (256,), counts, np.int64(0))
        call_kernel(_select_count, space, keys, counts, kt(prefix),
                    kt(above), shift, kapi.LocalAccessor((GROUP,), np.int32))
        cumulative = np.cumsum(counts.asnumpy())
        digit = int(np.searchsorted(cumulative, rank, side="right"))
        if digit:
            rank -= int(cumulative[digit - 1])
        prefix |= digit << shift
        above |= 0xFF << shift
    flags = _empty((1, n), np.dtype(np.int64), x)
    _launch(_select_flags, (n,), keys, flags, kt(prefix))
    scanned = scan_rows(flags, "+", np.int64)
    out = _empty((n,), np.dtype(np.int64), x)
    _launch(_select_place, (n,), keys, scanned, kt(prefix), out)
    return out
