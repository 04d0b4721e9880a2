# RUN: %spirjit-dump-ir %s scale --sig "(float64[:, ::1], float64)" --ndim 2 --target cuda --stage llir | FileCheck %s
# The NVPTX target's hooks: work-item queries from PTX special registers,
# global memory in address space 1, the kernel flagged in nvvm.annotations,
# the global size from the launch (a query emitPTX answers).
# CHECK-LABEL: after llir (kernel: scale)
# CHECK: target triple = "nvptx64-nvidia-cuda"
# CHECK: define void @spirjit_scale(double addrspace(1)*
# CHECK-DAG: call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
# CHECK-DAG: call i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
# CHECK-DAG: call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
# CHECK: call i64 @spirjit.nvptx.global.size(i32 0), !range
# CHECK: !nvvm.annotations = !{![[K:[0-9]+]]}
# CHECK: ![[K]] = !{void ({{.*}})* @spirjit_scale, !"kernel", i32 1}


def scale(item, a, k):
    i = item.get_id(0)
    j = item.get_id(1)
    a[i, j] = a[i, j] * k + item.get_range(1)
