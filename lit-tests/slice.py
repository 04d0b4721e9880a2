# RUN: %spirjit-dump-ir %s shift --jit --sig "(float64[::1], float64[::1])" --stage pyir | FileCheck %s
# `start:stop:step` is a `slice` instruction of two or three operands
# (None for an omitted bound), not a call: the frontend makes it, and
# only host code's array expressions take it.


def shift(a, b):
    b[:-1] = a[1:]
    return a[::2]

# CHECK-LABEL: function shift(a, b)
# CHECK-NOT: = call 
# CHECK: %[[ONE:[0-9]+]] = const 1 ; line 8
# CHECK-NEXT: %[[NONE:[0-9]+]] = const None ; line 8
# CHECK-NEXT: %[[S1:[0-9]+]] = slice %[[ONE]], %[[NONE]] ; line 8
# CHECK-NEXT: getitem %{{[0-9]+}}, %[[S1]] ; line 8
# CHECK-NOT: = call 
# CHECK: %[[END:[0-9]+]] = const -1 ; line 8
# CHECK-NEXT: %[[S2:[0-9]+]] = slice %{{[0-9]+}}, %[[END]] ; line 8
# CHECK-NEXT: setitem %{{[0-9]+}}, %[[S2]], %{{[0-9]+}} ; line 8
# CHECK-NOT: = call 
# CHECK: %[[TWO:[0-9]+]] = const 2 ; line 9
# CHECK-NEXT: %[[S3:[0-9]+]] = slice %{{[0-9]+}}, %{{[0-9]+}}, %[[TWO]] ; line 9
# CHECK-NEXT: getitem %{{[0-9]+}}, %[[S3]] ; line 9
