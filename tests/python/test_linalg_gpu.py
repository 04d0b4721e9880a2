"""spirjit.linalg against NumPy on every device: the Array API's linalg
extension (2024.12) for float32, float64, complex64 and complex128 stacks
of square, tall, wide and 1x1 matrices. On CUDA devices the factorizations
run through cuSOLVER (``_vendor_solver``), on CPU runtimes through NumPy in
place, and the compositions (diagonal, trace, cross, matrix_power,
matrix_norm) as kernels everywhere; the answers must be NumPy's, results
DeviceArrays on the operands' device, and singular or indefinite matrices
NumPy's LinAlgError with NumPy's message.

Factors that are unique only up to signs or phases (QR's, SVD's and
eigenvectors) are checked by what defines them: the product gives the
matrix back, the vectors are orthonormal, the triangle is a triangle."""

import math

import numpy as np
import pytest

import spirjit

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
SHAPES = [(1, 1), (3, 3), (5, 3), (3, 5), (2, 4, 4), (2, 3, 4, 2),
          (2, 1, 2, 5)]
SQUARE = [(1, 1), (4, 4), (3, 2, 2), (2, 2, 3, 3)]


def ids(values):
    return [np.dtype(v).name if not isinstance(v, tuple) else
            "x".join(map(str, v)) for v in values]


@pytest.fixture
def dtype_on(device, require_dtypes):
    """``dtype_on(dtype)``: skips dtypes the device lacks."""
    def check(dtype):
        require_dtypes(dtype)
        return np.dtype(dtype)
    return check


def tolerance(dtype):
    single = np.dtype(dtype) in (np.float32, np.complex64)
    return dict(rtol=2e-4, atol=2e-4) if single else dict(rtol=1e-9,
                                                         atol=1e-9)


def random(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def hermitian_pd(shape, dtype, seed=0):
    a = random(shape, dtype, seed)
    n = shape[-1]
    return (a @ np.conj(np.swapaxes(a, -1, -2)) +
            n * np.eye(n, dtype=dtype)).astype(dtype)


def well_conditioned(shape, dtype, seed=0):
    return (random(shape, dtype, seed) +
            shape[-1] * np.eye(shape[-1], dtype=dtype)).astype(dtype)


def on(device, h):
    return spirjit.asarray(h, device=device)


def check(got, want, dtype, device, **tol):
    assert isinstance(got, spirjit.DeviceArray), type(got)
    assert got.device == device
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got.asnumpy(), want,
                               **(tol or tolerance(dtype)))


def conj_t(a):
    return np.conj(np.swapaxes(a, -1, -2))


def orthonormal_columns(q, dtype):
    k = q.shape[-1]
    np.testing.assert_allclose(conj_t(q) @ q, np.broadcast_to(
        np.eye(k), q.shape[:-2] + (k, k)), **tolerance(dtype))


# ---------------------------------------------------- compositions

@pytest.mark.parametrize("shape", SHAPES, ids=ids(SHAPES))
@pytest.mark.parametrize("dtype", DTYPES, ids=ids(DTYPES))
def test_diagonal_and_trace(device, dtype_on, dtype, shape):
    dtype_on(dtype)
    h = random(shape, dtype)
    x = on(device, h)
    for offset in (0, 1, -1, 2, -7):
        check(spirjit.linalg.diagonal(x, offset=offset),
              np.diagonal(h, offset, axis1=-2, axis2=-1), dtype, device)
        check(spirjit.linalg.trace(x, offset=offset),
              np.trace(h, offset, axis1=-2, axis2=-1), dtype, device)
    # A view's diagonal, and the result is an array of its own.
    view = x[..., ::-1, :]
    check(spirjit.linalg.diagonal(view), np.diagonal(h[..., ::-1, :], 0,
                                                     -2, -1), dtype, device)
    d = spirjit.linalg.diagonal(x)
    d[...] = 0
    check(x, h, dtype, device)


def test_trace_dtypes_follow_numpy(device):
    h = np.arange(12, dtype=np.int8).reshape(3, 4)
    x = on(device, h)
    check(spirjit.linalg.trace(x), np.trace(h), np.float64, device)
    check(spirjit.linalg.trace(x, dtype=np.float32),
          np.trace(h, dtype=np.float32), np.float32, device)
    b = on(device, h > 3)
    check(spirjit.linalg.trace(b), np.trace(h > 3), np.float64, device)


@pytest.mark.parametrize("dtype", DTYPES + [np.int32], ids=ids(
    DTYPES + [np.int32]))
def test_cross(device, dtype_on, dtype):
    dtype_on(dtype)
    if dtype == np.int32:
        a = np.arange(12, dtype=dtype).reshape(4, 3) - 5
        b = np.arange(6, dtype=dtype).reshape(2, 1, 3) * 3 - 2
    else:
        a, b = random((4, 3), dtype, 1), random((2, 1, 3), dtype, 2)
    check(spirjit.linalg.cross(on(device, a), on(device, b)),
          np.cross(a, b), dtype, device)
    check(spirjit.linalg.cross(on(device, a.T.copy()), on(device, a.T[::-1]
                                                          .copy()), axis=0),
          np.cross(a.T, a.T[::-1], axis=0), dtype, device)
    with pytest.raises(ValueError, match="size 3"):
        spirjit.linalg.cross(on(device, a[:, :2]), on(device, a[:, :2]))


@pytest.mark.parametrize("shape", SQUARE, ids=ids(SQUARE))
@pytest.mark.parametrize("dtype", DTYPES, ids=ids(DTYPES))
def test_matrix_power(device, dtype_on, dtype, shape):
    dtype_on(dtype)
    h = (well_conditioned(shape, dtype) / shape[-1]).astype(dtype)
    x = on(device, h)
    for n in (0, 1, 2, 3, 6, -1, -2):
        tol = tolerance(dtype)
        tol = {k: v * 50 for k, v in tol.items()}
        check(spirjit.linalg.matrix_power(x, n),
              np.linalg.matrix_power(h, n), dtype, device, **tol)


def test_matrix_power_of_integers(device):
    h = np.arange(9, dtype=np.int64).reshape(3, 3) - 4
    x = on(device, h)
    for n in (0, 1, 3):
        check(spirjit.linalg.matrix_power(x, n),
              np.linalg.matrix_power(h, n), np.int64, device)
    with pytest.raises(TypeError):
        spirjit.linalg.matrix_power(x, 1.5)


@pytest.mark.parametrize("shape", SHAPES, ids=ids(SHAPES))
@pytest.mark.parametrize("dtype", DTYPES, ids=ids(DTYPES))
def test_matrix_norm(device, dtype_on, dtype, shape):
    dtype_on(dtype)
    h = random(shape, dtype)
    x = on(device, h)
    for order in ("fro", 1, -1, math.inf, -math.inf, 2, -2, "nuc"):
        for keepdims in (False, True):
            check(spirjit.linalg.matrix_norm(x, ord=order,
                                             keepdims=keepdims),
                  np.linalg.norm(h, ord=order, axis=(-2, -1),
                                 keepdims=keepdims), dtype, device)


# ---------------------------------------------------- factorizations

@pytest.mark.parametrize("shape", SQUARE, ids=ids(SQUARE))
@pytest.mark.parametrize("dtype", DTYPES, ids=ids(DTYPES))
def test_cholesky(device, dtype_on, dtype, shape):
    dtype_on(dtype)
    h = hermitian_pd(shape, dtype)
    x = on(device, h)
    want = np.linalg.cholesky(h)
    check(spirjit.linalg.cholesky(x), want, dtype, device)
    check(spirjit.linalg.cholesky(x, upper=True), conj_t(want), dtype,
          device)


@pytest.mark.parametrize("shape", SQUARE + [(0, 3, 3)], ids=ids(
    SQUARE + [(0, 3, 3)]))
@pytest.mark.parametrize("dtype", DTYPES, ids=ids(DTYPES))
def test_det_slogdet_inv(device, dtype_on, dtype, shape):
    dtype_on(dtype)
    h = random(shape, dtype)
    x = on(device, h)
    tol = {k: v * 10 for k, v in tolerance(dtype).items()}
    check(spirjit.linalg.det(x), np.linalg.det(h), dtype, device, **tol)
    sign, logabsdet = spirjit.linalg.slogdet(x)
    want = np.linalg.slogdet(h)
    check(sign, want.sign, dtype, device, **tol)
    check(logabsdet, want.logabsdet, dtype, device, **tol)
    assert spirjit.linalg.slogdet(x).logabsdet is not None
    w = well_conditioned(shape, dtype)
    check(spirjit.linalg.inv(on(device, w)), np.linalg.inv(w), dtype,
          device, **tol)


@pytest.mark.parametrize("dtype", DTYPES, ids=ids(DTYPES))
def test_solve_takes_the_standards_right_hand_sides(device, dtype_on, dtype):
    dtype_on(dtype)
    tol = {k: v * 10 for k, v in tolerance(dtype).items()}
    a = well_conditioned((2, 3, 4, 4), dtype)
    for b in (random((4,), dtype, 3),            # a vector: (..., M)
              random((4, 2), dtype, 4),          # one matrix for the stack
              random((3, 4, 1), dtype, 5),       # broadcast batch
              random((2, 3, 4, 3), dtype, 6)):
        check(spirjit.linalg.solve(on(device, a), on(device, b)),
              np.linalg.solve(a, b), dtype, device, **tol)
    one = well_conditioned((1, 1), dtype)
    check(spirjit.linalg.solve(on(device, one), on(device, one[0])),
          np.linalg.solve(one, one[0]), dtype, device, **tol)


@pytest.mark.parametrize("shape", SHAPES, ids=ids(SHAPES))
@pytest.mark.parametrize("dtype", DTYPES, ids=ids(DTYPES))
def test_qr(device, dtype_on, dtype, shape):
    dtype_on(dtype)
    h = random(shape, dtype)
    x = on(device, h)
    for mode in ("reduced", "complete"):
        q, r = spirjit.linalg.qr(x, mode=mode)
        want = np.linalg.qr(h, mode=mode)
        for got, expected in ((q, want.Q), (r, want.R)):
            assert isinstance(got, spirjit.DeviceArray)
            assert got.device == device
            assert (got.shape, got.dtype) == (expected.shape,
                                              expected.dtype)
        q, r = q.asnumpy(), r.asnumpy()
        np.testing.assert_allclose(q @ r, h, **tolerance(dtype))
        orthonormal_columns(q, dtype)
        np.testing.assert_array_equal(r, np.triu(r))
        k = min(shape[-2:])
        np.testing.assert_allclose(
            np.abs(np.diagonal(r, 0, -2, -1))[..., :k],
            np.abs(np.diagonal(want.R, 0, -2, -1))[..., :k],
            **tolerance(dtype))


@pytest.mark.parametrize("shape", SHAPES, ids=ids(SHAPES))
@pytest.mark.parametrize("dtype", DTYPES, ids=ids(DTYPES))
def test_svd_and_svdvals(device, dtype_on, dtype, shape):
    dtype_on(dtype)
    h = random(shape, dtype)
    x = on(device, h)
    want = np.linalg.svd(h, compute_uv=False)
    check(spirjit.linalg.svdvals(x), want, want.dtype, device,
          **tolerance(dtype))
    for full in (True, False):
        u, s, vh = spirjit.linalg.svd(x, full_matrices=full)
        expected = np.linalg.svd(h, full_matrices=full)
        for got, e in zip((u, s, vh), expected):
            assert isinstance(got, spirjit.DeviceArray)
            assert (got.shape, got.dtype) == (e.shape, e.dtype)
        u, s, vh = u.asnumpy(), s.asnumpy(), vh.asnumpy()
        np.testing.assert_allclose(s, want, **tolerance(dtype))
        k = s.shape[-1]
        np.testing.assert_allclose(
            (u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :], h,
            **tolerance(dtype))
        orthonormal_columns(u, dtype)
        orthonormal_columns(conj_t(vh), dtype)


@pytest.mark.parametrize("shape", SQUARE, ids=ids(SQUARE))
@pytest.mark.parametrize("dtype", DTYPES, ids=ids(DTYPES))
def test_eigh_and_eigvalsh(device, dtype_on, dtype, shape):
    dtype_on(dtype)
    h = random(shape, dtype)
    h = ((h + conj_t(h)) / 2).astype(dtype)
    x = on(device, h)
    want = np.linalg.eigvalsh(h)
    check(spirjit.linalg.eigvalsh(x), want, want.dtype, device,
          **tolerance(dtype))
    w, v = spirjit.linalg.eigh(x)
    expected = np.linalg.eigh(h)
    check(w, expected.eigenvalues, want.dtype, device, **tolerance(dtype))
    assert (v.shape, v.dtype) == (expected.eigenvectors.shape,
                                  expected.eigenvectors.dtype)
    w, v = w.asnumpy(), v.asnumpy()
    np.testing.assert_allclose(h @ v, v * w[..., None, :],
                               **tolerance(dtype))
    orthonormal_columns(v, dtype)
    # Only the lower triangle is read, as NumPy's default UPLO='L'.
    lower = np.tril(h) + np.triu(np.full_like(h, 7), 1)
    check(spirjit.linalg.eigvalsh(on(device, lower)), want, want.dtype,
          device, **tolerance(dtype))


@pytest.mark.parametrize("shape", SHAPES, ids=ids(SHAPES))
@pytest.mark.parametrize("dtype", DTYPES, ids=ids(DTYPES))
def test_pinv_and_matrix_rank(device, dtype_on, dtype, shape):
    dtype_on(dtype)
    h = random(shape, dtype)
    x = on(device, h)
    tol = {k: v * 20 for k, v in tolerance(dtype).items()}
    check(spirjit.linalg.pinv(x), np.linalg.pinv(h), dtype, device, **tol)
    check(spirjit.linalg.matrix_rank(x), np.linalg.matrix_rank(h),
          np.int64, device)
    # A rank-deficient stack: the second matrix's last column repeats.
    deficient = h.copy()
    deficient[..., -1] = deficient[..., 0]
    check(spirjit.linalg.matrix_rank(on(device, deficient)),
          np.linalg.matrix_rank(deficient), np.int64, device)
    check(spirjit.linalg.pinv(on(device, deficient)),
          np.linalg.pinv(deficient), dtype, device, **tol)
    check(spirjit.linalg.matrix_rank(x, rtol=0.5),
          np.linalg.matrix_rank(h, rtol=0.5), np.int64, device)
    check(spirjit.linalg.pinv(x, rtol=0.5), np.linalg.pinv(h, rtol=0.5),
          dtype, device, **tol)


def test_integers_are_computed_as_float64(device):
    h = np.array([[4, 1], [2, 3]], dtype=np.int32)
    x = on(device, h)
    check(spirjit.linalg.inv(x), np.linalg.inv(h), np.float64, device)
    check(spirjit.linalg.det(x), np.linalg.det(h), np.float64, device)
    check(spirjit.linalg.solve(x, on(device, np.array([1, 2]))),
          np.linalg.solve(h, np.array([1, 2])), np.float64, device)


# ------------------------------------------------------------- errors

@pytest.mark.parametrize("dtype", DTYPES, ids=ids(DTYPES))
def test_singular_and_indefinite_matrices_raise_numpys_error(
        device, dtype_on, dtype):
    dtype_on(dtype)
    singular = np.array([[1, 2], [2, 4]], dtype=dtype)
    stack = np.stack([np.eye(2, dtype=dtype), singular])
    for a in (singular, stack):
        x = on(device, a)
        with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
            spirjit.linalg.inv(x)
        with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
            spirjit.linalg.solve(x, on(device, np.ones(2, dtype)))
        # A singular matrix has det 0 and slogdet (0, -inf), no error.
        check(spirjit.linalg.det(x), np.linalg.det(a), dtype, device)
        sign, logabsdet = spirjit.linalg.slogdet(x)
        assert sign.asnumpy().reshape(-1)[-1] == 0
        assert np.isneginf(logabsdet.asnumpy().reshape(-1)[-1])
    indefinite = np.array([[1, 2], [2, 1]], dtype=dtype)
    with pytest.raises(np.linalg.LinAlgError,
                       match="Matrix is not positive definite"):
        spirjit.linalg.cholesky(on(device, indefinite))
    with pytest.raises(np.linalg.LinAlgError, match="must be square"):
        spirjit.linalg.inv(on(device, np.ones((2, 3), dtype)))
    with pytest.raises(np.linalg.LinAlgError, match="two-dimensional"):
        spirjit.linalg.det(on(device, np.ones(3, dtype)))
    with pytest.raises(np.linalg.LinAlgError) as error:
        spirjit.linalg.inv(on(device, singular))
    assert isinstance(error.value, spirjit.errors.SpirjitError)


def test_numpys_linalg_functions_run_on_the_device(device):
    h = well_conditioned((2, 3, 3), np.float64)
    x = on(device, h)
    for got, want in ((np.linalg.inv(x), np.linalg.inv(h)),
                      (np.linalg.solve(x, x), np.linalg.solve(h, h)),
                      (np.linalg.det(x), np.linalg.det(h)),
                      (np.linalg.svd(x, compute_uv=False),
                       np.linalg.svd(h, compute_uv=False)),
                      (np.linalg.eigvalsh(x, UPLO="U"),
                       np.linalg.eigvalsh(h, UPLO="U")),
                      (np.linalg.matrix_rank(x, tol=3.0),
                       np.linalg.matrix_rank(h, tol=3.0)),
                      (np.linalg.matrix_power(x, 3),
                       np.linalg.matrix_power(h, 3)),
                      (np.trace(x, 1, 1, 2), np.trace(h, 1, 1, 2)),
                      (np.linalg.norm(x[0], 2), np.linalg.norm(h[0], 2)),
                      (np.linalg.norm(x, 1, axis=(2, 0), keepdims=True),
                       np.linalg.norm(h, 1, axis=(2, 0), keepdims=True))):
        check(got, want, np.float64, device)
