# RUN: %spirjit-dump-ir %s total --jit --sig "(float32[::1], float32[::1])" --stage parfor | FileCheck %s
# A prange loop with a reduction: the host function keeps a launch in the
# loop's place and takes the result out of its tuple; the kernel runs a
# loop over its share of the iterations from the identity into its
# work-item's partial: range(trips), the same trip count in every
# work-item, each iteration first + id * chunk + t * stride.
import spirjit
from spirjit import prange


def total(a, b):
    s = 0.0
    for i in prange(a.shape[0]):
        b[i] = a[i] * 2.0
        s += a[i]
    return s

# CHECK-LABEL: after parfor (jit: total)
# CHECK-NOT: iter_next
# CHECK: [[L:%[0-9]+]] = launch 0 %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : Tuple(float32)
# CHECK-NEXT: [[S:%[0-9]+]] = tuple_get 0 [[L]] : float32
# CHECK: ret [[S]]
# CHECK: ; parfor 0: a 1-D launch of kernel total_parfor0 (1 reduction(s)), argument types (float32[::1], float32[::1], int64, int64, int64, int64, float32[::1])
# CHECK: function total_parfor0(item, a, b, first, chunk, trips, stride, partial0)
# CHECK: [[ID:%[0-9]+]] = call %{{[0-9]+}}, %{{[0-9]+}} ;
# CHECK-NEXT: [[OFF:%[0-9]+]] = binop * [[ID]], %4
# CHECK-NEXT: [[BEGIN:%[0-9]+]] = binop + %3, [[OFF]]
# CHECK: global 'range'
# CHECK-NEXT: call %{{[0-9]+}}, %5 ;
# CHECK: [[ACC:%[0-9]+]] = phi
# CHECK: [[T:%[0-9]+]] = iter_next
# CHECK: [[STEP:%[0-9]+]] = binop * [[T]], %6
# CHECK-NEXT: binop + [[BEGIN]], [[STEP]]
# CHECK: binop + [[ACC]],
# CHECK: setitem %7, %{{[0-9]+}}, [[ACC]]
