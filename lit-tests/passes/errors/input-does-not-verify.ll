; RUN: %not %spirjit-opt %s -p remove-freezes 2>&1 | FileCheck %s
; Input that parses but breaks a rule of the verifier is blamed as read,
; before the first pass, which is named.

; CHECK: error: {{.*}}input-does-not-verify.ll does not verify as read (before 'remove-freezes'):
; CHECK-NEXT: Instruction does not dominate all uses!
define i32 @f(i32 %a) {
entry:
  %y = add i32 %x, 1
  %x = add i32 %a, 1
  ret i32 %y
}
