#!/usr/bin/env python3
"""What debug checks cost: vecadd and the tiled matmul, checked and not.

Kernels (the same Python functions each time, compiled three ways):
  vecadd     c = a + b, 2**22 float32 (bench_vecadd.py's kernel)
  matmul     C = A @ B, 512 x 512 float32, 16 x 16 tiles in local memory
             (bench_kernel_api.py's kernel)
  launch     vecadd of 64 elements: what checks add to a launch (zeroing
             and reading back the debug record), in microseconds

Rows, once per CPU OpenCL runtime present ([Intel], [PoCL]):
  unchecked       @spirjit.kernel
  boundscheck     @spirjit.kernel(boundscheck=True)
  debug           @spirjit.kernel(debug=True)

All on DeviceArrays, timed in interleaved rounds (bench_vecadd.py's
run_benchmark), each result checked against NumPy before and after timing.
The ratio column is the row's median over the unchecked row's on the same
runtime, the last column their difference; the user guide's "What the
checks cost" quotes them.

    python benchmarks/bench_checks.py [--reps R] [--warmup W] [--max-ratio X]

Exit status: 0, or 1 if a row computed a wrong result (with --strict, also
if a checked row is slower than --max-ratio x its unchecked row).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys

import numpy as np

from bench_kernel_api import (make_spirjit_matmul, matmul_check,
                              matmul_inputs, matmul_reference,
                              spirjit_matmul_launch)
from bench_vecadd import (Backend, Benchmark, Case, Span, Unavailable,
                          _import_spirjit, cpu_runtimes, make_spirjit_vecadd,
                          print_table, reason, run_benchmark,
                          spirjit_device_kept, vecadd_inputs,
                          vecadd_reference, versions_line)

# (row label, spirjit.kernel keywords)
MODES = (("unchecked", {}), ("boundscheck", {"boundscheck": True}),
         ("debug", {"debug": True}))


def compiled(make, options):
    """The kernel make() builds, recompiled with options (a new object, so
    nothing is shared with another row)."""
    spirjit, kapi = _import_spirjit()
    return spirjit.kernel(make(spirjit, kapi).py_func, **options)


def vecadd_setup(options):
    def setup(inputs, dtype):
        spirjit, kapi = _import_spirjit()
        try:
            kern = compiled(make_spirjit_vecadd, options)
            da, db = spirjit.asarray(inputs["a"]), spirjit.asarray(inputs["b"])
            dc = spirjit.asarray(np.zeros_like(inputs["a"]))
            rng = kapi.Range(inputs["a"].size)
        except Exception as exc:
            raise Unavailable(reason(exc)) from exc

        def run():
            spirjit.call_kernel(kern, rng, da, db, dc)

        run()
        return Case(run=run, result=lambda: spirjit.asnumpy(dc))
    return setup


def matmul_setup(options):
    def setup(inputs, dtype):
        try:
            kern = compiled(make_spirjit_matmul, options)
        except Exception as exc:
            raise Unavailable(reason(exc)) from exc
        run, result = spirjit_matmul_launch(kern, inputs, dtype)
        run()
        return Case(run=run, result=result)
    return setup


def benchmarks(runtimes):
    """Each kernel's rows, every mode on every runtime, as Benchmarks that
    run_benchmark times (labels "boundscheck [PoCL]")."""
    def rows(make_setup):
        out = []
        for name, device_filter in runtimes:
            for label, options in MODES:
                out.append(Backend(f"{label} [{name}]",
                                   on_device(make_setup(options), device_filter)))
        return out

    return [
        Benchmark("vecadd", vecadd_inputs, vecadd_reference,
                  rows(vecadd_setup), dtypes=(np.float32,), n=2 ** 22),
        Benchmark("tiled matmul", matmul_inputs, matmul_reference,
                  rows(matmul_setup), dtypes=(np.float32,), n=512 * 512,
                  check=matmul_check),
        Benchmark("launch (vecadd of 64)", vecadd_inputs, vecadd_reference,
                  rows(vecadd_setup), dtypes=(np.float32,), n=64),
    ]


def on_device(setup, device_filter):
    """setup and its runs on one device (SPIRJIT_DEVICE picks it)."""
    def wrapped(inputs, dtype):
        os.environ["SPIRJIT_DEVICE"] = device_filter
        case = setup(inputs, dtype)
        inner = case.run

        def run():
            os.environ["SPIRJIT_DEVICE"] = device_filter
            return inner()

        case.run = run
        return case
    return wrapped


def report(bench, results, runtimes, reps, warmup, max_ratio, judged):
    """Prints the table; returns (within max_ratio where judged, any wrong
    result)."""
    print(f"\n== {bench.name}: n = {bench.n}, float32, median of {reps} runs "
          f"after {warmup} warm-up runs, rows interleaved")
    headers = ["kernel", "median ms", "min ms", "/ unchecked", "+ us"]
    rows, ok, wrong = [], True, False
    for name, _ in runtimes:
        base = results[f"unchecked [{name}]"]["float32"]
        for label, _ in MODES:
            cell = results[f"{label} [{name}]"]["float32"]
            row_label = f"{label} [{name}]"
            if cell.error:
                rows.append([row_label, Span(cell.error)])
                wrong |= cell.error.startswith("WRONG")
                ok = False
                continue
            ratio = cell.median / base.median if base.median else None
            if ratio is not None and label != "unchecked" and judged:
                ok &= ratio <= max_ratio
            rows.append([row_label, f"{cell.median * 1e3:.3f}",
                         f"{cell.best * 1e3:.3f}",
                         f"{ratio:.2f}x" if ratio is not None else "n/a",
                         f"{(cell.median - base.median) * 1e6:+.0f}"])
    print_table(headers, rows)
    return ok, wrong


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=20, help="timed repetitions")
    p.add_argument("--warmup", type=int, default=3, help="untimed runs first")
    p.add_argument("--max-ratio", type=float, default=1.5,
                   help="checked / unchecked threshold for the check line")
    p.add_argument("--strict", action="store_true",
                   help="exit 1 unless every checked row is within "
                   "--max-ratio")
    args = p.parse_args(argv)
    print(f"host: {platform.node()}, {os.cpu_count()} logical CPUs, "
          f"{platform.machine()}; load average "
          + ", ".join(f"{x:.2f}" for x in os.getloadavg()))
    runtimes = [(n, f) for n, f in cpu_runtimes() if f is not None]
    if not runtimes:
        print("no CPU OpenCL runtime that spirjit sees: nothing to time")
        return 1
    print("runtimes: " + ", ".join(f"[{n}] {f}" for n, f in runtimes))
    all_ok, any_wrong = True, False
    with spirjit_device_kept():
        for bench in benchmarks(runtimes):
            results = run_benchmark(bench, bench.n, args.reps, args.warmup)
            # A launch of 64 work-items measures a fixed cost, not a ratio.
            ok, wrong = report(bench, results, runtimes, args.reps,
                               args.warmup, args.max_ratio,
                               judged=bench.n > 64)
            all_ok &= ok
            any_wrong |= wrong
    print(f"checked / unchecked <= {args.max_ratio:g} on vecadd and matmul: "
          f"{'yes' if all_ok else 'no'}")
    print(versions_line())
    return 1 if any_wrong or (args.strict and not all_ok) else 0


if __name__ == "__main__":
    sys.exit(main())
