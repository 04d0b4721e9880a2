# RUN: %spirjit-dump-ir %s vecadd --sig "(float32[::1], float32[::1], float32[::1])" --stage bytecode | FileCheck %s
# The bytecode stage lists CPython 3.11's instructions with cache entries
# skipped and the names each argument refers to.

# CHECK: ; ----- after bytecode (kernel: vecadd) -----
# CHECK-LABEL: bytecode of vecadd (Python 3.11
# CHECK: LOAD_METHOD 0 (get_id)
# CHECK: PRECALL 1
# CHECK-NEXT: CALL 1
# CHECK: BINARY_SUBSCR
# CHECK: BINARY_OP 0
# CHECK: STORE_SUBSCR
# CHECK: RETURN_VALUE


def vecadd(item, a, b, c):
    i = item.get_id(0)
    c[i] = a[i] + b[i]
