"""The Array API namespace and NumPy's functions on DeviceArrays (API.md,
"Arrays as a library"), on every device, against NumPy's answers. The
primitives run both ways a device may run them: NumPy's own in place on the
device's memory (CPU runtimes, by default) and spirjit's kernels (every
device; ``_array_primitives.use_host(False)`` forces them here)."""

import math

import numpy as np
import pytest

import spirjit
from spirjit import _array_primitives


@pytest.fixture(params=["numpy-in-place", "kernels"])
def path(request, device):
    """Runs the test with NumPy in place (host-addressable devices only) and
    with spirjit's kernels."""
    host = request.param == "numpy-in-place"
    if host and not spirjit.empty(1, device=device)._host_addressable:
        pytest.skip("the host does not address this device's memory")
    with _array_primitives.use_host(host):
        yield request.param


def on(device, values, dtype=None):
    return spirjit.asarray(np.asarray(values, dtype=dtype), device=device)


def same(result, expected):
    assert isinstance(result, spirjit.DeviceArray), type(result)
    got = result.asnumpy()
    expected = np.asarray(expected)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    np.testing.assert_array_equal(got, expected)


# ------------------------------------------------------------- namespace

def test_the_namespace_is_spirjit(device):
    x = spirjit.ones(3, device=device)
    assert x.__array_namespace__() is spirjit
    assert x.__array_namespace__(api_version="2024.12") is spirjit
    with pytest.raises(ValueError, match="2024.12"):
        x.__array_namespace__(api_version="1999.01")
    assert spirjit.__array_api_version__ == "2024.12"
    assert spirjit.float32 == np.float32 and spirjit.bool == np.bool_
    assert spirjit.pi == math.pi and spirjit.newaxis is None
    assert math.isnan(spirjit.nan) and spirjit.inf == math.inf
    info = spirjit.__array_namespace_info__()
    assert info.default_dtypes(device=device)["indexing"] == np.int64
    assert "float32" in info.dtypes(device=device)
    assert set(info.dtypes(kind="integral")) == {
        "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
        "uint64"}
    assert device in info.devices()
    assert info.capabilities()["boolean indexing"] is True


def test_every_elementwise_function_of_the_table_matches_numpy(device):
    h = np.array([0.25, 0.5, 0.75, 1.5, 2.0])
    x = on(device, h, np.float32)
    ref = h.astype(np.float32)
    for row in spirjit._spirjit.array_ops():
        name = row["array_api"]
        if row["kind"] != "Elementwise" or not name:
            continue
        args = (x,) * row["arity"]
        if "bitwise" in name:
            args = (on(device, [1, 2, 3], np.int32),) * row["arity"]
            refs = (np.array([1, 2, 3], np.int32),) * row["arity"]
        else:
            refs = (ref,) * row["arity"]
        got = getattr(spirjit, name)(*args).asnumpy()
        with np.errstate(invalid="ignore", divide="ignore"):
            want = getattr(np, row["numpy"])(*refs)
        np.testing.assert_allclose(got, want, rtol=2e-6, err_msg=name)
        assert got.dtype == want.dtype, name


def test_clip_round_real_imag_and_data_type_functions(device):
    x = on(device, [-2.5, -0.5, 0.5, 1.5, 3.0], np.float32)
    same(spirjit.clip(x, min=-1, max=1), np.clip(x.asnumpy(), -1, 1))
    same(spirjit.round(x), np.round(x.asnumpy()))
    same(spirjit.real(x), x.asnumpy())
    assert spirjit.isdtype(np.float32, "real floating")
    assert spirjit.isdtype(np.int8, ("bool", "integral"))
    assert not spirjit.isdtype(np.uint8, "signed integer")
    assert spirjit.result_type(x, np.int64) == np.float64
    assert spirjit.can_cast(np.int8, np.int16)
    assert not spirjit.can_cast(x, np.int32)
    assert spirjit.finfo(x).eps == np.finfo(np.float32).eps
    assert spirjit.iinfo(np.int16).max == 32767
    same(spirjit.astype(x, np.int32), x.asnumpy().astype(np.int32))


def test_index_converts_integer_scalars_only(device):
    n = spirjit.sum(on(device, [1, 2], np.int32))
    assert list(range(n)) == [0, 1, 2]
    with pytest.raises(TypeError, match="integer scalar"):
        range(on(device, [1.0]).sum())


# -------------------------------------------------------------- creation

def test_arange_linspace_eye(device):
    same(spirjit.arange(5, device=device), np.arange(5))
    same(spirjit.arange(2, 11, 3, device=device), np.arange(2, 11, 3))
    same(spirjit.arange(5, 0, -2, device=device), np.arange(5, 0, -2))
    np.testing.assert_allclose(
        spirjit.arange(0.0, 1.0, 0.1, device=device).asnumpy(),
        np.arange(0.0, 1.0, 0.1))
    same(spirjit.arange(3, 3, device=device), np.arange(3, 3))
    same(spirjit.arange(4, dtype=np.float32, device=device),
         np.arange(4, dtype=np.float32))
    with pytest.raises(ValueError, match="step must not be zero"):
        spirjit.arange(0, 3, 0, device=device)
    for endpoint in (True, False):
        got = spirjit.linspace(2.0, 3.0, num=7, endpoint=endpoint,
                               device=device)
        np.testing.assert_allclose(got.asnumpy(), np.linspace(
            2.0, 3.0, 7, endpoint=endpoint), rtol=1e-15)
    assert spirjit.linspace(0, 1, num=5, device=device).asnumpy()[-1] == 1.0
    same(spirjit.eye(3, 4, k=1, device=device), np.eye(3, 4, k=1))
    same(spirjit.eye(2, dtype=np.int32, device=device),
         np.eye(2, dtype=np.int32))


def test_tril_triu_meshgrid(device):
    h = np.arange(1, 13, dtype=np.float32).reshape(3, 4)
    x = on(device, h)
    for k in (-1, 0, 2):
        same(spirjit.tril(x, k=k), np.tril(h, k))
        same(spirjit.triu(x, k=k), np.triu(h, k))
    a, b = np.arange(3.0), np.arange(4.0)
    for indexing in ("xy", "ij"):
        got = spirjit.meshgrid(on(device, a), on(device, b),
                               indexing=indexing)
        for g, w in zip(got, np.meshgrid(a, b, indexing=indexing)):
            same(g, w)


def test_asarray_copy_keyword(device):
    x = spirjit.ones(4, dtype=np.float32, device=device)
    assert spirjit.asarray(x) is x
    assert spirjit.asarray(x, copy=False) is x
    y = spirjit.asarray(x, copy=True)
    y[0] = 5
    assert float(x[0]) == 1.0
    with pytest.raises(ValueError, match="copy=False"):
        spirjit.asarray(x, dtype=np.float64, copy=False)
    with pytest.raises(ValueError, match="copy=False"):
        spirjit.asarray(np.ones(3), copy=False, device=device)
    assert spirjit.asarray([1, 2], device=device).dtype == np.int64


# ---------------------------------------------------------- manipulation

def test_manipulation_functions(device):
    h = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = on(device, h)
    same(spirjit.concat([x, x], axis=1), np.concatenate([h, h], axis=1))
    same(spirjit.concat([x, x], axis=None), np.concatenate([h, h], None))
    same(spirjit.concat([x[:, :1], on(device, h[:, :2], np.int32)], axis=1),
         np.concatenate([h[:, :1], h[:, :2].astype(np.int32)], axis=1))
    same(spirjit.stack([x, x], axis=-1), np.stack([h, h], axis=-1))
    same(spirjit.expand_dims(x, axis=(0, 3)), np.expand_dims(h, (0, 3)))
    same(spirjit.flip(x, axis=1), np.flip(h, 1))
    same(spirjit.flip(x), np.flip(h))
    same(spirjit.moveaxis(x, 0, -1), np.moveaxis(h, 0, -1))
    same(spirjit.permute_dims(x, (2, 0, 1)), np.transpose(h, (2, 0, 1)))
    same(spirjit.roll(x, 5), np.roll(h, 5))
    same(spirjit.roll(x, (1, -2), axis=(0, 2)), np.roll(h, (1, -2), (0, 2)))
    same(spirjit.squeeze(x[:1], axis=0), np.squeeze(h[:1], 0))
    same(spirjit.repeat(x, 2, axis=1), np.repeat(h, 2, axis=1))
    same(spirjit.repeat(x[0, 0], on(device, [0, 2, 1, 3])),
         np.repeat(h[0, 0], [0, 2, 1, 3]))
    same(spirjit.tile(x[0], (2, 1, 3)), np.tile(h[0], (2, 1, 3)))
    parts = spirjit.unstack(x, axis=1)
    assert len(parts) == 3
    same(parts[1], h[:, 1])
    same(spirjit.broadcast_to(x[0, 0], (3, 4)), np.broadcast_to(h[0, 0],
                                                                 (3, 4)))
    a, b = spirjit.broadcast_arrays(x[:, :1, :1], x[0])
    assert a.shape == b.shape == (2, 3, 4)
    same(spirjit.reshape(x, (6, 4)), h.reshape(6, 4))
    same(spirjit.diff(x, axis=2, n=2), np.diff(h, 2, axis=2))
    same(spirjit.diff(x[0, 0], prepend=on(device, [10.0], np.float32)),
         np.diff(h[0, 0], prepend=np.float32(10)))


def test_manipulation_errors_name_the_problem(device):
    x = spirjit.ones((2, 3), device=device)
    with pytest.raises(ValueError, match="dimension 1.*size 3.*size 2"):
        spirjit.concat([x, spirjit.ones((2, 2), device=device)])
    with pytest.raises(ValueError, match="same shape"):
        spirjit.stack([x, x[:1]])
    with pytest.raises(np.exceptions.AxisError):
        spirjit.flip(x, axis=2)


# ------------------------------------------------- searching, sorting, sets

SORT_DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.uint32,
               np.int64, np.uint64, np.float32, np.float64]


@pytest.mark.parametrize("dtype", SORT_DTYPES, ids=lambda d: np.dtype(d).name)
def test_sort_and_argsort_are_numpy_stable_sorts(device, path, dtype,
                                                 require_dtypes):
    require_dtypes(dtype)
    rng = np.random.default_rng(3)
    h = rng.integers(0, 7, size=(3, 257)).astype(dtype)
    if np.dtype(dtype).kind == "f":
        h[0, ::11] = np.nan
        h[1, 5] = -np.inf
    x = on(device, h)
    for axis in (-1, 0):
        same(spirjit.sort(x, axis=axis), np.sort(h, axis=axis,
                                                 kind="stable"))
        same(spirjit.argsort(x, axis=axis),
             np.argsort(h, axis=axis, kind="stable"))
    desc = spirjit.argsort(x, descending=True).asnumpy()
    # descending and stable: equal keys keep their order (array-api-strict's)
    want = np.flip(np.argsort(np.flip(h, -1), axis=-1, kind="stable"), -1)
    np.testing.assert_array_equal(desc, h.shape[-1] - 1 - want)
    same(spirjit.sort(x, descending=True),
         np.flip(np.sort(np.flip(h, -1), kind="stable"), -1))
    same(np.sort(x, axis=None), np.sort(h, axis=None))


def test_sort_of_long_rows_and_empty_arrays(device, path):
    h = np.random.default_rng(0).standard_normal(100_003).astype(np.float32)
    x = on(device, h)
    same(spirjit.sort(x), np.sort(h))
    same(spirjit.argsort(x), np.argsort(h, kind="stable"))
    same(spirjit.sort(on(device, np.zeros(0, np.float32))),
         np.zeros(0, np.float32))
    with pytest.raises(np.exceptions.AxisError):
        spirjit.sort(on(device, np.float32(1)))


def test_cumulative_sum_and_prod(device, path):
    h = np.arange(1, 25, dtype=np.int32).reshape(4, 6) % 5
    x = on(device, h)
    same(spirjit.cumulative_sum(x, axis=1), np.cumulative_sum(h, axis=1,
                                                             dtype=np.int64))
    same(spirjit.cumulative_sum(x, axis=0, include_initial=True),
         np.cumulative_sum(h, axis=0, include_initial=True, dtype=np.int64))
    same(spirjit.cumulative_prod(x[0] + 1, dtype=np.int32),
         np.cumprod(h[0] + 1, dtype=np.int32))
    same(np.cumsum(x), np.cumsum(h))
    same(np.cumsum(x, axis=0), np.cumsum(h, axis=0))
    f = np.random.default_rng(1).random(100_001).astype(np.float32)
    got = spirjit.cumulative_sum(on(device, f)).asnumpy()
    np.testing.assert_allclose(got, np.cumsum(f, dtype=np.float32),
                               rtol=1e-4)
    g = np.array([1.0, np.nan, 2.0, np.inf])
    same(np.cumsum(on(device, g, np.float32)), np.cumsum(g.astype(
        np.float32)))
    with pytest.raises(ValueError, match="axis="):
        spirjit.cumulative_sum(x)


def test_nonzero_count_nonzero_searchsorted(device, path):
    h = np.array([[0, 3, 0, 1], [2, 0, 0, 5]], np.int32)
    x = on(device, h)
    for got, want in zip(spirjit.nonzero(x), np.nonzero(h)):
        same(got, want.astype(np.int64))
    assert int(spirjit.count_nonzero(x)) == 4
    same(spirjit.count_nonzero(x, axis=1), np.count_nonzero(h, axis=1))
    with pytest.raises(ValueError, match="nonzero on 0d"):
        spirjit.nonzero(on(device, np.int32(1)))
    a = np.array([1.0, 2.0, 2.0, 3.0, np.nan])
    v = np.array([[2.0, 0.0], [np.nan, 3.5]])
    for side in ("left", "right"):
        same(spirjit.searchsorted(on(device, a), on(device, v), side=side),
             np.searchsorted(a, v, side=side).astype(np.int64))
    same(np.searchsorted(on(device, a), on(device, v)),
         np.searchsorted(a, v))
    same(spirjit.where(x > 1, x, -1), np.where(h > 1, h, -1))


def test_unique_functions(device, path):
    h = np.array([3.0, 1.0, np.nan, 3.0, 2.0, np.nan, 1.0, 3.0])
    x = on(device, h)
    r = spirjit.unique_all(x)
    # NaNs are distinct (Array API): NumPy's equal_nan=False answers
    values, index, inverse, counts = np.unique(
        h, return_index=True, return_inverse=True, return_counts=True,
        equal_nan=False)
    same(r.values, values)
    same(r.indices, index.astype(np.int64))
    same(r.inverse_indices, inverse.reshape(h.shape).astype(np.int64))
    same(r.counts, counts.astype(np.int64))
    same(spirjit.unique_values(x), values)
    c = spirjit.unique_counts(on(device, h[h == h].astype(np.int16)))
    v, n = np.unique(h[h == h].astype(np.int16), return_counts=True)
    same(c.values, v)
    same(c.counts, n)
    u = spirjit.unique_inverse(on(device, h.reshape(2, 4)))
    assert u.inverse_indices.shape == (2, 4)
    # numpy.unique on a DeviceArray: NumPy's answer (NaNs collapsed)
    got = np.unique(x, return_counts=True)
    want = np.unique(h, return_counts=True)
    same(got[0], want[0])
    same(got[1], want[1])


# --------------------------------------------------------------- indexing

def test_boolean_masks_read_and_write(device, path):
    h = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = on(device, h)
    same(x[x > 4], h[h > 4])
    rows = np.array([True, False, True])
    same(x[on(device, rows)], h[rows])
    same(x[rows], h[rows])
    x[x > 8] = 0
    h[h > 8] = 0
    same(x, h)
    flat = on(device, np.arange(6, dtype=np.int64))
    flat[flat % 2 == 0] = on(device, [10, 20, 30], np.int64)
    same(flat, np.array([10, 1, 20, 3, 30, 5]))
    with pytest.raises(IndexError, match="boolean index did not match"):
        x[on(device, [True, False])]
    with pytest.raises(ValueError, match="cannot assign 2 input values"):
        flat[flat > 0] = on(device, [1, 2], np.int64)


def test_integer_array_indices_read_and_write(device, path):
    h = np.arange(20, dtype=np.int32).reshape(4, 5)
    x = on(device, h)
    idx = np.array([3, 0, -1, 3])
    same(x[on(device, idx)], h[idx])
    same(x[idx], h[idx])
    same(x[[1, 2]], h[[1, 2]])
    same(x[1:, on(device, [4, 0])], h[1:, [4, 0]])
    same(x[2, on(device, [[1, 2], [3, 4]])], h[2, [[1, 2], [3, 4]]])
    same(spirjit.take(x, on(device, [2, 0]), axis=1), np.take(h, [2, 0], 1))
    same(spirjit.take(x[0], on(device, [4, -5])), np.take(h[0], [4, -5]))
    same(np.take(x, on(device, [7, 1])), np.take(h, [7, 1]))
    order = np.argsort(-h, axis=1)
    same(spirjit.take_along_axis(x, on(device, order), axis=1),
         np.take_along_axis(h, order, 1))
    x[on(device, [0, 2])] = 7
    h[[0, 2]] = 7
    same(x, h)
    x[on(device, [1, 3])] = on(device, np.arange(10, dtype=np.int32)
                               .reshape(2, 5))
    h[[1, 3]] = np.arange(10).reshape(2, 5)
    same(x, h)
    with pytest.raises(IndexError,
                       match="index 9 is out of bounds for axis 0 with size 4"):
        x[on(device, [1, 9])]
    with pytest.raises(IndexError, match="integer"):
        x[on(device, [1.0, 2.0])]


# ------------------------------------------------------------- statistics

def test_statistical_functions_take_the_standards_keywords(device):
    h = np.arange(12, dtype=np.int16).reshape(3, 4)
    x = on(device, h)
    r = spirjit.sum(x, axis=1, keepdims=True)
    same(r, np.sum(h, axis=1, keepdims=True, dtype=np.int64))
    same(spirjit.prod(x[:, 1:3], dtype=np.int32),
         np.prod(h[:, 1:3], dtype=np.int32))
    same(spirjit.max(x, axis=0), h.max(axis=0))
    same(spirjit.min(x), h.min())
    f = h.astype(np.float64)
    y = on(device, f)
    np.testing.assert_allclose(spirjit.var(y, correction=1).asnumpy(),
                               np.var(f, ddof=1))
    np.testing.assert_allclose(spirjit.std(y, axis=0).asnumpy(),
                               np.std(f, axis=0))
    np.testing.assert_allclose(spirjit.mean(y, axis=1).asnumpy(),
                               f.mean(axis=1))
    assert bool(spirjit.all(x >= 0)) and not bool(spirjit.any(x > 11))
    same(spirjit.argmax(y, axis=1), np.argmax(f, axis=1))
    same(spirjit.argmin(y), np.argmin(f))


# --------------------------------------------------- NumPy's own functions

def test_numpy_functions_return_device_arrays(device):
    h = np.array([3.0, 1.0, 2.0, 5.0])
    x = on(device, h)
    for got, want in ((np.sort(x), np.sort(h)),
                      (np.argsort(x), np.argsort(h)),
                      (np.cumsum(x), np.cumsum(h)),
                      (np.flip(x), np.flip(h)),
                      (np.roll(x, 1), np.roll(h, 1)),
                      (np.concatenate([x, x]), np.concatenate([h, h])),
                      (np.stack([x, x]), np.stack([h, h])),
                      (np.diff(x), np.diff(h)),
                      (np.repeat(x, 2), np.repeat(h, 2)),
                      (np.tile(x, 2), np.tile(h, 2)),
                      (np.flatnonzero(x > 2), np.flatnonzero(h > 2)),
                      (np.expand_dims(x, 0), np.expand_dims(h, 0)),
                      (np.isclose(x, h + 1e-9), np.isclose(h, h + 1e-9))):
        same(got, want)
    assert np.allclose(x, h) and np.array_equal(x, h)
    assert not np.array_equal(x, h[:3])
    np.testing.assert_allclose(float(np.linalg.norm(x)), np.linalg.norm(h))
    assert isinstance(np.unique(x), spirjit.DeviceArray)


def test_linalg_and_fft(device):
    require_host = not spirjit.empty(1, device=device)._host_addressable
    a = np.array([[4.0, 1.0], [1.0, 3.0]])
    b = np.array([1.0, 2.0])
    A, B = on(device, a), on(device, b)
    np.testing.assert_allclose(spirjit.linalg.vector_norm(B).asnumpy(),
                               np.linalg.norm(b))
    np.testing.assert_allclose(spirjit.linalg.vecdot(A, A).asnumpy(),
                               (a * a).sum(-1))
    np.testing.assert_allclose(spirjit.tensordot(A, A, axes=1).asnumpy(),
                               np.tensordot(a, a, axes=1))
    same(A.mT, a.T)
    if require_host:
        if device.backend == "cuda":  # cuSOLVER (test_linalg_gpu.py)
            np.testing.assert_allclose(spirjit.linalg.solve(A, B).asnumpy(),
                                       np.linalg.solve(a, b))
        else:
            with pytest.raises(NotImplementedError, match="linalg.solve"):
                spirjit.linalg.solve(A, B)
        if device.backend == "cuda":  # spirjit.fft through cuFFT
            rng = np.random.default_rng(2)
            h = rng.standard_normal((3, 10)) + 1j * rng.standard_normal((3, 10))
            H = on(device, h)
            r = on(device, h.real.astype(np.float32))
            for got, want in (
                    (spirjit.fft.fft(H), np.fft.fft(h)),
                    (spirjit.fft.ifft(H, n=12, norm="ortho"),
                     np.fft.ifft(h, n=12, norm="ortho")),
                    (spirjit.fft.fft(H, axis=0), np.fft.fft(h, axis=0)),
                    (spirjit.fft.rfft(r), np.fft.rfft(h.real.astype(
                        np.float32))),
                    (spirjit.fft.irfft(H, n=9), np.fft.irfft(h, n=9)),
                    (spirjit.fft.fftn(H), np.fft.fftn(h)),
                    (spirjit.fft.ifftn(H, norm="forward"),
                     np.fft.ifftn(h, norm="forward")),
                    (np.fft.fft(H), np.fft.fft(h)),
                    (spirjit.fft.rfftn(r), np.fft.rfftn(h.real.astype(
                        np.float32))),
                    (spirjit.fft.irfftn(H, s=(3, 8)),
                     np.fft.irfftn(h, s=(3, 8))),
                    (spirjit.fft.hfft(H, n=12), np.fft.hfft(h, n=12)),
                    (spirjit.fft.ihfft(r), np.fft.ihfft(h.real.astype(
                        np.float32))),
                    # NumPy's 2-D names, over axes (-2, -1) by default
                    (np.fft.fft2(H), np.fft.fft2(h)),
                    (np.fft.ifft2(H, axes=(1, 0)), np.fft.ifft2(h,
                                                                axes=(1, 0))),
                    (np.fft.rfft2(r), np.fft.rfft2(h.real.astype(
                        np.float32))),
                    (np.fft.irfft2(H, s=(3, 8)),
                     np.fft.irfft2(h, s=(3, 8)))):
                np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-4,
                                           atol=1e-4)
        return
    for got, want in ((spirjit.linalg.solve(A, B), np.linalg.solve(a, b)),
                      (np.linalg.inv(A), np.linalg.inv(a)),
                      (spirjit.linalg.cholesky(A), np.linalg.cholesky(a)),
                      (spirjit.linalg.det(A), np.linalg.det(a)),
                      (np.fft.fft(B), np.fft.fft(b)),
                      (np.fft.fft2(A), np.fft.fft2(a)),
                      (spirjit.fft.rfft(B), np.fft.rfft(b))):
        assert isinstance(got, spirjit.DeviceArray)
        np.testing.assert_allclose(got.asnumpy(), want)


ADVANCED_KEYS = [
    lambda: (np.array([[0, 2], [1, -1]]),),
    lambda: (slice(None), np.array([3, 0])),
    lambda: (1, slice(None), np.array([4, 1])),        # apart: dims in front
    lambda: (slice(None), 1, np.array([4, 1])),        # adjacent
    lambda: (np.array([[0, 2], [1, -1]]), np.array([3, 0])),
    lambda: (slice(1, 3), np.array([3, 0]), np.array([4, 1])),
    lambda: (np.array([2, 0]), slice(None), np.array([4, 1])),
    lambda: (Ellipsis, np.array([4, 1])),
    lambda: (np.array([True, False, True]), np.array([1, 2])),
    lambda: (slice(None), np.array([True, False, True, True])),
    lambda: (np.array([1, 2]), 1, slice(None, None, -1)),
    lambda: (slice(None), [1, 3], [0, 4]),
    lambda: (np.array([], dtype=np.int64),),
]


@pytest.mark.parametrize("make_key", ADVANCED_KEYS,
                         ids=[str(i) for i in range(len(ADVANCED_KEYS))])
def test_advanced_indices_read_and_write_as_numpy(device, path, make_key):
    # Several integer arrays, integers beside them (NumPy's rule for where
    # the broadcast dims go), booleans among them, on every device.
    key = make_key()
    h = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    x = on(device, h)
    device_key = tuple(on(device, k) if isinstance(k, np.ndarray) else k
                       for k in key)
    same(x[device_key], h[key])
    want = h.copy()
    shape = want[key].shape
    value = np.arange(np.prod(shape), dtype=np.float32).reshape(shape) + 100
    want[key] = value
    x[device_key] = on(device, value)
    same(x, want)
    want[key] = -1.0
    x[device_key] = -1.0
    same(x, want)


def test_results_of_numpy_in_place_launch_as_views(device, path):
    # A result NumPy made (argsort, svd) launches as a view at an offset,
    # as every DeviceArray does (a wrapped host buffer could not).
    spirjit._spirjit._host_evaluation(False)
    h = np.random.default_rng(5).random(50_000)
    order = spirjit.argsort(on(device, h), stable=False)
    tail = order[1000:]
    np.testing.assert_array_equal((tail + 1).asnumpy(),
                                  np.argsort(h)[1000:] + 1)
    if spirjit.empty(1, device=device)._host_addressable and \
            path == "numpy-in-place":
        u, s, vh = spirjit.linalg.svd(on(device, np.eye(6)[:, :4] + 0.5))
        assert float((u[1:, 1:] * 2).sum()) == pytest.approx(
            float(np.sum(u.asnumpy()[1:, 1:] * 2)))


def test_asarray_keeps_the_packages_keywords(device):
    x = spirjit.asarray(np.arange(4.0), device=device)
    shared = spirjit.asarray(x, usm_type="shared")
    assert shared.usm_type == "shared" and shared is not x
    same(shared, np.arange(4.0))
    assert spirjit.asarray(x, usm_type=x.usm_type) is x
    with pytest.raises(ValueError, match="usm_type"):
        spirjit.asarray(x, usm_type="shared", copy=False)
