"""Host-side assignment into DeviceArrays (``x[key] = value``), as numba-dpex
programs write into dpnp arrays: every basic-slicing key, every kind of
value, NumPy's broadcasting, casting and errors. Each case does the same
assignment on a NumPy copy and compares the whole array, so bytes outside
the selection are checked too. Runs once per device."""

import numpy as np
import pytest

import spirjit
from spirjit import kernel_api as kapi
from test_level_zero import needs_null_driver, run as run_with_null_driver

DEVICES = spirjit.devices()


@spirjit.kernel
def double(item: kapi.Item, a):
    i = item.get_id(0)
    a[i] *= 2


def assign_both(a, key, value, device, device_value=False):
    """Assigns ``value`` at ``key`` into a DeviceArray copy of ``a`` and into
    ``a`` itself; returns the DeviceArray, checked equal to ``a``."""
    x = spirjit.asarray(a, device=device)
    x[key] = spirjit.asarray(value, device=device) if device_value else value
    a[key] = value
    np.testing.assert_array_equal(spirjit.asnumpy(x), a)
    return x


KEYS_1D = [0, 5, -1, -12, np.int64(3), slice(None), slice(2, 9),
           slice(1, None, 3), slice(None, None, -1), slice(10, 1, -4),
           slice(-3, None), slice(5, 2), Ellipsis, (Ellipsis, 4),
           (None, slice(2, 6))]
KEYS_2D = [(1, 2), (-1, -3), 2, -2, (slice(None), 1), (1, slice(None)),
           (slice(1, 3), slice(2, 5)), (slice(None, None, 2), slice(None)),
           (slice(None, None, -1), slice(None, None, -2)),
           (Ellipsis, 0), (Ellipsis, slice(1, 4, 2)), (None, 1),
           (slice(1, 2), None, slice(None, None, 3))]


@pytest.mark.parametrize("key", KEYS_1D, ids=repr)
def test_scalar_into_1d_key(device, key):
    assign_both(np.arange(12, dtype=np.int32), key, 7, device)


@pytest.mark.parametrize("key", KEYS_2D, ids=repr)
def test_scalar_into_2d_key(device, key):
    assign_both(np.arange(24, dtype=np.float32).reshape(4, 6), key, -1.5,
                device)


@pytest.mark.parametrize("key", KEYS_1D, ids=repr)
def test_array_into_1d_key(device, key):
    a = np.arange(12, dtype=np.int64)
    shape = a[key].shape
    value = (100 + np.arange(int(np.prod(shape)))).reshape(shape)
    assign_both(a, key, value, device)


@pytest.mark.parametrize("key", KEYS_2D, ids=repr)
def test_array_into_2d_key(device, key):
    a = np.arange(24, dtype=np.int16).reshape(4, 6)
    shape = a[key].shape
    value = (-np.arange(int(np.prod(shape)))).reshape(shape).astype(np.int16)
    assign_both(a, key, value, device)


def test_3d_keys(device):
    a = np.arange(120, dtype=np.uint8).reshape(4, 5, 6)
    for key in [(1, slice(None, None, -2), slice(1, None, 2)),
                (Ellipsis, 3), (slice(1, 3), 2), (-1, -1, -1)]:
        shape = a[key].shape
        assign_both(a, key, np.arange(int(np.prod(shape)),
                                      dtype=np.uint8).reshape(shape), device)


def test_forms_from_numba_dpex_tests(device):
    """The forms numba-dpex's tests use on dpnp arrays."""
    a = np.zeros(10, dtype=np.float32)
    x = spirjit.asarray(a, device=device)
    x[0] = 1
    a[0] = 1
    x[:] = np.arange(10)
    a[:] = np.arange(10)
    x[1:4] = [5, 6, 7]
    a[1:4] = [5, 6, 7]
    x[-2] = 2.5
    a[-2] = 2.5
    x[::3] = np.float64(9)
    a[::3] = np.float64(9)
    np.testing.assert_array_equal(spirjit.asnumpy(x), a)
    b = np.zeros((3, 4), dtype=np.int32)
    y = spirjit.asarray(b, device=device)
    y[1, 2] = 5
    b[1, 2] = 5
    y[:, 0] = [1, 2, 3]
    b[:, 0] = [1, 2, 3]
    y[2] = 8
    b[2] = 8
    np.testing.assert_array_equal(spirjit.asnumpy(y), b)


@pytest.mark.parametrize("dtype,value,expected", [
    (np.int32, 3.7, 3),
    (np.int64, -2.9, -2),
    (np.uint8, np.float32(200.5), 200),
    (np.float32, 1, 1.0),
    (np.float32, True, 1.0),
    (np.bool_, 2, True),
    (np.complex64, 2.5, 2.5 + 0j),
    (np.complex64, 1 - 2j, 1 - 2j),
], ids=repr)
def test_scalar_is_cast_as_numpy_casts(device, dtype, value, expected):
    a = np.zeros(4, dtype=dtype)
    x = assign_both(a, 1, value, device)
    assert x[1] == expected
    assign_both(a, slice(2, None), value, device)


def test_array_value_is_cast_as_numpy_casts(device):
    assign_both(np.zeros(4, dtype=np.int32), slice(None),
                np.array([1.9, -1.9, 2.5, 7.0]), device)
    assign_both(np.zeros(3, dtype=np.float32), slice(None),
                np.array([1, 2, 3], dtype=np.int64), device)


@pytest.mark.parametrize("shape,key,value", [
    ((4, 6), slice(None), np.arange(6)),
    ((4, 6), slice(None), np.arange(4)[:, None]),
    ((4, 6), (slice(1, 3), slice(None, None, 2)), [[1], [2]]),
    ((2, 3, 4), Ellipsis, np.arange(4)),
    ((2, 3, 4), 1, np.arange(3)[:, None]),
    ((5,), slice(None), np.array([4.0])),
], ids=repr)
def test_value_broadcasts_as_numpy(device, shape, key, value):
    a = np.zeros(shape, dtype=np.float32)
    assign_both(a, key, value, device)
    assign_both(a, key, value, device, device_value=True)


def test_from_another_device_array(device):
    a = np.arange(12, dtype=np.float32)
    x = spirjit.asarray(a, device=device)
    src = spirjit.asarray(np.arange(100, 106, dtype=np.float64),
                          device=device)
    x[::2] = src  # another dtype: cast on the way
    a[::2] = np.arange(100, 106)
    np.testing.assert_array_equal(spirjit.asnumpy(x), a)
    x[...] = spirjit.asarray(np.full(12, 3, dtype=np.float32), device=device)
    np.testing.assert_array_equal(spirjit.asnumpy(x), np.full(12, 3.0))
    x[1:3] = src[2:4]  # a view as the value
    assert spirjit.asnumpy(x)[1:3].tolist() == [102.0, 103.0]


@pytest.mark.skipif(len(DEVICES) < 2, reason="needs two devices")
def test_from_a_device_array_on_another_device():
    a = np.arange(8, dtype=np.int32)
    x = spirjit.asarray(a, device=DEVICES[0])
    y = spirjit.asarray(np.arange(10, 14, dtype=np.int32), device=DEVICES[1])
    x[2:6] = y
    a[2:6] = np.arange(10, 14)
    np.testing.assert_array_equal(spirjit.asnumpy(x), a)
    assert x.device == DEVICES[0] and y.device == DEVICES[1]


@pytest.mark.parametrize("dst,src", [
    (slice(1, None), slice(None, -1)),
    (slice(None, -1), slice(1, None)),
    (slice(None), slice(None, None, -1)),
    (slice(2, 9, 2), slice(1, 5)),
    (slice(None, None, -3), slice(0, 4)),
], ids=repr)
def test_overlapping_self_assignment(device, dst, src):
    a = np.arange(12, dtype=np.int32)
    x = spirjit.asarray(a, device=device)
    x[dst] = x[src]
    a[dst] = a[src]
    np.testing.assert_array_equal(spirjit.asnumpy(x), a)


def test_overlapping_self_assignment_2d(device):
    a = np.arange(30, dtype=np.float32).reshape(5, 6)
    x = spirjit.asarray(a, device=device)
    x[1:, ::-1] = x[:-1, :]
    a[1:, ::-1] = a[:-1, :]
    np.testing.assert_array_equal(spirjit.asnumpy(x), a)


def test_kernel_sees_assignment(device):
    x = spirjit.zeros(8, dtype=np.int32, device=device)
    x[2:5] = [1, 2, 3]
    x[-1] = 10
    spirjit.call_kernel(double, kapi.Range(8), x)
    assert spirjit.asnumpy(x).tolist() == [0, 0, 2, 4, 6, 0, 0, 20]


def test_assignment_follows_pending_launch(device):
    """An assignment after an asynchronous launch lands after the kernel's
    writes, and a kernel after it sees it."""
    x = spirjit.asarray(np.ones(4096, dtype=np.int32), device=device)
    event = spirjit.call_kernel_async(double, kapi.Range(4096), [], x)
    x[::2] = 5
    event.wait()
    expected = np.full(4096, 2, dtype=np.int32)
    expected[::2] = 5
    np.testing.assert_array_equal(spirjit.asnumpy(x), expected)
    spirjit.call_kernel(double, kapi.Range(4096), x)
    np.testing.assert_array_equal(spirjit.asnumpy(x), 2 * expected)


def test_index_errors_as_numpy(device):
    x = spirjit.zeros((2, 3), dtype=np.int32, device=device)
    with pytest.raises(IndexError,
                       match="index 2 is out of bounds for axis 0 with size 2"):
        x[2] = 1
    with pytest.raises(IndexError,
                       match="index -4 is out of bounds for axis 1 with size 3"):
        x[0, -4] = 1
    with pytest.raises(IndexError, match="too many indices for array: array "
                                         "is 2-dimensional, but 3 were indexed"):
        x[0, 0, 0] = 1
    with pytest.raises(IndexError, match="only integers, slices"):
        x[1.0] = 1
    with pytest.raises(IndexError, match="single ellipsis"):
        x[..., ...] = 1
    with pytest.raises(IndexError, match="index 5 is out of bounds"):
        x[[0, 5]] = 1
    with pytest.raises(IndexError, match="boolean index did not match"):
        x[np.array([True, False, True])] = 1
    np.testing.assert_array_equal(spirjit.asnumpy(x), np.zeros((2, 3)))


def test_shape_errors_as_numpy(device):
    x = spirjit.zeros(5, dtype=np.float32, device=device)
    with pytest.raises(ValueError, match=r"could not broadcast input array "
                                         r"from shape \(3,\) into shape \(2,\)"):
        x[:2] = [1, 2, 3]
    with pytest.raises(ValueError, match=r"from shape \(5,\) into shape "
                                         r"\(4,\)"):
        x[1:] = spirjit.asarray(np.arange(5.0), device=device)
    y = spirjit.zeros((2, 3), dtype=np.float32, device=device)
    with pytest.raises(ValueError, match=r"\(2,\).*\(2,3\)|\(2,\).*\(2, 3\)"):
        y[...] = [1, 2]
    np.testing.assert_array_equal(spirjit.asnumpy(x), np.zeros(5))


def raised(assign):
    try:
        assign()
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e), str(e)
    return None


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int8])
def test_value_errors_as_numpy(device, dtype):
    """Values NumPy refuses (complex into a real dtype, a sequence into an
    element, None, out-of-range Python ints) raise NumPy's class and
    message; what NumPy takes, ours takes alike."""
    x = spirjit.zeros(3, dtype=dtype, device=device)
    a = np.zeros(3, dtype=dtype)
    for key, value in [(0, 1j), (slice(None), 1j), (1, [1, 2]), (0, None),
                       (0, 300), (slice(1, None), -300), (0, "x")]:
        expected = raised(lambda: a.__setitem__(key, value))
        assert raised(lambda: x.__setitem__(key, value)) == expected
    assert raised(lambda: x.__setitem__(0, 1j))[0] is TypeError
    np.testing.assert_array_equal(spirjit.asnumpy(x), a)


def test_zero_d_and_empty_views(device):
    z = spirjit.asarray(np.float32(1.5), device=device)
    z[()] = 4
    assert spirjit.asnumpy(z)[()] == 4.0
    z[...] = np.array(2.5)
    assert spirjit.asnumpy(z)[()] == 2.5
    a = np.arange(6, dtype=np.int32)
    x = spirjit.asarray(a, device=device)
    x[3:3] = 9
    x[4:1] = []
    x[5:2:1] = np.zeros(0)
    e = spirjit.empty(0, dtype=np.int32, device=device)
    e[:] = 1
    e[...] = np.arange(0)
    np.testing.assert_array_equal(spirjit.asnumpy(x), a)


def test_fortran_ordered_view(device):
    """A transposed (F-ordered) view over C memory: its writes scatter."""
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    x = spirjit.asarray(a, device=device)
    t = x._view([4, 3], [x.strides[1], x.strides[0]], 0)
    t[1:3] = np.arange(6).reshape(2, 3) + 100
    t[:, -1] = -1
    a.T[1:3] = np.arange(6).reshape(2, 3) + 100
    a.T[:, -1] = -1
    np.testing.assert_array_equal(spirjit.asnumpy(x), a)


def test_negative_stride_view_as_target(device):
    a = np.arange(20, dtype=np.int32).reshape(4, 5)
    x = spirjit.asarray(a, device=device)
    v = x[::-1, ::-2]
    v[...] = np.arange(12).reshape(4, 3)
    v[0] = 99
    a[::-1, ::-2] = np.arange(12).reshape(4, 3)
    a[::-1, ::-2][0] = 99
    np.testing.assert_array_equal(spirjit.asnumpy(x), a)
    np.testing.assert_array_equal(spirjit.asnumpy(v), a[::-1, ::-2])


def test_assignment_keeps_bytes_between_strided_elements(device):
    """A strided write touches its elements only, whatever is in between."""
    a = np.arange(13, dtype=np.uint8)
    x = spirjit.asarray(a, device=device)
    x[1::3] = 200
    a[1::3] = 200
    np.testing.assert_array_equal(spirjit.asnumpy(x), a)


@needs_null_driver
def test_level_zero_shared_memory_assignment():
    """Level Zero writes by memcpy into shared memory after finishing the
    queue; the null driver runs no kernel, so host writes alone are
    checked."""
    out = run_with_null_driver("""
        x = spirjit.asarray(np.arange(12, dtype=np.int32).reshape(3, 4),
                            device="level_zero")
        a = np.arange(12, dtype=np.int32).reshape(3, 4)
        for key, value in [((1, 2), 7), (slice(None, None, -1), [0, 1, 2, 3]),
                           ((slice(None), -1), 9.9), (Ellipsis, 5)]:
            x[key] = value
            a[key] = value
            assert np.array_equal(np.asarray(x), a), (key, np.asarray(x))
        x[1:] = x[:-1]
        a[1:] = a[:-1]
        assert np.array_equal(np.asarray(x), a)
        print("ok")
    """)
    assert out.strip() == "ok"


@pytest.mark.parametrize("make", [
    lambda a: a, lambda a: a[::2], lambda a: a[:, 1:3], lambda a: a[1:2, :],
    lambda a: a[::-1], lambda a: a[:, :1], lambda a: a[0:0]],
    ids=["whole", "every-other-row", "column-slice", "one-row", "reversed",
         "one-column", "empty"])
def test_flags_describe_the_layout_as_numpy_does(device, make):
    host = np.arange(24, dtype=np.float32).reshape(4, 6)
    view = make(spirjit.asarray(host, device=device))
    expected = make(host).flags
    assert view.flags.c_contiguous == expected.c_contiguous
    assert view.flags.f_contiguous == expected.f_contiguous
    assert view.flags["C_CONTIGUOUS"] == expected["C_CONTIGUOUS"]
    assert view.flags["F"] == expected["F"]
    assert view.flags.writeable


def test_asarray_keeps_fortran_order_as_numpy_does(device):
    # np.asarray keeps an F-ordered array F-ordered; so does spirjit.asarray,
    # and kernels see the same elements.
    host = np.arange(12, dtype=np.int64).reshape(3, 4, order="F")
    x = spirjit.asarray(host, device=device)
    assert x.flags.f_contiguous and not x.flags.c_contiguous
    assert x.strides == host.strides
    np.testing.assert_array_equal(spirjit.asnumpy(x), host)
    x[1, 2] = -1
    host[1, 2] = -1
    np.testing.assert_array_equal(spirjit.asnumpy(x), host)
