# RUN: not %spirjit-dump-ir %s carried --jit --sig "(float64[::1],)" --stage parfor 2>&1 | FileCheck %s
# A scalar carried across iterations in a way that is no reduction is an
# error at its line, not a race.
from spirjit import prange


def carried(a):
    last = 0.0
    for i in prange(a.shape[0]):
        a[i] = a[i] - last
        last = a[i]
    return last

# CHECK: errors.py:10: a prange loop assigns a variable that the loop (or the code after it) also reads, and not as a reduction
