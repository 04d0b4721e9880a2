# RUN: %spirjit-dump-ir %s largest --arrays --sig "(float32[:],)" --shape 100000 --stage llir.opt | FileCheck %s
# A floating max folds the value with one compare and select (LLVM's
# maxps: a NaN in leaves the kept value) and whether a NaN was met as a
# second state, so the NaN test is off the value's chain, where NumPy's
# rule (a NaN wins) had made it compare, NaN test, or and select. That
# state is an int32 mask, the compare's own width (a bool vector was
# packed to 16 bits to be ORed).
# CHECK-LABEL: after llir.opt (array kernel: array_reduce
# CHECK: phi i32 {{.*}}[ 0,
# CHECK: load float
# CHECK-NEXT: fcmp uno float
# CHECK-NEXT: fcmp ogt float [[V:%[0-9]+]], [[A:%[0-9]+]]
# CHECK-NEXT: select i1 {{%[0-9]+}}, float [[V]], float [[A]]
# CHECK-NEXT: select i1 {{%[0-9]+}}, i32 -1, i32


def largest(x):
    return x.max()
