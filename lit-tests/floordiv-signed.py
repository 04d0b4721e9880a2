# RUN: %spirjit-dump-ir %s floordiv --sig "(int32[::1], int32[::1], int32[::1])" --stage llir | FileCheck %s
# Python's // on signed integers floors: the truncating sdiv is corrected
# when remainder and divisor differ in sign, and a zero divisor gives 0
# instead of trapping.

# CHECK-LABEL: define spir_kernel void @spirjit_floordiv
# CHECK: [[ZERO:%[0-9]+]] = icmp eq i32 [[B:%[0-9]+]], 0
# CHECK: [[Q:%[0-9]+]] = sdiv i32
# CHECK: srem i32
# CHECK: sub i32 [[Q]], 1
# CHECK: select i1 [[ZERO]], i32 0


def floordiv(item, a, b, out):
    i = item.get_id(0)
    out[i] = a[i] // b[i]
