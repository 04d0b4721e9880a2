"""Issue 29 (numba's parallel programs): None / np.newaxis and `...` in
jit host code's indices, as NumPy and numba take them: views of the array
(writes through them reach it) and operands of array expressions."""

import numpy as np
import pytest

import spirjit
from spirjit import prange


def views(a):
    return (a[:, None], a[None, :], a[np.newaxis], a[..., None], a[...],
            a[None, ..., None], a[1:, None], a[None, 2:], a[1, None],
            a[None, 1], a[:, None, 0], a[None][0], a[:, None][:, 0])


def views_1d(a):
    return a[:, None], a[None], a[..., None], a[None, ...], a[2, None]


def outer_and_sums(a, b):
    c = np.empty((a.shape[0], b.shape[0]))
    c[:, :] = a[:, None] + b
    return a[:, None] * b[None, :], c, (a[:, None] - b).sum()


def through_views(a):
    v = a[None, :, None]
    v[0, 1, 0] = 50.0
    a[..., None][2] = -1.0
    a[None, 1:][0, 2] = 7.0
    a[np.newaxis] *= 2.0
    return v


def in_prange(a, out, rows):
    for i in prange(a.shape[0]):
        out[i] = a[i, None].sum() + a[None, i][0]
        rows[i, :] = a[i, None] * 2.0
    return out, rows


@spirjit.kernel
def kernel_reads_a_new_axis(item, a, b):
    i = item.get_id(0)
    b[i] = a[i, None]  # <- kernel-read


def ellipsis_twice(a):
    return a[..., ...]  # <- two-ellipses


def too_many(a):
    return a[0, None, 1]  # <- too-many


@pytest.mark.parametrize("where", ["numpy", "device"])
def test_newaxis_and_ellipsis_views_are_numpys(device, where):
    a = np.arange(12.0).reshape(3, 4)
    arg = a if where == "numpy" else spirjit.asarray(a, device=device)
    got = spirjit.jit(views)(arg)
    want = views(a)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g = g.asnumpy() if where == "device" else g
        assert g.shape == w.shape
        np.testing.assert_array_equal(g, w)
        if where == "numpy":
            assert np.shares_memory(g, a)


def test_newaxis_on_one_dimension(device):
    a = np.arange(5.0)
    got = spirjit.jit(views_1d)(a)
    want = views_1d(a)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("where", ["numpy", "device"])
def test_newaxis_broadcasts_in_array_expressions(device, where):
    a, b = np.arange(3.0) + 1, np.arange(4.0) * 0.5
    args = (a, b) if where == "numpy" else (
        spirjit.asarray(a, device=device), spirjit.asarray(b, device=device))
    outer, c, s = spirjit.jit(outer_and_sums)(*args)
    want_outer, want_c, want_s = outer_and_sums(a, b)
    if where == "device":
        assert isinstance(outer, spirjit.DeviceArray)
        outer, c = outer.asnumpy(), c.asnumpy()
    np.testing.assert_array_equal(outer, want_outer)
    np.testing.assert_array_equal(c, want_c)
    assert s == want_s


def test_writes_through_newaxis_views_reach_the_array(device):
    a = np.arange(5.0)
    want = a.copy()
    want_v = through_views(want)
    got_v = spirjit.jit(through_views)(a)
    np.testing.assert_array_equal(a, want)
    assert got_v.shape == want_v.shape
    np.testing.assert_array_equal(got_v, want_v)


def test_newaxis_in_a_prange_body(device):
    a = np.arange(4.0) + 1
    got = spirjit.jit(in_prange)(a, np.zeros(4), np.zeros((4, 1)))
    want = in_prange(a, np.zeros(4), np.zeros((4, 1)))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_newaxis_errors_name_the_line(device):
    from source_markers import marked_line
    from spirjit import kernel_api as kapi
    with pytest.raises(spirjit.errors.UnsupportedFeatureError) as info:
        spirjit.call_kernel(kernel_reads_a_new_axis, kapi.Range(4),
                            np.arange(4.0), np.zeros(4))
    message = str(info.value)
    assert f"test_jit_newaxis.py:{marked_line(__file__, 'kernel-read')}: " \
        "None (np.newaxis) in an index makes a view, which a kernel " \
        "cannot" in message
    assert "write a[i] for a[i, None]" in message
    with pytest.raises(spirjit.errors.TypingError) as info:
        spirjit.jit(ellipsis_twice)(np.arange(4.0))
    assert f"test_jit_newaxis.py:{marked_line(__file__, 'two-ellipses')}: " \
        "an index can only have a single ellipsis ('...')" in str(info.value)
    with pytest.raises(spirjit.errors.TypingError) as info:
        spirjit.jit(too_many)(np.arange(4.0))
    assert f"test_jit_newaxis.py:{marked_line(__file__, 'too-many')}: " \
        "too many indices for a 1-dimensional array: 2" in str(info.value)
