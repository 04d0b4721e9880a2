# RUN: env SPIRJIT_LIBDEVICE=%t.missing.bc %not %spirjit-dump-ir %s smooth --sig "(float32[::1])" --target cuda --stage ptx 2>&1 | FileCheck %s
# exp has no native PTX instruction: CUDA devices compute it through
# libdevice, and without it the error names the user's function and line.
# CHECK: libdevice-missing.py:[[@LINE+3]]: 'smooth' calls math functions (expf) that CUDA devices compute through NVIDIA's libdevice
# CHECK-SAME: set SPIRJIT_LIBDEVICE to libdevice.10.bc
import math
def smooth(item, a):
    i = item.get_id(0)
    a[i] = math.exp(a[i])
