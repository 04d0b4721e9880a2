# RUN: %spirjit-dump-ir %s draws --jit --sig "(float64[:, ::1], int64)" --stage parfor | FileCheck %s
# np.random's calls become `random` instructions (compiler/RandomDraws.h):
# the draw (0 seed, 1 a loop's stream, 2 uniform, 3 normal) and its
# parameters, NumPy's defaults made constants. A prange loop whose body
# draws takes one stream from the host's generator before it starts, a
# parameter of its kernel; each draw in the body hashes the stream and the
# indices of the loops around it from the prange inward.
import numpy as np
from spirjit import prange


def draws(a, n):
    np.random.seed(3)
    x = np.random.uniform(1.0, 2.0)
    for i in prange(n):
        for j in range(4):
            a[i, j] = np.random.normal() + x
    return a

# CHECK-LABEL: after parfor (jit: draws)
# CHECK: %[[SEED:[0-9]+]] = const 3 : int
# CHECK-NEXT: random 0 %[[SEED]] : none ; line 13
# CHECK: %[[X:[0-9]+]] = random 2 %{{[0-9]+}}, %{{[0-9]+}} : float64 ; line 14
# CHECK: %[[STREAM:[0-9]+]] = random 1 : int64 ; line 15
# CHECK: launch 0 %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[STREAM]], %[[X]], %{{[0-9]+}} : Tuple()
# CHECK: ; parfor 0: rows kept: it holds a 'random' instruction
# CHECK-LABEL: after parfor (kernel: draws_parfor0)
# CHECK: %[[KSTREAM:[0-9]+]] = arg 1 'v{{[0-9]+}}' : int64
# CHECK: %[[I:[0-9]+]] = call %{{[0-9]+}}, %{{[0-9]+}} : int
# CHECK: %[[J:[0-9]+]] = iter_next %{{[0-9]+}} : int
# CHECK: %[[ZERO:[0-9]+]] = const 0.0 : float
# CHECK-NEXT: %[[ONE:[0-9]+]] = const 1.0 : float
# CHECK-NEXT: random 3 %[[ZERO]], %[[ONE]], %[[KSTREAM]], %[[I]], %[[J]] : float64 ; line 17
