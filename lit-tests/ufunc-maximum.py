# RUN: %spirjit-dump-ir %s extremes --sig "(float64[::1], float64[::1], int32[::1])" --stage llir | FileCheck %s
# np.maximum in a kernel is NumPy's (ArrayOps.def's MaxMin row): the first
# operand when it is greater or NaN, else the second, so a NaN in either
# wins and of -0.0 and 0.0 the second; Python's max keeps its own rule (the
# first unless the second is greater). np.add of an int32 and a Python int
# stays int32 (NEP 50).
import numpy as np


def extremes(item, a, b, c):
    i = item.get_id(0)
    a[i] = np.maximum(a[i], b[i])
    b[i] = max(a[i], b[i])
    c[i] = np.add(c[i], 1)

# CHECK-LABEL: define spir_kernel void @spirjit_extremes
# CHECK: %[[GT:[0-9]+]] = fcmp ogt double %[[A:[0-9]+]], %[[B:[0-9]+]]
# CHECK: %[[NAN:[0-9]+]] = fcmp uno double %[[A]], %[[A]]
# CHECK: %[[WINS:[0-9]+]] = or i1 %[[GT]], %[[NAN]]
# CHECK: select i1 %[[WINS]], double %[[A]], double %[[B]]
# CHECK: %[[PY:[0-9]+]] = fcmp ogt double %[[Y:[0-9]+]], %[[X:[0-9]+]]
# CHECK: select i1 %[[PY]], double %[[Y]], double %[[X]]
# CHECK: add i32 %{{[0-9]+}}, 1
