; RUN: %spirjit-opt %s -p promote-illegal-integers | FileCheck %s
; Integers of widths SPIR-V lacks, as LLVM's optimiser makes them from
; work-item ids (known below 2^62), become the next SPIR-V width holding
; the value zero-extended: wrapping operations mask, signed ones
; sign-extend their operands from the narrow sign bit first.

target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64-unknown-unknown"

; `i == 1 or i == 2`: the range check wraps at 62 bits.
; CHECK-LABEL: define spir_func i1 @range_check(
; CHECK-NEXT: %trunc = and i64 %id, 4611686018427387903
; CHECK-NEXT: [[SUM:%.*]] = add i64 %trunc, 4611686018427387903
; CHECK-NEXT: %off = and i64 [[SUM]], 4611686018427387903
; CHECK-NEXT: %r = icmp ult i64 %off, 2
; CHECK-NEXT: ret i1 %r
define spir_func i1 @range_check(i64 %id) {
  %trunc = trunc i64 %id to i62
  %off = add i62 %trunc, -1
  %r = icmp ult i62 %off, 2
  ret i1 %r
}

; An elif chain: the case values are widened with the condition.
; CHECK-LABEL: define spir_func i32 @switch_on_id(
; CHECK: switch i64 %trunc, label %other [
; CHECK-NEXT: i64 0, label %zero
; CHECK-NEXT: i64 2305843009213693952, label %big
; CHECK-NEXT: ]
define spir_func i32 @switch_on_id(i64 %id) {
  %trunc = trunc i64 %id to i62
  switch i62 %trunc, label %other [
    i62 0, label %zero
    i62 -2305843009213693952, label %big
  ]
zero:
  ret i32 1
big:
  ret i32 2
other:
  ret i32 3
}

; A signed compare and a sign extension read bit 2 of an i3 as its sign.
; CHECK-LABEL: define spir_func i64 @signed_i3(
; CHECK: %x = and i8 {{%.*}}, 7
; CHECK-NEXT: [[SHL:%.*]] = shl i8 %x, 5
; CHECK-NEXT: [[SIGNED:%.*]] = ashr i8 [[SHL]], 5
; CHECK-NEXT: %negative = icmp slt i8 [[SIGNED]], 0
; CHECK: %wide = sext i8 {{%.*}} to i64
define spir_func i64 @signed_i3(i32 %a) {
  %x = trunc i32 %a to i3
  %negative = icmp slt i3 %x, 0
  %wide = sext i3 %x to i64
  %r = select i1 %negative, i64 %wide, i64 0
  ret i64 %r
}

; Loop-carried narrow values become wide phis; a widening to the twin's
; own width is the twin itself.
; CHECK-LABEL: define spir_func i64 @counting_loop(
; CHECK: %k = phi i64 [ 0, %entry ], [ %k.next, %loop ]
; CHECK: %k.next = and i64 {{%.*}}, 4611686018427387903
; CHECK: ret i64 %k.next
define spir_func i64 @counting_loop(i64 %n) {
entry:
  %limit = trunc i64 %n to i62
  br label %loop
loop:
  %k = phi i62 [ 0, %entry ], [ %k.next, %loop ]
  %k.next = add i62 %k, 1
  %done = icmp eq i62 %k.next, %limit
  br i1 %done, label %exit, label %loop
exit:
  %r = zext i62 %k.next to i64
  ret i64 %r
}
