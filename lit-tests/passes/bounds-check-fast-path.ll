; RUN: %spirjit-opt %s -p bounds-check-fast-path --entry copy | FileCheck %s
; RUN: %spirjit-opt %s -p bounds-check-fast-path --entry loop | FileCheck %s --check-prefix=LOOP
; RUN: %spirjit-opt %s -p bounds-check-fast-path --entry gather | FileCheck %s --check-prefix=GATHER
; RUN: %spirjit-opt %s -p bounds-check-fast-path --entry huge | FileCheck %s --check-prefix=HUGE
; The fast path alone (compiler/BoundsCheckFastPath.h), on checks as the
; lowering marks them: a test at entry from the arguments and the launch's
; sizes, then a copy of the body in which the proved checks are true; the
; markers become their comparisons everywhere.

target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"

declare i1 @spirjit.inbounds(i1, i64, i64) readnone nounwind willreturn
declare spir_func i64 @_Z13get_global_idj(i32) readnone nounwind willreturn
declare spir_func void @report(i64)

; b[i] = a[i]: the global id lies in [0, global size), so the test is
; size - 1 < extent, each value it starts from within +-2^40.
; CHECK-NOT: @spirjit.inbounds(
; CHECK-LABEL: define spir_kernel void @copy(
; CHECK-NEXT: checks.test:
; CHECK-NEXT: %[[SIZE:[0-9]+]] = call spir_func i64 @_Z15get_global_sizej(i32 0)
; CHECK-NEXT: %[[LAST:[0-9]+]] = sub i64 %[[SIZE]], 1
; CHECK-NEXT: %[[SHIFTED:[0-9]+]] = add i64 %[[SIZE]], 1099511627776
; CHECK-NEXT: icmp ult i64 %[[SHIFTED]], 2199023255552
; CHECK: icmp slt i64 %[[LAST]], %n
; CHECK: br i1 %{{[0-9]+}}, label %entry.fast, label %entry
; CHECK: {{^}}entry:
; CHECK: %inside = icmp ult i64 %i, %n
; CHECK-NEXT: br i1 %inside, label %load, label %fail
; CHECK: {{^}}entry.fast:
; CHECK-NEXT: %i.fast = call spir_func i64 @_Z13get_global_idj(i32 0)
; CHECK-NEXT: %inside.fast = icmp ult i64 %i.fast, %n
; CHECK-NEXT: br i1 true, label %load.fast, label %fail.fast
define spir_kernel void @copy(float addrspace(1)* %a, float addrspace(1)* %b, i64 %n) {
entry:
  %i = call spir_func i64 @_Z13get_global_idj(i32 0)
  %inside = icmp ult i64 %i, %n
  %checked = call i1 @spirjit.inbounds(i1 %inside, i64 %i, i64 %n)
  br i1 %checked, label %load, label %fail
load:
  %p = getelementptr float, float addrspace(1)* %a, i64 %i
  %v = load float, float addrspace(1)* %p
  %q = getelementptr float, float addrspace(1)* %b, i64 %i
  store float %v, float addrspace(1)* %q
  ret void
fail:
  call spir_func void @report(i64 %i)
  ret void
}

; for k in range(stop): a[k], with the lowering's overflow-safe counter
; (next steps by select(next == INT64_MAX, stop, next + 1)): k lies in
; [0, max(0, stop - 1)].
; LOOP-LABEL: define spir_kernel void @loop(
; LOOP-NEXT: checks.test:
; LOOP: %[[LAST:[0-9]+]] = sub i64 %stop, 1
; LOOP: %[[MAX:[0-9]+]] = select i1 %{{[0-9]+}}, i64 0, i64 %[[LAST]]
; LOOP: icmp slt i64 %[[MAX]], %n
; LOOP: {{^}}body.fast:
; LOOP: br i1 true, label %latch.fast, label %fail.fast
define spir_kernel void @loop(float addrspace(1)* %a, i64 %n, i64 %stop) {
entry:
  %enter = icmp sgt i64 %stop, 0
  br i1 %enter, label %body, label %done
body:
  %next = phi i64 [ 1, %entry ], [ %step, %latch ]
  %k = phi i64 [ 0, %entry ], [ %next, %latch ]
  %inside = icmp ult i64 %k, %n
  %checked = call i1 @spirjit.inbounds(i1 %inside, i64 %k, i64 %n)
  br i1 %checked, label %latch, label %fail
latch:
  %p = getelementptr float, float addrspace(1)* %a, i64 %k
  store float 0.0, float addrspace(1)* %p
  %more = icmp slt i64 %next, %stop
  %last = icmp eq i64 %next, 9223372036854775807
  %plus = add i64 %next, 1
  %step = select i1 %last, i64 %stop, i64 %plus
  br i1 %more, label %body, label %done
fail:
  call spir_func void @report(i64 %k)
  ret void
done:
  ret void
}

; a[idx[i]]: an index read from memory differs from work-item to
; work-item, so nothing is proved and nothing is copied.
; GATHER-LABEL: define spir_kernel void @gather(
; GATHER-NEXT: entry:
; GATHER-NOT: .fast
; GATHER: %inside = icmp ult i64 %j, %n
; GATHER-NEXT: br i1 %inside, label %store, label %fail
; GATHER-NOT: .fast
; GATHER-NOT: get_global_size
define spir_kernel void @gather(float addrspace(1)* %a, i64 addrspace(1)* %idx, i64 %n) {
entry:
  %i = call spir_func i64 @_Z13get_global_idj(i32 0)
  %pi = getelementptr i64, i64 addrspace(1)* %idx, i64 %i
  %j = load i64, i64 addrspace(1)* %pi
  %inside = icmp ult i64 %j, %n
  %checked = call i1 @spirjit.inbounds(i1 %inside, i64 %j, i64 %n)
  br i1 %checked, label %store, label %fail
store:
  %p = getelementptr float, float addrspace(1)* %a, i64 %j
  store float 0.0, float addrspace(1)* %p
  ret void
fail:
  ret void
}

; a[i * 2^40]: the bound's arithmetic could wrap, so it is not proved.
; HUGE-LABEL: define spir_kernel void @huge(
; HUGE-NEXT: entry:
; HUGE-NOT: .fast
define spir_kernel void @huge(float addrspace(1)* %a, i64 %n) {
entry:
  %i = call spir_func i64 @_Z13get_global_idj(i32 0)
  %j = mul i64 %i, 1099511627776
  %inside = icmp ult i64 %j, %n
  %checked = call i1 @spirjit.inbounds(i1 %inside, i64 %j, i64 %n)
  br i1 %checked, label %store, label %fail
store:
  %p = getelementptr float, float addrspace(1)* %a, i64 %j
  store float 0.0, float addrspace(1)* %p
  ret void
fail:
  ret void
}
