"""NumPy functions in jit code (issue 29, numba's parallel programs):
np.outer, np.count_nonzero, np.clip, np.identity and np.eye as the jit
library writes them (array expressions of ArrayOps.def's rows), the
predicates, joins, order statistics and searches of _jit_library_more.py
compared with NumPy on NumPy arrays and DeviceArrays, and the ones jit
code does not take: UnsupportedFeatureErrors that say so for jit
functions (not "in kernels"), name the function and the user's line."""

import numpy as np
import pytest

import spirjit
from spirjit import prange
from source_markers import marked_line


def kron(a):
    return np.kron(a, a)  # <- kron


def cross(a):
    return np.cross(a[:3], a[1:])  # <- cross


def norm(a):
    return np.linalg.norm(a)  # <- norm


def inv(a):
    return np.linalg.inv(a.reshape(2, 2))  # <- inv


def select(a):
    return np.select([a > 1], [a])  # <- select


def products(a, b, m):
    return (np.outer(a, b), np.outer(m, b), np.outer(a[::2], b[1:] * 2.0),
            np.count_nonzero(a), np.count_nonzero(m > 2),
            np.clip(a, -1, 1), a.clip(-1.0, 0.5), np.clip(a, None, 0.5),
            np.clip(a, -0.5, None), np.clip(m.astype(np.int64), 0.5, 2.5),
            np.clip(m, b, 2.5), np.clip(np.sqrt(a), 0, 1))


def eyes(n):
    return (np.identity(n), np.identity(n, dtype=np.int32), np.eye(n),
            np.eye(2, n), np.eye(n, 4, 1), np.eye(4, n, -1),
            np.eye(n, None, 0, np.int32), np.eye(n, n, 5),
            np.eye(n, k=-2, M=n, dtype=np.float32), np.eye(0),
            np.eye(n, dtype=np.int32), np.eye(n, k=1),
            np.eye(n, k=-1, dtype=np.float32), np.eye(n, dtype=np.int8, k=2),
            np.eye(n, 4, dtype=np.uint8), np.eye(n, M=2, dtype=np.int16))


def eye_order(n):
    return np.eye(n, order="F")  # <- eye-order


def in_prange(a, out):
    for i in prange(a.shape[0]):
        out[i] = np.kron(a, a)  # <- prange
    return out


@pytest.mark.parametrize("where", ["numpy", "device"])
def test_outer_count_nonzero_and_clip_are_numpys(device, where):
    a = np.array([-1.5, -0.5, np.nan, 0.0, 1.5, 3.0])
    b = np.arange(3.0)
    m = np.arange(6.0).reshape(2, 3)
    args = (a, b, m) if where == "numpy" else tuple(
        spirjit.asarray(x, device=device) for x in (a, b, m))
    with np.errstate(invalid="ignore"):
        want = products(a, b, m)
        got = spirjit.jit(products)(*args)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g = g.asnumpy() if isinstance(g, spirjit.DeviceArray) else g
        assert np.asarray(g).dtype == np.asarray(w).dtype
        assert np.shape(g) == np.shape(w)
        np.testing.assert_array_equal(g, w)


def test_identity_and_eye_are_numpys(device):
    got = spirjit.jit(eyes)(3)
    want = eyes(3)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        assert g.shape == w.shape
        np.testing.assert_array_equal(g, w)
    with pytest.raises(spirjit.errors.TypingError) as info:
        spirjit.jit(eye_order)(3)
    line = marked_line(__file__, "eye-order")
    assert f"test_jit_numpy_functions.py:{line}: np.eye() got an " \
        "unexpected value for argument 'order' (with 2 arguments jit code " \
        "takes N, M; give the arguments before it by position)" \
        in str(info.value)


@pytest.mark.parametrize("fn", [kron, cross, norm, inv, select])
def test_unsupported_numpy_functions_say_jit_functions(device, fn):
    with pytest.raises(spirjit.errors.UnsupportedFeatureError) as info:
        spirjit.jit(fn)(np.arange(4.0))
    name = f"np.{fn.__name__}" if fn not in (norm, inv) else \
        f"np.linalg.{fn.__name__}"
    line = marked_line(__file__, fn.__name__)
    assert f"test_jit_numpy_functions.py:{line}: {name}() is not " \
        "supported in jit functions; call it outside the jit function" \
        in str(info.value)
    assert "kernels" not in str(info.value)


def test_unsupported_numpy_function_in_a_prange_body(device):
    with pytest.raises(spirjit.errors.UnsupportedFeatureError) as info:
        spirjit.jit(in_prange)(np.arange(4.0), np.zeros(4))
    line = marked_line(__file__, "prange")
    assert f"test_jit_numpy_functions.py:{line}: np.kron() is not " \
        "supported in jit functions" in str(info.value)


def test_kernels_still_say_kernels(device):
    from spirjit import kernel_api as kapi

    @spirjit.kernel
    def k(item, a):
        a[0] = np.median(a)

    with pytest.raises(spirjit.errors.UnsupportedFeatureError,
                       match="calling 'numpy.median' is not supported in "
                             "kernels"):
        spirjit.call_kernel(k, kapi.Range(1), np.zeros(2))


# _jit_library_more.py's functions, each as numba users call them; every
# case is compared with NumPy's answer (values, shape; NaN equal).
MORE = {
    "any": lambda a, m, i: (np.any(a > 0.5), (a > 0.5).any(),
                            (a > 2).all(), np.all(a > -1)),
    "isclose": lambda a, m, i: (np.isclose(a, 0.5), np.allclose(a, a + 1e-9),
                                np.isclose(a, np.inf),
                                np.array_equal(a, a),
                                np.array_equal(m, m[:1])),
    "ravel": lambda a, m, i: (np.ravel(m), m.flatten(), m.T.ravel(),
                              np.ascontiguousarray(m.T)),
    "round": lambda a, m, i: (np.round(a * 10), np.round(a, 2),
                              np.around(i * 7, -1), m.round(1),
                              np.round(2.567, 1)),
    "concatenate": lambda a, m, i: (np.concatenate((a, a[::2], a[1:])),
                                    np.concatenate((m, m), 1),
                                    np.concatenate((m, m[:1])),
                                    np.stack((a, a[::-1], a)),
                                    np.vstack((a, a)), np.hstack((a, a)),
                                    np.vstack((m, m)), np.append(a, 1.0),
                                    np.append(m, a)),
    "shape": lambda a, m, i: (np.expand_dims(a, 0), np.expand_dims(a, -1),
                              np.atleast_2d(a), np.atleast_2d(m),
                              np.flip(a), np.flip(m), np.fliplr(m),
                              np.flipud(m), np.roll(a, 3), np.roll(m, -2),
                              np.repeat(i, 2), i.repeat(3), np.take(a, i),
                              m.take(i)),
    "diff": lambda a, m, i: (np.diff(a), np.diff(m, 2), np.trace(m),
                             np.diag(a), np.diag(m), np.diag(m, 2),
                             np.diag(m, -1), np.diag(a[:3], -1),
                             np.triu(m), np.tril(m, 1)),
    "nan": lambda a, m, i: (np.nansum(np.where(a > 0.5, np.nan, a)),
                            np.nanmax(np.where(a > 0.5, np.nan, a)),
                            np.nanmin(np.where(a > 0.5, np.nan, a)),
                            np.nanmean(np.where(a > 0.5, np.nan, a)),
                            np.nanmax(i), np.nanmax(a * np.nan)),
    "statistics": lambda a, m, i: (np.ptp(a), np.average(m), np.median(a),
                                   np.median(i), np.median(m),
                                   np.median(a[:-1]), np.percentile(a, 30),
                                   np.quantile(i, 0.75),
                                   np.median(a * np.nan)),
    "searches": lambda a, m, i: (np.nonzero(a > 0.5)[0],
                                 np.nonzero(m > 0.5)[1],
                                 np.where(a > 0.5)[0],
                                 np.where(a > 0.5, a, 0.0),
                                 np.argwhere(m > 0.5), np.unique(i),
                                 np.unique(np.floor(a * 3)),
                                 np.searchsorted(np.sort(a), 0.5),
                                 np.searchsorted(np.sort(a), a),
                                 np.isin(i, i[:3]), np.bincount(i),
                                 np.interp(0.5, np.sort(a), a),
                                 np.interp(a, np.sort(a), a)),
}


@pytest.mark.filterwarnings("ignore:All-NaN:RuntimeWarning")
@pytest.mark.parametrize("where", ["numpy", "device"])
@pytest.mark.parametrize("case", sorted(MORE))
def test_more_numpy_functions_are_numpys(device, where, case):
    rng = np.random.default_rng(1)
    a = rng.random(11)
    a[3] = 0.5
    m = rng.random((4, 5))
    i = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3])
    with np.errstate(invalid="ignore"):
        want = MORE[case](a, m, i)
    args = (a, m, i) if where == "numpy" else tuple(
        spirjit.asarray(x, device=device) for x in (a, m, i))
    got = spirjit.jit(MORE[case])(*args)
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        g = g.asnumpy() if isinstance(g, spirjit.DeviceArray) else g
        assert np.shape(g) == np.shape(w), (case, k)
        np.testing.assert_allclose(np.asarray(g, dtype=float),
                                   np.asarray(w, dtype=float),
                                   rtol=1e-12, err_msg=f"{case} {k}")
