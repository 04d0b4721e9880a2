# RUN: %spirjit-dump-ir %s scale --sig "(float32[::1], float32)" --stage spir | FileCheck %s
# The image of OpenCL devices without SPIR-V (PoCL 3.1): SPIR 1.2 bitcode
# read back from the validated SPIR-V, as the device's build receives it.
# CHECK-LABEL: after spir (kernel: scale)
# CHECK: target triple = "spir64-unknown-unknown"
# CHECK: define spir_kernel void @spirjit_scale(float addrspace(1)*
# CHECK: call spir_func i64 @_Z13get_global_idj(i32 0)
# CHECK: !opencl.spir.version = !{![[V:[0-9]+]]}
# CHECK: ![[V]] = !{i32 1, i32 2}


def scale(item, a, k):
    i = item.get_id(0)
    a[i] = a[i] * k
