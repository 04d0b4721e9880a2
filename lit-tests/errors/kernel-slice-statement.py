# RUN: %not %spirjit-dump-ir %s unused_slice --sig "(float32[::1])" 2>&1 | FileCheck %s
# A kernel refuses a slice even where nothing reads it: the frontend keeps
# an unused `slice` for type inference to see.

# CHECK: spirjit-dump-ir: {{.*}}kernel-slice-statement.py:[[@LINE+5]]: slices (a[1:-1]) are for jit functions' array expressions; a kernel indexes one element at a time


def unused_slice(item, a):
    i = item.get_id(0)
    a[1:]
    a[i] = 1.0
