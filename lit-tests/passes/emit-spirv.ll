; RUN: %spirjit-opt %s -p optimize --emit spirv | FileCheck %s
; After `optimize` the module becomes SPIR-V that spirv-val accepts, with
; the kernel as its entry point: the freeze, which the SPIR-V translator
; of LLVM 15 cannot take, does not reach it.

target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"

; CHECK: OpEntryPoint Kernel %{{[0-9]+}} "divide"
; CHECK-NOT: OpFreeze
; CHECK: OpSDiv
define spir_kernel void @divide(i32 addrspace(1)* %out, i32 %a, i32 %b) {
entry:
  %safe = freeze i32 %b
  %q = sdiv i32 %a, %safe
  store i32 %q, i32 addrspace(1)* %out
  ret void
}
