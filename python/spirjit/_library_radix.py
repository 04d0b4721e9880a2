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

On GPUs (``_tiled``) a pass sorts by TILE_BITS = 8 bits and moves whole
tiles of TILE keys (twice as many where keys travel alone): a work-group
counts its tile's digits in local memory (``count``), a group per digit
scans those counts across tiles (``_radix_digit_scan``), and the group
then sorts its tile by the digit in local memory (each sub-group ranks
its run of keys by ballots, ``kapi.sub_group_ballot``, and counters a
digit) and writes it out in that order, so adjacent items write adjacent
places (``tile_pass``). Indices travel as uint32 below 2**32 elements.
The CPU form suits CPUs, whose work-items each run long sequential
chunks well.
"""

import numpy as np

from . import device_func, kernel
from . import kernel_api as kapi
from ._library_base import (_as_row, _empty, _enqueue, _launch, _local,
                            _nd_range, _properties)
from ._library_kernels import iota
from ._library_scan import scan_rows

RADIX_BITS = 4
RADIX = 1 << RADIX_BITS
RADIX_CHUNK = 256

# The tiled (GPU) passes: TILE_WIDTH items a group, each ranking TILE_ITEMS
# keys and indices (TILE_KEY_ITEMS keys where no index travels); TILE_BITS
# bits a pass, so TILE_WIDTH is also the digit count.
TILE_WIDTH = 256
TILE_ITEMS = 8
TILE_KEY_ITEMS = 16
TILE = TILE_WIDTH * TILE_ITEMS
TILE_BITS = 8

# None: tiled passes on GPUs only; True or False forces one form (tests).
TILED = None


# Keys an item of the kernels below makes or decodes: item i takes i,
# i + m, i + 2m, ... (m items in all), its reads all in flight at once (one
# a item, making the keys of 2^24 floats ran at 40 % of the H200's memory
# rate).
KEY_ITEMS = 8


def _key_items(n):
    """The launch extents of the kernels below over n keys."""
    return (-(-n // KEY_ITEMS),)


@kernel
def _radix_int_keys(item, x, keys, bias, flip, desc):
    """keys[j] = x's integer as an unsigned key in the same order:
    (x + bias) ^ flip, every bit flipped for a descending sort."""
    i = item.get_id(0)
    m = item.get_range(0)
    n = keys.shape[0]
    t = keys.dtype.type
    got = kapi.PrivateArray(KEY_ITEMS, np.int64)
    for k in range(KEY_ITEMS):
        j = i + k * m
        got[k] = np.int64(x[0, j]) if j < n else np.int64(0)
    for k in range(KEY_ITEMS):
        j = i + k * m
        if j < n:
            key = t(got[k] + bias) ^ flip
            if desc:
                key = ~key
            keys[j] = key


@kernel
def _radix_float_keys(item, bits, keys, sign, inf, desc, seen):
    """keys[j] = the float whose bits are bits[0, j] as an unsigned key in
    NumPy's order: negatives below positives, both zeros one key, every NaN
    after +inf (every bit flipped for a descending sort). seen[0], [1],
    [2] = 1 where x has a NaN, a -0.0, a 0.0 (what the keys merge)."""
    i = item.get_id(0)
    m = item.get_range(0)
    n = keys.shape[0]
    t = keys.dtype.type
    got = kapi.PrivateArray(KEY_ITEMS, t)
    for k in range(KEY_ITEMS):
        j = i + k * m
        got[k] = t(bits[0, j]) if j < n else t(0)
    for k in range(KEY_ITEMS):
        j = i + k * m
        if j < n:
            b = got[k]
            mag = b & (sign - t(1))
            if mag > inf:
                key = ~t(0)
                seen[0] = np.int32(1)
            elif mag == t(0):
                key = sign
                if b == t(0):
                    seen[2] = np.int32(1)
                else:
                    seen[1] = np.int32(1)
            elif (b & sign) != t(0):
                key = ~b
            else:
                key = b | sign
            if desc:
                key = ~key
            keys[j] = key


@kernel
def _radix_int_values(item, keys, out, bias, flip, desc):
    """out[j] = the integer whose key (``_radix_int_keys``) is keys[j]."""
    i = item.get_id(0)
    m = item.get_range(0)
    n = keys.shape[0]
    t = keys.dtype.type
    got = kapi.PrivateArray(KEY_ITEMS, t)
    for k in range(KEY_ITEMS):
        j = i + k * m
        got[k] = keys[j] if j < n else t(0)
    for k in range(KEY_ITEMS):
        j = i + k * m
        if j < n:
            key = got[k]
            if desc:
                key = ~key
            out[j] = out.dtype.type(np.int64(key ^ flip) - bias)


@kernel
def _radix_float_values(item, keys, bits, sign, desc, zero):
    """bits[j] = the bits of the float (not a NaN) whose key
    (``_radix_float_keys``) is keys[j]; the zeros' key gives ``zero``."""
    i = item.get_id(0)
    m = item.get_range(0)
    n = keys.shape[0]
    t = keys.dtype.type
    got = kapi.PrivateArray(KEY_ITEMS, t)
    for k in range(KEY_ITEMS):
        j = i + k * m
        got[k] = keys[j] if j < n else t(0)
    for k in range(KEY_ITEMS):
        j = i + k * m
        if j < n:
            key = got[k]
            if desc:
                key = ~key
            if key == sign:
                bits[j] = zero
            elif (key & sign) != t(0):
                bits[j] = key ^ sign
            else:
                bits[j] = ~key


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


# Counts an item of ``_radix_digit_scan`` reads at once.
DIGIT_SCAN_RUN = 8


@kernel
def _radix_digit_scan(item: kapi.NdItem, counts, offsets, totals, tiles):
    """Group d scans row d of the digit-major counts: offsets[d * tiles +
    g] = the keys of digit d in the tiles before g, totals[d] = all keys
    of digit d. The group walks the row in chunks of DIGIT_SCAN_RUN counts
    an item: each item reads its run of the chunk at once, the group scans
    the runs, and each item writes its run's offsets (an item walking a
    sixteenth of the row alone waited on each read: 19 us a pass on the
    H200 at 2^24 keys)."""
    group = item.get_group()
    d = group.get_group_id(0)
    i = item.get_local_id(0)
    width = item.get_local_range(0)
    row = d * tiles
    ot = offsets.dtype.type
    before = ot(0)
    run = kapi.PrivateArray(DIGIT_SCAN_RUN, ot)
    chunk = width * DIGIT_SCAN_RUN
    for c in range(-(-tiles // chunk)):  # the same trips for every item
        lo = c * chunk + i * DIGIT_SCAN_RUN
        mine = ot(0)
        for k in range(DIGIT_SCAN_RUN):
            g = lo + k
            run[k] = ot(counts[row + g]) if g < tiles else ot(0)
        for k in range(DIGIT_SCAN_RUN):
            mine += run[k]
        at = before + kapi.group_exclusive_scan(group, mine, "+")
        before += kapi.group_reduce(group, mine, "+")
        for k in range(DIGIT_SCAN_RUN):
            g = lo + k
            if g < tiles:
                offsets[row + g] = at
            at += run[k]
    if i == 0:
        totals[d] = before


@device_func
def _popc(v):
    """The set bits of the uint32 v (LLVM makes this one instruction)."""
    v = v - ((v >> np.uint32(1)) & np.uint32(0x55555555))
    v = (v & np.uint32(0x33333333)) + ((v >> np.uint32(2)) &
                                       np.uint32(0x33333333))
    v = (v + (v >> np.uint32(4))) & np.uint32(0x0F0F0F0F)
    return int((v * np.uint32(0x01010101)) >> np.uint32(24))


def _make_tile_kernels(items, wide):
    """The tiled passes' kernels for tiles of TILE_WIDTH * ``items`` keys
    (each item ranks ``items``): (count, tile_pass). The tile pass's
    positions are 64-bit where ``wide`` (2**31 keys or more), else 32-bit:
    its ALU pipe was its bound, and a 64-bit add or compare is two."""
    tile = TILE_WIDTH * items
    ix = np.uint64 if wide else np.uint32  # positions
    wx = np.int64 if wide else np.int32    # moves (``where``)

    @kernel
    def count(item: kapi.NdItem, keys, counts, shift, tiles, hist):
        """counts[d * tiles + g] = how many keys of tile g have the 8-bit
        digit d at ``shift``: counted in local memory by atomics."""
        group = item.get_group()
        g = group.get_group_id(0)
        i = item.get_local_id(0)
        n = keys.shape[0]
        kt = keys.dtype.type
        hist[i] = np.int32(0)
        base = g * tile
        # The tile's keys are all read before the first count, so that an
        # item's reads wait on memory together (one at a time, the count
        # ran at a third of the memory's rate).
        mine = kapi.PrivateArray(items, kt)
        for k in range(items):
            j = base + k * TILE_WIDTH + i
            mine[k] = keys[j] if j < n else kt(0)
        kapi.group_barrier(group)
        for k in range(items):
            if base + k * TILE_WIDTH + i < n:
                d = int((mine[k] >> kt(shift)) & kt(TILE_WIDTH - 1))
                kapi.AtomicRef(hist, d,
                               address_space=kapi.AddressSpace.LOCAL
                               ).fetch_add(np.int32(1))
        kapi.group_barrier(group)
        counts[i * tiles + g] = hist[i]

    @kernel
    def tile_pass(item: kapi.NdItem, keys, idx, out_keys, out_idx, offsets,
                  totals, shift, tiles, first, carry, sk, si, hist, where):
        """Tile g's (key, index) pairs sorted stably by the 8-bit digit at
        ``shift`` in local memory (sk/si), then written out: the tile's
        keys of digit d go after every key of a smaller digit (``totals``)
        and the keys of digit d in the tiles before it (``offsets``).
        ``first``: the indices are the positions themselves (idx is not
        read); ``carry`` 0: keys alone (no index is read or written).

        Sub-group s ranks the tile's s-th run of width * items keys, width
        at a time in order: the lanes holding a key's digit (its peers)
        come from eight ballots, one a bit; the lowest peer adds their
        count to the sub-group's counter of that digit (hist) and hands
        the old count to the others; a key's rank among its digit's keys
        of the run is that count plus its peers in lower lanes. The
        counters, scanned across sub-groups and digits, turn those ranks
        into places in the sorted tile."""
        group = item.get_group()
        sg = item.get_sub_group()
        i = item.get_local_id(0)
        s = sg.get_group_id()
        lane = np.uint32(sg.get_local_id())
        width = sg.get_max_local_range()
        runs = TILE_WIDTH // width
        n = ix(keys.shape[0])
        kt = keys.dtype.type
        it = si.dtype.type
        u = np.uint32
        sh = kt(shift)
        digit = kt(TILE_WIDTH - 1)
        g = group.get_group_id(0)
        for r in range(runs):
            hist[r * TILE_WIDTH + i] = u(0)
        kapi.group_barrier(group)
        start_of_tile = ix(g * tile)
        base = start_of_tile + ix(s * width * items) + ix(lane)
        mine = kapi.PrivateArray(items, kt)
        rank = kapi.PrivateArray(items, np.uint32)
        below = (u(1) << lane) - u(1)
        lanes = u(0xFFFFFFFF) >> u(32 - width)
        counters = u(s * TILE_WIDTH)
        held_idx = kapi.PrivateArray(items, it)
        for k in range(items):  # every read in flight at once (count's)
            j = base + ix(k * width)
            mine[k] = keys[j] if j < n else ~kt(0)  # padding sorts last
            if carry:
                held_idx[k] = it(j) if first or j >= n else it(idx[j])
        for k in range(items):
            key = mine[k]
            d = u((key >> sh) & digit)
            # The lanes whose digit differs from this one's in some bit:
            # bit b's ballot, against this lane's bit b spread to all 32
            # (a shift, an arithmetic shift back), ORed over the bits.
            differ = u(0)
            for b in range(TILE_BITS):
                mine_b = u(np.int32(d << u(31 - b)) >> np.int32(31))
                differ |= kapi.sub_group_ballot(sg, mine_b) ^ mine_b
            peers = lanes & ~differ
            leader = _popc((peers & (~peers + u(1))) - u(1))
            held = u(0)
            if lane == leader:
                held = hist[counters + d]
                hist[counters + d] = held + u(_popc(peers))
            rank[k] = kapi.shuffle(sg, held, leader) + u(_popc(peers & below))
        kapi.group_barrier(group)
        # Item i owns digit i: its place in the sorted tile after every
        # smaller digit, each sub-group's keys of it after the sub-groups
        # before; where[i]: how far the tile's keys of digit i move.
        total = u(0)
        for r in range(runs):
            c = hist[r * TILE_WIDTH + i]
            hist[r * TILE_WIDTH + i] = total
            total += c
        start = kapi.group_exclusive_scan(group, total, "+")
        before = kapi.group_exclusive_scan(group, totals[i], "+")
        for r in range(runs):
            hist[r * TILE_WIDTH + i] += start
        where[i] = wx(before) + wx(offsets[i * tiles + g]) - wx(start)
        kapi.group_barrier(group)
        for k in range(items):
            key = mine[k]
            p = hist[counters + u((key >> sh) & digit)] + rank[k]
            sk[p] = key
            if carry:
                si[p] = held_idx[k]
        kapi.group_barrier(group)
        for k in range(items):
            p = u(k * TILE_WIDTH + i)
            if start_of_tile + ix(p) < n:
                key = sk[p]
                dest = ix(where[u((key >> sh) & digit)] + wx(p))
                out_keys[dest] = key
                if carry:
                    out_idx[dest] = out_idx.dtype.type(si[p])

    return count, tile_pass


# The sub-groups of a tile pass's group at most (sub-groups have 16 lanes
# or more on every target): each has a counter a digit.
TILE_RUNS = TILE_WIDTH // 16


def _local_bytes(items, carry):
    """The local memory of a tile pass over 64-bit keys (the most): the
    sorted tile's keys, its indices (uint32) where indices travel, the
    sub-groups' digit counters, the places, and the group scans' scratch."""
    tile = TILE_WIDTH * items
    return 8 * tile + (4 * tile if carry else 0) + \
        4 * TILE_RUNS * TILE_WIDTH + 8 * TILE_WIDTH + 16 * TILE_WIDTH + 64


_TILE_LOCAL_BYTES = max(_local_bytes(TILE_ITEMS, True),
                        _local_bytes(TILE_KEY_ITEMS, False))


def _tiled(x):
    """Whether x's device sorts by tiles (GPUs with groups of TILE_WIDTH
    items and the local memory for them)."""
    if TILED is not None:
        return TILED
    props = _properties(x)
    return props.get("device_type") == "gpu" and \
        (props.get("max_work_group_size") or 0) >= TILE_WIDTH and \
        (props.get("local_mem_size") or 0) >= _TILE_LOCAL_BYTES


def _tile_runs(x):
    """The sub-groups of a tile pass's group on x's device: TILE_RUNS, or
    TILE_WIDTH // 32 where every sub-group has 32 lanes or more (CUDA's
    warps), whose smaller counters leave local memory for more groups at
    once (seven a multiprocessor on the H200, were five)."""
    sizes = _properties(x).get("sub_group_sizes") or ()
    return TILE_WIDTH // 32 if sizes and min(sizes) >= 32 else TILE_RUNS


_TILE_KERNELS = {}


def _tile_kernels(items, wide):
    if (items, wide) not in _TILE_KERNELS:
        _TILE_KERNELS[items, wide] = _make_tile_kernels(items, wide)
    return _TILE_KERNELS[items, wide]


def _tiled_passes(keys, significant, n, like, carry=True):
    """The stable order of the unsigned ``keys`` (their low ``significant``
    bits) by tiled passes: a 1-D int64 DeviceArray; with ``carry`` False,
    the sorted keys instead (no index travels)."""
    kt = keys.dtype
    it = np.dtype(np.uint32 if n < 2 ** 32 else np.int64)
    ct = np.dtype(np.int32 if n < 2 ** 31 else np.int64)
    items = TILE_ITEMS if carry else TILE_KEY_ITEMS
    tile = TILE_WIDTH * items
    wide = n >= 2 ** 31
    count, tile_pass = _tile_kernels(items, wide)
    tiles = -(-n // tile)
    space = _nd_range((tiles * TILE_WIDTH,), (TILE_WIDTH,))
    digits = _nd_range((TILE_WIDTH * TILE_WIDTH,), (TILE_WIDTH,))
    counts = _empty((TILE_WIDTH * tiles,), ct, like)
    offsets = _empty((TILE_WIDTH * tiles,), ct, like)
    totals = _empty((TILE_WIDTH,), ct, like)
    shifts = list(range(0, significant, TILE_BITS))
    idx = None
    other_keys = _empty((n,), kt, like)
    spare = [_empty((n if carry else 1,), it, like)
             for _ in range(min(2, len(shifts) - 1))]
    for number, shift in enumerate(shifts):
        last = number == len(shifts) - 1
        _enqueue(count, space, keys, counts, shift, tiles,
                 _local((TILE_WIDTH,), np.int32))
        _enqueue(_radix_digit_scan, digits, counts, offsets, totals,
                 tiles)
        out_idx = _empty((n if carry else 1,), np.int64, like) if last \
            else spare[number % 2]
        _enqueue(tile_pass, space, keys,
                 idx if idx is not None else counts, other_keys, out_idx,
                 offsets, totals, shift, tiles, 1 if idx is None else 0,
                 1 if carry else 0,
                 _local((tile,), kt),
                 _local((tile if carry else 1,), it),
                 _local((_tile_runs(like) * TILE_WIDTH,), np.uint32),
                 _local((TILE_WIDTH,), np.int64 if wide else np.int32))
        keys, other_keys = other_keys, keys
        idx = out_idx
    return idx if carry else keys


def _radix_keys(x, descending, values=False):
    """(keys, significant bits, decode): x's (1, n) row as unsigned keys in
    its sort order; with ``values``, ``decode(sorted keys)`` gives the
    sorted values back, and is None where the keys do not hold x's bits
    (floats with NaNs or with zeros of both signs, which the keys merge:
    finding that out reads three flags back)."""
    n = x.shape[1]
    width = 64 if x.dtype.itemsize == 8 else 32
    key_dtype = np.dtype(np.uint64 if width == 64 else np.uint32)
    keys = _empty((n,), key_dtype, x)
    desc = 1 if descending else 0
    kt = key_dtype.type
    if x.dtype.kind == "f":
        bits = x._view(list(x.shape), list(x.strides), x._offset, key_dtype)
        inf = np.float64(np.inf) if width == 64 else np.float32(np.inf)
        sign = kt(1) << kt(width - 1)
        # Only a caller that decodes reads the flags: others skip zeroing
        # them (the kernel's writes then go unread).
        seen = _zeros(3, x) if values else _empty((3,), np.dtype(np.int32),
                                                  x)
        _launch(_radix_float_keys, _key_items(n), bits, keys, sign,
                kt(inf.view(key_dtype)), desc, seen)
        if not values:
            return keys, width, None
        nan, negative_zero, zero = seen.asnumpy()
        if nan or (negative_zero and zero):
            return keys, width, None

        def decode(sorted_keys):
            out = _empty((n,), x.dtype, x)
            _launch(_radix_float_values, _key_items(n), sorted_keys,
                    out._view([n], [width // 8], out._offset, key_dtype),
                    sign, desc, sign if negative_zero else kt(0))
            return out
        return keys, width, decode
    source = 8 * x.dtype.itemsize if x.dtype.kind != "b" else 1
    signed = x.dtype.kind == "i"
    if signed and source < 64:
        bias, flip = 1 << (source - 1), 0   # into [0, 2**source)
    elif signed:
        bias, flip = 0, 1 << 63             # int64: the sign bit
    else:
        bias, flip = 0, 0
    _launch(_radix_int_keys, _key_items(n), x, keys, np.int64(bias),
            kt(flip), desc)

    def decode(sorted_keys):
        out = _empty((n,), x.dtype, x)
        _launch(_radix_int_values, _key_items(n), sorted_keys, out,
                np.int64(bias), kt(flip), desc)
        return out
    # Ascending keys of narrow integers use their low bits only; a
    # descending sort flips them all.
    return keys, (width if descending else max(source, RADIX_BITS)), decode


def _zeros(n, like):
    """An int32 DeviceArray of n zeros beside ``like``."""
    from ._library_kernels import _fill
    flags = _empty((n,), np.dtype(np.int32), like)
    _launch(_fill, (n,), flags, np.int32(0))
    return flags


def radix_sorted(x, descending):
    """The (1, n) real or integer row x sorted (``radix_order``'s order)
    as a 1-D DeviceArray, moving keys alone, on devices that sort by
    tiles; None elsewhere, and for floats with NaNs or zeros of both
    signs, whose bits the keys do not keep (the caller then gathers by
    ``radix_order``)."""
    if not _tiled(x) or x.dtype.kind == "b":
        return None
    keys, significant, decode = _radix_keys(x, descending, True)
    if decode is None:
        return None
    return decode(_tiled_passes(keys, significant, x.shape[1], x,
                                carry=False))


def radix_order(x, descending):
    """The stable ascending (or array-api-strict descending) order of the
    (1, n) real or integer row x, by an LSD radix sort of unsigned keys
    made from its values: a 1-D int64 DeviceArray."""
    n = x.shape[1]
    keys, significant, _ = _radix_keys(x, descending)
    key_dtype = keys.dtype
    if _tiled(x):
        return _tiled_passes(keys, significant, n, x)
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
