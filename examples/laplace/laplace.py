"""The Laplace solver of the Python-for-HPC paper, every way spirjit offers.

A 2-D Jacobi iteration for Laplace's equation on an nx x ny grid with fixed
boundaries (the top edge held at 1, the others at 0):

    u'[i, j] = ((u[i-1, j] + u[i+1, j]) * dy2 + (u[i, j-1] + u[i, j+1]) * dx2)
               * 0.5 / (dx2 + dy2)

Each sweep returns the residual, the L2 norm of the change it made; `solve`
stops after a number of sweeps or once the residual falls below a tolerance.

Versions (each a class with `sweep()` and `result()`):
  python        pure Python loops over lists of lists
  numpy         NumPy slicing
  kernel        the paper's 1-D indexed OpenCL kernel, in spirjit's kernel API
  device_array  DeviceArray slicing arithmetic (the NumPy version's text)
  dpjit         the pure Python version's loops in a @spirjit.dpjit function,
                the outer loop a prange (a numba-dpex program with its
                imports changed): each sweep is one kernel on the arrays'
                device, the residual a reduction in it
"""

import math

import numpy as np

import spirjit
from spirjit import dpjit, prange
from spirjit import kernel_api as kapi


def initial_grid(nx, ny):
    """The starting grid: zeros, with the top edge held at 1."""
    u = np.zeros((nx, ny))
    u[0, :] = 1.0
    return u


def coefficients(nx, ny):
    """(dx2, dy2, dnr_inv) of a unit square cut into nx x ny points."""
    dx2 = (1.0 / (nx - 1)) ** 2
    dy2 = (1.0 / (ny - 1)) ** 2
    return dx2, dy2, 0.5 / (dx2 + dy2)


class PurePython:
    name = "python"

    def __init__(self, u0):
        self.nx, self.ny = u0.shape
        self.u, self.un = u0.tolist(), u0.tolist()
        self.c = coefficients(self.nx, self.ny)

    def sweep(self):
        dx2, dy2, dnr_inv = self.c
        u, un = self.u, self.un
        err = 0.0
        for i in range(1, self.nx - 1):
            up, row, down, new = u[i - 1], u[i], u[i + 1], un[i]
            for j in range(1, self.ny - 1):
                v = ((up[j] + down[j]) * dy2 +
                     (row[j - 1] + row[j + 1]) * dx2) * dnr_inv
                err += (v - row[j]) ** 2
                new[j] = v
        self.u, self.un = un, u
        return math.sqrt(err)

    def result(self):
        return np.array(self.u)


class NumPySlicing:
    name = "numpy"

    def __init__(self, u0):
        self.u, self.un = u0.copy(), u0.copy()
        self.c = coefficients(*u0.shape)

    def sweep(self):
        dx2, dy2, dnr_inv = self.c
        u, un = self.u, self.un
        un[1:-1, 1:-1] = ((u[:-2, 1:-1] + u[2:, 1:-1]) * dy2 +
                          (u[1:-1, :-2] + u[1:-1, 2:]) * dx2) * dnr_inv
        d = un - u
        self.u, self.un = un, u
        return math.sqrt(float(np.sum(d * d)))

    def result(self):
        return self.u


@spirjit.kernel
def laplace_sweep(item: kapi.Item, u, un, nx, ny, dx2, dy2, dnr_inv):
    # The paper's OpenCL kernel: one work-item per grid point of the
    # flattened grid, boundary points left as they are.
    i = item.get_id(0)
    row = i // ny
    col = i % ny
    if row > 0 and row < nx - 1 and col > 0 and col < ny - 1:
        un[i] = ((u[i - ny] + u[i + ny]) * dy2 +
                 (u[i - 1] + u[i + 1]) * dx2) * dnr_inv


class SpirjitKernel:
    """The kernel on flat DeviceArrays; the residual by DeviceArray
    arithmetic on the device. `rows` (nx) may be a block of a larger grid:
    the MPI version runs this class unchanged on each rank's block."""
    name = "kernel"

    def __init__(self, u0, device=None, coefficients_of=None):
        self.nx, self.ny = u0.shape
        self.u = spirjit.asarray(u0.reshape(-1), device=device)
        self.un = self.u.copy()
        self.c = coefficients_of or coefficients(self.nx, self.ny)

    def step(self):
        """One sweep into `un`; returns the sum of squared changes (a 0-d
        DeviceArray) without swapping."""
        spirjit.call_kernel(laplace_sweep, kapi.Range(self.nx * self.ny),
                            self.u, self.un, self.nx, self.ny, *self.c)
        d = self.un - self.u
        return (d * d).sum()

    def swap(self):
        self.u, self.un = self.un, self.u

    def sweep(self):
        err = float(self.step())
        self.swap()
        return math.sqrt(err)

    def result(self):
        return np.asarray(self.u).reshape(self.nx, self.ny)


class DeviceArraySlicing:
    """The NumPy version's text on DeviceArrays: every slice expression is a
    kernel on the arrays' device."""
    name = "device_array"

    def __init__(self, u0, device=None):
        self.u = spirjit.asarray(u0, device=device)
        self.un = self.u.copy()
        self.c = coefficients(*u0.shape)

    def sweep(self):
        dx2, dy2, dnr_inv = self.c
        u, un = self.u, self.un
        un[1:-1, 1:-1] = ((u[:-2, 1:-1] + u[2:, 1:-1]) * dy2 +
                          (u[1:-1, :-2] + u[1:-1, 2:]) * dx2) * dnr_inv
        d = un - u
        self.u, self.un = un, u
        return math.sqrt(float((d * d).sum()))

    def result(self):
        return np.asarray(self.u)


@dpjit
def laplace_dpjit_sweep(u, un, dx2, dy2, dnr_inv):
    # numba-dpex's form: rows in parallel, a sum of squared changes as a
    # prange reduction. Returns that sum.
    nx, ny = u.shape
    err = 0.0
    for i in prange(1, nx - 1):
        for j in range(1, ny - 1):
            v = ((u[i - 1, j] + u[i + 1, j]) * dy2 +
                 (u[i, j - 1] + u[i, j + 1]) * dx2) * dnr_inv
            err += (v - u[i, j]) ** 2
            un[i, j] = v
    return err


class DpjitPrange:
    """The pure Python version's loops, compiled by @spirjit.dpjit, on
    DeviceArrays: compute follows data."""
    name = "dpjit"

    def __init__(self, u0, device=None):
        self.u = spirjit.asarray(u0, device=device)
        self.un = self.u.copy()
        self.c = coefficients(*u0.shape)

    def sweep(self):
        err = laplace_dpjit_sweep(self.u, self.un, *self.c)
        self.u, self.un = self.un, self.u
        return math.sqrt(err)

    def result(self):
        return np.asarray(self.u)


VERSIONS = {v.name: v for v in (PurePython, NumPySlicing, SpirjitKernel,
                                DeviceArraySlicing, DpjitPrange)}


def solve(version, nx, ny, sweeps, tol=None, **options):
    """Runs `version` (a name of VERSIONS) from the initial grid for
    `sweeps` sweeps, or until the residual is below `tol`; returns
    (grid, sweeps done, last residual)."""
    solver = VERSIONS[version](initial_grid(nx, ny), **options)
    residual = math.inf
    done = 0
    while done < sweeps:
        residual = solver.sweep()
        done += 1
        if tol is not None and residual < tol:
            break
    return solver.result(), done, residual


if __name__ == "__main__":
    grid, done, residual = solve("kernel", 200, 200, 10000, tol=1e-4)
    print(f"kernel version: {done} sweeps to a residual of {residual:.2e}; "
          f"u at the centre = {grid[100, 100]:.6f}")
