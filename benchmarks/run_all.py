#!/usr/bin/env python3
"""Runs every benchmark (each bench_*.py's BENCHMARKS) in one process.

The BENCHMARKS of bench_vecadd.py come first, then those of the other
benchmarks/bench_*.py (Black-Scholes, ...) in file-name order: one table
each, with one host / device header and one versions line.

    python benchmarks/run_all.py [--n N] [--reps R] [--warmup W]
                                 [--max-ratio X] [--strict] [--png-dir DIR]

Each benchmark runs at its own default size unless --n is given (then all
use N).  Exit status: 0, or 1 if any backend produced a wrong result (or,
with --strict, if any spirjit check line says no).
"""

import glob
import importlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# spirjit's own native CPU device gets its rows beside the OpenCL runtimes'
# (it is listed only when opted in; the default device stays the same).
os.environ.setdefault("SPIRJIT_NATIVE", "1")


_SKIPPED = set()


def _import(name):
    """The module, or None when it needs what this machine lacks
    (bench_cuda.py: CuPy and an NVIDIA GPU), said once."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        if name not in _SKIPPED:
            _SKIPPED.add(name)
            print(f"{name}.py skipped: {exc}")
        return None


def collect():
    """[(module name, Benchmark)] from every bench_*.py next to this file."""
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    found, seen = [], set()
    names = [os.path.splitext(os.path.basename(p))[0]
             for p in glob.glob(os.path.join(HERE, "bench_*.py"))]
    for name in sorted(names, key=lambda m: (m != "bench_vecadd", m)):
        module = _import(name)
        if module is None:
            continue
        for bench in getattr(module, "BENCHMARKS", []):
            if id(bench) not in seen:
                seen.add(id(bench))
                found.append((name, bench))
    return found


def standalone():
    """Reports that are not throughput tables (bench_dispatch.py's launch
    overhead and cache timings): each module's STANDALONE functions."""
    names = sorted(os.path.splitext(os.path.basename(p))[0]
                   for p in glob.glob(os.path.join(HERE, "bench_*.py")))
    modules = [m for m in map(_import, names) if m is not None]
    return [fn for m in modules for fn in getattr(m, "STANDALONE", [])]


def main(argv=None):
    benchmarks = collect()
    from bench_vecadd import run_main
    header = "benchmarks: " + ", ".join(f"{b.name} ({m}.py)"
                                        for m, b in benchmarks)
    status = run_main([b for _, b in benchmarks], argv,
                      __doc__.splitlines()[0], header=header)
    # --png-dir reaches the standalone reports too (each takes what it
    # knows of the command line).
    extra = []
    argv_list = list(sys.argv[1:] if argv is None else argv)
    if "--png-dir" in argv_list:
        i = argv_list.index("--png-dir")
        extra = argv_list[i:i + 2]
    for report in standalone():
        print()
        report(extra)
    return status


if __name__ == "__main__":
    sys.exit(main())
