"""The Laplace solver over N MPI processes (mpi4py), each on its own device.

    mpirun -np 2 python examples/laplace/laplace_mpi.py 400 400 --sweeps 100

The grid's interior rows are split in row blocks, one per rank; each rank
holds its block plus one halo row above and below (the global boundary row
for the first and last rank). Every sweep runs the single-process kernel
(laplace.laplace_sweep, unchanged) on the block through
laplace.SpirjitKernel, exchanges halo rows with the neighbours (Sendrecv of
DeviceArray rows, which mpi4py reads and writes in place through DLPack on
devices whose memory the host addresses, through host copies on GPUs) and
sums the residual over all ranks with Allreduce.

Rank -> device: SPIRJIT_DEVICE, where set in the rank's environment
(`mpirun -x SPIRJIT_DEVICE=...`, or a per-rank wrapper), names the device;
otherwise the rank takes the devices matching --devices ("backend:type",
default: every device) in turn by its node-local rank: device
(local rank mod number of matching devices).
"""

import argparse
import math
import os
import sys

import numpy as np
from mpi4py import MPI

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import laplace  # noqa: E402
import spirjit  # noqa: E402


def rank_device(comm, devices_filter=""):
    """This rank's device by the rule in the module's docstring."""
    if os.environ.get("SPIRJIT_DEVICE"):
        return spirjit.default_device()
    local = comm.Split_type(MPI.COMM_TYPE_SHARED).Get_rank()
    matching = [d for d in spirjit.devices() if _matches(d, devices_filter)]
    if not matching:
        raise SystemExit(f"no device matches '{devices_filter}'")
    return matching[local % len(matching)]


def _matches(device, filter_string):
    """Whether ``device`` matches the backend and type of a filter string
    ("opencl:cpu", "gpu", "" for any)."""
    parts = filter_string.split(":")
    fields = (device.backend, device.device_type)
    return all(p == f for p, f in zip(parts, fields) if p)


def row_block(n_interior, size, rank):
    """(first, count) of this rank's interior rows, 1-based global rows."""
    base, extra = divmod(n_interior, size)
    count = base + (rank < extra)
    first = 1 + rank * base + min(rank, extra)
    return first, count


def exchange(comm, grid, send_row, recv_row, dest, source):
    """Sends grid[send_row] to dest and receives grid[recv_row] from source:
    in place where the host addresses the device's memory (mpi4py reads
    DeviceArrays through DLPack), through host copies elsewhere (GPU memory,
    which an MPI without CUDA support cannot read)."""
    if getattr(grid, "_host_addressable", True):
        comm.Sendrecv(grid[send_row], dest=dest, recvbuf=grid[recv_row],
                      source=source)
        return
    received = np.empty(grid.shape[1], grid.dtype)
    comm.Sendrecv(np.asarray(grid[send_row]), dest=dest, recvbuf=received,
                  source=source)
    if source != MPI.PROC_NULL:
        grid[recv_row] = received


def solve(nx, ny, sweeps, tol=None, comm=MPI.COMM_WORLD, device=None):
    """Runs the distributed solver; returns (this rank's rows of the grid
    without halos, first global row, sweeps done, residual)."""
    rank, size = comm.Get_rank(), comm.Get_size()
    first, count = row_block(nx - 2, size, rank)
    grid = laplace.initial_grid(nx, ny)
    block = grid[first - 1:first + count + 1]  # with the two halo rows
    solver = laplace.SpirjitKernel(block, device=device,
                                   coefficients_of=laplace.coefficients(
                                       nx, ny))
    up = rank - 1 if rank > 0 else MPI.PROC_NULL
    down = rank + 1 if rank < size - 1 else MPI.PROC_NULL
    residual, done = math.inf, 0
    while done < sweeps:
        local = float(solver.step())
        new = solver.un.reshape(count + 2, ny)
        # Halo rows: my first row up, my last row down, theirs into mine.
        exchange(comm, new, 1, count + 1, up, down)
        exchange(comm, new, count, 0, down, up)
        solver.swap()
        residual = math.sqrt(comm.allreduce(local, op=MPI.SUM))
        done += 1
        if tol is not None and residual < tol:
            break
    rows = solver.result()[1:count + 1]
    return rows, first, done, residual


def gather_grid(rows, first, nx, ny, comm=MPI.COMM_WORLD):
    """The whole grid on rank 0 (None elsewhere)."""
    parts = comm.gather((first, rows), root=0)
    if comm.Get_rank() != 0:
        return None
    grid = laplace.initial_grid(nx, ny)
    for start, block in parts:
        grid[start:start + len(block)] = block
    return grid


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("nx", type=int)
    parser.add_argument("ny", type=int)
    parser.add_argument("--sweeps", type=int, default=100)
    parser.add_argument("--tol", type=float, default=None)
    parser.add_argument("--devices", default="",
                        help="filter of the devices ranks take in turn")
    parser.add_argument("--check", action="store_true",
                        help="compare with the single-process kernel "
                             "version on rank 0 and fail on a difference")
    parser.add_argument("--time", action="store_true",
                        help="print seconds per sweep (after two untimed "
                             "sweeps)")
    args = parser.parse_args()
    comm = MPI.COMM_WORLD
    device = rank_device(comm, args.devices)
    if args.time:
        solve(args.nx, args.ny, 2, comm=comm, device=device)
    comm.Barrier()
    start = MPI.Wtime()
    rows, first, done, residual = solve(args.nx, args.ny, args.sweeps,
                                        args.tol, comm, device)
    comm.Barrier()
    seconds = MPI.Wtime() - start
    names = comm.gather(f"{device.filter_string} ({device.name})", root=0)
    grid = gather_grid(rows, first, args.nx, args.ny, comm)
    if comm.Get_rank() != 0:
        return
    print(f"{comm.Get_size()} ranks on {', '.join(names)}: {done} sweeps, "
          f"residual {residual:.6e}")
    if args.time:
        print(f"seconds per sweep: {seconds / done:.4e}")
    if args.check:
        expected, expected_done, expected_residual = laplace.solve(
            "kernel", args.nx, args.ny, args.sweeps, args.tol,
            device=device)
        difference = float(np.max(np.abs(grid - expected)))
        print(f"max difference from the single-process solver: "
              f"{difference:.3e}")
        if difference > 1e-12 or done != expected_done:
            raise SystemExit("the MPI solver's answer differs")


if __name__ == "__main__":
    main()
