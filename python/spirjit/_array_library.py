"""Kernels behind DeviceArray operations that are no array expression,
written once as ordinary spirjit kernels.

Contract: each is a ``spirjit.kernel`` like a user's, typed, specialised
per argument dtypes and layouts and cached (in memory and on disk) by its
dispatcher; ``_array_ops`` decides the device, the dtypes and the shapes
and launches it. Nothing here is generated: the dtype a kernel computes in
comes from its arguments'.
"""

from . import kernel
from . import kernel_api as kapi

# The side of a matrix product's tiles: a work-group of TILE x TILE items
# computes one tile of the result, staging TILE x TILE tiles of both
# operands in local memory.
TILE = 16


@kernel
def matmul(item: kapi.NdItem, a, b, c, ta, tb):
    """c = a @ b for 2-D arrays of any layout, over an NdRange of
    (TILE, TILE) groups that covers c. ``ta`` and ``tb`` are LocalAccessors
    of TILE * TILE elements of c's dtype, NumPy's loop dtype: the operands
    are converted to it as they are staged, and the sums are in it."""
    i = item.get_global_id(0)
    j = item.get_global_id(1)
    li = item.get_local_id(0)
    lj = item.get_local_id(1)
    g = item.get_group()
    rows = a.shape[0]
    inner = a.shape[1]
    cols = b.shape[1]
    zero = c.dtype.type(0)
    acc = zero
    t = 0
    while t < inner:
        # Items outside a or b stage zeros, which add nothing.
        if i < rows and t + lj < inner:
            ta[li * TILE + lj] = a[i, t + lj]
        else:
            ta[li * TILE + lj] = zero
        if t + li < inner and j < cols:
            tb[li * TILE + lj] = b[t + li, j]
        else:
            tb[li * TILE + lj] = zero
        kapi.group_barrier(g)
        for q in range(TILE):
            acc += ta[li * TILE + q] * tb[q * TILE + lj]
        kapi.group_barrier(g)
        t += TILE
    if i < rows and j < cols:
        c[i, j] = acc
