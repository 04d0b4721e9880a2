"""Run under mpirun by tests/python/test_mpi.py: spirjit.mpi's Communicator
on each rank's device (the ranks take the devices in turn, or
SPIRJIT_DEVICE), rank 0 printing one line, "RESULTS " and a JSON list of
what each rank's checks saw, for the test to compare with what MPI's
semantics give."""

import json
import os
import sys

import numpy as np
from mpi4py import MPI

import spirjit
import spirjit.mpi
from spirjit import errors


@spirjit.kernel
def _fill(item: spirjit.kernel_api.Item, a, value):
    a[item.get_id(0)] = value


def caught(call):
    """(exception class name, message) of what call() raises, or None."""
    try:
        call()
    except Exception as error:  # noqa: BLE001 - reported to the test
        return [type(error).__name__, str(error)]
    return None


def main():
    world = MPI.COMM_WORLD
    comm = spirjit.mpi.Communicator(world, spirjit.mpi.local_device(
        world, os.environ.get("CHECK_DEVICES", "")))
    rank, size = comm.rank, comm.size
    dev = comm.device
    seen = {"rank": rank, "size": size, "path": comm.path,
            "device": dev.filter_string, "backend": dev.backend}

    # A ring: each rank sends its row to the next and takes the previous
    # rank's, the send a pending expression (computed before it goes).
    base = spirjit.asarray(np.arange(6, dtype=np.float64), device=dev)
    grid = spirjit.zeros((3, 6), device=dev)
    grid[1] = base * (rank + 1)
    comm.sendrecv(grid[1] + 0.5, (rank + 1) % size, grid[2],
                  (rank - 1) % size)
    seen["ring"] = np.asarray(grid[2]).tolist()

    # Started, then waited for: the kernel queued in between runs beside it.
    started = comm.iexchange([(grid[1] * 2.0, (rank + 1) % size, grid[0],
                               (rank - 1) % size)])
    spirjit.call_kernel(_fill, spirjit.kernel_api.Range(6), grid[2], 7.0)
    started.wait()
    seen["started"] = np.asarray(grid[0]).tolist()
    seen["beside"] = np.asarray(grid[2]).tolist()

    # Halo rows with PROC_NULL at the ends, two transfers in one exchange.
    rows = spirjit.full((4, 5), float(rank), dtype=np.float32, device=dev)
    up = rank - 1 if rank > 0 else MPI.PROC_NULL
    down = rank + 1 if rank < size - 1 else MPI.PROC_NULL
    comm.exchange([(rows[1], up, rows[3], down),
                   (rows[2], down, rows[0], up)])
    seen["halos"] = np.asarray(rows)[[0, 3], 0].tolist()

    # Reductions stay DeviceArrays on the device.
    x = spirjit.asarray(np.arange(4, dtype=np.int32) + rank, device=dev)
    total = comm.allreduce(x)
    seen["sum_type"] = [type(total).__name__, total.device.filter_string,
                        str(total.dtype)]
    seen["sum"] = np.asarray(total).tolist()
    seen["max"] = np.asarray(comm.allreduce(x, op="max")).tolist()
    partial = (spirjit.asarray(np.full(10, rank + 1.0), device=dev) ** 2).sum()
    seen["scalar"] = float(comm.allreduce(partial))
    seen["complex"] = repr(complex(comm.allreduce(
        spirjit.asarray(np.array(1 + 2j * rank), device=dev))))

    seen["errors"] = {
        "column": caught(lambda: comm.sendrecv(grid[:, 0], MPI.PROC_NULL,
                                               grid[:, 1], MPI.PROC_NULL)),
        "mismatch": caught(lambda: comm.sendrecv(
            grid[1], MPI.PROC_NULL, rows[0], MPI.PROC_NULL)),
        "op": caught(lambda: comm.allreduce(x, op="mean")),
        "bool_sum": caught(lambda: comm.allreduce(
            spirjit.asarray(np.ones(3, bool), device=dev))),
        "numpy": caught(lambda: comm.sendrecv(
            np.zeros(3), MPI.PROC_NULL, np.zeros(3), MPI.PROC_NULL))
        if comm.path != "mpi" else None,
        "path": caught(lambda: spirjit.mpi.Communicator(world,
                                                        path="carrier")),
    }
    # mpi4py itself on GPU memory: refused where its MPI cannot read it.
    if dev.backend == "cuda" and not spirjit.mpi.mpi_reads_gpu_memory():
        y = spirjit.zeros(4, device=dev)
        seen["errors"]["mpi4py_gpu"] = caught(
            lambda: world.Sendrecv(y, dest=rank, recvbuf=np.zeros(4),
                                   source=rank))
    # One line from rank 0: mpirun may interleave long lines of ranks.
    everyone = world.gather(seen, root=0)
    if rank == 0:
        print("RESULTS " + json.dumps(everyone), flush=True)


if __name__ == "__main__":
    sys.exit(main())
