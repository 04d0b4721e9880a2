# RUN: %spirjit-dump-ir %s scale --jit --sig "(float32[::1], float32[::1])" --stage llir.opt | FileCheck %s
# RUN: %spirjit-dump-ir %s repeat --jit --sig "(float32[::1], float32[::1], int64)" --stage llir.opt | FileCheck %s --check-prefix=LOOP
# Host code that runs straight through (once a call) is compiled fast, not
# optimised: LLVM's O0 pipeline leaves the wrapper calling the entry point
# (compiler/HostTarget.h, hostOptimisationLevel). Host code with a loop of
# its own gets the full pipeline, which inlines the entry point into the
# wrapper. The loops' kernels get the full pipeline either way.
import spirjit
from spirjit import prange


def scale(a, b):
    for i in prange(a.shape[0]):
        b[i] = a[i] * 2.0 + 1.0


def repeat(a, b, times):
    for t in range(times):
        for i in prange(a.shape[0]):
            b[i] = a[i] * 2.0 + 1.0

# CHECK-LABEL: after llir.opt (jit: scale)
# CHECK: define i32 @spirjit_scale_[[N:[0-9]+]](
# CHECK: call i32 @spirjit_host_parfor(
# CHECK: define i32 @spirjit_scale_[[N]]_call(
# CHECK: call i32 @spirjit_scale_[[N]](
# CHECK-LABEL: after llir.opt (kernel: scale_parfor0)
# CHECK: define spir_kernel void @spirjit_scale_parfor0({{.*}} nocapture readonly %a, {{.*}} nocapture writeonly %b)

# LOOP-LABEL: after llir.opt (jit: repeat)
# LOOP: define i32 @spirjit_repeat_[[N:[0-9]+]]_call(
# LOOP-NOT: call i32 @spirjit_repeat_
# LOOP: call i32 @spirjit_host_parfor(
# LOOP-LABEL: after llir.opt (kernel: repeat_parfor0)
