# RUN: %spirjit-dump-ir %s f --arrays --sig "(float64[:], float32[:], float64[:])" --stage bytecode | FileCheck %s
# RUN: %spirjit-dump-ir %s f --arrays --sig "(float64[:], float32[:], float64[:])" --stage typed | FileCheck %s --check-prefix=TYPED
# A @spirjit.vectorize function called on DeviceArrays is a `call` node of
# the array-expression graph: it fuses with the operations around it into
# one kernel, which calls the scalar function, compiled by the ordinary
# frontend, as a device function on the elements (its inputs converted to
# the loop's dtypes, its result to the loop's result dtype).
import spirjit


@spirjit.vectorize(["float64(float64, float64)"])
def rel_diff(a, b):
    return abs(a - b) / (abs(a) + abs(b) + 1)


def f(a, b, c):
    return rel_diff(a, b) * 2 + c

# CHECK: after bytecode (array kernel: array_map-
# CHECK: map rank 1
# CHECK-NEXT: %0 = function rel_diff
# CHECK-NEXT: %1 = load p0
# CHECK-NEXT: %2 = load p1
# CHECK-NEXT: %3 = cast float64 %2
# CHECK-NEXT: %4 = call %0 %1 %3
# CHECK-NEXT: %5 = cast float64 %4
# CHECK-NEXT: %6 = scalar p2
# CHECK-NEXT: %7 = multiply %5 %6
# CHECK-NEXT: %8 = load p3
# CHECK-NEXT: %9 = add %7 %8
# CHECK-NEXT: result %9
# CHECK-NOT: array kernel

# TYPED: after typed (array kernel: array_map-
# TYPED: [[F:%[0-9]+]] = global '__spirjit_function0' : Function(device:{{.*}}rel_diff#{{[0-9a-f]+}})
# TYPED: call [[F]], {{%[0-9]+}}, {{%[0-9]+}} : float64
# TYPED: Function(numpy.multiply)
# TYPED: Function(numpy.add)
# TYPED: setitem
# TYPED: ; device function {{.*}}rel_diff#{{[0-9a-f]+}}(float64, float64)
# TYPED-NEXT: function rel_diff(a, b)  ; {{.*}}vectorize-fused.py:11
# TYPED-NOT: array kernel
