#!/bin/bash
# On a machine with an NVIDIA GPU (Ubuntu 24.04, driver, Python 3.12 with
# NumPy, pybind11 and pytest; no LLVM 15): sets spirjit up from what
# scripts/stage-gpu.sh staged, then runs the pytest suite on every device
# spirjit finds there (the CUDA GPU and any OpenCL device such as PoCL).
#
#   bash .gpu/src/scripts/gpu-setup.sh [pytest arguments]   (default: tests/python)
#
# Prints the environment to use afterwards, then pytest's pass/fail counts.
set -u
staged=$(cd "$(dirname "$0")/../.." && pwd)
prefix=${SPIRJIT_PREFIX:-/tmp/spirjit-prefix}
mkdir -p "$prefix"
for deb in "$staged"/debs/*.deb; do dpkg -x "$deb" "$prefix"; done
export LD_LIBRARY_PATH="$staged/lib:$prefix/usr/lib/x86_64-linux-gnu:$prefix/usr/lib/llvm-15/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

cd "$staged/src"
suffix=$(python3 -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
module="python/spirjit/_spirjit$suffix"
if [ ! -e "$module" ]; then
  objects=()
  for source in python/bindings/*.cpp; do
    object="/tmp/$(basename "$source" .cpp).o"
    g++ -O2 -g0 -std=c++17 -fPIC -fvisibility=hidden -I. \
      $(python3 -m pybind11 --includes) -c "$source" -o "$object" &
    objects+=("$object")
  done
  wait
  g++ -shared -o "$module" "${objects[@]}" -L"$staged/lib" -lspirjit_core \
    -Wl,-rpath,"$staged/lib" || exit 1
fi
export PYTHONPATH="$staged/src/python${PYTHONPATH:+:$PYTHONPATH}"
echo "export LD_LIBRARY_PATH=$LD_LIBRARY_PATH PYTHONPATH=$PYTHONPATH"
python3 -c "import spirjit; print(*spirjit.devices(), sep='\n')" || exit 1
[ "${SPIRJIT_SETUP_ONLY:-0}" = 1 ] && exit 0
python3 -m pytest -q -p no:cacheprovider -rfE "${@:-tests/python}"
