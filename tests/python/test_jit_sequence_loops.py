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


def over_numbers(x):
    s = 0.0
    for v in (x, 2, 3.5):  # promoted to one type, as numba's UniTuple
        s += v
    return s


def over_arrays(a, b, c):
    s = 0.0
    for arr in (a, b, c):  # arrays of one type, of any extents
        s += arr.sum()
    return s


def weights_in_prange(a):
    out = np.empty(a.shape[0])
    for i in prange(a.shape[0]):
        s = 0.0
        for w in (0.5, 0.25, 0.25):
            s += w * a[i]
        out[i] = s
    return out


def test_a_loop_over_a_tuple_of_one_type_is_pythons(device):
    assert jit(over_numbers)(1.0) == over_numbers(1.0)
    arrays = (np.ones(3), np.arange(4.0), np.full(2, 5.0))
    assert jit(over_arrays)(*[spirjit.asarray(x, device=device)
                              for x in arrays]) == over_arrays(*arrays)
    a = np.arange(4.0)
    np.testing.assert_array_equal(
        jit(weights_in_prange)(spirjit.asarray(a, device=device)).asnumpy(),
        weights_in_prange(a))


@jit
def over_a_mixed_tuple(a):
    s = 0.0
    for v in (a, 2):  # <- tuple-loop
        s += 1
    return s


def test_a_loop_over_a_mixed_tuple_is_a_clear_error(device):
    with pytest.raises(UnsupportedFeatureError) as info:
        over_a_mixed_tuple(np.ones(2))
    assert f"test_jit_sequence_loops.py:" \
        f"{marked_line(__file__, 'tuple-loop')}: for loops in jit functions " \
        "iterate over range(...), prange(...), pndindex(...), arrays and " \
        "tuples of one type, not over a 'Tuple(" in str(info.value)


def indexed_sum(a):
    s = 0.0
    for i, x in enumerate(a):
        s += i * x
    return s


def zipped(a, b, c):
    s = 0.0
    for x, y, z in zip(a, b, c):
        s += x * y - z
    return s


def weighted_rows(grid, w):
    out = np.zeros(grid.shape[1])
    for row, weight in zip(grid, w):
        out += row * weight
    return out


def enumerate_in_prange(a):
    out = np.empty(a.shape[0])
    for i in prange(a.shape[0]):
        s = 0.0
        for j, x in enumerate(a):
            s += j * x * i
        out[i] = s
    return out


def test_enumerate_and_zip_over_arrays_are_pythons(device_filter):
    a, b, c = np.arange(5.0), np.arange(3.0), np.ones(4)
    assert jit(indexed_sum)(a) == indexed_sum(a)
    assert jit(zipped)(a, b, c) == zipped(a, b, c)  # the shortest decides
    grid, w = np.arange(6.0).reshape(3, 2), np.array([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(jit(weighted_rows)(grid, w),
                                  weighted_rows(grid, w))
    np.testing.assert_array_equal(jit(enumerate_in_prange)(a),
                                  enumerate_in_prange(a))


@jit
def zip_of_a_number(a):
    s = 0.0
    for x, y in zip(a, 3):  # <- zip-number
        s += x
    return s


def test_zip_of_a_number_is_a_clear_error(device_filter):
    with pytest.raises(UnsupportedFeatureError) as info:
        zip_of_a_number(np.ones(3))
    assert f"test_jit_sequence_loops.py:" \
        f"{marked_line(__file__, 'zip-number')}: zip() in jit functions " \
        "takes arrays and lists, not a 'int'" in str(info.value)
