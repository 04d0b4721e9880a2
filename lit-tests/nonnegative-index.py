# RUN: %spirjit-dump-ir %s sums --sig "(float64[::1], float64[::1])" --stage llir | FileCheck %s
# Indices built from work-item ids, shapes, constants and counters of
# range() loops with non-negative starts are never negative, so they skip
# NumPy's wrap-around (compare, add, select): CPU vectorisers then see that
# neighbouring work-items read neighbouring elements. An index that may be
# negative (i - k) keeps it, and so does one built from an int parameter,
# which may be negative.

# CHECK-LABEL: define spir_kernel void @spirjit_sums(
# The loads of a[i + k * n] and a[k] index without a select...
# CHECK: bb3:
# CHECK-NOT: select
# CHECK: load double
# CHECK-NOT: select
# CHECK: load double
# ...while a[i - k] wraps a negative index around.
# CHECK: icmp slt i64 %{{.*}}, 0
# CHECK: select
# CHECK: load double


def sums(item, a, out):
    i = item.get_id(0)
    n = item.get_range(0)
    s = 0.0
    for k in range(a.shape[0] // n):
        s += a[i + k * n]
        s += a[k]
        s += a[i - k]
    out[i] = s
