# RUN: %spirjit-dump-ir %s fib --sig "(int64[::1], int64[::1])" --stage spv | FileCheck %s
# RUN: %spirjit-dump-ir %s count --sig "(int64[::1], int64[::1])" --stage spv | FileCheck %s --check-prefix=PLAIN
# A loop rotating two values makes the kernel carry VecTypeHint, which keeps
# Intel's CPU runtime from vectorising it (its vectoriser crashes on the
# shape); a plain counted loop leaves the kernel to be vectorised.

# CHECK: OpEntryPoint Kernel %[[K:[0-9]+]] "spirjit_fib"
# CHECK: OpExecutionMode %[[K]] VecTypeHint
# PLAIN: OpEntryPoint Kernel
# PLAIN-NOT: VecTypeHint


def fib(item, a, out):
    i = item.get_id(0)
    f0, f1 = 0, 1
    for _ in range(a[i] % 15):
        f0, f1 = f1, f0 + f1
    out[i] = f0


def count(item, a, out):
    i = item.get_id(0)
    s = 0
    for k in range(a[i]):
        s += k
    out[i] = s
