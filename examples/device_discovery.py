"""The heterogeneous-Python article's three questions, answered with spirjit:
which devices are there, how does data get onto one, and how does work run
there.

    python examples/device_discovery.py
"""
import numpy as np

import spirjit
from spirjit import kernel_api as kapi


@spirjit.kernel
def scale(item: kapi.Item, x, factor, out):
    i = item.get_id(0)
    out[i] = x[i] * factor


def main():
    # 1. Find devices: every device, with what it can do.
    devices = spirjit.devices()
    print(f"{len(devices)} device(s); the default is "
          f"{spirjit.default_device().filter_string}")
    for d in devices:
        print(f"  [{d.filter_string}] {d.name}: {d.compute_units} compute "
              f"units, work-groups up to {d.max_work_group_size}, "
              f"{d.global_mem_size / 2**30:.1f} GiB, fp64 "
              f"{'yes' if d.has_fp64 else 'no'}, memory shared with the "
              f"host {'yes' if d.host_unified_memory else 'no'}")

    for d in devices:
        # 2. Place data: a DeviceArray lives on one device.
        x = spirjit.asarray(np.arange(8, dtype=np.float32), device=d)
        # 3. Offload work: kernels and array arithmetic run where x lives.
        y = spirjit.empty_like(x)
        spirjit.call_kernel(scale, kapi.Range(x.size), x, np.float32(3), y)
        z = np.sqrt(y) + 1
        print(f"  on {d.filter_string}: y = 3x -> {np.asarray(y)}, "
              f"sum(sqrt(y) + 1) = {float(z.sum()):.3f} "
              f"(result on {z.device.filter_string})")


if __name__ == "__main__":
    main()
