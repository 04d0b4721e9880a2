"""ctest's mpi_laplace: `mpirun -np 2` runs examples/laplace/laplace_mpi.py
on the PoCL device (both ranks) and checks its grid against the
single-process solver (its --check). Prints "skipped: ..." and exits with
SKIPPED (77), which ctest shows as skipped, where mpirun, mpi4py or PoCL is
missing, as the compat tier does without network.
"""

import os
import shutil
import subprocess
import sys

SKIPPED = 77  # ctest's SKIP_RETURN_CODE for this tier

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))


def main():
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        print("skipped: no mpirun (scripts/bootstrap.sh test installs "
              "openmpi-bin)")
        return SKIPPED
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        print("skipped: no mpi4py (scripts/bootstrap.sh test installs it)")
        return SKIPPED
    import spirjit
    pocl = [d for d in spirjit.devices()
            if d.platform == "Portable Computing Language"]
    if not pocl:
        print("skipped: no PoCL device")
        return SKIPPED
    env = dict(os.environ)
    env["SPIRJIT_DEVICE"] = pocl[0].filter_string
    # A container without network: Open MPI's TCP and shared-memory
    # transports on the loopback only, no process binding.
    env.setdefault("OMPI_MCA_btl", "self,vader,tcp")
    env.setdefault("OMPI_MCA_btl_tcp_if_include", "lo")
    env.setdefault("OMPI_MCA_oob_tcp_if_include", "lo")
    env.setdefault("OMPI_MCA_hwloc_base_binding_policy", "none")
    env.setdefault("OMPI_MCA_rmaps_base_oversubscribe", "1")
    command = [mpirun, "-np", "2", "--oversubscribe"]
    if os.geteuid() == 0:
        command.append("--allow-run-as-root")
    for name in ("SPIRJIT_DEVICE", "PYTHONPATH", "SPIRJIT_CACHE_DIR",
                 "OCL_ICD_VENDORS", "CL_CONFIG_CPU_VECTORIZER_MODE"):
        if name in env:
            command += ["-x", name]
    command += [sys.executable,
                os.path.join(ROOT, "examples", "laplace", "laplace_mpi.py"),
                "33", "21", "--sweeps", "60", "--check"]
    print(" ".join(command), flush=True)
    done = subprocess.run(command, env=env, timeout=600)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
