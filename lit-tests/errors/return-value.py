# RUN: %not %spirjit-dump-ir %s returns --sig "(float32[::1])" 2>&1 | FileCheck %s
# CHECK: return-value.py:[[@LINE+4]]: a kernel must not return a value


def returns(item, a):
    return a[0]
