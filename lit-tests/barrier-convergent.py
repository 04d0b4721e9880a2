# RUN: %spirjit-dump-ir %s reduce --sig "(float32[::1], float32[::1], float32[::1] local)" --ndim 1 --nd-range --stage llir.opt | FileCheck %s
# RUN: %spirjit-dump-ir %s reduce --sig "(float32[::1], float32[::1], float32[::1] local)" --ndim 1 --nd-range --stage spv | FileCheck %s --check-prefix=SPV
# group_barrier is OpenCL's barrier(), convergent so LLVM never moves,
# merges or duplicates it; local memory is address space 3 (Workgroup).
from spirjit import kernel_api as kapi

# CHECK-LABEL: define spir_kernel void @spirjit_reduce(float addrspace(1)* {{.*}}%a, {{.*}}, float addrspace(3)* {{.*}}%loc)
# CHECK: call spir_func void @_Z7barrierj(i32 3) #[[ATTR:[0-9]+]]
# CHECK: declare spir_func void @_Z7barrierj(i32) {{.*}}#[[DECL:[0-9]+]]
# CHECK-DAG: attributes #[[ATTR]] = { {{.*}}convergent
# CHECK-DAG: attributes #[[DECL]] = { {{.*}}convergent
# SPV: OpTypePointer Workgroup %float
# SPV: OpControlBarrier


def reduce(item: kapi.NdItem, a, partial, loc):
    lid = item.get_local_id(0)
    loc[lid] = a[item.get_global_id(0)]
    g = item.get_group()
    kapi.group_barrier(g)
    s = item.get_local_range(0) // 2
    while s > 0:
        if lid < s:
            loc[lid] += loc[lid + s]
        kapi.group_barrier(g)
        s //= 2
    if lid == 0:
        partial[g.get_group_id(0)] = loc[0]
