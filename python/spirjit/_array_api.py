"""The Array API standard's namespace (2024.12) over DeviceArrays: the
module ``spirjit`` is what ``x.__array_namespace__()`` returns.

Contract: ``install(module)`` adds to the ``spirjit`` module the standard's
dtypes, constants, elementwise functions (one per Array API name of
compiler/ArrayOps.def, the table kernels and jit code read too), creation,
data type, manipulation, searching, sorting, set, statistical and utility
functions, ``linalg``, ``fft`` and ``__array_namespace_info__``; names the
module already has (``empty``, ``zeros``, ``asarray``...) keep their own
definitions where those take the standard's keywords. Everything computes
on the operands' device and returns DeviceArrays there: elementwise and
reductions through ``_array_ops`` (lazy and fused), views where the
standard allows them, the rest through ``_array_primitives``. NumPy's
functions of the same names reach the same code through
``__array_function__`` (``_array_numpy``).
"""

import builtins
import math
import numbers
import operator
from collections import namedtuple

import numpy as np

from . import _array_methods as methods
from . import _array_ops as ops
from . import _array_primitives as prims
from . import _spirjit, errors
from ._spirjit import DeviceArray

__array_api_version__ = "2024.12"

_DTYPES = ops.DTYPES

UniqueAll = namedtuple("UniqueAll", "values indices inverse_indices counts")
UniqueCounts = namedtuple("UniqueCounts", "values counts")
UniqueInverse = namedtuple("UniqueInverse", "values inverse_indices")


def _device_of(*values):
    """The runtime device of the DeviceArrays among ``values`` (they must
    share one), else ``ops.operand_device()``."""
    device = ops.common_device(list(values))
    return ops.operand_device() if device is None else device


def _runtime_device(device):
    from . import _resolve_device
    return _resolve_device(device)


def _array(x, device=None):
    if isinstance(x, DeviceArray):
        return x
    return prims._device_array(x, "spirjit", device)


def _usm(*values):
    return ops.usm_type_of([v for v in values if isinstance(v, DeviceArray)])


# ------------------------------------------------------------- elementwise

def _elementwise(numpy_name, arity):
    ufunc = getattr(np, numpy_name)
    if arity == 1:
        def function(x, /):
            return ops.apply_ufunc(ufunc, (x,))
    else:
        def function(x1, x2, /):
            return ops.apply_ufunc(ufunc, (x1, x2))
    return function


def _elementwise_functions():
    out = {}
    for row in _spirjit.array_ops():
        if row["kind"] != "Elementwise" or not row["array_api"]:
            continue
        fn = _elementwise(row["numpy"], row["arity"])
        fn.__name__ = row["array_api"]
        fn.__doc__ = (f"The Array API's {row['array_api']}: numpy."
                      f"{row['numpy']} elementwise on the operands' device.")
        out[row["array_api"]] = fn
    return out


def real(x, /):
    return methods._part(_array(x), "real")


def imag(x, /):
    return methods._part(_array(x), "imag")


def round(x, /):
    return methods.round(_array(x))


def clip(x, /, min=None, max=None):
    x = _array(x)
    result = x
    if min is not None:
        result = ops.where(ops.apply_ufunc(np.less, (result, min)),
                           _same(min, x), result)
    if max is not None:
        result = ops.where(ops.apply_ufunc(np.greater, (result, max)),
                           _same(max, x), result)
    if result is x:
        return ops.copy(x)
    return ops.astype(result, x.dtype, copy=False)


def _same(v, x):
    if isinstance(v, DeviceArray):
        return ops.astype(v, x.dtype, copy=False)
    return x.dtype.type(v)


# ----------------------------------------------------------- data types

def astype(x, dtype, /, *, copy=True, device=None):
    x = _array(x)
    if device is not None:
        x = x.to_device(device)
    return ops.astype(x, dtype, copy=copy)


def can_cast(from_, to, /):
    if isinstance(from_, DeviceArray):
        from_ = from_.dtype
    return bool(np.can_cast(from_, to))


FInfo = namedtuple("FInfo", "bits eps max min smallest_normal dtype")
IInfo = namedtuple("IInfo", "bits max min dtype")


def finfo(type, /):
    """The standard's finfo: Python numbers, and the real dtype."""
    f = np.finfo(type.dtype if isinstance(type, DeviceArray) else type)
    return FInfo(int(f.bits), float(f.eps), float(f.max), float(f.min),
                 float(f.smallest_normal), f.dtype)


def iinfo(type, /):
    i = np.iinfo(type.dtype if isinstance(type, DeviceArray) else type)
    return IInfo(int(i.bits), int(i.max), int(i.min), i.dtype)


_KINDS = {"bool": "b", "signed integer": "i", "unsigned integer": "u",
          "integral": "iu", "real floating": "f", "complex floating": "c",
          "numeric": "iufc"}


def isdtype(dtype, kind):
    dtype = np.dtype(dtype)
    if isinstance(kind, tuple):
        return builtins.any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, str):
        if kind not in _KINDS:
            raise errors.InvalidArgumentError(f"unknown dtype kind {kind!r}")
        return dtype.kind in _KINDS[kind]
    return dtype == np.dtype(kind)


def result_type(*arrays_and_dtypes):
    if not arrays_and_dtypes:
        raise errors.InvalidArgumentError(
            "at least one array or dtype is required")
    return np.result_type(*(a.dtype if isinstance(a, DeviceArray) else a
                            for a in arrays_and_dtypes))


# -------------------------------------------------------------- creation

def arange(start, /, stop=None, step=1, *, dtype=None, device=None):
    """NumPy's arange on ``device``, computed there."""
    if stop is None:
        start, stop = 0, start
    if step == 0:
        raise errors.InvalidArgumentError("step must not be zero")
    if dtype is None:
        dtype = np.int64 if builtins.all(
            isinstance(v, numbers.Integral) for v in (start, stop, step)) \
            else np.float64
    dtype = np.dtype(dtype)
    n = builtins.max(0, math.ceil((stop - start) / step))
    device = _runtime_device(device)
    if n == 0:
        return ops._empty((0,), dtype, device)
    index = prims._kernels().iota(n, np.int64 if dtype.kind in "iub" else
                            np.float64, device)
    values = ops.apply_ufunc(np.add, (ops.apply_ufunc(
        np.multiply, (index, step)), start))
    return ops.astype(values, dtype, copy=False)


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True):
    num = operator.index(num)
    if num < 0:
        raise errors.InvalidArgumentError(
            f"Number of samples, {num}, must be non-negative.")
    complex_ = builtins.any(isinstance(v, complex) for v in (start, stop))
    if dtype is None:
        dtype = np.complex128 if complex_ else np.float64
    dtype = np.dtype(dtype)
    device = _runtime_device(device)
    if num == 0:
        return ops._empty((0,), dtype, device)
    div = (num - 1) if endpoint else num
    work = np.complex128 if complex_ or dtype.kind == "c" else np.float64
    index = prims._kernels().iota(num, np.float64, device)
    if div > 0:
        step = (stop - start) / div
        values = ops.apply_ufunc(np.add, (ops.apply_ufunc(
            np.multiply, (index, work(step))), work(start)))
    else:
        values = ops.apply_ufunc(np.add, (ops.apply_ufunc(
            np.multiply, (index, 0.0)), work(start)))
    values = ops.astype(values, dtype)
    if endpoint and num > 1:
        values[num - 1:] = np.array([stop], dtype)
    return values


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None):
    n_cols = n_rows if n_cols is None else n_cols
    dtype = np.dtype(np.float64 if dtype is None else dtype)
    device = _runtime_device(device)
    if n_rows == 0 or n_cols == 0:
        return ops._empty((n_rows, n_cols), dtype, device)
    k = builtins.max(-n_rows, builtins.min(n_cols, operator.index(k)))
    rows, cols = _grid(n_rows, n_cols, device)
    on = ops.apply_ufunc(np.equal, (ops.apply_ufunc(np.add, (rows, k)),
                                    cols))
    return ops.astype(on, dtype)


def _grid(n_rows, n_cols, device):
    """Row and column indices (int64) as (n, 1) and (1, m) views."""
    K = prims._kernels()
    rows = ops.reshape(K.iota(n_rows, np.int64, device), n_rows, 1)
    cols = ops.reshape(K.iota(n_cols, np.int64, device), 1, n_cols)
    return rows, cols


def _triangle(x, k, lower):
    x = _array(x)
    if x.ndim < 2:
        raise errors.InvalidArgumentError(
            "tril/triu need an array of at least 2 dimensions")
    n, m = x.shape[-2:]
    if n == 0 or m == 0:
        return ops.copy(x)
    rows, cols = _grid(n, m, x._device)
    diff = ops.apply_ufunc(np.subtract, (cols, rows))
    keep = ops.apply_ufunc(np.less_equal if lower else np.greater_equal,
                           (diff, k))
    return ops.where(keep, x, x.dtype.type(0))


def tril(x, /, *, k=0):
    return _triangle(x, k, True)


def triu(x, /, *, k=0):
    return _triangle(x, k, False)


def meshgrid(*arrays, indexing="xy"):
    if indexing not in ("xy", "ij"):
        raise errors.InvalidArgumentError(
            "Valid values for `indexing` are 'xy' and 'ij'.")
    arrays = [_array(a) for a in arrays]
    if not arrays:
        return []
    _device_of(*arrays)
    dtype = result_type(*arrays)
    shape = [a.size for a in arrays]
    if indexing == "xy" and len(arrays) > 1:
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    for i, a in enumerate(arrays):
        axis = i
        if indexing == "xy" and len(arrays) > 1 and i < 2:
            axis = 1 - i
        view_shape = [1] * len(shape)
        view_shape[axis] = a.size
        v = ops.reshape(ops.reshape(a, -1), view_shape)
        out.append(ops.copy(prims._broadcast(ops.astype(v, dtype, copy=False),
                                             shape)))
    return out


def asarray(obj, /, *, dtype=None, device=None, copy=None, **kwargs):
    """The standard's asarray: ``copy=True`` always copies, ``copy=False``
    never does (ValueError where it would have to), None copies only to
    change the dtype or the device."""
    from . import Device
    if isinstance(obj, DeviceArray) and builtins.any(v is not None
                                            for v in kwargs.values()):
        # usm_type= or sycl_queue=: the package's asarray places it.
        result = _BASE_ASARRAY[0](obj, dtype=dtype, device=device, **kwargs)
        if copy is False and result is not obj:
            raise errors.InvalidArgumentError(
                "asarray(copy=False): the array would have to be copied to "
                "change its usm_type or queue")
        return ops.copy(result) if copy and result is obj else result
    if isinstance(obj, DeviceArray):
        same_device = device is None or Device(device) == obj.device
        same_dtype = dtype is None or np.dtype(dtype) == obj.dtype
        if copy is False and not (same_device and same_dtype):
            raise errors.InvalidArgumentError(
                "asarray(copy=False): the array would have to be copied to "
                "change its dtype or device")
        x = obj if same_device else obj.to_device(device)
        if not same_dtype:
            return ops.astype(x, dtype)
        if copy and x is obj:
            return ops.copy(x)
        return x
    if copy is False:
        raise errors.InvalidArgumentError(
            "asarray(copy=False): a DeviceArray cannot share the memory of "
            f"a {type(obj).__name__}; use copy=None")
    return _BASE_ASARRAY[0](obj, dtype=dtype, device=device, **kwargs)


_BASE_ASARRAY = [None]  # the package's own asarray (usm_type=, sycl_queue=)


# ---------------------------------------------------------- manipulation

def broadcast_to(x, /, shape):
    return prims._broadcast(_array(x), tuple(shape))


def broadcast_arrays(*arrays):
    arrays = [_array(a) for a in arrays]
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    return [prims._broadcast(a, shape) for a in arrays]


def concat(arrays, /, *, axis=0):
    arrays = list(arrays)
    if not arrays:
        raise errors.InvalidArgumentError("need at least one array to "
                                          "concatenate")
    device = _device_of(*arrays)
    arrays = [_array(a, device) for a in arrays]
    if axis is None:
        arrays = [ops.reshape(a, -1) for a in arrays]
        axis = 0
    first = arrays[0]
    if first.ndim == 0:
        raise errors.InvalidArgumentError(
            "zero-dimensional arrays cannot be concatenated")
    axis = ops.normalize_axes(first, operator.index(axis))[0]
    for i, a in enumerate(arrays[1:], 1):
        if a.ndim != first.ndim:
            raise errors.InvalidArgumentError(
                f"all the input array dimensions except for the "
                f"concatenation axis must match exactly, but along "
                f"dimension 0, the array at index 0 has {first.ndim} "
                f"dimension(s) and the array at index {i} has {a.ndim} "
                "dimension(s)")
        for d in range(first.ndim):
            if d != axis and a.shape[d] != first.shape[d]:
                raise errors.InvalidArgumentError(
                    f"all the input array dimensions except for the "
                    f"concatenation axis must match exactly, but along "
                    f"dimension {d}, the array at index 0 has size "
                    f"{first.shape[d]} and the array at index {i} has size "
                    f"{a.shape[d]}")
    dtype = result_type(*arrays)
    shape = list(first.shape)
    shape[axis] = builtins.sum(a.shape[axis] for a in arrays)
    out = ops._empty(shape, dtype, device, _usm(*arrays))
    at = 0
    for a in arrays:
        n = a.shape[axis]
        if n:
            index = [slice(None)] * len(shape)
            index[axis] = slice(at, at + n)
            out[tuple(index)] = ops.astype(a, dtype, copy=False)
        at += n
    return out


def stack(arrays, /, *, axis=0):
    arrays = [_array(a, _device_of(*arrays)) for a in arrays]
    if not arrays:
        raise errors.InvalidArgumentError("need at least one array to stack")
    shape = arrays[0].shape
    if builtins.any(a.shape != shape for a in arrays):
        raise errors.InvalidArgumentError(
            "all input arrays must have the same shape")
    ndim = len(shape) + 1
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise errors.ArrayAxisError(axis, ndim)
    axis %= ndim
    return concat([expand_dims(a, axis=axis) for a in arrays], axis=axis)


def expand_dims(x, /, axis=0):
    x = _array(x)
    axes = axis if isinstance(axis, tuple) else (axis,)
    ndim = x.ndim + len(axes)
    axes = [operator.index(a) for a in axes]
    for a in axes:
        if not -ndim <= a < ndim:
            raise errors.ArrayAxisError(a, ndim)
    axes = sorted(a % ndim for a in axes)
    if len(set(axes)) != len(axes):
        raise errors.InvalidArgumentError("repeated axis")
    shape, strides = list(x.shape), list(x.strides)
    for a in axes:
        shape.insert(a, 1)
        strides.insert(a, 0)
    return x._view(shape, strides, x._offset)


def flip(x, /, *, axis=None):
    x = _array(x)
    axes = ops.normalize_axes(x, axis)
    index = tuple(slice(None, None, -1) if a in axes else slice(None)
                  for a in range(x.ndim))
    return x[index] if index else x


def moveaxis(x, source, destination, /):
    x = _array(x)
    src = source if isinstance(source, (tuple, list)) else (source,)
    dst = destination if isinstance(destination, (tuple, list)) \
        else (destination,)
    if len(src) != len(dst):
        raise errors.InvalidArgumentError(
            "`source` and `destination` arguments must have the same number "
            "of elements")
    src = [ops.normalize_axes(x, operator.index(a))[0] for a in src]
    dst = [ops.normalize_axes(x, operator.index(a))[0] for a in dst]
    order = [a for a in range(x.ndim) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return ops.transpose(x, order)


def permute_dims(x, /, axes):
    return ops.transpose(_array(x), tuple(axes))


def reshape(x, /, shape, *, copy=None):
    x = _array(x)
    if copy is False and not x.flags.c_contiguous:
        raise errors.InvalidArgumentError(
            "reshape(copy=False): this array's layout needs a copy")
    result = ops.reshape(x, tuple(shape))
    return ops.copy(result) if copy else result


def roll(x, /, shift, *, axis=None):
    x = _array(x)
    if axis is None:
        return reshape(roll(ops.reshape(x, -1), shift, axis=0), x.shape)
    shifts = shift if isinstance(shift, tuple) else (shift,)
    axes = axis if isinstance(axis, tuple) else (axis,)
    if len(shifts) == 1 and len(axes) > 1:
        shifts = shifts * len(axes)
    if len(axes) == 1 and len(shifts) > 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise errors.InvalidArgumentError(
            "'shift' and 'axis' should be scalars or 1D sequences")
    result = x
    for s, a in zip(shifts, axes):
        a = ops.normalize_axes(x, operator.index(a))[0]
        n = x.shape[a]
        if n == 0:
            continue
        s = operator.index(s) % n
        if s == 0:
            continue
        head = [slice(None)] * x.ndim
        tail = [slice(None)] * x.ndim
        head[a] = slice(n - s, None)
        tail[a] = slice(None, n - s)
        result = concat([result[tuple(head)], result[tuple(tail)]], axis=a)
    return ops.copy(result) if result is x else result


def squeeze(x, /, axis):
    return methods.squeeze(_array(x), axis)


def repeat(x, repeats, /, *, axis=None):
    x = _array(x)
    if axis is None:
        x = ops.reshape(x, -1)
        axis = 0
    axis = ops.normalize_axes(x, operator.index(axis))[0]
    n = x.shape[axis]
    if isinstance(repeats, numbers.Integral) or (
            isinstance(repeats, (np.ndarray, DeviceArray)) and
            repeats.ndim == 0):
        r = int(repeats)
        if r < 0:
            raise errors.InvalidArgumentError("negative dimensions are not "
                                              "allowed")
        shape = list(x.shape)
        expanded = expand_dims(x, axis=axis + 1)
        target = shape[:axis + 1] + [r] + shape[axis + 1:]
        out = ops.copy(prims._broadcast(expanded, target))
        shape[axis] = n * r
        return ops.reshape(out, shape)
    counts = _array(repeats, x._device)
    if counts.ndim != 1 or counts.shape[0] not in (1, n):
        raise errors.InvalidArgumentError(
            f"operands could not be broadcast together with shape ({n},) "
            f"({counts.shape[0] if counts.ndim else ''},)")
    if counts.shape[0] == 1:
        return repeat(x, int(counts[0]), axis=axis)
    if counts.size and int(counts.min()) < 0:
        raise errors.InvalidArgumentError("repeats may not contain negative "
                                          "values.")
    ends = prims.cumulative("+", counts, 0, np.int64)
    total = int(ends[n - 1]) if n else 0
    positions = prims._kernels().iota(total, np.int64, x._device) if total else \
        ops._empty((0,), np.int64, x._device)
    source = prims.searchsorted(ends, positions, side="right") if total \
        else positions
    return prims.take(x, source, axis)


def tile(x, repetitions, /):
    x = _array(x)
    reps = tuple(operator.index(r) for r in repetitions)
    ndim = builtins.max(x.ndim, len(reps))
    reps = (1,) * (ndim - len(reps)) + reps
    shape = (1,) * (ndim - x.ndim) + tuple(x.shape)
    x = ops.reshape(x, shape)
    # (r0, n0, r1, n1, ...) broadcast, then merged pairwise
    view_shape, target = [], []
    for r, n in zip(reps, shape):
        view_shape += [1, n]
        target += [r, n]
    v = ops.reshape(x, view_shape)
    out = ops.copy(prims._broadcast(v, target))
    return ops.reshape(out, [r * n for r, n in zip(reps, shape)])


def unstack(x, /, *, axis=0):
    x = _array(x)
    axis = ops.normalize_axes(x, operator.index(axis))[0]
    return tuple(x[(slice(None),) * axis + (i,)] if x.ndim > 1 else
                 x[i:i + 1]._view([], [], x._offset + i * x.strides[0])
                 for i in range(x.shape[axis]))


# ------------------------------------------------------------ searching

def argmax(x, /, *, axis=None, keepdims=False):
    return _array(x).argmax(axis=axis, keepdims=keepdims)


def argmin(x, /, *, axis=None, keepdims=False):
    return _array(x).argmin(axis=axis, keepdims=keepdims)


def count_nonzero(x, /, *, axis=None, keepdims=False):
    x = _array(x)
    nz = ops.apply_ufunc(np.not_equal, (x, 0))
    return ops.reduce("sum", ops.astype(nz, np.int64), axis, keepdims)


def nonzero(x, /):
    return prims.nonzero(_array(x))


def searchsorted(x1, x2, /, *, side="left", sorter=None):
    return prims.searchsorted(x1, x2, side, sorter)


def where(condition, x1, x2, /):
    return ops.where(condition, x1, x2)


# ---------------------------------------------------------- sorting, sets

def sort(x, /, *, axis=-1, descending=False, stable=True):
    return prims.sort(x, axis, descending, stable)


def argsort(x, /, *, axis=-1, descending=False, stable=True):
    return prims.argsort(x, axis, descending, stable)


def unique_all(x, /):
    return UniqueAll(*prims.unique(x, counts=True, indices=True,
                                   inverse=True))


def unique_counts(x, /):
    return UniqueCounts(*prims.unique(x, counts=True))


def unique_inverse(x, /):
    return UniqueInverse(*prims.unique(x, inverse=True))


def unique_values(x, /):
    return prims.unique(x)[0]


# ----------------------------------------------------------- statistics

def _stat(op):
    def function(x, /, *, axis=None, dtype=None, keepdims=False):
        x = _array(x)
        if dtype is not None:
            x = ops.astype(x, dtype, copy=False)
        elif op in ("sum", "prod") and x.dtype.kind in "biu" and \
                x.dtype.itemsize < 8:
            x = ops.astype(x, np.uint64 if x.dtype.kind == "u" else np.int64)
        result = ops.reduce(op, x, _axis_arg(axis), keepdims)
        # the standard: the sum is in dtype (NumPy's reductions widen it)
        return result if dtype is None else ops.astype(result, dtype,
                                                       copy=False)
    function.__name__ = op
    return function


def _axis_arg(axis):
    return tuple(axis) if isinstance(axis, list) else axis


def _extreme(op):
    def function(x, /, *, axis=None, keepdims=False):
        return ops.reduce(op, _array(x), _axis_arg(axis), keepdims)
    function.__name__ = op
    return function


def mean(x, /, *, axis=None, keepdims=False):
    return ops.reduce("mean", _array(x), _axis_arg(axis), keepdims)


def var(x, /, *, axis=None, correction=0.0, keepdims=False):
    return methods.var(_array(x), axis=_axis_arg(axis), ddof=correction,
                       keepdims=keepdims)


def std(x, /, *, axis=None, correction=0.0, keepdims=False):
    return methods.std(_array(x), axis=_axis_arg(axis), ddof=correction,
                       keepdims=keepdims)


def _cumulative(op):
    def function(x, /, *, axis=None, dtype=None, include_initial=False):
        x = _array(x)
        if axis is None:
            if x.ndim > 1:
                raise errors.InvalidArgumentError(
                    f"cumulative_{'sum' if op == '+' else 'prod'} needs "
                    "axis= for an array of more than one dimension")
            axis = 0
        if dtype is None:
            dtype = x.dtype
            if dtype.kind in "biu" and dtype.itemsize < 8:
                dtype = np.dtype(np.uint64 if dtype.kind == "u" else np.int64)
        return prims.cumulative(op, x, axis, dtype, include_initial)
    function.__name__ = "cumulative_sum" if op == "+" else "cumulative_prod"
    return function


def all(x, /, *, axis=None, keepdims=False):
    return _array(x).all(axis=_axis_arg(axis), keepdims=keepdims)


def any(x, /, *, axis=None, keepdims=False):
    return _array(x).any(axis=_axis_arg(axis), keepdims=keepdims)


def diff(x, /, *, axis=-1, n=1, prepend=None, append=None):
    x = _array(x)
    if n < 0:
        raise errors.InvalidArgumentError(
            f"order must be non-negative but got {n}")
    axis = ops.normalize_axes(x, operator.index(axis))[0]
    parts = [p for p in (prepend, x, append) if p is not None]
    if len(parts) > 1:
        parts = [_array(p, x._device) for p in parts]
        parts = [p if p.ndim == x.ndim else prims._broadcast(
            p, x.shape[:axis] + (1,) + x.shape[axis + 1:]) for p in parts]
        x = concat(parts, axis=axis)
    for _ in range(n):
        hi = [slice(None)] * x.ndim
        lo = [slice(None)] * x.ndim
        hi[axis] = slice(1, None)
        lo[axis] = slice(None, -1)
        ufunc = np.not_equal if x.dtype == np.bool_ else np.subtract
        x = ops.apply_ufunc(ufunc, (x[tuple(hi)], x[tuple(lo)]))
    return x


# ----------------------------------------------------------- linear algebra

def matmul(x1, x2, /):
    return ops.matmul(x1, x2)


def matrix_transpose(x, /):
    x = _array(x)
    if x.ndim < 2:
        raise errors.InvalidArgumentError(
            "matrix_transpose needs an array of at least 2 dimensions")
    return ops.transpose(x, list(range(x.ndim - 2)) + [x.ndim - 1,
                                                       x.ndim - 2])


def tensordot(x1, x2, /, *, axes=2):
    x1, x2 = _array(x1), _array(x2)
    device = _device_of(x1, x2)
    if isinstance(axes, numbers.Integral):
        a1 = list(range(x1.ndim - axes, x1.ndim))
        a2 = list(range(axes))
    else:
        a1, a2 = ([axes[0]] if isinstance(axes[0], numbers.Integral)
                  else list(axes[0])), \
                 ([axes[1]] if isinstance(axes[1], numbers.Integral)
                  else list(axes[1]))
    a1 = [ops.normalize_axis(a, x1.ndim) for a in a1]
    a2 = [ops.normalize_axis(a, x2.ndim) for a in a2]
    for i, j in zip(a1, a2):
        if x1.shape[i] != x2.shape[j]:
            raise errors.InvalidArgumentError("shape-mismatch for sum")
    free1 = [a for a in range(x1.ndim) if a not in a1]
    free2 = [a for a in range(x2.ndim) if a not in a2]
    k = int(np.prod([x1.shape[a] for a in a1]))
    m = int(np.prod([x1.shape[a] for a in free1]))
    n = int(np.prod([x2.shape[a] for a in free2]))
    left = ops.reshape(ops.transpose(x1, free1 + a1), m, k)
    right = ops.reshape(ops.transpose(x2, a2 + free2), k, n)
    del device
    return ops.reshape(ops.matmul(left, right),
                       [x1.shape[a] for a in free1] +
                       [x2.shape[a] for a in free2])


def vecdot(x1, x2, /, *, axis=-1):
    """The dot product of vectors along ``axis`` (x1 conjugated), the
    other axes broadcast; the result has the product's dtype."""
    x1, x2 = _array(x1), _array(x2)
    axis = operator.index(axis)
    n = builtins.min(x1.ndim, x2.ndim)
    if n == 0 or not -n <= axis < n:
        raise errors.ArrayAxisError(axis, n)
    if axis >= 0:  # counted from the end, as the standard asks
        axis -= n
    if x1.shape[axis] != x2.shape[axis]:
        raise errors.InvalidArgumentError(
            f"vecdot: the vectors' axis {axis} has size {x1.shape[axis]} "
            f"in x1 and {x2.shape[axis]} in x2")
    if x1.dtype.kind == "c":
        x1 = ops.apply_ufunc(np.conjugate, (x1,))
    product = ops.apply_ufunc(np.multiply, (x1, x2))
    return ops.astype(ops.reduce("sum", product, axis), product.dtype,
                      copy=False)


# ------------------------------------------------------------- installation

def namespace():
    """The names ``install`` adds to the spirjit module."""
    out = dict(_DTYPES)
    out.update(e=math.e, pi=math.pi, inf=math.inf, nan=math.nan,
               newaxis=None, __array_api_version__=__array_api_version__)
    out.update(_elementwise_functions())
    for fn in (real, imag, round, clip, astype, can_cast, finfo, iinfo,
               isdtype, result_type, arange, linspace, eye, meshgrid, tril,
               triu, broadcast_to, broadcast_arrays, concat, stack,
               expand_dims, flip, moveaxis, permute_dims, reshape, roll,
               squeeze, repeat, tile, unstack, argmax, argmin, count_nonzero,
               nonzero, searchsorted, where, sort, argsort, unique_all,
               unique_counts, unique_inverse, unique_values, mean, var, std,
               all, any, diff, matmul, matrix_transpose, tensordot, vecdot):
        out[fn.__name__] = fn
    out["take"] = lambda x, indices, /, *, axis=None: prims.take(
        x, indices, _take_axis(x, axis))
    out["take_along_axis"] = lambda x, indices, /, *, axis=-1: \
        prims.take_along_axis(x, indices, axis)
    for op in ("sum", "prod"):
        out[op] = _stat(op)
    for op in ("min", "max"):
        out[op] = _extreme(op)
    out["cumulative_sum"] = _cumulative("+")
    out["cumulative_prod"] = _cumulative("*")
    from . import _array_extensions as extensions
    from ._array_info import __array_namespace_info__
    out["__array_namespace_info__"] = __array_namespace_info__
    out["linalg"] = extensions.linalg_module()
    out["fft"] = extensions.fft_module()
    return out


def _take_axis(x, axis):
    if axis is None:
        if getattr(x, "ndim", 1) > 1:
            raise errors.InvalidArgumentError(
                "take needs axis= for an array of more than one dimension")
        return 0
    return axis


def install(module):
    """Adds the namespace to ``module`` (the spirjit package), keeping the
    package's own ``asarray`` keywords and adding ``copy=``."""
    names = namespace()
    _BASE_ASARRAY[0] = module.asarray
    names["asarray"] = asarray
    for name, value in names.items():
        setattr(module, name, value)
    import sys
    sys.modules["spirjit.linalg"] = names["linalg"]
    sys.modules["spirjit.fft"] = names["fft"]
    return names


def _array_namespace(self, api_version=None):
    """The Array API namespace of DeviceArrays: the spirjit module."""
    if api_version not in (None, "2021.12", "2022.12", "2023.12", "2024.12"):
        raise errors.InvalidArgumentError(
            f"spirjit implements the Array API 2024.12, not {api_version!r}")
    import spirjit
    return spirjit


def _index(self):
    """A 0-d integer array as a Python int (for range(x), x as an index)."""
    if self.ndim != 0 or self.dtype.kind not in "iu":
        raise TypeError("only integer scalar arrays can be converted to a "
                        "scalar index")
    return int(self)


def install_methods(cls):
    """The array object's Array API members: ``__array_namespace__``,
    ``__index__`` and ``mT``."""
    cls.__array_namespace__ = _array_namespace
    cls.__index__ = _index
    cls.mT = property(lambda self: matrix_transpose(self),
                      doc="the transpose of the last two axes")
