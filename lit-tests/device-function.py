# RUN: %spirjit-dump-ir %s kernel --sig "(float32[::1], float32[::1])" --stage llir | FileCheck %s
# RUN: %spirjit-dump-ir %s kernel --sig "(float32[::1], float32[::1])" --stage typed | FileCheck %s --check-prefix=TYPED
# A device function becomes an internal function of the kernel's module,
# specialised for the argument types of the call; a Python literal argument
# stays weak (NEP 50), so float32 * 3 stays float32 inside.
import spirjit

# TYPED: call {{.*}} : float32
# TYPED: ; device function {{.*}}scale{{.*}}(float32, int)
# CHECK-LABEL: define spir_kernel void @spirjit_kernel
# CHECK: call spir_func float @spirjit_scale.device(float %{{.*}}, i64 3)
# CHECK: define internal spir_func float @spirjit_scale.device(float %x, i64 %k)


@spirjit.device_func
def scale(x, k):
    if x > 0:
        return x * k
    return -x


def kernel(item, a, out):
    i = item.get_id(0)
    out[i] = scale(a[i], 3)
