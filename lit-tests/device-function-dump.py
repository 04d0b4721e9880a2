# RUN: %spirjit-dump-ir %s scale --sig "(float32, int64)" --stage typed | FileCheck %s --check-prefix=TYPED
# RUN: %spirjit-dump-ir %s scale --sig "(float32, int64)" --stage llir | FileCheck %s
# RUN: %spirjit-dump-ir %s scale --sig "(float32, int64)" --stage spv | FileCheck %s --check-prefix=SPV
# A device function named on the command line is compiled where a kernel
# calls it and stores its result; --sig gives its own arguments. Every
# stage prints, the function's own code in the early ones (float32 *
# int64 is float64, as NumPy 2 has it).
import spirjit

# TYPED-LABEL: after typed (device function: scale, called by kernel call_scale)
# TYPED: ; device function {{.*}}scale{{.*}}(float32, int64)
# CHECK-LABEL: after llir (device function: scale, called by kernel call_scale)
# CHECK: call spir_func double @spirjit_scale.device(float %arg0, i64 %arg1)
# CHECK: define internal spir_func double @spirjit_scale.device(float %x, i64 %k)
# SPV-LABEL: after spv (device function: scale, called by kernel call_scale)
# SPV: OpEntryPoint Kernel


@spirjit.device_func
def scale(x, k):
    if x > 0:
        return x * k
    return -x
