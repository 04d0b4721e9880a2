"""spirjit-devices: lists every device spirjit can launch on, with its
filter string and what the heterogeneous-Python article's programs print
(platform and driver version, compute units, work-group and sub-group
sizes, memories, fp16/fp64, images, memory shared with the host);
``--json`` prints the same as a JSON list for scripts."""
import argparse
import json
import sys

import spirjit


def _yes(flag):
    return "yes" if flag else "no"


def describe(d):
    """The lines spirjit-devices prints for device ``d``."""
    spirv = ("PTX" if d.backend == "cuda" else
             "host machine code (spirjit's own)" if d.backend == "native" else
             "SPIR-V" if d.supports_spirv else "SPIR 1.2 bitcode")
    sub_groups = ", ".join(map(str, d.sub_group_sizes)) or "not reported"
    return [
        f"[{d.filter_string}] {d.name}",
        f"    platform {d.platform} ({d.platform_version}); device "
        f"{d.version}; driver {d.driver_version or 'not reported'}",
        f"    type {d.device_type}, vendor {d.vendor}, programs from {spirv}",
        f"    compute units {d.compute_units or 'not reported'}; max "
        f"work-group {d.max_work_group_size}; sub-group sizes {sub_groups}",
        f"    global memory {d.global_mem_size / 2**30:.1f} GiB; local memory "
        f"{d.local_mem_size // 1024} KiB; memory shared with the host "
        f"{_yes(d.host_unified_memory)}",
        f"    fp16 {_yes(d.has_fp16)}; fp64 {_yes(d.has_fp64)}; 64-bit "
        f"atomics {_yes(d.has_atomic64)}; images {_yes(d.image_support)}",
    ]


def main(argv=None):
    parser = argparse.ArgumentParser(prog="spirjit-devices",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true",
                        help="print a JSON list of the devices' properties")
    args = parser.parse_args(argv)
    devices = spirjit.devices()
    try:
        default = spirjit.default_device()
    except spirjit.errors.SpirjitError:
        default = None
    if args.json:
        listing = []
        for d in devices:
            properties = d._device.properties()
            properties["sub_group_sizes"] = list(
                properties["sub_group_sizes"])
            properties["default"] = d == default
            listing.append(properties)
        print(json.dumps(listing, indent=2))
        return 0 if devices else 1
    if not devices:
        print("no devices: install an OpenCL driver such as "
              "pocl-opencl-icd, or an NVIDIA driver")
        return 1
    for d in devices:
        lines = describe(d)
        print(("* " if d == default else "  ") + lines[0])
        for line in lines[1:]:
            print(line)
    print("* the default device (SPIRJIT_DEVICE picks another)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
