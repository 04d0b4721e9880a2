# RUN: %spirjit-dump-ir %s f --jit --sig "(float64[:, ::1], float64[:, ::1])" --stage parfor | FileCheck %s
# NumPy's broadcasting in array statements: `a += b` first checks that a
# and b broadcast together, then that the result fits a, whose shape stays
# (`fail`s naming the line). The loop comes twice: the host runs the copy
# that reads b's element 0 along an extent of 1 (min(i, extent - 1)) only
# when b's extents differ from a's; the other indexes b as it indexes a.


def f(a, b):
    a += b

# CHECK-LABEL: after parfor (jit: f)
# CHECK: fail '{{.*}}broadcast.py:10: operands could not be broadcast together: an extent of {got} meets one of {expected}'
# CHECK: fail '{{.*}}broadcast.py:10: operands could not be broadcast together: an extent of {got} meets one of {expected}'
# CHECK: fail '{{.*}}broadcast.py:10: non-broadcastable output operand: an extent of {got} meets one of {expected}'
# CHECK: fail '{{.*}}broadcast.py:10: non-broadcastable output operand: an extent of {got} meets one of {expected}'
# CHECK: %[[SAME0:[0-9]+]] = cmp ==
# CHECK: %[[SAME1:[0-9]+]] = cmp ==
# CHECK: %[[BOTH:[0-9]+]] = binop & %[[SAME0]], %[[SAME1]] : bool
# CHECK: condbr %[[BOTH]], bb[[PLAIN:[0-9]+]], bb[[STRETCH:[0-9]+]]
# CHECK: bb[[PLAIN]]:
# CHECK: launch 0
# CHECK: bb[[STRETCH]]:
# CHECK: launch 1
# CHECK: ; parfor 0: a 2-D launch of kernel f_parfor0
# CHECK-NOT: __spirjit_min
# CHECK: setitem
# CHECK: ; parfor 1: a 2-D launch of kernel f_parfor1
# CHECK-COUNT-2: global '__spirjit_min'
# CHECK: setitem
