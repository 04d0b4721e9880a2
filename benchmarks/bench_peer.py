#!/usr/bin/env python3
"""x.to_device(other_gpu) between two GPUs of one process (issue 30):
spirjit's device-to-device copy (peer access where the driver allows it)
beside the same bytes staged through the host (asnumpy, then asarray) and
CuPy's peer copy, where CuPy is installed. Medians of R runs, each
synchronised by reading one element back on the target.

    python benchmarks/bench_peer.py [--mb MB] [--runs R]
"""

import argparse

import numpy as np

import spirjit
from timing import median_ms


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=256)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    gpus = [d for d in spirjit.devices() if d.backend == "cuda"]
    if len(gpus) < 2:
        print("needs two CUDA GPUs; found", len(gpus))
        return
    n = args.mb * 2**20 // 4
    x = spirjit.asarray(np.arange(n, dtype=np.float32), device=gpus[0])

    def direct():
        y = x.to_device(gpus[1])
        float(y[-1])

    def staged():
        y = spirjit.asarray(x.asnumpy(), device=gpus[1])
        float(y[-1])

    rows = [("to_device (spirjit)", median_ms(direct, args.runs)),
            ("asnumpy + asarray (staged)", median_ms(staged, args.runs))]
    y = x.to_device(gpus[1])
    assert np.array_equal(y.asnumpy()[:: 2**16], x.asnumpy()[:: 2**16])
    try:
        import cupy
        with cupy.cuda.Device(0):
            c = cupy.arange(n, dtype=cupy.float32)

        def cupy_peer():
            with cupy.cuda.Device(1):
                d = cupy.empty_like(c)
                d.data.copy_from_device(c.data, c.nbytes)
                float(d[-1])
        rows.append(("cupy peer copy", median_ms(cupy_peer, args.runs)))
    except ImportError:
        pass
    print(f"{args.mb} MB, {gpus[0]} -> {gpus[1]}, medians of {args.runs}")
    print(f"{'copy':30s} {'ms':>8s} {'GB/s':>8s}")
    for name, ms in rows:
        print(f"{name:30s} {ms:8.3f} {args.mb * 2**20 / ms / 1e6:8.1f}")


if __name__ == "__main__":
    main()
