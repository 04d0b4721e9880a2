# RUN: %spirjit-dump-ir %s floordiv --sig "(int32[::1], int32[::1], int32[::1])" --stage llir | FileCheck %s
# RUN: %spirjit-dump-ir %s modulo --sig "(int32[::1], int32[::1], int32[::1])" --stage llir | FileCheck %s --check-prefix=MOD
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


# Python's % takes the divisor's sign: the truncating remainder is moved by
# the divisor when their signs differ; % 0 gives 0.
# MOD-LABEL: define spir_kernel void @spirjit_modulo
# MOD: [[ZERO:%[0-9]+]] = icmp eq i32 {{%[0-9]+}}, 0
# MOD: [[R:%[0-9]+]] = srem i32
# MOD: xor i32 [[R]]
# MOD: add i32 [[R]]
# MOD: select i1 {{%[0-9]+}}, i32 0


def modulo(item, a, b, out):
    i = item.get_id(0)
    out[i] = a[i] % b[i]
