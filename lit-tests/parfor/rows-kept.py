# RUN: env SPIRJIT_PRANGE_COALESCE=always %spirjit-dump-ir %s row_sums --jit --sig "(float32[:, ::1], float32[::1])" --stage parfor | FileCheck %s --check-prefix=SUMS
# RUN: env SPIRJIT_PRANGE_COALESCE=always %spirjit-dump-ir %s triangle --jit --sig "(float32[:, ::1], float32[:, ::1])" --stage parfor | FileCheck %s --check-prefix=TRIANGLE
# RUN: env SPIRJIT_PRANGE_COALESCE=always %spirjit-dump-ir %s then_first --jit --sig "(float32[:, ::1], float32[:, ::1], float32[::1])" --stage parfor | FileCheck %s --check-prefix=AFTER
# RUN: env SPIRJIT_PRANGE_COALESCE=always %spirjit-dump-ir %s running --jit --sig "(float32[:, ::1],)" --stage parfor | FileCheck %s --check-prefix=RUNNING
# RUN: env SPIRJIT_PRANGE_COALESCE=always %spirjit-dump-ir %s shifted --jit --sig "(float32[:, ::1],)" --stage parfor | FileCheck %s --check-prefix=SHIFTED
# Inner range loops whose iterations may depend on one another keep a row
# per work-item even where rows would be mapped onto a launch dimension
# (SPIRJIT_PRANGE_COALESCE=always); the parfor dump says why.
from spirjit import prange


def row_sums(a, out):
    for i in prange(a.shape[0]):
        s = 0.0
        for j in range(a.shape[1]):
            s += a[i, j]
        out[i] = s


def triangle(a, b):
    for i in prange(a.shape[0]):
        for j in range(i + 1):
            b[i, j] = a[i, j] + 1.0


def then_first(a, b, c):
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            b[i, j] = a[i, j] * 2.0
        c[i] = b[i, 0] + 1.0


def running(a):
    for i in prange(a.shape[0]):
        for j in range(a.shape[1] - 1):
            a[i, j + 1] = a[i, j] + a[i, j + 1]


def shifted(a):
    for i in prange(a.shape[0]):
        for j in range(1, a.shape[1]):
            a[i, j] = a[i, j - 1] * 0.5 + a[i, j]

# SUMS: ; parfor 0: a 1-D launch of kernel row_sums_parfor0
# SUMS-NEXT: ; parfor 0: rows kept: the inner loop carries a value from one iteration to the next (a reduction over the row?)
# SUMS: iter_next

# TRIANGLE: ; parfor 0: a 1-D launch of kernel triangle_parfor0
# TRIANGLE-NEXT: ; parfor 0: rows kept: the inner range's bounds vary with the prange index (a launch is a rectangle), or are more than arithmetic on values from before the loop
# TRIANGLE: iter_next

# AFTER: ; parfor 0: a 1-D launch of kernel then_first_parfor0
# AFTER-NEXT: ; parfor 0: rows kept: the body does more after the inner loop
# AFTER: iter_next

# RUNNING: ; parfor 0: a 1-D launch of kernel running_parfor0
# RUNNING-NEXT: ; parfor 0: rows kept: a write's index does not hold the prange index and the inner index unchanged
# RUNNING: iter_next

# SHIFTED: ; parfor 0: a 1-D launch of kernel shifted_parfor0
# SHIFTED-NEXT: ; parfor 0: rows kept: it reads an array it writes at another index
# SHIFTED: iter_next
