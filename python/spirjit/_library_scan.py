"""Inclusive scans of the rows of a DeviceArray (``np.cumsum`` and
``np.cumprod`` along axis 1), as spirjit kernels.

Contract: ``scan_rows(x, op, dtype)`` takes a 2-D DeviceArray of any
layout and returns a new C-contiguous one of ``dtype`` on its device,
NumPy's answers (floats up to rounding, since the sums are grouped
differently). No work-group waits on another: a long row is reduced by
tiles, the tiles' totals scanned the same way, and each tile rescanned
from its prefix; short rows by one work-item, middling ones by chunks on
CPUs. On GPUs every row longer than SCAN_CHUNK scans by tiles.
"""

import numpy as np

from . import device_func, errors, kernel
from . import kernel_api as kapi
from ._library_base import (_check_array, _empty, _enqueue, _group_width,
                            _launch, _local, _nd_range, _properties)

# Elements one work-item of a scan reduces and then rescans: a row of n
# elements becomes ceil(n / SCAN_CHUNK) chunk totals, scanned the same way
# until one item per row can scan what is left.
SCAN_CHUNK = 32
# Whether rows longer than SCAN_CHUNK scan by tiles at every length: None
# on GPUs (scan_rows), True everywhere (the tests' way to run it here).
SCAN_TILES = None

# Elements each work-item of a tiled scan (long rows) reads, one a group's
# width apart, so that a group reads whole rows of memory at a time.
SCAN_ITEMS = 8
# On GPUs, where a tile fits: a group's fixed costs (its reduction and its
# scan) over more elements (2^24 float32 on the H100: 8 -> 16).
SCAN_ITEMS_GPU = 16


@device_func
def _combine(a, b, mul):
    """a * b where ``mul``, else a + b (a scan's or reduction's step)."""
    return a * b if mul else a + b


@kernel
def _scan_whole_rows(item, x, out, mul):
    """Each row of x scanned by one item into out (out's dtype)."""
    r = item.get_id(0)
    t = out.dtype.type
    n = x.shape[1]
    acc = t(x[r, 0])
    out[r, 0] = acc
    for j in range(1, n):
        acc = t(_combine(acc, t(x[r, j]), mul))
        out[r, j] = acc


@device_func
def _chunk(c, chunk, n):
    """The elements [lo, hi) of chunk c of a row of n."""
    lo = c * chunk
    return lo, min(lo + chunk, n)


@kernel
def _scan_chunk_totals(item, x, totals, chunk, mul):
    """totals[r, c] = the sum (product) of chunk c of row r."""
    r = item.get_id(0)
    c = item.get_id(1)
    lo, hi = _chunk(c, chunk, x.shape[1])
    t = totals.dtype.type
    acc = t(x[r, lo])
    for j in range(lo + 1, hi):
        acc = t(_combine(acc, t(x[r, j]), mul))
    totals[r, c] = acc


@kernel
def _scan_chunk_apply(item, x, out, scanned, chunk, mul):
    """Scans chunk c of row r, starting from the scanned totals of the
    chunks before it."""
    r = item.get_id(0)
    c = item.get_id(1)
    lo, hi = _chunk(c, chunk, x.shape[1])
    t = out.dtype.type
    acc = t(x[r, lo])
    if c > 0:
        acc = t(_combine(scanned[r, c - 1], acc, mul))
    out[r, lo] = acc
    for j in range(lo + 1, hi):
        acc = t(_combine(acc, t(x[r, j]), mul))
        out[r, j] = acc


def _make_scan_kernels(width, items, mul):
    """The tiled scan's kernels for tiles of ``width`` items (the group's)
    times ``items`` elements, combined by * (``mul``) or +: (totals,
    apply). All three are constants here: each item's loops unroll, its
    addresses are constant offsets, and each step is one operation (with
    ``mul`` a parameter, each element took a multiply, an add and a
    select, and on the H100 a 256-item group of 8 elements an item ran 470
    instructions a warp, issue-bound)."""

    @device_func
    def step(a, b):
        if mul:
            return a * b
        return a + b

    @kernel
    def totals_kernel(item: kapi.NdItem, x, totals):
        """totals[r, g] = the sum (product) of tile g of row r: a
        work-group's items read the tile's elements in turn (adjacent
        items, adjacent elements), ``items`` each, then combine theirs by a
        group reduction."""
        r = item.get_global_id(0)
        g = item.get_group().get_group_id(1)
        i = item.get_local_id(1)
        t = totals.dtype.type
        n = x.shape[1]
        base = g * width * items
        acc = t(1) if mul else t(0)
        if base + width * items <= n:  # a whole tile: no element checks
            for k in range(items):
                acc = t(step(acc, t(x[r, base + k * width + i])))
        else:
            for k in range(items):
                j = base + k * width + i
                if j < n:
                    acc = t(step(acc, t(x[r, j])))
        if mul:
            total = kapi.group_reduce(item.get_group(), acc, "*")
        else:
            total = kapi.group_reduce(item.get_group(), acc, "+")
        if i == 0:
            totals[r, g] = total

    @kernel
    def apply_kernel(item: kapi.NdItem, x, out, scanned, tile):
        """Scans tile g of row r from the scanned totals of the tiles
        before it: the tile is staged in local memory as read (coalesced),
        each item scans its run of ``items`` there, the group scans the
        runs' totals, and the tile goes back as read."""
        r = item.get_global_id(0)
        group = item.get_group()
        g = group.get_group_id(1)
        i = item.get_local_id(1)
        t = out.dtype.type
        n = x.shape[1]
        base = g * width * items
        one = t(1) if mul else t(0)
        whole = base + width * items <= n  # no element checks
        for k in range(items):
            j = base + k * width + i
            p = k * width + i
            if whole or j < n:
                tile[p + p // items] = t(x[r, j])
            else:
                tile[p + p // items] = one
        kapi.group_barrier(group)
        # Tile position p lives at p + p // items: a spare slot after each
        # item's run, so the items of a warp reading their runs use
        # distinct banks.
        run = one
        at = i * (items + 1)
        for k in range(items):
            run = t(step(run, tile[at + k]))
        if mul:
            before = kapi.group_exclusive_scan(group, run, "*")
        else:
            before = kapi.group_exclusive_scan(group, run, "+")
        if g > 0:
            before = t(step(scanned[r, g - 1], before))
        acc = before
        for k in range(items):
            acc = t(step(acc, tile[at + k]))
            tile[at + k] = acc
        kapi.group_barrier(group)
        for k in range(items):
            j = base + k * width + i
            p = k * width + i
            if whole or j < n:
                out[r, j] = tile[p + p // items]

    return totals_kernel, apply_kernel


_SCAN_KERNELS = {}


def _scan_kernels(width, items, mul):
    key = (width, items, mul)
    if key not in _SCAN_KERNELS:
        _SCAN_KERNELS[key] = _make_scan_kernels(width, items, mul)
    return _SCAN_KERNELS[key]


def scan_rows(x, op, dtype):
    """The inclusive scan of each row of the 2-D ``x`` with ``op`` ("+" or
    "*"), elements converted to ``dtype`` first and combined in it: NumPy's
    ``np.cumsum(x, axis=1, dtype=dtype)`` / ``np.cumprod``. A (rows, n)
    C-contiguous DeviceArray of ``dtype``."""
    _check_array(x, "scan_rows: x", 2)
    if op not in ("+", "*"):
        raise errors.InvalidArgumentError(
            f"scan_rows: op must be '+' or '*', not {op!r}")
    dtype = np.dtype(dtype)
    mul = 1 if op == "*" else 0
    rows, n = x.shape
    out = _empty((rows, n), dtype, x)
    if rows == 0 or n == 0:
        return out
    if n <= SCAN_CHUNK:
        _launch(_scan_whole_rows, (rows,), x, out, mul)
        return out
    width = _group_width(x)
    # GPUs scan a row shorter than a tile as one tile: an item walking a
    # chunk alone waits on memory at each element (1000 float32 on the
    # H100: 90 us as chunks, five launches, against one launch of a group).
    tiles_only = SCAN_TILES if SCAN_TILES is not None else \
        _properties(x).get("device_type") == "gpu"
    if n < width * SCAN_ITEMS and not tiles_only:
        chunks = -(-n // SCAN_CHUNK)
        totals = _empty((rows, chunks), dtype, x)
        _launch(_scan_chunk_totals, (rows, chunks), x, totals, SCAN_CHUNK,
                mul)
        scanned = scan_rows(totals, op, dtype)
        _launch(_scan_chunk_apply, (rows, chunks), x, out, scanned,
                SCAN_CHUNK, mul)
        return out
    # Long rows: tiles of width * items elements, each a work-group's,
    # read and written in whole rows of the group (reduce, then scan).
    items = _scan_items(x, width, dtype) if tiles_only else SCAN_ITEMS
    totals_kernel, apply_kernel = _scan_kernels(width, items, mul)
    tiles = -(-n // (width * items))
    space = _nd_range((rows, tiles * width), (1, width))
    scanned = out  # not read where each row is one tile
    if tiles > 1:
        totals = _empty((rows, tiles), dtype, x)
        _enqueue(totals_kernel, space, x, totals)
        scanned = scan_rows(totals, op, dtype)
    _enqueue(apply_kernel, space, x, out, scanned,
             _local((width * (items + 1),), dtype))
    return out


def _scan_items(x, width, dtype):
    """Elements an item of a GPU's tiled scan takes: SCAN_ITEMS_GPU where
    the group's tile fits the device's local memory, else SCAN_ITEMS."""
    local = _properties(x).get("local_mem_size") or 0
    need = width * (SCAN_ITEMS_GPU + 1) * np.dtype(dtype).itemsize
    return SCAN_ITEMS_GPU if need + 4096 <= min(local, 48 << 10) \
        else SCAN_ITEMS
