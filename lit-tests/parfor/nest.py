# RUN: %spirjit-dump-ir %s sweep --jit --sig "(float32[:, ::1], float32[:, ::1], int64)" --stage parfor | FileCheck %s
# RUN: %spirjit-dump-ir %s sweep --jit --sig "(float32[:, ::1], float32[:, ::1], int64)" --stage llir.opt | FileCheck %s --check-prefix=HOST
# Two perfectly nested pranges inside a sequential loop: one 2-D launch per
# iteration, the sequential loop and the array swap stay host code.
import spirjit
from spirjit import prange


def sweep(u, v, iterations):
    n, m = u.shape
    for it in range(iterations):
        for i in prange(1, n - 1):
            for j in prange(1, m - 1):
                v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] +
                                  u[i, j + 1])
        u, v = v, u
    return u

# CHECK-LABEL: after parfor (jit: sweep)
# The host loop is still there, around a launch.
# CHECK: iter_next
# CHECK: launch 0
# CHECK: ; parfor 0: a 2-D launch of kernel sweep_parfor0, argument types (float32[:, ::1], float32[:, ::1])
# CHECK: function sweep_parfor0(item, v{{[0-9]+}}, v{{[0-9]+}})
# The indices: start + get_id(d).
# CHECK: getattr 'get_id'
# CHECK: getattr 'get_id'
# CHECK-NOT: iter_next
# CHECK: setitem

# HOST-LABEL: after llir.opt (jit: sweep)
# HOST: define i32 @spirjit_sweep_{{[0-9]+}}(
# HOST: call i32 @spirjit_host_parfor(i8* %context, i32 0,
# HOST: define i32 @spirjit_sweep_{{[0-9]+}}_call(
