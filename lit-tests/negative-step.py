# RUN: %spirjit-dump-ir %s countdown --sig "(int64[::1])" --stage llir.opt | FileCheck %s
# range(10, 0, -3) counts down: with the step known, the loop test is a
# single signed greater-than and the body runs 10, 7, 4, 1.

# CHECK-LABEL: define spir_kernel void @spirjit_countdown
# CHECK-NOT: icmp slt i64 %{{.*}}, 0
# CHECK: store i64


def countdown(item, out):
    i = item.get_id(0)
    s = 0
    for k in range(10, 0, -3):
        s = s * 2 + k
    out[i] = s
