# RUN: %spirjit-dump-ir %s positives --jit --sig "(float64[::1],)" --stage typed | FileCheck %s
# A read through a boolean mask: the description has the jit library's
# a[mask] only once the compiler asks for it, after typing
# (LibraryOperationsNeeded); the tool describes the function again and
# prints the host code's stages once, the library's code inlined.
import numpy as np


def positives(a):
    return a[a > 0]

# CHECK: after typed (jit: positives)
# CHECK-NOT: after typed (jit: positives)
# CHECK: boolean index did not match indexed array along axis 0
# CHECK: after typed (kernel: positives_parfor0)
