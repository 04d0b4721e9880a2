; RUN: %spirjit-opt %s -p drop-unused-parameters | FileCheck %s
; The kernel keeps the pointer it stores through and the extent it reads,
; and loses the pointer that nothing reads, with its attributes; the body
; is the same.

target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"

; CHECK-LABEL: define spir_kernel void @fill(
; CHECK-SAME: float addrspace(1)* noalias %out, i64 %n)
; CHECK-NEXT: entry:
; CHECK-NEXT: %last = getelementptr float, float addrspace(1)* %out, i64 %n
; CHECK-NEXT: store float 1.000000e+00, float addrspace(1)* %last
; CHECK-NEXT: ret void
define spir_kernel void @fill(float addrspace(1)* noalias %unused, float addrspace(1)* noalias %out, i64 %n) {
entry:
  %last = getelementptr float, float addrspace(1)* %out, i64 %n
  store float 1.0, float addrspace(1)* %last
  ret void
}
