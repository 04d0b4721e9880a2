"""group_reduce's op may be named by a string, as "+", "*", "min" or "max",
like operator.add, operator.mul, min and max; any other string in a kernel
is still rejected at its own line."""
import numpy as np
import pytest

import spirjit
from spirjit import kernel_api as kapi


@spirjit.kernel
def reduce_by_name(item: kapi.NdItem, a, out):
    g = item.get_group()
    i = item.get_global_id(0)
    out[i, 0] = kapi.group_reduce(g, a[i], "+")
    out[i, 1] = kapi.group_reduce(g, a[i], "*")
    out[i, 2] = kapi.group_reduce(g, a[i], op="min")
    out[i, 3] = kapi.group_reduce(g, a[i], "max")


def test_string_ops_match_numpy(device_filter):
    a = np.arange(1, 17, dtype=np.int64)
    out = np.zeros((16, 4), np.int64)
    spirjit.call_kernel(reduce_by_name, kapi.NdRange(16, 4), a, out)
    groups = a.reshape(4, 4)
    expected = np.stack([groups.sum(1), groups.prod(1), groups.min(1),
                         groups.max(1)], axis=1).repeat(4, axis=0)
    np.testing.assert_array_equal(out, expected)
    simulated = np.zeros_like(out)
    kapi.call_kernel(reduce_by_name, kapi.NdRange(16, 4), a, simulated)
    np.testing.assert_array_equal(simulated, expected)


def test_unknown_op_name_is_a_typing_error(device_filter):
    @spirjit.kernel
    def bad(item: kapi.NdItem, a):
        a[0] = kapi.group_reduce(item.get_group(), a[0], "avg")

    with pytest.raises(spirjit.errors.TypingError, match="group_reduce's op"):
        spirjit.call_kernel(bad, kapi.NdRange(4, 4), np.zeros(4))
