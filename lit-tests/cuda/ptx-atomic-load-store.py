# RUN: %spirjit-dump-ir %s wait_for --sig "(uint32[::1], uint32[::1])" --target cuda --stage ptx | FileCheck %s
# On CUDA, AtomicRef.load() and store() are the memory's own loads and
# stores (ld/st.volatile), not read-modify-writes: a loop spinning on a
# flag reads it anew each trip and contends with nothing.
# CHECK-LABEL: after ptx (kernel: wait_for)
# CHECK: ld.volatile.global.u32
# CHECK: st.volatile.global.u32
# CHECK-NOT: atom.global.or
# CHECK-NOT: atom.global.exch
from spirjit import kernel_api as kapi


def wait_for(item, flags, out):
    i = item.get_id(0)
    seen = kapi.AtomicRef(flags, 0).load()
    while seen == 0:
        seen = kapi.AtomicRef(flags, 0).load()
    kapi.AtomicRef(out, i).store(seen)
