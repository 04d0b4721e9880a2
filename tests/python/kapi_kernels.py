"""Kernel-API kernels that more than one test file runs: the device tests
(test_kernel_api.py) and the simulator-against-device tests
(test_simulator_kernel_api.py) check the same kernels."""

import spirjit
from spirjit import kernel_api as kapi


@spirjit.kernel
def tree_reduce(item: kapi.NdItem, a, partial, loc):
    lid = item.get_local_id(0)
    loc[lid] = a[item.get_global_id(0)]
    g = item.get_group()
    kapi.group_barrier(g)
    s = item.get_local_range(0) // 2
    while s > 0:
        if lid < s:
            loc[lid] += loc[lid + s]
        kapi.group_barrier(g)
        s //= 2
    if lid == 0:
        partial[g.get_group_id(0)] = loc[0]


@spirjit.kernel
def local_accumulate(item: kapi.NdItem, a, partial, acc):
    # acc[lid] sums a strided slice of the group's chunk; item 0 then adds
    # the group's accumulators together.
    lid = item.get_local_id(0)
    L = item.get_local_range(0)
    g = item.get_group()
    gid = g.get_group_id(0)
    chunk = a.shape[0] // g.get_group_range(0)
    acc[lid] = 0
    for k in range(lid, chunk, L):
        acc[lid] += a[gid * chunk + k]
    kapi.group_barrier(g, fence_scope=kapi.MemoryScope.WORK_GROUP)
    if lid == 0:
        s = acc[0]
        for k in range(1, L):
            s += acc[k]
        partial[gid] = s


@spirjit.kernel
def hillis_steele_scan(item: kapi.NdItem, a, out, buf):
    # Inclusive scan of one work-group, double-buffered: buf[0] and buf[1]
    # alternate as source and destination, so no item reads a value that
    # another item overwrites in the same step.
    lid = item.get_local_id(0)
    n = item.get_local_range(0)
    g = item.get_group()
    src = 0
    buf[0, lid] = a[lid]
    kapi.group_barrier(g)
    offset = 1
    while offset < n:
        dst = 1 - src
        if lid >= offset:
            buf[dst, lid] = buf[src, lid] + buf[src, lid - offset]
        else:
            buf[dst, lid] = buf[src, lid]
        kapi.group_barrier(g)
        src = dst
        offset *= 2
    out[lid] = buf[src, lid]


@spirjit.kernel
def tiled_matmul(item: kapi.NdItem, A, B, C, ta, tb):
    # C = A @ B with T x T tiles of A and B staged in local memory.
    row = item.get_global_id(0)
    col = item.get_global_id(1)
    li = item.get_local_id(0)
    lj = item.get_local_id(1)
    T = item.get_local_range(0)
    g = item.get_group()
    acc = C.dtype.type(0)
    for t in range(A.shape[1] // T):
        ta[li, lj] = A[row, t * T + lj]
        tb[li, lj] = B[t * T + li, col]
        kapi.group_barrier(g)
        for k in range(T):
            acc += ta[li, k] * tb[k, lj]
        kapi.group_barrier(g)
    C[row, col] = acc


@spirjit.kernel
def atomic_cas_counter(item: kapi.Item, a):
    # lock-free increment with a compare-exchange loop; the private
    # expected value is refreshed by each failed attempt
    p = kapi.PrivateArray(1, a.dtype)
    r = kapi.AtomicRef(a, 0)
    p[0] = r.load()
    while not r.compare_exchange(p, p[0] + 1):
        pass
