# RUN: %spirjit-dump-ir %s count --sig "(int32[::1], float32[::1])" --stage spv | FileCheck %s
# Integer atomics are SPIR-V atomic instructions; float32 fetch_add is a
# compare-and-swap loop on the bits, since OpenCL 1.2 devices (PoCL) have no
# float atomics.
from spirjit import kernel_api as kapi

# CHECK: OpAtomicIAdd %uint
# CHECK: OpAtomicSMax %uint
# CHECK: OpBitcast %float
# CHECK: OpAtomicCompareExchange %uint


def count(item, counters, total):
    i = item.get_id(0)
    kapi.AtomicRef(counters, 0).fetch_add(1)
    kapi.AtomicRef(counters, 1).fetch_max(i)
    kapi.AtomicRef(total, 0).fetch_add(0.5)
