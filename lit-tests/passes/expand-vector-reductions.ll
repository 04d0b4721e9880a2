; RUN: %spirjit-opt %s -p expand-vector-reductions | FileCheck %s
; RUN: %spirjit-opt %s -p expand-vector-reductions,promote-illegal-integers --emit spirv | FileCheck %s --check-prefix=SPIRV
; The loop vectoriser folds a reduction's lanes with llvm.vector.reduce.*
; (an int16 matrix product's inner loop), on which the SPIR-V translator of
; LLVM 15 aborts the process, and instcombine tests bool vectors through
; a bitcast to an integer, which SPIR-V lacks. Each becomes its lanes,
; extracted and folded in order; a float fold starts from its start operand.

target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"

; CHECK-LABEL: define spir_func i16 @int_sum(
; CHECK-NEXT: [[A:%.*]] = extractelement <2 x i16> %v, i64 0
; CHECK-NEXT: [[B:%.*]] = extractelement <2 x i16> %v, i64 1
; CHECK-NEXT: [[S:%.*]] = add i16 [[A]], [[B]]
; CHECK-NEXT: ret i16 [[S]]
define spir_func i16 @int_sum(<2 x i16> %v) {
  %r = call i16 @llvm.vector.reduce.add.v2i16(<2 x i16> %v)
  ret i16 %r
}

; CHECK-LABEL: define spir_func i8 @signed_max(
; CHECK: icmp sgt i8
; CHECK: select i1
; CHECK-NOT: llvm.vector.reduce
define spir_func i8 @signed_max(<2 x i8> %v) {
  %r = call i8 @llvm.vector.reduce.smax.v2i8(<2 x i8> %v)
  ret i8 %r
}

; CHECK-LABEL: define spir_func float @float_sum(
; CHECK-NEXT: [[A:%.*]] = extractelement <2 x float> %v, i64 0
; CHECK-NEXT: [[S:%.*]] = fadd float %start, [[A]]
; CHECK-NEXT: [[B:%.*]] = extractelement <2 x float> %v, i64 1
; CHECK-NEXT: [[T:%.*]] = fadd float [[S]], [[B]]
; CHECK-NEXT: ret float [[T]]
define spir_func float @float_sum(float %start, <2 x float> %v) {
  %r = call float @llvm.vector.reduce.fadd.v2f32(float %start, <2 x float> %v)
  ret float %r
}

; CHECK-LABEL: define spir_func i1 @any(
; CHECK-NOT: bitcast
; CHECK: extractelement <2 x i1> %v, i64 1
; CHECK: shl i2
; CHECK: icmp ne i2
; SPIRV-LABEL: Name {{.*}} "any"
; SPIRV-NOT: OpBitcast
; SPIRV: OpFunctionEnd
define spir_func i1 @any(<2 x i1> %v) {
  %bits = bitcast <2 x i1> %v to i2
  %r = icmp ne i2 %bits, 0
  ret i1 %r
}

declare i16 @llvm.vector.reduce.add.v2i16(<2 x i16>)
declare i8 @llvm.vector.reduce.smax.v2i8(<2 x i8>)
declare float @llvm.vector.reduce.fadd.v2f32(float, <2 x float>)
