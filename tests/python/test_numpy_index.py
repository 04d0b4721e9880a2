"""NumPy's set routines, index helpers, composed ufuncs and ufunc methods
on DeviceArrays (python/spirjit/_array_numpy_index.py,
_array_numpy_values.py, the where=/initial= of reductions): each returns
DeviceArrays on the operands' device with NumPy's answer, dtype and
shape, writes in place where NumPy's does, and raises NumPy's errors, on
every device, with NumPy in place for small values and with kernels."""


import numpy as np
import pytest

import spirjit
from spirjit import errors

from test_numpy_more import run_cases

RNG = np.random.default_rng(11)
B = RNG.random((6, 5))
M = RNG.random((4, 4)) + 4 * np.eye(4)
V = RNG.random(9)
I = RNG.integers(0, 6, 12)
J = RNG.integers(3, 9, 7)
T = RNG.random((2, 3, 4))
MASK = B > 0.5
SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 0.75, -2.5, 3.0, 8.0, 1e-3, 7e20,
                    5e-324, -2.2e-310, 1e300, np.inf, -np.inf, np.nan])
SPECIAL32 = np.array([0.0, -0.0, 1.0, -1.0, 0.75, -2.5, 3.0, 8.0, 1e-3,
                      7e20, 1e-40, -3e-39, np.inf, -np.inf, np.nan],
                     np.float32)
PHASE = np.cumsum(RNG.random(20) * 4.0 - 2.0)
ROWS = np.array([[1, 2, 3], [0, 5, 1], [1, 2, 3], [1, 2, 0], [0, 5, 1],
                 [1, 1, 9]])
Z = np.array([1 + 2j, 1 - 1j, -3 + 0j, 1 + 2j, 0.5 - 4j, -3 - 1j,
              complex(np.nan, 1), 2 + np.nan * 1j])

CASES = {
    "intersect1d": lambda a: np.intersect1d(a["I"], a["J"]),
    "intersect1d indices": lambda a: np.intersect1d(a["I"], a["J"],
                                                    return_indices=True),
    "intersect1d unique": lambda a: np.intersect1d(
        np.unique(a["I"]), np.unique(a["J"]), assume_unique=True,
        return_indices=True),
    "union1d": lambda a: np.union1d(a["I"], a["J"]),
    "setdiff1d": lambda a: np.setdiff1d(a["I"], a["J"]),
    "setdiff1d 2-d": lambda a: np.setdiff1d(a["B"] > 0.5, [True]),
    "setxor1d": lambda a: np.setxor1d(a["I"], a["J"]),
    "compress": lambda a: np.compress([True, False, True], a["B"], axis=1),
    "compress flat": lambda a: np.compress(a["V"] > 0.5, a["V"]),
    "compress short": lambda a: np.compress([False, True], a["B"], axis=0),
    "extract": lambda a: np.extract(a["B"] > 0.4, a["B"]),
    "choose": lambda a: np.choose(a["I"] % 3, [a["V"][:1], a["I"],
                                               -a["I"]]),
    "choose clip": lambda a: np.choose(a["I"], [a["I"], a["I"] * 2],
                                       mode="clip"),
    "choose wrap": lambda a: np.choose(a["I"], [a["I"], a["I"] * 2],
                                       mode="wrap"),
    "diag_indices_from": lambda a: np.diag_indices_from(a["M"]),
    "diagflat": lambda a: np.diagflat(a["M"][:2], 1),
    "ravel_multi_index": lambda a: np.ravel_multi_index(
        (a["I"] % 3, a["I"] % 4), (3, 4)),
    "ravel_multi_index F wrap": lambda a: np.ravel_multi_index(
        (a["I"], a["I"] + 1), (4, 5), mode="wrap", order="F"),
    "ix_": lambda a: np.ix_(a["I"][:2], a["V"][:3] > 0.5),
    "piecewise": lambda a: np.piecewise(a["V"], [a["V"] < 0.3,
                                                 a["V"] > 0.7],
                                        [lambda v: v * 10, -1.0, 0.5]),
    "piecewise one condition": lambda a: np.piecewise(
        a["V"], a["V"] > 0.5, [lambda v: v ** 2]),
    "piecewise of a matrix": lambda a: np.piecewise(
        a["B"], [a["B"] > 0.5], [lambda v: v ** 2, 3.0]),
    "apply_along_axis": lambda a: np.apply_along_axis(np.sort, 1, a["B"]),
    "apply_along_axis to scalars": lambda a: np.apply_along_axis(
        lambda r: r.max() - r.min(), 0, a["T"]),
    "apply_along_axis to matrices": lambda a: np.apply_along_axis(
        lambda r: r[:, None] * r[None, :2], 1, a["B"][:2]),
    "hsplit": lambda a: tuple(np.hsplit(a["B"], [2])),
    "vsplit": lambda a: tuple(np.vsplit(a["B"], 3)),
    "dsplit": lambda a: tuple(np.dsplit(a["T"], 2)),
    "rollaxis": lambda a: np.rollaxis(a["T"], 2),
    "rollaxis start": lambda a: np.rollaxis(a["T"], 0, 2),
    "block": lambda a: np.block([[a["M"], a["M"][:, :1]],
                                 [a["M"][:1], a["M"][:1, :1]]]),
    "block of vectors": lambda a: np.block([a["V"], a["V"][:2]]),
    "multi_dot": lambda a: np.linalg.multi_dot([a["V"][:4], a["M"],
                                                a["M"], a["M"][0]]),
    "multi_dot matrices": lambda a: np.linalg.multi_dot(
        [a["B"], a["B"].T, a["B"]]),
    "isneginf": lambda a: np.isneginf(a["S"]),
    "isposinf": lambda a: np.isposinf(a["S"]),
    "isreal": lambda a: np.isreal(a["V"] + 1j * (a["V"] > 0.5)),
    "iscomplex": lambda a: np.iscomplex(a["V"] + 1j * (a["V"] > 0.5)),
    "isreal of reals": lambda a: np.isreal(a["V"]),
    "fix": lambda a: np.fix(a["S"]),
    "unwrap": lambda a: np.unwrap(a["P"]),
    "unwrap period": lambda a: np.unwrap(a["P"], period=3.0),
    "modf": lambda a: np.modf(a["S"]),
    "modf float32": lambda a: np.modf(a["S32"]),
    "frexp": lambda a: np.frexp(a["S"]),
    "frexp float32": lambda a: np.frexp(a["S32"]),
    "frexp of ints": lambda a: np.frexp(a["I"]),
    "spacing": lambda a: np.spacing(a["S"]),
    "spacing float32": lambda a: np.spacing(a["S32"]),
    "float_power": lambda a: np.float_power(a["I"], -1.5),
    "float_power float32": lambda a: np.float_power(a["S32"], 2),
    "heaviside": lambda a: np.heaviside(a["S"], 0.5),
    "vecdot": lambda a: np.vecdot(a["B"], a["B"][0]),
    "vecdot complex": lambda a: np.vecdot(a["Z"][:4] * 1j, a["Z"][4:]),
    "matvec": lambda a: np.matvec(a["T"], a["T"][0, 0]),
    "vecmat": lambda a: np.vecmat(a["M"][0], a["M"]),
    "heaviside of ints": lambda a: np.heaviside(a["I"] - 3, a["V"][:1]),
    "maximum.accumulate": lambda a: np.maximum.accumulate(a["S"]),
    "minimum.accumulate axis": lambda a: np.minimum.accumulate(a["B"],
                                                               axis=1),
    "logical_or.accumulate": lambda a: np.logical_or.accumulate(
        a["V"] > 0.8),
    "bitwise_xor.accumulate": lambda a: np.bitwise_xor.accumulate(a["I"]),
    "multiply.outer": lambda a: np.multiply.outer(a["V"][:3], a["M"]),
    "subtract.outer": lambda a: np.subtract.outer(a["I"], a["V"]),
    "sum where": lambda a: np.sum(a["B"], where=a["B"] > 0.5),
    "sum where axis initial": lambda a: np.sum(a["B"], axis=0, initial=2.0,
                                               where=a["B"] > 0.5),
    "max initial": lambda a: np.max(a["V"], initial=0.9),
    "min where initial": lambda a: np.min(a["B"], axis=1, initial=0.0,
                                          where=a["B"] > 0.3),
    "max of empty with initial": lambda a: np.max(a["B"][:0], axis=0,
                                                  initial=-1.0),
    "prod where": lambda a: a["B"].prod(axis=1, where=a["B"] > 0.5),
    "mean where": lambda a: np.mean(a["B"], axis=0, where=a["B"] > 0.2),
    "sum of ints initial": lambda a: np.sum(a["I"], initial=5),
    "histogram2d": lambda a: np.histogram2d(a["B"][:, 0], a["B"][:, 1], 3),
    "histogram2d bins and range": lambda a: np.histogram2d(
        a["V"], a["V"][::-1], bins=[2, 4], range=[[0, 1], [0.2, 0.8]],
        density=True),
    "histogram2d weights edges": lambda a: np.histogram2d(
        a["I"], a["I"] % 3, bins=[0, 2, 4, 6], weights=a["I"] * 0.5),
    "histogramdd": lambda a: np.histogramdd(a["B"][:, :3], bins=(2, 3, 2)),
    "pad edge": lambda a: np.pad(a["B"], ((1, 2), (0, 3)), mode="edge"),
    "pad wrap": lambda a: np.pad(a["V"], (4, 11), mode="wrap"),
    "pad reflect": lambda a: np.pad(a["B"], 7, mode="reflect"),
    "pad symmetric": lambda a: np.pad(a["I"], (13, 2), mode="symmetric"),
    "pad maximum": lambda a: np.pad(a["B"], 2, mode="maximum"),
    "pad mean of ints": lambda a: np.pad(a["I"], (1, 2), mode="mean",
                                         stat_length=3),
    "pad median": lambda a: np.pad(a["B"], ((0, 1), (2, 0)),
                                   mode="median", stat_length=(2, 4)),
    "pad minimum": lambda a: np.pad(a["V"], 3, mode="minimum",
                                    stat_length=((1, 2),)),
    "quantile lower": lambda a: np.quantile(a["I"], [0.3, 0.5, 1.0],
                                            method="lower"),
    "quantile higher axis": lambda a: np.quantile(a["B"], 0.3, axis=0,
                                                  method="higher"),
    "percentile nearest": lambda a: np.percentile(a["J"], [30, 50, 100 / 6],
                                                  method="nearest"),
    "percentile midpoint": lambda a: np.percentile(a["B"], 40, axis=1,
                                                   method="midpoint"),
    "nanquantile nearest": lambda a: np.nanquantile(
        np.where(a["P"] > 1, np.nan, a["P"]), [0.25, 0.5], method="nearest"),
    "nanpercentile midpoint": lambda a: np.nanpercentile(
        a["B"] * np.where(a["B"] > 0.8, np.nan, 1), 50, axis=0,
        method="midpoint"),
    "unique rows": lambda a: np.unique(a["U"], axis=0, return_index=True,
                                       return_inverse=True,
                                       return_counts=True),
    "unique columns": lambda a: np.unique(a["U"].T, axis=1),
    "take clip": lambda a: np.take(a["V"], a["I"] * 3 - 5, mode="clip"),
    "take wrap axis": lambda a: np.take(a["B"], a["I"] - 8, axis=1,
                                        mode="wrap"),
    "reshape F": lambda a: a["B"].reshape(3, 10, order="F"),
    "ravel F": lambda a: np.ravel(a["B"].T[1:], order="F"),
    "flatten F": lambda a: a["T"].flatten("F"),
    "copy F": lambda a: a["B"].copy(order="F"),
    "vector_norm": lambda a: np.linalg.vector_norm(a["B"], axis=0, ord=3),
    "matrix_norm": lambda a: np.linalg.matrix_norm(a["T"], ord=1),
    "sort_complex": lambda a: np.sort_complex(a["Z"]),
    "sort_complex of ints": lambda a: np.sort_complex(a["I"]),
    "sort_complex of float32": lambda a: np.sort_complex(a["S32"][:11]),
}


def _host():
    return {"B": B, "M": M, "V": V, "I": I, "J": J, "T": T, "S": SPECIAL,
            "S32": SPECIAL32, "P": PHASE, "Z": Z, "U": ROWS}


def _same(got, want, what):
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), what
        for g, w in zip(got, want):
            _same(g, w, what)
        return
    assert isinstance(got, spirjit.DeviceArray), (what, type(got))
    g = np.asarray(got)
    assert g.shape == np.shape(want) and g.dtype == np.asarray(want).dtype, \
        (what, g.shape, g.dtype, np.shape(want), np.asarray(want).dtype)
    np.testing.assert_allclose(g, want, rtol=1e-6 if g.dtype == np.float32
                               else 1e-12, equal_nan=True, err_msg=what)
    if g.dtype.kind == "f":  # signed zeros too (modf, fix, frexp)
        assert np.array_equal(np.signbit(g), np.signbit(want)), what


@pytest.mark.parametrize("host_numpy", [True, False],
                         ids=["numpy-in-place", "kernels"])
def test_numpy_functions_on_device_arrays(device, require_dtypes,
                                          host_numpy):
    require_dtypes(np.float64)
    run_cases(device, host_numpy, CASES, _host, _same)


@pytest.mark.parametrize("call", [
    lambda a, v: np.place(a, a > 0.5, v),
    lambda a, v: np.place(a, a > 0.5, v[:2]),
    lambda a, v: np.put_along_axis(a, np.argsort(a, axis=1)[:, :2], -1.0,
                                   axis=1),
    lambda a, v: np.put_along_axis(a, np.argmax(a, axis=0)[None], v[:5],
                                   axis=0),
    lambda a, v: np.fill_diagonal(a, 7.0),
    lambda a, v: np.fill_diagonal(a, v[:2], wrap=True),
    lambda a, v: np.fill_diagonal(a.T, 3.0),
], ids=["place", "place cycles", "put_along_axis", "put_along_axis values",
        "fill_diagonal", "fill_diagonal wrap", "fill_diagonal of a view"])
def test_writers_write_into_the_array(device, require_dtypes, call):
    # Each returns None and writes into its first argument on its device,
    # as NumPy's do into a NumPy array.
    require_dtypes(np.float64)
    values = np.arange(1.0, 10.0)
    want = B.copy()
    call(want, values)
    got = spirjit.asarray(B, device=device)
    assert call(got, spirjit.asarray(values, device=device)) is None
    np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("call", [
    lambda a: np.put(a, [0, -3, 7], [9.0, 8.0]),
    lambda a: a.put([1, 40], -1.0, mode="clip"),
    lambda a: np.put(a, np.arange(3) - 5, [4.0, 5.0, 6.0], mode="wrap"),
], ids=["put", "put method clip", "put wrap"])
def test_put_writes_into_the_array(device, require_dtypes, call):
    require_dtypes(np.float64)
    want = B.copy()
    call(want)
    got = spirjit.asarray(B, device=device)
    assert call(got) is None
    np.testing.assert_array_equal(np.asarray(got), want)


def test_arrays_pickle_and_copy_to_the_same_device(device, require_dtypes):
    import copy
    import pickle
    require_dtypes(np.float64)
    x = spirjit.asarray(B, device=device)
    for twin in (pickle.loads(pickle.dumps(x)), copy.copy(x),
                 copy.deepcopy({"x": x})["x"]):
        assert isinstance(twin, spirjit.DeviceArray)
        assert twin.device == x.device and twin.usm_type == x.usm_type
        np.testing.assert_array_equal(np.asarray(twin), B)
        twin[0, 0] = -1.0                 # its own memory
    assert float(x[0, 0]) == B[0, 0]
    assert x.item(7) == B.item(7) and x.item(2, 3) == B.item(2, 3)
    assert isinstance(x.item(-1), float)
    with pytest.raises(IndexError, match="index 30 is out of bounds"):
        x.item(30)


def test_questions_about_arrays_answer_as_numpy(device, require_dtypes):
    require_dtypes(np.float64)
    x = spirjit.asarray(B, device=device)
    y = spirjit.asarray(B, device=device)
    assert np.may_share_memory(x, x[1:3, ::2])
    assert not np.may_share_memory(x[:2], x[3:])
    assert not np.may_share_memory(x, y)
    assert np.array_equiv(x[0], spirjit.asarray(np.tile(B[0], (3, 1)),
                                                device=device))
    assert not np.array_equiv(x, x[:2])
    assert np.result_type(x, 1.0) == np.float64
    assert np.result_type(spirjit.asarray(I.astype(np.int8), device=device),
                          np.int16) == np.int16
    assert np.can_cast(x, np.float32, casting="same_kind")
    assert not np.can_cast(x, np.int64)


def test_index_and_value_functions_raise_numpys_errors(device,
                                                       require_dtypes):
    require_dtypes(np.float64)
    x = spirjit.asarray(B, device=device)
    i = spirjit.asarray(I, device=device)
    with pytest.raises(ValueError, match="invalid entry in choice array"):
        np.choose(i, [i, i])
    with pytest.raises(ValueError, match="invalid entry in coordinates "
                       "array"):
        np.ravel_multi_index((i, i), (3, 3))
    with pytest.raises(IndexError, match="index 6 is out of bounds for "
                       "axis 0 with size 6"):
        np.compress([False] * 6 + [True], x, axis=0)
    with pytest.raises(ValueError, match="Cannot insert from an empty "
                       "array"):
        np.place(x, x > 0.5, [])
    with pytest.raises(ValueError, match="vsplit only works on arrays of 2 "
                       "or more dimensions"):
        np.vsplit(i, 2)
    with pytest.raises(ValueError, match="List depths are mismatched"):
        np.block([[x], x])
    with pytest.raises(ValueError, match="does not have an identity, so to "
                       "use a where mask one has to specify 'initial'"):
        np.max(x, where=x > 0.5)
    with pytest.raises(TypeError, match="not supported for complex values"):
        np.isposinf(x + 1j)
    with pytest.raises(ValueError, match="All dimensions of input must be "
                       "of equal length"):
        np.fill_diagonal(spirjit.asarray(T, device=device), 0.0)


def test_condition_numbers_and_singular_values(device, require_dtypes):
    # By the SVD and inv: NumPy's in place where the host addresses the
    # memory, cuSOLVER on CUDA devices.
    require_dtypes(np.float64)
    m = spirjit.asarray(M, device=device)
    try:
        got = np.linalg.svdvals(m)
    except errors.NotSupportedError as e:
        pytest.skip(str(e))
    _same(got, np.linalg.svdvals(M), "svdvals")
    for p in (None, 2, -2, "fro", 1, np.inf):
        got = np.linalg.cond(m, p)
        assert isinstance(got, spirjit.DeviceArray) and got.ndim == 0
        np.testing.assert_allclose(float(got), np.linalg.cond(M, p),
                                   rtol=1e-10, err_msg=str(p))


def test_polyfit_fits_as_numpy(device, require_dtypes):
    # By lstsq: NumPy's in place where the host addresses the memory,
    # cuSOLVER on CUDA devices.
    require_dtypes(np.float64)
    v = spirjit.asarray(V, device=device)
    b = spirjit.asarray(B[:, :2].repeat(2, axis=0)[:9], device=device)
    try:
        got = np.polyfit(v, 3 * v ** 2 - v, 2)
    except errors.NotSupportedError as e:
        pytest.skip(str(e))
    # (The SVD's rounding differs between libraries: a coefficient of 0
    # comes out as 1e-16 or 2e-16.)
    assert isinstance(got, spirjit.DeviceArray) and got.dtype == np.float64
    np.testing.assert_allclose(np.asarray(got),
                               np.polyfit(V, 3 * V ** 2 - V, 2), atol=1e-12)
    got = np.polyfit(v, b, 1)
    assert got.shape == (2, 2)
    np.testing.assert_allclose(
        np.asarray(got), np.polyfit(V, B[:, :2].repeat(2, axis=0)[:9], 1),
        rtol=1e-10, atol=1e-12)
    with pytest.raises(errors.NotSupportedError, match=r"polyfit\(cov=...\)"):
        np.polyfit(v, v, 1, cov=True)


def test_flat_reads_and_writes_as_numpys_flatiter(device, require_dtypes):
    require_dtypes(np.float64)
    want = B.copy()
    got = spirjit.asarray(B, device=device)
    assert len(got.flat) == want.size
    _same(got.flat[3:9], want.flat[3:9], "flat slice")
    _same(got.T.flat[[0, 7, 2]], want.T.flat[[0, 7, 2]], "flat of a view")
    got.flat[::4] = 9.0
    want.flat[::4] = 9.0
    got.T.flat[[1, 3, 5]] = spirjit.asarray(np.array([-1.0, -2.0]),
                                            device=device)
    want.T.flat[[1, 3, 5]] = [-1.0, -2.0]           # repeated, as NumPy
    got.flat[spirjit.asarray(B > 0.8, device=device)] = 0.0
    want.flat[B.reshape(-1) > 0.8] = 0.0
    np.testing.assert_array_equal(np.asarray(got), want)
    _same(got.flat.copy(), want.flat.copy(), "flat copy")
    assert [float(v) for v in got[:2, :2].flat] == \
        list(want[:2, :2].flat)
