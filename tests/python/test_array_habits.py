"""What NumPy and CuPy users do with arrays beyond computing: print them,
format them, ask `in`, pass out= to reductions, create arrays like= one,
call NumPy's functions under spirjit's name, read them back with get().
Each on every device, compared with NumPy."""

import numpy as np
import pytest

import spirjit
from spirjit import errors

A = np.arange(6.0).reshape(2, 3)


def test_print_and_repr_show_the_values(device):
    x = spirjit.asarray(A, device=device)
    assert str(x) == str(A)
    assert repr(x) == "DeviceArray([[0., 1., 2.],\n             [3., 4., 5.]])"
    assert repr(spirjit.asarray(np.arange(3, dtype=np.int8), device=device)) \
        == "DeviceArray([0, 1, 2], dtype=int8)"
    assert repr(x.sum()) == "DeviceArray(15.)"
    assert repr(spirjit.zeros((0, 3), device=device)) == \
        "DeviceArray([], shape=(0, 3), dtype=float64)"


def test_format_specs_as_numpy(device):
    x = spirjit.asarray(A, device=device)
    assert f"{x.sum():.3f}" == "15.000"
    assert f"{x[1, 2]:>6}" == f"{A[1, 2]:>6}"
    assert f"{x}" == str(A)
    with pytest.raises(TypeError, match="only 0-d arrays take a format"):
        f"{x:.2f}"


def test_in_asks_any_element(device):
    x = spirjit.asarray(A, device=device)
    assert 4.0 in x and 7.0 not in x
    assert 0.0 in spirjit.zeros((4, 5), device=device)


def test_get_is_cupys_host_copy(device):
    x = spirjit.asarray(A, device=device)
    host = x.get()
    assert isinstance(host, np.ndarray)
    np.testing.assert_array_equal(host, A)
    out = np.empty_like(A)
    assert x.get(out=out) is out
    np.testing.assert_array_equal(out, A)


def test_reductions_and_scans_write_out(device):
    x = spirjit.asarray(A, device=device)
    out = spirjit.zeros(3, device=device)
    assert x.sum(axis=0, out=out) is out
    np.testing.assert_array_equal(np.asarray(out), A.sum(axis=0))
    assert np.max(x, axis=1, out=out[:2]) is not None
    np.testing.assert_array_equal(np.asarray(out), [2.0, 5.0, 7.0])
    index = spirjit.zeros(3, dtype=np.int64, device=device)
    np.argmax(x, axis=0, out=index)
    np.testing.assert_array_equal(np.asarray(index), A.argmax(axis=0))
    y = spirjit.asarray(A, device=device)
    np.clip(y, 1.0, 4.0, out=y)
    np.cumsum(y, axis=1, out=y)
    np.testing.assert_array_equal(np.asarray(y),
                                  np.cumsum(np.clip(A, 1, 4), axis=1))
    np.std(x, axis=0, out=out)
    np.testing.assert_allclose(np.asarray(out), A.std(axis=0))
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"output parameter for sum has the wrong shape"):
        x.sum(out=out)
    folded = spirjit.zeros(2, device=device)
    assert np.add.reduceat(x.ravel(), [0, 4], out=folded) is folded
    assert folded.asnumpy().tolist() == [6.0, 9.0]
    product = spirjit.zeros((2, 2), device=device)
    assert np.matmul(x, x.T, out=product) is product
    np.testing.assert_allclose(np.asarray(product), A @ A.T)
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"output parameter for matmul has the wrong "
                             r"shape: \(3,\), where the result's is "
                             r"\(2, 2\)"):
        np.matmul(x, x.T, out=out)


@pytest.mark.parametrize("make", [
    lambda like: np.zeros(3, like=like),
    lambda like: np.ones((2, 2), dtype=np.int32, like=like),
    lambda like: np.full(3, 7, like=like),
    lambda like: np.arange(5, like=like),
    lambda like: np.eye(3, k=1, like=like),
    lambda like: np.identity(2, like=like),
    lambda like: np.tri(3, like=like),
    lambda like: np.array([1, 2], like=like),
    lambda like: np.array(3.0, ndmin=2, like=like),
    lambda like: np.asarray([[1.5]], like=like),
    lambda like: np.ascontiguousarray(np.ones((3, 2)).T, like=like),
    lambda like: np.fromfunction(lambda i, j: i + 2 * j, (2, 3), like=like),
    lambda like: np.fromiter(range(4), dtype=np.int64, like=like),
])
def test_like_makes_the_array_on_likes_device(device, make):
    like = spirjit.asarray(np.arange(4.0), device=device)
    got = make(like)
    want = make(np.arange(4.0))
    assert isinstance(got, spirjit.DeviceArray) and got.device == like.device
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), want)


def test_numpys_functions_under_spirjits_name(device):
    x = spirjit.asarray(A, device=device)
    for got, want in ((spirjit.cumsum(x), np.cumsum(A)),
                      (spirjit.median(x, axis=0), np.median(A, axis=0)),
                      (spirjit.concatenate([x, x]), np.concatenate([A, A])),
                      (spirjit.isin(x, [1.0, 5.0]), np.isin(A, [1.0, 5.0])),
                      (spirjit.fmod(x, 4.0), np.fmod(A, 4.0))):
        assert isinstance(got, spirjit.DeviceArray) and \
            got.device == x.device
        np.testing.assert_array_equal(np.asarray(got), want)
    # Host data: NumPy's answer on the default device; creation functions
    # on device=.
    assert isinstance(spirjit.cumsum([1, 2, 3]), spirjit.DeviceArray)
    np.testing.assert_array_equal(np.asarray(spirjit.cumsum([1, 2, 3])),
                                  [1, 3, 6])
    eye = spirjit.identity(2, device=device)
    assert eye.device == spirjit.Device(device.filter_string)
    np.testing.assert_array_equal(np.asarray(eye), np.identity(2))
    with pytest.raises(AttributeError, match="no attribute 'nonexistent'"):
        spirjit.nonexistent


def test_negative_integer_powers_are_numpys_error(device):
    x = spirjit.asarray(np.array([2, 3]), device=device)
    for power in (lambda: x ** -1, lambda: np.power(x, -2),
                  lambda: x ** np.int8(-1)):
        with pytest.raises(errors.InvalidArgumentError,
                           match="Integers to negative integer powers are "
                                 "not allowed"):
            power()
    np.testing.assert_array_equal(np.asarray(x ** 2), [4, 9])
    np.testing.assert_array_equal(
        np.asarray(spirjit.asarray(np.array([2.0, 4.0]), device=device) ** -1),
        [0.5, 0.25])


def test_two_dimensional_ffts(device):
    a = np.random.default_rng(3).random((4, 6))
    x = spirjit.asarray(a, device=device)
    for name in ("fft2", "ifft2", "rfft2"):
        np.testing.assert_allclose(np.asarray(getattr(spirjit.fft, name)(x)),
                                   getattr(np.fft, name)(a), atol=1e-12)
    back = spirjit.fft.irfft2(spirjit.fft.rfft2(x), s=(4, 6))
    np.testing.assert_allclose(np.asarray(back), a, atol=1e-12)


def test_random_parameters_may_be_arrays(device):
    # NumPy's Generator broadcasts array parameters: each element its own
    # mean and deviation (or bounds).
    rng = spirjit.random.default_rng(7, device=device)
    loc = spirjit.asarray(np.array([0.0, 100.0, -50.0]), device=device)
    draw = np.asarray(rng.normal(loc, 0.5, size=(4000, 3)))
    assert draw.shape == (4000, 3)
    np.testing.assert_allclose(draw.mean(axis=0), [0.0, 100.0, -50.0],
                               atol=0.1)
    np.testing.assert_allclose(draw.std(axis=0), 0.5, rtol=0.1)
    wide = np.asarray(rng.uniform(0.0, np.array([1.0, 10.0])))
    assert wide.shape == (2,) and 0 <= wide[0] < 1 and 0 <= wide[1] < 10
    with pytest.raises(errors.InvalidArgumentError, match="scale < 0"):
        rng.normal(loc, spirjit.asarray(np.array([1.0, -1.0, 1.0]),
                                        device=device))


def test_assigning_shape_views_the_same_memory_as_numpy(device):
    x = spirjit.arange(12.0, device=device)
    y = x * 2  # a pending value is computed first
    y.shape = (3, 4)
    assert y.shape == (3, 4) and y.strides == (32, 8)
    np.testing.assert_array_equal(y.asnumpy(), np.arange(12.0).reshape(3, 4)
                                  * 2)
    x.shape = (2, -1)
    assert x.shape == (2, 6)
    x[1, 0] = 60.0  # the same memory, as NumPy's
    z = x[:, ::2]
    z.shape = (6,)
    assert z.strides == (16,)
    assert z.asnumpy().tolist() == [0.0, 2.0, 4.0, 60.0, 8.0, 10.0]
    t = x.T
    with pytest.raises(AttributeError, match="Incompatible shape for in-place "
                                             "modification"):
        t.shape = (12,)
    with pytest.raises(ValueError, match=r"cannot reshape array of size 12 "
                                         r"into shape \(5,\)"):
        x.shape = (5,)
    assert x.shape == (2, 6)


def test_compress_inverse_folds_and_unsigned_powers_as_numpy(device):
    a = np.arange(1.0, 13.0).reshape(3, 4)
    x = spirjit.asarray(a, device=device)
    np.testing.assert_array_equal(x.ravel().compress([True, False, True]),
                                  a.ravel().compress([True, False, True]))
    np.testing.assert_array_equal(x.compress([False, True], axis=1),
                                  a.compress([False, True], axis=1))
    for axis in (0, 1):
        np.testing.assert_allclose(np.subtract.reduce(x, axis=axis).asnumpy(),
                                   np.subtract.reduce(a, axis=axis))
        np.testing.assert_allclose(np.divide.reduce(x, axis=axis).asnumpy(),
                                   np.divide.reduce(a, axis=axis))
    small = np.arange(1, 7, dtype=np.int8)
    assert int(np.subtract.reduce(spirjit.asarray(small, device=device))) \
        == np.subtract.reduce(small)
    with pytest.raises(ValueError, match="not reorderable"):
        np.subtract.reduce(x, axis=None)
    with pytest.raises(OverflowError, match="Python integer -1 out of bounds "
                                            "for uint8"):
        spirjit.asarray(np.array([2], np.uint8), device=device) ** -1
    with pytest.raises(ValueError, match="Integers to negative integer "
                                         "powers are not allowed"):
        spirjit.asarray(np.array([2], np.int8), device=device) ** -1
