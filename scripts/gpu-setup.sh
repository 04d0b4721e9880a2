#!/bin/bash
# On a machine with an NVIDIA GPU (Ubuntu 24.04, driver, Python 3.12 with
# NumPy, pybind11 and pytest; no LLVM 15): sets spirjit up from what
# scripts/stage-gpu.sh staged, then runs the pytest suite on every device
# spirjit finds there (the CUDA GPU and any OpenCL device such as PoCL).
#
#   bash .gpu/src/scripts/gpu-setup.sh [pytest arguments]
#
# Prints the environment to use afterwards. With pytest arguments it runs
# pytest on them; without, it runs each tests/python/test_*.py file in a
# process of its own, SPIRJIT_TEST_JOBS (8) at a time, keeps each file's
# log in SPIRJIT_TEST_LOGS (/tmp/spirjit-tests), and prints the failures
# and the summed pass/fail counts; the exit status is 1 if any file failed.
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
[ $# -gt 0 ] && exec python3 -m pytest -q -p no:cacheprovider -rfE "$@"

# One process per file: a crash or a leaked context stays in its file.
logs=${SPIRJIT_TEST_LOGS:-/tmp/spirjit-tests}
rm -rf "$logs" && mkdir -p "$logs"
ls tests/python/test_*.py | xargs -P "${SPIRJIT_TEST_JOBS:-8}" -I{} sh -c \
  'python3 -m pytest -q -p no:cacheprovider -rfE "$1" >"$2/$(basename "$1" .py).log" 2>&1;
   echo "exit $?" >>"$2/$(basename "$1" .py).log"' _ {} "$logs"
python3 - "$logs" <<'SUMMARY'
import collections, glob, os, re, sys
totals, bad = collections.Counter(), []
for log in sorted(glob.glob(os.path.join(sys.argv[1], "*.log"))):
    lines = open(log, errors="replace").read().splitlines()
    name = os.path.basename(log)[:-4]
    counts = re.findall(r"(\d+) (passed|failed|skipped|xfailed|xpassed|errors?)",
                        next((l for l in reversed(lines)
                                             if re.search(r" in [\d.]+s", l)), ""))
    for number, kind in counts:
        totals[kind.rstrip("s") if kind.startswith("error") else kind] += int(number)
    print(f"{name}: {', '.join(n + ' ' + k for n, k in counts) or lines[-3:]}")
    bad += [f"{name}: {l}" for l in lines if l.startswith(("FAILED", "ERROR"))]
    if lines and lines[-1] not in ("exit 0", "exit 5") and not any(
            k in ("failed", "error", "errors") for _, k in counts):
        bad.append(f"{name}: {lines[-1]} without a pytest summary")
print(*bad, sep="\n")
print("TOTAL:", ", ".join(f"{v} {k}" for k, v in sorted(totals.items())))
sys.exit(1 if bad else 0)
SUMMARY
