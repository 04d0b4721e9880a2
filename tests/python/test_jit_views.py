"""Slices used as values in jit functions are views, as in NumPy and numba:
returned, written through, read in prange loops, passed on."""

import numpy as np
import pytest

import spirjit
from spirjit import prange


@spirjit.jit
def middle(a):
    return a[1:5]


@spirjit.jit
def copy_back(a):
    b = a[1:4]
    a[6:9] = b
    return a


@spirjit.jit
def strided_sum(a):
    v = a[1:-1, ::2]
    s = 0.0
    for i in prange(v.shape[0]):
        for j in range(v.shape[1]):
            s += v[i, j]
    return s, v


@spirjit.jit
def bump_every_other(a):
    b = a[::2]
    b[0] = 50.0
    for i in prange(b.shape[0]):
        b[i] += 1.0
    return b


@spirjit.jit
def rows(a, out):
    for i in prange(a.shape[0]):
        r = a[i, 1:4]
        out[i] = r[0] + r[2]
    return out


@spirjit.jit
def doubled(x):
    return x * 2


@spirjit.jit
def double_tail(a):
    return doubled(a[2:])


def test_a_returned_slice_is_a_view_of_the_argument(device_filter):
    a = np.arange(10.0)
    got = middle(a)
    assert got.tolist() == [1.0, 2.0, 3.0, 4.0]
    assert np.shares_memory(got, a)
    d = spirjit.asarray(a)
    view = middle(d)
    assert isinstance(view, spirjit.DeviceArray)
    assert view.asnumpy().tolist() == [1.0, 2.0, 3.0, 4.0]
    assert view._buffer_key == d._buffer_key


def test_a_slice_assigned_from_another_slice(device_filter):
    assert copy_back(np.arange(10)).tolist() == [0, 1, 2, 3, 4, 5, 1, 2, 3, 9]


@pytest.mark.parametrize("where", ["numpy", "device"])
def test_a_strided_2d_view_read_in_a_prange_reduction(device_filter, where):
    m = np.arange(30.0).reshape(5, 6)
    arg = m if where == "numpy" else spirjit.asarray(m)
    s, v = strided_sum(arg)
    assert s == m[1:-1, ::2].sum()
    host = v if where == "numpy" else v.asnumpy()
    assert host.tolist() == m[1:-1, ::2].tolist()
    assert v.strides == m[1:-1, ::2].strides


@pytest.mark.parametrize("where", ["numpy", "device"])
def test_writes_through_a_view_reach_the_array(device_filter, where):
    a = np.zeros(7) if where == "numpy" else spirjit.zeros(7)
    if where == "device" and a.device.backend == "cuda":
        # b[0] = 50.0 is host code touching GPU memory: a clear error.
        with pytest.raises(spirjit.errors.UnsupportedFeatureError,
                           match="move the access into a prange loop"):
            bump_every_other(a)
        return
    b = bump_every_other(a)
    host = a if where == "numpy" else a.asnumpy()
    assert host.tolist() == [51.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0]
    assert np.asarray(b).tolist() == [51.0, 1.0, 1.0, 1.0]


def test_a_view_made_inside_a_prange_body(device_filter):
    m = np.arange(30.0).reshape(5, 6)
    assert rows(m, np.zeros(5)).tolist() == (m[:, 1] + m[:, 3]).tolist()


def test_a_view_passed_to_another_jit_function(device_filter):
    assert double_tail(np.arange(5.0)).tolist() == [4.0, 6.0, 8.0]


@spirjit.jit
def issue31_rows(a, row, cube, t):
    v = a[1:3]
    v[0] = 5                 # a row of a view, a number broadcast
    a[-1] = row              # a row of the argument, from a 1-D array
    v[1] = row * 2.0 - a[0]  # from a 1-D expression
    cube[1] = 7              # a plane of a 3-D array
    cube[0, 2] = row[:4]     # a row of one, by two integers
    cube[t] = -1             # by a tuple argument
    return v


def numpy_issue31_rows(a, row, cube, t):
    v = a[1:3]
    v[0] = 5
    a[-1] = row
    v[1] = row * 2.0 - a[0]
    cube[1] = 7
    cube[0, 2] = row[:4]
    cube[t] = -1
    return v


@pytest.mark.parametrize("where", ["numpy", "device"])
def test_issue31_assigning_a_row(device_filter, where):
    # Issue 31: v[0] = 5 on a 2-D view (or argument) was refused ("cannot
    # assign to a whole row") although NumPy and the user guide do it.
    a = np.arange(20.0).reshape(4, 5)
    row = np.arange(5.0) + 10
    cube = np.zeros((2, 3, 4))
    want_a, want_cube = a.copy(), cube.copy()
    want_v = numpy_issue31_rows(want_a, row, want_cube, (0, 1))
    if where == "device":
        a, cube = spirjit.asarray(a), spirjit.asarray(cube)
        if a.device.backend == "cuda":
            pytest.skip("not tried on memory the host cannot address")
    v = issue31_rows(a, row, cube, (0, 1))
    np.testing.assert_array_equal(np.asarray(a), want_a)
    np.testing.assert_array_equal(np.asarray(cube), want_cube)
    np.testing.assert_array_equal(np.asarray(v), want_v)


def test_issue31_a_row_of_another_length_is_a_value_error(device_filter):
    @spirjit.jit
    def store(a, row):
        a[0] = row

    # NumPy's assignment broadcasting: 4 is neither 3 nor 1.
    with pytest.raises(ValueError, match=r"test_jit_views.py:\d+: could not "
                                         r"broadcast input array into the "
                                         r"target: an extent of 4 meets one "
                                         r"of 3"):
        store(np.zeros((2, 3)), np.zeros(4))


# a.T, a.transpose() and np.transpose(a) are views with the dimensions
# reversed (issue 29), in expressions, stores, reductions and loops.
@spirjit.jit
def transposes(a, b):
    c = np.empty((a.shape[1], a.shape[0]))
    c[:, :] = a.T
    return a.T * 2 + b, (a.transpose() + b).sum(), c, np.transpose(a)[1:, :]


@spirjit.jit
def write_through_transpose(a):
    a.T[0, :] = 7.0
    return a


@spirjit.jit
def assign_own_transpose(a):
    a[:, :] = a.T
    return a


@spirjit.jit
def transpose_3d(a):
    return a.T + 0.0


@spirjit.jit
def first_column_sum(a):
    s = 0.0
    at = a.T
    for i in prange(at.shape[1]):
        s += at[0, i]
    return s


def test_transposes_are_numpys(device):
    a = np.arange(12.0).reshape(3, 4)
    b = np.linspace(0, 1, 12).reshape(4, 3)
    got = transposes(spirjit.asarray(a, device=device),
                     spirjit.asarray(b, device=device))
    want = (a.T * 2 + b, (a.T + b).sum(), a.T, a.T[1:, :])
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(
            g.asnumpy() if hasattr(g, "asnumpy") else g), w)


def test_writes_through_a_transpose_and_onto_it(device):
    a = np.arange(12.0).reshape(3, 4)
    want = a.copy()
    want.T[0, :] = 7.0
    np.testing.assert_array_equal(write_through_transpose(a.copy()), want)
    square = np.arange(16.0).reshape(4, 4)
    # NumPy computes the right-hand side before the store: a copy.
    np.testing.assert_array_equal(assign_own_transpose(square.copy()),
                                  square.T)


def test_transpose_of_three_dimensions_and_in_a_loop(device):
    a = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(transpose_3d(a), a.T)
    m = np.arange(12.0).reshape(3, 4)
    assert first_column_sum(m) == m[:, 0].sum()


# a.reshape(...) and np.reshape(a, shape) of a C-contiguous array share its
# memory at the new extents, as NumPy's do (issue 29); -1 is the extent
# that makes the size; a size that does not fit is NumPy's ValueError.
@spirjit.jit
def reshapes(a):
    return (a.reshape(-1, 4).sum(), a.reshape((3, 4)) * 2,
            np.reshape(a, (2, -1)), a.reshape(a.shape[0] // 2, 2))


@spirjit.jit
def write_through_reshape(a):
    m = a.reshape(3, 4)
    m[1, :] = 0.0
    return a


@spirjit.jit
def reshape_in_loops(a, out):
    m = a.reshape(4, 3)
    for i in prange(4):
        out[i] = m[i, 0] + m[i, 2]
    return out


@spirjit.jit
def reshape_wrong_size(a):
    return a.reshape(5, -1)  # <- wrong-size


@spirjit.jit
def reshape_a_slice(a):
    return a[::2].reshape(2, 3)  # <- strided


def test_reshapes_are_numpys(device):
    a = np.arange(12.0)
    got = reshapes(spirjit.asarray(a, device=device))
    want = (a.reshape(-1, 4).sum(), a.reshape((3, 4)) * 2,
            np.reshape(a, (2, -1)), a.reshape(6, 2))
    for g, w in zip(got, want):
        g = np.asarray(g.asnumpy() if hasattr(g, "asnumpy") else g)
        assert g.shape == np.shape(w)
        np.testing.assert_array_equal(g, w)
    want = a.copy()
    want.reshape(3, 4)[1, :] = 0.0
    np.testing.assert_array_equal(write_through_reshape(a.copy()), want)
    m = a.reshape(4, 3)
    np.testing.assert_array_equal(reshape_in_loops(a, np.empty(4)),
                                  m[:, 0] + m[:, 2])


def test_reshape_errors_name_the_line(device):
    from source_markers import marked_line
    with pytest.raises(ValueError) as info:
        reshape_wrong_size(np.arange(12.0))
    assert f"test_jit_views.py:{marked_line(__file__, 'wrong-size')}: " \
        "cannot reshape array of size 12 into a shape of 10 elements" in \
        str(info.value)
    with pytest.raises(spirjit.errors.UnsupportedFeatureError) as info:
        reshape_a_slice(np.arange(12.0))
    assert f"test_jit_views.py:{marked_line(__file__, 'strided')}" in \
        str(info.value)
    assert "reshape a.copy()" in str(info.value)


# Steps of any sign, literal or known at run time (numba's slices): Python's
# bounds for a negative step (start from the end, stop before the start).
@spirjit.jit
def stepped(a, i, j, k):
    return a[i:j:k].copy()


@spirjit.jit
def open_ended(a, k):
    return a[::k] * 1.0, a[:3:k] + 0.0, a[3::k] + 0.0


@spirjit.jit
def reversed_both(m):
    return m[::-1, ::-2] + 0


@spirjit.jit
def reverse_in_place(a):
    a[:] = a[::-1]
    return a


@spirjit.jit
def shift_reversed(a):
    a[1:] = a[-2::-1]
    return a


@spirjit.jit
def view_of_reversed(a, k):
    b = a[::-1]
    c = b[1::k]
    return c.sum(), c[0], c


def test_slices_with_any_step_are_numpys(device_filter):
    a = np.arange(12.0)
    bounds = [-15, -3, 0, 2, 11, 20]
    for i in bounds:
        for j in bounds:
            for k in [-5, -2, -1, 1, 2, 4]:
                got = stepped(a, i, j, k)
                assert got.tolist() == a[i:j:k].tolist(), (i, j, k)
    for k in [-3, -1, 2]:
        whole, head, tail = open_ended(a, k)
        assert whole.tolist() == a[::k].tolist()
        assert head.tolist() == a[:3:k].tolist()
        assert tail.tolist() == a[3::k].tolist()
    m = np.arange(20.0).reshape(4, 5)
    assert reversed_both(m).tolist() == m[::-1, ::-2].tolist()
    s, first, c = view_of_reversed(np.arange(10.0), 2)
    assert (s, first) == (20.0, 8.0)
    assert c.tolist() == np.arange(10.0)[::-1][1::2].tolist()


def test_assignments_from_reversed_views_of_the_same_array(device_filter):
    # NumPy reads the whole right-hand side before it stores.
    assert reverse_in_place(np.arange(6.0)).tolist() == [5, 4, 3, 2, 1, 0]
    want = np.arange(6.0)
    want[1:] = want[-2::-1]
    assert shift_reversed(np.arange(6.0)).tolist() == want.tolist()


@spirjit.jit
def every_third_backwards(a):
    return a[::-3]


def test_a_reversed_slice_returned_is_a_view(device_filter):
    a = np.arange(10.0)
    got = every_third_backwards(a)
    assert got.tolist() == [9.0, 6.0, 3.0, 0.0]
    assert got.strides == (-24,)
    assert np.shares_memory(got, a)


def test_a_zero_step_is_numpys_value_error(device_filter):
    with pytest.raises(ValueError, match=r"test_jit_views.py:\d+: slice step "
                                         r"cannot be zero"):
        stepped(np.arange(5.0), 0, 5, 0)
