# REQUIRES: x86_64
# RUN: %spirjit-dump-ir %s add --sig "(float32[::1], float32[::1], float32[::1])" --stage native | FileCheck %s
# RUN: %spirjit-dump-ir %s count --sig "(int64[::1], int64[::1])" --stage native | FileCheck %s --check-prefix=ATOMIC
# A kernel without barriers gets a second body whose vector stores bypass
# the caches (NativeStreaming.h); the chunk runs it when the device says so
# in sizes[6], for launches larger than the last-level cache. Each row of
# items ends where the first vector store becomes aligned (the peel), each
# vector store is non-temporal where aligned, and a store fence ends it.
# CHECK-LABEL: define void @spirjit_add.chunk(
# CHECK: %[[FLAG:.*]] = getelementptr inbounds i64, i64* %sizes, i64 6
# CHECK: load i64, i64* %[[FLAG]]
# CHECK: call void @spirjit_add.chunk.streaming(i64* %arguments, i64 %begin, i64 %end, i64* %sizes)
# CHECK-NEXT: ret void
# CHECK-NOT: spirjit.native.segment
# CHECK-LABEL: define internal void @spirjit_add.chunk.streaming(
# CHECK: %peel = select
# CHECK: %segment.end
# CHECK: %aligned = icmp eq i64
# CHECK: store <{{[0-9]+}} x float> {{.*}}, align {{32|64}}, {{.*}}!nontemporal
# CHECK: store <{{[0-9]+}} x float> {{.*}}, align 4,
# CHECK: call void @llvm.x86.sse.sfence()
# CHECK-NEXT: ret void
from spirjit import kernel_api as kapi  # noqa: E402


def add(item, a, b, c):
    i = item.get_id(0)
    c[i] = a[i] + b[i]


# A kernel whose items talk through atomics keeps its stores as they are:
# a non-temporal store could become visible after the atomic.
# ATOMIC-LABEL: define void @spirjit_count.chunk(
# ATOMIC-NOT: streaming
# ATOMIC-NOT: nontemporal
def count(item, a, bins):
    i = item.get_id(0)
    kapi.AtomicRef(bins, a[i] % 4).fetch_add(1)
    a[i] = a[i] + 1
