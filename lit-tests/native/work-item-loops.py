# RUN: %spirjit-dump-ir %s scale --sig "(float32[::1], float32[::1])" --stage native | FileCheck %s
# RUN: %spirjit-dump-ir %s place --sig "(int64[:, ::1])" --ndim 2 --nd-range --stage native | FileCheck %s --check-prefix=ND
# RUN: %spirjit-dump-ir %s chunk_sums --sig "(float64[::1], float64[::1])" --disjoint --stage native | FileCheck %s --check-prefix=JAM
# RUN: %spirjit-dump-ir %s chunk_sums --sig "(float64[::1], float64[::1])" --disjoint --stage llir.opt --image native | FileCheck %s --check-prefix=ONE
# The native CPU device's chunk function: the kernel inlined into a loop
# over the chunk's work-items, no work-item query left, every access to the
# arrays in one access group the loop declares parallel, so LLVM's
# vectoriser takes the loop (the width is the host's).
# CHECK-LABEL: define void @spirjit_scale.chunk(i64* {{.*}}%arguments, i64 %begin, i64 %end, i64* {{.*}}%sizes)
# CHECK-NOT: spirjit.native.
# CHECK: load <{{[0-9]+}} x float>, {{.*}} !llvm.access.group ![[GROUP:[0-9]+]]
# CHECK: fmul <{{[0-9]+}} x float>
# CHECK: store <{{[0-9]+}} x float> {{.*}} !llvm.access.group ![[GROUP]]
# CHECK-NOT: declare {{.*}}spirjit.native.
# CHECK-DAG: ![[GROUP]] = distinct !{}
# CHECK-DAG: !{!"llvm.loop.parallel_accesses", ![[GROUP]]}
def scale(item, a, b):
    i = item.get_id(0)
    b[i] = a[i] * 3


# An NdRange's chunk loops over work-groups, each group's items in loops:
# the global id is the group's id times its extent plus the local id.
# ND-LABEL: define void @spirjit_place.chunk(
# ND-NOT: spirjit.native.
# ND-NOT: aligned_alloc
# ND: udiv i64
# ND: ret void
def place(item, out):
    i = item.get_global_id(0)
    j = item.get_global_id(1)
    out[i, j] = item.get_local_id(1) + 10 * item.get_group().get_group_id(0)


# Items that fold a value in a loop of their own run four at a time,
# jammed: four chains side by side in one loop, four streams of memory
# read at once. The kernel's own loop is not unrolled before the item loop
# is made (one add in it, checked below): unrolled, with its remainder loop, it was
# two loops inside the item loop, which LLVM does not jam.
# ONE: fadd double
# ONE-NOT: fadd double
# JAM-LABEL: define void @spirjit_chunk_sums.chunk(
# JAM: = phi double
# JAM-NOT: {{^[a-z][a-z0-9._]*:}}
# JAM: = phi double
# JAM-NOT: {{^[a-z][a-z0-9._]*:}}
# JAM: = phi double
# JAM-NOT: {{^[a-z][a-z0-9._]*:}}
# JAM: = phi double
def chunk_sums(item, a, partial):
    per = a.shape[0] // partial.shape[0]
    base = item.get_id(0) * per
    s = a.dtype.type(0)
    for k in range(per):
        s += a[base + k]
    partial[item.get_id(0)] = s
