#!/usr/bin/env python3
"""bench_prange.py's programs under numba-dpex's dpjit, for its peer column.

Runs in the numba-dpex venv of scripts/setup-numba-dpex.sh, with that venv's
env.sh sourced (numba-dpex needs numpy 1 and numba 0.59, so it cannot share a
process with spirjit): bench_prange.py starts it as a subprocess. The
functions are bench_prange.py's with the imports changed to numba_dpex and
dpnp arrays on the SYCL device ONEAPI_DEVICE_SELECTOR names (opencl:cpu,
Intel's CPU OpenCL runtime, which is spirjit's [Intel] device). Each result
is checked against NumPy, then timed with bench_vecadd's timer (median of
--reps after 2 warm-up calls, as bench_prange.py does).

Prints one JSON object: each row's name (vecadd, jacobi_prange,
jacobi_outer_prange, jacobi_arrayexpr, sum, first_call) -> seconds, or a
string saying how that row failed in numba-dpex (an exception, or a wrong
result); "_device" and "_versions" describe what ran.

    . .peer/numba-dpex/env.sh
    .peer/numba-dpex/bin/python benchmarks/peer_dpjit.py [--reps R] [--small]
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_vecadd import timeit_median  # noqa: E402

import dpctl  # noqa: E402
import dpnp  # noqa: E402
import numba  # noqa: E402
import numba_dpex  # noqa: E402
from numba_dpex import dpjit, prange  # noqa: E402


@dpjit
def vecadd_prange(a, b, c):
    for i in prange(a.shape[0]):
        c[i] = a[i] + b[i]


@dpjit
def jacobi_prange(u, v):
    n, m = u.shape
    for i in prange(1, n - 1):
        for j in prange(1, m - 1):
            v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] +
                              u[i, j + 1])


# numba-dpex 0.23 cannot compile the 2-D form above, and its kernels ignore
# a prange's start (i runs from 0: a wrong result), so the nearest sweep it
# runs right is one outer prange from 0, the start added by hand, with the
# inner loop sequential (as bench_prange.py's numba column writes it). Not a
# port by imports: a row of its own, to say what numba-dpex's Jacobi costs.
@dpjit
def jacobi_outer_prange(u, v):
    n, m = u.shape
    for i0 in prange(n - 2):
        i = i0 + 1
        for j in range(1, m - 1):
            v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] +
                              u[i, j + 1])


@dpjit
def jacobi_arrayexpr(u, v):
    v[1:-1, 1:-1] = (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] +
                     u[1:-1, 2:]) * 0.25


@dpjit
def sum_prange(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i]
    return s


# The first call in a fresh process, as bench_prange.py's FIRST_CALL: the
# same function, timed around its first call only (imports and the arrays'
# creation apart). dpjit functions are not cached on disk unless asked to
# (cache=True), so nothing carries over from an earlier process.
FIRST_CALL = r"""
import time
import dpnp
from numba_dpex import dpjit, prange

@dpjit
def scale(a, b):
    for i in prange(a.shape[0]):
        b[i] = a[i] * 2.0 + 1.0

a = dpnp.arange(1000, dtype=dpnp.float32)
b = dpnp.empty_like(a)
t0 = time.perf_counter()
scale(a, b)
t1 = time.perf_counter()
assert (dpnp.asnumpy(b) == dpnp.asnumpy(a) * 2 + 1).all(), "wrong result"
print(t1 - t0)
"""


def failure(e):
    """An exception as a table cell: its type, and the first and last lines
    of its message (numba puts the pipeline step first, the cause last)."""
    lines = str(e).strip().splitlines() or [""]
    text = lines[0] if len(lines) == 1 else f"{lines[0]} ... {lines[-1]}"
    return f"{type(e).__name__}: {text}"[:240]


def checked(run, result, want, close, reps):
    """Run once, compare with want, then time. A wrong result is the cell,
    with the time it took anyway."""
    run()
    got = result()
    t = timeit_median(run, reps, 2)[0]
    if not close(got, want):
        err = np.max(np.abs(np.asarray(got, dtype=np.float64) - want))
        return f"wrong result (max abs error {err:.3g}), {t * 1e3:.2f} ms"
    return t


def rows(small, reps):
    n = 1 << (20 if small else 24)
    side = 1024 if small else 4096
    rng = np.random.default_rng(0)
    out = {}

    def row(name, measure):
        try:
            out[name] = measure()
        except Exception as e:  # noqa: BLE001 (every failure is reported)
            out[name] = failure(e)

    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)

    def vecadd():
        da, db = dpnp.asarray(a), dpnp.asarray(b)
        dc = dpnp.zeros(n, dtype=dpnp.float32)
        return checked(lambda: vecadd_prange(da, db, dc),
                       lambda: dpnp.asnumpy(dc), a + b, np.array_equal, reps)
    row("vecadd", vecadd)

    u = rng.random((side, side), dtype=np.float32)
    want = u.copy()
    want[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] +
                               u[1:-1, 2:])

    def jacobi(fn):
        du, dv = dpnp.asarray(u), dpnp.asarray(u.copy())
        return checked(lambda: fn(du, dv), lambda: dpnp.asnumpy(dv), want,
                       lambda got, w: np.allclose(got, w, rtol=1e-6), reps)
    row("jacobi_prange", lambda: jacobi(jacobi_prange))
    row("jacobi_outer_prange", lambda: jacobi(jacobi_outer_prange))
    row("jacobi_arrayexpr", lambda: jacobi(jacobi_arrayexpr))

    x = rng.random(n)

    def total():
        dx = dpnp.asarray(x)
        return checked(lambda: sum_prange(dx), lambda: sum_prange(dx),
                       x.sum(), lambda got, w: abs(got - w) <= 1e-9 * n, reps)
    row("sum", total)
    return out


def first_call():
    """Seconds of the first call in a fresh process, or how it failed."""
    proc = subprocess.run([sys.executable, "-c", FIRST_CALL],
                          capture_output=True, text=True, timeout=300)
    if proc.returncode:
        tail = proc.stderr.strip().splitlines()[-1:] or ["no message"]
        return f"failed ({proc.returncode}): {tail[0]}"[:200]
    return float(proc.stdout.split()[-1])


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--small", action="store_true",
                   help="2^20 elements and 1024^2 grids, as bench_prange.py")
    args = p.parse_args()
    device = dpctl.SyclQueue().sycl_device
    out = {"_device": f"{device.name}, driver {device.driver_version}",
           "_versions": f"numba-dpex {numba_dpex.__version__}, "
                        f"dpnp {dpnp.__version__}, dpctl {dpctl.__version__}, "
                        f"numba {numba.__version__}"}
    out.update(rows(args.small, args.reps))
    out["first_call"] = first_call()
    json.dump(out, sys.stdout)
    print()


if __name__ == "__main__":
    main()
