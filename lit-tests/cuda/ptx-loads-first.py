# RUN: %spirjit-dump-ir %s price --sig "(float32[::1], float32[::1], float32[::1], float32[::1])" --target cuda --stage ptx | FileCheck %s
# A thread's global loads are issued together, before the square root and
# the division, which ptxas expands into branches it does not hoist loads
# over (written first in the source, the square root made the other two
# loads wait for the first).
# CHECK-LABEL: after ptx (kernel: price)
# CHECK-NOT: sqrt.rn.f32
# CHECK: ld.global.f32
# CHECK-NOT: sqrt.rn.f32
# CHECK: ld.global.f32
# CHECK-NOT: sqrt.rn.f32
# CHECK: ld.global.f32
# CHECK: sqrt.rn.f32
# CHECK: div.rn.f32
# CHECK: st.global.f32
import math


def price(item, t, s, x, out):
    i = item.get_id(0)
    root = math.sqrt(t[i])
    out[i] = root + s[i] / x[i]
