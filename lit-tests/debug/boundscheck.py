# RUN: %spirjit-dump-ir %s copy --sig "(float32[::1], float32[::1])" --stage llir --boundscheck | FileCheck %s
# RUN: %spirjit-dump-ir %s copy --sig "(float32[::1], float32[::1])" --stage llir | FileCheck %s --check-prefix=PLAIN
# boundscheck: the hidden debug record comes last; each index is compared
# with its extent once, unsigned, after the wrap-around; the access is
# guarded, a failure kept in the function's pending slots (site numbers
# from 1), and each return reports what is pending.

# CHECK-LABEL: define spir_kernel void @spirjit_copy(float addrspace(1)* %a, i64 %a.shape0, float addrspace(1)* %b, i64 %b.shape0, i8 addrspace(1)* %debug.record)
# CHECK: %debug.pending = alloca [3 x i64]
# CHECK: icmp ult i64 {{.*}}, %a.shape0
# CHECK: select i1 {{.*}}, i64 1,
# CHECK: check.inside:
# CHECK: load float
# CHECK: icmp ult i64 {{.*}}, %b.shape0
# CHECK: select i1 {{.*}}, i64 2,
# CHECK: store float
# CHECK: debug.report:
# CHECK: call spir_func void @spirjit.debug.report(i8 addrspace(1)* %debug.record
# CHECK: ret void
# CHECK: define internal spir_func void @spirjit.debug.report
# CHECK: cmpxchg i32 addrspace(1)*

# PLAIN-LABEL: define spir_kernel void @spirjit_copy(float addrspace(1)* %a, i64 %a.shape0, float addrspace(1)* %b, i64 %b.shape0)
# PLAIN-NOT: debug


def copy(item, a, b):
    i = item.get_id(0)
    b[i] = a[i]
