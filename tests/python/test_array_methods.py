"""ndarray's everyday methods on DeviceArrays, as NumPy users write them:
(a == b).all(), x.argmax(axis=1), x.std(), x.clip(0, 1), x.round(2),
x.ravel(), x.real, x.tolist()... Each result is compared with NumPy's on
the same data (shape, dtype and values), and stays a DeviceArray on the
array's device; complex reductions (sum, prod, mean) run on the device
too."""

import numpy as np
import pytest

import spirjit

DTYPES = [np.float32, np.float64, np.int32, np.int64]
AXES = [None, 0, 1, -1, (0, 2)]


def same(got, want):
    assert isinstance(got, spirjit.DeviceArray)
    host = got.asnumpy()
    want = np.asarray(want)
    assert host.shape == want.shape and host.dtype == want.dtype
    np.testing.assert_allclose(host, want, rtol=1e-5, equal_nan=True)


def data(dtype, shape=(4, 5, 3), seed=0):
    values = np.random.default_rng(seed).random(shape) * 10
    return values.astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions_match_numpy(device, dtype, axis, keepdims):
    h = data(dtype)
    x = spirjit.asarray(h, device=device)
    kw = dict(axis=axis, keepdims=keepdims)
    same((x > 3).all(**kw), (h > 3).all(**kw))
    same(np.any(x > 8, **kw), np.any(h > 8, **kw))
    same(x.var(**kw), h.var(**kw))
    same(np.std(x, ddof=1, **kw), np.std(h, ddof=1, **kw))
    if not isinstance(axis, tuple):
        same(x.argmax(**kw), h.argmax(**kw))
        same(np.argmin(x, **kw), np.argmin(h, **kw))
    assert x.argmax(axis=axis).device == device


def test_the_first_nan_is_the_extreme_as_in_numpy(device):
    h = np.array([[1.0, np.nan, 3.0, np.nan], [4.0, 2.0, 9.0, 0.0]])
    x = spirjit.asarray(h, device=device)
    for axis in (None, 0, 1):
        same(x.argmax(axis=axis), h.argmax(axis=axis))
        same(x.argmin(axis=axis), h.argmin(axis=axis))


def test_all_and_any_of_nothing(device):
    x = spirjit.zeros((0, 3), device=device)
    same(x.all(), True)
    same(x.any(axis=0), np.zeros(3, bool))
    same(x.all(axis=1), np.zeros(0, bool))


@pytest.mark.parametrize("dtype", DTYPES)
def test_elementwise_methods_match_numpy(device, dtype):
    h = data(dtype) - 5
    x = spirjit.asarray(h, device=device)
    same(x.clip(-2, 3), h.clip(-2, 3))
    same(np.clip(x, None, 1), np.clip(h, None, 1))
    same(np.round(x), np.round(h))
    same(x.round(1), h.round(1))
    same(x.round(-1), h.round(-1))
    same(x.conj(), h.conj())
    assert x.real is x
    same(x.imag, h.imag)


def test_views_and_copies_of_the_layout(device):
    h = data(np.float64)
    x = spirjit.asarray(h, device=device)
    same(x.ravel(), h.ravel())
    same(x.T.ravel(), h.T.ravel())
    same(np.ravel(x[:, 1]), np.ravel(h[:, 1]))
    same(x.flatten(), h.flatten())
    same(x.swapaxes(0, 2), h.swapaxes(0, 2))
    same(x[:, :1, :].squeeze(), h[:, :1, :].squeeze())
    same(np.squeeze(x[:1], axis=0), np.squeeze(h[:1], axis=0))
    # ravel of a C-contiguous array is a view, flatten a copy
    flat = x.ravel()
    flat[0] = -1.0
    assert float(x[0, 0, 0]) == -1.0
    x.flatten()[1] = -2.0
    assert float(x[0, 0, 1]) != -2.0


def test_host_side_attributes(device):
    h = data(np.int32, (2, 3))
    x = spirjit.asarray(h, device=device)
    assert x.itemsize == 4 and x.nbytes == 24
    assert x.tolist() == h.tolist()
    assert x.tobytes() == h.tobytes()
    x.fill(7)
    same(x, np.full((2, 3), 7, np.int32))


def test_complex_parts_are_views_and_reductions_run(device):
    h = np.array([1 + 2j, 3 - 1j, -2 + 0.5j, 0.25 + 0j], np.complex64)
    x = spirjit.asarray(h, device=device)
    same(x.real, h.real)
    same(np.imag(x), h.imag)
    same(x.sum(), h.sum())
    same(x.prod(), h.prod())
    same(x.mean(), h.mean())
    same(x.var(), h.var())
    same(np.conjugate(x), np.conjugate(h))
    x.imag = 0
    x.real[1:] = 5
    same(x, np.array([1, 5, 5, 5], np.complex64))
    w = spirjit.asarray(np.arange(12, dtype=np.complex128).reshape(3, 4),
                        device=device)
    same(w.sum(axis=1), np.arange(12, dtype=np.complex128).reshape(3, 4)
         .sum(axis=1))


@pytest.mark.parametrize("method", ["min", "max", "argmin", "argmax"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_complex_numbers_are_ordered_as_numpy_orders_them(device, method,
                                                          axis):
    # By real part, then imaginary part; a NaN in either part wins.
    h = np.array([[1 + 2j, 3 - 1j, 3 + 0.5j, -2j, 3 + 0.5j],
                  [complex(np.nan, 1), 5, complex(2, np.nan), 7, -1],
                  [4 - 1j, 4 - 3j, 4 + 3j, 4 - 1j, 0]], np.complex128)
    x = spirjit.asarray(h, device=device)
    got = np.asarray(getattr(x, method)(axis=axis))
    want = getattr(h, method)(axis=axis)
    assert got.dtype == want.dtype and got.shape == want.shape
    if method.startswith("arg"):
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_array_equal(got[~np.isnan(want)],
                                      want[~np.isnan(want)])


# Rows long enough that each work-item folds several blocks (the native
# device folds blocks of 1024 as vectors, NaNs replaced and counted apart),
# with the special value at a block's edge, inside one, in the last
# element, or everywhere.
_LONG_ROWS = {
    "nan inside": lambda h: h.__setitem__(5000, np.nan),
    "nans at block edges": lambda h: h.__setitem__([1023, 1024, 2047],
                                                    np.nan),
    "nan last": lambda h: h.__setitem__(-1, np.nan),
    "nan first": lambda h: h.__setitem__(0, np.nan),
    "all nan": lambda h: h.fill(np.nan),
    "infinities": lambda h: h.__setitem__([7, 3000, 40000], [np.inf, -np.inf,
                                                              np.inf]),
    "all -inf": lambda h: h.fill(-np.inf),
    "ties": lambda h: (h.fill(3.0), h.__setitem__([1500, 30001], 7.0),
                       h.__setitem__([2500, 20001], -7.0)),
}


@pytest.mark.parametrize("case", sorted(_LONG_ROWS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_min_max_and_their_indices_follow_numpy_on_long_rows(
        device, require_dtypes, dtype, case):
    # NumPy's rule: a NaN wins min and max, and argmax/argmin give the
    # first NaN, else the first extreme.
    require_dtypes(dtype)
    h = np.random.default_rng(7).standard_normal(50001).astype(dtype)
    _LONG_ROWS[case](h)
    x = spirjit.asarray(h, device=device)
    for method in ("min", "max", "argmin", "argmax"):
        got, want = getattr(x, method)(), getattr(h, method)()
        np.testing.assert_array_equal(np.asarray(got), want,
                                      err_msg=f"{method} of {case}")
    rows = spirjit.asarray(h[:50000].reshape(2, 25000), device=device)
    for method in ("max", "argmin"):
        np.testing.assert_array_equal(
            np.asarray(getattr(rows, method)(axis=1)),
            getattr(h[:50000].reshape(2, 25000), method)(axis=1),
            err_msg=f"{method}(axis=1) of {case}")


def test_integer_min_max_and_indices_follow_numpy_on_long_rows(device):
    h = np.random.default_rng(8).integers(-1000, 1000, 50001,
                                          dtype=np.int32)
    h[[333, 44444]] = np.iinfo(np.int32).max
    h[[17, 2048]] = np.iinfo(np.int32).min
    x = spirjit.asarray(h, device=device)
    for method in ("min", "max", "argmin", "argmax"):
        assert int(getattr(x, method)()) == getattr(h, method)(), method


def test_what_numpy_refuses_is_refused_alike(device):
    x = spirjit.asarray(np.arange(4.0), device=device)
    with pytest.raises(ValueError, match="attempt to get argmax of an "
                                         "empty sequence"):
        spirjit.zeros(0, device=device).argmax()
    with pytest.raises(ValueError, match="cannot select an axis to squeeze"):
        x.squeeze(0)
    with pytest.raises(np.exceptions.AxisError):
        x.all(axis=1)
    with pytest.raises(TypeError, match="array does not have imaginary "
                                        "part to set"):
        x.imag = 1
    with pytest.raises(ValueError, match=r"output parameter for var has "
                       r"the wrong shape: \(4,\), where the result's is "
                       r"\(\)"):
        x.var(out=x)


@pytest.mark.parametrize("op", ["sum", "prod", "min", "max", "mean"])
@pytest.mark.parametrize("axis", [(0, 1), (0, 2), (2, 0), (0, 1, 2)])
def test_reductions_over_several_axes(device, op, axis):
    h = np.arange(1, 25, dtype=np.float64).reshape(2, 3, 4) / 8
    x = spirjit.asarray(h, device=device)
    for keepdims in (False, True):
        same(getattr(x, op)(axis=axis, keepdims=keepdims),
             getattr(h, op)(axis=axis, keepdims=keepdims))
    same(getattr(np, op)(x, axis=axis), getattr(np, op)(h, axis=axis))


def test_divmod_floors_as_python_does(device):
    h = np.arange(-7, 8, dtype=np.int64)
    x = spirjit.asarray(h, device=device)
    for got, want in ((divmod(x, 3), divmod(h, 3)),
                      (np.divmod(x, -4), np.divmod(h, -4)),
                      (divmod(20, x[8:]), divmod(20, h[8:]))):
        assert len(got) == 2
        same(got[0], want[0])
        same(got[1], want[1])


def test_numpy_like_constructors_follow_the_device_array(device):
    x = spirjit.asarray(np.arange(6, dtype=np.int32), device=device,
                        usm_type="shared")
    for made, value in ((np.zeros_like(x), 0), (np.ones_like(x), 1),
                        (np.full_like(x, 7), 7)):
        assert made.device == device and made.usm_type == "shared"
        same(made, np.full(6, value, np.int32))
    e = np.empty_like(x, dtype=np.float32, shape=(2, 3))
    assert isinstance(e, spirjit.DeviceArray)
    assert e.shape == (2, 3) and e.dtype == np.float32
    host = np.zeros_like(x, device="cpu")
    assert type(host) is np.ndarray and host.dtype == np.int32
