; RUN: %spirjit-opt %s -p hint-scalar-rotating-loops | FileCheck %s
; RUN: %spirjit-opt %s -p hint-scalar-rotating-loops --entry fib --emit spirv | FileCheck %s --check-prefix=SPV
; A loop that rotates values (`f0, f1 = f1, f0 + f1`) has a header phi
; taking another header phi from the latch; Intel's CPU runtime crashes
; vectorising such a kernel, so the kernel carries vec_type_hint with a
; vector type, which makes that runtime compile it without vectorising.
; Kernels without the pattern are left alone.

target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v128:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64-unknown-unknown"

; CHECK: define spir_kernel void @fib({{.*}}) !vec_type_hint [[HINT:![0-9]+]]
; SPV: OpExecutionMode %{{[0-9]+}} VecTypeHint
define spir_kernel void @fib(i64 addrspace(1)* %out, i64 %n) {
entry:
  br label %loop
loop:
  %f1 = phi i64 [ 1, %entry ], [ %sum, %loop ]
  %f0 = phi i64 [ 0, %entry ], [ %f1, %loop ]
  %k = phi i64 [ 0, %entry ], [ %k.next, %loop ]
  %sum = add i64 %f0, %f1
  %k.next = add i64 %k, 1
  %more = icmp slt i64 %k.next, %n
  br i1 %more, label %loop, label %exit
exit:
  store i64 %f0, i64 addrspace(1)* %out
  ret void
}

; A loop keeping its counter's previous value (`%prev` takes `%k`, and %k's
; next value does not depend on %prev) is not a rotation: no hint.
; CHECK: define spir_kernel void @counter({{.*}}) {
define spir_kernel void @counter(i64 addrspace(1)* %out, i64 %n) {
entry:
  br label %loop
loop:
  %k = phi i64 [ 1, %entry ], [ %k.next, %loop ]
  %prev = phi i64 [ 0, %entry ], [ %k, %loop ]
  %k.next = add i64 %k, 1
  %more = icmp slt i64 %k.next, %n
  br i1 %more, label %loop, label %exit
exit:
  store i64 %prev, i64 addrspace(1)* %out
  ret void
}

; CHECK: [[HINT]] = !{<4 x i32> undef, i32 1}
