; RUN: %spirjit-opt %s -p split-aggregate-selects | FileCheck %s
; A select between two complex numbers (a struct) becomes one select per
; field, since SPIR-V 1.0's OpSelect takes scalars and vectors only; a
; scalar select stays.

target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"

%complex = type { float, float }

; CHECK-LABEL: define spir_func %complex @pick(
; CHECK-DAG: [[A0:%.*]] = extractvalue %complex %a, 0
; CHECK-DAG: [[B0:%.*]] = extractvalue %complex %b, 0
; CHECK: [[S0:%.*]] = select i1 %c, float [[A0]], float [[B0]]
; CHECK-NEXT: [[R0:%.*]] = insertvalue %complex undef, float [[S0]], 0
; CHECK-DAG: [[A1:%.*]] = extractvalue %complex %a, 1
; CHECK-DAG: [[B1:%.*]] = extractvalue %complex %b, 1
; CHECK: [[S1:%.*]] = select i1 %c, float [[A1]], float [[B1]]
; CHECK-NEXT: [[R1:%.*]] = insertvalue %complex [[R0]], float [[S1]], 1
; CHECK-NEXT: ret %complex [[R1]]
define spir_func %complex @pick(i1 %c, %complex %a, %complex %b) {
  %r = select i1 %c, %complex %a, %complex %b
  ret %complex %r
}

; CHECK-LABEL: define spir_func float @pick_scalar(
; CHECK-NEXT: %r = select i1 %c, float %a, float %b
; CHECK-NEXT: ret float %r
define spir_func float @pick_scalar(i1 %c, float %a, float %b) {
  %r = select i1 %c, float %a, float %b
  ret float %r
}
