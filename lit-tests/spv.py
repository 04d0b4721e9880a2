# RUN: %spirjit-dump-ir %s vecadd --sig "(float64[::1], float64[::1], float64[::1])" --stage spv | FileCheck %s
# SPIR-V 1.0 for OpenCL: a Kernel entry point, the global id as a built-in
# variable, float64 needing the Float64 capability.

# CHECK: ; Version: 1.0
# CHECK-DAG: OpCapability Kernel
# CHECK-DAG: OpCapability Float64
# CHECK-DAG: OpMemoryModel Physical64 OpenCL
# CHECK: OpEntryPoint Kernel %{{.*}} "spirjit_vecadd"
# CHECK: OpDecorate %{{.*}} BuiltIn GlobalInvocationId
# CHECK: OpFAdd %double


def vecadd(item, a, b, c):
    i = item.get_id(0)
    c[i] = a[i] + b[i]
