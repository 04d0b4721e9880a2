; RUN: %spirjit-opt %s -p separate-repeated-edges | FileCheck %s
; A switch sending two cases to one block lists its block twice in that
; block's phis; SPIR-V's OpPhi names each predecessor once, so the second
; and later edges go through one new block. Blocks without phis keep their
; repeated edges.

target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64-unknown-unknown"

; CHECK-LABEL: define spir_func i64 @two_cases_one_target(
; CHECK: switch i8 %x, label %other [
; CHECK-NEXT: i8 3, label %join
; CHECK-NEXT: i8 5, label %[[FORWARD:entry.to.join]]
; CHECK-NEXT: i8 6, label %[[FORWARD]]
; CHECK-NEXT: ]
; CHECK: [[FORWARD]]:
; CHECK-NEXT: br label %join
; CHECK: join:
; CHECK-NEXT: %r = phi i64 [ 1, %entry ], [ 2, %other ], [ 1, %[[FORWARD]] ]
define spir_func i64 @two_cases_one_target(i8 %x) {
entry:
  switch i8 %x, label %other [
    i8 3, label %join
    i8 5, label %join
    i8 6, label %join
  ]
other:
  br label %join
join:
  %r = phi i64 [ 1, %entry ], [ 1, %entry ], [ 1, %entry ], [ 2, %other ]
  ret i64 %r
}

; CHECK-LABEL: define spir_func void @no_phis(
; CHECK-NEXT: entry:
; CHECK-NEXT: switch i8 %x, label %done [
; CHECK-NEXT: i8 3, label %done
; CHECK-NEXT: ]
define spir_func void @no_phis(i8 %x) {
entry:
  switch i8 %x, label %done [
    i8 3, label %done
  ]
done:
  ret void
}
