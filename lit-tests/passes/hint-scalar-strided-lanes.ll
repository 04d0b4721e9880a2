; RUN: %spirjit-opt %s -p hint-scalar-strided-lanes | FileCheck %s
; RUN: %spirjit-opt %s -p hint-scalar-strided-lanes --entry rows --emit spirv | FileCheck %s --check-prefix=SPV
; Intel's CPU runtime vectorises across work-items of dimension 0. A kernel
; whose loop walks a row per work-item (`for i in prange(n): for j in
; range(m): v[i, j] = ...`) would gather one element per row into each
; vector; it gets vec_type_hint with a vector type, so the runtime compiles
; it one work-item at a time and vectorises the inner loop instead.
; Kernels where some access steps one element per work-item keep
; vectorising across work-items.

target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v128:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64-unknown-unknown"

declare spir_func i64 @_Z13get_global_idj(i32)

; v[i, j] = u[i, j] * 2 for j in range(m), i the work-item: a row apart
; from lane to lane, one element apart from iteration to iteration.
; CHECK: define spir_kernel void @rows({{.*}}) !vec_type_hint [[HINT:![0-9]+]]
; SPV: OpExecutionMode %{{[0-9]+}} VecTypeHint
define spir_kernel void @rows(float addrspace(1)* %u, float addrspace(1)* %v, i64 %m) {
entry:
  %i = call spir_func i64 @_Z13get_global_idj(i32 0)
  %row = mul i64 %i, %m
  %go = icmp sgt i64 %m, 0
  br i1 %go, label %loop, label %exit
loop:
  %j = phi i64 [ 0, %entry ], [ %j.next, %loop ]
  %k = add i64 %row, %j
  %pu = getelementptr inbounds float, float addrspace(1)* %u, i64 %k
  %x = load float, float addrspace(1)* %pu, align 4
  %y = fmul float %x, 2.0
  %pv = getelementptr inbounds float, float addrspace(1)* %v, i64 %k
  store float %y, float addrspace(1)* %pv, align 4
  %j.next = add nuw nsw i64 %j, 1
  %more = icmp slt i64 %j.next, %m
  br i1 %more, label %loop, label %exit
exit:
  ret void
}

; The same loop over a column, the work-item the column: neighbouring
; work-items read neighbouring elements. No hint.
; CHECK: define spir_kernel void @columns({{.*}}) {
define spir_kernel void @columns(float addrspace(1)* %u, float addrspace(1)* %v, i64 %m) {
entry:
  %j = call spir_func i64 @_Z13get_global_idj(i32 0)
  %go = icmp sgt i64 %m, 0
  br i1 %go, label %loop, label %exit
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %row = mul i64 %i, %m
  %k = add i64 %row, %j
  %pu = getelementptr inbounds float, float addrspace(1)* %u, i64 %k
  %x = load float, float addrspace(1)* %pu, align 4
  %pv = getelementptr inbounds float, float addrspace(1)* %v, i64 %k
  store float %x, float addrspace(1)* %pv, align 4
  %i.next = add nuw nsw i64 %i, 1
  %more = icmp slt i64 %i.next, %m
  br i1 %more, label %loop, label %exit
exit:
  ret void
}

; A contiguous chunk per work-item, whose loop steps by a parameter (a
; prange reduction's share): the step is not known to be one element, so
; no hint; the runtime's own choice stands.
; CHECK: define spir_kernel void @chunks({{.*}}) {
define spir_kernel void @chunks(double addrspace(1)* %a, double addrspace(1)* %out, i64 %chunk, i64 %trips, i64 %stride) {
entry:
  %g = call spir_func i64 @_Z13get_global_idj(i32 0)
  %begin = mul i64 %g, %chunk
  %go = icmp sgt i64 %trips, 0
  br i1 %go, label %loop, label %exit
loop:
  %t = phi i64 [ 0, %entry ], [ %t.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %off = mul i64 %t, %stride
  %k = add i64 %begin, %off
  %p = getelementptr inbounds double, double addrspace(1)* %a, i64 %k
  %x = load double, double addrspace(1)* %p, align 8
  %s.next = fadd double %s, %x
  %t.next = add nuw nsw i64 %t, 1
  %more = icmp slt i64 %t.next, %trips
  br i1 %more, label %loop, label %exit
exit:
  %r = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %po = getelementptr inbounds double, double addrspace(1)* %out, i64 %g
  store double %r, double addrspace(1)* %po, align 8
  ret void
}

; A row per work-item summed into out[i]: the store outside the loop, one
; element per work-item, runs once and does not count. Hint.
; CHECK: define spir_kernel void @row_sums({{.*}}) !vec_type_hint [[HINT]]
define spir_kernel void @row_sums(double addrspace(1)* %a, double addrspace(1)* %out, i64 %m) {
entry:
  %i = call spir_func i64 @_Z13get_global_idj(i32 0)
  %row = mul i64 %i, %m
  %go = icmp sgt i64 %m, 0
  br i1 %go, label %loop, label %exit
loop:
  %j = phi i64 [ 0, %entry ], [ %j.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %k = add i64 %row, %j
  %p = getelementptr inbounds double, double addrspace(1)* %a, i64 %k
  %x = load double, double addrspace(1)* %p, align 8
  %s.next = fadd double %s, %x
  %j.next = add nuw nsw i64 %j, 1
  %more = icmp slt i64 %j.next, %m
  br i1 %more, label %loop, label %exit
exit:
  %r = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %po = getelementptr inbounds double, double addrspace(1)* %out, i64 %i
  store double %r, double addrspace(1)* %po, align 8
  ret void
}

; CHECK: [[HINT]] = !{<4 x i32> undef, i32 1}
