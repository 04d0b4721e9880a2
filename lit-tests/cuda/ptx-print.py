# RUN: %spirjit-dump-ir %s show --sig "(int64[::1])" --target cuda --stage ptx | FileCheck %s
# print on CUDA is vprintf(format, buffer): the format a global string,
# "%ld %ld\n"; the arguments packed into one local buffer at their
# natural alignment.
# CHECK-LABEL: after ptx (kernel: show)
# CHECK: .extern .func (.param .b32 func_retval0) vprintf
# CHECK: .global .align 1 .b8 printf_$_format[9] = {37, 108, 100, 32, 37, 108, 100, 10, 0};
# CHECK: st.local.u64 [[[BUF:%rd[0-9]+]]], %rd
# CHECK: st.local.u64 [[[BUF]]+8], %rd
# CHECK: cvta.global.u64
# CHECK: call.uni (retval0),
# CHECK-NEXT: vprintf,


def show(item, a):
    i = item.get_id(0)
    print(i, a[i])
