# RUN: %spirjit-dump-ir %s add --sig "(float32[::1], float32[::1], float32[::1])" --stage llir.opt --boundscheck | FileCheck %s
# RUN: %spirjit-dump-ir %s gather --sig "(float32[::1], int64[::1], float32[::1])" --stage llir.opt --boundscheck | FileCheck %s --check-prefix=GATHER
# RUN: %spirjit-dump-ir %s row_sums --sig "(float32[:,::1], float32[::1], int64)" --stage llir.opt --boundscheck | FileCheck %s --check-prefix=LOOP
# The fast path of a checked kernel (compiler/BoundsCheckFastPath.h): a
# test at entry, from the arguments and the launch's sizes only, proves
# every index in bounds for the whole launch, and a copy of the body
# without the checks runs; otherwise the checked body. No in-bounds marker
# is left for the device compiler.

# CHECK-NOT: spirjit.inbounds
# CHECK-LABEL: define spir_kernel void @spirjit_add(
# CHECK-NEXT: checks.test:
# CHECK: call spir_func i64 @_Z15get_global_sizej(i32 0)
# CHECK: br i1 %{{[0-9]+}}, label %bb0.fast, label %bb0
# CHECK: {{^}}bb0:
# CHECK: call spir_func void @spirjit.debug.report
# CHECK: {{^}}bb0.fast:
# CHECK-NOT: icmp
# CHECK-NOT: debug.report
# CHECK: fadd float
# CHECK-NEXT: store float
# CHECK-NEXT: br label %common.ret
# CHECK-NEXT: {{^}$}}
# CHECK-NOT: spirjit.inbounds


def add(item, a, b, c):
    i = item.get_id(0)
    c[i] = a[i] + b[i]


# An index read from memory cannot be bounded at entry; the indices that
# can (i into idx and out) are: the copy keeps only the check on `a`.

# GATHER-LABEL: define spir_kernel void @spirjit_gather(
# GATHER-NEXT: checks.test:
# GATHER: {{^}}bb0.fast:
# GATHER: icmp ult i64 %{{[0-9]+}}, %a.shape0
# GATHER-NOT: %idx.shape0
# GATHER: {{^}$}}
# GATHER-NOT: spirjit.inbounds


def gather(item, a, idx, out):
    i = item.get_id(0)
    out[i] = a[idx[i]]


# A loop over range(columns): its counter lies in [0, columns) whenever the
# body runs, so the test compares columns with the extent of axis 1.

# LOOP-LABEL: define spir_kernel void @spirjit_row_sums(
# LOOP-NEXT: checks.test:
# LOOP: icmp slt i64 %{{[0-9]+}}, %m.shape1
# LOOP: {{^}}bb0.fast:
# LOOP-NOT: debug.report
# LOOP: {{^}$}}


def row_sums(item, m, out, columns):
    i = item.get_id(0)
    s = m.dtype.type(0)
    for k in range(columns):
        s += m[i, k]
    out[i] = s
