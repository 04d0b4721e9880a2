"""The native CPU device runs a region of a kernel cut at its barriers only
over the items that do something in it (compiler/NativeItemBounds.h): a
tree step's `if lid < s:` runs items 0 to s - 1. Each guard shape here is
compared with NumPy: those bounded (lid < s, s > lid, lid <= s - 1,
lid == 0), those that need every item (lid >= s, a per-item value that
changes in the region), and those a bound must not take as true in every
item it runs (a guard reached with another bound through the items below
an earlier one)."""

import math

import numpy as np
import pytest

import spirjit
from spirjit import kernel_api as kapi

from test_native_device import native  # noqa: F401 (a fixture)

LOCAL = 32
GROUPS = 5
N = LOCAL * GROUPS


def launch(kernel, *args, local=LOCAL, n=N):
    spirjit.call_kernel(kernel, kapi.NdRange((n,), (local,)), *args)


def group_sums(a, local=LOCAL):
    return a.reshape(-1, local).sum(axis=1)


@spirjit.kernel
def tree_swapped(item: kapi.NdItem, a, out, loc):
    lid = item.get_local_id(0)
    loc[lid] = a[item.get_global_id(0)]
    kapi.group_barrier(item.get_group())
    s = item.get_local_range(0) // 2
    while s > 0:
        if s > lid:
            loc[lid] += loc[lid + s]
        kapi.group_barrier(item.get_group())
        s //= 2
    if lid == 0:
        out[item.get_group().get_group_id(0)] = loc[0]


@spirjit.kernel
def tree_at_most(item: kapi.NdItem, a, out, loc):
    lid = item.get_local_id(0)
    loc[lid] = a[item.get_global_id(0)]
    kapi.group_barrier(item.get_group())
    s = item.get_local_range(0) // 2
    while s > 0:
        if lid <= s - 1:
            loc[lid] += loc[lid + s]
        kapi.group_barrier(item.get_group())
        s //= 2
    if 0 == lid:
        out[item.get_group().get_group_id(0)] = loc[0]


@pytest.mark.parametrize("kernel", [tree_swapped, tree_at_most])
def test_tree_steps_bounded(native, kernel):
    a = np.random.default_rng(2).random(N)
    out = np.zeros(GROUPS)
    launch(kernel, a, out, kapi.LocalAccessor(LOCAL, np.float64))
    np.testing.assert_allclose(out, group_sums(a))


@spirjit.kernel
def upper_half(item: kapi.NdItem, a, out, loc):
    lid = item.get_local_id(0)
    loc[lid] = a[item.get_global_id(0)]
    kapi.group_barrier(item.get_group())
    s = item.get_local_range(0) // 2
    if lid >= s:
        loc[lid] += loc[lid - s]
    kapi.group_barrier(item.get_group())
    out[item.get_global_id(0)] = loc[lid]


def test_work_in_the_items_past_the_bound(native):
    a = np.random.default_rng(3).random(N)
    out = np.zeros(N)
    launch(upper_half, a, out, kapi.LocalAccessor(LOCAL, np.float64))
    want = a.reshape(-1, LOCAL).copy()
    want[:, LOCAL // 2:] += want[:, :LOCAL // 2]
    np.testing.assert_allclose(out, want.reshape(-1))


@spirjit.kernel
def kept_per_item(item: kapi.NdItem, a, out, loc, grows):
    lid = item.get_local_id(0)
    x = a[item.get_global_id(0)]
    loc[lid] = x
    kapi.group_barrier(item.get_group())
    s = item.get_local_range(0) // 2
    while s > 0:
        x += grows
        if lid < s:
            loc[lid] += loc[lid + s]
        kapi.group_barrier(item.get_group())
        s //= 2
    out[item.get_global_id(0)] = x + loc[0]


@pytest.mark.parametrize("grows", [0.0, 1.0])
def test_value_kept_per_item_across_bounded_steps(native, grows):
    # Every item's x lives across the steps' barriers; where it changes in
    # the step, each item must run the step to keep its own.
    a = np.random.default_rng(4).random(N)
    out = np.zeros(N)
    launch(kept_per_item, a, out, kapi.LocalAccessor(LOCAL, np.float64),
           grows)
    want = a + grows * math.log2(LOCAL) + np.repeat(group_sums(a), LOCAL)
    np.testing.assert_allclose(out, want)


@spirjit.kernel
def bound_through_items_below(item: kapi.NdItem, out, loc):
    lid = item.get_local_id(0)
    loc[lid] = 0
    kapi.group_barrier(item.get_group())
    n = item.get_local_range(0)
    t = n
    if lid < n:  # every item
        t = 2
        loc[lid] = 10  # a store: a branch, not a select
    if lid < t:
        loc[lid] += 1
    kapi.group_barrier(item.get_group())
    out[item.get_global_id(0)] = loc[lid]


def test_guard_reached_with_another_bound(native):
    # Where no item took the first branch, lid < t would hold in every
    # item (t = n), but every item takes it and reaches lid < t with t = 2.
    out = np.zeros(N, dtype=np.int64)
    launch(bound_through_items_below, out,
           kapi.LocalAccessor(LOCAL, np.int64))
    lid = np.arange(N) % LOCAL
    want = 10 + (lid < 2)
    np.testing.assert_array_equal(out, want)


@spirjit.kernel
def double_first(item: kapi.NdItem, a, out, loc, count):
    lid = item.get_local_id(0)
    loc[lid] = a[item.get_global_id(0)]
    kapi.group_barrier(item.get_group())
    if count > 0 and lid < count:
        loc[lid] *= 2
    kapi.group_barrier(item.get_group())
    out[item.get_global_id(0)] = loc[lid]


@pytest.mark.parametrize("count", [-3, 0, 1, 7, LOCAL, LOCAL + 5])
def test_bound_from_an_argument(native, count):
    a = np.random.default_rng(5).random(N)
    out = np.zeros(N)
    launch(double_first, a, out, kapi.LocalAccessor(LOCAL, np.float64),
           count)
    lid = np.arange(N) % LOCAL
    np.testing.assert_allclose(out, np.where(lid < count, 2 * a, a))


@spirjit.kernel
def tree_2d(item: kapi.NdItem, a, out, loc):
    i = item.get_global_id(0)
    j = item.get_global_id(1)
    li = item.get_local_id(0)
    lj = item.get_local_id(1)
    loc[li, lj] = a[i, j]
    kapi.group_barrier(item.get_group())
    s = item.get_local_range(0) // 2
    while s > 0:
        if li < s:
            loc[li, lj] += loc[li + s, lj]
        kapi.group_barrier(item.get_group())
        s //= 2
    if li == 0:
        out[item.get_group().get_group_id(0), j] = loc[0, lj]


def test_bound_in_dimension_0_of_2d_groups(native):
    rows, cols, local = 32, 12, (8, 4)
    a = np.random.default_rng(6).random((rows, cols))
    out = np.zeros((rows // local[0], cols))
    spirjit.call_kernel(tree_2d, kapi.NdRange((rows, cols), local), a, out,
                        kapi.LocalAccessor(local, np.float64))
    np.testing.assert_allclose(out, a.reshape(-1, local[0], cols).sum(axis=1))
