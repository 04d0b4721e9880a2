; RUN: %spirjit-opt %s -p remove-freezes | FileCheck %s
; Each freeze becomes its operand: the SPIR-V translator of LLVM 15 has no
; form for it.

target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"

; CHECK-LABEL: define spir_func i32 @divide(
; CHECK-NOT: freeze
; CHECK: %quotient = sdiv i32 %a, %b
; CHECK-NEXT: ret i32 %quotient
define spir_func i32 @divide(i32 %a, i32 %b) {
  %safe = freeze i32 %b
  %quotient = sdiv i32 %a, %safe
  ret i32 %quotient
}
