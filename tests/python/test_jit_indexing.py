"""NumPy's advanced indexing in @spirjit.jit host code (issue 29): a 1-D
array indexed by an array of integers (a gather, in expressions and
reductions; a scatter when stored) and stores through a boolean mask, on
NumPy arrays and DeviceArrays of every device, compared with NumPy (reads
through a mask: test_jit_data.py)."""

import numpy as np
import pytest

import spirjit
from spirjit import jit


@jit
def gathers(a, idx):
    return a[idx] * 2, a[idx].sum() + a[idx + 1].max()


@jit
def gather_of_a_slice(a, perm):
    b = a[1:][perm]
    return b[1:] + a[perm[:-1]]


@jit
def scatter(a, idx, v):
    a[idx] = v
    return a


@jit
def scatter_own_values(a, idx):
    a[idx] = a[idx] * 10.0
    return a


@jit
def clip_above(a, limit):
    a[a > limit] = limit
    return a


@jit
def store_through(a, mask, v):
    a[mask] = v
    return a


def on(device, *arrays):
    return [spirjit.asarray(x, device=device) for x in arrays]


def host(x):
    return np.asarray(x.asnumpy() if hasattr(x, "asnumpy") else x)


def test_gathers_are_numpys(device):
    a = np.linspace(-2.0, 5.0, 10)
    idx = np.array([3, 1, 4, 1, 5, -1, 0, 8])
    for args in ((a, idx), on(device, a, idx)):
        doubled, total = gathers(*args)
        np.testing.assert_array_equal(host(doubled), a[idx] * 2)
        assert total == a[idx].sum() + a[idx + 1].max()
    perm = np.random.default_rng(0).permutation(9)
    np.testing.assert_array_equal(gather_of_a_slice(a, perm),
                                  a[1:][perm][1:] + a[perm[:-1]])


@pytest.mark.parametrize("value", [5.0, "array"])
def test_scatters_are_numpys(device, value):
    a = np.arange(10.0)
    idx = np.array([0, 2, 9, -2])
    v = np.array([7.0, 8.0, 9.0, 6.0]) if value == "array" else value
    want = a.copy()
    want[idx] = v
    np.testing.assert_array_equal(scatter(a.copy(), idx, v), want)
    got = scatter(*on(device, a, idx), v if value != "array"
                  else spirjit.asarray(v, device=device))
    np.testing.assert_array_equal(host(got), want)
    want = a.copy()
    want[idx] = want[idx] * 10.0  # the value is computed before the store
    np.testing.assert_array_equal(scatter_own_values(a.copy(), idx), want)


def test_stores_through_a_mask(device):
    a = np.linspace(-3.0, 8.0, 12)
    want = a.copy()
    want[want > 5.0] = 5.0
    np.testing.assert_array_equal(clip_above(a.copy(), 5.0), want)
    m = np.arange(12.0).reshape(3, 4)
    mask = (m % 3) == 0
    want = m.copy()
    want[mask] = -1.0
    np.testing.assert_array_equal(
        host(store_through(*on(device, m, mask), -1.0)), want)


def test_mask_of_another_shape_is_an_error(device):
    with pytest.raises(ValueError, match="boolean index did not match "
                       "indexed array along dimension 1; dimension is 4 but "
                       "corresponding boolean dimension is 5"):
        store_through(np.zeros((3, 4)), np.ones((3, 5), bool), 1.0)
