# RUN: %spirjit-dump-ir %s tree --sig "(float32[::1], float32[::1], float32[::1])" --nd-range --stage native | FileCheck %s
# RUN: %spirjit-dump-ir %s tree --sig "(float32[::1], float32[::1], float32[::1])" --nd-range --stage native | FileCheck %s --check-prefix=KEPT
# RUN: %spirjit-dump-ir %s tree --sig "(float32[::1], float32[::1], float32[::1])" --nd-range --stage native | FileCheck %s --check-prefix=UNIFORM
# RUN: %spirjit-dump-ir %s tree --sig "(float32[::1], float32[::1], float32[::1])" --nd-range --stage native | FileCheck %s --check-prefix=BOUND
# RUN: %spirjit-dump-ir %s upper --sig "(float32[::1], float32[::1])" --nd-range --stage native | FileCheck %s --check-prefix=ALL
# RUN: %spirjit-dump-ir %s rotate --sig "(float32[::1], float32[::1], float32[::1])" --nd-range --stage native | FileCheck %s --check-prefix=ITEMS
# RUN: %spirjit-dump-ir %s reduce --sig "(float64[::1], float64[::1])" --nd-range --stage native | FileCheck %s --check-prefix=REDUCE
# RUN: %not %spirjit-dump-ir %s divergent --sig "(float32[::1])" --nd-range --stage native 2>&1 | FileCheck %s --check-prefix=DIVERGENT
# A kernel with barriers is cut at them (compiler/NativeBarriers.h): a
# group runs as regions, each a loop over the group's items, one after
# another in the order the items leave (the next region's number, the
# same in every item, is kept once per group). No placeholder is left.
# Here nothing is kept per item (s is the same in every item): no
# contexts are allocated.
# CHECK-LABEL: define void @spirjit_tree.chunk(
# CHECK-NOT: aligned_alloc
# CHECK: switch i32 %region, label %group.done [
# CHECK-NEXT: i32 0, label
# CHECK-NEXT: i32 1, label
# CHECK-NEXT: ]
# CHECK-NOT: spirjit.native.
# CHECK-NOT: aligned_alloc
# What crosses a barrier and is arithmetic on work-item queries and the
# arguments (here tmp + lid) is computed again, not kept: no pointer is
# stored in a slot, and the first region's loop, which copies a[gid] to
# tmp[lid], is vectorised.
# KEPT-LABEL: define void @spirjit_tree.chunk(
# KEPT-NOT: store float*
# KEPT: load <{{[0-9]+}} x float>
# KEPT: store <{{[0-9]+}} x float>
# KEPT-NOT: store float*
# s is the same in every item of the group (uniform): kept once per group,
# not per item, a region's loop over the items reads it once, and the
# step's tmp[lid + s] is a contiguous (masked) vector load, no gather.
# UNIFORM-LABEL: define void @spirjit_tree.chunk(
# UNIFORM-NOT: store i64
# UNIFORM-NOT: gather
# UNIFORM: call <{{[0-9]+}} x float> @llvm.masked.load
# UNIFORM-NOT: gather
# UNIFORM: {{^}}}
# A step (`if lid < s:`) runs only the items below s
# (compiler/NativeItemBounds.h): the region's loop over the items stops at
# the bound computed before it, and where the guard holds in every item
# it runs (s >= 1), a copy of the loop takes it as true, vectorised
# without masks.
# BOUND-LABEL: define void @spirjit_tree.chunk(
# BOUND: [[NEEDED:%items.needed[0-9]*]] = tail call i64 @llvm.umax.i64(
# BOUND: %guards.hold{{.*}} = icmp {{.*}}[[NEEDED]]
# BOUND: br i1 %guards.hold
# BOUND: icmp ult i64 [[NEEDED]]
# BOUND-NOT: masked
# BOUND: load <{{[0-9]+}} x float>
# BOUND-NOT: masked
# BOUND: fadd <{{[0-9]+}} x float>
# BOUND-NOT: masked
# BOUND: store <{{[0-9]+}} x float>
from spirjit import kernel_api as kapi


def tree(item, a, out, tmp):
    lid = item.get_local_id(0)
    tmp[lid] = a[item.get_global_id(0)]
    s = item.get_local_range(0) // 2
    while s > 0:
        kapi.group_barrier(item.get_group())
        if lid < s:
            tmp[lid] += tmp[lid + s]
        s //= 2
    if lid == 0:
        out[item.get_group().get_group_id(0)] = tmp[0]


# `if lid >= s:` has its work in the items past s: every item runs.
# ALL-LABEL: define void @spirjit_upper.chunk(
# ALL-NOT: items.needed
# ALL: ret void
def upper(item, a, tmp):
    lid = item.get_local_id(0)
    tmp[lid] = a[item.get_global_id(0)]
    kapi.group_barrier(item.get_group())
    s = item.get_local_range(0) // 2
    if lid >= s:
        tmp[lid] += tmp[lid - s]
    kapi.group_barrier(item.get_group())
    a[item.get_global_id(0)] = tmp[lid]


# A value that differs between items and lives across a barrier (here
# what each item read of its neighbour) is in the items' contexts,
# allocated once per chunk call and freed at its end: a slot per value, an
# array over the group's items, so that an item's copy is its own.
# ITEMS-LABEL: define void @spirjit_rotate.chunk(
# ITEMS: %contexts = {{.*}}call {{.*}}i8* @aligned_alloc(i64 64,
# ITEMS: call void @free(i8* %contexts)
# ITEMS: getelementptr inbounds i8, i8* %contexts
# ITEMS-NOT: spirjit.native.
def rotate(item, a, out, scratch):
    lid = item.get_local_id(0)
    value = a[item.get_global_id(0)]
    for _ in range(3):
        scratch[lid] = value
        kapi.group_barrier(item.get_group())
        value = scratch[(lid + 1) % item.get_local_range(0)]
        kapi.group_barrier(item.get_group())
    out[item.get_global_id(0)] = value


# group_reduce is local scratch and barriers (LowerKernelAPI.cpp): the
# stores, each step of the tree, and the read of the result, 4 regions.
# REDUCE-LABEL: define void @spirjit_reduce.chunk(
# REDUCE: switch i32 %region, label %group.done [
# REDUCE-NEXT: i32 0, label
# REDUCE-NEXT: i32 1, label
# REDUCE-NEXT: i32 2, label
# REDUCE-NEXT: i32 3, label
# REDUCE-NEXT: ]
# REDUCE-NOT: spirjit.native.
def reduce(item, a, out):
    i = item.get_global_id(0)
    out[i] = kapi.group_reduce(item.get_group(), a[i], "+")


# A barrier only some items of a group reach keeps its compile-time error.
# DIVERGENT: barriers.py:[[@LINE+4]]: 'group_barrier' runs only in the work-items that take one side of the branch at line [[@LINE+3]]
def divergent(item, a):
    i = item.get_global_id(0)
    if i % 2 == 0:
        kapi.group_barrier(item.get_group())
    a[i] = 1
