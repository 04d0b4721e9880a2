; RUN: %not %spirjit-opt %s -p remove-freezes 2>&1 | FileCheck %s
; Input that is not LLVM IR is reported with its file, line and column.

; CHECK: parse-error.ll:[[@LINE+3]]:8: error: expected instruction opcode
; CHECK-NEXT: %x = frobnicate i32 1
define void @f() {
  %x = frobnicate i32 1
  ret void
}
