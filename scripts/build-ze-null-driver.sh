#!/usr/bin/env bash
# Builds the Level Zero loader's null driver (libze_null.so.1) from Debian's
# `level-zero` source package, for testing a Level Zero backend without a GPU.
#
#   scripts/build-ze-null-driver.sh [SRC_DIR] [BUILD_DIR]
#
#   SRC_DIR    where `apt-get source level-zero` unpacks (default
#              build/level-zero-src); skipped when a tree is already there
#   BUILD_DIR  CMake build directory (default SRC_DIR/build)
#
# Needs root for apt on the first run only. Only the ze_null target is built.
# Progress goes to stderr; the one line on stdout is the path of
# libze_null.so.1, the name the loader dlopen()s when ZE_ENABLE_NULL_DRIVER=1:
#
#   lib=$(scripts/build-ze-null-driver.sh)
#   ZE_ENABLE_NULL_DRIVER=1 LD_LIBRARY_PATH=$(dirname "$lib") ./my_ze_program
#
# Idempotent: a second run neither touches apt nor reconfigures, and the build
# is a no-op.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
src_parent=${1:-$root/build/level-zero-src}
jobs=${SPIRJIT_JOBS:-2}
[ "$jobs" -gt 2 ] && jobs=2   # the machine is shared: at most two jobs
log() { echo "== $*" >&2; }

mkdir -p "$src_parent"
src_parent=$(cd "$src_parent" && pwd)
build_dir=${2:-$src_parent/build}

# The null driver must match the loader the tests load it into (libze1).
loader_version=$(dpkg-query -W -f='${Version}' libze1 2>/dev/null || true)
upstream_version=${loader_version#*:}
upstream_version=${upstream_version%-*}

find_tree() {
  local d best=
  for d in "$src_parent"/level-zero-*/; do
    [ -f "$d/source/drivers/null/CMakeLists.txt" ] || continue
    best=${d%/}
    [ -n "$upstream_version" ] && [ "$best" = "$src_parent/level-zero-$upstream_version" ] && break
  done
  echo "$best"
}

apt_install() {   # installs the Debian packages among "$@" that are missing
  local p missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing Debian packages: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

# Prints "URI<TAB>signed-by" of the first enabled source of type $1 for suite
# $2, component main, in the deb822 *.sources files or one-line *.list files.
find_source() {
  local type=$1 suite=$2 f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk -v type="$type" -v suite="$suite" '
      function has(list, w) { return (" " list " ") ~ (" " w " ") }
      BEGIN { RS = ""; FS = "\n" }
      {
        t = u = s = c = sb = ""; en = "yes"
        for (i = 1; i <= NF; i++) {
          if ($i ~ /^[ \t]*#/ || $i !~ /:/) continue
          k = tolower($i); sub(/:.*/, "", k); v = $i; sub(/^[^:]*:[ \t]*/, "", v)
          if (k == "types") t = v; else if (k == "uris") u = v
          else if (k == "suites") s = v; else if (k == "components") c = v
          else if (k == "signed-by") sb = v; else if (k == "enabled") en = tolower(v)
        }
        if (en != "no" && has(t, type) && has(s, suite) && has(c, "main")) {
          split(u, us, " "); print us[1] "\t" sb; exit
        }
      }' "$f"
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    awk -v type="$type" -v suite="$suite" '
      $1 == type {
        opts = ""; sb = ""; n = 2
        if ($2 ~ /^\[/) { while ($n !~ /\]$/) n++; for (i = 2; i <= n; i++) opts = opts " " $i; n++ }
        if (match(opts, /signed-by=[^] ]*/)) sb = substr(opts, RSTART + 10, RLENGTH - 10)
        if ($(n + 1) != suite) next
        for (i = n + 2; i <= NF; i++) if ($i == "main") { print $n "\t" sb; exit }
      }' "$f"
  done
}

src=$(find_tree)
if [ -z "$src" ]; then
  # shellcheck source=/dev/null
  . /etc/os-release
  suite=${VERSION_CODENAME:-bookworm}
  apt_install dpkg-dev   # dpkg-source unpacks what apt-get source fetches
  if [ -z "$(find_source deb-src "$suite" | head -1)" ]; then
    # Reuse the mirror (and keyring: apt refuses two Signed-By values for one
    # source) of the binary packages.
    IFS=$'\t' read -r uri signed_by < <(find_source deb "$suite" | head -1) || true
    uri=${uri:-http://deb.debian.org/debian}
    line="deb-src${signed_by:+ [signed-by=$signed_by]} $uri $suite main"
    log "adding /etc/apt/sources.list.d/spirjit-src.list: $line"
    echo "$line" > /etc/apt/sources.list.d/spirjit-src.list
  fi
  log "apt-get update"
  apt-get update -qq
  pkg=level-zero${upstream_version:+=$loader_version}
  log "apt-get source $pkg into $src_parent"
  if ! (cd "$src_parent" && apt-get source -qq "$pkg" >&2); then
    log "level-zero $loader_version not on the mirror; taking its current version"
    (cd "$src_parent" && apt-get source -qq level-zero >&2)
  fi
  src=$(find_tree)
  [ -n "$src" ] || { echo "no level-zero source tree in $src_parent" >&2; exit 1; }
fi

# Build-Depends is debhelper-compat + cmake; debhelper is for packaging only.
# The null driver needs CMake, a C++ compiler and a build tool.
need=()
command -v cmake >/dev/null || need+=(cmake)
command -v c++ >/dev/null || need+=(g++)
command -v ninja >/dev/null || command -v make >/dev/null || need+=(ninja-build)
[ ${#need[@]} -gt 0 ] && apt_install "${need[@]}"

if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  generator="Unix Makefiles"
  command -v ninja >/dev/null && generator=Ninja
  log "configuring $src in $build_dir"
  nice -n 10 cmake -S "$src" -B "$build_dir" -G "$generator" \
    -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
log "building target ze_null (-j$jobs)"
nice -n 10 cmake --build "$build_dir" --target ze_null -j "$jobs" >&2

lib="$build_dir/lib/libze_null.so.1"
[ -e "$lib" ] || { echo "build finished but $lib is missing" >&2; exit 1; }
echo "$lib"
