#!/usr/bin/env python3
"""Fetches numba-dpex 0.23.0's tests for the compatibility tier.

    .venv/bin/python tests/compat/fetch.py [build/compat]

Downloads numba-dpex's wheel from PyPI with pip (no dependencies) into
<dir>/wheel and unpacks only numba_dpex/tests/** into <dir>/numba_dpex_tests:
the tests stay out of our repository. Without network it writes the reason to
<dir>/not-run.txt, which run_compat.py prints as "skipped: ...", and exits 0
so that set-up goes on.
"""

import glob
import os
import shutil
import subprocess
import sys
import zipfile

VERSION = "0.23.0"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def main():
    out = os.path.abspath(sys.argv[1] if len(sys.argv) > 1
                          else os.path.join(ROOT, "build", "compat"))
    wheel_dir = os.path.join(out, "wheel")
    tests_dir = os.path.join(out, "numba_dpex_tests")
    not_run = os.path.join(out, "not-run.txt")
    os.makedirs(out, exist_ok=True)
    if os.path.exists(not_run):
        os.remove(not_run)
    wheels = glob.glob(os.path.join(wheel_dir, f"numba_dpex-{VERSION}-*.whl"))
    if not wheels:
        pip = subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps",
             f"numba-dpex=={VERSION}", "-d", wheel_dir],
            capture_output=True, text=True)
        wheels = glob.glob(
            os.path.join(wheel_dir, f"numba_dpex-{VERSION}-*.whl"))
        if pip.returncode != 0 or not wheels:
            lines = (pip.stderr or pip.stdout).strip().splitlines()
            why = (f"numba-dpex {VERSION}'s wheel did not download: "
                   f"{lines[-1] if lines else 'pip found no wheel'}")
            with open(not_run, "w") as f:
                f.write(why + "\n")
            print(f"== compatibility tier: {why}")
            return 0
    shutil.rmtree(tests_dir, ignore_errors=True)
    with zipfile.ZipFile(wheels[0]) as wheel:
        members = [m for m in wheel.namelist()
                   if m.startswith("numba_dpex/tests/")]
        wheel.extractall(tests_dir, members)
    print(f"== compatibility tier: {len(members)} files of numba-dpex "
          f"{VERSION}'s tests in {tests_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
