"""NumPy's statistics, counting and shape helpers on DeviceArrays
(python/spirjit/_array_statistics.py, _array_numpy_more.py) and
ufunc.reduce/accumulate/at: each
returns a DeviceArray on the operands' device with NumPy's answer, dtype
and shape (NaN rules included), on every device, small values (NumPy in
place on CPU devices) and kernels alike."""

import warnings

import numpy as np
import pytest

import spirjit
from spirjit import errors

RNG = np.random.default_rng(7)
A = RNG.random((6, 5))
A[1, 2] = np.nan
B = RNG.random((6, 5))
V = RNG.random(7)
F32 = RNG.random(9).astype(np.float32)
I = RNG.integers(0, 10, 12)
I8 = RNG.integers(-100, 100, (4, 5)).astype(np.int8)
C = RNG.random((2, 3, 4))
D = RNG.random((2, 4, 5))
ALL_NAN = np.array([[np.nan, 1.0, np.nan], [np.nan, np.nan, np.nan]])

# name: (the call, on NumPy's arrays or the DeviceArrays alike)
CASES = {
    "nansum": lambda a: np.nansum(a["A"]),
    "nansum axis": lambda a: np.nansum(a["A"], axis=0),
    "nanprod": lambda a: np.nanprod(a["A"], axis=1),
    "nanmax all-NaN column": lambda a: np.nanmax(a["N"], axis=0),
    "nanmin": lambda a: np.nanmin(a["A"]),
    "nanmean keepdims": lambda a: np.nanmean(a["A"], axis=1, keepdims=True),
    "nanmean float32": lambda a: np.nanmean(a["F32"]),
    "median": lambda a: np.median(a["B"]),
    "median with NaN": lambda a: np.median(a["A"], axis=0),
    "median keepdims": lambda a: np.median(a["B"], axis=1, keepdims=True),
    "median of ints": lambda a: np.median(a["I"]),
    "percentile": lambda a: np.percentile(a["V"], 30),
    "percentiles along an axis": lambda a: np.percentile(a["B"], [10, 50, 90],
                                                         axis=0),
    "quantile float32": lambda a: np.quantile(a["F32"], 0.25),
    "cov": lambda a: np.cov(a["B"]),
    "cov of a vector": lambda a: np.cov(a["V"]),
    "cov rowvar=False": lambda a: np.cov(a["B"], rowvar=False),
    "corrcoef": lambda a: np.corrcoef(a["B"]),
    "bincount": lambda a: np.bincount(a["I"]),
    "bincount minlength": lambda a: np.bincount(a["I"], minlength=15),
    "bincount weights": lambda a: np.bincount(a["I"], weights=a["W"]),
    "histogram": lambda a: np.histogram(a["V"], bins=3),
    "histogram range": lambda a: np.histogram(a["B"], bins=4,
                                              range=(0.2, 0.8))[0],
    "histogram density": lambda a: np.histogram(a["B"], bins=4,
                                                density=True)[0],
    "histogram of ints": lambda a: np.histogram(a["I"], bins=5)[0],
    "histogram edges": lambda a: np.histogram(a["B"],
                                              bins=[0, 0.3, 0.5, 1.0])[0],
    "isin": lambda a: np.isin(a["I"], a["I"][:3]),
    "isin invert": lambda a: np.isin(a["I"], [1, 2, 3], invert=True),
    "interp": lambda a: np.interp(a["X"], np.arange(7.0), a["V"], left=-1,
                                  right=9),
    "diag of a vector": lambda a: np.diag(a["V"]),
    "diag k=2": lambda a: np.diag(a["V"], k=2),
    "diag k=-1": lambda a: np.diag(a["V"], k=-1),
    "diag of a matrix": lambda a: np.diag(a["B"], k=1),
    "split": lambda a: np.split(a["V"][:6], 3)[1],
    "split at indices": lambda a: np.split(a["B"], [2, 3], axis=1)[2],
    "array_split": lambda a: np.array_split(a["V"], 3)[0],
    "pad": lambda a: np.pad(a["V"], 2),
    "pad widths and value": lambda a: np.pad(a["B"], ((1, 0), (2, 3)),
                                             constant_values=7),
    "maximum.reduce axis": lambda a: np.maximum.reduce(a["B"], axis=0),
    "minimum.reduce keepdims": lambda a: np.minimum.reduce(a["B"], axis=1,
                                                           keepdims=True),
    "add.reduce int8": lambda a: np.add.reduce(a["I8"]),
    "logical_and.reduce": lambda a: np.logical_and.reduce(a["B"] > 0.3,
                                                          axis=0),
    "add.accumulate": lambda a: np.add.accumulate(a["B"], axis=1),
    "multiply.accumulate int8": lambda a: np.multiply.accumulate(a["I8"],
                                                                 axis=1),
    "add.accumulate bool": lambda a: np.add.accumulate(a["B"] > 0.5),
    "einsum matrix product": lambda a: np.einsum("ij,kj->ik", a["B"],
                                                 a["B"]),
    "einsum batched": lambda a: np.einsum("...ij,...jk->...ik", a["C"],
                                          a["D"]),
    "einsum trace": lambda a: np.einsum("ii", a["B"][:5]),
    "einsum diagonal": lambda a: np.einsum("ii->i", a["B"][:5]),
    "einsum implicit": lambda a: np.einsum("ij,j", a["B"], a["B"][0]),
    "einsum outer": lambda a: np.einsum("i,j->ij", a["V"], a["V"][:3]),
    "einsum transpose": lambda a: np.einsum("ijk->kji", a["C"]),
    "einsum sum of a product": lambda a: np.einsum("ij,ij->", a["B"],
                                                   a["B"]),
    "einsum of ints": lambda a: np.einsum("ij,ij->i", a["I8"], a["I8"]),
    "einsum of three": lambda a: np.einsum("ij,jk,kl->il", a["B"][:, :3],
                                           a["C"][0], a["D"][0]),
    "diagonal axes": lambda a: np.diagonal(a["C"], 1, 2, 1),
    "ptp": lambda a: np.ptp(a["B"], axis=0),
    "average": lambda a: np.average(a["B"]),
    "average weights axis": lambda a: np.average(a["B"], axis=1,
                                                 weights=a["B"][0]),
    "average returned": lambda a: np.average(a["V"], weights=a["V"],
                                             returned=True),
    "cross of 3-vectors": lambda a: np.cross(a["B"][:, :3], a["B"][:, 1:4]),
    "cross along axis 0": lambda a: np.cross(a["B"][:3], a["B"][1:4],
                                             axis=0),
    "kron": lambda a: np.kron(a["B"][:2, :3], a["C"][0]),
    "atleast_2d": lambda a: np.atleast_2d(a["V"]),
    "atleast_3d": lambda a: np.atleast_3d(a["B"]),
    "column_stack": lambda a: np.column_stack([a["V"], a["V"] * 2]),
    "dstack": lambda a: np.dstack([a["B"], a["B"]]),
    "unravel_index": lambda a: np.unravel_index(a["B"].argmax(), (6, 5)),
    "unravel_index F": lambda a: np.unravel_index(a["I"], (3, 4),
                                                  order="F"),
    "polyval": lambda a: np.polyval(a["V"][:3], a["B"]),
    "convolve": lambda a: np.convolve(a["V"], a["B"][0]),
    "convolve same": lambda a: np.convolve(a["V"], a["B"][0][:4], "same"),
    "convolve valid": lambda a: np.convolve(a["B"][0], a["V"], "valid"),
    "gradient": lambda a: np.gradient(a["V"]),
    "gradient 2-D spaced": lambda a: np.gradient(a["B"], 0.5, 2.0),
    "gradient of ints": lambda a: np.gradient(a["I"], axis=0),
    "where of one": lambda a: np.where(a["B"] > 0.5),
    "sum dtype": lambda a: np.sum(a["B"], dtype=np.float32),
    "mean dtype": lambda a: a["I8"].mean(axis=0, dtype=np.float32),
    "x.cumsum": lambda a: a["B"].cumsum(axis=1),
    "x.argsort": lambda a: a["B"].argsort(axis=0),
    "x.nonzero": lambda a: (a["B"] > 0.5).nonzero(),
    "x.repeat": lambda a: a["V"].repeat(2),
    "x.take": lambda a: a["V"].take([0, 3]),
    "x.diagonal": lambda a: a["B"].diagonal(1),
    "x.trace": lambda a: a["B"].trace(),
    "x.view": lambda a: a["B"].view(np.int64),
    "x.view narrower": lambda a: a["B"].view(np.float32),
    "nanvar": lambda a: np.nanvar(a["A"], axis=0),
    "nanstd ddof": lambda a: np.nanstd(a["A"], ddof=1),
    "nanstd float32": lambda a: np.nanstd(a["F32"], keepdims=True),
    "nanvar all-NaN column": lambda a: np.nanvar(a["N"], axis=0),
    "nanvar of ints": lambda a: np.nanvar(a["I"]),
    "nanargmax": lambda a: np.nanargmax(a["A"], axis=1),
    "nanargmin": lambda a: np.nanargmin(a["A"]),
    "nancumsum": lambda a: np.nancumsum(a["A"], axis=0),
    "nancumprod": lambda a: np.nancumprod(a["A"]),
    "histogram_bin_edges": lambda a: np.histogram_bin_edges(a["V"], bins=4),
    "nanmedian": lambda a: np.nanmedian(a["A"]),
    "nanmedian axis": lambda a: np.nanmedian(a["A"], axis=0),
    "nanmedian all-NaN row": lambda a: np.nanmedian(a["N"], axis=1,
                                                    keepdims=True),
    "nanpercentile": lambda a: np.nanpercentile(a["A"], [10, 50, 95],
                                                axis=1),
    "nanquantile float32": lambda a: np.nanquantile(a["F32"], 0.3),
    "nanquantile of ints": lambda a: np.nanquantile(a["I"], 0.7),
    "fliplr": lambda a: np.fliplr(a["B"]),
    "flipud": lambda a: np.flipud(a["B"]),
    "rot90": lambda a: np.rot90(a["C"], 1, axes=(1, 2)),
    "rot90 k=-1": lambda a: np.rot90(a["B"], -1),
    "rot90 k=2": lambda a: np.rot90(a["B"], 2),
    "append": lambda a: np.append(a["F32"], 9.0),
    "append axis": lambda a: np.append(a["B"], a["B"][:1], axis=0),
    "insert": lambda a: np.insert(a["V"], 2, [7.0, 8.0]),
    "insert axis": lambda a: np.insert(a["B"], -1, 5.0, axis=1),
    "delete": lambda a: np.delete(a["V"], [0, -1]),
    "delete slice axis": lambda a: np.delete(a["B"], slice(1, 3), axis=1),
    "delete mask": lambda a: np.delete(a["V"], np.arange(7) % 2 == 0),
    "resize": lambda a: np.resize(a["V"], (3, 4)),
    "ediff1d": lambda a: np.ediff1d(a["I"], to_begin=[-1], to_end=[5, 6]),
    "trapezoid": lambda a: (getattr(np, "trapezoid", None) or np.trapz)(
        a["B"], axis=0),
    "trapezoid x": lambda a: (getattr(np, "trapezoid", None) or np.trapz)(
        a["V"], x=a["X"][:7]),
    "correlate": lambda a: np.correlate(a["V"], a["B"][0]),
    "correlate full": lambda a: np.correlate(a["B"][0], a["V"], "full"),
    "inner": lambda a: np.inner(a["B"], a["B"]),
    "inner of vectors": lambda a: np.inner(a["V"], a["V"]),
    "vander": lambda a: np.vander(a["V"][:4]),
    "vander of ints": lambda a: np.vander(a["I"][:4], 3, increasing=True),
    "angle": lambda a: np.angle(a["V"] - 0.5),
    "angle deg": lambda a: np.angle(a["B"] - 0.5, deg=True),
    "sinc": lambda a: np.sinc(a["X"]),
    "real_if_close": lambda a: np.real_if_close(a["V"] + 0j),
    "select": lambda a: np.select([a["V"] < 0.3, a["V"] > 0.7],
                                  [a["V"], -a["V"]], 0.5),
    "lexsort": lambda a: np.lexsort((a["V"], a["V"] > 0.5)),
    "lexsort ints": lambda a: np.lexsort((a["I"], a["I"] % 3)),
    "digitize": lambda a: np.digitize(a["V"], [0.2, 0.5, 0.8]),
    "digitize decreasing right": lambda a: np.digitize(a["V"],
                                                       [0.8, 0.5, 0.2],
                                                       right=True),
    "triu_indices_from": lambda a: np.triu_indices_from(a["B"][:5], 1),
    "tril_indices_from": lambda a: np.tril_indices_from(a["B"], -1),
}


def test_sort_and_partition_methods_work_in_place(device, require_dtypes):
    require_dtypes(np.float64)
    x = spirjit.asarray(B, device=device)
    assert x.sort(axis=0) is None
    np.testing.assert_array_equal(np.asarray(x), np.sort(B, axis=0))
    y = spirjit.asarray(V, device=device)
    y.partition(3)
    got = np.asarray(y)
    assert got[3] == np.sort(V)[3] and (got[:3] <= got[3]).all() and \
        (got[4:] >= got[3]).all()


def _host():
    return {"A": A, "B": B, "V": V, "F32": F32, "I": I, "I8": I8, "C": C,
            "D": D,
            "N": ALL_NAN, "W": np.arange(12.0),
            "X": np.linspace(-1, 8, 11)}


def _same(got, want, what):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), what
        for g, w in zip(got, want):
            _same(g, w, what)
        return
    assert isinstance(got, spirjit.DeviceArray), what
    g = np.asarray(got)
    assert g.shape == np.shape(want) and g.dtype == np.asarray(want).dtype, \
        (what, g.shape, g.dtype)
    np.testing.assert_allclose(g, want, rtol=1e-5 if g.dtype == np.float32
                               else 1e-12, equal_nan=True, err_msg=what)


def run_cases(device, host_numpy, cases, host, same):
    """Each case on NumPy's arrays and on DeviceArrays of them, compared
    by ``same``; small values by NumPy in place or by kernels."""
    from spirjit import _array_primitives as prims
    from spirjit import _spirjit
    was = _spirjit._host_evaluation(host_numpy)
    try:
        on_device = {k: spirjit.asarray(v, device=device)
                     for k, v in host().items()}
        with prims.use_host(host_numpy):
            for name, call in cases.items():
                with np.errstate(all="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    want = call(host())
                same(call(on_device), want, name)
    finally:
        _spirjit._host_evaluation(was)


@pytest.mark.parametrize("host_numpy", [True, False],
                         ids=["numpy-in-place", "kernels"])
def test_numpy_functions_on_device_arrays(device, require_dtypes,
                                          host_numpy):
    require_dtypes(np.float64)
    run_cases(device, host_numpy, CASES, _host, _same)


def test_numpy_function_errors_are_numpys(device):
    v = spirjit.asarray(np.array([1, -2, 3]), device=device)
    x = spirjit.asarray(np.arange(6.0), device=device)
    with pytest.raises(errors.InvalidArgumentError,
                       match="'list' argument must have no negative"):
        np.bincount(v)
    with pytest.raises(ValueError, match="equal division"):
        np.split(x, 4)
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"Percentiles must be in the range \[0, 100\]"):
        np.percentile(x, 120)
    with pytest.raises(errors.NotSupportedError,
                       match=r"numpy.pad\(reflect_type='odd'\)"):
        np.pad(x, 1, mode="reflect", reflect_type="odd")
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"'hazel' is not a valid method. Use one of"):
        np.quantile(x, 0.5, method="hazel")
    nan = spirjit.asarray(np.array([np.nan, 1.0]), device=device)
    with pytest.raises(ValueError, match="autodetected range of"):
        np.histogram(nan)
    with pytest.raises(errors.InvalidArgumentError,
                       match="more operands provided to einstein sum"):
        np.einsum("i->", x, x)
    with pytest.raises(errors.NotSupportedError,
                       match="pass the subscripts as a string"):
        np.einsum(x, [0], [])
    with pytest.raises(NotImplementedError, match="numpy.einsum_path"):
        np.einsum_path("i,i", x, x)
    with pytest.raises(ValueError, match="either both or neither"):
        np.where(x > 1, x)
    with pytest.raises(ZeroDivisionError, match="Weights sum to zero"):
        np.average(x, weights=x * 0)
    with pytest.raises(ValueError, match="incompatible dimensions for cross"):
        np.cross(x[:4], x[:4])
    with pytest.raises(errors.NotSupportedError, match="edge_order=2"):
        np.gradient(x, edge_order=2)


# An axis the 2-D array lacks: these had wrapped it around to another axis
# and answered (or raised an IndexError or a ValueError of their own).
AXIS_CASES = {
    "sum": lambda a: a.sum(axis=2),
    "median": lambda a: np.median(a, axis=2),
    "percentile": lambda a: np.percentile(a, 50, axis=-3),
    "nanquantile": lambda a: np.nanquantile(a, 0.5, axis=2),
    "insert": lambda a: np.insert(a, 0, 1.0, axis=2),
    "delete": lambda a: np.delete(a, 0, axis=-3),
    "split": lambda a: np.split(a, 2, axis=2),
    "trapezoid": lambda a: np.trapezoid(a, axis=2),
    "gradient": lambda a: np.gradient(a, axis=2),
    "transpose": lambda a: np.transpose(a, (0, 2)),
    "diagonal": lambda a: np.diagonal(a, 0, 0, -3),
    "average with weights": lambda a: np.average(a, axis=2,
                                                 weights=np.ones(2)),
    "tensordot": lambda a: np.tensordot(a, a, axes=([2], [0])),
    "unwrap": lambda a: np.unwrap(a, axis=2),
}


@pytest.mark.parametrize("call", AXIS_CASES.values(), ids=AXIS_CASES)
def test_an_axis_out_of_range_is_numpys_axis_error(device, call):
    host = np.arange(4.0).reshape(2, 2)
    with pytest.raises(errors.ArrayAxisError) as info:
        call(spirjit.asarray(host, device=device))
    # NumPy's class (a ValueError and an IndexError), and its message where
    # NumPy's own raises one
    assert isinstance(info.value, np.exceptions.AxisError)
    try:
        call(host)
    except np.exceptions.AxisError as expected:
        assert str(info.value) == str(expected)
    except IndexError:  # split, trapezoid, tensordot: NumPy's own IndexError
        pass


def test_lstsq_and_general_eigenvalues(device, require_dtypes):
    require_dtypes(np.float64)
    a, b = B[:, :4], V[:6]
    A_, b_ = (spirjit.asarray(t, device=device) for t in (a, b))
    for got, want in ((np.linalg.lstsq(A_, b_, rcond=None),
                       np.linalg.lstsq(a, b, rcond=None)),
                      (np.linalg.lstsq(A_.T, b_[:4], rcond=None),
                       np.linalg.lstsq(a.T, b[:4], rcond=None))):
        x, residuals, rank, s = got
        assert isinstance(x, spirjit.DeviceArray) and int(rank) == want[2]
        for g, w in ((x, want[0]), (residuals, want[1]), (s, want[3])):
            g = np.asarray(g)
            assert g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
    square = spirjit.asarray(B[:4, :4], device=device)
    if device.backend == "cuda":
        with pytest.raises(errors.NotSupportedError,
                           match="numpy.linalg.eigvals on CUDA devices"):
            np.linalg.eigvals(square)
        return
    w, v = np.linalg.eig(square)
    assert isinstance(w, spirjit.DeviceArray)
    w, v = np.asarray(w), np.asarray(v)
    np.testing.assert_allclose(B[:4, :4] @ v, v * w, atol=1e-12)
    np.testing.assert_allclose(np.sort_complex(w),
                               np.sort_complex(np.linalg.eigvals(B[:4, :4])))


@pytest.mark.parametrize("ufunc", [np.add, np.subtract, np.maximum,
                                   np.minimum, np.multiply],
                         ids=lambda u: u.__name__)
def test_ufunc_at_adds_every_repeated_index(device, require_dtypes, ufunc):
    require_dtypes(np.float64)
    idx = np.array([0, 0, 3, -1, 3, 3])
    for array, args in ((V, (idx, 1.5)), (V, (idx, np.arange(6.0))),
                        (B[:4, :3], (np.array([1, 1, 2]),
                                     np.array([1.0, 2.0, 3.0]))),
                        (B[:4, :3], ((np.array([1, 1, 2]),
                                      np.array([0, 0, 2])), 5.0)),
                        (np.arange(8, dtype=np.int32), (idx, 2))):
        want = array.copy()
        ufunc.at(want, *args)
        got = spirjit.asarray(array, device=device)
        assert ufunc.at(got, *args) is None
        got = np.asarray(got)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-12)
    x = spirjit.asarray(V, device=device)
    with pytest.raises(IndexError, match="index out of bounds for axis 0"):
        ufunc.at(x, np.array([9]), 1.0)
    with pytest.raises(NotImplementedError, match="numpy.power.at"):
        np.power.at(x, idx, 2.0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64,
                                   np.int32, np.bool_],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("options", [{}, {"nan": 7.0, "posinf": 1e300,
                                          "neginf": -2}, {"copy": False}],
                         ids=["defaults", "values", "in place"])
def test_nan_to_num_replaces_special_values_as_numpy(device, require_dtypes,
                                                     dtype, options):
    # NaN, +inf and -inf become numbers (the dtype's extremes by default,
    # posinf=1e300 is inf in float32 as NumPy casts it), complex numbers
    # part by part; integers and booleans come back as they were.
    # copy=False writes into the array and returns it.
    require_dtypes(dtype)
    if np.dtype(dtype).kind == "c":
        host = np.array([complex(np.nan, np.inf), complex(-np.inf, 1),
                         complex(2, np.nan), 3], dtype)
    elif np.dtype(dtype).kind == "f":
        host = np.array([np.nan, np.inf, -np.inf, 1.5, -0.0, 2.0], dtype)
    else:
        host = np.array([1, 0, 1], dtype)
    x = spirjit.asarray(host, device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # 1e300 -> float32
        want = np.nan_to_num(host.copy(), **options)
    got = np.nan_to_num(x, **options)
    assert isinstance(got, spirjit.DeviceArray)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), want)
    if options.get("copy") is False:
        assert got is x
    else:
        np.testing.assert_array_equal(np.asarray(x), host)  # untouched


@pytest.mark.parametrize("call", [
    lambda d, s, m: np.copyto(d, s),
    lambda d, s, m: np.copyto(d, s, where=m),
    lambda d, s, m: np.copyto(d, 2),
    lambda d, s, m: np.copyto(d, s[0]),
    lambda d, s, m: np.putmask(d, m, s),
    lambda d, s, m: np.putmask(d, m, [7.0, 8.0, 9.0]),
], ids=["copyto", "copyto where", "copyto scalar", "copyto broadcast",
        "putmask", "putmask cycles"])
def test_copyto_and_putmask_write_into_the_array(device, require_dtypes,
                                                 call):
    # Both return None and write into their first argument, on its
    # device, as NumPy's do into a NumPy array.
    require_dtypes(np.float64)
    source, mask = B[::-1].copy(), B > 0.5
    want = A.copy()
    call(want, source, mask)
    got = spirjit.asarray(A, device=device)
    assert call(got, spirjit.asarray(source, device=device),
                spirjit.asarray(mask, device=device)) is None
    np.testing.assert_array_equal(np.asarray(got), want)


def test_tail_functions_raise_numpys_errors(device, require_dtypes):
    require_dtypes(np.float64)
    x = spirjit.asarray(V, device=device)
    with pytest.raises(TypeError, match="Cannot cast array data from "
                       "dtype\\('float64'\\) to dtype\\('int64'\\)"):
        np.copyto(spirjit.asarray(I, device=device), x[:1])
    with pytest.raises(ValueError, match="monotonically increasing or "
                       "decreasing"):
        np.digitize(x, [0.1, 0.5, 0.3])
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        np.nanargmax(spirjit.asarray(ALL_NAN, device=device), axis=1)
    with pytest.raises(IndexError, match="index 9 is out of bounds for "
                       "axis 0 with size 7"):
        np.delete(x, [9])
    with pytest.raises(errors.NotSupportedError, match="one integer index"):
        np.insert(x, [1, 2], 0.0)
    with pytest.raises(ValueError, match="list of cases must be same "
                       "length as list of conditions"):
        np.select([x > 0.5], [x, x])
    with pytest.raises(ValueError, match="Axes must be different"):
        np.rot90(spirjit.asarray(B, device=device), axes=(0, 0))
