# RUN: %spirjit-dump-ir %s jacobi --arrays --sig "(float32[:, :], float32[:, :])" --stage bytecode | FileCheck %s
# RUN: %spirjit-dump-ir %s norm --arrays --sig "(float64[:], float64[:])" --stage typed | FileCheck %s --check-prefix=REDUCE
# DeviceArray operations record an expression; a store into a view runs it
# as one kernel (compiler/ArrayKernel), whose graph the bytecode stage
# shows: each slice is a load, the scalar 0.25 a parameter (first: Python
# calls `0.25 * x` as x.__rmul__(0.25)).
import numpy as np


def jacobi(u, v):
    v[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] +
                            u[1:-1, 2:])

# CHECK: after bytecode (array kernel: array_map-
# CHECK: map rank 2
# CHECK-NEXT: %0 = scalar p0
# CHECK-NEXT: %1 = load p1
# CHECK-NEXT: %2 = load p2
# CHECK-NEXT: %3 = add %1 %2
# CHECK-NEXT: %4 = load p3
# CHECK-NEXT: %5 = add %3 %4
# CHECK-NEXT: %6 = load p4
# CHECK-NEXT: %7 = add %5 %6
# CHECK-NEXT: %8 = multiply %0 %7
# CHECK-NEXT: result %8
# CHECK-NOT: array kernel


def norm(a, b):
    return np.sqrt(((a - b) ** 2).sum())

# The difference, its square and the sum are one reduction kernel, typed
# as any kernel; the square root of the 0-d result is a second kernel.
# REDUCE: after typed (array kernel: array_reduce-
# REDUCE: getitem {{.*}} : float64
# REDUCE: Function(numpy.subtract)
# REDUCE: Function(numpy.power)
# REDUCE: group_reduce
# REDUCE: after typed (array kernel: array_map-
# REDUCE: Function(numpy.sqrt)
