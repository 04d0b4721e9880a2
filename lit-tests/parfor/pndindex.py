# RUN: %spirjit-dump-ir %s scale --jit --sig "(float32[:, ::1], float32[:, ::1])" --stage parfor | FileCheck %s
# RUN: %spirjit-dump-ir %s total --jit --sig "(float64[:, :, ::1],)" --stage parfor | FileCheck %s --check-prefix=RED
# A pndindex loop is one launch of as many dimensions as extents, its index
# the tuple of the ids; reducing, one loop over all the iterations whose
# flat index the kernel takes apart.
import spirjit


def scale(a, b):
    for idx in spirjit.pndindex(a.shape):
        b[idx] = a[idx] * 2


def total(a):
    s = 0.0
    for i, j, k in spirjit.pndindex(a.shape):
        s += a[i, j, k]
    return s

# CHECK-LABEL: after parfor (jit: scale)
# No pndindex value is left in the host code.
# CHECK-NOT: : pndindex(
# CHECK: ; parfor 0: a 2-D launch of kernel scale_parfor0
# CHECK: getattr 'get_id'
# CHECK: getattr 'get_id'
# CHECK: = tuple %{{[0-9]+}}, %{{[0-9]+}}
# CHECK-NOT: iter_next
# CHECK: setitem

# RED-LABEL: after parfor (jit: total)
# RED: ; parfor 0: a 1-D launch of kernel total_parfor0
# RED: iter_next
# RED: binop %
# RED: binop //
# RED: binop %
# RED: binop //
# RED: = tuple %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}
