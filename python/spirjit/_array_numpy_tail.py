"""The long tail of NumPy's functions on DeviceArrays, each composed from
spirjit's own operations (views, fused elementwise expressions,
reductions, sorts, searchsorted, gathers and concatenation) so that it
runs on the array's device: ``np.fliplr``, ``np.flipud``, ``np.rot90``,
``np.append``, ``np.insert`` (one index), ``np.delete``, ``np.resize``,
``np.ediff1d``, ``np.trapezoid``, ``np.correlate``, ``np.inner``,
``np.vander``, ``np.angle``, ``np.sinc``, ``np.real_if_close``,
``np.select``, ``np.copyto``, ``np.putmask``, ``np.lexsort``,
``np.digitize``, ``np.triu_indices_from``, ``np.tril_indices_from``.

Contract: ``functions()`` maps each NumPy function to its DeviceArray
version with NumPy's signature, defaults, dtypes and answers; an option
spirjit does not implement raises ``NotSupportedError`` naming it. Where
NumPy decides something from the values (``digitize``'s direction,
``real_if_close``), one value is read back, as NumPy reads it.
"""

import math
import numbers
import operator

import numpy as np

from . import _array_ops as ops
from . import errors
from ._array_api import _array, _device_of
from ._array_statistics import _xp
from ._spirjit import DeviceArray


# --------------------------------------------------------------------------
# Rearranging

def fliplr(m):
    x = _array(m)
    if x.ndim < 2:
        raise errors.InvalidArgumentError("Input must be >= 2-d.")
    return _xp().flip(x, axis=1)


def flipud(m):
    x = _array(m)
    if x.ndim < 1:
        raise errors.InvalidArgumentError("Input must be >= 1-d.")
    return _xp().flip(x, axis=0)


def rot90(m, k=1, axes=(0, 1)):
    """Views: a flip and a transpose, as NumPy's."""
    xp, x = _xp(), _array(m)
    axes = tuple(axes)
    if len(axes) != 2:
        raise errors.InvalidArgumentError("len(axes) must be 2.")
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == x.ndim:
        raise errors.InvalidArgumentError("Axes must be different.")
    if not all(-x.ndim <= a < x.ndim for a in axes):
        raise errors.InvalidArgumentError(
            f"Axes={axes} out of range for array of ndim={x.ndim}.")
    first, second = (a % x.ndim for a in axes)
    k %= 4
    if k == 0:
        return x[...]
    if k == 2:
        return xp.flip(xp.flip(x, axis=first), axis=second)
    order = list(range(x.ndim))
    order[first], order[second] = order[second], order[first]
    if k == 1:
        return xp.permute_dims(xp.flip(x, axis=second), tuple(order))
    return xp.flip(xp.permute_dims(x, tuple(order)), axis=second)


def _flat_axis(x, axis):
    """(x, axis), flattened first where axis is None (NumPy's)."""
    if axis is None:
        return ops.reshape(x, -1), 0
    return x, ops.normalize_axis(axis, x.ndim)


def append(arr, values, axis=None):
    xp = _xp()
    device = _device_of(arr, values)
    x, v = _array(arr, device), _array(values, device)
    if axis is None:
        x, v = ops.reshape(x, -1), ops.reshape(v, -1)
        axis = 0
    return xp.concat([x, v], axis=axis)


def _host_indices(obj, function):
    if isinstance(obj, DeviceArray):
        raise errors.NotSupportedError(
            f"numpy.{function} takes its indices from the host (a list, a "
            "slice or a NumPy array); pass obj.asnumpy() to use a "
            "DeviceArray's")
    return obj


def delete(arr, obj, axis=None):
    """The kept indices found on the host from ``obj``, then one gather."""
    xp = _xp()
    x, axis = _flat_axis(_array(arr), axis)
    n = x.shape[axis]
    obj = _host_indices(obj, "delete")
    keep = np.ones(n, bool)
    if isinstance(obj, slice):
        keep[obj] = False
    else:
        index = np.asarray(obj)
        if index.dtype == bool:
            if index.shape != (n,):
                raise errors.InvalidArgumentError(
                    f"boolean array argument obj to delete must be one "
                    f"dimensional and match the axis length of {n}")
            keep = ~index
        else:
            if index.size and index.dtype.kind not in "iu":
                raise IndexError("arrays used as indices must be of integer "
                                 "(or boolean) type")
            bad = index[(index < -n) | (index >= n)]
            if bad.size:
                raise IndexError(f"index {int(bad.flat[0])} is out of bounds "
                                 f"for axis {axis} with size {n}")
            keep[index.astype(np.intp)] = False
    kept = xp.asarray(np.flatnonzero(keep), device=x._device)
    return xp.take(x, kept, axis=axis)


def insert(arr, obj, values, axis=None):
    """At one index: the values as a block along the axis (NumPy's)."""
    xp = _xp()
    device = _device_of(arr, values)
    x, axis = _flat_axis(_array(arr, device), axis)
    if not isinstance(_host_indices(obj, "insert"), numbers.Integral):
        raise errors.NotSupportedError(
            "numpy.insert on DeviceArrays takes one integer index; insert "
            "at several places by concatenating slices")
    n = x.shape[axis]
    at = operator.index(obj)
    if not -n <= at <= n:
        raise IndexError(f"index {at} is out of bounds for axis {axis} "
                         f"with size {n}")
    if at < 0:
        at += n
    v = ops.astype(_array(values, device), x.dtype)
    if v.ndim == 0 or x.ndim == 1:
        shape = list(x.shape)
        shape[axis] = 1 if v.ndim == 0 else v.size
        v = xp.broadcast_to(ops.reshape(v, (-1,) if x.ndim == 1 else ()),
                            tuple(shape))
    elif v.ndim == x.ndim and v.shape[axis] == 1:
        shape = list(x.shape)
        shape[axis] = 1
        v = xp.broadcast_to(v, tuple(shape))
    else:
        raise errors.NotSupportedError(
            "numpy.insert of an array of values into a multi-dimensional "
            "DeviceArray is not supported; concatenate slices instead")
    index = [slice(None)] * x.ndim
    index[axis] = slice(None, at)
    before = x[tuple(index)]
    index[axis] = slice(at, None)
    return xp.concat([before, v, x[tuple(index)]], axis=axis)


def resize(a, new_shape):
    """x's elements repeated in order to fill ``new_shape``: one gather."""
    xp = _xp()
    x = ops.reshape(_array(a), -1)
    shape = (operator.index(new_shape),) \
        if isinstance(new_shape, numbers.Integral) else \
        tuple(operator.index(s) for s in new_shape)
    if any(s < 0 for s in shape):
        raise errors.InvalidArgumentError(
            "all elements of `new_shape` must be non-negative")
    n = math.prod(shape)
    if x.size == 0 or n == 0:
        return xp.zeros(shape, dtype=x.dtype, device=x.device)
    index = xp.arange(n, device=x.device) % x.size
    return ops.reshape(xp.take(x, index), shape)


# --------------------------------------------------------------------------
# Differences, integrals and products

def ediff1d(ary, to_end=None, to_begin=None):
    xp = _xp()
    x = ops.reshape(_array(ary), -1)

    def extra(values, name):
        e = ops.reshape(_array(values, x._device), -1)
        if not np.can_cast(e.dtype, x.dtype, "same_kind"):
            raise TypeError(f"dtype of `{name}` must be compatible with "
                            "input `ary` under the `same_kind` rule.")
        return [ops.astype(e, x.dtype)]
    parts = (extra(to_begin, "to_begin") if to_begin is not None else []) + \
        [ops.astype(x[1:] - x[:-1], x.dtype)] + \
        (extra(to_end, "to_end") if to_end is not None else [])
    return xp.concat(parts) if len(parts) > 1 else parts[0]


def trapezoid(y, x=None, dx=1.0, axis=-1):
    xp = _xp()
    device = _device_of(y, x)
    values = _array(y, device)
    axis = ops.normalize_axis(axis, values.ndim)
    upper = [slice(None)] * values.ndim
    lower = [slice(None)] * values.ndim
    upper[axis], lower[axis] = slice(1, None), slice(None, -1)
    if x is None:
        step = dx
    else:
        at = _array(x, device)
        if at.ndim == 1:
            step = at[1:] - at[:-1]
            shape = [1] * values.ndim
            shape[axis] = step.shape[0]
            step = ops.reshape(step, tuple(shape))
        else:
            step = xp.diff(at, axis=axis)
    pairs = values[tuple(upper)] + values[tuple(lower)]
    return (step * pairs / 2.0).sum(axis=axis)


def correlate(a, v, mode="valid"):
    """NumPy's correlate: convolve with v reversed and conjugated."""
    from ._array_numpy_more import convolve
    device = _device_of(a, v)
    k = _array(v, device)
    if k.ndim != 1:
        raise errors.InvalidArgumentError("object too deep for desired array")
    k = _xp().flip(k)
    if k.dtype.kind == "c":
        k = np.conjugate(k)
    return convolve(_array(a, device), k, mode)


def inner(a, b):
    xp = _xp()
    device = _device_of(a, b)
    x, y = _array(a, device), _array(b, device)
    if x.ndim == 0 or y.ndim == 0:
        return x * y
    if x.shape[-1] != y.shape[-1]:
        raise errors.InvalidArgumentError(
            f"shapes {x.shape} and {y.shape} not aligned: {x.shape[-1]} "
            f"(dim {x.ndim - 1}) != {y.shape[-1]} (dim {y.ndim - 1})")
    return xp.tensordot(x, y, axes=((x.ndim - 1,), (y.ndim - 1,)))


def vander(x, N=None, increasing=False):
    xp = _xp()
    v = _array(x)
    if v.ndim != 1:
        raise errors.InvalidArgumentError(
            "x must be a one-dimensional array or sequence.")
    columns = v.shape[0] if N is None else operator.index(N)
    powers = xp.arange(columns, dtype=np.int64, device=v.device)
    if not increasing:
        powers = xp.flip(powers)
    # NumPy's dtype: x's promoted with the default integer.
    dtype = np.promote_types(v.dtype, np.int64)
    return ops.astype(v, dtype)[:, None] ** ops.astype(powers, dtype)[None, :]


# --------------------------------------------------------------------------
# Elementwise helpers

def angle(z, deg=False):
    x = _array(z)
    if x.dtype.kind == "c":
        result = np.arctan2(x.imag, x.real)
    else:
        result = np.arctan2(0, x)
    return result * (180 / np.pi) if deg else result


def sinc(x):
    xp, v = _xp(), _array(x)
    y = np.pi * xp.where(v == 0, 1.0e-20, v)
    return np.sin(y) / y


def real_if_close(a, tol=100):
    x = _array(a)
    if x.dtype.kind != "c":
        return x
    if tol > 1:
        tol = np.finfo(x.dtype).eps * tol
    if bool((np.absolute(x.imag) < tol).all()):
        return x.real
    return x


def select(condlist, choicelist, default=0):
    """The first true condition's choice at each place, else ``default``:
    one fused expression of nested wheres."""
    xp = _xp()
    if len(condlist) != len(choicelist):
        raise errors.InvalidArgumentError(
            "list of cases must be same length as list of conditions")
    if len(condlist) == 0:
        raise errors.InvalidArgumentError(
            "select with an empty condition list is not possible")
    device = _device_of(*condlist, *choicelist, default)
    conditions = [_array(c, device) for c in condlist]
    for i, c in enumerate(conditions):
        if c.dtype != np.bool_:
            raise TypeError(f"invalid entry {i} in condlist: should be "
                            "boolean ndarray")
    choices = [c if isinstance(c, (numbers.Number, np.generic))
               else _array(c, device) for c in choicelist]
    result = default
    for condition, choice in zip(reversed(conditions), reversed(choices)):
        result = xp.where(condition, choice, result)
    return result


def copyto(dst, src, casting="same_kind", where=True):
    if not isinstance(dst, DeviceArray):
        raise errors.NotSupportedError(
            "numpy.copyto into a NumPy array from a DeviceArray: copy the "
            "DeviceArray to the host first (np.asarray(src))")
    if isinstance(src, (numbers.Number, np.generic)) and \
            not isinstance(src, DeviceArray):
        # NumPy's own check of a scalar against the dtype (casting rule,
        # Python integers out of range).
        np.copyto(np.empty((), dst.dtype), src, casting=casting)
        value = src
    else:
        value = _array(src, dst._device)
        if not np.can_cast(value.dtype, dst.dtype, casting):
            raise TypeError(
                f"Cannot cast array data from dtype('{value.dtype}') to "
                f"dtype('{dst.dtype}') according to the rule '{casting}'")
    if where is True:
        dst[...] = value
    else:
        dst[...] = _xp().where(_array(where, dst._device), value, dst)


def putmask(a, mask, values):
    """a[mask] = values, the values taken in order of a's elements and
    repeated as needed (NumPy's): one gather and one fused store."""
    xp = _xp()
    if not isinstance(a, DeviceArray):
        raise errors.NotSupportedError(
            "numpy.putmask into a NumPy array: copy the DeviceArray to the "
            "host first")
    m = _array(mask, a._device)
    if m.size != a.size:
        raise errors.InvalidArgumentError(
            "putmask: mask and data must be the same size")
    v = ops.reshape(_array(values, a._device), -1)
    if v.size == 0:
        return
    if v.size != a.size:
        v = xp.take(v, xp.arange(a.size, device=a.device) % v.size)
    v = ops.astype(ops.reshape(v, a.shape), a.dtype)
    a[...] = xp.where(ops.reshape(m, a.shape), v, a)


# --------------------------------------------------------------------------
# Sorting and searching

def lexsort(keys, axis=-1):
    """Stable sorts by each key from the first to the last (the last is
    the primary key), each through the order so far."""
    xp = _xp()
    if isinstance(keys, DeviceArray):
        keys = [keys[i] for i in range(keys.shape[0])]
    keys = list(keys)
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    device = _device_of(*keys)
    keys = [_array(k, device) for k in keys]
    order = xp.argsort(keys[0], axis=axis, stable=True)
    for key in keys[1:]:
        if key.shape != order.shape:
            raise errors.InvalidArgumentError(
                "all keys need to be the same shape")
        moved = xp.take_along_axis(key, order, axis=axis)
        order = xp.take_along_axis(
            order, xp.argsort(moved, axis=axis, stable=True), axis=axis)
    return order


def digitize(x, bins, right=False):
    xp = _xp()
    device = _device_of(x, bins)
    edges = _array(bins, device)
    values = _array(x, device)
    if edges.ndim != 1:
        raise errors.InvalidArgumentError("object too deep for desired array")
    if values.dtype.kind == "c":
        raise TypeError("x may not be complex")
    rising = edges.shape[0] < 2 or bool((edges[1:] >= edges[:-1]).all())
    if not rising and not bool((edges[1:] <= edges[:-1]).all()):
        raise errors.InvalidArgumentError(
            "bins must be monotonically increasing or decreasing")
    side = "left" if right else "right"
    if rising:
        return xp.searchsorted(edges, values, side=side)
    return edges.shape[0] - xp.searchsorted(xp.flip(edges), values,
                                            side=side)


def _triangle_indices(lower):
    def indices_from(arr, k=0):
        xp = _xp()
        x = _array(arr)
        if x.ndim != 2:
            raise errors.InvalidArgumentError("input array must be 2-d")
        ones = xp.ones(x.shape, dtype=np.bool_, device=x.device)
        part = xp.tril(ones, k=k) if lower else xp.triu(ones, k=k)
        return xp.nonzero(part)
    indices_from.__name__ = f"{'tril' if lower else 'triu'}_indices_from"
    return indices_from


def sort_complex(a):
    """Sorted as complex numbers (real parts, then imaginary ones), in
    NumPy's complex dtype for the input's."""
    x = _array(a)
    ordered = _xp().sort(x, axis=-1)
    if x.dtype.kind == "c":
        return ordered
    target = np.complex64 if x.dtype.char in "bhBH" else np.complex128
    return ops.astype(ordered, target)


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """NumPy's least-squares fit: the Vandermonde matrix with its columns
    scaled to unit norm, solved by lstsq, the coefficients scaled back."""
    for name, value in (("full", full), ("w", w), ("cov", cov)):
        if value is not None and value is not False:
            raise errors.NotSupportedError(
                f"numpy.polyfit({name}=...) on DeviceArrays is not supported")
    xp = _xp()
    device = _device_of(x, y)
    xs, ys = _array(x, device), _array(y, device)
    deg = operator.index(deg)
    if deg < 0:
        raise errors.InvalidArgumentError("expected deg >= 0")
    if xs.ndim != 1:
        raise errors.TypingError("expected 1D vector for x")
    if xs.size == 0:
        raise errors.TypingError("expected non-empty vector for x")
    if ys.ndim < 1 or ys.ndim > 2:
        raise errors.TypingError("expected 1D or 2D array for y")
    if xs.shape[0] != ys.shape[0]:
        raise errors.TypingError("expected x and y to have same length")
    xs = ops.astype(xs, np.result_type(xs.dtype, np.float64))
    ys = ops.astype(ys, np.result_type(ys.dtype, np.float64))
    if rcond is None:
        rcond = xs.shape[0] * np.finfo(xs.dtype).eps
    lhs = np.vander(xs, deg + 1)
    scale = xp.sqrt((lhs * lhs).sum(axis=0))
    lhs = lhs / scale
    c = np.linalg.lstsq(lhs, ys, rcond=rcond)[0]
    return (c.T / scale).T


def functions():
    """NumPy function -> its DeviceArray version (for __array_function__)."""
    return {
        np.fliplr: fliplr,
        np.flipud: flipud,
        np.rot90: rot90,
        np.append: append,
        np.insert: insert,
        np.delete: delete,
        np.resize: resize,
        np.ediff1d: ediff1d,
        np.correlate: correlate,
        np.inner: inner,
        np.vander: vander,
        np.angle: angle,
        np.sinc: sinc,
        np.real_if_close: real_if_close,
        np.select: select,
        np.copyto: copyto,
        np.putmask: putmask,
        np.lexsort: lexsort,
        np.digitize: digitize,
        np.sort_complex: sort_complex,
        np.polyfit: polyfit,
        np.triu_indices_from: _triangle_indices(False),
        np.tril_indices_from: _triangle_indices(True),
        # (NumPy 2's name; NumPy 1 has np.trapz)
        getattr(np, "trapezoid", None) or np.trapz: trapezoid,
    }
