# RUN: %spirjit-dump-ir %s loop --sig "(float64[::1], float64[::1])" --stage pyir | FileCheck %s
# Locals and the value stack become SSA values: the loop-carried `total`
# is a phi at the loop header; every instruction carries its line.

# CHECK-LABEL: function loop(item, a, out)
# CHECK: getiter
# CHECK: phi
# CHECK: iter_valid
# CHECK-NEXT: iter_next
# CHECK-NEXT: condbr
# CHECK: binop + {{.*}} ; line [[@LINE+9]]
# CHECK: setitem {{.*}} ; line [[@LINE+9]]
# CHECK-NOT: phi


def loop(item, a, out):
    i = item.get_id(0)
    total = 0
    for k in range(a.shape[0]):
        total = total + a[k]
    out[i] = total
