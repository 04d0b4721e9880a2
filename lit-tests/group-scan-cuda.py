# RUN: %spirjit-dump-ir %s scan --sig "(float64[::1], float64[::1])" --ndim 1 --nd-range --stage llir --target cuda | FileCheck %s
# On CUDA a work-group's scan scans each warp in registers (a 64-bit value
# as two 32-bit exchanges), puts each warp's total in the group scratch,
# lets the first warp scan the totals, and reads its warp's prefix back:
# two barriers, and a third before the scratch is reused.
from spirjit import kernel_api as kapi

# CHECK-LABEL: define void @spirjit_scan(
# CHECK: call i32 @llvm.nvvm.shfl.sync.up.i32(i32 %{{.*}}, i32 %{{.*}}, i32 1, i32 0)
# CHECK: call i32 @llvm.nvvm.shfl.sync.up.i32(i32 %{{.*}}, i32 %{{.*}}, i32 1, i32 0)
# CHECK: warps.total:
# CHECK: warps.total.done:
# CHECK-NEXT: call void @llvm.nvvm.barrier0()
# CHECK: warps.scan:
# CHECK: warps.scan.done:
# CHECK-NEXT: call void @llvm.nvvm.barrier0()
# CHECK: call void @llvm.nvvm.barrier0()
# CHECK-NOT: call void @llvm.nvvm.barrier0()


def scan(item: kapi.NdItem, a, out):
    i = item.get_global_id(0)
    out[i] = kapi.group_exclusive_scan(item.get_group(), a[i], "+")
