; RUN: %spirjit-opt %s -p split-aggregate-phis | FileCheck %s
; A complex accumulator carried around a loop (a phi of a struct) becomes
; one phi per field: Intel's CPU runtime crashed in its instruction
; selection on such a phi in a complex tree reduction. Fields come from the
; insertvalue that built each incoming struct, or from a constant; a use
; other than extractvalue gets the struct rebuilt; scalar phis stay.

target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"

%complex = type { double, double }

; CHECK-LABEL: define spir_func %complex @sum(
; CHECK: loop:
; CHECK-NEXT: [[RE:%.*]] = phi double [ %re.next, %loop ], [ 0.000000e+00, %entry ]
; CHECK-NEXT: [[IM:%.*]] = phi double [ %im.next, %loop ], [ 1.000000e+00, %entry ]
; CHECK-NEXT: %i = phi i64
; CHECK-NEXT: [[W0:%.*]] = insertvalue %complex undef, double [[RE]], 0
; CHECK-NEXT: [[W1:%.*]] = insertvalue %complex [[W0]], double [[IM]], 1
; CHECK-NEXT: %re.next = fadd double [[RE]], %x
; CHECK-NEXT: %im.next = fadd double [[IM]], %x
; CHECK-NEXT: %i.next
; CHECK-NOT: insertvalue
; CHECK: exit:
; CHECK-NEXT: ret %complex [[W1]]
define spir_func %complex @sum(double %x, i64 %n) {
entry:
  br label %loop
loop:
  %acc = phi %complex [ %acc.next, %loop ], [ { double 0.0, double 1.0 }, %entry ]
  %i = phi i64 [ %i.next, %loop ], [ 0, %entry ]
  %re = extractvalue %complex %acc, 0
  %im = extractvalue %complex %acc, 1
  %re.next = fadd double %re, %x
  %im.next = fadd double %im, %x
  %part = insertvalue %complex undef, double %re.next, 0
  %acc.next = insertvalue %complex %part, double %im.next, 1
  %i.next = add i64 %i, 1
  %more = icmp slt i64 %i.next, %n
  br i1 %more, label %loop, label %exit
exit:
  ret %complex %acc
}

; An incoming struct that was not built here (an argument) is taken apart
; at the end of its block; the field nothing reads is not.
; CHECK-LABEL: define spir_func double @pick(
; CHECK: entry:
; CHECK-NEXT: [[A1:%.*]] = extractvalue %complex %a, 1
; CHECK-NEXT: br i1 %c
; CHECK: other:
; CHECK-NEXT: [[B1:%.*]] = extractvalue %complex %b, 1
; CHECK-NEXT: br label %join
; CHECK: join:
; CHECK-NEXT: [[P:%.*]] = phi double [ [[A1]], %entry ], [ [[B1]], %other ]
; CHECK-NEXT: ret double [[P]]
define spir_func double @pick(i1 %c, %complex %a, %complex %b) {
entry:
  br i1 %c, label %join, label %other
other:
  br label %join
join:
  %z = phi %complex [ %a, %entry ], [ %b, %other ]
  %im = extractvalue %complex %z, 1
  ret double %im
}
