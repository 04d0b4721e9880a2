# RUN: %spirjit-dump-ir %s vecadd --sig "(float32[::1], float32[::1], float32[::1])" --target cuda --stage ptx | FileCheck %s
# PTX 7.5 for sm_80 (no device known), the entry marked through
# nvvm.annotations; the kept parameters, then the launch's three global
# extents; threads of the rounded-up grid past the extent return at once
# (the comparison's sense is the back end's choice of branch layout).
# CHECK-LABEL: after ptx (kernel: vecadd)
# CHECK: .version 7.5
# CHECK: .target sm_80
# CHECK: .visible .entry spirjit_vecadd(
# CHECK-COUNT-3: .param .u64 spirjit_vecadd_param_{{[0-2]}},
# CHECK: .param .u64 spirjit_vecadd_param_3,
# CHECK: .param .u64 spirjit_vecadd_param_4,
# CHECK: .param .u64 spirjit_vecadd_param_5
# CHECK: ld.param.u64 [[EXTENT:%rd[0-9]+]], [spirjit_vecadd_param_3];
# CHECK: mov.u32 {{.*}}%ctaid.x
# CHECK: setp.{{ge|lt}}.u64 {{%p[0-9]+}}, {{%rd[0-9]+}}, [[EXTENT]];
# CHECK-NOT: %tid.y
# CHECK: ld.global.f32
# CHECK: add.rn.f32
# CHECK: st.global.f32


def vecadd(item, a, b, c):
    i = item.get_id(0)
    c[i] = a[i] + b[i]
