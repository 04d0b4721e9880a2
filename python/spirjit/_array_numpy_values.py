"""NumPy's ufuncs and value functions that ``compiler/ArrayOps.def`` does
not hold as one row, composed from its rows so that they run fused on the
array's device: the ufuncs ``np.modf``, ``np.frexp``, ``np.float_power``
and ``np.spacing``, and the vector products ``np.vecdot``, ``np.matvec`` and
``np.vecmat``; ``np.isneginf``, ``np.isposinf``, ``np.isreal``,
``np.iscomplex``, ``np.fix`` and ``np.unwrap``; and the ufunc methods
``outer`` and ``accumulate`` of the associative ufuncs beyond add and
multiply (``np.maximum.accumulate``: log2(n) fused steps, each element
combined with the one 2^k before it). Also NumPy's answers that depend
on a Python int's value: comparisons with an int beyond the array's dtype
(``u8 == 256``) and the error of an integer power with a negative
exponent.

Contract: ``ufuncs()`` maps each composed ufunc to its DeviceArray
version (called by ``__array_ufunc__`` with the operands and ``out``);
``functions()`` maps NumPy functions to theirs (``__array_function__``).
Results have NumPy's dtypes (read from NumPy's own loop for the operand
dtypes) and values, special values included.
"""

import math

import numpy as np

from . import _array_ops as ops
from . import errors
from ._array_api import _array, _device_of
from ._array_statistics import _xp
from ._spirjit import DeviceArray

_f = ops.apply_ufunc


def _loop_dtypes(ufunc, *dtypes):
    """NumPy's result dtypes of ``ufunc`` for operands of ``dtypes``."""
    samples = [np.zeros(1, d) for d in dtypes]
    with np.errstate(all="ignore"):
        result = ufunc(*samples)
    return tuple(r.dtype for r in result) if isinstance(result, tuple) \
        else result.dtype


def compare_out_of_range(name, inputs, device):
    """NumPy 2's answer to comparing an integer array with a Python int
    its dtype cannot hold (``u8 == 256``: all False, ``u8 < 256``: all
    True), which converting the int would refuse; None otherwise."""
    (a, b), swapped = inputs, False
    if isinstance(a, int) and not isinstance(a, bool):
        (b, a), swapped = inputs, True
    if not (isinstance(a, DeviceArray) and a.dtype.kind in "iu" and
            isinstance(b, int) and not isinstance(b, bool)):
        return None
    info = np.iinfo(a.dtype)
    if info.min <= b <= info.max:
        return None
    # (array vs int) with the int above every value: less and not_equal
    # hold; below every value: greater and not_equal hold.
    above = b > info.max
    if swapped:  # int op array: the array is above or below the int
        above = not above
    holds = {"equal": False, "not_equal": True,
             "less": above, "less_equal": above,
             "greater": not above, "greater_equal": not above}[name]
    import spirjit
    return spirjit.full(a.shape, holds, dtype=np.bool_, device=device)


def check_exponent(exponent, base_dtype=None):
    """NumPy's error for an integer power with a negative exponent the
    host holds (an array's values on the device are not read for it): a
    Python int below an unsigned base's range is NumPy 2's OverflowError
    first."""
    if isinstance(exponent, DeviceArray):
        return
    if base_dtype is not None and np.dtype(base_dtype).kind == "u" and \
            isinstance(exponent, int) and exponent < 0:
        raise OverflowError(f"Python integer {exponent} out of bounds for "
                            f"{np.dtype(base_dtype).name}")
    if np.any(np.asarray(exponent) < 0):
        raise errors.InvalidArgumentError(
            "Integers to negative integer powers are not allowed.")


def _write(out, values):
    if out is None:
        return values
    out[...] = values
    return out


def _outs(out, count):
    if out is None:
        return (None,) * count
    out = out if isinstance(out, tuple) else (out,)
    if len(out) != count:
        raise errors.InvalidArgumentError(
            f"The 'out' tuple must have exactly {count} entries: one per "
            "ufunc output")
    return out


def modf(x, out=None):
    """(fractional part, integral part), both with x's sign."""
    x = _array(x)
    dtype, _ = _loop_dtypes(np.modf, x.dtype)
    x = ops.astype(x, dtype)
    whole = _f(np.trunc, (x,))
    fraction = ops.where(_f(np.isinf, (x,)), 0.0,
                         _f(np.subtract, (x, whole)))
    fraction = _f(np.copysign, (fraction, x))
    first, second = _outs(out, 2)
    return _write(first, ops.astype(fraction, dtype)), _write(second, whole)


def frexp(x, out=None):
    """(mantissa in [0.5, 1) with x's sign, int32 exponent): from log2,
    corrected by one step either way where its rounding put the exponent
    one off; zeros, infinities and NaNs give themselves and 0."""
    x = _array(x)
    mantissa_dtype, exponent_dtype = _loop_dtypes(np.frexp, x.dtype)
    work = np.float32 if mantissa_dtype == np.float16 else mantissa_dtype
    x = ops.astype(x, work)
    special = _f(np.logical_or, (_f(np.equal, (x, 0)),
                                 _f(np.logical_not, (_f(np.isfinite, (x,)),))))
    # A harmless 1 in place of the special values (their log2 is not
    # finite, and its cast to an integer would be undefined).
    magnitude = ops.where(special, 1.0, _f(np.absolute, (x,)))
    exponent = ops.astype(_f(np.add, (_f(np.floor, (_f(np.log2, (
        magnitude,)),)), 1)), np.int32)
    mantissa = _f(np.ldexp, (x, _f(np.negative, (exponent,))))
    size = _f(np.absolute, (mantissa,))
    high, low = _f(np.greater_equal, (size, 1.0)), _f(np.less, (size, 0.5))
    mantissa = ops.where(high, _f(np.multiply, (mantissa, 0.5)),
                         ops.where(low, _f(np.multiply, (mantissa, 2.0)),
                                   mantissa))
    exponent = _f(np.add, (exponent, _f(np.subtract, (
        ops.astype(high, np.int32), ops.astype(low, np.int32)))))
    mantissa = ops.where(special, x, mantissa)
    exponent = ops.where(special, 0, exponent)
    first, second = _outs(out, 2)
    return (_write(first, ops.astype(mantissa, mantissa_dtype)),
            _write(second, ops.astype(exponent, exponent_dtype)))


def float_power(x1, x2, out=None):
    device = _device_of(x1, x2)
    a, b = _array(x1, device), _array(x2, device)
    dtype = _loop_dtypes(np.float_power, a.dtype, b.dtype)
    result = _f(np.power, (ops.astype(a, dtype), ops.astype(b, dtype)))
    return _write(_outs(out, 1)[0], result)


def spacing(x, out=None):
    """The distance to the next representable number away from zero
    (negative for a negative x, positive for -0.0); NaN for
    infinities."""
    x = _array(x)
    dtype = _loop_dtypes(np.spacing, x.dtype)
    x = ops.astype(x, dtype)
    away = ops.astype(ops.where(_f(np.less, (x, 0)), -np.inf, np.inf),
                      dtype)  # -0.0: up
    result = _f(np.subtract, (_f(np.nextafter, (x, away)), x))
    result = ops.where(_f(np.isinf, (x,)), np.nan, result)
    return _write(_outs(out, 1)[0], ops.astype(result, dtype))


def _real_only(name, x):
    if x.dtype.kind == "c":
        raise errors.TypingError(
            "This operation is not supported for complex values because it "
            "would be ambiguous.")


def isneginf(x, out=None):
    x = _array(x)
    _real_only("isneginf", x)
    return _write(out, _f(np.logical_and, (_f(np.isinf, (x,)),
                                           _f(np.signbit, (x,)))))


def isposinf(x, out=None):
    x = _array(x)
    _real_only("isposinf", x)
    return _write(out, _f(np.logical_and, (
        _f(np.isinf, (x,)), _f(np.logical_not, (_f(np.signbit, (x,)),)))))


def isreal(x):
    x = _array(x)
    if x.dtype.kind != "c":
        return _xp().ones(x.shape, dtype=np.bool_, device=x._device)
    return _f(np.equal, (np.imag(x), 0))


def iscomplex(x):
    x = _array(x)
    if x.dtype.kind != "c":
        return _xp().zeros(x.shape, dtype=np.bool_, device=x._device)
    return _f(np.not_equal, (np.imag(x), 0))


def fix(x, out=None):
    """Rounded toward zero, in x's dtype (NumPy 2's ceil and floor keep an
    integer's)."""
    return _write(out, _f(np.trunc, (_array(x),)))


def unwrap(p, discont=None, axis=-1, *, period=2 * math.pi):
    """NumPy's: each step's jump reduced into [-period/2, period/2), the
    corrections summed along the axis. Integer phases with an integer
    period unwrap in integers, as NumPy's."""
    xp = _xp()
    x = _array(p)
    axis = ops.normalize_axis(axis, x.ndim)
    step = np.diff(x, axis=axis)
    if discont is None:
        discont = period / 2
    integral = x.dtype.kind in "iu" and isinstance(period, int)
    if integral:
        high, remainder = divmod(period, 2)
        ambiguous = remainder == 0
    else:
        high, ambiguous = period / 2, True
    low = -high
    reduced = _f(np.add, (_f(np.remainder, (_f(np.subtract, (step, low)),
                                            period)), low))
    if ambiguous:
        reduced = ops.where(_f(np.logical_and, (_f(np.equal, (reduced, low)),
                                               _f(np.greater, (step, 0)))),
                            high, reduced)
    correction = _f(np.subtract, (reduced, step))
    correction = ops.where(_f(np.less, (_f(np.absolute, (step,)), discont)),
                           0, correction)
    dtype = np.result_type(x.dtype, np.asarray(period)) if not integral \
        else x.dtype
    if x.shape[axis] == 0:
        return ops.astype(x, dtype)
    head = [slice(None)] * x.ndim
    head[axis] = slice(0, 1)
    tail = [slice(None)] * x.ndim
    tail[axis] = slice(1, None)
    rest = _f(np.add, (x[tuple(tail)], np.cumsum(correction, axis=axis)))
    return xp.concat((ops.astype(x[tuple(head)], dtype),
                      ops.astype(rest, dtype)), axis=axis)


# ufunc.accumulate by doubling: associative ufuncs whose order of operands
# the steps keep (each combines an element with an earlier one on its left)
_SCANNED_BY_DOUBLING = {np.maximum, np.minimum, np.fmax, np.fmin,
                        np.logical_and, np.logical_or, np.logical_xor,
                        np.bitwise_and, np.bitwise_or, np.bitwise_xor}


def along_axis(ufunc, method, x, axis):
    """The DeviceArray and normalized axis of ``ufunc.<method>(x, axis)``
    (accumulate, reduceat): NumPy's error for a 0-d operand."""
    x = _array(x)
    if x.ndim == 0:
        raise errors.TypingError(
            f"numpy.{ufunc.__name__}.{method} of a 0-d DeviceArray: NumPy "
            "works along an axis; reshape it to 1-d")
    return x, ops.normalize_axes(x, axis)[0]


def accumulate(ufunc, x, axis=0, dtype=None):
    """``ufunc.accumulate`` for the ufuncs of _SCANNED_BY_DOUBLING, or
    None for another."""
    if ufunc not in _SCANNED_BY_DOUBLING:
        return None
    xp = _xp()
    x, axis = along_axis(ufunc, "accumulate", x, axis)
    if dtype is None:
        dtype = _loop_dtypes(ufunc, x.dtype, x.dtype)
    out = ops.astype(x, dtype)
    n = x.shape[axis]
    shift = 1
    while shift < n:
        first = [slice(None)] * x.ndim
        first[axis] = slice(0, shift)
        earlier = [slice(None)] * x.ndim
        earlier[axis] = slice(0, n - shift)
        later = [slice(None)] * x.ndim
        later[axis] = slice(shift, n)
        out = xp.concat((out[tuple(first)],
                         ops.astype(_f(ufunc, (out[tuple(earlier)],
                                               out[tuple(later)])), dtype)),
                        axis=axis)
        shift *= 2
    return out


def outer(ufunc, a, b):
    """``ufunc.outer(a, b)``: a's axes, then b's, broadcast."""
    if ufunc.nin != 2:
        raise errors.InvalidArgumentError(
            "outer product only supported for binary functions")
    device = _device_of(a, b)
    x, y = _array(a, device), _array(b, device)
    x = ops.reshape(x, tuple(x.shape) + (1,) * y.ndim)
    return _f(ufunc, (x, y))


def vecdot(x1, x2, out=None):
    """The vector product over the last axis, the first operand
    conjugated (NumPy's and the Array API's)."""
    device = _device_of(x1, x2)
    return _write(out, _xp().vecdot(_array(x1, device), _array(x2, device)))


def matvec(x1, x2, out=None):
    """Matrices (..., n, k) times vectors (..., k), broadcast."""
    device = _device_of(x1, x2)
    a, v = _array(x1, device), _array(x2, device)
    if a.ndim < 2 or v.ndim < 1:
        raise errors.InvalidArgumentError(
            "matvec: the first operand needs 2 dimensions, the second 1")
    product = a @ ops.reshape(v, tuple(v.shape) + (1,))
    return _write(out, product[..., 0])


def vecmat(x1, x2, out=None):
    """Vectors (..., k), conjugated, times matrices (..., k, n)."""
    device = _device_of(x1, x2)
    v, a = _array(x1, device), _array(x2, device)
    if a.ndim < 2 or v.ndim < 1:
        raise errors.InvalidArgumentError(
            "vecmat: the first operand needs 1 dimension, the second 2")
    if v.dtype.kind == "c":
        v = _f(np.conjugate, (v,))
    product = ops.reshape(v, tuple(v.shape[:-1]) + (1, v.shape[-1])) @ a
    return _write(out, product[..., 0, :])


def _composed_ufuncs():
    table = {np.modf: modf, np.frexp: frexp, np.float_power: float_power,
             np.spacing: spacing}
    for name, function in (("vecdot", vecdot), ("matvec", matvec),
                           ("vecmat", vecmat)):
        if hasattr(np, name):  # (NumPy 2.0 and 2.2)
            table[getattr(np, name)] = function
    return table


_UFUNCS = _composed_ufuncs()


def ufuncs():
    """Composed ufunc -> its DeviceArray version (for __array_ufunc__)."""
    return _UFUNCS


def functions():
    """NumPy function -> its DeviceArray version (for __array_function__)."""
    return {np.isneginf: isneginf, np.isposinf: isposinf, np.isreal: isreal,
            np.iscomplex: iscomplex, np.fix: fix, np.unwrap: unwrap}
