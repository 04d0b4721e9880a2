"""`for x in a` in @spirjit.jit functions (issue 29): a loop over a 1-D
array's elements or a 2-D array's rows, as NumPy and numba iterate, in host
code and inside prange bodies, on NumPy arrays and DeviceArrays of every
device, compared with plain Python; what jit code does not iterate is a
clear error at its line."""

import numpy as np
import pytest

import spirjit
from spirjit import jit, prange
from spirjit.errors import UnsupportedFeatureError

from source_markers import marked_line


def running_sums(a):
    s = 0.0
    count = 0
    for x in a:
        if x < 0:
            continue
        if x > 100:
            break
        s += x
        count += 1
    return s, count


def row_totals(grid):
    out = np.zeros(grid.shape[1])
    for row in grid:
        out += row * 2
    return out


def weighted(a, w):
    out = np.empty(a.shape[0])
    for i in prange(a.shape[0]):
        s = 0.0
        for x in w:
            s += x * a[i]
        out[i] = s
    return out


@pytest.mark.parametrize("values", [[], [1.5], [3.0, -1.0, 2.5, 200.0, 4.0],
                                    list(range(50))])
def test_a_loop_over_a_1d_arrays_elements_is_pythons(device, values):
    a = np.array(values, dtype=np.float64)
    want = running_sums(a)
    assert jit(running_sums)(a) == want
    on_device = spirjit.asarray(a, device=device)
    if device.host_unified_memory:
        assert jit(running_sums)(on_device) == want
    else:  # host code reads elements only where the host addresses them
        with pytest.raises(UnsupportedFeatureError,
                           match="move the access into a prange loop"):
            jit(running_sums)(on_device)


def test_a_loop_over_a_2d_array_takes_its_rows(device):
    grid = np.arange(12.0).reshape(4, 3)
    np.testing.assert_array_equal(jit(row_totals)(grid), row_totals(grid))


def test_a_loop_over_an_array_in_a_prange_body(device):
    a, w = np.arange(5.0), np.array([0.5, 2.0, -1.0])
    got = jit(weighted)(spirjit.asarray(a, device=device),
                        spirjit.asarray(w, device=device))
    np.testing.assert_allclose(np.asarray(got.asnumpy()
                                          if hasattr(got, "asnumpy")
                                          else got), weighted(a, w))


@jit
def over_a_tuple(x):
    s = 0
    for v in (x, 2):  # <- tuple-loop
        s += v
    return s


def test_a_loop_over_a_tuple_is_a_clear_error(device):
    with pytest.raises(UnsupportedFeatureError) as info:
        over_a_tuple(1)
    assert f"test_jit_sequence_loops.py:" \
        f"{marked_line(__file__, 'tuple-loop')}: for loops in jit functions " \
        "iterate over range(...), prange(...), pndindex(...) and arrays, not " \
        "over a 'Tuple(" in str(info.value)
