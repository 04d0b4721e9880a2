#!/usr/bin/env python3
"""What a DeviceArray's usm_type costs: "device", "shared" and "host"
memory side by side, on one device (issue 16's usm_type).

For each kind, medians of R runs (each synchronised by reading one
element back):

  kernel    ms of one elementwise kernel (out[i] = a[i] * 2 + 1) over
            N float32, its arrays all of the kind; GB/s of the 8 bytes
            moved per element
  expr      ms of the array expression a * 2.0 + 1.0 on DeviceArrays of
            the kind (two launches, one temporary)
  asnumpy   ms of a.asnumpy() (the copy back to the host)
  asarray   ms of spirjit.asarray(host, usm_type=kind) (the copy in)

On NVIDIA GPUs the three kinds are three placements (device memory,
managed memory, pinned host memory); on the CPU runtimes, OpenCL and Level
Zero they are one memory, and the rows should agree.

    python benchmarks/bench_usm.py [--device FILTER] [--n N] [--runs R]
"""

import argparse

import numpy as np

import spirjit
from timing import median_ms
from spirjit import kernel_api as kapi


@spirjit.kernel
def affine(item: kapi.Item, a, out):
    i = item.get_id(0)
    out[i] = a[i] * np.float32(2) + np.float32(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default=None)
    parser.add_argument("--n", type=int, default=1 << 24)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    device = spirjit.Device(args.device) if args.device else \
        spirjit.default_device()
    n = args.n
    host = np.random.default_rng(0).random(n, dtype=np.float32)
    print(f"usm_type on {device.name} ({device.filter_string}), "
          f"n = {n} float32, medians of {args.runs} runs\n")
    header = f"{'usm_type':<9}{'kernel ms':>11}{'GB/s':>8}{'expr ms':>10}" \
             f"{'asnumpy ms':>12}{'asarray ms':>12}"
    print(header)
    print("-" * len(header))
    for kind in ("device", "shared", "host"):
        a = spirjit.asarray(host, device=device, usm_type=kind)
        out = spirjit.empty_like(a)
        assert out.usm_type == kind

        def launch():
            spirjit.call_kernel(affine, spirjit.Range(n), a, out)
            out[0:1].asnumpy()

        def expression():
            (a * 2.0 + 1.0)[0:1].asnumpy()

        kernel = median_ms(launch, args.runs)
        np.testing.assert_allclose(out.asnumpy()[:4], host[:4] * 2 + 1,
                                   rtol=1e-6)
        expr = median_ms(expression, args.runs)
        back = median_ms(a.asnumpy, args.runs)
        into = median_ms(lambda: spirjit.asarray(host, device=device,
                                                 usm_type=kind), args.runs)
        gbs = 8 * n / (kernel * 1e-3) / 1e9
        print(f"{kind:<9}{kernel:>11.3f}{gbs:>8.1f}{expr:>10.3f}"
              f"{back:>12.3f}{into:>12.3f}")


if __name__ == "__main__":
    main()
