"""spirjit.pndindex (numba's pndindex) in @spirjit.jit functions, against
NumPy and plain Python, on every device: an N-dimensional parallel loop
whose index is a tuple, a launch of as many dimensions (or, reducing, one
loop over all the iterations)."""

import numpy as np
import pytest

import spirjit
from spirjit import pndindex, prange
from spirjit.errors import UnsupportedFeatureError

from source_markers import marked_line


@spirjit.jit
def double(a, b):
    for idx in spirjit.pndindex(a.shape):
        b[idx] = a[idx] * 2
    return b


@spirjit.jit
def positions(a, n, m):
    for i, j in pndindex(n, m):
        a[i, j] = i * 100 + j
    return a


@spirjit.jit
def weighted_sum(a):
    s = 0.0
    top = -1.0
    for i, j, k in pndindex(a.shape):
        s += a[i, j, k] * (i + 2 * j + 3 * k)
        top = max(top, a[i, j, k])
    return s, top


@spirjit.jit
def count_2d(n, m):
    c = 0
    for idx in pndindex(n, m):
        c += idx[0] * m + idx[1] + 1
    return c


@pytest.mark.parametrize("shape", [(7,), (3, 5), (2, 3, 4), (1, 1), (0, 4)])
def test_tuple_index_over_a_shape(device, shape):
    a = np.arange(float(np.prod(shape))).reshape(shape)
    np.testing.assert_array_equal(double(a, np.zeros_like(a)), a * 2)


def test_device_arrays(device):
    a = spirjit.asarray(np.arange(12.0).reshape(3, 4), device=device)
    b = spirjit.zeros((3, 4), device=device)
    double(a, b)
    np.testing.assert_array_equal(b.asnumpy(), np.arange(12.0).reshape(3, 4) * 2)


@pytest.mark.parametrize("n, m", [(1, 1), (3, 7), (17, 5)])
def test_unpacked_indices(device, n, m):
    want = np.zeros((n, m))
    for i, j in np.ndindex(n, m):
        want[i, j] = i * 100 + j
    np.testing.assert_array_equal(positions(np.zeros((n, m)), n, m), want)


@pytest.mark.parametrize("shape", [(1, 1, 1), (3, 4, 5), (5, 9, 13)])
def test_reductions(device, shape):
    a = np.random.default_rng(1).random(shape)
    s, top = weighted_sum(a)
    want = sum(a[i, j, k] * (i + 2 * j + 3 * k)
               for i, j, k in np.ndindex(shape))
    assert s == pytest.approx(want, rel=1e-12)
    assert top == a.max()


@pytest.mark.parametrize("n, m", [(0, 3), (1, 1), (6, 7), (50, 33)])
def test_integer_reduction_runs_each_index_once(device, n, m):
    want = sum(i * m + j + 1 for i, j in np.ndindex(n, m))
    assert count_2d(n, m) == want


@spirjit.jit
def other_forms(a, shape):
    for idx in pndindex((3, 4)):
        a[idx] = idx[0] + idx[1]
    for i, in pndindex(a.shape[0]):
        a[i, 0] = -1
    s = 0
    for i, j in pndindex(shape):
        s += i * 7 + j
    return a, s


def python_other_forms(a, shape):
    for idx in np.ndindex((3, 4)):
        a[idx] = idx[0] + idx[1]
    for i, in np.ndindex(a.shape[0]):
        a[i, 0] = -1
    s = 0
    for i, j in np.ndindex(shape):
        s += i * 7 + j
    return a, s


@pytest.mark.parametrize("shape", [(3, 4), (1, 9), (0, 2)])
def test_one_extent_a_literal_tuple_and_a_tuple_argument(device, shape):
    got_a, got_s = other_forms(np.zeros((3, 4)), shape)
    want_a, want_s = python_other_forms(np.zeros((3, 4)), shape)
    np.testing.assert_array_equal(got_a, want_a)
    assert got_s == want_s


def test_numba_pndindex(device):
    numba = pytest.importorskip("numba")
    from numba import pndindex as nb_pndindex

    @spirjit.jit
    def f(a):
        for idx in numba.pndindex(a.shape):
            a[idx] += 1
        for i, j in nb_pndindex(a.shape[0], a.shape[1]):
            a[i, j] *= 3
        return a

    np.testing.assert_array_equal(f(np.ones((2, 3))), np.full((2, 3), 6.0))


def test_plain_python_is_ndindex():
    assert list(pndindex(2, 3)) == list(np.ndindex(2, 3))
    assert list(pndindex((3,))) == [(0,), (1,), (2,)]
    assert repr(pndindex) == "spirjit.pndindex"


def test_four_dimensions_is_an_error():
    @spirjit.jit
    def f(a, n):
        for i, j, k, m in pndindex(n, n, n, n):  # <- four-d
            a[i] = j + k + m

    with pytest.raises(UnsupportedFeatureError) as e:
        f(np.zeros(2), 2)
    line = marked_line(__file__, "four-d")
    assert f"test_pndindex.py:{line}:" in str(e.value)
    assert "at most 3" in str(e.value)


def test_pndindex_inside_prange_is_an_error():
    @spirjit.jit
    def f(a):
        for i in prange(a.shape[0]):
            for j, k in pndindex(a.shape[1], a.shape[2]):  # <- nested
                a[i, j, k] = 1

    with pytest.raises(UnsupportedFeatureError) as e:
        f(np.zeros((2, 2, 2)))
    line = marked_line(__file__, "nested")
    assert f"test_pndindex.py:{line}:" in str(e.value)
    assert "outermost parallel loop" in str(e.value)
