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
counters), and one group scans the 256 counts and picks the digit holding
rank kth, on the device (no pass waits for the host). Then each tile of
GROUP * ITEMS keys counts its smaller and equal keys (packed in one
int64: smaller below bit 32, equal above), one group scans the tiles'
counts, and each tile places its indices after those of the tiles before
it. No work-group waits on another; 2 launches per 8 bits of key, then 3
launches.
"""

import numpy as np

from . import device_func, kernel
from . import kernel_api as kapi
from ._library_base import (_as_row, _empty, _enqueue, _launch, _local,
                            _nd_range)
from ._library_kernels import _fill

SELECT_MIN = 1 << 14

# A counting group: GROUP items, each counting ITEMS keys a group apart.
GROUP = 256
ITEMS = 16

# The local memory of the placing kernel: a tile's codes and places (32
# bits each, a spare slot every ITEMS) and the group scan's scratch.
LOCAL_BYTES = 2 * 4 * (GROUP * ITEMS + GROUP) + 8 * GROUP


@kernel
def _select_count(item: kapi.NdItem, keys, counts, state, shift, local):
    """counts[d] += how many keys k with (k & state[1]) == state[0] (the
    digits found so far) have the 8-bit digit d at ``shift``."""
    group = item.get_group()
    g = group.get_group_id(0)
    i = item.get_local_id(0)
    n = keys.shape[0]
    kt = keys.dtype.type
    prefix = state[0]
    above = state[1]
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
def _select_pick(item: kapi.NdItem, counts, state, rank, shift):
    """One group of 256: the digit d at ``shift`` whose keys hold rank
    rank[0] among those counted (the counts of smaller digits at most
    rank[0], with d's above it) joins the prefix state[0] and the mask
    state[1], rank[0] becomes the rank within digit d, and the counts go
    back to zero for the next pass."""
    group = item.get_group()
    i = item.get_local_id(0)
    kt = state.dtype.type
    c = counts[i]
    counts[i] = np.int64(0)
    upto = kapi.group_inclusive_scan(group, c, "+")
    r = rank[0]
    kapi.group_barrier(group)  # every item has read rank[0]
    if upto - c <= r and r < upto:
        state[0] = state[0] | (kt(i) << kt(shift))
        rank[0] = r - (upto - c)
    if i == 0:
        state[1] = state[1] | (kt(255) << kt(shift))


@device_func
def _side(k, pivot):
    """1 for a key below the pivot, 1 << 32 for one equal to it, else 0:
    two counts packed in one int64."""
    if k < pivot:
        return np.int64(1)
    if k == pivot:
        return np.int64(1) << np.int64(32)
    return np.int64(0)


@device_func
def _code(k, pivot):
    """_side's answer in 32 bits (for local memory): 1 below, 2 equal, 0
    above."""
    if k < pivot:
        return np.int32(1)
    if k == pivot:
        return np.int32(2)
    return np.int32(0)


@device_func
def _packed(code):
    """_side's packed count of a _code."""
    if code == np.int32(1):
        return np.int64(1)
    if code == np.int32(2):
        return np.int64(1) << np.int64(32)
    return np.int64(0)


@kernel
def _part_count(item: kapi.NdItem, keys, state, sides):
    """sides[g] = the packed smaller and equal counts of tile g (its GROUP
    * ITEMS keys, read a group's width apart) against the pivot key
    state[0]."""
    pivot = state[0]
    group = item.get_group()
    g = group.get_group_id(0)
    i = item.get_local_id(0)
    n = keys.shape[0]
    base = g * GROUP * ITEMS
    mine = np.int64(0)
    for k in range(ITEMS):
        j = base + k * GROUP + i
        if j < n:
            mine += _side(keys[j], pivot)
    total = kapi.group_reduce(group, mine, "+")
    if i == 0:
        sides[g] = total


@device_func
def _slot(p):
    """The local slot of tile position p: a spare one after every ITEMS,
    so the items of a warp reading their runs touch distinct banks."""
    return p + p // ITEMS


@kernel
def _part_place(item: kapi.NdItem, keys, state, before, totals, out,
                side, place):
    """out[the place of tile position p] = its index: the tile's sides
    (``_code``s) are staged in local memory as read (adjacent items,
    adjacent keys), places in 32 bits (rows below 2**31),
    each item counts its run of ITEMS, the group scans the runs' packed
    counts, each item finds its keys' places after those of the tiles
    ``before`` it (``totals[0]``: the whole row's), and the group writes
    the indices in tile order (adjacent items, mostly adjacent places);
    the pivot key is state[0]."""
    pivot = state[0]
    group = item.get_group()
    g = group.get_group_id(0)
    i = item.get_local_id(0)
    n = keys.shape[0]
    base = g * GROUP * ITEMS
    for k in range(ITEMS):
        p = k * GROUP + i
        if base + p < n:
            side[_slot(p)] = _code(keys[base + p], pivot)
        else:
            side[_slot(p)] = np.int32(0)
    kapi.group_barrier(group)
    mine = np.int64(0)
    for k in range(ITEMS):
        mine += _packed(side[_slot(i * ITEMS + k)])
    at = kapi.group_exclusive_scan(group, mine, "+") + before[g]
    low = np.int64(0xFFFFFFFF)
    last = totals[0]
    less = at & low                  # smaller keys before this item's
    equal = at >> np.int64(32)
    lo = base + i * ITEMS
    larger = lo - less - equal       # larger keys before it
    small = last & low
    middle = small + (last >> np.int64(32))
    for k in range(ITEMS):
        q = _slot(i * ITEMS + k)
        f = side[q]
        if lo + k >= n:
            place[q] = np.int32(-1)
        elif f == np.int32(1):
            place[q] = np.int32(less)
            less += 1
        elif f == np.int32(2):
            place[q] = np.int32(small + equal)
            equal += 1
        else:
            place[q] = np.int32(middle + larger)
            larger += 1
    kapi.group_barrier(group)
    for k in range(ITEMS):
        p = k * GROUP + i
        dest = place[_slot(p)]
        if dest >= np.int32(0):
            out[dest] = base + p


def argpartition_row(x, kth):
    """NumPy's argpartition of the 1-D ``x`` at 0 <= kth < n: a 1-D int64
    DeviceArray (see the module's contract)."""
    from ._library_radix import _radix_digit_scan, _radix_keys
    n = x.shape[0]
    keys, significant, _ = _radix_keys(_as_row(x), False)
    kt = keys.dtype.type
    groups = -(-n // (GROUP * ITEMS))
    space = _nd_range((groups * GROUP,), (GROUP,))
    counts = _empty((256,), np.dtype(np.int64), x)
    _launch(_fill, (256,), counts, np.int64(0))
    # The key's digits found so far and their mask, and the rank sought
    # among the keys that share them: on the device, so that no pass
    # waits for the host.
    state = _empty((2,), keys.dtype, x)
    _launch(_fill, (2,), state, kt(0))
    rank = _empty((1,), np.dtype(np.int64), x)
    _launch(_fill, (1,), rank, np.int64(kth))
    top = -(-significant // 8) * 8   # digits above the keys' bits are 0
    for shift in range(top - 8, -1, -8):
        _enqueue(_select_count, space, keys, counts, state, shift,
                 _local((GROUP,), np.int32))
        _enqueue(_select_pick, _nd_range((256,), (256,)), counts, state,
                 rank, shift)
    sides = _empty((groups,), np.dtype(np.int64), x)
    _enqueue(_part_count, space, keys, state, sides)
    before = _empty((groups,), np.dtype(np.int64), x)
    totals = _empty((1,), np.dtype(np.int64), x)
    _enqueue(_radix_digit_scan, _nd_range((GROUP,), (GROUP,)), sides,
             before, totals, groups)
    out = _empty((n,), np.dtype(np.int64), x)
    slots = GROUP * ITEMS + GROUP
    _enqueue(_part_place, space, keys, state, before, totals, out,
             _local((slots,), np.int32),
             _local((slots,), np.int32))
    return out
