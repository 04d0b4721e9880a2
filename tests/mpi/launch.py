"""mpirun for spirjit's MPI tests: the command and environment that run N
Python processes on this machine (a container without network: Open MPI's
TCP and shared-memory transports on the loopback only, no binding), or the
reason they cannot run here."""

import os
import shutil
import sys

FORWARDED = ("SPIRJIT_DEVICE", "PYTHONPATH", "SPIRJIT_CACHE_DIR",
             "OCL_ICD_VENDORS", "CL_CONFIG_CPU_VECTORIZER_MODE",
             "SPIRJIT_MPI_PATH", "SPIRJIT_NATIVE", "LD_LIBRARY_PATH")


def why_not():
    """Why mpirun cannot run spirjit here, or None."""
    if shutil.which("mpirun") is None:
        return "no mpirun (scripts/bootstrap.sh test installs openmpi-bin)"
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return "no mpi4py (scripts/bootstrap.sh test installs it)"
    return None


def mpirun(ranks, arguments, environment=None):
    """(command, env) that runs `sys.executable arguments...` as `ranks`
    MPI processes with `environment` added to this one's."""
    env = dict(os.environ)
    env.update(environment or {})
    env.setdefault("OMPI_MCA_btl", "self,vader,tcp")
    env.setdefault("OMPI_MCA_btl_tcp_if_include", "lo")
    env.setdefault("OMPI_MCA_oob_tcp_if_include", "lo")
    env.setdefault("OMPI_MCA_hwloc_base_binding_policy", "none")
    env.setdefault("OMPI_MCA_rmaps_base_oversubscribe", "1")
    command = [shutil.which("mpirun"), "-np", str(ranks), "--oversubscribe"]
    if os.geteuid() == 0:
        command.append("--allow-run-as-root")
    for name in FORWARDED:
        if name in env:
            command += ["-x", name]
    return command + [sys.executable] + list(arguments), env
