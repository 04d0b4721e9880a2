; RUN: %spirjit-opt %s -p expand-integer-abs | FileCheck %s
; Integer llvm.abs becomes compare, negate and select, which wraps
; abs(INT_MIN) to INT_MIN as NumPy does (OpenCL's abs() is unsigned);
; llvm.fabs has a faithful OpenCL form and stays.

target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"

; CHECK-LABEL: define spir_func i32 @int_abs(
; CHECK-DAG: [[NEGATIVE:%.*]] = icmp slt i32 %x, 0
; CHECK-DAG: [[NEGATED:%.*]] = sub i32 0, %x
; CHECK: [[RESULT:%.*]] = select i1 [[NEGATIVE]], i32 [[NEGATED]], i32 %x
; CHECK-NEXT: ret i32 [[RESULT]]
define spir_func i32 @int_abs(i32 %x) {
  %r = call i32 @llvm.abs.i32(i32 %x, i1 false)
  ret i32 %r
}

; CHECK-LABEL: define spir_func float @float_abs(
; CHECK-NEXT: %r = call float @llvm.fabs.f32(float %x)
; CHECK-NEXT: ret float %r
define spir_func float @float_abs(float %x) {
  %r = call float @llvm.fabs.f32(float %x)
  ret float %r
}

declare i32 @llvm.abs.i32(i32, i1)
declare float @llvm.fabs.f32(float)
