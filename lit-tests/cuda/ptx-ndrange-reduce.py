# RUN: %spirjit-dump-ir %s tree --sig "(float64[::1], float64[::1], float64[::1] local)" --nd-range --target cuda --stage ptx | FileCheck %s
# RUN: %spirjit-dump-ir %s tree --sig "(float64[::1], float64[::1], float64[::1] local)" --nd-range --target cuda --stage ptx | FileCheck %s --check-prefix=SIGNED
# An NdRange's extents are whole work-groups: no guard compares the ids
# with the extent parameters (param_3..5), and the first instruction that
# reads memory is the load of a[...]. The loop counter `s //= 2` never
# goes negative, so it halves with an unsigned shift, not the signed
# division's four instructions.
# CHECK-LABEL: after ptx (kernel: tree)
# CHECK-NOT: spirjit_tree_param_3]
# CHECK-NOT: @%p{{[0-9]+}} bra
# CHECK: ld.global.f64
# CHECK: bar.sync 0;
# CHECK: shr.u64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 1;
# SIGNED-NOT: shr.s64
from spirjit import kernel_api as kapi


def tree(item: kapi.NdItem, a, partial, loc):
    lid = item.get_local_id(0)
    loc[lid] = a[item.get_global_id(0)]
    g = item.get_group()
    kapi.group_barrier(g)
    s = item.get_local_range(0) // 2
    while s > 0:
        if lid < s:
            loc[lid] += loc[lid + s]
        kapi.group_barrier(g)
        s //= 2
    if lid == 0:
        partial[g.get_group_id(0)] = loc[0]
