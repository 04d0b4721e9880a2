# RUN: %spirjit-dump-ir %s maybe --sig "(float64[::1], int64)" --stage pyir | FileCheck %s
# A variable that is None on one path and a number on another becomes a
# flag and a value (frontend/Optionals.h): `x is not None` reads the flag,
# the use under the test reads the value, undefined where x is None.

# CHECK-LABEL: function maybe(item, a, c)
# CHECK-DAG: [[UNDEF:%[0-9]+]] = undef
# CHECK-DAG: [[NO:%[0-9]+]] = const False
# CHECK-DAG: [[YES:%[0-9]+]] = const True
# CHECK: [[FLAG:%[0-9]+]] = phi [[YES]], [[NO]]
# CHECK-NEXT: [[VALUE:%[0-9]+]] = phi {{%[0-9]+}}, [[UNDEF]]
# CHECK-NOT: const None
# CHECK: {{unop not|truth}} [[FLAG]]{{.*}} ; line [[@LINE+12]]
# CHECK-NOT: cmp is
# CHECK: binop + {{%[0-9]+}}, [[VALUE]]{{.*}} ; line [[@LINE+11]]


def maybe(item, a, c):
    i = item.get_id(0)
    x = None
    if c > 0:
        x = 3.0
    else:
        x = None
    if x is not None:
        a[i] = a[i] + x
