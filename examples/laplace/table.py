"""The paper's table: time per sweep of each Laplace version and its speed-up
over pure Python, for a grid size from the command line.

    python examples/laplace/table.py 500 [--sweeps 20] [--device opencl:cpu:0]

Each version first runs two sweeps untimed (compiles and caches warm up),
then `--sweeps` timed sweeps; pure Python runs fewer sweeps on large grids
(its time per sweep does not depend on how many).
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import laplace  # noqa: E402


def time_per_sweep(version, n, sweeps, **options):
    solver = laplace.VERSIONS[version](laplace.initial_grid(n, n), **options)
    solver.sweep()
    solver.sweep()
    start = time.perf_counter()
    for _ in range(sweeps):
        solver.sweep()
    return (time.perf_counter() - start) / sweeps


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int, help="grid points per side")
    parser.add_argument("--sweeps", type=int, default=20)
    parser.add_argument("--device", default=None,
                        help="spirjit device filter (default: the default "
                             "device)")
    args = parser.parse_args()
    device = {"device": args.device}
    rows = []
    python_sweeps = max(1, min(args.sweeps, 2_000_000 // (args.n * args.n)))
    rows.append(("python", time_per_sweep("python", args.n, python_sweeps)))
    rows.append(("numpy", time_per_sweep("numpy", args.n, args.sweeps)))
    rows.append(("kernel", time_per_sweep("kernel", args.n, args.sweeps,
                                          **device)))
    rows.append(("device_array", time_per_sweep("device_array", args.n,
                                                args.sweeps, **device)))
    rows.append(("dpjit", time_per_sweep("dpjit", args.n, args.sweeps,
                                         **device)))
    import spirjit
    name = spirjit.Device(args.device or "").name if args.device else \
        spirjit.default_device().name
    print(f"Laplace, {args.n}x{args.n} grid, device: {name}")
    print(f"{'version':<14}{'s/sweep':>12}{'speed-up':>10}")
    base = rows[0][1]
    for version, seconds in rows:
        print(f"{version:<14}{seconds:>12.3e}{base / seconds:>10.1f}")


if __name__ == "__main__":
    main()
