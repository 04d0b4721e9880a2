"""The Laplace MPI solver on GPUs: time per sweep on 1, 2, 4... GPUs of one
host (strong and weak scaling) beside the memory floor of one sweep on the
same card (a device-to-device copy of the grid: one read and one write, as
a sweep needs), and the single-process versions of examples/laplace on one
GPU. Prints Markdown tables.

    python benchmarks/bench_mpi.py [--ny 8192] [--sweeps 200]
                                   [--check-every 50] [--gpus N]

Needs mpirun, mpi4py and CUDA GPUs (one rank per GPU, spirjit.mpi's path
chosen as by default: NCCL where it loads). Strong scaling: one grid of
(ny + 2) x ny split over the ranks; weak: ny rows per rank.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "examples", "laplace"))
sys.path.insert(0, os.path.join(ROOT, "tests", "mpi"))

import launch  # noqa: E402
import table  # noqa: E402

import numpy as np  # noqa: E402

import spirjit  # noqa: E402


def copy_floor(nx, ny, device, reps=20):
    """Median seconds of a device-to-device copy of an nx x ny float64
    grid (spirjit's, and CuPy's where it is installed)."""
    u = spirjit.asarray(np.zeros((nx, ny)), device=device)
    times = []
    for _ in range(reps + 2):
        spirjit.synchronize(device)
        start = time.perf_counter()
        v = u.copy()
        spirjit.synchronize(device)
        times.append(time.perf_counter() - start)
        del v
    floors = {"spirjit copy": statistics.median(times[2:])}
    try:
        import cupy
        with cupy.cuda.Device(device.filter_string.rsplit(":", 1)[1]):
            a = cupy.zeros((nx, ny))
            times = []
            for _ in range(reps + 2):
                cupy.cuda.runtime.deviceSynchronize()
                start = time.perf_counter()
                b = a.copy()
                cupy.cuda.runtime.deviceSynchronize()
                times.append(time.perf_counter() - start)
                del b
            floors["CuPy copy"] = statistics.median(times[2:])
    except ImportError:
        pass
    return floors


def mpi_seconds(ranks, nx, ny, sweeps, check_every, repeats=2):
    """The best of ``repeats`` runs' seconds per sweep and the path."""
    best, path = float("inf"), "?"
    for _ in range(repeats):
        command, env = launch.mpirun(
            ranks, [os.path.join(ROOT, "examples", "laplace",
                                 "laplace_mpi.py"),
                    str(nx), str(ny), "--sweeps", str(sweeps), "--time",
                    "--check-every", str(check_every),
                    "--devices", "cuda:gpu"])
        env.pop("SPIRJIT_DEVICE", None)
        out = subprocess.run(command, env=env, capture_output=True,
                             text=True, timeout=600)
        if out.returncode != 0:
            raise SystemExit(out.stdout + out.stderr)
        best = min(best, float(re.search(r"seconds per sweep: (\S+)",
                                         out.stdout).group(1)))
        path = re.search(r"\(path (\w+)\)", out.stdout).group(1)
    return best, path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ny", type=int, default=8192)
    parser.add_argument("--sweeps", type=int, default=200)
    parser.add_argument("--check-every", type=int, default=50)
    parser.add_argument("--gpus", type=int, default=None)
    parser.add_argument("--single", default="kernel,device_array,dpjit,numpy",
                        help="single-process versions to time")
    args = parser.parse_args(argv)
    gpus = [d for d in spirjit.devices() if d.backend == "cuda"]
    if not gpus or launch.why_not():
        print(f"(not run: needs CUDA GPUs and MPI; {launch.why_not()})")
        return
    count = len(gpus) if args.gpus is None else min(args.gpus, len(gpus))
    ny = args.ny
    nx = ny + 2
    gpu = gpus[0]
    floors = copy_floor(nx, ny, gpu)
    floor = min(floors.values())
    print(f"Laplace {nx}x{ny} float64 on {gpu.name}: one sweep's memory "
          "floor (a device-to-device copy of the grid): "
          + ", ".join(f"{k} {v * 1e3:.3f} ms" for k, v in floors.items())
          + "\n")
    print("| version | ms per sweep | x floor |")
    print("|---|---|---|")
    for version in args.single.split(","):
        sweeps = 2 if version == "numpy" else 20
        options = {} if version == "numpy" else {"device": gpu.filter_string}
        seconds = table.time_per_sweep(version, ny, sweeps, **options)
        print(f"| single process: {version} | {seconds * 1e3:.3f} | "
              f"{seconds / floor:.2f}x |")
    strong, weak = [], []
    ranks = [r for r in (1, 2, 4, 8) if r <= count]
    for r in ranks:
        strong.append(mpi_seconds(r, nx, ny, args.sweeps, args.check_every))
        weak.append(mpi_seconds(r, ny * r + 2, ny, args.sweeps,
                                args.check_every) if r > 1 else strong[0])
    print(f"\nMPI solver, one rank per GPU, residual checked every "
          f"{args.check_every} sweeps ({args.sweeps} timed sweeps, best of "
          "2 runs)\n")
    print(f"| GPUs | path | strong {nx}x{ny}: ms per sweep | speed-up | "
          f"x floor | weak {ny} rows per GPU: ms per sweep | efficiency |")
    print("|---|---|---|---|---|---|---|")
    for k, r in enumerate(ranks):
        (s, path), (w, _) = strong[k], weak[k]
        print(f"| {r} | {path} | {s * 1e3:.3f} | {strong[0][0] / s:.2f}x | "
              f"{s / floor:.2f}x | {w * 1e3:.3f} | "
              f"{weak[0][0] / w * 100:.0f}% |")


if __name__ == "__main__":
    main()
