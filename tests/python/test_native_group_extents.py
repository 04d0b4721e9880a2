"""The native CPU device compiles an NdRange kernel for its work-group's
extents (launch/Launcher.cpp, compiler/NativeTarget.cpp): the loops over a
group's items count to constants, as PoCL compiles per group size. A
program that launches one kernel with several work-group shapes must get
each shape's answer, one compilation per shape, and a launch with a shape
seen before must reuse that shape's kernel, never another's."""

import numpy as np
import pytest

import spirjit
from spirjit import kernel_api as kapi

NATIVE = "native:cpu:0"

pytestmark = pytest.mark.skipif(
    not any(d.filter_string == NATIVE for d in spirjit.devices()),
    reason="the native CPU device is not enabled (SPIRJIT_NATIVE=1)")


@spirjit.kernel
def group_sums(item: kapi.NdItem, a, out, loc):
    lid = item.get_local_id(0)
    loc[lid] = a[item.get_global_id(0)]
    g = item.get_group()
    kapi.group_barrier(g)
    s = item.get_local_range(0) // 2
    while s > 0:
        if lid < s:
            loc[lid] += loc[lid + s]
        kapi.group_barrier(g)
        s //= 2
    if lid == 0:
        out[g.get_group_id(0)] = loc[0]


@spirjit.kernel
def where_am_i(item: kapi.NdItem, out):
    i = item.get_global_id(0)
    j = item.get_global_id(1)
    out[i, j] = (item.get_local_id(0) * 1000 + item.get_local_id(1) * 100 +
                 item.get_local_range(0) * 10 + item.get_local_range(1))


def _group_sums(a, group):
    out = spirjit.zeros(a.size // group, dtype="float64", device=NATIVE)
    spirjit.call_kernel(group_sums, kapi.NdRange(a.size, group),
                        spirjit.asarray(a, device=NATIVE), out,
                        kapi.LocalAccessor(group, np.float64))
    return out.asnumpy()


def test_each_group_shape_gets_its_own_kernel_and_answer():
    a = np.random.default_rng(5).random(4096)
    before = group_sums.stats["compiles"]
    for group in (256, 16, 64, 256, 16):
        got = _group_sums(a, group)
        np.testing.assert_allclose(got, a.reshape(-1, group).sum(axis=1),
                                   rtol=1e-12)
    assert group_sums.stats["compiles"] - before == 3


@pytest.mark.parametrize("local", [(1, 1), (2, 8), (8, 2), (4, 4), (16, 1),
                                   (3, 5)])
def test_two_dimensional_groups_see_their_extents(local):
    shape = (local[0] * 3, local[1] * 2)
    out = spirjit.zeros(shape, dtype="int64", device=NATIVE)
    spirjit.call_kernel(where_am_i, kapi.NdRange(shape, local), out)
    i, j = np.indices(shape)
    want = ((i % local[0]) * 1000 + (j % local[1]) * 100 + local[0] * 10 +
            local[1])
    np.testing.assert_array_equal(out.asnumpy(), want)
