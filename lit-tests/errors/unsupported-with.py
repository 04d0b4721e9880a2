# RUN: %not %spirjit-dump-ir %s uses_with --sig "(float32[::1])" 2>&1 | FileCheck %s
# An unsupported construct names itself and the user's file:line.

# CHECK: spirjit-dump-ir: {{.*}}unsupported-with.py:[[@LINE+5]]: 'with' is not supported


def uses_with(item, a):
    i = item.get_id(0)
    with open("x") as f:
        a[i] = 1
