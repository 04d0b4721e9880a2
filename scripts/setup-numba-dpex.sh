#!/usr/bin/env bash
# Makes the numba-dpex venv that benchmarks/bench_prange.py compares against
# (its "numba-dpex dpjit" column), from PyPI with the machine's python3:
#
#   scripts/setup-numba-dpex.sh [VENV]      (default .peer/numba-dpex)
#
# numba-dpex 0.23 is the last release and needs numpy 1 and numba 0.59, so it
# gets a venv of its own, never .venv (spirjit's, numpy 2) nor the system's
# packages. The pins are the set known to run on Intel's CPU OpenCL runtime
# here (docs: benchmarks/README.md); later dpctl/dpnp or 2025 runtimes do not
# load with this numba-dpex. About 1 GB is downloaded (2.8 GB installed), so
# the README's test command does not run this.
#
# Writes VENV/env.sh, the environment numba-dpex needs, to source before
# running VENV/bin/python:
#   - LD_LIBRARY_PATH=VENV/lib: dpctl's library search paths in the wheels are
#     a build machine's placeholders;
#   - OCL_ICD_VENDORS=VENV/etc/OpenCL/vendors, holding an .icd file naming the
#     venv's libintelocl.so (the shipped .icd names a build machine's path);
#   - ONEAPI_DEVICE_SELECTOR=opencl:cpu: the only SYCL device here;
#   - CL_CONFIG_CPU_TARGET_ARCH=skx on CPUs with AVX-512 only: there the
#     2024.2 runtime's own CPU detection picks code the CPU cannot run, while
#     on CPUs without AVX-512 (AMD EPYC here) skx code dies of an illegal
#     instruction and the runtime's own choice runs.
# Idempotent: a venv whose numba-dpex already runs a prange is kept (env.sh
# is rewritten every time, so a venv moved to another CPU gets its setting).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${1:-$root/.peer/numba-dpex}
mkdir -p "$(dirname "$venv")"
venv=$(cd "$(dirname "$venv")" && pwd)/$(basename "$venv")
python=${SPIRJIT_PYTHON_FOR_VENV:-python3}

packages=(numba-dpex==0.23.0 numba==0.59.1 llvmlite==0.42.0 numpy==1.26.4
  dpctl==0.17.0 dpnp==0.15.0 dpcpp-cpp-rt==2024.2.1 intel-sycl-rt==2024.2.1
  intel-cmplr-lib-rt==2024.2.1 intel-opencl-rt==2024.2.1
  intel-openmp==2024.2.1 dpcpp-llvm-spirv==2024.2.0)

write_env() {
  local arch="unset CL_CONFIG_CPU_TARGET_ARCH"
  if grep -qw avx512f /proc/cpuinfo; then
    arch="export CL_CONFIG_CPU_TARGET_ARCH=skx"
  fi
  mkdir -p "$venv/etc/OpenCL/vendors"
  echo "$venv/lib/libintelocl.so" >"$venv/etc/OpenCL/vendors/intel-cpu.icd"
  cat >"$venv/env.sh" <<EOF
# Source before running $venv/bin/python (written by scripts/setup-numba-dpex.sh).
export LD_LIBRARY_PATH="$venv/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
export OCL_ICD_VENDORS="$venv/etc/OpenCL/vendors"
export ONEAPI_DEVICE_SELECTOR=opencl:cpu
$arch
EOF
}

# Runs a float32 prange on the device (an import is not enough: a wrong
# target architecture shows only when vectorised kernel code runs; a float64
# loop of 10 elements passes with skx here), in an environment empty but for
# PATH and HOME, so that spirjit's OCL_ICD_VENDORS or PYTHONPATH cannot leak
# into the check.
check='
import dpnp
from numba_dpex import dpjit, prange

@dpjit
def add(a, b, c):
    for i in prange(a.shape[0]):
        c[i] = a[i] + b[i]

a = dpnp.ones(4096, dtype=dpnp.float32)
c = dpnp.empty_like(a)
add(a, a, c)
assert float(c.sum()) == 8192
'
works() {
  [ -x "$venv/bin/python" ] && [ -f "$venv/env.sh" ] &&
    env -i PATH="$PATH" HOME="$HOME" bash -c \
      ". '$venv/env.sh' && exec '$venv/bin/python' -W ignore -" \
      <<<"$check" >/dev/null 2>&1
}

if [ -f "$venv/lib/libintelocl.so" ]; then
  write_env
fi
if works; then
  echo "== $venv already runs numba-dpex"
else
  if [ ! -x "$venv/bin/python" ]; then
    echo "== creating $venv with $($python --version)"
    "$python" -m venv "$venv"
  fi
  echo "== installing numba-dpex 0.23 and its pinned stack (about 1 GB)"
  "$venv/bin/python" -m pip install -q --upgrade pip
  "$venv/bin/python" -m pip install -q "${packages[@]}"
  if [ ! -f "$venv/lib/libintelocl.so" ]; then
    echo "error: $venv/lib/libintelocl.so missing after install" >&2
    exit 1
  fi
  write_env
  if ! works; then
    echo "error: numba-dpex does not run a prange here; to see why:" >&2
    echo "  (. $venv/env.sh && $venv/bin/python -c '$check')" >&2
    exit 1
  fi
fi
(. "$venv/env.sh" && "$venv/bin/python" -c 'import numba_dpex, dpnp, dpctl, numba
print("numba-dpex", numba_dpex.__version__, "dpnp", dpnp.__version__,
      "dpctl", dpctl.__version__, "numba", numba.__version__)')
echo "== to use it: . $venv/env.sh && $venv/bin/python ..."
