# RUN: %spirjit-dump-ir %s scale --jit --sig "(float32[::1], float32[:, ::1], int64)" --stage parfor | FileCheck %s
# A prange loop becomes a `launch` instruction in the host code: its index
# names the loop's kernel, its operands are the start, stop and step of
# each dimension (the defaults made constants), then the kernel's
# arguments; it gives the tuple of the loop's reductions.
from spirjit import prange


def scale(a, c, n):
    for i in prange(1, n):
        c[0, i] = a[i] * 2.0
    for i in prange(n):
        for j in prange(0, n, 2):
            c[i, j] = a[j]
    return c

# CHECK-LABEL: after parfor (jit: scale)
# CHECK: %[[A:[0-9]+]] = arg 0 'a' : float32[::1]
# CHECK: %[[C:[0-9]+]] = arg 1 'c' : float32[:, ::1]
# CHECK: %[[N:[0-9]+]] = arg 2 'n' : int64
# CHECK: %[[START:[0-9]+]] = const 1 : int
# CHECK: %[[STEP:[0-9]+]] = const 1 : int64
# CHECK-NEXT: launch 0 %[[START]], %[[N]], %[[STEP]], %[[A]], %[[C]] : Tuple() ; line 10
# A 2-D nest: range(n) starts at 0 with step 1; range(0, n, 2) as written.
# CHECK: %[[START1:[0-9]+]] = const 0 : int
# CHECK: %[[STEP1:[0-9]+]] = const 2 : int
# CHECK: %[[ZERO:[0-9]+]] = const 0 : int64
# CHECK-NEXT: %[[ONE:[0-9]+]] = const 1 : int64
# CHECK-NEXT: launch 1 %[[ZERO]], %[[N]], %[[ONE]], %[[START1]], %[[N]], %[[STEP1]], %{{[0-9]+}}, %{{[0-9]+}} : Tuple() ; line 12
# CHECK-NOT: iter_next
# CHECK: ; parfor 0: a 1-D launch of kernel scale_parfor0
# CHECK: ; parfor 1: a 2-D launch of kernel scale_parfor1
