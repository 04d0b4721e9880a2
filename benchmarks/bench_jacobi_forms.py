#!/usr/bin/env python3
"""The Jacobi sweep's loop forms on one device, beside a hand-written kernel.

A 4096^2 float32 sweep written as users write it, each a @spirjit.jit
function on DeviceArrays already on the device:

  2-D prange         for i in prange(...): for j in prange(...)
  prange rows        for i in prange(...): for j in range(...)  (numba's form)
                     as compiled for the device (on a GPU the row loop becomes
                     a launch dimension, SPIRJIT_PRANGE_COALESCE=auto), and
                     kept as one row per work-item (=never), the form before
  array expression   v[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + ...)

against a CuPy RawKernel of the same sweep on CUDA devices (the issue's
reference), medians of --reps interleaved rounds, each timed to the device's
end (spirjit.synchronize, the CuPy device's synchronize).

    python benchmarks/bench_jacobi_forms.py [--device cuda:gpu:0] [--side N]
        [--reps R]
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "python"))

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import spirjit  # noqa: E402
from spirjit import _spirjit, prange  # noqa: E402
from bench_arrays import RAW_JACOBI  # noqa: E402  (the same sweep's CUDA C)
from timing import wait_until_quiet  # noqa: E402


def prange_2d(u, v):
    n, m = u.shape
    for i in prange(1, n - 1):
        for j in prange(1, m - 1):
            v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] +
                              u[i, j + 1])


def prange_rows(u, v):
    n, m = u.shape
    for i in prange(1, n - 1):
        for j in range(1, m - 1):
            v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] +
                              u[i, j + 1])


def array_expression(u, v):
    v[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] +
                            u[1:-1, 2:])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None,
                        help="a filter string (default: the default device)")
    parser.add_argument("--side", type=int, default=4096)
    parser.add_argument("--reps", type=int, default=30)
    args = parser.parse_args(argv)
    device = spirjit.Device(args.device) if args.device \
        else spirjit.default_device()
    n = args.side
    rng = np.random.default_rng(1)
    host = rng.random((n, n), dtype=np.float32)
    want = host.copy()
    want[1:-1, 1:-1] = 0.25 * (host[:-2, 1:-1] + host[2:, 1:-1] +
                               host[1:-1, :-2] + host[1:-1, 2:])

    def sync():
        spirjit.synchronize(device=device)

    forms = []
    for label, function, mode in (
            ("2-D prange", prange_2d, "auto"),
            ("prange rows (as compiled for the device)", prange_rows, "auto"),
            ("prange rows, one row per work-item", prange_rows, "never"),
            ("array expression (jit)", array_expression, "auto")):
        jitted = spirjit.jit(function)
        u = spirjit.asarray(host, device=device)
        v = spirjit.asarray(host, device=device)

        def call(f=jitted, u=u, v=v, mode=mode):
            # Each call picks its specialisation by the mode in force.
            previous = _spirjit._prange_coalesce(mode)
            try:
                f(u, v)
            finally:
                _spirjit._prange_coalesce(previous)
        call()
        np.testing.assert_allclose(v.asnumpy(), want, rtol=1e-6)
        forms.append((label, call, sync))

    if device.backend == "cuda":
        try:
            import cupy as cp
            cp.cuda.Device(device.filter_string.rsplit(":", 1)[1]).use()
            kernel = cp.RawKernel(RAW_JACOBI, "k")
            cu, cv = cp.asarray(host), cp.asarray(host)
            grid = ((n - 2 + 31) // 32, (n - 2 + 7) // 8)
            raw_args = (cu, cv, np.int64(n), np.int64(n))
            kernel(grid, (32, 8), raw_args)
            np.testing.assert_allclose(cp.asnumpy(cv), want, rtol=1e-6)
            forms.insert(0, ("CuPy RawKernel",
                             lambda: kernel(grid, (32, 8), raw_args),
                             cp.cuda.Device().synchronize))
        except ImportError:
            print("CuPy is missing: no RawKernel row")

    samples = {label: [] for label, _, _ in forms}
    for run, wait in ((run, wait) for _, run, wait in forms):
        for _ in range(3):
            run()
        wait()
    for _ in range(args.reps):
        for label, run, wait in forms:
            wait_until_quiet()  # no other form's threads still spin
            start = time.perf_counter()
            run()
            wait()
            samples[label].append(time.perf_counter() - start)

    reference = forms[0][0]
    base = statistics.median(samples[reference])
    print(f"Jacobi sweep {n}^2 float32 on {device.name} ({device.filter_string}),"
          f" medians of {args.reps}, ratio to {reference}")
    print(f"{'form':<44} {'ms':>9} {'ratio':>7}")
    for label, _, _ in forms:
        t = statistics.median(samples[label])
        print(f"{label:<44} {t * 1e3:9.3f} {t / base:7.2f}")


if __name__ == "__main__":
    main()
