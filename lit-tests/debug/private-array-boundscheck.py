# RUN: %spirjit-dump-ir %s priv --sig "(float64[::1], int64)" --stage llir.opt --boundscheck | FileCheck %s
# RUN: %spirjit-dump-ir %s priv --sig "(float64[::1], int64)" --stage spv --boundscheck | FileCheck %s --check-prefix=SPV
# Issue 31: a PrivateArray indexed by a run-time value stays an alloca;
# the fast path's test becomes the entry block, and the alloca must stay
# first in it (SPIR-V wants every OpVariable at the start of the first
# block; the alloca was left in the old entry, and spirv-val refused it).

# CHECK-LABEL: define spir_kernel void @spirjit_priv(
# CHECK-NEXT: checks.test:
# CHECK-NEXT: alloca [4 x double]
# CHECK-NOT: alloca

# SPV-LABEL: %spirjit_priv = OpFunction
# SPV: OpLabel
# SPV-NEXT: OpVariable %_ptr_Function__arr_double_ulong_4 Function

from spirjit import kernel_api as kapi


def priv(item: kapi.Item, a, n):
    i = item.get_id(0)
    p = kapi.PrivateArray(4, a.dtype)
    for r in range(4):
        p[r] = a[i] + r
    a[i] = p[n]
