# RUN: %spirjit-dump-ir %s vecadd --sig "(float32[::1], float32[::1], float32[::1])" --stage llir.opt | FileCheck %s
# RUN: %spirjit-dump-ir %s last --sig "(float32[::1], float32[::1], int64)" --stage llir.opt | FileCheck %s --check-prefix=LAST
# After optimisation the kernel keeps only the parameters its code reads:
# vecadd's indices are work-item ids (never negative), so the extents that
# the negative-index wrap-around needed go; `last` reads an extent through
# a[-1] and keeps it, and drops the scalar it never uses.

# CHECK: define spir_kernel void @spirjit_vecadd(float addrspace(1)* {{.*}}%a, float addrspace(1)* {{.*}}%b, float addrspace(1)* {{.*}}%c)

# LAST: define spir_kernel void @spirjit_last(float addrspace(1)* {{.*}}%a, i64 %a.shape0, float addrspace(1)* {{.*}}%out)


def vecadd(item, a, b, c):
    i = item.get_id(0)
    c[i] = a[i] + b[i]


def last(item, a, out, unused):
    out[item.get_id(0)] = a[-1]
