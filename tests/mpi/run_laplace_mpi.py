"""ctest's mpi_laplace: `mpirun -np 2` runs examples/laplace/laplace_mpi.py
on the PoCL device (both ranks) and checks its grid against the
single-process solver (its --check). Prints "skipped: ..." and exits with
SKIPPED (77), which ctest shows as skipped, where mpirun, mpi4py or PoCL is
missing, as the compat tier does without network.
"""

import os
import subprocess
import sys

SKIPPED = 77  # ctest's SKIP_RETURN_CODE for this tier

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import launch  # noqa: E402


def main():
    reason = launch.why_not()
    if reason:
        print(f"skipped: {reason}")
        return SKIPPED
    import spirjit
    pocl = [d for d in spirjit.devices()
            if d.platform == "Portable Computing Language"]
    if not pocl:
        print("skipped: no PoCL device")
        return SKIPPED
    command, env = launch.mpirun(
        2, [os.path.join(ROOT, "examples", "laplace", "laplace_mpi.py"),
            "33", "21", "--sweeps", "60", "--check"],
        {"SPIRJIT_DEVICE": pocl[0].filter_string})
    print(" ".join(command), flush=True)
    done = subprocess.run(command, env=env, timeout=600)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
