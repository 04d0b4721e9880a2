# RUN: %spirjit-dump-ir %s member --sig "(float64[::1], int64)" --stage pyir | FileCheck %s
# `x in c` and `x not in c` (CONTAINS_OP) are comparisons whose second
# operand is the container; a tuple of numbers takes them in kernels too.

# CHECK-LABEL: function member(item, a, n)
# CHECK: [[T:%[0-9]+]] = tuple
# CHECK: cmp in {{%[0-9]+}}, [[T]]{{.*}} ; line [[@LINE+8]]
# CHECK: [[U:%[0-9]+]] = tuple
# CHECK: cmp not in {{%[0-9]+}}, [[U]]{{.*}} ; line [[@LINE+8]]


def member(item, a, n):
    i = item.get_id(0)
    a[i] = 0.0
    if n in (1, 2):
        a[i] = 1.0
    if n not in (3, 4):
        a[i] = a[i] + 2.0
