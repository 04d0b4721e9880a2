# RUN: %spirjit-dump-ir %s copy --sig "(int32[::1], int32[::1])" --stage parfor | FileCheck %s
# For kernels the parfor stage equals the typed one.

# CHECK: ; ----- after parfor (kernel: copy) -----
# CHECK-LABEL: function copy(item, a, out)
# CHECK: getitem {{.*}} : int32
# CHECK: setitem


def copy(item, a, out):
    i = item.get_id(0)
    out[i] = a[i]
