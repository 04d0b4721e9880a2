# RUN: %spirjit-dump-ir %s apply --sig "(int32[::1], int32[::1])" --stage pyir | FileCheck %s
# getattr(obj, "name") with a constant name (here a global string, as
# numba-dpex's tests name atomic methods) is obj.name: the pyir has a getattr
# of that name and neither the string nor a call of getattr.
from spirjit import kernel_api as kapi

FETCH = "fetch_max"

# CHECK-LABEL: function apply
# CHECK-NOT: global 'getattr'
# CHECK-NOT: const '
# CHECK: getattr 'get_id' %{{[0-9]+}}
# CHECK-NOT: global 'getattr'
# CHECK-NOT: const '
# CHECK: getattr 'fetch_max' %{{[0-9]+}}
# CHECK-NOT: global 'getattr'
# CHECK-NOT: const '
# CHECK: ret


def apply(item, a, b):
    i = getattr(item, "get_id")(0)
    getattr(kapi.AtomicRef(b, 0), FETCH)(a[i])
