# RUN: %spirjit-dump-ir %s f --jit --sig "(float32[::1], float64[::1], int64[::1], float32[::1])" --stage parfor | FileCheck %s
# A jit function's array statements are the graph DeviceArrays record
# (compiler/ArrayKernel.h), written by the same emitter
# (compiler/ArrayValues.h): the parfor dump shows each statement's graph,
# with what each parameter is. Operators and ufuncs are applied by their
# NumPy names, astype is a cast, np.where the graph's select, a gather
# a[idx] a load at idx's element, and a @spirjit.vectorize function a
# `call` of it on the elements.
import numpy as np

import spirjit


@spirjit.vectorize
def relu(x):
    return x if x > 0 else 0.0


def f(a, b, idx, out):
    out[:] = np.where(a > 0.5, np.sqrt(a), b.astype(np.float32) * 2.0)
    out[:] = -a[idx] + relu(a)

# CHECK-LABEL: after parfor (jit: f)
# CHECK: ; array statements, each element a graph
# CHECK-NEXT: ; array statement at line 20: the element of
# CHECK-NEXT: map rank 1
# CHECK-NEXT:   %0 = load p0
# CHECK-NEXT:   %1 = scalar p1
# CHECK-NEXT:   %2 = greater %0 %1
# CHECK-NEXT:   %3 = sqrt %0
# CHECK-NEXT:   %4 = load p2
# CHECK-NEXT:   %5 = cast float32 %4
# CHECK-NEXT:   %6 = scalar p3
# CHECK-NEXT:   %7 = multiply %5 %6
# CHECK-NEXT:   %8 = where %2 %3 %7
# CHECK-NEXT:   result %8
# CHECK-NEXT:   p0: array %{{[0-9]+}} : float32[::1]
# CHECK-NEXT:   p1: host value %{{[0-9]+}} : float
# CHECK-NEXT:   p2: array %{{[0-9]+}} : float64[::1]
# CHECK-NEXT:   p3: host value %{{[0-9]+}} : float
# CHECK-NEXT: ; array statement at line 21: the element of
# CHECK-NEXT: map rank 1
# CHECK-NEXT:   %0 = load p0
# CHECK-NEXT:   %1 = load p1 %0
# CHECK-NEXT:   %2 = negative %1
# CHECK-NEXT:   %3 = function p2
# CHECK-NEXT:   %4 = load p3
# CHECK-NEXT:   %5 = call %3 %4
# CHECK-NEXT:   %6 = add %2 %5
# CHECK-NEXT:   result %6
# CHECK-NEXT:   p0: array %{{[0-9]+}} : int64[::1]
# CHECK-NEXT:   p1: array gathered %{{[0-9]+}} : float32[::1]
# CHECK-NEXT:   p2: function %{{[0-9]+}} : {{.*}}relu{{.*}}
# CHECK-NEXT:   p3: array %{{[0-9]+}} : float32[::1]
# The element code in the kernels: the ufuncs called by name, the select
# a branch and a phi.
# CHECK: ; parfor 0: a 1-D launch of kernel f_parfor0
# CHECK: global '__spirjit_numpy.greater'
# CHECK: global '__spirjit_numpy.sqrt'
# CHECK: global '__spirjit_numpy.float32'
# CHECK: global '__spirjit_numpy.multiply'
# CHECK: condbr
# CHECK: phi
# CHECK: setitem
