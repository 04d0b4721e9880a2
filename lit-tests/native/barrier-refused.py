# RUN: %not %spirjit-dump-ir %s with_barrier --sig "(float32[::1])" --nd-range --stage native 2>&1 | FileCheck %s
# The native CPU device runs work-items one after another, so a barrier
# cannot work on it yet: refused at its line, naming a device that runs it.
# CHECK: barrier-refused.py:[[@LINE+5]]: the native CPU device does not run kernels with barriers yet; use an OpenCL device (SPIRJIT_DEVICE=opencl:cpu:0)
from spirjit import kernel_api as kapi
def with_barrier(item, a):
    i = item.get_global_id(0)
    a[i] += 1
    kapi.group_barrier(item.get_group())
    a[i] *= 2
