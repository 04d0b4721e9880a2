"""Data constructs of numba's parallel programs in @spirjit.jit host code
(issue 29): reading an array through a boolean mask (a[mask], a 1-D array
in NumPy's order on the arrays' device) and through an array of integers,
on NumPy arrays and DeviceArrays of every device, compared with NumPy;
what jit code does not take is an error of spirjit's class at the user's
line."""

import numpy as np
import pytest

import spirjit
from spirjit import jit, prange
from spirjit.errors import UnsupportedFeatureError

from source_markers import marked_line


def on(device, *arrays):
    return [spirjit.asarray(x, device=device) for x in arrays]


def host(x):
    return np.asarray(x.asnumpy() if hasattr(x, "asnumpy") else x)


def scrambled(shape, dtype=np.float64):
    """Values of `shape` with no order to them, some negative."""
    n = int(np.prod(shape))
    values = (np.arange(n) * 7919 % 23) - 9
    return values.astype(dtype).reshape(shape)


@jit
def select(a, mask):
    return a[mask]  # <- select


@jit
def positives(a):
    return a[a > 0]


@jit
def masked_uses(a, b):
    # A read through a mask inside expressions, of an expression's mask.
    picked = a[(a > 0) & (b < 5)]
    return picked.sum(), picked * 2, a[b > 100].size


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32,
                                   np.int64, np.bool_])
def test_a_mask_selects_numpys_elements(device, require_dtypes, dtype):
    require_dtypes(dtype)
    a = scrambled(1000, dtype)
    mask = scrambled(1000) > 0
    got = select(a, mask)
    assert got.dtype == a.dtype and got.shape == a[mask].shape
    np.testing.assert_array_equal(got, a[mask])
    np.testing.assert_array_equal(positives(a), a[a > 0])


@pytest.mark.parametrize("shape", [(0,), (1,), (5,), (70000,), (30, 7),
                                   (3, 4, 5), (0, 3)])
def test_masks_of_every_rank_keep_c_order(device, require_dtypes, shape):
    require_dtypes(np.float64)
    a = scrambled(shape)
    for mask in (a > 0, a < 100, a > 100):  # some, all and no elements
        np.testing.assert_array_equal(select(a, mask), a[mask])


def test_views_and_device_arrays(device, require_dtypes):
    require_dtypes(np.float64)
    a = scrambled((20, 30))
    view = a[2:18:3, ::-2]
    np.testing.assert_array_equal(select(view, view > 2), view[view > 2])
    np.testing.assert_array_equal(select(a.T, a.T > 0), a.T[a.T > 0])
    d, m = on(device, a, a > 0)
    got = select(d, m)
    assert isinstance(got, spirjit.DeviceArray)
    assert got.device == device
    np.testing.assert_array_equal(host(got), a[a > 0])


def test_reads_through_masks_inside_expressions(device, require_dtypes):
    require_dtypes(np.float64)
    a, b = scrambled(500), scrambled(500)[::-1].copy()
    want = a[(a > 0) & (b < 5)]
    total, doubled, none = masked_uses(a, b)
    assert total == want.sum()
    np.testing.assert_array_equal(doubled, want * 2)
    assert none == 0


@jit
def gathered(a, idx):
    return a[idx]


def test_a_gather_alone_is_numpys(device, require_dtypes):
    require_dtypes(np.float64)
    a = scrambled(50)
    idx = np.array([[4, -1], [0, 49], [7, 7]])
    np.testing.assert_array_equal(gathered(a, idx), a[idx])
    got = gathered(*on(device, a, idx))
    assert isinstance(got, spirjit.DeviceArray)
    np.testing.assert_array_equal(host(got), a[idx])


@jit
def count_then_allocate(a):
    # A prange reduction's result sizes an array (regression: the
    # constructor's argument named the reduction before the launch took
    # its place).
    total = 0
    for i in prange(a.shape[0]):
        if a[i] > 0:
            total += 1
    return np.zeros(total)


def test_a_reduction_sizes_an_array(device, require_dtypes):
    require_dtypes(np.float64)
    a = scrambled(100)
    np.testing.assert_array_equal(count_then_allocate(a),
                                  np.zeros((a > 0).sum()))


def test_a_mask_of_another_shape_is_numpys_error(device, require_dtypes):
    require_dtypes(np.float64)
    with pytest.raises(ValueError) as info:
        select(np.zeros((3, 4)), np.ones((3, 5), bool))
    message = str(info.value)
    assert message.startswith(
        f"{__file__}:{marked_line(__file__, 'select')}: ")
    assert message.endswith(
        "boolean index did not match indexed array along axis 1; size of "
        "axis is 4 but size of corresponding boolean axis is 5")


@jit
def rows_by_mask(a, mask):
    return a[mask]  # <- row-mask


@jit
def mask_in_a_loop(a, out):
    for i in prange(out.shape[0]):
        out[i] = a[a > i].sum()  # <- mask-in-loop
    return out


def test_what_a_mask_read_does_not_take(device, require_dtypes):
    require_dtypes(np.float64)
    with pytest.raises(UnsupportedFeatureError) as info:
        rows_by_mask(np.zeros((3, 4)), np.ones(3, bool))
    message = str(info.value)
    assert f"test_jit_data.py:{marked_line(__file__, 'row-mask')}: " \
        in message
    assert "this mask has 1 dimension(s), the array 2" in message
    with pytest.raises(UnsupportedFeatureError) as info:
        mask_in_a_loop(np.arange(5.0), np.zeros(3))
    message = str(info.value)
    assert f"test_jit_data.py:{marked_line(__file__, 'mask-in-loop')}: " \
        in message
    assert "a[mask] (a boolean mask) makes a new array" in message
