; RUN: %not %spirjit-opt %s -p remove-freezes,drop-unused-parameters --entry k 2>&1 | FileCheck %s
; A pass that fails is named: drop-unused-parameters refuses a kernel that
; something else in the module uses, since that use would break.

target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"

; CHECK: spirjit-opt: error: pass 'drop-unused-parameters' failed: internal compiler error at {{.*}}: a kernel that is also called
define spir_kernel void @k(i32 %unused) {
  ret void
}

@launch_table = global void (i32)* @k
