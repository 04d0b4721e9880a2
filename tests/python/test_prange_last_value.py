"""A variable a prange (or pndindex) loop assigns in every iteration and
reads only after the loop has the last iteration's value, as numba defines
it (lastprivate); compared with plain Python on every device."""

import numpy as np
import pytest

import spirjit
from spirjit import pndindex, prange
from spirjit.errors import CompileError, UnsupportedFeatureError

from source_markers import marked_line

SIZES = [0, 1, 2, 5, 37, 1000, 4099]


def doubled_last(a, b, n):
    t = -1.0
    for i in prange(n):
        t = a[i] * 2
        b[i] = t
    return t


def sum_and_last(a, n):
    s = 0.0
    k = -1
    for i in prange(n):
        s += a[i]
        k = i * 3 + 1
    return s, k


def last_position(a):
    p = -1
    q = 0.5
    for i, j in pndindex(a.shape):
        p = i * 100 + j
        q = a[i, j]
    return p, q


@pytest.mark.parametrize("n", SIZES)
def test_last_iteration_value(device, n):
    a = np.arange(max(n, 1), dtype=np.float32) - 3
    b, want_b = np.zeros_like(a), np.zeros_like(a)
    want = doubled_last(a, want_b, n)
    got = spirjit.jit(doubled_last)(a, b, n)
    assert got == want
    np.testing.assert_array_equal(b, want_b)


@pytest.mark.parametrize("n", SIZES)
def test_beside_a_reduction(device, n):
    a = np.arange(float(max(n, 1)))
    s, k = spirjit.jit(sum_and_last)(a, n)
    want_s, want_k = sum_and_last(a, n)
    assert (s, k) == (pytest.approx(want_s), want_k)


@pytest.mark.parametrize("shape", [(1, 1), (3, 7), (0, 4), (40, 33)])
def test_pndindex_last_index(device, shape):
    a = np.random.default_rng(2).random(shape)
    assert spirjit.jit(last_position)(a) == last_position(a)


def test_conditional_assignment_is_an_error():
    @spirjit.jit
    def f(a):
        t = 0.0
        for i in prange(a.shape[0]):
            if a[i] > 0:
                t = a[i]
        return t  # <- conditional

    # Which iteration assigned last is a race: numba's answer is whatever
    # work-item wrote last.
    with pytest.raises(UnsupportedFeatureError) as e:
        f(np.ones(4))
    line = marked_line(__file__, "conditional")
    assert f"test_prange_last_value.py:{line}:" in str(e.value)
    assert "read after the loop" in str(e.value)
    assert "assigned in every iteration" in str(e.value)


def test_nested_pranges_and_tuples_are_errors_at_the_read():
    @spirjit.jit
    def nested(a):
        t = 0.0
        for i in prange(a.shape[0]):
            for j in prange(a.shape[1]):
                t = a[i, j]
        return t  # <- nested

    @spirjit.jit
    def tuples(a):
        last = (0, 0)
        for idx in pndindex(a.shape):
            last = idx
        return last  # <- tuple

    for f, marker in ((nested, "nested"), (tuples, "tuple")):
        with pytest.raises(UnsupportedFeatureError) as e:
            f(np.ones((2, 3)))
        line = marked_line(__file__, marker)
        assert f"test_prange_last_value.py:{line}:" in str(e.value)
        assert "read after the loop" in str(e.value)


def test_the_index_itself(device):
    def f(a, n):
        last = -1
        for i in prange(n):
            a[i] = i
            last = i
        return last

    jitted = spirjit.jit(f)
    for n in SIZES:
        a = np.zeros(max(n, 1))
        assert jitted(a, n) == f(a.copy(), n)


def test_unassigned_before_the_loop_is_an_error_at_the_read():
    @spirjit.jit
    def f(a, b):
        for i in prange(a.shape[0]):
            t = a[i] * 2
            b[i] = t
        return t  # <- read

    with pytest.raises(CompileError) as e:
        f(np.ones(4), np.ones(4))
    line = marked_line(__file__, "read")
    assert f"test_prange_last_value.py:{line}:" in str(e.value)
    assert "assign it before the loop" in str(e.value)
