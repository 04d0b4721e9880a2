"""The simulator (``kapi.call_kernel``) and the device
(``spirjit.call_kernel``) run the same kernel-API kernels — getters, local
memory with barriers, a scan, a tiled matrix multiply, atomics, private
arrays, group collectives — and must leave identical arrays behind.

The simulator runs one Python thread per work-item of a group, so the sizes
here are small.  Every case is deterministic: floating-point data is
integer-valued where the order of operations could differ, and atomics
are checked only where the outcome does not depend on the interleaving."""

import operator

import numpy as np
import pytest

import spirjit
from spirjit import kernel_api as kapi
from kapi_kernels import (atomic_cas_counter, hillis_steele_scan,
                          local_accumulate, tiled_matmul, tree_reduce)


# ---------------------------------------------------------------------------
# kernels

@spirjit.kernel
def item_getters(item: kapi.Item, out):
    row = item.get_linear_id()
    for d in range(item.dimensions):
        out[row, d] = item.get_id(d)
        out[row, 3 + d] = item.get_range(d)
    out[row, 6] = item.get_linear_range()
    out[row, 7] = item.dimensions


@spirjit.kernel
def nd_getters(item: kapi.NdItem, out):
    g = item.get_group()
    row = item.get_global_linear_id()
    for d in range(item.dimensions):
        out[row, d] = item.get_global_id(d)
        out[row, 3 + d] = item.get_local_id(d)
        out[row, 6 + d] = item.get_global_range(d)
        out[row, 9 + d] = item.get_local_range(d)
        out[row, 12 + d] = g.get_group_id(d)
        out[row, 15 + d] = g.get_group_range(d)
        out[row, 18 + d] = g.get_local_range(d)
    out[row, 21] = item.get_local_linear_id()
    out[row, 22] = item.get_global_linear_range()
    out[row, 23] = item.get_local_linear_range()
    out[row, 24] = item.dimensions
    out[row, 25] = g.get_group_linear_id()
    out[row, 26] = g.get_group_linear_range()
    out[row, 27] = g.get_local_linear_range()
    out[row, 28] = g.dimensions


@spirjit.kernel
def atomics_one_item(item: kapi.Item, a, v, old, ok, exp):
    old[0] = kapi.AtomicRef(a, 0).fetch_add(v[0])
    old[1] = kapi.AtomicRef(a, 1).fetch_sub(v[1])
    old[2] = kapi.AtomicRef(a, 2).fetch_min(v[2])
    old[3] = kapi.AtomicRef(a, 3).fetch_max(v[3])
    old[4] = kapi.AtomicRef(a, 4).exchange(v[4])
    old[5] = kapi.AtomicRef(a, 5).load()
    kapi.AtomicRef(a, index=6).store(v[6])
    ok[0] = kapi.AtomicRef(a, 7).compare_exchange(exp, v[7])
    ok[1] = kapi.AtomicRef(a, 8).compare_exchange(exp, v[8], 1)


@spirjit.kernel
def atomic_bits_one_item(item: kapi.Item, a, v, old):
    old[0] = kapi.AtomicRef(a, 0).fetch_and(v[0])
    old[1] = kapi.AtomicRef(a, 1).fetch_or(v[1])
    old[2] = kapi.AtomicRef(a, 2).fetch_xor(v[2])


@spirjit.kernel
def atomic_counters(item: kapi.Item, a, grid):
    i = item.get_id(0)
    kapi.AtomicRef(a, 0).fetch_add(1)
    kapi.AtomicRef(a, 1).fetch_sub(2)
    kapi.AtomicRef(a, 2).fetch_max(a.dtype.type(i))
    kapi.AtomicRef(a, 3).fetch_min(a.dtype.type(i + 7))
    kapi.AtomicRef(grid, (i % 2, i % 3)).fetch_add(1)


@spirjit.kernel
def atomic_local_counters(item: kapi.NdItem, out, loc):
    lid = item.get_local_linear_id()
    g = item.get_group()
    if lid == 0:
        loc[0] = 0
        loc[1] = 0
    kapi.group_barrier(g)
    kapi.AtomicRef(loc, 0).fetch_add(1)
    kapi.AtomicRef(loc, 1, memory_scope=kapi.MemoryScope.WORK_GROUP,
                   address_space=kapi.AddressSpace.LOCAL
                   ).fetch_max(loc.dtype.type(lid))
    kapi.group_barrier(g)
    if lid == 0:
        out[g.get_group_linear_id(), 0] = loc[0]
        out[g.get_group_linear_id(), 1] = loc[1]


@spirjit.kernel
def private_arrays(item: kapi.Item, out1, out2):
    i = item.get_id(0)
    p = kapi.PrivateArray(6, np.int64)
    for k in range(6):
        p[k] = i * k
    z = kapi.PrivateArray((3, 2), np.float32, fill_zeros=True)
    z[i % 3, i % 2] = 1.5 * i
    q = kapi.PrivateArray((2, 3), np.int32)
    for r in range(2):
        for c in range(3):
            q[r, c] = r - c + i
    s = 0
    for k in range(6):
        s += p[5 - k] * k
    out1[i] = s + q[1, 0] * 100
    for r in range(3):
        for c in range(2):
            out2[i, r, c] = z[r, c] + q[c, r]


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
    out[i, 5] = kapi.group_broadcast(g, x, 2)
    out[i, 6] = kapi.group_broadcast(g, x, local_id=src)


@spirjit.device_func
def madd(x, y, z):
    return x * y + z


@spirjit.kernel
def device_function_with_locals(item: kapi.NdItem, a, out, loc):
    lid = item.get_local_id(0)
    loc[lid] = madd(a[item.get_global_id(0)], 3, 1)
    kapi.group_barrier(item.get_group())
    n = item.get_local_range(0)
    out[item.get_global_id(0)] = loc[n - 1 - lid]


# ---------------------------------------------------------------------------
# cases: (kernel, index space, make_args, uses 64-bit atomics)

RNG_SEED = 11


def rng():
    return np.random.default_rng(RNG_SEED)


def ints_as(dtype, n, low=-100, high=100):
    return rng().integers(low, high, n).astype(dtype)


def one_item_operands(dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        init = [2.5, 2.5, 1.5, -1.5, -0.5, -3.25, 0.0, 4.75, 4.75]
        v = [0.25, -7.75, -9.0, 9.0, 6.25, 0.0, -9.5, 8.5, 8.5]
    elif dtype.kind == "u":
        hi = int(np.iinfo(dtype).max) // 2 + 1
        init = [hi - 1, 3, hi, 7, hi + 1, 5, 0, 9, 9]
        v = [5, 5, 7, hi, 1, 0, 123, 10, 10]
    else:
        init = [100, -5, -7, -7, 3, -9, 0, -12, -12]
        v = [-7, 250, 3, 11, 4, 0, -123, 10, 10]
    return np.array(init, dtype), np.array(v, dtype)


def one_item_args(dtype):
    def make():
        init, v = one_item_operands(dtype)
        exp = np.array([init[7], init[8] + 1], dtype)  # [1] is wrong
        return (init.copy(), v, np.zeros(9, dtype), np.full(2, 7, np.int32),
                exp)
    return make


def bit_args(dtype):
    def make():
        top = np.array(-1, np.int64).astype(dtype)
        a = np.array([top, 5, 6], dtype)
        v = np.array([top - 4, 8, top], dtype)
        return a, v, np.zeros(3, dtype)
    return make


def nd_collective_args(dtype, global_shape, local_shape):
    def make():
        n = int(np.prod(global_shape))
        r = rng()
        a = r.integers(-1000, 1000, n).astype(dtype)
        m = r.choice([-2, -1, 1, 2], n).astype(dtype)
        return (a, m, np.zeros((n, 7), dtype),
                int(np.prod(local_shape)) - 1)
    return make


def case(name, kernel, index_space, make_args, atomic64=False):
    return pytest.param(kernel, index_space, make_args, atomic64, id=name)


def atomic_case(name, kernel, index_space, make_args, dtype):
    return case(f"{name}-{np.dtype(dtype).name}", kernel, index_space,
                make_args, atomic64=np.dtype(dtype).itemsize == 8)


CASES = [
    case("item-getters-1d", item_getters, kapi.Range(9),
         lambda: (np.full((9, 8), -1, np.int64),)),
    case("item-getters-2d", item_getters, kapi.Range(3, 5),
         lambda: (np.full((15, 8), -1, np.int64),)),
    case("item-getters-3d", item_getters, kapi.Range(2, 3, 4),
         lambda: (np.full((24, 8), -1, np.int64),)),
    case("nd-getters-1d", nd_getters, kapi.NdRange(12, 4),
         lambda: (np.full((12, 29), -1, np.int64),)),
    case("nd-getters-2d", nd_getters, kapi.NdRange((4, 6), (2, 3)),
         lambda: (np.full((24, 29), -1, np.int64),)),
    case("nd-getters-3d", nd_getters, kapi.NdRange((4, 6, 4), (2, 3, 2)),
         lambda: (np.full((96, 29), -1, np.int64),)),
    case("tree-reduce-int64", tree_reduce, kapi.NdRange(256, 32),
         lambda: (ints_as(np.int64, 256, -10**12, 10**12),
                  np.zeros(8, np.int64),
                  kapi.LocalAccessor(32, np.int64))),
    case("tree-reduce-float64-random", tree_reduce, kapi.NdRange(256, 32),
         lambda: (rng().random(256), np.zeros(8),
                  kapi.LocalAccessor(32, np.float64))),
    case("tree-reduce-float32-random", tree_reduce, kapi.NdRange(128, 16),
         lambda: (rng().random(128).astype(np.float32),
                  np.zeros(8, np.float32),
                  kapi.LocalAccessor(16, np.float32))),
    case("local-accumulate-int32", local_accumulate, kapi.NdRange(32, 8),
         lambda: (ints_as(np.int32, 400), np.zeros(4, np.int32),
                  kapi.LocalAccessor(8, np.int32))),
    case("scan-ones", hillis_steele_scan, kapi.NdRange(64, 64),
         lambda: (np.ones(64, np.int32), np.zeros(64, np.int32),
                  kapi.LocalAccessor((2, 64), np.int32))),
    case("scan-random-float64", hillis_steele_scan, kapi.NdRange(50, 50),
         lambda: (ints_as(np.float64, 50), np.zeros(50),
                  kapi.LocalAccessor((2, 50), np.float64))),
    case("tiled-matmul-float32", tiled_matmul, kapi.NdRange((16, 8), (4, 4)),
         lambda: (ints_as(np.float32, 16 * 12, -9, 9).reshape(16, 12),
                  ints_as(np.float32, 12 * 8, -9, 9).reshape(12, 8),
                  np.zeros((16, 8), np.float32),
                  kapi.LocalAccessor((4, 4), np.float32),
                  kapi.LocalAccessor((4, 4), np.float32))),
    case("tiled-matmul-float64", tiled_matmul, kapi.NdRange((8, 12), (4, 4)),
         lambda: (ints_as(np.float64, 8 * 16, -9, 9).reshape(8, 16),
                  ints_as(np.float64, 16 * 12, -9, 9).reshape(16, 12),
                  np.zeros((8, 12)),
                  kapi.LocalAccessor((4, 4), np.float64),
                  kapi.LocalAccessor((4, 4), np.float64))),
    case("tiled-matmul-int32", tiled_matmul, kapi.NdRange((8, 8), (2, 2)),
         lambda: (ints_as(np.int32, 8 * 6, -9, 9).reshape(8, 6),
                  ints_as(np.int32, 6 * 8, -9, 9).reshape(6, 8),
                  np.zeros((8, 8), np.int32),
                  kapi.LocalAccessor((2, 2), np.int32),
                  kapi.LocalAccessor((2, 2), np.int32))),
    *[atomic_case("atomics-one-item", atomics_one_item, kapi.Range(1),
                  one_item_args(d), d)
      for d in (np.int32, np.uint32, np.float32, np.int64, np.uint64,
                np.float64)],
    *[atomic_case("atomic-bits-one-item", atomic_bits_one_item,
                  kapi.Range(1), bit_args(d), d)
      for d in (np.int32, np.uint32, np.int64)],
    *[atomic_case("atomic-counters", atomic_counters, kapi.Range(300),
                  (lambda d: lambda: (np.array([0, 1000, 0, 999], d),
                                      np.zeros((2, 3), d)))(d), d)
      for d in (np.int32, np.uint32, np.float32, np.int64, np.float64)],
    *[atomic_case("atomic-local-counters", atomic_local_counters,
                  kapi.NdRange((4, 8), (2, 4)),
                  (lambda d: lambda: (np.zeros((4, 2), d),
                                      kapi.LocalAccessor(2, d)))(d), d)
      for d in (np.int32, np.float32, np.uint64)],
    *[atomic_case("atomic-cas-counter", atomic_cas_counter, kapi.Range(200),
                  (lambda d: lambda: (np.zeros(1, d),))(d), d)
      for d in (np.int32, np.float32, np.int64)],
    case("private-arrays", private_arrays, kapi.Range(10),
         lambda: (np.zeros(10, np.int64), np.zeros((10, 3, 2), np.float32))),
    *[case(f"group-collectives-{np.dtype(d).name}-{len(gs)}d",
           group_collectives, kapi.NdRange(gs, ls),
           nd_collective_args(d, gs, ls))
      for d in (np.int32, np.int64, np.float32, np.float64)
      for gs, ls in [((32,), (8,)), ((4, 6), (2, 3))]],
    case("device-function-with-locals", device_function_with_locals,
         kapi.NdRange(24, 8),
         lambda: (ints_as(np.int64, 24), np.zeros(24, np.int64),
                  kapi.LocalAccessor(8, np.int64))),
]


def needs_fp64(args):
    return any(isinstance(a, (np.ndarray, kapi.LocalAccessor))
               and a.dtype == np.float64 for a in args)


@pytest.mark.parametrize("kernel, index_space, make_args, atomic64", CASES)
def test_simulator_matches_device(device_filter, device, kernel,
                                  index_space, make_args, atomic64):
    sim_args = make_args()
    if needs_fp64(sim_args) and not device.has_fp64:
        pytest.skip(f"{device.name} has no double precision")
    if atomic64 and not device.has_atomic64:
        pytest.skip(f"{device.name} has no 64-bit atomics")
    with np.errstate(over="ignore"):
        kapi.call_kernel(kernel, index_space, *sim_args)
    dev_args = make_args()
    spirjit.call_kernel(kernel, index_space, *dev_args)
    compared = 0
    for k, (s, d) in enumerate(zip(sim_args, dev_args)):
        if isinstance(s, np.ndarray):
            assert s.dtype == d.dtype, f"argument {k}"
            np.testing.assert_array_equal(d, s, err_msg=f"argument {k}")
            compared += 1
    assert compared


@pytest.mark.parametrize("ref", [1, 2.5, np.zeros(4, np.int8),
                                 np.zeros(4, np.complex64)],
                         ids=["int", "float", "int8-array", "complex-array"])
def test_atomic_ref_of_what_atomics_cannot_take_is_a_type_error(ref):
    # As numba-dpex's kapi: only arrays of the six atomic dtypes.
    with pytest.raises(TypeError, match="AtomicRef refers to an element of "
                                        "an array of int32"):
        kapi.AtomicRef(ref, 0)


def test_local_accessor_memory_is_not_reachable_outside_a_kernel():
    # As numba-dpex's kapi: the memory exists per work-group, in a kernel.
    local = kapi.LocalAccessor((8,), np.float32)
    with pytest.raises(NotImplementedError, match="only inside a kernel"):
        local[0]
    with pytest.raises(NotImplementedError, match="only inside a kernel"):
        local[0] = 1.0
