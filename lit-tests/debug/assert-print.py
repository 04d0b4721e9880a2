# RUN: %spirjit-dump-ir %s checked --sig "(int64[::1])" --stage pyir | FileCheck %s --check-prefix=PYIR
# RUN: %spirjit-dump-ir %s checked --sig "(int64[::1])" --stage llir.opt | FileCheck %s --check-prefix=PLAIN
# RUN: %spirjit-dump-ir %s checked --sig "(int64[::1])" --stage llir --debug | FileCheck %s --check-prefix=DEBUG
# RUN: %spirjit-dump-ir %s checked --sig "(int64[::1])" --stage spv | FileCheck %s --check-prefix=SPV
# An assert is an `assert` of its message and a marked return; without
# debug its branch is never taken and the function keeps no trace of it.
# print is OpenCL's printf with its format in the constant address space.

# PYIR-NOT: global
# PYIR: %[[MESSAGE:[0-9]+]] = const 'positive'
# PYIR-NEXT: assert %[[MESSAGE]]
# PYIR-NEXT: const None
# PYIR-NEXT: ret 'assert'

# PLAIN-NOT: 10 // 0
# PLAIN: @printf.format = internal unnamed_addr addrspace(2) constant [{{[0-9]+}} x i8] c"x %ld\0A\00"
# PLAIN-LABEL: define spir_kernel void @spirjit_checked
# PLAIN: call spir_func i32 (i8 addrspace(2)*, ...) @printf
# PLAIN-NOT: debug.record

# DEBUG: define spir_kernel void @spirjit_checked(i64 addrspace(1)* %a, i64 %a.shape0, i8 addrspace(1)* %debug.record)
# DEBUG: icmp eq i64 {{.*}}, 0
# DEBUG: debug.report:

# SPV: ExtInst {{.*}} printf


def checked(item, a):
    i = item.get_id(0)
    assert a[i] > 0, "positive"
    a[i] = 100 // a[i]
    print("x", i)
