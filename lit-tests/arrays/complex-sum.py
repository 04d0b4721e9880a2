# RUN: %spirjit-dump-ir %s dot --arrays --sig "(complex128[:], complex128[:])" --stage bytecode | FileCheck %s
# RUN: %spirjit-dump-ir %s dot --arrays --sig "(complex64[:], complex64[:])" --stage typed | FileCheck %s --check-prefix=TYPED
# A complex sum is the real reductions' kernel with a complex accumulator:
# the products and their sum are one reduction kernel (no kernel stores
# the products), and its work-groups fold their partial sums with
# kapi.group_reduce on complex numbers.
# CHECK: after bytecode (array kernel: array_reduce-
# CHECK: reduce sum into complex128 as complex128
# CHECK-NEXT: %0 = load p0
# CHECK-NEXT: %1 = load p1
# CHECK-NEXT: %2 = multiply %0 %1
# CHECK-NEXT: result %2
# CHECK-NOT: array kernel
# TYPED: after typed (array kernel: array_reduce-
# TYPED: getitem {{.*}} : complex64
# TYPED: Function(numpy.multiply)
# TYPED: binop + {{.*}} : complex64
# TYPED: global {{.*}}group_reduce
# TYPED-NEXT: const '+'
# TYPED-NEXT: call {{.*}} : complex64
# TYPED-NOT: array kernel


def dot(a, b):
    return (a * b).sum()


# RUN: %spirjit-dump-ir %s largest --arrays --sig "(complex128[:],)" --stage typed | FileCheck %s --check-prefix=MAX
# min and max of complex numbers fold in NumPy's order, np.maximum's, and
# so does their group_reduce.
# MAX: after typed (array kernel: array_reduce-
# MAX: Function(numpy.maximum)
# MAX: global {{.*}}group_reduce
# MAX-NEXT: const 'max'
# MAX-NEXT: call {{.*}} : complex128
def largest(x):
    return x.max()
