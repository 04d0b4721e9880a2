# RUN: %spirjit-dump-ir %s vecadd --sig "(float32[::1], float32[::1], float32[::1])" --stage llir | FileCheck %s
# RUN: %spirjit-dump-ir %s vecadd --sig "(float32[:], float32[::1], float32[:])" --stage llir | FileCheck %s --check-prefix=STRIDED
# The kernel ABI: per array a global pointer and its extents, and its
# strides only when it is not contiguous (layout A); the item's id is
# OpenCL's get_global_id.

# CHECK: target triple = "spir64-unknown-unknown"
# CHECK-LABEL: define spir_kernel void @spirjit_vecadd(float addrspace(1)* %a, i64 %a.shape0, float addrspace(1)* %b, i64 %b.shape0, float addrspace(1)* %c, i64 %c.shape0)
# CHECK: call spir_func i64 @_Z13get_global_idj(i32 0)
# CHECK: fadd float
# CHECK: store float
# CHECK: !opencl.ocl.version

# STRIDED-LABEL: define spir_kernel void @spirjit_vecadd(float addrspace(1)* %a, i64 %a.shape0, i64 %a.stride0, float addrspace(1)* %b, i64 %b.shape0, float addrspace(1)* %c, i64 %c.shape0, i64 %c.stride0)
# STRIDED: mul i64 {{.*}}%a.stride0


def vecadd(item, a, b, c):
    i = item.get_id(0)
    c[i] = a[i] + b[i]
