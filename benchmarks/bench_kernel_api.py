#!/usr/bin/env python3
"""Kernel-API benchmarks: a tiled matrix multiply and a tree reduction, both
with work-group local memory and barriers.

matmul     C = A @ B, square float32 matrices of n elements each (default
           n = 1024 * 1024: 1024 x 1024), A and B uniform in [0, 1).  One
           work-item per element of C, 16 x 16 work-groups; each group stages
           16 x 16 tiles of A and B in two local arrays, with a barrier after
           loading a tile pair and one after using it.
reduction  the sum of n = 2**24 float64 values uniform in [0, 1): work-groups
           of 256 sum their elements by a tree reduction in local memory
           (halving strides, a barrier per step) into one partial sum per
           group; the 2**16 partial sums are then copied to the host and
           summed there (np.sum), inside the timed region, the same for
           spirjit and OpenCL C.

Backends (each timed on data already resident where it computes):
  spirjit      @spirjit.kernel with kapi.NdItem, kapi.LocalAccessor tiles and
               kapi.group_barrier, on DeviceArrays, on every CPU OpenCL
               runtime present ([Intel], [PoCL]; the default device first)
  spirjit CPU-style
               the kernel a CPU runs well (docs/user-guide.md, "Kernels for
               CPUs"): matmul with no tiles, each work-item computing
               ROWS = 8 elements of one column of C in a PrivateArray, so
               each B[k, j] it loads serves 8 multiply-adds (neighbouring
               work-items read neighbouring B[k, j]); the sum with each
               work-item adding one contiguous chunk (512 of them, the
               same trip count in each), no local memory, no barriers
  OpenCL C     the tiled / tree algorithm in OpenCL C via pyopencl on the
               same runtime: __local tiles, barrier(CLK_LOCAL_MEM_FENCE)
  numba        @njit(parallel=True): matmul with prange over the rows of C
               (i-k-j loop order), the sum as a prange reduction
  NumPy        A @ B (BLAS), a.sum()

Results are checked before and after timing against float64 NumPy: matmul
within 1e-3 + 1e-4*|ref| (float32 sums of 1024 products), the sum within
1e-12 relative.  Ratios are relative to the OpenCL C row.

    python benchmarks/bench_kernel_api.py [--n N] [--reps R] [--warmup W]

--n sets both sizes when given: matmul then uses the largest multiple of 16
not above sqrt(N) as its side (mind the cubic cost), the reduction N
(rounded down to a multiple of 256).
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np

from bench_vecadd import (REFERENCE, Backend, Benchmark, Case, Unavailable,
                          WrongResult, _import_spirjit, check_close,
                          opencl_context, reason, run_main, spirjit_first_call)

TILE = 16                 # matmul work-group / tile side
GROUP = 256               # reduction work-group size
MATMUL_TOL = (1e-4, 1e-3)           # rtol, atol
REDUCTION_RTOL = 1e-12


def _result_dtype_check(got, dtype, label):
    got = np.asarray(got)
    if got.dtype != dtype:
        raise WrongResult(f"{label}: result dtype {got.dtype}, want {dtype}")
    return got


# --------------------------------------------------------------------------
# matmul: inputs, reference, check

def matmul_side(n):
    side = (math.isqrt(n) // TILE) * TILE
    if side < TILE:
        raise ValueError(f"matmul needs n >= {TILE * TILE}, got {n}")
    return side


def matmul_inputs(n, dtype, rng):
    m = matmul_side(n)
    return {"A": rng.random((m, m), dtype=np.float64).astype(dtype),
            "B": rng.random((m, m), dtype=np.float64).astype(dtype)}


def matmul_reference(inputs):
    return inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64)


def matmul_check(got, want, label, dtype):
    got = _result_dtype_check(got, dtype, label)
    rtol, atol = MATMUL_TOL
    check_close(got.reshape(-1), want.reshape(-1), label, rtol, atol)


# --------------------------------------------------------------------------
# matmul: spirjit

def make_spirjit_matmul(spirjit, kapi):
    # TILE is a module constant: frozen at compile time, like the OpenCL C
    # kernel's #define.  A new kernel object per call, so its .stats
    # describe this benchmark's compile.
    @spirjit.kernel
    def matmul(item: kapi.NdItem, A, B, C, ta, tb):
        row = item.get_global_id(0)
        col = item.get_global_id(1)
        li = item.get_local_id(0)
        lj = item.get_local_id(1)
        g = item.get_group()
        acc = C.dtype.type(0)
        for t in range(A.shape[1] // TILE):
            ta[li, lj] = A[row, t * TILE + lj]
            tb[li, lj] = B[t * TILE + li, col]
            kapi.group_barrier(g)
            for k in range(TILE):
                acc += ta[li, k] * tb[k, lj]
            kapi.group_barrier(g)
        C[row, col] = acc

    return matmul


def spirjit_matmul_launch(kern, inputs, dtype):
    """(run, result) for the tiled kernel `kern` on DeviceArrays of the
    inputs: `run()` launches it, `result()` reads C back."""
    spirjit, kapi = _import_spirjit()
    A, B = inputs["A"], inputs["B"]
    m = A.shape[0]
    try:
        dA, dB = spirjit.asarray(A), spirjit.asarray(B)
        dC = spirjit.asarray(np.zeros((m, m), dtype))
        nd = kapi.NdRange((m, m), (TILE, TILE))
        ta = kapi.LocalAccessor((TILE, TILE), dtype)
        tb = kapi.LocalAccessor((TILE, TILE), dtype)
    except Exception as exc:
        raise Unavailable(reason(exc)) from exc

    def run():
        spirjit.call_kernel(kern, nd, dA, dB, dC, ta, tb)

    return run, lambda: spirjit.asnumpy(dC)


def setup_matmul_spirjit(inputs, dtype):
    spirjit, kapi = _import_spirjit()
    try:
        kern = make_spirjit_matmul(spirjit, kapi)
    except Exception as exc:
        raise Unavailable(reason(exc)) from exc
    run, result = spirjit_matmul_launch(kern, inputs, dtype)
    notes = spirjit_first_call(kern, run)
    return Case(run=run, result=result, notes=notes)


ROWS = 8  # CPU-style matmul: elements of C per work-item, down a column


def make_spirjit_matmul_cpu(spirjit, kapi):
    @spirjit.kernel
    def matmul_rows(item: kapi.Item, A, B, C):
        # Work-item (g, j) computes C[g*ROWS : (g+1)*ROWS, j]: each B[k, j]
        # loaded serves ROWS multiply-adds, and neighbouring work-items
        # (j, j + 1) read neighbouring elements of B.
        i = item.get_id(0) * ROWS
        j = item.get_id(1)
        acc = kapi.PrivateArray(ROWS, C.dtype)
        for r in range(ROWS):
            acc[r] = 0
        for k in range(A.shape[1]):
            b = B[k, j]
            for r in range(ROWS):
                acc[r] += A[i + r, k] * b
        for r in range(ROWS):
            C[i + r, j] = acc[r]

    return matmul_rows


def setup_matmul_spirjit_cpu(inputs, dtype):
    spirjit, kapi = _import_spirjit()
    A, B = inputs["A"], inputs["B"]
    m = A.shape[0]
    try:
        kern = make_spirjit_matmul_cpu(spirjit, kapi)
        dA, dB = spirjit.asarray(A), spirjit.asarray(B)
        dC = spirjit.asarray(np.zeros((m, m), dtype))
        if m % ROWS:
            raise Unavailable(f"the side is not a multiple of {ROWS}")
        space = kapi.Range(m // ROWS, m)
    except Exception as exc:
        raise Unavailable(reason(exc)) from exc

    def run():
        spirjit.call_kernel(kern, space, dA, dB, dC)

    notes = spirjit_first_call(kern, run)
    return Case(run=run, result=lambda: spirjit.asnumpy(dC), notes=notes)


# --------------------------------------------------------------------------
# matmul: OpenCL C

MATMUL_OPENCL_C = """
#define TILE {TILE}
typedef {T} real;

/* C = A @ B, row-major M x K times K x N.  OpenCL's dimension 0 is the
   fastest-varying, so it indexes columns (as spirjit's last dimension). */
__kernel void matmul(__global const real *A, __global const real *B,
                     __global real *C, int K, int N)
{{
    __local real ta[TILE][TILE];
    __local real tb[TILE][TILE];
    int col = get_global_id(0), row = get_global_id(1);
    int lj = get_local_id(0), li = get_local_id(1);
    real acc = 0;
    for (int t = 0; t < K / TILE; ++t) {{
        ta[li][lj] = A[row * K + t * TILE + lj];
        tb[li][lj] = B[(t * TILE + li) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; ++k)
            acc += ta[li][k] * tb[k][lj];
        barrier(CLK_LOCAL_MEM_FENCE);
    }}
    C[row * N + col] = acc;
}}
"""


def _opencl_c_type(dtype, dev):
    if dtype == np.float64:
        if "cl_khr_fp64" not in dev.extensions:
            raise Unavailable("device has no cl_khr_fp64")
        return "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n", "double"
    return "", "float"


def setup_matmul_opencl_c(inputs, dtype):
    cl, ctx, queue, dev = opencl_context()
    A, B = inputs["A"], inputs["B"]
    m = A.shape[0]
    pragma, T = _opencl_c_type(dtype, dev)
    t0 = time.perf_counter()
    prg = cl.Program(ctx, pragma + MATMUL_OPENCL_C.format(TILE=TILE, T=T)
                     ).build()
    build = time.perf_counter() - t0
    knl = prg.matmul
    mf = cl.mem_flags
    dA = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=A)
    dB = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=B)
    dC = cl.Buffer(ctx, mf.WRITE_ONLY, m * m * np.dtype(dtype).itemsize)
    K, N = np.int32(m), np.int32(m)
    queue.finish()

    def run():
        knl(queue, (m, m), (TILE, TILE), dA, dB, dC, K, N)
        queue.finish()

    def result():
        out = np.empty((m, m), dtype)
        cl.enqueue_copy(queue, out, dC)
        queue.finish()
        return out

    def close():
        for buf in (dA, dB, dC):
            buf.release()

    return Case(run=run, result=result, close=close,
                notes={"build of OpenCL C source": build})


# --------------------------------------------------------------------------
# matmul: numba, NumPy

_NUMBA = {}


def _numba_functions():
    if not _NUMBA:
        try:
            from numba import njit, prange
        except Exception as exc:
            raise Unavailable(reason(exc)) from exc

        @njit(parallel=True)
        def matmul_numba(A, B, C):
            M, K = A.shape
            N = B.shape[1]
            for i in prange(M):
                for j in range(N):
                    C[i, j] = 0
                for k in range(K):
                    a = A[i, k]
                    for j in range(N):
                        C[i, j] += a * B[k, j]

        @njit(parallel=True)
        def sum_numba(a):
            s = 0.0
            for i in prange(a.shape[0]):
                s += a[i]
            return s

        _NUMBA["matmul"] = matmul_numba
        _NUMBA["sum"] = sum_numba
    return _NUMBA


def setup_matmul_numba(inputs, dtype):
    f = _numba_functions()["matmul"]
    A, B = inputs["A"], inputs["B"]
    C = np.empty_like(A)
    t0 = time.perf_counter()
    f(A, B, C)
    first = time.perf_counter() - t0
    return Case(run=lambda: f(A, B, C), result=lambda: C,
                notes={"first call (incl. numba compile)": first})


def setup_matmul_numpy(inputs, dtype):
    A, B = inputs["A"], inputs["B"]
    C = np.empty_like(A)
    return Case(run=lambda: np.matmul(A, B, out=C), result=lambda: C)


MATMUL = Benchmark(
    name=f"matmul C = A @ B, {TILE}x{TILE} local-memory tiles",
    make_inputs=matmul_inputs,
    reference=matmul_reference,
    backends=[
        Backend("spirjit", setup_matmul_spirjit),
        Backend("spirjit CPU-style", setup_matmul_spirjit_cpu),
        Backend(REFERENCE, setup_matmul_opencl_c),
        Backend("numba parallel", setup_matmul_numba),
        Backend("NumPy", setup_matmul_numpy),
    ],
    dtypes=(np.float32,),
    n=1024 * 1024,
    check=matmul_check,
)


# --------------------------------------------------------------------------
# reduction: inputs, reference, check

def reduction_inputs(n, dtype, rng):
    n = (n // GROUP) * GROUP
    if n == 0:
        raise ValueError(f"the reduction needs n >= {GROUP}")
    return {"a": rng.random(n, dtype=np.float64).astype(dtype)}


def reduction_reference(inputs):
    return np.array([inputs["a"].astype(np.float64).sum()])


def reduction_check(got, want, label, dtype):
    got = _result_dtype_check(got, dtype, label)
    check_close(got, want, label, REDUCTION_RTOL, 0.0)


# --------------------------------------------------------------------------
# reduction: spirjit

def make_spirjit_reduction(spirjit, kapi):
    @spirjit.kernel
    def partial_sums(item: kapi.NdItem, a, partial, loc):
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

    return partial_sums


def setup_reduction_spirjit(inputs, dtype):
    spirjit, kapi = _import_spirjit()
    a = inputs["a"]
    n = a.size
    try:
        kern = make_spirjit_reduction(spirjit, kapi)
        da = spirjit.asarray(a)
        dpartial = spirjit.asarray(np.zeros(n // GROUP, dtype))
        nd = kapi.NdRange(n, GROUP)
        loc = kapi.LocalAccessor(GROUP, dtype)
    except Exception as exc:
        raise Unavailable(reason(exc)) from exc
    out = {}

    def run():
        spirjit.call_kernel(kern, nd, da, dpartial, loc)
        out["sum"] = spirjit.asnumpy(dpartial).sum()

    notes = spirjit_first_call(kern, run)
    return Case(run=run, result=lambda: np.array([out["sum"]]), notes=notes)


CHUNKS = 512  # CPU-style sum: work-items, each adding one contiguous chunk


def make_spirjit_chunk_sums(spirjit, kapi):
    @spirjit.kernel
    def chunk_sums(item: kapi.Item, a, partial):
        # Work-item g adds the g-th of partial.shape[0] equal contiguous
        # chunks of a: the same trip count in every work-item, and indices
        # built from ids and shapes (never negative, so no wrap-around).
        per = a.shape[0] // partial.shape[0]
        base = item.get_id(0) * per
        s = a.dtype.type(0)
        for k in range(per):
            s += a[base + k]
        partial[item.get_id(0)] = s

    return chunk_sums


def setup_reduction_spirjit_cpu(inputs, dtype):
    spirjit, kapi = _import_spirjit()
    a = inputs["a"]
    n = a.size
    if n % CHUNKS:
        raise Unavailable(f"n is not a multiple of {CHUNKS}")
    try:
        kern = make_spirjit_chunk_sums(spirjit, kapi)
        da = spirjit.asarray(a)
        dpartial = spirjit.asarray(np.zeros(CHUNKS, dtype))
        space = kapi.Range(CHUNKS)
    except Exception as exc:
        raise Unavailable(reason(exc)) from exc
    out = {}

    def run():
        spirjit.call_kernel(kern, space, da, dpartial)
        out["sum"] = spirjit.asnumpy(dpartial).sum()

    notes = spirjit_first_call(kern, run)
    return Case(run=run, result=lambda: np.array([out["sum"]]), notes=notes)


# --------------------------------------------------------------------------
# reduction: OpenCL C

REDUCTION_OPENCL_C = """
#define GROUP {GROUP}
typedef {T} real;

__kernel void partial_sums(__global const real *a, __global real *partial)
{{
    __local real loc[GROUP];
    int lid = get_local_id(0);
    loc[lid] = a[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = get_local_size(0) / 2; s > 0; s /= 2) {{
        if (lid < s)
            loc[lid] += loc[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }}
    if (lid == 0)
        partial[get_group_id(0)] = loc[0];
}}
"""


def setup_reduction_opencl_c(inputs, dtype):
    cl, ctx, queue, dev = opencl_context()
    a = inputs["a"]
    n = a.size
    pragma, T = _opencl_c_type(dtype, dev)
    t0 = time.perf_counter()
    prg = cl.Program(ctx, pragma + REDUCTION_OPENCL_C.format(GROUP=GROUP,
                                                             T=T)).build()
    build = time.perf_counter() - t0
    knl = prg.partial_sums
    mf = cl.mem_flags
    da = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
    groups = n // GROUP
    dpartial = cl.Buffer(ctx, mf.READ_WRITE, groups * np.dtype(dtype).itemsize)
    queue.finish()
    out = {}

    def run():
        knl(queue, (n,), (GROUP,), da, dpartial)
        partial = np.empty(groups, dtype)
        cl.enqueue_copy(queue, partial, dpartial)      # blocking
        out["sum"] = partial.sum()

    def close():
        for buf in (da, dpartial):
            buf.release()

    return Case(run=run, result=lambda: np.array([out["sum"]]), close=close,
                notes={"build of OpenCL C source": build})


# --------------------------------------------------------------------------
# reduction: numba, NumPy

def setup_reduction_numba(inputs, dtype):
    f = _numba_functions()["sum"]
    a = inputs["a"]
    out = {}

    def run():
        out["sum"] = f(a)

    t0 = time.perf_counter()
    run()
    first = time.perf_counter() - t0
    return Case(run=run, result=lambda: np.array([out["sum"]], dtype),
                notes={"first call (incl. numba compile)": first})


def setup_reduction_numpy(inputs, dtype):
    a = inputs["a"]
    out = {}

    def run():
        out["sum"] = a.sum()

    return Case(run=run, result=lambda: np.array([out["sum"]]))


REDUCTION = Benchmark(
    name=f"reduction sum(a), tree in local memory, groups of {GROUP}",
    make_inputs=reduction_inputs,
    reference=reduction_reference,
    backends=[
        Backend("spirjit", setup_reduction_spirjit),
        Backend("spirjit CPU-style", setup_reduction_spirjit_cpu),
        Backend(REFERENCE, setup_reduction_opencl_c),
        Backend("numba parallel", setup_reduction_numba),
        Backend("NumPy", setup_reduction_numpy),
    ],
    dtypes=(np.float64,),
    n=2 ** 24,
    check=reduction_check,
)

BENCHMARKS = [MATMUL, REDUCTION]


def main(argv=None):
    return run_main(BENCHMARKS, argv, __doc__.splitlines()[0])


if __name__ == "__main__":
    sys.exit(main())
