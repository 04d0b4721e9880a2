"""NumPy's broadcasting in @spirjit.jit array expressions (issue 25: one set
of array semantics for kernels, jit code and DeviceArrays): extents of 1
stretch to the other operands', in expressions, assignments, in-place
operators, reductions, np.where and fused statements; extents that do not
broadcast raise ValueError naming the user's line, as NumPy's message does.
Each case is compared with NumPy on every device."""

import numpy as np
import pytest

import spirjit
from spirjit import dpjit, prange
from spirjit.errors import InvalidArgumentError

from source_markers import marked_line


@dpjit
def add(a, b):
    return a + b  # <- add


@dpjit
def store(c, b):
    c[:, :] = b  # <- store
    return c


@dpjit
def store_inner_rows(dst, row):
    dst[1:-1, :] = row
    return dst


@dpjit
def add_in_place(a, b):
    a += b  # <- in-place
    return a


@dpjit
def reductions(a, b):
    return (a * b).sum(), np.max(a - b), (a + b).mean()


@dpjit
def larger(a, b):
    return np.where(a > b, a, b)


@dpjit
def fused(a, b):
    c = a + b
    d = c * 2.0
    e = np.sqrt(d)
    return e, d


@dpjit
def first_column_doubled(a):
    a[:, :] = a[:, 0:1] * 2.0
    return a


@dpjit
def rows_plus(a, row, out):
    for i in prange(a.shape[0]):
        out[i, :, :] = a[i, :, :] + row
    return out


@dpjit
def dot(a, b):
    return np.dot(a, b)  # <- dot


def arange(shape):
    return np.arange(1.0, 1.0 + np.prod(shape)).reshape(shape)


@pytest.mark.parametrize("a_shape, b_shape", [
    ((3, 1), (1, 4)),
    ((1, 4), (3, 1)),
    ((3, 4), (4,)),
    ((3, 4), (1,)),
    ((3, 4), (1, 1)),
    ((3, 1), (4,)),
    ((3, 4), (3, 4)),
    ((2, 1, 4), (3, 1)),
    ((1, 1), (1, 1)),
    ((0, 1), (1, 4)),
    ((1,), (0,)),
])
def test_operands_broadcast(device, a_shape, b_shape):
    a, b = arange(a_shape), -arange(b_shape)
    got = add(a, b)
    assert got.shape == (a + b).shape
    np.testing.assert_array_equal(got, a + b)


@pytest.mark.parametrize("b_shape", [(1, 4), (3, 1), (4,), (1,), (1, 1),
                                     (3, 4)])
def test_assignment_broadcasts_into_the_target(device, b_shape):
    b = arange(b_shape)
    want = np.zeros((3, 4))
    want[:, :] = b
    np.testing.assert_array_equal(store(np.zeros((3, 4)), b), want)


@pytest.mark.parametrize("row_shape", [(1, 4), (4,)])
def test_a_row_broadcasts_into_inner_rows(device, row_shape):
    row = arange(row_shape)
    want = np.zeros((5, 4))
    want[1:-1, :] = row
    np.testing.assert_array_equal(store_inner_rows(np.zeros((5, 4)), row),
                                  want)


@pytest.mark.parametrize("b_shape", [(3, 1), (1, 4), (4,), (1, 1)])
def test_in_place_operand_broadcasts(device, b_shape):
    a, b = arange((3, 4)), arange(b_shape)
    want = a.copy()
    want += b
    np.testing.assert_array_equal(add_in_place(a, b), want)


def test_reductions_of_broadcast_expressions(device):
    a, b = arange((3, 1)), arange((1, 4)) / 8
    got = reductions(a, b)
    want = ((a * b).sum(), np.max(a - b), (a + b).mean())
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_where_broadcasts(device):
    a, b = arange((3, 1)), arange((4,)) - 1.5
    np.testing.assert_array_equal(larger(a, b), np.where(a > b, a, b))


@pytest.mark.parametrize("a_shape, b_shape", [((3, 1), (1, 4)),
                                              ((3, 4), (3, 4))])
def test_fused_statements_over_the_broadcast_shape(device, a_shape, b_shape):
    a, b = arange(a_shape), arange(b_shape)
    e, d = fused(a, b)
    np.testing.assert_array_equal(d, (a + b) * 2.0)
    np.testing.assert_allclose(e, np.sqrt((a + b) * 2.0), rtol=1e-15)


def test_a_stretched_read_of_the_target_goes_through_a_temporary(device):
    a = arange((3, 4))
    want = a.copy()
    want[:, :] = want[:, 0:1] * 2.0
    np.testing.assert_array_equal(first_column_doubled(a), want)


@pytest.mark.parametrize("row_shape", [(1, 4), (3, 1), (4,)])
def test_broadcast_in_a_prange_body(device, row_shape):
    a, row = arange((2, 3, 4)), arange(row_shape)
    got = rows_plus(a, row, np.zeros((2, 3, 4)))
    np.testing.assert_array_equal(got, a + row)


def test_device_arrays_broadcast_as_numpy_arrays(device):
    a = spirjit.asarray(arange((3, 1)), device=device)
    b = spirjit.asarray(arange((1, 4)), device=device)
    got = add(a, b)
    assert isinstance(got, spirjit.DeviceArray)
    np.testing.assert_array_equal(got.asnumpy(), arange((3, 1)) +
                                  arange((1, 4)))


def where(marker):
    return rf"test_jit_broadcast.py:{marked_line(__file__, marker)}: "


@pytest.mark.parametrize("a_shape, b_shape, got, expected", [
    ((3, 4), (5,), 5, 4),
    ((3, 4), (2, 4), 2, 3),
    ((0,), (2,), 2, 0),
])
def test_operands_that_do_not_broadcast(device, a_shape, b_shape, got,
                                        expected):
    with pytest.raises(InvalidArgumentError,
                       match=where("add") + r"operands could not be broadcast "
                       rf"together: an extent of {got} meets one of "
                       rf"{expected}$"):
        add(np.zeros(a_shape), np.zeros(b_shape))
    assert issubclass(InvalidArgumentError, ValueError)


def test_a_value_that_does_not_broadcast_into_the_target(device):
    with pytest.raises(InvalidArgumentError,
                       match=where("store") + r"could not broadcast input "
                       r"array into the target: an extent of 2 meets one of "
                       r"3$"):
        store(np.zeros((3, 4)), np.zeros((2, 4)))


def test_in_place_target_keeps_its_shape(device):
    # NumPy: a (3,1) += b (3,4) would make a (3,4).
    with pytest.raises(InvalidArgumentError,
                       match=where("in-place") + r"non-broadcastable output "
                       r"operand: an extent of 4 meets one of 1$"):
        add_in_place(np.zeros((3, 1)), np.zeros((3, 4)))
    with pytest.raises(InvalidArgumentError,
                       match=where("in-place") + r"operands could not be "
                       r"broadcast together: an extent of 5 meets one of 4$"):
        add_in_place(np.zeros((3, 4)), np.zeros(5))


def test_dot_does_not_broadcast(device):
    with pytest.raises(InvalidArgumentError,
                       match=where("dot") + r"matmul: the operands' inner "
                       r"extents differ \(3 and 1\)$"):
        dot(np.zeros(3), np.zeros(1))
