"""NumPy's set routines and index helpers on DeviceArrays, each composed
from spirjit's own operations (unique, sorts, searchsorted, compaction,
gathers, scatters, views and fused elementwise expressions) so that it
runs on the array's device: ``np.intersect1d``, ``np.union1d``,
``np.setdiff1d``, ``np.setxor1d``; ``np.compress``, ``np.extract``,
``np.place``, ``np.choose``, ``np.put_along_axis``, ``np.fill_diagonal``,
``np.diag_indices_from``, ``np.diagflat``, ``np.ravel_multi_index``,
``np.ix_``, ``np.piecewise``, ``np.apply_along_axis`` (the user's
functions get DeviceArrays, so they compute on the device); ``np.hsplit``, ``np.vsplit``, ``np.dsplit``, ``np.rollaxis``,
``np.block``; ``np.linalg.multi_dot``; ``np.array_equiv``,
``np.may_share_memory``, ``np.result_type``, ``np.can_cast``.

Contract: ``functions()`` maps each NumPy function to its DeviceArray
version with NumPy's signature, defaults, dtypes, answers and errors
(exception class and message); an option spirjit does not implement
raises ``NotSupportedError`` naming it. Where NumPy checks values
(``choose`` and ``ravel_multi_index`` in mode 'raise', ``compress``'s
condition beyond the axis) one boolean is read back, as NumPy reads it.
"""

import numbers
import operator

import numpy as np

from . import _array_ops as ops
from . import _array_primitives as prims
from . import errors
from ._array_api import _array, _device_of
from ._array_statistics import _xp
from ._spirjit import DeviceArray


def _flat(x):
    return ops.reshape(x, -1)


# --------------------------------------------------------------------------
# Sets (NumPy's algorithms: sorted, with neighbours compared)

def _unique(x):
    return np.unique(_flat(x))


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    xp = _xp()
    device = _device_of(ar1, ar2)
    a, b = _flat(_array(ar1, device)), _flat(_array(ar2, device))
    if not assume_unique:
        if return_indices:
            a, ia = np.unique(a, return_index=True)
            b, ib = np.unique(b, return_index=True)
        else:
            a, b = np.unique(a), np.unique(b)
    both = xp.concat((a, b))
    if return_indices:
        order = np.argsort(both, kind="stable")
        both = prims.take(both, order, 0)
    else:
        both = prims.sort(both, 0)
    same = both[1:] == both[:-1]
    common = both[:-1][same]
    if not return_indices:
        return common
    first = order[:-1][same]
    second = order[1:][same] - a.shape[0]
    if not assume_unique:
        first, second = prims.take(ia, first, 0), prims.take(ib, second, 0)
    return common, first, second


def union1d(ar1, ar2):
    device = _device_of(ar1, ar2)
    return np.unique(_xp().concat((_flat(_array(ar1, device)),
                                   _flat(_array(ar2, device)))))


def setdiff1d(ar1, ar2, assume_unique=False):
    device = _device_of(ar1, ar2)
    a, b = _array(ar1, device), _array(ar2, device)
    a = _flat(a) if assume_unique else _unique(a)
    if not assume_unique:
        b = _unique(b)
    return a[np.isin(a, b, invert=True)]


def setxor1d(ar1, ar2, assume_unique=False):
    xp = _xp()
    device = _device_of(ar1, ar2)
    a, b = _array(ar1, device), _array(ar2, device)
    if not assume_unique:
        a, b = _unique(a), _unique(b)
    both = xp.concat((_flat(a), _flat(b)))
    if both.shape[0] == 0:
        return both
    both = prims.sort(both, 0)
    edge = xp.ones((1,), dtype=np.bool_, device=both._device)
    differs = xp.concat((edge, both[1:] != both[:-1], edge))
    return both[differs[1:] & differs[:-1]]


# --------------------------------------------------------------------------
# Selecting and writing by condition or index

def _condition(condition, device):
    c = _flat(_array(condition, device))
    return c if c.dtype == np.bool_ else ops.astype(c, np.bool_)


def compress(condition, a, axis=None, out=None):
    if out is not None:
        raise errors.NotSupportedError(
            "numpy.compress(out=...) on DeviceArrays is not supported; "
            "assign the result instead")
    x = _array(a)
    if axis is None:
        x, axis = _flat(x), 0
    axis = operator.index(axis)
    if not -x.ndim <= axis < x.ndim:
        raise errors.ArrayAxisError(
            f"axis {axis} is out of bounds for array of dimension {x.ndim}")
    axis %= x.ndim
    c = _condition(condition, x._device)
    length = x.shape[axis]
    if c.shape[0] > length:
        if bool(c[length:].any()):
            raise errors.ArrayIndexError(
                f"index {length} is out of bounds for axis {axis} with "
                f"size {length}")
        c = c[:length]
    return prims.take(x, prims.nonzero(c)[0], axis)


def extract(condition, arr):
    x = _flat(_array(arr))
    return prims.take(x, prims.nonzero(_condition(condition, x._device))[0],
                      0)


def place(arr, mask, vals):
    if not isinstance(arr, DeviceArray):
        raise errors.TypingError("argument 1 must be a DeviceArray")
    where = _array(mask, arr._device)
    if where.shape != arr.shape:
        raise errors.InvalidArgumentError(
            "place: mask and data must be the same size")
    chosen = prims.nonzero(_flat(where) if where.dtype == np.bool_ else
                           _flat(ops.astype(where, np.bool_)))[0]
    count = chosen.shape[0]
    values = _flat(_array(vals, arr._device))
    if count == 0:
        return None
    if values.shape[0] == 0:
        raise errors.InvalidArgumentError("Cannot insert from an empty array!")
    xp = _xp()
    cycle = xp.arange(count, dtype=np.int64, device=arr._device) % \
        values.shape[0]
    arr[np.unravel_index(chosen, arr.shape)] = prims.take(values, cycle, 0)
    return None


def choose(a, choices, out=None, mode="raise"):
    if out is not None:
        raise errors.NotSupportedError(
            "numpy.choose(out=...) on DeviceArrays is not supported; "
            "assign the result instead")
    if mode not in ("raise", "wrap", "clip"):
        raise errors.InvalidArgumentError(
            f"clipmode must be one of 'clip', 'raise', or 'wrap' (got "
            f"{mode!r})")
    xp = _xp()
    device = _device_of(a, *choices)
    index = _array(a, device)
    if index.dtype.kind not in "biu":
        raise errors.TypingError(
            "Cannot cast array data from dtype(" +
            repr(str(index.dtype)) + ") to dtype('int64') according to the "
            "rule 'safe'")
    options = [_array(c, device) for c in choices]
    n = len(options)
    if n == 0:
        raise errors.InvalidArgumentError("0-length sequence.")
    if mode == "raise":
        if bool(((index < 0) | (index >= n)).any()):
            raise errors.InvalidArgumentError("invalid entry in choice array")
    elif mode == "wrap":
        index = index % n
    else:
        index = xp.clip(index, 0, n - 1)
    dtype = np.result_type(*(c.dtype for c in options))
    shape = np.broadcast_shapes(index.shape, *(c.shape for c in options))
    result = xp.broadcast_to(ops.astype(options[0], dtype), shape)
    for k in range(1, n):
        result = ops.where(index == k, options[k], result)
    return ops.astype(result, dtype)


def _axis_grid(shape, axis, device):
    """Index arrays selecting every position of ``shape`` but along
    ``axis`` (NumPy's fancy-index form of take_along_axis)."""
    xp = _xp()
    grid = []
    for d, n in enumerate(shape):
        if d == axis:
            grid.append(None)
            continue
        view = [1] * len(shape)
        view[d] = n
        grid.append(ops.reshape(xp.arange(n, dtype=np.int64, device=device),
                                tuple(view)))
    return grid


def put_along_axis(arr, indices, values, axis):
    if not isinstance(arr, DeviceArray):
        raise errors.TypingError("argument 1 must be a DeviceArray")
    device = arr._device
    index = _array(indices, device)
    if axis is None:
        if index.ndim != 1:
            raise errors.InvalidArgumentError(
                "when axis=None, `indices` must have a single dimension.")
        arr[np.unravel_index(index, arr.shape)] = values  # arr.flat's
        return None
    axis = operator.index(axis)
    if not -arr.ndim <= axis < arr.ndim:
        raise errors.ArrayAxisError(
            f"axis {axis} is out of bounds for array of dimension "
            f"{arr.ndim}")
    axis %= arr.ndim
    if index.ndim != arr.ndim:
        raise errors.InvalidArgumentError(
            "`indices` and `arr` must have the same number of dimensions")
    if index.dtype.kind not in "iu":
        raise errors.ArrayIndexError("`indices` must be an integer array")
    grid = _axis_grid(index.shape, axis, device)
    grid[axis] = index
    shape = np.broadcast_shapes(*(g.shape for g in grid))
    arr[tuple(_xp().broadcast_to(g, shape) for g in grid)] = values
    return None


def fill_diagonal(a, val, wrap=False):
    if not isinstance(a, DeviceArray):
        raise errors.TypingError("argument 1 must be a DeviceArray")
    if a.ndim < 2:
        raise errors.InvalidArgumentError("array must be at least 2-d")
    xp = _xp()
    if a.ndim == 2:
        rows, cols = a.shape
        step, end = cols + 1, (a.size if wrap else cols * cols)
    else:
        if len(set(a.shape)) != 1:
            raise errors.InvalidArgumentError(
                "All dimensions of input must be of equal length")
        step = 1 + int(np.cumprod(a.shape[:-1]).sum())
        end = a.size
    flat = xp.arange(0, min(end, a.size), step, dtype=np.int64,
                     device=a._device)
    count = flat.shape[0]
    if count == 0:
        return None
    values = _flat(_array(val, a._device))
    if values.shape[0] == 0:
        return None
    if values.shape[0] != 1:
        cycle = xp.arange(count, dtype=np.int64, device=a._device) % \
            values.shape[0]
        values = prims.take(values, cycle, 0)
    a[np.unravel_index(flat, a.shape)] = ops.astype(values, a.dtype)
    return None


def diag_indices_from(arr):
    x = _array(arr)
    if x.ndim < 2:
        raise errors.InvalidArgumentError("input array must be at least 2-d")
    if len(set(x.shape)) != 1:
        raise errors.InvalidArgumentError(
            "All dimensions of input must be of equal length")
    index = _xp().arange(x.shape[0], dtype=np.int64, device=x._device)
    return (index,) * x.ndim


def diagflat(v, k=0):
    return np.diag(_flat(_array(v)), k)


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    dims = (operator.index(dims),) if isinstance(dims, numbers.Integral) \
        else tuple(operator.index(d) for d in dims)
    parts = list(multi_index)
    if len(parts) != len(dims):
        raise errors.InvalidArgumentError(
            f"parameter multi_index must be a sequence of length "
            f"{len(dims)}")
    device = _device_of(*parts)
    parts = [_array(p, device) for p in parts]
    for p in parts:
        if p.dtype.kind not in "iu":
            raise errors.TypingError(
                "only int indices permitted")
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    if order not in ("C", "F"):
        raise errors.InvalidArgumentError("only 'C' or 'F' order is permitted")
    xp = _xp()
    strides, running = [0] * len(dims), 1
    for d in (reversed(range(len(dims))) if order == "C" else
              range(len(dims))):
        strides[d] = running
        running *= dims[d]
    total = None
    for p, n, m, s in zip(parts, dims, modes, strides):
        p = ops.astype(p, np.int64)
        if m == "raise":
            if bool(((p < 0) | (p >= n)).any()):
                raise errors.InvalidArgumentError(
                    "invalid entry in coordinates array")
        elif m == "wrap":
            p = p % n
        elif m == "clip":
            p = xp.clip(p, 0, n - 1)
        else:
            raise errors.InvalidArgumentError(
                f"clipmode must be one of 'clip', 'raise', or 'wrap' (got "
                f"{m!r})")
        term = p * s
        total = term if total is None else total + term
    return total


def ix_(*args):
    out = []
    n = len(args)
    for k, a in enumerate(args):
        x = _array(a)
        if x.ndim != 1:
            raise errors.InvalidArgumentError(
                "Cross index must be 1 dimensional")
        if x.dtype == np.bool_:
            x = prims.nonzero(x)[0]
        shape = [1] * n
        shape[k] = x.shape[0]
        out.append(ops.reshape(x, tuple(shape)))
    return tuple(out)


def piecewise(x, condlist, funclist, *args, **kw):
    """NumPy's: each condition's elements given its function's value of
    them (a callable gets the selected elements as a DeviceArray, so it
    computes on the device) or its constant; one function more than the
    conditions covers the elements no condition holds; the rest are 0."""
    xp = _xp()
    x = _array(x)
    def is_array(c):
        return isinstance(c, (list, np.ndarray)) or (
            isinstance(c, DeviceArray) and c.ndim > 0)
    # NumPy's reading: one condition unless the first item is an array.
    if np.isscalar(condlist) or (isinstance(condlist, DeviceArray) and
                                 condlist.ndim == 0) or \
            (not is_array(condlist[0]) and x.ndim != 0):
        condlist = [condlist]
    conditions = [ops.astype(_array(c, x._device), np.bool_)
                  if not (isinstance(c, DeviceArray) and c.dtype == np.bool_)
                  else c for c in condlist]
    n = len(conditions)
    functions = list(funclist)
    if len(functions) == n + 1:
        otherwise = None
        for c in conditions:
            otherwise = c if otherwise is None else otherwise | c
        conditions.append(~otherwise if otherwise is not None else
                          xp.ones(x.shape, dtype=np.bool_, device=x._device))
    elif len(functions) != n:
        raise errors.InvalidArgumentError(
            f"with {n} condition(s), either {n} or {n + 1} functions are "
            "expected")
    y = xp.zeros(x.shape, dtype=x.dtype, device=x._device)
    for condition, function in zip(conditions, functions):
        condition = xp.broadcast_to(condition, x.shape)
        if callable(function):
            selected = x[condition]
            if selected.shape[0]:
                y[condition] = function(selected, *args, **kw)
        else:
            y[condition] = function
    return y


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """NumPy's: func1d on each 1-D slice along axis (a DeviceArray view,
    so the function computes on the device), the results stacked where
    the axis was."""
    xp = _xp()
    x = _array(arr)
    axis = operator.index(axis)
    if not -x.ndim <= axis < x.ndim:
        raise errors.ArrayAxisError(
            f"axis {axis} is out of bounds for array of dimension {x.ndim}")
    axis %= x.ndim
    moved = np.moveaxis(x, axis, -1)
    outer = tuple(moved.shape[:-1])
    if 0 in outer:
        raise errors.InvalidArgumentError(
            "Cannot apply_along_axis when any iteration dimensions are 0")
    results = [_array(func1d(moved[index], *args, **kwargs), x._device)
               for index in np.ndindex(*outer)]
    stacked = ops.reshape(xp.stack(results), outer + tuple(results[0].shape))
    # The result's own axes go where the slices' axis was.
    inner = results[0].ndim
    order = list(range(len(outer)))
    order[axis:axis] = list(range(len(outer), len(outer) + inner))
    return ops.transpose(stacked, tuple(order))


# --------------------------------------------------------------------------
# Splits, axes and blocks (views and concatenation)

def _split_along(name, least, axis_of):
    def function(ary, indices_or_sections):
        x = _array(ary)
        if x.ndim < least:
            raise errors.InvalidArgumentError(
                f"{name} only works on arrays of {least} or more dimensions"
                if name != "hsplit" else
                "hsplit only works on arrays of 1 or more dimensions")
        return np.split(x, indices_or_sections, axis=axis_of(x))
    function.__name__ = name
    return function


def rollaxis(a, axis, start=0):
    x = _array(a)
    n = x.ndim
    axis = operator.index(axis)
    if not -n <= axis < n:
        raise errors.ArrayAxisError(
            f"axis {axis} is out of bounds for array of dimension {n}")
    axis %= n
    start = operator.index(start)
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        raise errors.ArrayAxisError(
            f"'start' arg requires {-n} <= start < {n + 1}, but {start - n if start < 0 else start} was passed in")
    if axis < start:
        start -= 1
    if axis == start:
        return x[...]
    order = list(range(n))
    order.remove(axis)
    order.insert(start, axis)
    return ops.transpose(x, tuple(order))


def block(arrays):
    """NumPy's block: nested lists concatenated innermost along the last
    axis, each level out along the one before."""
    def depth_of(item, path=()):
        if isinstance(item, tuple):
            raise errors.TypingError(
                f"arrays is a tuple. Only lists can be used to arrange "
                f"blocks, and np.block does not allow implicit conversion "
                f"from tuple to ndarray.")
        if isinstance(item, list):
            if not item:
                raise errors.InvalidArgumentError(
                    f"List at arrays{''.join(f'[{i}]' for i in path)} "
                    "cannot be empty")
            depths = {depth_of(v, path + (i,)) for i, v in enumerate(item)}
            if len(depths) != 1:
                raise errors.InvalidArgumentError(
                    "List depths are mismatched.")
            return depths.pop() + 1
        return 0
    depth = depth_of(arrays)
    leaves = []

    def collect(item):
        if isinstance(item, list):
            for v in item:
                collect(v)
        else:
            leaves.append(item)
    collect(arrays)
    device = _device_of(*leaves)
    ndim = max([depth] + [np.ndim(v) if not isinstance(v, DeviceArray)
                          else v.ndim for v in leaves])
    xp = _xp()

    def build(item, level):
        if not isinstance(item, list):
            x = _array(item, device)
            return ops.reshape(x, (1,) * (ndim - x.ndim) + tuple(x.shape))
        parts = [build(v, level + 1) for v in item]
        return xp.concat(parts, axis=-(depth - level))
    return build(arrays, 0)


def multi_dot(arrays, *, out=None):
    if out is not None:
        raise errors.NotSupportedError(
            "numpy.linalg.multi_dot(out=...) on DeviceArrays is not "
            "supported; assign the result instead")
    device = _device_of(*arrays)
    xs = [_array(a, device) for a in arrays]
    if len(xs) < 2:
        raise errors.InvalidArgumentError("Expecting at least two arrays.")
    first_vector, last_vector = xs[0].ndim == 1, xs[-1].ndim == 1
    if first_vector:
        xs[0] = ops.reshape(xs[0], (1, -1))
    if last_vector:
        xs[-1] = ops.reshape(xs[-1], (-1, 1))
    for x in xs:
        if x.ndim != 2:
            raise errors.LinAlgError(
                f"{x.ndim}-dimensional array given. Array must be "
                "two-dimensional")
    result = _chain(xs)
    if first_vector and last_vector:
        return ops.reshape(result, ())
    if first_vector or last_vector:
        return _flat(result)
    return result


def _chain(xs):
    """The product in the order of fewest multiplications (NumPy's
    dynamic programme over the chain's dimensions)."""
    n = len(xs)
    dims = [x.shape[0] for x in xs] + [xs[-1].shape[1]]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + \
                    dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k

    def product(i, j):
        if i == j:
            return xs[i]
        return product(i, split[i][j]) @ product(split[i][j] + 1, j)
    return product(0, n - 1)


# --------------------------------------------------------------------------
# Questions about arrays

def array_equiv(a1, a2):
    device = _device_of(a1, a2)
    x, y = _array(a1, device), _array(a2, device)
    try:
        np.broadcast_shapes(x.shape, y.shape)
    except ValueError:
        return False
    return bool((x == y).all())


def _span(x):
    low = high = x._offset
    for n, s in zip(x.shape, x.strides):
        if n == 0:
            return None
        reach = (n - 1) * s
        if reach < 0:
            low += reach
        else:
            high += reach
    return low, high + x.itemsize


def may_share_memory(a, b, /, max_work=None):
    if not (isinstance(a, DeviceArray) and isinstance(b, DeviceArray)):
        return False  # a host array and a DeviceArray: different memory
    if a._buffer_key != b._buffer_key:
        return False
    first, second = _span(a), _span(b)
    if first is None or second is None:
        return False
    return first[0] < second[1] and second[0] < first[1]


def _dtype_of(value):
    return value.dtype if isinstance(value, DeviceArray) else value


def result_type(*arrays_and_dtypes):
    return np.result_type(*(_dtype_of(v) for v in arrays_and_dtypes))


def can_cast(from_, to, casting="safe"):
    return np.can_cast(_dtype_of(from_), to, casting=casting)


def functions():
    """NumPy function -> its DeviceArray version (for __array_function__)."""
    return {
        np.intersect1d: intersect1d,
        np.union1d: union1d,
        np.setdiff1d: setdiff1d,
        np.setxor1d: setxor1d,
        np.compress: compress,
        np.extract: extract,
        np.place: place,
        np.choose: choose,
        np.put_along_axis: put_along_axis,
        np.fill_diagonal: fill_diagonal,
        np.diag_indices_from: diag_indices_from,
        np.diagflat: diagflat,
        np.ravel_multi_index: ravel_multi_index,
        np.ix_: ix_,
        np.piecewise: piecewise,
        np.apply_along_axis: apply_along_axis,
        np.hsplit: _split_along("hsplit", 1,
                                lambda x: 1 if x.ndim > 1 else 0),
        np.vsplit: _split_along("vsplit", 2, lambda x: 0),
        np.dsplit: _split_along("dsplit", 3, lambda x: 2),
        np.rollaxis: rollaxis,
        np.block: block,
        np.linalg.multi_dot: multi_dot,
        np.array_equiv: array_equiv,
        np.may_share_memory: may_share_memory,
        np.result_type: result_type,
        np.can_cast: can_cast,
    }
