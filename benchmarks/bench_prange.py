#!/usr/bin/env python3
"""@spirjit.jit with prange, beside the kernel form, OpenCL C and numba.

One table per CPU device present (the default device's first): Intel's and
PoCL's OpenCL runtimes and spirjit's own native CPU device ([native],
listed for this process with SPIRJIT_NATIVE=1; it runs no OpenCL C), each
row timed on data already where it computes (DeviceArrays for spirjit,
pyopencl buffers for OpenCL C, NumPy arrays for numba), medians of --reps
(21: on the 2-vCPU VM the host takes a core for 30-40 ms at a time, which
doubles the few calls it falls on, and 7-10 rounds let such a burst move
a median by 40 %), the forms of a row run in turn round by round:

  vecadd 2^24 float32      prange  vs  @spirjit.kernel  vs  numba parallel
  Jacobi sweep 4096^2 f32  2-D prange, prange rows with range columns
                           (numba's form), array expression  vs  OpenCL C
                           vs  numba parallel
  sum 2^24 float64         prange reduction  vs  tree-reduction kernel
                           (local memory, groups of 256)  vs  numba

Then the first call of a jit function with one prange in a fresh process
with the disk cache off (the runtime's program build and the rest apart),
again with the devices found before the call (finding them loads every
OpenCL runtime installed), and in a second process that finds its host
code and kernel in the disk cache.

Where the numba-dpex venv exists (scripts/setup-numba-dpex.sh; --peer-venv),
the same programs under numba-dpex's dpjit (benchmarks/peer_dpjit.py, run in
that venv in a process of its own) add a "numba-dpex dpjit" column to the
[Intel] table, the same device through the same runtime (numba-dpex pins an
older release of it), and a line to the first-call section.

    python benchmarks/bench_prange.py [--reps R] [--small] [--peer-venv DIR]
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "python"))

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("SPIRJIT_NATIVE", "1")  # list native:cpu:0 too

import spirjit  # noqa: E402
from spirjit import kernel_api as kapi  # noqa: E402
try:  # one source for both compilers: spirjit reads numba's prange as its own
    from numba import prange  # noqa: E402
except Exception:  # noqa: BLE001 (numba missing or broken: its column says)
    from spirjit import prange  # noqa: E402
from bench_kernel_api import make_spirjit_reduction  # noqa: E402
from timing import wait_until_quiet  # noqa: E402

RUNTIMES = [("Intel", "Intel(R) OpenCL"),
            ("PoCL", "Portable Computing Language"),
            ("native", "spirjit native")]
# numba-dpex runs Intel's CPU OpenCL runtime only: its column is that table's.
PEER_RUNTIME = "Intel"
PEER_VENV = os.path.join(REPO, ".peer", "numba-dpex")


def interleaved_medians(fns, reps, warmup=6):
    """{label: median seconds} of `fns` ({label: callable}), run in turn
    round by round, so that the machine's drifts (this one is shared) fall
    on every form of a row alike and the ratios hold. Six warm-up calls a
    form: on the 2-core VM a form's first calls after others ran took up
    to 3-5x its steady time for several calls in a row (numba's Jacobi
    12.3, 8.0, 8.0, 8.0 ms, then 2.4-2.5; spirjit's 8.4, 3.0, 2.5, then
    2.1-2.2; 2026-11-28), which two warm-ups left inside 9 rounds."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    times = {label: [] for label in fns}
    for _ in range(reps):
        for label, fn in fns.items():
            wait_until_quiet()  # no other form's threads still spin
            t0 = time.perf_counter()
            fn()
            times[label].append(time.perf_counter() - t0)
    return {label: statistics.median(t) for label, t in times.items()}


# The loops as numba's users write them, compiled by spirjit.jit here and
# by numba.njit(parallel=True) in numba_functions().
def vecadd_loop(a, b, c):
    for i in prange(a.shape[0]):
        c[i] = a[i] + b[i]


def jacobi_rows_loop(u, v):
    # numba's and numba-dpex's form: rows in parallel, columns in a loop.
    n, m = u.shape
    for i in prange(1, n - 1):
        for j in range(1, m - 1):
            v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] +
                              u[i, j + 1])


def jacobi_arrayexpr_loop(u, v):
    v[1:-1, 1:-1] = (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] +
                     u[1:-1, 2:]) * 0.25


def sum_loop(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i]
    return s


vecadd_prange = spirjit.jit(vecadd_loop)
jacobi_rows = spirjit.jit(jacobi_rows_loop)
jacobi_arrayexpr = spirjit.jit(jacobi_arrayexpr_loop)
sum_prange = spirjit.jit(sum_loop)


@spirjit.kernel
def vecadd_kernel(item, a, b, c):
    i = item.get_id(0)
    c[i] = a[i] + b[i]


@spirjit.jit
def jacobi_prange(u, v):
    # spirjit's own form: both dimensions parallel.
    n, m = u.shape
    for i in prange(1, n - 1):
        for j in prange(1, m - 1):
            v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] +
                              u[i, j + 1])


# The tree-reduction kernel of bench_kernel_api.py, the reference here.
tree_reduce = make_spirjit_reduction(spirjit, kapi)


JACOBI_CL = """
__kernel void jacobi(__global const float *u, __global float *v, long m) {
    long i = get_global_id(1) + 1, j = get_global_id(0) + 1;
    v[i * m + j] = 0.25f * (u[(i - 1) * m + j] + u[(i + 1) * m + j] +
                            u[i * m + j - 1] + u[i * m + j + 1]);
}
"""


def numba_functions():
    try:
        import numba
    except Exception as e:  # noqa: BLE001
        return None, f"unavailable: {type(e).__name__}"

    parallel = numba.njit(parallel=True)
    return tuple(parallel(f) for f in (vecadd_loop, jacobi_rows_loop,
                                       sum_loop, jacobi_arrayexpr_loop)), None


def pyopencl_context(platform):
    try:
        import pyopencl as cl
        plats = [p for p in cl.get_platforms() if platform in p.name]
        if not plats:
            return None
        dev = plats[0].get_devices()[0]
        ctx = cl.Context([dev])
        return cl, ctx, cl.CommandQueue(ctx)
    except Exception:  # noqa: BLE001
        return None


def fmt(t):
    return f"{t * 1e3:9.2f} ms"


def run_peer(venv, args):
    """numba-dpex's rows: peer_dpjit.py's JSON object (row -> seconds, or how
    the row failed), or None after a line saying why there are none.

    peer_dpjit.py runs under the venv's python with its env.sh sourced, in an
    environment without spirjit's OCL_ICD_VENDORS, PYTHONPATH and SPIRJIT_*
    (numba-dpex brings its own loader set-up and cannot import numpy 2)."""
    python = os.path.join(venv, "bin", "python")
    env_sh = os.path.join(venv, "env.sh")
    if not (os.path.isfile(python) and os.path.isfile(env_sh)):
        print(f"numba-dpex dpjit: no venv at {venv}; "
              "scripts/setup-numba-dpex.sh makes one (about 1 GB from PyPI) "
              "for a numba-dpex column")
        return None
    env = {k: v for k, v in os.environ.items()
           if k not in ("OCL_ICD_VENDORS", "PYTHONPATH", "VIRTUAL_ENV") and
           not k.startswith("SPIRJIT_")}
    script = os.path.join(REPO, "benchmarks", "peer_dpjit.py")
    cmd = ['. "$1" && shift && exec "$@"', "peer", env_sh, python, "-W",
           "ignore", script, "--reps", str(args.reps)]
    if args.small:
        cmd.append("--small")
    try:
        out = subprocess.run(["bash", "-c"] + cmd, env=env,
                             capture_output=True, text=True, timeout=1200)
    except subprocess.TimeoutExpired:
        print("numba-dpex dpjit: peer_dpjit.py ran past 20 minutes")
        return None
    lines = out.stdout.strip().splitlines()
    if out.returncode or not lines:
        why = out.stderr.strip().splitlines()[-1:] or ["no message"]
        print(f"numba-dpex dpjit: peer_dpjit.py failed ({out.returncode}): "
              f"{why[0]}")
        return None
    try:
        peer = json.loads(lines[-1])
    except json.JSONDecodeError:
        print(f"numba-dpex dpjit: peer_dpjit.py ended without its JSON line: "
              f"{lines[-1][:200]}")
        return None
    print(f"numba-dpex dpjit: {peer.get('_versions')}, on "
          f"{peer.get('_device')}")
    return peer


class PeerColumn:
    """The numba-dpex dpjit cells of one table: its median and spirjit's time
    over it (below 1: spirjit is faster); a row that failed in numba-dpex
    shows a note number, and notes() gives the failures in full."""

    def __init__(self, peer):
        self.peer = peer
        self.failures = []

    def cell(self, key, ours=None):
        got = self.peer.get(key, "not measured by peer_dpjit.py")
        if not isinstance(got, str):
            return fmt(got) + (f" (ours {ours / got:.2f}x)" if ours else "")
        self.failures.append((key, got))
        return f"failed [{len(self.failures)}]"

    def notes(self):
        return [f"  [{k}] numba-dpex {key}: {why}"
                for k, (key, why) in enumerate(self.failures, 1)]


def run_runtime(short, device, args, numba_fns, peer=None):
    reps = args.reps
    dpex = PeerColumn(peer) if peer else None
    n = 1 << (20 if args.small else 24)
    side = 1024 if args.small else 4096
    rows = []
    rng = np.random.default_rng(0)
    to = lambda x: spirjit.asarray(x, device=device)  # noqa: E731

    # vecadd
    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)
    da, db, dc = to(a), to(b), spirjit.zeros(n, dtype="float32", device=device)
    vecadd_prange(da, db, dc)
    assert np.array_equal(dc.asnumpy(), a + b)
    rng_ = kapi.Range(n)
    fns = {"prange": lambda: vecadd_prange(da, db, dc),
           "kernel": lambda: spirjit.call_kernel(vecadd_kernel, rng_, da, db,
                                                 dc)}
    if numba_fns:
        c = np.empty_like(a)
        fns["numba"] = lambda: numba_fns[0](a, b, c)
    t = interleaved_medians(fns, reps)
    t_prange, t_kernel = t["prange"], t["kernel"]
    row = [f"vecadd 2^{n.bit_length() - 1} f32", fmt(t_prange),
           fmt(t_kernel) + " (kernel)",
           fmt(t["numba"]) if numba_fns else "-"]
    row.append(f"{t_prange / t_kernel:.2f}x kernel (target <= 1.1)")
    if dpex:
        row.append(dpex.cell("vecadd", t_prange))
    rows.append(row)

    # Jacobi sweep
    u = rng.random((side, side), dtype=np.float32)
    want = u.copy()
    want[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] +
                               u[1:-1, 2:])
    du = to(u)
    cl = pyopencl_context(dict(RUNTIMES)[short])
    run_cl = None
    if cl:
        clm, ctx, queue = cl
        prog = clm.Program(ctx, JACOBI_CL).build()
        knl = prog.jacobi
        mf = clm.mem_flags
        bu = clm.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=u)
        bv = clm.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=u)

        def run_cl():
            knl(queue, (side - 2, side - 2), None, bu, bv, np.int64(side))
            queue.finish()

    def jacobi_row(label, fn, numba_index, peer_key):
        """One Jacobi form: checked, then timed interleaved with OpenCL C
        and numba."""
        dv = to(u.copy())
        fn(du, dv)
        assert np.allclose(dv.asnumpy(), want, rtol=1e-6)
        fns = {"spirjit": lambda: fn(du, dv)}
        if run_cl:
            fns["cl"] = run_cl
        if numba_fns:
            v = u.copy()
            fns["numba"] = lambda: numba_fns[numba_index](u, v)
        times = interleaved_medians(fns, reps)
        t, t_cl, t_nb = (times["spirjit"], times.get("cl"),
                         times.get("numba"))
        row = [f"Jacobi {side}^2 f32 ({label})", fmt(t),
               (fmt(t_cl) + " (OpenCL C)") if t_cl else "no OpenCL C",
               fmt(t_nb) if t_nb else "-"]
        row.append(", ".join(
            ([f"{t / t_cl:.2f}x OpenCL C (<= 1.1)"] if t_cl else []) +
            ([f"numba {t_nb / t:.2f}x our time (> 1: faster)"] if t_nb
             else [])))
        if dpex:
            row.append(dpex.cell(peer_key, t))
        rows.append(row)
        return t

    jacobi_row("2-D prange", jacobi_prange, 1, "jacobi_prange")
    # numba-dpex's own form is this one (peer_dpjit.py's 1-D prange from 0).
    jacobi_row("prange rows, range columns", jacobi_rows, 1,
               "jacobi_outer_prange")
    jacobi_row("array expression", jacobi_arrayexpr, 3, "jacobi_arrayexpr")

    # sum
    x = rng.random(n)
    dx = to(x)
    got = sum_prange(dx)
    assert abs(got - x.sum()) <= 1e-9 * n
    group = 256
    partial = spirjit.zeros(n // group, device=device)
    loc = kapi.LocalAccessor(group, np.float64)
    nd = kapi.NdRange(kapi.Range(n), kapi.Range(group))

    def tree():
        spirjit.call_kernel(tree_reduce, nd, dx, partial, loc)
        return partial.asnumpy().sum()
    assert abs(tree() - x.sum()) <= 1e-9 * n
    fns = {"prange": lambda: sum_prange(dx), "tree": tree}
    if numba_fns:
        fns["numba"] = lambda: numba_fns[2](x)
    t = interleaved_medians(fns, reps)
    t_prange, t_tree = t["prange"], t["tree"]
    row = [f"sum 2^{n.bit_length() - 1} f64 (reduction)", fmt(t_prange),
           fmt(t_tree) + " (tree kernel)",
           fmt(t["numba"]) if numba_fns else "-"]
    row.append(f"{t_prange / t_tree:.2f}x tree kernel (<= 1.2)")
    if dpex:
        row.append(dpex.cell("sum", t_prange))
    rows.append(row)

    headers = ["case", "spirjit jit/prange", "reference", "numba parallel",
               "ratio"]
    if dpex:
        headers.append("numba-dpex dpjit")
    widths = [max(len(str(r[k])) for r in rows + [headers])
              for k in range(len(headers))]
    print(f"\n[{short}] {device.name}")
    print(" | ".join(h.ljust(w) for h, w in zip(headers, widths)))
    print("-+-".join("-" * w for w in widths))
    for r in rows:
        print(" | ".join(str(c).ljust(w) for c, w in zip(r, widths)))
    if dpex:
        print("numba-dpex dpjit: its median; (ours Nx) is spirjit's time in "
              "the row over it (< 1: spirjit faster); numba-dpex's rows form "
              "starts its prange at 0 (peer_dpjit.py says why)")
        print("\n".join(dpex.notes()))


FIRST_CALL = r"""
import json, os, sys, time
t0 = time.perf_counter()
import numpy as np
sys.path.insert(0, {python!r})
import spirjit
from spirjit import prange
t1 = time.perf_counter()
discovery = None
if {discover_first!r}:
    spirjit.default_device()
    discovery = (time.perf_counter() - t1) * 1e3

@spirjit.jit
def scale(a, b):
    for i in prange(a.shape[0]):
        b[i] = a[i] * 2.0 + 1.0

a = np.arange(1000, dtype=np.float32)
b = np.empty_like(a)
t2 = time.perf_counter()
scale(a, b)
t3 = time.perf_counter()
assert (b == a * 2 + 1).all()
stats = scale.stats
print(json.dumps({{"call": (t3 - t2) * 1e3,
                  "build": stats["kernels"]["device_build_seconds"] * 1e3,
                  "discovery": discovery,
                  "host_disk_hits": stats["host"]["disk_hits"],
                  "kernel_disk_hits": stats["kernels"]["disk_hits"]}}))
"""


def first_call(device_filter, cache_dir, disable_cache, discover_first=False,
               runs=3):
    """The median run (by the call's time) of `runs` fresh processes, or
    (None, why)."""
    env = dict(os.environ, SPIRJIT_DEVICE=device_filter,
               SPIRJIT_CACHE_DIR=cache_dir)
    env.pop("SPIRJIT_DISABLE_CACHE", None)
    if disable_cache:
        env["SPIRJIT_DISABLE_CACHE"] = "1"
    script = FIRST_CALL.format(python=os.path.join(REPO, "python"),
                               discover_first=discover_first)
    results = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", script], env=env,
                             capture_output=True, text=True, timeout=300)
        if out.returncode:
            return None, out.stderr.strip().splitlines()[-1:]
        results.append(json.loads(out.stdout.splitlines()[-1]))
    results.sort(key=lambda r: r["call"])
    return results[len(results) // 2], None


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--reps", type=int, default=21)
    p.add_argument("--small", action="store_true",
                   help="2^20 elements and 1024^2 grids (a quick look)")
    p.add_argument("--peer-venv", default=PEER_VENV,
                   help="numba-dpex's venv (scripts/setup-numba-dpex.sh) "
                        "for its dpjit column; default %(default)s")
    args = p.parse_args(argv)
    numba_fns, why = numba_functions()
    if why:
        print(f"numba: {why}")
    print(f"spirjit jit/prange benchmarks, {time.strftime('%Y-%m-%d')}, "
          f"medians of {args.reps}")
    devices = []
    default = spirjit.default_device()
    for short, platform in RUNTIMES:
        for d in spirjit.devices():
            if d.device_type == "cpu" and d.platform == platform:
                devices.append((short, d))
                break
    devices.sort(key=lambda sd: sd[1] != default)
    # numba-dpex's rows first (a process of its own): the [Intel] table
    # shows them.
    peer = run_peer(args.peer_venv, args)
    for short, d in devices:
        run_runtime(short, d, args, numba_fns,
                    peer if short == PEER_RUNTIME else None)

    import tempfile
    print("\nfirst call of a jit function with one prange, fresh processes "
          "(ms, medians of 3): the whole call, of which the runtime's program "
          "build, and the rest beside it")
    for short, d in devices:
        cache = tempfile.mkdtemp(prefix="spirjit-bench-cache-")
        off, err = first_call(d.filter_string, cache, True)
        found, err2 = first_call(d.filter_string, cache, True,
                                 discover_first=True)
        first_call(d.filter_string, cache, False, runs=1)  # fills the cache
        second, err3 = first_call(d.filter_string, cache, False)
        shutil.rmtree(cache, ignore_errors=True)  # each run made one

        def show(r, e):
            if not r:
                return f"failed: {e}"
            return (f"{r['call']:.1f} (build {r['build']:.1f}, beside it "
                    f"{r['call'] - r['build']:.1f})")
        print(f"  [{short}] cache off: {show(off, err)}")
        print(f"  [{short}] cache off, devices found before the call"
              + (f" (in {found['discovery']:.1f})" if found else "")
              + f": {show(found, err2)}")
        print(f"  [{short}] second process from the disk cache: "
              f"{show(second, err3)}"
              + (f" [host code from disk: {second['host_disk_hits']}, "
                 f"kernels from disk: {second['kernel_disk_hits']}]"
                 if second else ""))

    if peer:
        first = peer.get("first_call", "not measured")
        print(f"  [{PEER_RUNTIME}] numba-dpex dpjit, fresh process (numba's "
              "disk cache is off unless asked for): " +
              (first if isinstance(first, str) else f"{first * 1e3:.1f}"))


def _standalone(argv):
    """run_all.py's hook: the whole report with its defaults."""
    main([])


STANDALONE = [_standalone]


if __name__ == "__main__":
    main()
