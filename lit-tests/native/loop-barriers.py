# RUN: %spirjit-dump-ir %s matmul --sig "(float32[:, ::1], float32[:, ::1], float32[:, ::1])" --ndim 2 --stage native | FileCheck %s
# RUN: %spirjit-dump-ir %s uniform_break --sig "(float32[:, ::1], float32[:, ::1], float32[:, ::1], int64)" --ndim 2 --stage native | FileCheck %s --check-prefix=CUT
# RUN: %spirjit-dump-ir %s item_break --sig "(float32[:, ::1], float32[:, ::1], float32[:, ::1])" --ndim 2 --stage native | FileCheck %s --check-prefix=WHOLE
# RUN: %spirjit-dump-ir %s guarded --sig "(float32[:, ::1], float32[:, ::1], float32[:, ::1], int64)" --ndim 2 --stage native | FileCheck %s --check-prefix=WHOLE
# RUN: %spirjit-dump-ir %s row_sums --sig "(float32[:, ::1], float32[::1])" --stage native | FileCheck %s --check-prefix=WHOLE
# RUN: %spirjit-dump-ir %s scale --sig "(float32[::1], float32[::1])" --stage native | FileCheck %s --check-prefix=WHOLE
# A work-item's own loop that every item runs alike (its trip count from
# the arguments) gets an implicit barrier (compiler/NativeLoopBarriers.h):
# a Range's row runs in groups of 256 items, each k iteration a region whose
# loop over the items is innermost and vectorised: b[k, j] a vector load,
# acc kept per item (a vector loaded and stored in the items' contexts).
# CHECK-LABEL: define void @spirjit_matmul.chunk(
# CHECK: aligned_alloc(i64 64
# CHECK: @llvm.umin.i64(i64 {{.*}}, i64 256)
# CHECK: switch i32 %region{{[.a-z0-9]*}}, label %group.done{{[.a-z0-9]*}} [
# CHECK: load <{{[0-9]+}} x float>
# CHECK: fmul <{{[0-9]+}} x float>
# CHECK: fadd <{{[0-9]+}} x float>
# CHECK: store <{{[0-9]+}} x float>
# CHECK-NOT: spirjit.native.
def matmul(item, a, b, c):
    i = item.get_id(0)
    j = item.get_id(1)
    acc = 0.0
    for k in range(a.shape[1]):
        acc += a[i, k] * b[k, j]
    c[i, j] = acc


# A break on an argument leaves the loop in every item alike: cut too.
# CUT-LABEL: define void @spirjit_uniform_break.chunk(
# CUT: switch i32 %region
# CUT: fmul <{{[0-9]+}} x float>
def uniform_break(item, a, b, c, stop):
    i = item.get_id(0)
    j = item.get_id(1)
    acc = 0.0
    for k in range(a.shape[1]):
        if k == stop:
            break
        acc += a[i, k] * b[k, j]
    c[i, j] = acc


# Not cut: a break on the item's data (items leave at different
# iterations), a loop that only some items reach, a loop whose accesses
# that vary between items are contiguous along the loop (a row's sum: the
# items' loop would gather), a kernel without a loop.
# WHOLE-LABEL: define void @spirjit_{{[a-z_]+}}.chunk(
# WHOLE-NOT: switch i32 %region
# WHOLE-NOT: aligned_alloc
# WHOLE: ret void
def item_break(item, a, b, c):
    i = item.get_id(0)
    j = item.get_id(1)
    acc = 0.0
    for k in range(a.shape[1]):
        if b[k, j] < 0:
            break
        acc += a[i, k] * b[k, j]
    c[i, j] = acc


def guarded(item, a, b, c, n):
    i = item.get_id(0)
    j = item.get_id(1)
    if j < n:
        acc = 0.0
        for k in range(a.shape[1]):
            acc += a[i, k] * b[k, j]
        c[i, j] = acc


def row_sums(item, a, out):
    i = item.get_id(0)
    acc = 0.0
    for k in range(a.shape[1]):
        acc += a[i, k]
    out[i] = acc


def scale(item, a, b):
    i = item.get_id(0)
    b[i] = a[i] * 3
