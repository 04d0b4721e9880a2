# RUN: %spirjit-dump-ir %s group_sum --sig "(float32[::1], float32[::1], float32[::1] local)" --nd-range --target cuda --stage ptx | FileCheck %s
# Local memory is one dynamic shared segment: the LocalAccessor's pointer
# parameter became a 32-bit byte offset into it. Barriers are bar.sync;
# float atomic adds are native, subtraction adds the negation.
# CHECK-LABEL: after ptx (kernel: group_sum)
# CHECK: .extern .shared .align 16 .b8 spirjit_shared[];
# CHECK: .visible .entry spirjit_group_sum(
# CHECK: .param .u32 spirjit_group_sum_param_2,
# CHECK: mov.u64 {{.*}}spirjit_shared;
# CHECK: st.shared.f32
# CHECK: bar.sync 0;
# CHECK: atom.global.add.f32
# CHECK: neg.f32
# CHECK: atom.global.add.f32
from spirjit import kernel_api as kapi


def group_sum(item: kapi.NdItem, a, out, loc):
    lid = item.get_local_id(0)
    loc[lid] = a[item.get_global_id(0)]
    kapi.group_barrier(item.get_group())
    if lid == 0:
        kapi.AtomicRef(out, 0).fetch_add(loc[0])
        kapi.AtomicRef(out, 1).fetch_sub(loc[0])
