#!/bin/sh
# Stages what spirjit needs on a machine with an NVIDIA GPU and no LLVM 15
# (Ubuntu 24.04 with the driver and Python 3.12): run HERE, after a build;
# scripts/gpu-setup.sh unpacks and runs it THERE.
#
#   scripts/stage-gpu.sh [BUILD_DIR] [OUT_DIR]      (default: build, .gpu)
#
# OUT_DIR gets:
#   src/    the working tree (tracked and untracked files git does not ignore)
#   lib/    libspirjit_core.so: the C++ core (frontend, compiler, runtime,
#           launcher) linked from BUILD_DIR's static libraries; only the
#           pybind11 module is compiled there, against its Python
#   debs/   Debian's runtime packages of what the core links: libllvm15,
#           libllvmspirvlib15, libz3-4 (for libLLVM), libze1 and
#           ocl-icd-libopencl1; `dpkg -x` unpacks them there
# It prints the total size: a device-tool run carries at most 64 MiB.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out=${2:-$root/.gpu}
rm -rf "$out"
mkdir -p "$out/src" "$out/lib" "$out/debs"

(cd "$root" && git ls-files -z --cached --others --exclude-standard |
   xargs -0 tar -cf - 2>/dev/null) | tar -xf - -C "$out/src"

# The static libraries are position-independent (CMAKE_POSITION_INDEPENDENT_CODE).
g++ -shared -o "$out/lib/libspirjit_core.so" -Wl,-soname,libspirjit_core.so \
  -Wl,--whole-archive "$build/launch/libspirjit_launch.a" \
  "$build/compiler/libspirjit_compiler.a" "$build/runtime/libspirjit_runtime.a" \
  "$build/frontend/libspirjit_frontend.a" -Wl,--no-whole-archive \
  /usr/lib/x86_64-linux-gnu/libSPIRV-Tools.a -L/usr/lib/llvm-15/lib -lLLVM-15 \
  -lLLVMSPIRVLib -lOpenCL -lze_loader -ldl -lrt
strip --strip-debug "$out/lib/libspirjit_core.so"

(cd "$out/debs" && apt-get download libllvm15 libllvmspirvlib15 libz3-4 \
   libze1 ocl-icd-libopencl1 >/dev/null)
du -sh "$out" "$out"/*
