"""np.sign, np.fmax/np.fmin, np.logical_and/or/xor/not, np.reciprocal and
np.conjugate: on DeviceArrays, in jit functions' array expressions and in
kernels, each as NumPy computes it (nan, zero and integer cases included)."""

import numpy as np
import pytest

import spirjit
from spirjit import kernel_api as kapi

FLOATS = np.array([-2.5, 0.0, np.nan, 3.0, -0.0, np.inf, -np.inf, 1e-3])
OTHER = np.array([1.0, np.nan, 2.0, np.nan, -1.0, 5.0, np.nan, -1e-3])
INTS = np.array([-3, 0, 5, 1, -1, 2, 100, -100])
OTHER_INTS = np.array([2, 0, -7, 1, 4, 2, -100, 100])

UNARY = ["sign", "reciprocal", "conjugate", "conj", "logical_not"]
BINARY = ["fmax", "fmin", "logical_and", "logical_or", "logical_xor"]
DTYPES = [np.float32, np.float64, np.int32, np.int64]


def operands(dtype, arity):
    if np.dtype(dtype).kind == "f":
        xs = (FLOATS, OTHER)
    else:
        xs = (INTS, OTHER_INTS)
    return [x.astype(dtype) for x in xs[:arity]]


def expected(name, args):
    with np.errstate(all="ignore"):
        return getattr(np, name)(*args)


def jit_of(f, arity):
    if arity == 1:
        def call(a):
            return f(a)
    else:
        def call(a, b):
            return f(a, b)
    return spirjit.jit(call)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", UNARY + BINARY)
def test_on_device_arrays_and_in_jit_functions(device, require_dtypes, name,
                                               dtype):
    require_dtypes(dtype)
    arity = 1 if name in UNARY else 2
    args = operands(dtype, arity)
    want = expected(name, args)
    on_device = [spirjit.asarray(a, device=device) for a in args]
    got = getattr(np, name)(*on_device)
    assert isinstance(got, spirjit.DeviceArray)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.asnumpy(), want)
    jitted = jit_of(getattr(np, name), arity)(*on_device)
    np.testing.assert_array_equal(jitted.asnumpy(), want)
    np.testing.assert_array_equal(jit_of(getattr(np, name), arity)(*args),
                                  want)


@pytest.mark.parametrize("dtype", [np.float32, np.int32],
                         ids=lambda d: np.dtype(d).name)
def test_in_kernels(device_filter, dtype):
    @spirjit.kernel
    def apply(item: kapi.Item, a, b, sign, fmax, both, recip):
        i = item.get_id(0)
        sign[i] = np.sign(a[i])
        fmax[i] = np.fmax(a[i], b[i])
        both[i] = np.logical_and(a[i], b[i])
        recip[i] = np.reciprocal(a[i])

    a, b = operands(dtype, 2)
    outs = [np.empty_like(a), np.empty_like(a), np.empty(a.size, np.bool_),
            np.empty_like(a)]
    spirjit.call_kernel(apply, spirjit.Range(a.size), a, b, *outs)
    for got, name, args in zip(outs, ["sign", "fmax", "logical_and",
                                      "reciprocal"],
                               [(a,), (a, b), (a, b), (a,)]):
        np.testing.assert_array_equal(got, expected(name, args))


def test_sign_of_a_bool_is_refused(device_filter):
    @spirjit.jit
    def f(a):
        return np.sign(a)

    with pytest.raises(spirjit.errors.TypingError,
                       match="sign\\(\\) of a bool is not defined"):
        f(np.array([True, False]))
