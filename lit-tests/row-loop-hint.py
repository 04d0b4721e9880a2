# RUN: %spirjit-dump-ir %s rows --jit --sig "(float32[:,::1], float32[:,::1])" --stage spv | FileCheck %s
# RUN: %spirjit-dump-ir %s grid --jit --sig "(float32[:,::1], float32[:,::1])" --stage spv | FileCheck %s --check-prefix=GRID
# numba's and numba-dpex's Jacobi form, a prange over rows with a range
# over columns, makes each work-item walk a row: its kernel carries
# VecTypeHint, so Intel's CPU runtime vectorises the inner loop instead of
# gathering one element per row. The same sweep as a 2-D prange reads
# neighbouring elements from neighbouring work-items and is vectorised
# across them as it is.
import spirjit
from spirjit import prange

# CHECK: OpEntryPoint Kernel %[[K:[0-9]+]] "spirjit_rows_parfor0"
# CHECK: OpExecutionMode %[[K]] VecTypeHint
# GRID: OpEntryPoint Kernel %{{[0-9]+}} "spirjit_grid_parfor0"
# GRID-NOT: VecTypeHint


def rows(u, v):
    n, m = u.shape
    for i in prange(1, n - 1):
        for j in range(1, m - 1):
            v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] +
                              u[i, j + 1])


def grid(u, v):
    n, m = u.shape
    for i in prange(1, n - 1):
        for j in prange(1, m - 1):
            v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] +
                              u[i, j + 1])
