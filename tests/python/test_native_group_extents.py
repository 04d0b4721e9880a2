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

from kapi_kernels import tree_reduce as shared_tree_reduce

# A kernel object of this file's own, so that its .stats count this file's
# compilations only (other files launch the shared one).
tree_reduce = spirjit.kernel(shared_tree_reduce.py_func)

NATIVE = "native:cpu:0"

pytestmark = pytest.mark.skipif(
    not any(d.filter_string == NATIVE for d in spirjit.devices()),
    reason="the native CPU device is not enabled (SPIRJIT_NATIVE=1)")


@spirjit.kernel
def where_am_i(item: kapi.NdItem, out):
    i = item.get_global_id(0)
    j = item.get_global_id(1)
    out[i, j] = (item.get_local_id(0) * 1000 + item.get_local_id(1) * 100 +
                 item.get_local_range(0) * 10 + item.get_local_range(1))


def _group_sums(a, group):
    out = spirjit.zeros(a.size // group, dtype="float64", device=NATIVE)
    spirjit.call_kernel(tree_reduce, kapi.NdRange(a.size, group),
                        spirjit.asarray(a, device=NATIVE), out,
                        kapi.LocalAccessor(group, np.float64))
    return out.asnumpy()


def test_each_group_shape_gets_its_own_kernel_and_answer():
    a = np.random.default_rng(5).random(4096)
    def built():  # compiled here, or found in the disk cache another filled
        stats = tree_reduce.stats
        return stats["compiles"] + stats["disk_hits"]

    before = built()
    for group in (256, 16, 64, 256, 16):
        got = _group_sums(a, group)
        np.testing.assert_allclose(got, a.reshape(-1, group).sum(axis=1),
                                   rtol=1e-12)
    assert built() - before == 3


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
