# RUN: %spirjit-dump-ir %s scale --sig "(float32[::1], float32[::1])" --stage llir --disjoint | FileCheck %s
# RUN: %spirjit-dump-ir %s scale --sig "(float32[::1], float32[::1])" --stage spv --disjoint | FileCheck %s --check-prefix=SPV
# RUN: %spirjit-dump-ir %s scale --sig "(float32[::1], float32[::1])" --stage llir | FileCheck %s --check-prefix=SHARED
# A launch whose arrays share no byte (most do; the launcher checks each)
# gets a kernel compiled with noalias array parameters, which lets CPU
# runtimes vectorise loops that load one array and store another. A launch
# passing one array twice, or overlapping views, gets the kernel without.

# CHECK: define spir_kernel void @spirjit_scale(float addrspace(1)* noalias %a, i64 %a.shape0, float addrspace(1)* noalias %out
# SPV: OpDecorate %a FuncParamAttr NoAlias
# SPV: OpDecorate %out FuncParamAttr NoAlias
# SHARED: define spir_kernel void @spirjit_scale(float addrspace(1)* %a,
# SHARED-NOT: noalias


def scale(item, a, out):
    i = item.get_id(0)
    for j in range(a.shape[0]):
        out[j] = a[j] * 2.0
