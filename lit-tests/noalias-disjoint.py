# RUN: %spirjit-dump-ir %s scale --sig "(float32[::1], float32[::1])" --stage llir --disjoint | FileCheck %s
# RUN: %spirjit-dump-ir %s scale --sig "(float32[::1], float32[::1])" --stage spv --disjoint | FileCheck %s --check-prefix=SPV
# RUN: %spirjit-dump-ir %s scale --sig "(float32[::1], float32[::1])" --stage llir | FileCheck %s --check-prefix=SHARED
# RUN: %spirjit-dump-ir %s publish --sig "(int64[::1], int64[::1])" --nd-range --stage llir --disjoint | FileCheck %s --check-prefix=BARRIER
from spirjit import kernel_api as kapi

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


# A kernel with a barrier gets no noalias arrays even so: the other
# work-items' accesses a barrier orders are outside the function, so LLVM
# would move loads of a noalias array across the barrier.
# BARRIER: define spir_kernel void @spirjit_publish(i64 addrspace(1)* %shared, i64 %shared.shape0, i64 addrspace(1)* %out,
# BARRIER-NOT: noalias
def publish(nd, shared, out):
    before = shared[0]
    kapi.group_barrier(nd.get_group())
    if nd.get_local_id(0) == 0:
        shared[0] = 5
    kapi.group_barrier(nd.get_group())
    out[nd.get_global_id(0)] = before * 10 + shared[0]
