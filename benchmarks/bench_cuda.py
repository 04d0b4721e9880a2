#!/usr/bin/env python3
"""spirjit on an NVIDIA GPU beside CuPy, cuBLAS and numba-cuda (issue 12).

On the same data, medians of R timed runs (each run synchronised):

  vecadd 2^26 float32   GB/s (3 arrays moved) against a device-to-device
                        copy (2 arrays), CuPy a + b, a CuPy RawKernel of
                        the same CUDA C and numba-cuda
  Black-Scholes 2^24    ms, against a RawKernel of the same algorithm,
                        compiled as NVRTC does by default (fma
                        contraction) and with --fmad=false (IEEE products
                        and sums, as spirjit compiles without fastmath)
  tiled matmul 4096^2   ms (16x16 tiles in local memory), against the
                        same two RawKernels, the RawKernel with its tile
                        stride a run-time parameter (as a LocalAccessor's)
                        and cuBLAS (cupy.matmul)
  tree reduction 2^26   ms (float64, 256-item groups, one partial per
                        group), against the same RawKernel, spirjit's own
                        PTX launched by CuPy, and cupy.sum
  launch overhead       us per launch of a 3-array tiny kernel: async
                        (launch loop, one wait) and sync, against CuPy,
                        numba-cuda and a bare C++ cuLaunchKernel loop on
                        spirjit's own kernel
  first call            a fresh process with the disk cache off, then a
                        second process from the cache; numba-cuda's first
                        call in a fresh process

    python benchmarks/bench_cuda.py [--runs R]   (needs a CUDA device,
                                                 CuPy; numba-cuda optional)
"""

import argparse
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))

import cupy as cp  # noqa: E402

import spirjit  # noqa: E402
from spirjit import _spirjit  # noqa: E402
from spirjit._describe import describe_function  # noqa: E402
from spirjit import kernel_api as kapi  # noqa: E402
from timing import median_ms as _median_ms  # noqa: E402

DEVICE = "cuda:gpu:0"


def median_ms(run, runs):
    return _median_ms(run, runs, sync=cp.cuda.Device().synchronize)


@spirjit.kernel
def vecadd(item, a, b, c):
    i = item.get_id(0)
    c[i] = a[i] + b[i]


VECADD_CU = r"""extern "C" __global__ void vecadd(const float *a, const float *b,
    float *c, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}"""


@spirjit.kernel
def black_scholes(item, s, x, t, call, put):
    i = item.get_id(0)
    r = np.float32(0.02)
    v = np.float32(0.30)
    sqrt_t = math.sqrt(t[i])
    d1 = (math.log(s[i] / x[i]) + (r + np.float32(0.5) * v * v) * t[i]) / (
        v * sqrt_t)
    d2 = d1 - v * sqrt_t
    cnd1 = np.float32(0.5) * (np.float32(1.0) + math.erf(
        d1 * np.float32(0.7071067811865476)))
    cnd2 = np.float32(0.5) * (np.float32(1.0) + math.erf(
        d2 * np.float32(0.7071067811865476)))
    discount = x[i] * math.exp(-r * t[i])
    call[i] = s[i] * cnd1 - discount * cnd2
    put[i] = discount * (np.float32(1.0) - cnd2) - s[i] * (
        np.float32(1.0) - cnd1)


BLACK_SCHOLES_CU = r"""extern "C" __global__ void bs(const float *s,
    const float *x, const float *t, float *call, float *put, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float r = 0.02f, v = 0.30f;
  float sqrt_t = sqrtf(t[i]);
  float d1 = (logf(s[i] / x[i]) + (r + 0.5f * v * v) * t[i]) / (v * sqrt_t);
  float d2 = d1 - v * sqrt_t;
  float cnd1 = 0.5f * (1.0f + erff(d1 * 0.7071067811865476f));
  float cnd2 = 0.5f * (1.0f + erff(d2 * 0.7071067811865476f));
  float discount = x[i] * expf(-r * t[i]);
  call[i] = s[i] * cnd1 - discount * cnd2;
  put[i] = discount * (1.0f - cnd2) - s[i] * (1.0f - cnd1);
}"""

TILE = 16


@spirjit.kernel
def matmul(item: kapi.NdItem, a, b, c, ta, tb):
    row = item.get_global_id(0)
    col = item.get_global_id(1)
    lr = item.get_local_id(0)
    lc = item.get_local_id(1)
    n = a.shape[1]
    acc = np.float32(0)
    for k0 in range(0, n, 16):
        ta[lr, lc] = a[row, k0 + lc]
        tb[lr, lc] = b[k0 + lr, col]
        kapi.group_barrier(item.get_group())
        for k in range(16):
            acc += ta[lr, k] * tb[k, lc]
        kapi.group_barrier(item.get_group())
    c[row, col] = acc


MATMUL_CU = r"""extern "C" __global__ void matmul(const float *a,
    const float *b, float *c, int n) {
  __shared__ float ta[16][16], tb[16][16];
  int lr = threadIdx.y, lc = threadIdx.x;
  int row = blockIdx.y * 16 + lr, col = blockIdx.x * 16 + lc;
  float acc = 0.0f;
  for (int k0 = 0; k0 < n; k0 += 16) {
    ta[lr][lc] = a[(long long)row * n + k0 + lc];
    tb[lr][lc] = b[(long long)(k0 + lr) * n + col];
    __syncthreads();
    for (int k = 0; k < 16; ++k) acc += ta[lr][k] * tb[k][lc];
    __syncthreads();
  }
  c[(long long)row * n + col] = acc;
}"""


# The same CUDA C with the tiles' row stride a run-time parameter, as a
# LocalAccessor's is in spirjit's kernel: what the matmul's gap is.
MATMUL_STRIDE_CU = r"""extern "C" __global__ void matmul(const float *a,
    const float *b, float *c, int n, long long ts) {
  extern __shared__ float tiles[];
  float *ta = tiles, *tb = tiles + 16 * ts;
  int lr = threadIdx.y, lc = threadIdx.x;
  int row = blockIdx.y * 16 + lr, col = blockIdx.x * 16 + lc;
  float acc = 0.0f;
  for (int k0 = 0; k0 < n; k0 += 16) {
    ta[lr * ts + lc] = a[(long long)row * n + k0 + lc];
    tb[lr * ts + lc] = b[(long long)(k0 + lr) * n + col];
    __syncthreads();
    for (int k = 0; k < 16; ++k) acc += ta[lr * ts + k] * tb[k * ts + lc];
    __syncthreads();
  }
  c[(long long)row * n + col] = acc;
}"""


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


REDUCE_CU = r"""extern "C" __global__ void reduce(const double *a,
    double *partial) {
  extern __shared__ double loc[];
  unsigned lid = threadIdx.x;
  loc[lid] = a[(long long)blockIdx.x * blockDim.x + lid];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (lid < s) loc[lid] += loc[lid + s];
    __syncthreads();
  }
  if (lid == 0) partial[blockIdx.x] = loc[0];
}"""


@spirjit.kernel
def tiny(item, a, b, c):
    i = item.get_id(0)
    c[i] = a[i] + b[i]


TINY_CU = r"""extern "C" __global__ void tiny(const float *a, const float *b,
    float *c) {
  int i = threadIdx.x;
  c[i] = a[i] + b[i];
}"""

FIRST_CALL = r"""
import sys, time
sys.path.insert(0, {python!r})
start = time.perf_counter()
import numpy as np
import spirjit
@spirjit.kernel
def vecadd(item, a, b, c):
    i = item.get_id(0)
    c[i] = a[i] + b[i]
a = spirjit.asarray(np.ones(1024, np.float32), device="cuda:gpu:0")
c = spirjit.empty_like(a)
t0 = time.perf_counter()
spirjit.call_kernel(vecadd, spirjit.Range(1024), a, a, c)
t1 = time.perf_counter()
assert c.asnumpy()[0] == 2
print(t1 - t0, vecadd.stats["compiles"], vecadd.stats["disk_hits"])
"""

# numba-cuda's first call in a fresh process, the same vecadd.
NUMBA_FIRST_CALL = r"""
import sys, time
start = time.perf_counter()
import numpy as np
if not hasattr(np, "row_stack"):  # numba-cuda 0.30 on NumPy 2.5
    np.row_stack = np.vstack
from numba import cuda
@cuda.jit
def vecadd(a, b, c):
    i = cuda.grid(1)
    if i < a.size:
        c[i] = a[i] + b[i]
a = cuda.to_device(np.ones(1024, np.float32))
c = cuda.device_array_like(a)
t0 = time.perf_counter()
vecadd[4, 256](a, a, c)
cuda.synchronize()
t1 = time.perf_counter()
assert c.copy_to_host()[0] == 2
print(t1 - t0)
"""


def import_numba_cuda():
    """numba-cuda's `cuda` module. numba-cuda 0.30 imports numpy.row_stack,
    which NumPy 2.5 removed (it was numpy.vstack): the benchmark puts it
    back in its own process first."""
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack
    from numba import cuda
    return cuda


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    runs = args.runs
    rows = []

    def row(name, value, unit, note=""):
        rows.append((name, value, unit, note))
        print(f"{name:44} {value:10.3f} {unit:5} {note}", flush=True)

    # vecadd 2^26 float32.
    n = 1 << 26
    rng = np.random.default_rng(0)
    ha = rng.random(n, dtype=np.float32)
    hb = rng.random(n, dtype=np.float32)
    ca, cb = cp.asarray(ha), cp.asarray(hb)
    cc = cp.empty_like(ca)
    da = spirjit.asarray(ha, device=DEVICE)
    db = spirjit.asarray(hb, device=DEVICE)
    dc = spirjit.empty_like(da)
    moved = 3 * 4 * n / 1e9
    copy_ms = median_ms(lambda: cc.__setitem__(Ellipsis, ca), runs)
    row("D2D copy 2^26 f32", 2 * 4 * n / 1e9 / (copy_ms / 1e3), "GB/s")
    ms = median_ms(lambda: spirjit.call_kernel(vecadd, spirjit.Range(n), da,
                                               db, dc), runs)
    np.testing.assert_array_equal(dc.asnumpy(), ha + hb)
    row("vecadd spirjit", moved / (ms / 1e3), "GB/s",
        f"{ms:.3f} ms")
    ms = median_ms(lambda: cp.add(ca, cb, out=cc), runs)
    row("vecadd CuPy a + b", moved / (ms / 1e3), "GB/s", f"{ms:.3f} ms")
    raw = cp.RawKernel(VECADD_CU, "vecadd")
    ms = median_ms(lambda: raw(((n + 255) // 256,), (256,),
                               (ca, cb, cc, np.int64(n))), runs)
    row("vecadd CuPy RawKernel", moved / (ms / 1e3), "GB/s", f"{ms:.3f} ms")
    try:
        ncuda = import_numba_cuda()

        @ncuda.jit
        def nvecadd(a, b, c):
            i = ncuda.grid(1)
            if i < a.size:
                c[i] = a[i] + b[i]

        ms = median_ms(lambda: nvecadd[(n + 255) // 256, 256](ca, cb, cc),
                       runs)
        row("vecadd numba-cuda", moved / (ms / 1e3), "GB/s", f"{ms:.3f} ms")
    except Exception as e:  # numba-cuda is optional
        ncuda = None
        print("numba-cuda unavailable:", e)
    del ca, cb, cc, da, db, dc

    # Black-Scholes 2^24 float32.
    n = 1 << 24
    s = cp.asarray(rng.uniform(5, 30, n).astype(np.float32))
    x = cp.asarray(rng.uniform(1, 100, n).astype(np.float32))
    t = cp.asarray(rng.uniform(0.25, 10, n).astype(np.float32))
    call, put = cp.empty_like(s), cp.empty_like(s)
    # spirjit launches on views of the CuPy arrays (no copies), made once.
    views = [spirjit.asarray(v) for v in (s, x, t, call, put)]
    ms = median_ms(lambda: spirjit.call_kernel(
        black_scholes, spirjit.Range(n), *views), runs)
    row("Black-Scholes 2^24 spirjit", ms, "ms")
    ms = median_ms(lambda: spirjit.call_kernel(
        black_scholes, spirjit.Range(n), s, x, t, call, put), runs)
    row("Black-Scholes 2^24 spirjit, CuPy arguments", ms, "ms",
        "5 __cuda_array_interface__ conversions per launch")
    mine = call.get()
    raw = cp.RawKernel(BLACK_SCHOLES_CU, "bs")
    ms = median_ms(lambda: raw(((n + 255) // 256,), (256,),
                               (s, x, t, call, put, np.int64(n))), runs)
    row("Black-Scholes 2^24 RawKernel", ms, "ms")
    raw = cp.RawKernel(BLACK_SCHOLES_CU, "bs", options=("--fmad=false",))
    ms = median_ms(lambda: raw(((n + 255) // 256,), (256,),
                               (s, x, t, call, put, np.int64(n))), runs)
    row("Black-Scholes 2^24 RawKernel --fmad=false", ms, "ms",
        "no fma contraction, as spirjit")
    np.testing.assert_allclose(mine, call.get(), rtol=1e-3, atol=1e-3)
    del s, x, t, call, put

    # Tiled matmul 4096^2 float32.
    n = 4096
    a = cp.asarray(rng.random((n, n), dtype=np.float32))
    b = cp.asarray(rng.random((n, n), dtype=np.float32))
    c = cp.empty_like(a)
    ta = kapi.LocalAccessor((TILE, TILE), np.float32)
    tb = kapi.LocalAccessor((TILE, TILE), np.float32)
    space = kapi.NdRange((n, n), (TILE, TILE))
    mruns = max(3, runs // 4)
    views = [spirjit.asarray(v) for v in (a, b, c)]
    ms = median_ms(lambda: spirjit.call_kernel(matmul, space, *views, ta,
                                               tb), mruns)
    row("tiled matmul 4096^2 spirjit", ms, "ms")
    mine = c.get()
    raw = cp.RawKernel(MATMUL_CU, "matmul")
    ms = median_ms(lambda: raw((n // 16, n // 16), (16, 16),
                               (a, b, c, np.int32(n))), mruns)
    row("tiled matmul 4096^2 RawKernel", ms, "ms")
    np.testing.assert_allclose(mine, c.get(), rtol=1e-4)
    raw = cp.RawKernel(MATMUL_CU, "matmul", options=("--fmad=false",))
    ms = median_ms(lambda: raw((n // 16, n // 16), (16, 16),
                               (a, b, c, np.int32(n))), mruns)
    row("tiled matmul 4096^2 RawKernel --fmad=false", ms, "ms",
        "no fma contraction, as spirjit")
    raw = cp.RawKernel(MATMUL_STRIDE_CU, "matmul")
    ms = median_ms(lambda: raw((n // 16, n // 16), (16, 16),
                               (a, b, c, np.int32(n), np.int64(TILE)),
                               shared_mem=2 * TILE * TILE * 4), mruns)
    np.testing.assert_allclose(mine, c.get(), rtol=1e-4)
    row("tiled matmul 4096^2 RawKernel, run-time tile stride", ms, "ms",
        "as a LocalAccessor's")
    ms = median_ms(lambda: cp.matmul(a, b, out=c), mruns)
    row("matmul 4096^2 cuBLAS", ms, "ms")
    del a, b, c

    # Tree reduction 2^26 float64.
    n = 1 << 26
    a = cp.asarray(rng.random(n))
    partial = cp.empty(n // 256, dtype=cp.float64)
    loc = kapi.LocalAccessor(256, np.float64)
    views = [spirjit.asarray(v) for v in (a, partial)]
    ms = median_ms(lambda: spirjit.call_kernel(
        tree_reduce, kapi.NdRange((n,), (256,)), *views, loc), runs)
    row("tree reduction 2^26 f64 spirjit", ms, "ms")
    mine = float(partial.sum())
    raw = cp.RawKernel(REDUCE_CU, "reduce")
    ms = median_ms(lambda: raw((n // 256,), (256,), (a, partial),
                               shared_mem=256 * 8), runs)
    row("tree reduction 2^26 f64 RawKernel", ms, "ms")
    assert math.isclose(mine, float(partial.sum()), rel_tol=1e-9)
    # spirjit's own PTX launched by CuPy: the code's share of the gap.
    ptx = []
    _spirjit.dump_stages(
        describe_function(tree_reduce.py_func),
        "(float64[::1], float64[::1], float64[::1] local)", 1, True, ["ptx"],
        lambda stage, text: ptx.append(text), "ptx", False, False)
    with tempfile.NamedTemporaryFile("w", suffix=".ptx") as file:
        file.write(ptx[0])
        file.flush()
        theirs = cp.RawModule(path=file.name).get_function(
            "spirjit_tree_reduce")
    partial[...] = 0
    ms = median_ms(lambda: theirs((n // 256,), (256,),
                                  (a, partial, np.uint32(0), np.int64(n),
                                   np.int64(1), np.int64(1)),
                                  shared_mem=256 * 8), runs)
    assert math.isclose(mine, float(partial.sum()), rel_tol=1e-9)
    row("tree reduction 2^26 f64 spirjit's PTX, CuPy launch", ms, "ms",
        "the code's share of the gap")
    ms = median_ms(lambda: a.sum(), runs)
    row("sum 2^26 f64 cupy.sum", ms, "ms")
    del a, partial

    # Launch overhead: 3 arrays of 32 float32, one block.
    launches = 20000
    ha = np.ones(32, np.float32)
    d = [spirjit.asarray(ha, device=DEVICE) for _ in range(3)]
    c3 = [cp.asarray(ha) for _ in range(3)]
    space = spirjit.Range(32)
    spirjit.call_kernel(tiny, space, *d)

    def per_launch(loop, count):
        loop(100)
        times = []
        for _ in range(5):
            start = time.perf_counter()
            loop(count)
            times.append(time.perf_counter() - start)
        return statistics.median(times) / count * 1e6

    def bare(count):
        spirjit.call_kernel(tiny, space, *d)
        return tiny._dispatcher._bare_enqueue_loop([32], count)

    def bare_loop(count):
        bare(count)

    def spirjit_async(count):
        call = spirjit.call_kernel_async
        for _ in range(count):
            event = call(tiny, space, (), d[0], d[1], d[2])
        event.wait()

    def spirjit_async_kept(count):
        call = spirjit.call_kernel_async
        events = [call(tiny, space, (), d[0], d[1], d[2])
                  for _ in range(count)]
        events[-1].wait()

    def spirjit_sync(count):
        call = spirjit.call_kernel
        for _ in range(count):
            call(tiny, space, d[0], d[1], d[2])

    raw = cp.RawKernel(TINY_CU, "tiny")
    sync = cp.cuda.Device().synchronize

    def cupy_async(count):
        for _ in range(count):
            raw((1,), (32,), (c3[0], c3[1], c3[2]))
        sync()

    def cupy_sync(count):
        for _ in range(count):
            raw((1,), (32,), (c3[0], c3[1], c3[2]))
            sync()

    bare_us = statistics.median(
        [bare(launches) / launches * 1e6 for _ in range(5)])
    row("launch: bare C++ cuLaunchKernel loop", bare_us, "us")
    row("launch async: spirjit", per_launch(spirjit_async, launches), "us")
    row("launch async: spirjit, Events kept", per_launch(spirjit_async_kept,
                                                         launches), "us",
        "no dropped-Event bookkeeping")
    row("launch async: CuPy RawKernel", per_launch(cupy_async, launches), "us")
    row("launch sync: spirjit", per_launch(spirjit_sync, launches // 4), "us")
    row("launch sync: CuPy RawKernel", per_launch(cupy_sync, launches // 4),
        "us")
    if ncuda is not None:
        @ncuda.jit
        def ntiny(a, b, c):
            i = ncuda.threadIdx.x
            c[i] = a[i] + b[i]

        n3 = [ncuda.to_device(ha) for _ in range(3)]

        def numba_async(count):
            for _ in range(count):
                ntiny[1, 32](n3[0], n3[1], n3[2])
            ncuda.synchronize()

        def numba_sync(count):
            for _ in range(count):
                ntiny[1, 32](n3[0], n3[1], n3[2])
                ncuda.synchronize()

        row("launch async: numba-cuda", per_launch(numba_async, launches // 4),
            "us")
        row("launch sync: numba-cuda", per_launch(numba_sync, launches // 4),
            "us")

    # First call in a fresh process: disk cache off, then from the cache.
    script = FIRST_CALL.format(python=os.path.join(ROOT, "python"))
    env = dict(os.environ, SPIRJIT_DISABLE_CACHE="1")
    out = subprocess.run([sys.executable, "-c", script], env=env,
                         capture_output=True, text=True, check=True).stdout
    row("first call, disk cache off", float(out.split()[0]) * 1e3, "ms",
        f"compiles={out.split()[1]}")
    if ncuda is not None:
        out = subprocess.run([sys.executable, "-c", NUMBA_FIRST_CALL],
                             capture_output=True, text=True, check=True)
        row("first call, numba-cuda", float(out.stdout.split()[0]) * 1e3,
            "ms", "fresh process")
    cache = tempfile.mkdtemp(prefix="spirjit-bench-cache-")
    env = dict(os.environ, SPIRJIT_DISABLE_CACHE="0", SPIRJIT_CACHE_DIR=cache)
    for label in ("first call, empty disk cache", "second process, from cache"):
        out = subprocess.run([sys.executable, "-c", script], env=env,
                             capture_output=True, text=True,
                             check=True).stdout
        row(label, float(out.split()[0]) * 1e3, "ms",
            f"compiles={out.split()[1]} disk_hits={out.split()[2]}")
    shutil.rmtree(cache, ignore_errors=True)

    print("\n| benchmark | value | unit | note |\n|---|---:|---|---|")
    for name, value, unit, note in rows:
        print(f"| {name} | {value:.3f} | {unit} | {note} |")


if __name__ == "__main__":
    main()
