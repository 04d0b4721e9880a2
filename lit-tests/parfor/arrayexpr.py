# RUN: %spirjit-dump-ir %s f --jit --sig "(float32[::1], float32[::1], float32[:, ::1], float32[:, ::1])" --stage typed | FileCheck %s --check-prefix=TYPED
# RUN: %spirjit-dump-ir %s f --jit --sig "(float32[::1], float32[::1], float32[:, ::1], float32[:, ::1])" --stage parfor | FileCheck %s
# Array expressions: the typed stage gives whole arrays NumPy's types; the
# array-expression stage makes each statement a prange loop, fusing the two
# consecutive 1-D statements into one kernel, and the stencil is one 2-D
# kernel reading u at four offsets (slices never exist at run time); each
# has a second copy for operands NumPy stretches.
import numpy as np


def f(a, b, u, v):
    c = a + b * 2.0
    d = np.sqrt(c)
    v[1:-1, 1:-1] = (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] +
                     u[1:-1, 2:]) * 0.25
    return d, c.sum()

# TYPED-LABEL: after typed (jit: f)
# TYPED: binop * %{{[0-9]+}}, %{{[0-9]+}} : float32[::1]
# TYPED: call %{{[0-9]+}}, %{{[0-9]+}} : float32[::1]
# TYPED: slice %{{[0-9]+}}, %{{[0-9]+}} : slice
# TYPED: getitem %{{[0-9]+}}, %{{[0-9]+}} : float32[:, :]

# CHECK-LABEL: after parfor (jit: f)
# c and d: a + b checks that the extents broadcast, or a `fail` raises
# NumPy's ValueError; then both arrays are allocated and one loop writes
# them.
# CHECK: fail '{{.*}}arrayexpr.py:12: operands could not be broadcast together: an extent of {got} meets one of {expected}{{.*}}' %{{[0-9]+}}, %{{[0-9]+}} : none
# CHECK-NEXT: const None
# CHECK-NEXT: ret 'fail'
# CHECK: getattr 'empty'
# CHECK: getattr 'empty'
# Each loop comes in two copies, the second stretching operands of extent 1:
# the host picks it only when a's or b's extent is not the broadcast one.
# CHECK: condbr
# CHECK: launch 0
# CHECK: launch 1
# CHECK: condbr
# CHECK: launch 2
# CHECK: launch 3
# c.sum(): a reduction launch whose result the host returns.
# CHECK: launch 4
# CHECK: tuple_get 0
# CHECK: ; parfor 0: a 1-D launch of kernel f_parfor0
# CHECK-NOT: __spirjit_min
# CHECK: setitem
# CHECK: call
# CHECK: setitem
# CHECK: ; parfor 1: a 1-D launch of kernel f_parfor1
# CHECK: global '__spirjit_min'
# CHECK: setitem
# CHECK: ; parfor 2: a 2-D launch of kernel f_parfor2
# CHECK-COUNT-4: getitem %{{[0-9]+}}, %{{[0-9]+}}
# CHECK: setitem
# CHECK: ; parfor 4: a 1-D launch of kernel f_parfor4 (1 reduction(s))
