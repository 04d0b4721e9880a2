"""NumPy functions on DeviceArrays that the other tables left out, each
composed from spirjit's operations so that it runs on the array's device:
``np.i0`` (Cephes' Chebyshev series, as NumPy's, fused into one kernel);
``ufunc.reduceat`` of the associative ufuncs (a table of power-of-two
blocks, log2 of the longest segment levels, each segment folded from
O(log n) of them); ``np.subtract.accumulate`` and
``np.divide.accumulate``; ``np.linspace``, ``np.logspace`` and
``np.geomspace`` with array ends; ``np.shares_memory`` (exact, NumPy's
own solver over the two views' layouts, no data read); ``x.byteswap()``;
``np.trim_zeros``; ``np.packbits`` and ``np.unpackbits``;
``np.linalg.tensorsolve`` and ``np.linalg.tensorinv``.

Contract: ``functions()`` maps each NumPy function to its DeviceArray
version with NumPy's signature, dtypes, answers and errors;
``reduceat(ufunc, ...)`` and ``accumulate(ufunc, ...)`` serve
``__array_ufunc__`` and return None for a ufunc they do not cover. Where
NumPy's answer depends on values that decide a shape (``trim_zeros``, the
step check of ``linspace``) those few values are read back, as NumPy
reads them.
"""

import functools
import operator

import numpy as np

from . import _array_ops as ops
from . import _array_primitives as prims
from . import errors
from ._array_api import _array, _device_of
from ._array_numpy_values import along_axis
from ._array_statistics import _xp
from ._spirjit import DeviceArray

_f = ops.apply_ufunc


# --------------------------------------------------------------------------
# np.i0: Cephes' Chebyshev coefficients for exp(-x) I0(x) on [0, 8] and
# exp(-x) sqrt(x) I0(x) on (8, inf), the series NumPy evaluates

_I0_LOW = (
    -4.4153416464793395e-18, 3.3307945188222384e-17, -2.431279846547955e-16,
    1.715391285555133e-15, -1.1685332877993451e-14, 7.676185498604936e-14,
    -4.856446783111929e-13, 2.95505266312964e-12, -1.726826291441556e-11,
    9.675809035373237e-11, -5.189795601635263e-10, 2.6598237246823866e-09,
    -1.300025009986248e-08, 6.046995022541919e-08, -2.670793853940612e-07,
    1.1173875391201037e-06, -4.4167383584587505e-06, 1.6448448070728896e-05,
    -5.754195010082104e-05, 0.00018850288509584165, -0.0005763755745385824,
    0.0016394756169413357, -0.004324309995050576, 0.010546460394594998,
    -0.02373741480589947, 0.04930528423967071, -0.09490109704804764,
    0.17162090152220877, -0.3046826723431984, 0.6767952744094761)
_I0_HIGH = (
    -7.233180487874754e-18, -4.830504485944182e-18, 4.46562142029676e-17,
    3.461222867697461e-17, -2.8276239805165836e-16, -3.425485619677219e-16,
    1.7725601330565263e-15, 3.8116806693526224e-15, -9.554846698828307e-15,
    -4.150569347287222e-14, 1.54008621752141e-14, 3.8527783827421426e-13,
    7.180124451383666e-13, -1.7941785315068062e-12, -1.3215811840447713e-11,
    -3.1499165279632416e-11, 1.1889147107846439e-11, 4.94060238822497e-10,
    3.3962320257083865e-09, 2.266668990498178e-08, 2.0489185894690638e-07,
    2.8913705208347567e-06, 6.889758346916825e-05, 0.0033691164782556943,
    0.8044904110141088)


def _chebyshev(x, coefficients):
    """Clenshaw's sum of a Chebyshev series at x (Cephes' chbevl)."""
    b0, b1, b2 = coefficients[0], 0.0, 0.0
    for c in coefficients[1:]:
        b2, b1 = b1, b0
        b0 = x * b1 - b2 + c
    return (b0 - b2) * 0.5


def i0(x):
    xp = _xp()
    x = _array(x)
    if x.dtype.kind == "c":
        raise errors.TypingError("i0 not supported for complex values")
    if x.dtype.kind != "f":
        x = ops.astype(x, np.float64)
    x = xp.abs(x)
    low = xp.minimum(x, 8.0)  # each branch sees only its own range
    high = xp.maximum(x, 8.0)
    near = xp.exp(low) * _chebyshev(low / 2.0 - 2, _I0_LOW)
    far = xp.exp(high) * _chebyshev(32.0 / high - 2.0, _I0_HIGH) / \
        xp.sqrt(high)
    return xp.where(x <= 8.0, near, far)


# --------------------------------------------------------------------------
# ufunc.reduceat and the accumulates of subtract and divide

_ASSOCIATIVE = {np.add, np.multiply, np.maximum, np.minimum, np.fmax,
                np.fmin, np.logical_and, np.logical_or, np.logical_xor,
                np.bitwise_and, np.bitwise_or, np.bitwise_xor}


def _reduce_dtype(ufunc, dtype):
    """NumPy's dtype of ufunc.reduce over dtype (add and multiply widen
    small integers and booleans to the default integer)."""
    with np.errstate(all="ignore"):
        return ufunc.reduce(np.zeros(1, dtype)).dtype


def reduceat(ufunc, array, indices, axis=0, dtype=None, out=None):
    """NumPy's reduceat: for each i, ufunc's reduction of the slice
    indices[i]:indices[i+1] along axis, or the one element indices[i]
    where the next index is not greater (the last to the end)."""
    if ufunc not in _ASSOCIATIVE:
        return None
    xp = _xp()
    x, axis = along_axis(ufunc, "reduceat", array, axis)
    starts = np.asarray(indices.asnumpy() if isinstance(indices, DeviceArray)
                        else indices)
    if starts.ndim != 1 or (starts.size and starts.dtype.kind not in "iu"):
        raise errors.TypingError(
            "reduceat: the indices must be a 1-d sequence of integers")
    starts = starts.astype(np.int64)
    n = x.shape[axis]
    for i in starts:
        if not 0 <= i < n:
            raise errors.ArrayIndexError(
                f"index {i} out-of-bounds in {ufunc.__name__}.reduceat "
                f"[0, {n})")
    if dtype is None:
        dtype = _reduce_dtype(ufunc, x.dtype)
    x = ops.astype(xp.moveaxis(x, axis, 0), dtype)
    ends = np.append(starts[1:], n)
    lengths = np.where(ends > starts, ends - starts, 1)
    # levels[k][i]: ufunc over x[i : i + 2**k] (levels[k + 1] folds two
    # neighbouring blocks of levels[k]).
    top = int(lengths.max()).bit_length() - 1 if starts.size else 0
    levels = [x]
    for k in range(top):
        block, size = levels[-1], 1 << k
        levels.append(ops.astype(_f(ufunc, (block[:-size], block[size:])),
                                 dtype))
    # Each segment is its length's blocks from the left, largest first.
    result = None
    position = starts.copy()
    for k in range(top, -1, -1):
        has = (lengths >> k) & 1 == 1
        if not has.any():
            continue
        at = np.where(has, position, 0)
        part = prims.take(levels[k], xp.asarray(at, device=x._device), 0)
        if result is None:
            result = part
        else:
            folded = ops.astype(_f(ufunc, (result, part)), dtype)
            mask = xp.asarray(has.reshape((-1,) + (1,) * (x.ndim - 1)),
                              device=x._device)
            started = xp.asarray(
                (position > starts).reshape((-1,) + (1,) * (x.ndim - 1)),
                device=x._device)
            result = xp.where(mask, xp.where(started, folded, part), result)
        position = position + np.where(has, 1 << k, 0)
    if result is None:
        shape = (0,) + tuple(x.shape[1:])
        result = xp.empty(shape, dtype=dtype, device=x._device)
    result = xp.moveaxis(result, 0, axis)
    if out is not None:
        return ops.write_out(out, result, "reduceat")
    return result


def accumulate(ufunc, x, axis=0, dtype=None):
    """subtract.accumulate (x0 - x1 - ... as x0 - (x1 + ...)) and
    divide.accumulate (x0 / (x1 * ...)), from the device's scans; None for
    another ufunc."""
    if ufunc not in (np.subtract, np.divide):
        return None
    xp = _xp()
    x, axis = along_axis(ufunc, "accumulate", x, axis)
    if dtype is None:
        with np.errstate(all="ignore"):
            dtype = ufunc(np.ones(1, x.dtype), np.ones(1, x.dtype)).dtype
    x = ops.astype(x, dtype)
    head = [slice(None)] * x.ndim
    head[axis] = slice(0, 1)
    tail = [slice(None)] * x.ndim
    tail[axis] = slice(1, None)
    first, rest = x[tuple(head)], x[tuple(tail)]
    scan = np.cumsum if ufunc is np.subtract else np.cumprod
    folded = ops.astype(scan(rest, axis=axis, dtype=dtype), dtype)
    return xp.concat((first, ops.astype(_f(ufunc, (first, folded)), dtype)),
                     axis=axis)


# --------------------------------------------------------------------------
# Ranges with array ends

def _promoted(value):
    """What value brings to NumPy's promotion: a DeviceArray its dtype, a
    Python number itself (weak), anything else its NumPy array."""
    if isinstance(value, DeviceArray):
        return value.dtype
    if isinstance(value, (int, float, complex)):
        return value
    return np.asarray(value)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None,
             axis=0, *, device=None):
    """NumPy's linspace: the samples along a new axis (0 by default) for
    each pair of broadcast ends, computed as NumPy computes them."""
    xp = _xp()
    num = operator.index(num)
    if num < 0:
        raise errors.InvalidArgumentError(
            f"Number of samples, {num}, must be non-negative.")
    where = device if device is not None else _device_of(start, stop)
    a, b = _array(start, where), _array(stop, where)
    dt = np.result_type(*(_promoted(v) for v in (start, stop)))
    if dt.kind not in "fc":  # (NumPy's ensure_inexact)
        dt = np.result_type(dt, np.float64)
    integer = dtype is not None and np.issubdtype(dtype, np.integer)
    dtype = dt if dtype is None else np.dtype(dtype)
    a, b = ops.astype(a, dt), ops.astype(b, dt)
    div = num - 1 if endpoint else num
    delta = b - a
    shape = (-1,) + (1,) * delta.ndim
    y = ops.reshape(xp.arange(0, num, dtype=dt, device=a._device), shape)
    if div > 0:
        step = delta / div
        if bool((step == 0).any()):
            y = y / div * delta
        else:
            y = y * step
    else:
        step = xp.full(delta.shape, np.nan, dtype=dt, device=a._device)
        y = y * delta
    y = y + a
    if endpoint and num > 1:
        y = xp.concat((y[:-1], xp.broadcast_to(b, (1,) + tuple(y.shape[1:]))))
    if axis != 0:
        y = xp.moveaxis(y, 0, axis)
    if integer:
        y = xp.floor(y)
    y = ops.astype(y, dtype)
    return (y, step) if retstep else y


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None,
             axis=0):
    xp = _xp()
    y = linspace(start, stop, num=num, endpoint=endpoint, axis=axis)
    base = _array(base, y._device) if isinstance(base, DeviceArray) else \
        np.asarray(base)
    if axis != 0 and base.ndim:
        base = xp.expand_dims(_array(base, y._device), axis=axis)
    result = _f(np.power, (base, y))
    return result if dtype is None else ops.astype(result, dtype)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    xp = _xp()
    device = _device_of(start, stop)
    a, b = _array(start, device), _array(stop, device)
    if a.dtype.kind == "c" or b.dtype.kind == "c":
        raise errors.NotSupportedError(
            "numpy.geomspace of complex DeviceArrays is not supported")
    if bool((a == 0).any()) or bool((b == 0).any()):
        raise errors.InvalidArgumentError(
            "Geometric sequence cannot include zero")
    dt = np.result_type(a.dtype, b.dtype, float(num),
                        np.zeros((), dtype))
    a, b = ops.astype(a, dt), ops.astype(b, dt)
    sign = xp.sign(a)
    a, b = a / sign, b / sign
    result = logspace(xp.log10(a), xp.log10(b), num=num, endpoint=endpoint,
                      base=10.0, dtype=dt)
    if num > 0:  # the ends exactly, as NumPy sets them
        a = xp.broadcast_to(a, tuple(result.shape[1:]))
        b = xp.broadcast_to(b, tuple(result.shape[1:]))
        parts = [ops.reshape(a, (1,) + tuple(a.shape)), result[1:]]
        if num > 1 and endpoint:
            parts = [parts[0], result[1:-1], ops.reshape(b, (1,) +
                                                         tuple(b.shape))]
        result = xp.concat(parts)
    result = sign * result
    if axis != 0:
        result = xp.moveaxis(result, 0, axis)
    return ops.astype(result, dt if dtype is None else dtype)


# --------------------------------------------------------------------------
# Memory, bytes and bits

def _layout(x, low, base):
    """A host view over ``base`` (uninitialized, never read) laid out as
    x is within its buffer, its first byte at ``low``."""
    return np.ndarray(x.shape, dtype=x.dtype, buffer=base,
                      offset=x._offset - low, strides=x.strides)


def shares_memory(a, b, /, max_work=None):
    """NumPy's exact answer: whether an element of a and one of b use the
    same byte, from the two views' offsets, shapes and strides."""
    from ._array_numpy_index import _span
    if not (isinstance(a, DeviceArray) and isinstance(b, DeviceArray)):
        return False
    if a._buffer_key != b._buffer_key:
        return False
    first, second = _span(a), _span(b)
    if first is None or second is None:
        return False
    if not (first[0] < second[1] and second[0] < first[1]):
        return False
    low = min(first[0], second[0])
    base = np.empty(max(first[1], second[1]) - low, np.uint8)
    return bool(np.shares_memory(_layout(a, low, base),
                                 _layout(b, low, base), max_work=max_work))


_UNSIGNED = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def byteswap(x, inplace=False):
    """NumPy's ndarray.byteswap: each element's bytes reversed (each part
    of a complex number on its own)."""
    part = x.itemsize // 2 if x.dtype.kind == "c" else x.itemsize
    if part == 1:
        swapped = x.copy()
    else:
        u = x.view(_UNSIGNED[part])
        out = None
        for k in range(part):
            byte = (u >> (8 * k)) & 0xFF
            moved = byte << (8 * (part - 1 - k))
            out = moved if out is None else out | moved
        swapped = ops.astype(out, _UNSIGNED[part]).view(x.dtype)
    if inplace:
        x[...] = swapped
        return x
    return swapped


def trim_zeros(filt, trim="fb", axis=None):
    """NumPy's: the leading ('f') and trailing ('b') zeros cut, along each
    axis (hyperplanes all zero) where the array has several."""
    xp = _xp()
    x = _array(filt)
    trim = trim.lower()
    if trim not in ("fb", "bf", "f", "b"):
        raise errors.InvalidArgumentError(
            f"unexpected character(s) in `trim`: {trim!r}")
    axes = range(x.ndim) if axis is None else ops.normalize_axes(x, axis)
    index = [slice(None)] * x.ndim
    nonzero = x != 0
    for a in axes:
        others = tuple(i for i in range(x.ndim) if i != a)
        line = nonzero.any(axis=others) if others else nonzero
        n = x.shape[a]
        if n == 0:
            continue
        found = xp.stack((xp.argmax(line), xp.argmax(xp.flip(line)),
                          ops.astype(line.any(), np.int64))).asnumpy()
        if not found[2]:  # all zero: empty along every axis trimmed
            start = stop = 0
        else:
            start = int(found[0]) if "f" in trim else 0
            stop = n - int(found[1]) if "b" in trim else n
        index[a] = slice(start, stop)
    return x[tuple(index)]


def _bit_axis(x, axis):
    if axis is None:
        return ops.reshape(x, -1), 0
    return x, ops.normalize_axes(x, axis)[0]


def unpackbits(a, /, axis=None, count=None, bitorder="big"):
    xp = _xp()
    x = _array(a)
    if x.dtype != np.uint8:
        raise errors.TypingError(
            "Expected an input array of unsigned byte data type")
    x, axis = _bit_axis(x, axis)
    shifts = np.arange(7, -1, -1) if bitorder == "big" else np.arange(8)
    x = xp.expand_dims(x, axis=axis + 1)
    shape = [1] * x.ndim
    shape[axis + 1] = 8
    bits = (x >> xp.asarray(shifts.astype(np.uint8).reshape(shape),
                            device=x._device)) & 1
    new = list(bits.shape)
    new[axis:axis + 2] = [new[axis] * 8]
    bits = ops.astype(ops.reshape(bits, tuple(new)), np.uint8)
    if count is not None:
        count = operator.index(count)
        total = new[axis]
        keep = count if count >= 0 else max(total + count, 0)
        index = [slice(None)] * bits.ndim
        index[axis] = slice(0, min(keep, total))
        bits = bits[tuple(index)]
        if keep > total:
            pad = list(bits.shape)
            pad[axis] = keep - total
            bits = xp.concat((bits, xp.zeros(tuple(pad), dtype=np.uint8,
                                             device=x._device)), axis=axis)
    return bits


def packbits(a, /, axis=None, bitorder="big"):
    xp = _xp()
    x = _array(a)
    if x.dtype.kind not in "biu":
        raise errors.TypingError(
            "Expected an input array of integer or boolean data type")
    x, axis = _bit_axis(x, axis)
    x = ops.astype(x != 0, np.uint8)
    n = x.shape[axis]
    whole = -(-n // 8) * 8
    if whole != n:
        pad = list(x.shape)
        pad[axis] = whole - n
        x = xp.concat((x, xp.zeros(tuple(pad), dtype=np.uint8,
                                   device=x._device)), axis=axis)
    shape = list(x.shape)
    shape[axis:axis + 1] = [whole // 8, 8]
    x = ops.reshape(x, tuple(shape))
    weights = (1 << (np.arange(7, -1, -1) if bitorder == "big"
                     else np.arange(8))).astype(np.uint8)
    wshape = [1] * x.ndim
    wshape[axis + 1] = 8
    packed = (x * xp.asarray(weights.reshape(wshape), device=x._device)).sum(
        axis=axis + 1, dtype=np.uint8)
    return ops.astype(packed, np.uint8)


# --------------------------------------------------------------------------
# Tensor solves

def tensorsolve(a, b, axes=None):
    xp = _xp()
    device = _device_of(a, b)
    a, b = _array(a, device), _array(b, device)
    an = a.ndim
    if axes is not None:
        order = list(range(an))
        for k in axes:
            order.remove(k)
            order.insert(an, k)
        a = xp.permute_dims(a, tuple(order))
    old = tuple(a.shape[-(an - b.ndim):])
    size = int(np.prod(old, dtype=np.int64))
    if a.size != size ** 2:
        raise errors.LinAlgError(
            "Input arrays must satisfy the requirement "
            "prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])")
    x = np.linalg.solve(ops.reshape(a, (size, size)), ops.reshape(b, -1))
    return ops.reshape(x, old)


def tensorinv(a, ind=2):
    a = _array(a)
    if ind <= 0:
        raise errors.InvalidArgumentError("Invalid ind argument.")
    old = tuple(a.shape)
    size = int(np.prod(old[ind:], dtype=np.int64))
    inverse = np.linalg.inv(ops.reshape(a, (size, -1)))
    return ops.reshape(inverse, old[ind:] + old[:ind])


def functions():
    """NumPy function -> its DeviceArray version (for __array_function__)."""
    return {
        np.i0: i0, np.linspace: linspace, np.logspace: logspace,
        np.geomspace: geomspace, np.shares_memory: shares_memory,
        np.trim_zeros: trim_zeros, np.packbits: packbits,
        np.unpackbits: unpackbits, np.linalg.tensorsolve: tensorsolve,
        np.linalg.tensorinv: tensorinv,
    }


# --------------------------------------------------------------------------
# NumPy's creation functions called with like= a DeviceArray (NEP 35):
# the array on like's device

def _with_order(x, order):
    return ops._copy_method(x, "F") if order == "F" and x.ndim > 1 else x


def _like_array(like, obj, dtype=None, *, copy=True, order="K",
                subok=False, ndmin=0):
    x = _xp().asarray(obj, dtype=dtype, device=like._device,
                      copy=True if copy else None)
    if x.ndim < ndmin:
        x = ops.reshape(x, (1,) * (ndmin - x.ndim) + tuple(x.shape))
    return _with_order(x, order)


def _like_asarray(like, a, dtype=None, order=None, *, device=None,
                  copy=None):
    return _with_order(_xp().asarray(a, dtype=dtype, device=like._device,
                                     copy=copy), order)


def _like_contiguous(order):
    def function(like, a, dtype=None):
        x = _xp().asarray(a, dtype=dtype, device=like._device)
        want = "c_contiguous" if order == "C" else "f_contiguous"
        if x.ndim == 0:
            x = ops.reshape(x, (1,))  # (NumPy's: at least 1-d)
        return x if getattr(x.flags, want) else ops._copy_method(x, order)
    return function


def _like_filled(fill):
    def function(like, shape, dtype=float, order="C", *, device=None):
        x = _xp().full(shape, fill, dtype=dtype, device=like._device)
        return _with_order(x, order)
    return function


def _like_full(like, shape, fill_value, dtype=None, order="C", *,
               device=None):
    if dtype is None:
        dtype = np.asarray(fill_value.asnumpy() if isinstance(
            fill_value, DeviceArray) else fill_value).dtype
    x = _xp().full(shape, fill_value, dtype=dtype, device=like._device)
    return _with_order(x, order)


def _like_arange(like, *args, dtype=None, device=None, **kwargs):
    return _xp().arange(*args, dtype=dtype, device=like._device, **kwargs)


def _like_eye(like, N, M=None, k=0, dtype=float, order="C", *,
              device=None):
    return _with_order(_xp().eye(N, M, k=k, dtype=dtype,
                                 device=like._device), order)


def _like_identity(like, n, dtype=None):
    return _xp().eye(n, dtype=float if dtype is None else dtype,
                     device=like._device)


def _like_tri(like, N, M=None, k=0, dtype=float):
    xp = _xp()
    return xp.tril(xp.ones((N, N if M is None else M), dtype=dtype,
                           device=like._device), k=k)


def _like_fromfunction(like, function, shape, *, dtype=float, **kwargs):
    xp = _xp()
    axes = [xp.arange(n, dtype=dtype, device=like._device) for n in shape]
    return function(*xp.meshgrid(*axes, indexing="ij"), **kwargs)


def _like_host(numpy_function):
    """A reader of host data (files, bytes, iterators): NumPy's, then the
    result onto like's device."""
    def function(like, *args, **kwargs):
        return _xp().asarray(numpy_function(*args, **kwargs),
                             device=like._device)
    return function


def fold_inverse(name, x, axis, keepdims):
    """np.subtract.reduce and np.divide.reduce: NumPy folds left to right,
    x0 - x1 - x2 ..., which is x0 - (x1 + x2 + ...) (x0 / (x1 * x2 ...)),
    to rounding."""
    import spirjit as xp
    if axis is None:
        if x.ndim > 1:
            raise errors.InvalidArgumentError(
                f"reduction operation '{name}' is not reorderable, so at "
                f"most one axis may be specified")
        axis = 0
    axis = ops.normalize_axes(x, axis)[0]
    if x.shape[axis] == 0:
        raise errors.InvalidArgumentError(
            f"zero-size array to reduction operation {name} which has no "
            f"identity")
    if name == "divide" and x.dtype.kind in "biu":
        x = ops.astype(x, np.float64)
    first = xp.take(x, xp.asarray([0], device=x.device), axis=axis)
    rest = xp.moveaxis(xp.moveaxis(x, axis, 0)[1:], 0, axis)
    if name == "subtract":
        result = first - xp.sum(rest, axis=axis, keepdims=True,
                                dtype=x.dtype)
    else:
        result = first / xp.prod(rest, axis=axis, keepdims=True)
    return result if keepdims else xp.squeeze(result, axis=axis)


@functools.lru_cache(maxsize=None)
def like_functions():
    """NumPy creation function -> its version given the like= DeviceArray
    first (``__array_function__`` is called on like); made once."""
    return {
        np.array: _like_array, np.asarray: _like_asarray,
        np.asanyarray: _like_asarray,
        np.ascontiguousarray: _like_contiguous("C"),
        np.asfortranarray: _like_contiguous("F"),
        np.empty: _like_filled(0), np.zeros: _like_filled(0),
        np.ones: _like_filled(1), np.full: _like_full,
        np.arange: _like_arange, np.eye: _like_eye,
        np.identity: _like_identity, np.tri: _like_tri,
        np.fromfunction: _like_fromfunction,
        np.frombuffer: _like_host(np.frombuffer),
        np.fromiter: _like_host(np.fromiter),
        np.fromstring: _like_host(np.fromstring),
        np.fromfile: _like_host(np.fromfile),
        np.loadtxt: _like_host(np.loadtxt),
        np.genfromtxt: _like_host(np.genfromtxt),
    }
