# RUN: %spirjit-dump-ir %s scale --sig "(float32[::1], float32[::1])" --stage typed | FileCheck %s
# NEP 50: Python literals are weak, so float32 arithmetic with 2.0 and 1
# stays float32 (no silent float64).

# CHECK-LABEL: function scale(item, a, out)
# CHECK: getitem {{.*}} : float32
# CHECK: const 2.0 : float
# CHECK: binop * {{.*}} : float32
# CHECK: const 1 : int
# CHECK: binop + {{.*}} : float32
# CHECK-NOT: float64


def scale(item, a, out):
    i = item.get_id(0)
    out[i] = a[i] * 2.0 + 1
