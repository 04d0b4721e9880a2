"""spirjit-devices: lists every device spirjit can launch on, with its
filter string and capabilities (like sycl-ls or clinfo -l)."""
import sys

import spirjit


def main(argv=None):
    devices = spirjit.devices()
    if not devices:
        print("no devices: install an OpenCL driver such as "
              "pocl-opencl-icd, or an NVIDIA driver")
        return 1
    try:
        default = spirjit.default_device()
    except spirjit.errors.SpirjitError:
        default = None
    for d in devices:
        mark = "*" if d == default else " "
        spirv = ("PTX" if d.backend == "cuda" else
                 "SPIR-V" if d.supports_spirv else "SPIR 1.2 bitcode")
        print(f"{mark} [{d.filter_string}] {d.name} ({d.platform}, "
              f"{d.version})")
        print(f"    type {d.device_type}, vendor {d.vendor}, programs from "
              f"{spirv}; max work-group {d.max_work_group_size}; "
              f"fp64 {'yes' if d.has_fp64 else 'no'}; 64-bit atomics "
              f"{'yes' if d.has_atomic64 else 'no'}; global memory "
              f"{d.global_mem_size / 2**30:.1f} GiB; local memory "
              f"{d.local_mem_size // 1024} KiB")
    print("* the default device (SPIRJIT_DEVICE picks another)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
