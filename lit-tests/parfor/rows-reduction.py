# RUN: env SPIRJIT_PRANGE_COALESCE=always %spirjit-dump-ir %s residual --jit --sig "(float64[:, ::1], float64[:, ::1])" --stage parfor | FileCheck %s --check-prefix=MAPPED
# RUN: env SPIRJIT_PRANGE_COALESCE=never %spirjit-dump-ir %s residual --jit --sig "(float64[:, ::1], float64[:, ::1])" --stage parfor | FileCheck %s --check-prefix=KEPT
# A reduction over a prange nest whose row loop is independent (numba-dpex's
# Laplace sweep): mapped, the kernel's work-items share the flat (row,
# column) space, each iteration's index taken apart by the row loop's trip
# count, and one accumulator per reduction; kept, a work-item runs rows.
from spirjit import prange


def residual(u, v):
    n, m = u.shape
    err = 0.0
    for i in prange(1, n - 1):
        for j in range(1, m - 1):
            x = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
            err += (x - u[i, j]) ** 2
            v[i, j] = x
    return err

# MAPPED: ; parfor 0: a 1-D launch of kernel residual_parfor0 (1 reduction(s))
# MAPPED: ; parfor 0: rows mapped: the reduction runs over (row, column) pairs, neighbouring work-items on neighbouring columns
# MAPPED: function residual_parfor0(item, u, v, {{.*}}, first, chunk, trips, stride, partial0)
# MAPPED: [[ACC:%[0-9]+]] = phi
# MAPPED-NOT: phi
# MAPPED: [[TRIPS:%[0-9]+]] = binop - [[STOP:%[0-9]+]], {{%[0-9]+}}
# MAPPED: binop // [[K:%[0-9]+]], [[TRIPS]]
# MAPPED: binop % [[K]], [[TRIPS]]
# MAPPED: binop + [[ACC]],

# KEPT: ; parfor 0: rows kept: the device runs a row per work-item well
