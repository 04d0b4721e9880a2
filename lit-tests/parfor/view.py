# RUN: %spirjit-dump-ir %s middle --jit --sig "(float64[::1],)" --stage parfor | FileCheck %s
# RUN: %spirjit-dump-ir %s middle --jit --sig "(float64[::1],)" --stage llir.opt | FileCheck %s --check-prefix=LLIR
# A slice used as a value is a view: the array-expression stage makes a
# `view` (base, offset per base dimension, then length, base dimension
# and step per view dimension), and the host code returns the base's
# pointer moved by the start, the length, and the stride: no copy.


def middle(a):
    v = a[1:5]
    return v

# CHECK-LABEL: after parfor (jit: middle)
# CHECK: %[[ARG:[0-9]+]] = arg 0 'a' : float64[::1]
# CHECK: %[[VIEW:[0-9]+]] = view %[[ARG]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : float64[:]
# CHECK: ret %[[VIEW]]
# CHECK-NOT: launch

# LLIR-LABEL: define {{.*}}@spirjit_middle
# LLIR: getelementptr inbounds double, double* %a
# LLIR-NOT: spirjit_host_alloc
# LLIR-NOT: spirjit_host_parfor
# LLIR: ret i32 0
