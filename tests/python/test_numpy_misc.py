"""The NumPy functions of python/spirjit/_array_numpy_misc.py and the
quantile methods and pad mode beside them: np.i0, ufunc.reduceat,
subtract/divide.accumulate, linspace/logspace/geomspace with array ends,
shares_memory, byteswap, trim_zeros, packbits/unpackbits, tensorsolve and
tensorinv; every quantile method of NumPy; np.pad(mode='linear_ramp').
Each returns DeviceArrays on the operands' device with NumPy's answer,
dtype and shape, on every device, with NumPy in place for small values
and with kernels."""

import numpy as np
import pytest

import spirjit
from spirjit import errors

from test_numpy_more import run_cases

RNG = np.random.default_rng(5)
B = RNG.random((6, 5))
F = RNG.standard_normal(40).astype(np.float32)
W = np.concatenate([[0.0, 0.0], RNG.random(5), [0.0]])
K = np.array([[0, 0, 0, 0], [0, 3, 0, 1], [0, 0, 2, 0], [0, 0, 0, 0]])
I = RNG.integers(0, 200, 13).astype(np.uint8)
H = np.array([0.0, 1e-3, 0.5, -1.0, 2.0, 7.9, 8.0, 8.1, -30.0, 200.0, 700.0])
T = RNG.random((2, 3, 2, 3)) + 3 * np.eye(6).reshape(2, 3, 2, 3)
NAN = np.where(RNG.random((3, 7)) < 0.3, np.nan, RNG.random((3, 7)))
QS = [0.0, 0.1, 0.5, 0.77, 1.0]
METHODS = ["inverted_cdf", "averaged_inverted_cdf", "closest_observation",
           "interpolated_inverted_cdf", "hazen", "weibull", "linear",
           "median_unbiased", "normal_unbiased", "lower", "higher",
           "midpoint", "nearest"]

CASES = {
    "i0": lambda a: np.i0(a["H"]),
    "i0 float32": lambda a: np.i0(a["F"]),
    "add.reduceat": lambda a: np.add.reduceat(a["B"], [0, 2, 2, 5, 1]),
    "add.reduceat axis 1": lambda a: np.add.reduceat(a["B"], [0, 3],
                                                     axis=1),
    "add.reduceat widens": lambda a: np.add.reduceat(a["I"], [0, 4, 9]),
    "multiply.reduceat": lambda a: np.multiply.reduceat(a["F"],
                                                        [0, 17, 3, 39]),
    "maximum.reduceat": lambda a: np.maximum.reduceat(a["F"],
                                                      [5, 1, 30, 31]),
    "bitwise_or.reduceat": lambda a: np.bitwise_or.reduceat(a["I"],
                                                            [1, 12]),
    "subtract.accumulate": lambda a: np.subtract.accumulate(a["B"]),
    "divide.accumulate": lambda a: np.divide.accumulate(a["B"], axis=1),
    "linspace": lambda a: np.linspace(a["B"][0], a["B"][1], 7),
    "linspace axis": lambda a: np.linspace(0.0, a["B"][:, 0], 4, axis=1,
                                           endpoint=False),
    "linspace int": lambda a: np.linspace(a["B"][0], 9.0, 5, dtype=int),
    "linspace float32": lambda a: np.linspace(a["F"][:3], a["F"][3:6], 3),
    "logspace": lambda a: np.logspace(a["B"][0], 2.0, 4, base=3.0),
    "geomspace": lambda a: np.geomspace(a["B"][0] + 1, -a["B"][1] - 1, 5),
    "byteswap": lambda a: a["F"].byteswap(),
    "byteswap int": lambda a: a["K"].byteswap(),
    "trim_zeros": lambda a: np.trim_zeros(a["W"]),
    "trim_zeros front": lambda a: np.trim_zeros(a["W"], "f"),
    "trim_zeros 2-d": lambda a: np.trim_zeros(a["K"]),
    "trim_zeros axis": lambda a: np.trim_zeros(a["K"], "b", axis=1),
    "trim_zeros all zero": lambda a: np.trim_zeros(a["W"][:2]),
    "unpackbits": lambda a: np.unpackbits(a["I"]),
    "unpackbits little count": lambda a: np.unpackbits(
        a["I"][:12].reshape(3, 4), axis=1, count=-3, bitorder="little"),
    "packbits": lambda a: np.packbits(a["K"] > 0),
    "packbits axis": lambda a: np.packbits(a["B"] > 0.5, axis=0,
                                           bitorder="little"),
    "pad linear_ramp": lambda a: np.pad(a["B"], ((1, 2), (3, 0)),
                                        mode="linear_ramp",
                                        end_values=((5, -1), (2, 0))),
    "pad linear_ramp int": lambda a: np.pad(a["K"], 3, mode="linear_ramp",
                                            end_values=7),
}
for _m in METHODS:
    CASES[f"quantile {_m}"] = (
        lambda a, m=_m: np.quantile(a["B"], QS, axis=1, method=m))
    CASES[f"quantile {_m} float32 weak q"] = (
        lambda a, m=_m: np.quantile(a["F"], 0.3, method=m))
    CASES[f"quantile {_m} integers"] = (
        lambda a, m=_m: np.percentile(a["I"], [10, 60], method=m))
    CASES[f"nanquantile {_m}"] = (
        lambda a, m=_m: np.nanquantile(a["N"], QS, axis=1, method=m))


def _host():
    return {"B": B, "F": F, "W": W, "K": K, "I": I, "H": H, "T": T,
            "N": NAN}


def _same(got, want, what):
    assert isinstance(got, spirjit.DeviceArray), (what, type(got))
    g = np.asarray(got)
    assert g.shape == np.shape(want) and g.dtype == np.asarray(want).dtype, \
        (what, g.shape, g.dtype, np.shape(want), np.asarray(want).dtype)
    np.testing.assert_allclose(g, want, rtol=2e-6 if g.dtype == np.float32
                               else 1e-12, equal_nan=True, err_msg=what)


@pytest.mark.parametrize("host_numpy", [True, False],
                         ids=["numpy-in-place", "kernels"])
def test_numpy_functions_on_device_arrays(device, require_dtypes,
                                          host_numpy):
    require_dtypes(np.float64)
    run_cases(device, host_numpy, CASES, _host, _same)


def test_tensor_solves(device, require_dtypes):
    # Through the device's solve and inverse (NumPy's in place on CPUs).
    require_dtypes(np.float64)
    t = spirjit.asarray(T, device=device)
    b = spirjit.asarray(B[:2, :3], device=device)
    for got, want in ((np.linalg.tensorsolve(t, b),
                       np.linalg.tensorsolve(T, B[:2, :3])),
                      (np.linalg.tensorsolve(t, b, axes=(0, 1)),
                       np.linalg.tensorsolve(T, B[:2, :3], axes=(0, 1))),
                      (np.linalg.tensorinv(t, ind=2),
                       np.linalg.tensorinv(T, ind=2))):
        _same(got, want, "tensor solve")


def test_shares_memory_is_exact(device, require_dtypes):
    require_dtypes(np.float64)
    x = spirjit.asarray(B, device=device)
    assert np.shares_memory(x, x[2:4, 1])
    # Interleaved columns: their spans overlap, their elements do not.
    assert np.may_share_memory(x[:, ::2], x[:, 1::2])
    assert not np.shares_memory(x[:, ::2], x[:, 1::2])
    assert not np.shares_memory(x[::-1, 0], x[:, 1])
    assert not np.shares_memory(x, spirjit.asarray(B, device=device))
    assert not np.shares_memory(x, B)


def test_byteswap_in_place_writes_the_array(device):
    x = spirjit.asarray(np.arange(5, dtype=np.int32), device=device)
    assert x.byteswap(inplace=True) is x
    np.testing.assert_array_equal(np.asarray(x),
                                  np.arange(5, dtype=np.int32).byteswap())


def test_reduceat_errors_are_numpys(device):
    x = spirjit.asarray(np.arange(6.0, dtype=np.float32), device=device)
    with pytest.raises(errors.ArrayIndexError,
                       match=r"index 6 out-of-bounds in add.reduceat "
                             r"\[0, 6\)"):
        np.add.reduceat(x, [0, 6])
    with pytest.raises(errors.TypingError,
                       match="numpy.subtract.reduceat has no spirjit kernel"):
        np.subtract.reduceat(x, [0, 2])
    with pytest.raises(errors.InvalidArgumentError,
                       match="Geometric sequence cannot include zero"):
        np.geomspace(x[:2], 5.0)
    with pytest.raises(errors.InvalidArgumentError,
                       match="Number of samples, -1, must be non-negative"):
        np.linspace(x[:1], x[1:2], -1)
