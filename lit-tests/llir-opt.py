# RUN: %spirjit-dump-ir %s vecadd --sig "(float32[::1], float32[::1], float32[::1])" --stage llir.opt | FileCheck %s
# After O2 a contiguous vector add is one id, two loads, one add and one
# store: the negative-index wrap-around is gone because ids are known to be
# non-negative, and unit strides come from the layout.

# CHECK-LABEL: define spir_kernel void @spirjit_vecadd
# CHECK: [[ID:%[0-9]+]] = tail call spir_func i64 @_Z13get_global_idj(i32 0)
# CHECK-NEXT: getelementptr inbounds float, float addrspace(1)* %a, i64 [[ID]]
# CHECK-NEXT: load float
# CHECK-NEXT: getelementptr inbounds float, float addrspace(1)* %b, i64 [[ID]]
# CHECK-NEXT: load float
# CHECK-NEXT: fadd float
# CHECK-NEXT: getelementptr inbounds float, float addrspace(1)* %c, i64 [[ID]]
# CHECK-NEXT: store float
# CHECK-NEXT: ret void
# CHECK-NOT: select


def vecadd(item, a, b, c):
    i = item.get_id(0)
    c[i] = a[i] + b[i]
