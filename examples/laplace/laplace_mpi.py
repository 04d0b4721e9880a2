"""The Laplace solver over N MPI processes (mpi4py), each on its own device.

    mpirun -np 2 python examples/laplace/laplace_mpi.py 400 400 --sweeps 100

The grid's interior rows are split in row blocks, one per rank. Each rank
keeps its block on its device as a 2-D DeviceArray with --halo rows of its
neighbours' above and below (deep halos), and a sweep is one kernel over
all of them. A sweep leaves the outermost halo row stale and each later
sweep one more, so the halos are exchanged only every --halo sweeps (the
block's own rows are right at every sweep), and the few rows computed twice
cost far less than an exchange every sweep would. Every --check-every
sweeps (and on the last) the sweep kernel also sums the squared changes of
the block's own rows, per work-group, in the same pass; the ranks add them
on the device with spirjit.mpi's allreduce, and the host reads the residual
only then, as the paper's solver checks its tolerance. Halo rows travel by
spirjit.mpi.Communicator: NCCL between GPUs (queued on the device's stream,
no host copy), mpi4py on the arrays in place on CPU devices, pinned host
buffers otherwise; SPIRJIT_MPI_PATH chooses (see the user guide).

Rank -> device: SPIRJIT_DEVICE, where set in the rank's environment
(`mpirun -x SPIRJIT_DEVICE=...`, or a per-rank wrapper), names the device;
otherwise the rank takes the devices matching --devices ("backend:type",
default: every device) in turn by its node-local rank
(spirjit.mpi.local_device).
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
import spirjit.mpi  # noqa: E402
from spirjit import kernel_api as kapi  # noqa: E402


@spirjit.kernel
def sweep_block(item: kapi.Item, u, un, first, step, dx2, dy2, dnr_inv):
    # One work-item per point of the block's rows first, first + step, ...
    # (columns 1..ny-2), the paper's update in the single-process kernel's
    # order of operations, so that the answers agree to the last bit.
    i = first + item.get_id(0) * step
    j = item.get_id(1) + 1
    un[i, j] = ((u[i - 1, j] + u[i + 1, j]) * dy2 +
                (u[i, j - 1] + u[i, j + 1]) * dx2) * dnr_inv


@spirjit.kernel
def sweep_block_residual(item: kapi.NdItem, u, un, partial, rows, cols, own,
                         own_end, dx2, dy2, dnr_inv):
    # The same sweep of rows 1..rows, with each work-group's sum of the
    # squared changes of the block's own rows (own..own_end-1) in
    # partial[group]: the residual in the sweep's one pass over the grid.
    i = item.get_global_id(0) + 1
    j = item.get_global_id(1) + 1
    change = 0.0
    if i <= rows and j <= cols:
        v = ((u[i - 1, j] + u[i + 1, j]) * dy2 +
             (u[i, j - 1] + u[i, j + 1]) * dx2) * dnr_inv
        if i >= own and i < own_end:
            d = v - u[i, j]
            change = d * d
        un[i, j] = v
    g = item.get_group()
    total = kapi.group_reduce(g, change, "+")
    if item.get_local_id(0) == 0 and item.get_local_id(1) == 0:
        partial[g.get_group_id(0), g.get_group_id(1)] = total


def row_block(n_interior, size, rank):
    """(first, count) of this rank's interior rows, 1-based global rows."""
    base, extra = divmod(n_interior, size)
    count = base + (rank < extra)
    first = 1 + rank * base + min(rank, extra)
    return first, count


class Block:
    """One rank's rows with `halo` rows of each neighbour's on its device,
    and the sweeps."""

    def __init__(self, comm, nx, ny, device, halo):
        self.comm = comm
        rank, size = comm.rank, comm.size
        self.first, self.count = row_block(nx - 2, size, rank)
        self.ny = ny
        self.halo = halo
        # Global rows lo..hi-1: the global boundary row where the block
        # touches it, else `halo` of the neighbour's.
        lo = max(0, self.first - halo)
        hi = min(nx, self.first + self.count + halo)
        self.own = (self.first - lo, self.first - lo + self.count)
        self.rows = hi - lo
        grid = laplace.initial_grid(nx, ny)
        self.u = spirjit.asarray(grid[lo:hi], device=device)
        self.un = self.u.copy()
        self.c = laplace.coefficients(nx, ny)
        self.up = rank - 1 if rank > 0 else MPI.PROC_NULL
        self.down = rank + 1 if rank < size - 1 else MPI.PROC_NULL
        cols = ny - 2
        self.width = 256 if cols >= 256 else 32
        groups = -(-cols // self.width)
        self.partial = spirjit.empty((self.rows - 2, groups), device=device)
        self.nd = kapi.NdRange((self.rows - 2, groups * self.width),
                               (1, self.width))
        self.range = kapi.Range(self.rows - 2, cols)
        # The halo exchange of each array, made once: u and un swap.
        self.halos = {id(a): self._halos_of(a) for a in (self.u, self.un)}
        self.sweeps = 0

    def _halos_of(self, new):
        (a, b), h = self.own, self.halo
        mine_up, mine_down = new[a:a + h], new[b - h:b]
        # My top rows up, the rows below mine from down; then my bottom
        # rows down, the rows above mine from up. Where there is no
        # neighbour (PROC_NULL) nothing arrives: the rows sent stand in.
        below = new[b:b + h] if self.down != MPI.PROC_NULL else mine_up
        above = new[a - h:a] if self.up != MPI.PROC_NULL else mine_down
        return [(mine_up, self.up, below, self.down),
                (mine_down, self.down, above, self.up)]

    def sweep(self, residual=False):
        """One sweep into `un` then u and un swapped, the halos exchanged
        every `halo` sweeps. With `residual`, returns this rank's sum of
        squared changes of its own rows as a 0-d DeviceArray (nothing is
        read by the host)."""
        # Launched without waiting (call_kernel waits for each kernel): the
        # device's queue keeps the order, and the host runs ahead.
        local = None
        if residual:
            spirjit.call_kernel_async(sweep_block_residual, self.nd, (),
                                      self.u, self.un, self.partial,
                                      self.rows - 2, self.ny - 2, *self.own,
                                      *self.c)
            local = self.partial.sum()
        else:
            spirjit.call_kernel_async(sweep_block, self.range, (), self.u,
                                      self.un, 1, 1, *self.c)
        self.sweeps += 1
        if self.sweeps % self.halo == 0:
            self.comm.exchange(self.halos[id(self.un)])
        self.u, self.un = self.un, self.u
        return local

    def result(self):
        a, b = self.own
        return np.asarray(self.u)[a:b]


def solve(nx, ny, sweeps, tol=None, comm=None, check_every=10, halo=8):
    """Runs the distributed solver on `comm` (a spirjit.mpi.Communicator);
    returns (this rank's rows of the grid without halos, first global row,
    sweeps done, residual at the last check, seconds the sweeps took: from
    all ranks ready to the last one's device done, without setting up the
    grid or reading it back). `halo`: rows of each neighbour's kept, and
    sweeps between exchanges (at most the fewest rows a rank owns)."""
    fewest = (nx - 2) // comm.size  # the last rank's rows
    block = Block(comm, nx, ny, comm.device, max(1, min(halo, fewest)))
    residual, done = math.inf, 0
    spirjit.synchronize(comm.device)
    comm.comm.Barrier()
    start = MPI.Wtime()
    while done < sweeps:
        done += 1
        checking = done == sweeps or done % check_every == 0
        local = block.sweep(residual=checking)
        if checking:
            residual = math.sqrt(float(comm.allreduce(local)))
            if tol is not None and residual < tol:
                break
    spirjit.synchronize(comm.device)
    comm.comm.Barrier()
    seconds = MPI.Wtime() - start
    return block.result(), block.first, done, residual, seconds


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
    parser.add_argument("--check-every", type=int, default=10,
                        help="sweeps between residual checks (default 10)")
    parser.add_argument("--halo", type=int, default=8,
                        help="rows of each neighbour's each rank keeps, and "
                             "sweeps between halo exchanges (default 8)")
    parser.add_argument("--devices", default="",
                        help="filter of the devices ranks take in turn")
    parser.add_argument("--check", action="store_true",
                        help="compare with the single-process kernel "
                             "version on rank 0 and fail on a difference")
    parser.add_argument("--time", action="store_true",
                        help="print seconds per sweep, the sweeps alone "
                             "(after an untimed run of --check-every sweeps)")
    args = parser.parse_args()
    comm = spirjit.mpi.Communicator(
        MPI.COMM_WORLD,
        spirjit.mpi.local_device(MPI.COMM_WORLD, args.devices))
    if args.time:  # compiles the kernels, untimed
        solve(args.nx, args.ny, args.check_every, comm=comm,
              check_every=args.check_every, halo=args.halo)
    rows, first, done, residual, seconds = solve(
        args.nx, args.ny, args.sweeps, args.tol, comm, args.check_every,
        args.halo)
    device = comm.device
    names = comm.comm.gather(f"{device.filter_string} ({device.name})",
                             root=0)
    grid = gather_grid(rows, first, args.nx, args.ny, comm.comm)
    if comm.rank != 0:
        return
    print(f"{comm.size} ranks on {', '.join(names)} (path {comm.path}): "
          f"{done} sweeps, residual {residual:.6e}")
    if args.time:
        print(f"seconds per sweep: {seconds / done:.4e}")
    if args.check:
        # The single-process kernel version, run for as many sweeps.
        expected, _, expected_residual = laplace.solve(
            "kernel", args.nx, args.ny, done, device=device)
        difference = float(np.max(np.abs(grid - expected)))
        print(f"max difference from the single-process solver: "
              f"{difference:.3e}; residual {expected_residual:.6e}")
        if difference > 1e-12 or not math.isclose(
                residual, expected_residual, rel_tol=1e-9, abs_tol=1e-15):
            raise SystemExit("the MPI solver's answer differs")


if __name__ == "__main__":
    main()
