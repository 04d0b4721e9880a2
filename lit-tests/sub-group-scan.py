# RUN: %spirjit-dump-ir %s scan --sig "(int32[::1], int32[::1])" --ndim 1 --nd-range --stage llir | FileCheck %s
# RUN: %spirjit-dump-ir %s scan --sig "(int32[::1], int32[::1])" --ndim 1 --nd-range --stage llir --target cuda | FileCheck %s --check-prefix=PTX
# A sub-group scan on SPIR-V devices is Hillis and Steele's over the group
# scratch: each step reads the slot 2^k lanes before, and two barriers
# separate the reads from the writes. On CUDA a sub-group is a warp, and the
# lanes exchange registers (shfl.sync.up) with no barrier at all.
from spirjit import kernel_api as kapi

# CHECK-LABEL: define spir_kernel void @spirjit_scan(
# CHECK: urem i64 %{{.*}}, 16
# CHECK: scan.loop:
# CHECK: scan.add:
# CHECK: add i32
# CHECK: scan.join:
# CHECK: call spir_func void @_Z7barrierj(i32 3)
# CHECK: store i32
# CHECK: call spir_func void @_Z7barrierj(i32 3)
# CHECK: shl i64
# CHECK: scan.done:
# PTX: urem i64 %{{.*}}, 32
# PTX-NOT: barrier0
# PTX: call i32 @llvm.nvvm.shfl.sync.up.i32(i32 %{{.*}}, i32 %{{.*}}, i32 1, i32 0)
# PTX: call i32 @llvm.nvvm.shfl.sync.up.i32(i32 %{{.*}}, i32 %{{.*}}, i32 16, i32 0)
# PTX-NOT: barrier0


def scan(item: kapi.NdItem, a, out):
    i = item.get_global_id(0)
    out[i] = kapi.sub_group_inclusive_scan(item.get_sub_group(), a[i], "+")
