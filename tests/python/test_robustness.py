"""Ordinary code that once broke or fooled the compiler (issue 13): each
kernel's result is compared with NumPy or plain Python on every device.

Integer widths: LLVM's optimiser knows work-item ids lie below 2^62 and
narrows compares, remainders and switches on them to i62, i3, ...; SPIR-V
has 8, 16, 32 and 64 bits only, so these kernels once ended in an internal
compiler error."""

import numpy as np

import spirjit
from spirjit import kernel_api as kapi

N = 40


def launch(kernel, n, *args):
    spirjit.call_kernel(kernel, kapi.Range(n), *args)


def reference(body):
    """`body(i)` for every work-item id, as the kernels below compute it."""
    return np.array([body(i) for i in range(N)], dtype=np.int64)


# --------------------------------------------------------------------------
# Integer widths SPIR-V lacks

@spirjit.kernel
def id_in_pair(item: kapi.Item, out):
    i = item.get_id(0)
    if i == 1 or i == 2:
        out[i] = 7
    else:
        out[i] = 3


@spirjit.kernel
def id_remainders(item: kapi.Item, out):
    i = item.get_id(0)
    if i % 8 == 3 or i % 8 == 5:
        out[i] = 1
    elif i % 4 < 2:
        out[i] = 2
    else:
        out[i] = (i % 3 == 1) + (i % 7 < 2) * 10


@spirjit.kernel
def id_elif_chain(item: kapi.Item, out):
    i = item.get_id(0)
    if i == 0:
        out[i] = 10
    elif i == 1:
        out[i] = 11
    elif i == 2:
        out[i] = 12
    elif i == 33:
        out[i] = 15
    else:
        out[i] = -1


def test_compare_with_two_ids(device_filter):
    out = np.zeros(N, np.int64)
    launch(id_in_pair, N, out)
    np.testing.assert_array_equal(
        out, reference(lambda i: 7 if i == 1 or i == 2 else 3))


def test_remainders_of_ids(device_filter):
    def body(i):
        if i % 8 == 3 or i % 8 == 5:
            return 1
        if i % 4 < 2:
            return 2
        return (i % 3 == 1) + (i % 7 < 2) * 10

    out = np.zeros(N, np.int64)
    launch(id_remainders, N, out)
    np.testing.assert_array_equal(out, reference(body))


def test_elif_chain_on_id(device_filter):
    cases = {0: 10, 1: 11, 2: 12, 33: 15}
    out = np.zeros(N, np.int64)
    launch(id_elif_chain, N, out)
    np.testing.assert_array_equal(out,
                                  reference(lambda i: cases.get(i, -1)))


# --------------------------------------------------------------------------
# Python ints: literal arithmetic that stays within int64 is exact; reads
# of locals that every feasible path assigns compile (the error cases are
# in errors/test_robustness_errors.py).

@spirjit.kernel
def assigned_on_every_taken_path(item: kapi.Item, out):
    i = item.get_id(0)
    if i > 2:
        x = 1
    else:
        x = 2
    # a constant non-empty range runs its body at least once
    for k in range(3):
        v = k * i
    # read only under the condition that assigned it
    if i > 5:
        y = i
    if i > 5:
        x += y
    # assigned in an earlier iteration before it is read
    for k in range(4):
        if k > 0:
            x += z
        z = k
    out[i] = x + v + k + (2**62 + 2**62 - 1) // 2**61


def test_locals_assigned_on_every_taken_path(device_filter):
    def body(i):
        x = (1 if i > 2 else 2) + (i if i > 5 else 0) + 0 + 1 + 2
        return x + 2 * i + 3 + (2**62 + 2**62 - 1) // 2**61

    out = np.zeros(N, np.int64)
    launch(assigned_on_every_taken_path, N, out)
    np.testing.assert_array_equal(out, reference(body))
