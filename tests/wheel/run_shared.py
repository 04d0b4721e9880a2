"""ctest's wheel_shared: another user of a root-made installation finds the
devices (issue 27, item 4).

The wheel tier (run_wheel.py) leaves, as root, a venv holding the wheel
alone in a folder every user can read, and has run spirjit there once, so
the OpenCL vendors folder spirjit writes for Intel's runtime exists,
written by root. Here `spirjit-devices --json` from that venv runs as root
and then as the user `nobody` (whose home does not exist, so spirjit can
write no list of its own and must read root's), and both must list the
same devices. Then the folder goes: nothing runs it after this tier.

Prints "skipped: ..." and exits with SKIPPED (77), which ctest shows as
skipped, when not run as root, without a user `nobody`, without runuser or
setpriv, when the wheel tier made no venv, or when `nobody` cannot run the
venv's Python itself.
"""

import argparse
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile

SKIPPED = 77  # ctest's SKIP_RETURN_CODE for this tier
USER = "nobody"


def as_user(user):
    """The command prefix that runs a command as ``user``, or None."""
    if shutil.which("runuser"):
        return ["runuser", "-u", user, "--"]
    if shutil.which("setpriv"):
        entry = pwd.getpwnam(user)
        return ["setpriv", f"--reuid={entry.pw_uid}",
                f"--regid={entry.pw_gid}", "--clear-groups"]
    return None


def listing(command, cwd, pocl_cache):
    env = dict(os.environ)
    for name in ("PYTHONPATH", "OCL_ICD_VENDORS", "SPIRJIT_DEVICE",
                 "VIRTUAL_ENV"):
        env.pop(name, None)
    # PoCL lists no device without a cache folder it can write (its default
    # is under the home nobody lacks); spirjit's own fallback (~/.cache)
    # stays unwritable, so nobody must read what root wrote.
    env["POCL_CACHE_DIR"] = pocl_cache
    print("$ " + " ".join(command), flush=True)
    proc = subprocess.run(command, cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return [d["filter_string"] for d in json.loads(proc.stdout)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True,
                        help="the wheel tier's folder (run_wheel.py --out)")
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("skipped: not root, so no root-made installation to share")
        return SKIPPED
    try:
        pwd.getpwnam(USER)
    except KeyError:
        print(f"skipped: no user {USER}")
        return SKIPPED
    prefix = as_user(USER)
    if prefix is None:
        print("skipped: neither runuser nor setpriv")
        return SKIPPED
    record = os.path.join(args.out, "shared-venv.txt")
    if not os.path.exists(record):
        print("skipped: the wheel tier made no venv (see ctest's wheel)")
        return SKIPPED
    with open(record) as f:
        venv = f.read().strip()
    try:
        return compare(venv, prefix)
    finally:
        # Nothing runs the wheel-only venv after this tier, and it holds a
        # wheel and NumPy in the system's temporary folder, 1.1 GB a
        # checkout: each fresh clone had left one behind.
        shared = os.path.dirname(venv)
        if os.path.basename(shared).startswith("spirjit-wheel-"):
            shutil.rmtree(shared, ignore_errors=True)
        os.unlink(record)


def compare(venv, prefix):
    """Lists the devices from ``venv`` as root and as USER: the same."""
    tool = os.path.join(venv, "bin", "spirjit-devices")
    cwd = os.path.dirname(venv)
    python = os.path.join(venv, "bin", "python")
    proc = subprocess.run(prefix + [python, "-c", ""], cwd=cwd,
                          capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        print(f"skipped: {USER} cannot run the venv's Python "
              f"({os.path.realpath(python)}): {proc.stderr.strip()}")
        return SKIPPED
    with tempfile.TemporaryDirectory() as pocl_cache:
        as_root = listing([tool, "--json"], cwd, pocl_cache)
        os.chown(pocl_cache, pwd.getpwnam(USER).pw_uid, -1)
        as_other = listing(prefix + [tool, "--json"], cwd, pocl_cache)
    print(f"root sees {as_root}; {USER} sees {as_other}")
    assert as_root, "root sees no device"
    assert as_other == as_root, f"{USER} does not see what root sees"
    return 0

if __name__ == "__main__":
    sys.exit(main())
