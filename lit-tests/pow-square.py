# RUN: %spirjit-dump-ir %s squares --sig "(float64[::1], float32[::1])" --stage llir.opt | FileCheck %s
# RUN: %spirjit-dump-ir %s library --sig "(float64[::1], float64[::1])" --stage llir.opt | FileCheck %s --check-prefix=LIB
# x ** 2 is x * x (one rounding, as a correctly rounded pow gives): no call
# of the device's pow, which LLVM and the runtimes' vectorisers cannot see
# through; math.pow and numpy.power the same. Other exponents still call
# pow.
import math

import numpy as np

# CHECK-LABEL: define spir_kernel void @spirjit_squares
# CHECK: fmul double %[[X:[0-9]+]], %[[X]]
# CHECK: fmul float %[[Y:[0-9]+]], %[[Y]]
# CHECK: call spir_func double @_Z3powdd(double %{{[0-9]+}}, double 3.000000e+00)


# LIB-LABEL: define spir_kernel void @spirjit_library
# LIB-NOT: _Z3pow
# LIB: fmul double
# LIB-NOT: _Z3pow
# LIB: ret void


def library(item, a, b):
    i = item.get_id(0)
    a[i] = math.pow(a[i], 2.0)
    b[i] = np.power(b[i], 2.0)


def squares(item, a, b):
    i = item.get_id(0)
    a[i] = a[i] ** 2
    b[i] = b[i] ** 2.0
    a[i] = a[i] ** 3
