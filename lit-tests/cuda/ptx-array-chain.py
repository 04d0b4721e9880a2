# RUN: %spirjit-dump-ir %s chain8 --arrays --sig "(float32[:], float32[:], float32[:], float32[:])" --target cuda --stage ptx --shape 64 | FileCheck %s
# The benchmark's 8-operation chain over four contiguous inputs is one
# flat Map kernel whose index is the thread's id (stride 1 compiled in: no
# multiply, no stride parameter), each input read once through the
# read-only path and the result stored once, as CuPy's fused kernel.
# CHECK-LABEL: after ptx (array kernel: array_map, {{.*}} noalias)
# CHECK: .visible .entry spirjit_array_map(
# CHECK-NOT: mul.lo
# CHECK-COUNT-4: ld.global.nc.f32
# CHECK-NOT: ld.global
# CHECK: div.rn.f32
# CHECK: st.global.f32
# CHECK-NOT: st.global


def chain8(a, b, c, d):
    return ((a + b) * c - d) * 0.5 + (a * d - b) / c
