"""The array operations that are no elementwise expression: sorting, scans,
masks and integer indices, gathers and scatters, unique values, binary
search. Each runs on the operands' device and returns DeviceArrays there.

Contract: every function takes DeviceArrays on one device (NumPy arrays and
scalars join it) and answers as NumPy does (values, dtypes, errors), never
with a host array. Where the device's memory is the host's (CPU runtimes and
the native device), NumPy's own implementation runs in place on the
DeviceArray's memory (API.md, "Where the work runs"): its sorts and scans
are vectorised single passes that two cores' kernels do not beat, and the
result is copied once into the device's memory. Elsewhere, and everywhere
when ``SPIRJIT_HOST_NUMPY=0`` (or ``use_host(False)``), the kernels of
``_library_kernels`` compute it: the same source on every device. Each
function chooses between the two in one place, ``_on_host``.
"""

import contextlib
import math
import numbers
import operator
import os

import numpy as np

from . import _array_ops as ops
from . import _spirjit, errors
from ._spirjit import DeviceArray

# SPIRJIT_HOST_NUMPY=0 also makes small values kernels
# (python/bindings/HostArrays.cpp): one switch for NumPy in place.
_HOST = [os.environ.get("SPIRJIT_HOST_NUMPY") != "0"]


@contextlib.contextmanager
def use_host(enabled):
    """Within the block, whether NumPy runs in place on host-addressable
    devices (True, the default) or the kernels run everywhere (False)."""
    before = _HOST[0]
    _HOST[0] = bool(enabled)
    try:
        yield
    finally:
        _HOST[0] = before


def _on_host(*arrays):
    return _HOST[0] and all(a._host_addressable for a in arrays
                            if isinstance(a, DeviceArray))


def host_view(x):
    """The NumPy array over ``x``'s own memory (``x`` evaluated first)."""
    return np.asarray(x._host_memoryview())


def to_device_like(value, like):
    """A NumPy result as a new DeviceArray beside ``like``, copied into the
    device's own memory. (Wrapping NumPy's memory in place would save the
    copy, but an OpenCL buffer over host memory cannot be launched as a view
    at an offset, which the device's own, shared virtual memory can.)"""
    value = np.asarray(value)
    if not value.flags.c_contiguous:
        value = value.copy()  # (np.ascontiguousarray makes 0-d arrays 1-d)
    return _spirjit.to_device(value, like._device, like.usm_type)


def result_like(shape, dtype, like):
    """A new C-contiguous DeviceArray beside ``like`` and the NumPy array
    over its memory (host-addressable devices), for NumPy's out=."""
    out = ops._empty(shape, dtype, like._device, like.usm_type)
    return out, host_view(out)


def _kernels():
    from . import _library_kernels
    return _library_kernels


def _device_array(x, what, device=None):
    """``x`` as a DeviceArray (NumPy arrays and sequences join ``device``,
    default: ``ops.operand_device()``)."""
    if isinstance(x, DeviceArray):
        return x
    if device is None:
        device = ops.operand_device()
    if isinstance(x, (np.ndarray, np.generic, numbers.Number, list, tuple)):
        return _spirjit.to_device(np.asarray(x), device, "device")
    raise errors.TypingError(f"{what}: expected a DeviceArray, not "
                             f"{type(x).__name__}")


def _axis(x, axis, what):
    if x.ndim == 0:
        raise errors.ArrayAxisError(operator.index(axis), 0)
    return ops.normalize_axes(x, operator.index(axis))[0]


def _moved(x, axis):
    """``x`` with ``axis`` last, as a 2-D (rows, n) DeviceArray, and the
    shape before flattening."""
    ndim = x.ndim
    order = [a for a in range(ndim) if a != axis] + [axis]
    shape = x.shape
    n = shape[axis]
    if axis == ndim - 1 and n and ops.is_contiguous(x):
        # The rows in place (reshape's checks cost a GPU's host 4 us, and a
        # scan makes three such views)
        step = x.dtype.itemsize
        return (x._view([x.size // n, n], [n * step, step], x._offset),
                shape, order)
    moved = x if axis == ndim - 1 else ops.transpose(x, order)
    rows = x.size // n if n else math.prod(moved.shape[:-1])
    return ops.reshape(moved, rows, n), moved.shape, order


def _unmoved(rows, shape, order):
    """Undoes ``_moved`` on a result of the same shape (C-contiguous rows,
    as the primitives make them)."""
    if order[-1] == len(order) - 1 and ops.is_contiguous(rows) and \
            rows.size == math.prod(shape):
        return rows._view(list(shape), ops._c_strides(shape, rows.dtype),
                          rows._offset)
    back = [order.index(a) for a in range(len(order))]
    rows = ops.reshape(rows, shape)
    return rows if order[-1] == len(order) - 1 else ops.transpose(rows, back)


# ---------------------------------------------------------------- sorting

def sort(x, axis=-1, descending=False, stable=True):
    """The elements sorted along ``axis`` (stable; NaNs last, first when
    ``descending``, as array-api-strict orders them)."""
    x = _device_array(x, "sort")
    axis = _axis(x, axis, "sort")
    if x.size == 0:
        return ops.copy(x)
    if _on_host(x):
        # Sorted values are the same however equal keys are ordered:
        # NumPy's default sort (its vectorised quicksort) gives them.
        out, view = result_like(x.shape, x.dtype, x)
        view[...] = host_view(x)
        view.sort(axis=axis)  # in the result's own memory
        if descending:  # reversed there too, so the result is no view
            view[...] = np.flip(view, axis).copy()
        return out
    rows, shape, order = _moved(x, axis)
    return _unmoved(_kernels().sort_rows(rows, descending), shape, order)


def argsort(x, axis=-1, descending=False, stable=True):
    """The indices that sort ``x`` along ``axis`` (int64): stable unless
    ``stable`` is False, which lets NumPy in place order equal keys as its
    quicksort does (the kernels are always stable)."""
    x = _device_array(x, "argsort")
    axis = _axis(x, axis, "argsort")
    if x.size == 0:
        return ops._empty(x.shape, np.int64, x._device, x.usm_type)
    # A stable order of one long row: the kernels' radix sort beats
    # NumPy's stable argsort (a merge sort) on CPUs too (2^22 float32, 2
    # cores: Intel's runtime 176 ms, PoCL 90, native 101; NumPy 438).
    radix = stable and x.dtype.kind in "biuf" and \
        x.size == x.shape[axis] >= _kernels().RADIX_MIN
    if _on_host(x) and not radix:
        h = host_view(x)
        kind = "stable" if stable else None
        if descending:
            n = h.shape[axis]
            r = np.flip(np.argsort(np.flip(h, axis), axis=axis,
                                   kind=kind), axis)
            return to_device_like((n - 1 - r).astype(np.int64), x)
        return to_device_like(np.argsort(h, axis=axis, kind=kind)
                              .astype(np.int64, copy=False), x)
    rows, shape, order = _moved(x, axis)
    return _unmoved(_kernels().argsort_rows(rows, descending), shape, order)


def argpartition(x, kth, axis=-1):
    """NumPy's argpartition: indices that put the kth element (or each of
    the kth sequence) where a sort would, smaller ones before it. Kernels
    select one kth of one long row (_library_select.py), and sort fully
    otherwise (a sort is a partition)."""
    x = _device_array(x, "argpartition")
    axis = _axis(x, axis, "argpartition")
    if _on_host(x):
        with _numpy_errors():
            return to_device_like(np.argpartition(host_view(x), kth,
                                                  axis=axis)
                                  .astype(np.int64, copy=False), x)
    n = x.shape[axis]
    for k in np.atleast_1d(kth):
        if not -n <= int(k) < n:
            raise errors.InvalidArgumentError(
                f"kth(={int(k)}) out of bounds ({n})")
    if _selects(x, kth, axis):
        from ._library_select import argpartition_row
        return ops.reshape(argpartition_row(ops.reshape(x, n),
                                            int(kth) % n), x.shape)
    return argsort(x, axis)


def _selects(x, kth, axis):
    """Whether the kernels select (rather than sort) for argpartition: one
    kth of one long row of reals or integers, on a device with the local
    memory a tile of the selection takes."""
    from ._library_select import LOCAL_BYTES, SELECT_MIN
    n = x.shape[axis]
    return np.ndim(kth) == 0 and x.size == n and x.dtype.kind in "iuf" \
        and SELECT_MIN <= n < 2 ** 31 and \
        (x._device.properties().get("local_mem_size") or 0) >= LOCAL_BYTES


def partition(x, kth, axis=-1):
    """NumPy's partition: the values argpartition's indices select."""
    x = _device_array(x, "partition")
    axis = _axis(x, axis, "partition")
    if _on_host(x):
        with _numpy_errors():
            return to_device_like(np.partition(host_view(x), kth,
                                               axis=axis), x)
    order = argpartition(x, kth, axis)  # the same checks
    if _selects(x, kth, axis):
        return take_along_axis(x, order, axis)
    return sort(x, axis)


# ------------------------------------------------------------------ scans

def cumulative(op, x, axis, dtype, include_initial=False):
    """Inclusive scan of ``op`` ("+" or "*") along ``axis`` in ``dtype``,
    with the identity first when ``include_initial``."""
    x = _device_array(x, "cumulative_sum")
    dtype = np.dtype(dtype)
    if x.ndim == 0:
        x = ops.reshape(x, 1)
        axis = 0
    axis = _axis(x, axis, "cumulative_sum")
    n = x.shape[axis]
    shape = list(x.shape)
    shape[axis] += 1 if include_initial else 0
    if x.size == 0:
        result = _spirjit.to_device(np.full(shape, 0 if op == "+" else 1,
                                            dtype), x._device, x.usm_type)
        return result
    if _on_host(x):
        h = host_view(x)
        fn = np.cumsum if op == "+" else np.cumprod
        out, view = result_like(shape, dtype, x)
        index = [slice(None)] * x.ndim
        if include_initial:
            index[axis] = slice(0, 1)
            view[tuple(index)] = 0 if op == "+" else 1
            index[axis] = slice(1, n + 1)
        fn(h, axis=axis, dtype=dtype, out=view[tuple(index)])
        return out
    rows, moved_shape, order = _moved(x, axis)
    scanned = _kernels().scan_rows(rows, op, dtype)
    result = _unmoved(scanned, moved_shape, order)
    if include_initial:
        out = _spirjit.to_device(np.full(shape, 0 if op == "+" else 1,
                                         dtype), x._device, x.usm_type)
        index = [slice(None)] * x.ndim
        index[axis] = slice(1, n + 1)
        out[tuple(index)] = result
        return out
    return result


# ------------------------------------------------- masks and integer indices

def nonzero(x):
    """The indices of the nonzero elements, one int64 array per axis."""
    x = _device_array(x, "nonzero")
    if x.ndim == 0:
        raise errors.InvalidArgumentError(
            "Calling nonzero on 0d arrays is not allowed. Use "
            "np.atleast_1d(scalar).nonzero() instead.")
    if _on_host(x):
        return tuple(to_device_like(i.astype(np.int64), x)
                     for i in np.nonzero(host_view(x)))
    flat = _kernels().compact(ops.reshape(
        ops.apply_ufunc(np.not_equal, (x, 0)), -1))
    result = []
    for extent in reversed(x.shape):
        result.append(ops.apply_ufunc(np.remainder, (flat, extent)))
        flat = ops.apply_ufunc(np.floor_divide, (flat, extent))
    return tuple(ops.copy(r) for r in reversed(result))


def _is_advanced(k):
    return isinstance(k, (DeviceArray, np.ndarray, list)) or (
        isinstance(k, np.generic) and k.dtype == np.bool_) or \
        isinstance(k, bool)


def has_advanced(key):
    """Whether an index holds an integer or boolean array (or a list)."""
    return any(_is_advanced(k) for k in
               (key if isinstance(key, tuple) else (key,)))


def _index_arrays(key, device):
    """The key with lists and NumPy arrays as DeviceArrays on ``device``."""
    out = []
    for k in key if isinstance(key, tuple) else (key,):
        if isinstance(k, (list, np.ndarray)) or isinstance(k, bool) or (
                isinstance(k, np.generic) and k.dtype == np.bool_):
            a = np.asarray(k)
            if a.dtype.kind not in "biu":
                if a.size == 0:
                    a = a.astype(np.int64)
                else:
                    raise errors.ArrayIndexError(
                        "arrays used as indices must be of integer "
                        "(or boolean) type")
            k = _spirjit.to_device(a, device, "device")
        elif isinstance(k, DeviceArray) and k.dtype.kind not in "biu":
            raise errors.ArrayIndexError(
                "arrays used as indices must be of integer (or boolean) type")
        out.append(k)
    return tuple(out)


def _host_key(key):
    return tuple(host_view(k) if isinstance(k, DeviceArray) else k
                 for k in key)


def getitem(x, key):
    """x[key] where ``key`` holds integer or boolean arrays: a new
    DeviceArray, as NumPy's advanced indexing gives it."""
    key = _index_arrays(key, x._device)
    arrays = [k for k in key if isinstance(k, DeviceArray)]
    if any(a._device.filter_string != x._device.filter_string
           for a in arrays):
        raise errors.DeviceInferenceError(
            "an index array lives on another device than the array")
    if _on_host(x, *arrays):
        with _numpy_errors():
            return to_device_like(host_view(x)[_host_key(key)], x)
    # Kernels: one boolean mask over leading axes by compaction; any other
    # mix of integer arrays, booleans and integers by one gather.
    if len(arrays) == 1 and arrays[0].dtype == np.bool_:
        return _mask_read(x, key)
    return _gather_key(x, key)


def _advanced_index(x, key):
    """NumPy's advanced indexing by integer arrays (boolean ones become
    their nonzero() arrays, integers 0-d arrays, as NumPy treats them):
    (the view the key's slices select, the axes of it the arrays index,
    their broadcast shape, the flat int64 index over those axes in C
    order, checked and wrapped)."""
    if any(k is None for k in key):
        raise errors.NotSupportedError(
            "this device does not mix np.newaxis with index arrays; add the "
            "axis after indexing (spirjit.expand_dims)")
    entries = []  # (kind, value) per indexed axis of x
    for k in key:
        if k is Ellipsis:
            entries.append(("...", None))
        elif isinstance(k, DeviceArray) and k.dtype == np.bool_:
            for part in nonzero(k) if k.ndim else ():
                entries.append(("array", part))
            if k.ndim == 0:
                raise errors.NotSupportedError(
                    "this device takes no 0-d boolean index")
        elif isinstance(k, DeviceArray):
            entries.append(("array", k))
        elif isinstance(k, slice):
            entries.append(("slice", k))
        else:
            try:
                entries.append(("array", operator.index(k)))
            except TypeError:
                _check_basic([k])
    real = sum(1 for kind, _ in entries if kind != "...")
    if real > x.ndim:
        raise errors.ArrayIndexError(
            f"too many indices for array: array is {x.ndim}-dimensional, "
            f"but {real} were indexed")
    if any(kind == "..." for kind, _ in entries):
        at = [kind for kind, _ in entries].index("...")
        entries[at:at + 1] = [("slice", slice(None))] * (x.ndim - real)
    entries += [("slice", slice(None))] * (x.ndim - len(entries))
    indexed = [a for a, (kind, _) in enumerate(entries) if kind == "array"]
    # The slices, on every axis (the indexed ones whole).
    view = x[tuple(v if kind == "slice" else slice(None)
                   for kind, v in entries)]
    shapes = [np.shape(v) if not isinstance(v, DeviceArray) else v.shape
              for kind, v in entries if kind == "array"]
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        raise errors.ArrayIndexError(
            "shape mismatch: indexing arrays could not be broadcast "
            f"together with shapes {' '.join(str(s) for s in shapes)}") \
            from None
    # The flat index over the indexed axes, each index checked and wrapped.
    flat = None
    for a in indexed:
        n = view.shape[a]
        v = entries[a][1]
        if not isinstance(v, DeviceArray):
            if not -n <= v < n:
                raise errors.ArrayIndexError(
                    f"index {v} is out of bounds for axis {a} with size {n}")
            v = np.int64(v % n) if n else np.int64(0)
        else:
            v = ops.astype(v, np.int64)
            if v.size:
                low, high = int(v.min()), int(v.max())
                if low < -n or high >= n:
                    bad = low if low < -n else high
                    raise errors.ArrayIndexError(
                        f"index {bad} is out of bounds for axis {a} with "
                        f"size {n}")
            v = ops.where(ops.apply_ufunc(np.less, (v, 0)),
                          ops.apply_ufunc(np.add, (v, n)), v)
        flat = v if flat is None else ops.apply_ufunc(
            np.add, (ops.apply_ufunc(np.multiply, (flat, n),
                                     device=x._device), v),
            device=x._device)
    index = ops.reshape(_broadcast(_device_array(flat, "index", x._device)
                                   if not isinstance(flat, DeviceArray)
                                   else flat, shape), -1)
    return view, indexed, shape, index


def _gather_key(x, key):
    """x[key] by one gather (``_advanced_index``); the broadcast index
    shape stands where NumPy puts it (at the first indexed axis when the
    indexed axes are adjacent, else in front)."""
    view, indexed, shape, index = _advanced_index(x, key)
    rest = [a for a in range(view.ndim) if a not in indexed]
    moved = ops.transpose(view, indexed + rest)
    count = int(np.prod([view.shape[a] for a in indexed]))
    tail = [view.shape[a] for a in rest]
    rows = ops.reshape(moved, 1, count, int(np.prod(tail)))
    if index.size == 0 or rows.shape[2] == 0:
        out = ops._empty(tuple(shape) + tuple(tail), x.dtype, x._device,
                         x.usm_type)
    else:
        out = ops.reshape(_kernels().take_rows(rows, ops.copy(index),
                                               checked=True),
                          tuple(shape) + tuple(tail))
    adjacent = indexed == list(range(indexed[0], indexed[-1] + 1))
    if not adjacent or indexed[0] == 0:
        return out
    # The broadcast dims where the first indexed axis stood.
    b = len(shape)
    order = list(range(b, b + indexed[0])) + list(range(b)) + \
        list(range(b + indexed[0], out.ndim))
    return ops.copy(ops.transpose(out, order))


def _scatter_key(x, key, value):
    """x[key] = value by one scatter over the indexed axes moved to the
    front (through a contiguous copy where that view is not one)."""
    view, indexed, shape, index = _advanced_index(x, key)
    rest = [a for a in range(view.ndim) if a not in indexed]
    count = int(np.prod([view.shape[a] for a in indexed]))
    tail = [view.shape[a] for a in rest]
    result_shape = tuple(shape) + tuple(tail)
    adjacent = indexed == list(range(indexed[0], indexed[-1] + 1))
    if adjacent and indexed[0] > 0:  # the value in NumPy's result order
        b = len(shape)
        value = _device_array(value, "setitem", x._device)
        value = _broadcast(ops.astype(value, x.dtype, copy=False), tuple(
            tail[:indexed[0]]) + tuple(shape) + tuple(tail[indexed[0]:]))
        order = list(range(indexed[0], indexed[0] + b)) + \
            list(range(indexed[0])) + \
            list(range(indexed[0] + b, value.ndim))
        value = ops.transpose(value, order)
    else:
        value = _device_array(value, "setitem", x._device)
        value = _broadcast(ops.astype(value, x.dtype, copy=False),
                           result_shape)
    if index.size == 0 or int(np.prod(tail)) == 0:
        return
    moved = ops.transpose(view, indexed + rest)
    target = moved if moved.flags.c_contiguous else ops.copy(moved)
    _kernels().put_rows(ops.reshape(target, 1, count, int(np.prod(tail))),
                        ops.copy(index),
                        ops.reshape(ops.copy(value), 1, index.size,
                                    int(np.prod(tail))))
    if target is not moved:
        moved[...] = target


@contextlib.contextmanager
def _numpy_errors():
    """NumPy's IndexError/ValueError as spirjit's classes, same message."""
    try:
        yield
    except IndexError as e:
        raise errors.ArrayIndexError(str(e)) from None
    except ValueError as e:
        raise errors.InvalidArgumentError(str(e)) from None


def _split(key, ndim):
    """Where the single array of ``key`` sits: the basic indices before and
    after it, with ... expanded against ``ndim`` minus the array's axes."""
    at = next(i for i, k in enumerate(key) if isinstance(k, DeviceArray))
    arr = key[at]
    consumed = arr.ndim if arr.dtype == np.bool_ else 1
    real = sum(1 for k in key if k is not None and k is not Ellipsis and
               not isinstance(k, DeviceArray)) + consumed
    if real > ndim:
        raise errors.ArrayIndexError(
            f"too many indices for array: array is {ndim}-dimensional, "
            f"but {real} were indexed")
    before, after = list(key[:at]), list(key[at + 1:])
    fill = [slice(None)] * (ndim - real)
    if Ellipsis in before:
        i = before.index(Ellipsis)
        before[i:i + 1] = fill
    elif Ellipsis in after:
        i = after.index(Ellipsis)
        after[i:i + 1] = fill
    else:
        after += fill
    return before, arr, after


def _check_basic(parts):
    for k in parts:
        if k is not None and not isinstance(k, slice):
            try:
                operator.index(k)
            except TypeError:
                raise errors.ArrayIndexError(
                    "only integers, slices (`:`), ellipsis (`...`), "
                    "numpy.newaxis (`None`) and integer or boolean arrays "
                    "are valid indices") from None


def _mask_read(x, key):
    before, mask, after = _split(key, x.ndim)
    _check_basic(before + after)
    if before or any(not (isinstance(k, slice) and k == slice(None))
                     for k in after):
        view = x[tuple(before) + (slice(None),) * mask.ndim + tuple(after)]
        lead = sum(1 for k in before if isinstance(k, slice) or k is None)
        if lead:  # a mask after other axes: a gather by its nonzero()
            return _gather_key(x, key)
        return _mask_read(view, (mask,))
    _check_mask(x, mask, 0)
    rest = x.shape[mask.ndim:]
    flatmask = ops.reshape(mask, -1)
    if not rest:
        return _kernels().compact(flatmask, ops.reshape(x, -1))
    positions = _kernels().compact(flatmask)
    rows = ops.reshape(x, 1, -1, int(np.prod(rest)))
    out = _kernels().take_rows(rows, positions)
    return ops.reshape(out, (positions.shape[0],) + tuple(rest))


def _check_mask(x, mask, axis):
    for i, n in enumerate(mask.shape):
        if x.shape[axis + i] != n:
            raise errors.ArrayIndexError(
                f"boolean index did not match indexed array along axis "
                f"{axis + i}; size of axis is {x.shape[axis + i]} but size "
                f"of corresponding boolean axis is {n}")


def setitem(x, key, value):
    """x[key] = value where ``key`` holds integer or boolean arrays."""
    key = _index_arrays(key, x._device)
    arrays = [k for k in key if isinstance(k, DeviceArray)]
    if _on_host(x, *arrays, value):
        if isinstance(value, DeviceArray):
            value = host_view(value)
        with _numpy_errors():
            host_view(x)[_host_key(key)] = value
        return
    if len(arrays) == 1 and arrays[0].dtype == np.bool_:
        before, arr, after = _split(key, x.ndim)
        _check_basic(before + after)
        if not before and all(isinstance(k, slice) and k == slice(None)
                              for k in after):
            _check_mask(x, arr, 0)
            _mask_write(x, arr, value)
            return
    _scatter_key(x, key, value)


def _mask_write(x, mask, value):
    rest = x.shape[mask.ndim:]
    if not isinstance(value, DeviceArray) and np.ndim(value) == 0:
        m = mask._view(list(mask.shape) + [1] * len(rest),
                       list(mask.strides) + [0] * len(rest), mask._offset)
        x[...] = ops.where(m, np.asarray(value).astype(x.dtype)[()]
                           if not isinstance(value, np.generic) else value, x)
        return
    value = _device_array(value, "setitem", x._device)
    if value.size == 1 and value.ndim <= 1 + len(rest):
        m = mask._view(list(mask.shape) + [1] * len(rest),
                       list(mask.strides) + [0] * len(rest), mask._offset)
        x[...] = ops.where(m, ops.astype(ops.reshape(value, ()), x.dtype), x)
        return
    if rest:
        raise errors.NotSupportedError(
            "this device assigns arrays through a mask over all axes only")
    target = x if x.flags.c_contiguous else ops.copy(x)
    flat = ops.reshape(target, -1)
    _kernels().scatter_masked(flat, ops.reshape(mask, -1),
                              ops.astype(ops.reshape(value, -1), x.dtype))
    if target is not x:
        x[...] = target


def _broadcast(x, shape):
    shape = tuple(shape)
    try:
        if np.broadcast_shapes(x.shape, shape) != shape:
            raise ValueError
    except ValueError:
        raise errors.InvalidArgumentError(
            f"operands could not be broadcast together with remapped shapes "
            f"[original->remapped]: {x.shape} and requested shape "
            f"{shape}") from None
    lead = len(shape) - x.ndim
    strides = [0] * lead + [0 if n == 1 and m != 1 else s for n, m, s in
                            zip(x.shape, shape[lead:], x.strides)]
    return x._view(list(shape), strides, x._offset)


# ----------------------------------------------------------------- gathers

def take(x, indices, axis):
    """Elements of ``x`` at ``indices`` along ``axis`` (None: flattened)."""
    x = _device_array(x, "take")
    indices = _device_array(indices, "take", x._device)
    if indices.dtype.kind not in "iu":
        raise errors.ArrayIndexError(
            "arrays used as indices must be of integer type")
    if axis is None:
        x = ops.reshape(x, -1)
        axis = 0
    axis = _axis(x, axis, "take")
    if _on_host(x, indices):
        shape = x.shape[:axis] + indices.shape + x.shape[axis + 1:]
        out, view = result_like(shape, x.dtype, x)
        with _numpy_errors():
            np.take(host_view(x), host_view(indices), axis=axis, out=view)
        return out
    n = x.shape[axis]
    pre = int(np.prod(x.shape[:axis]))
    post = int(np.prod(x.shape[axis + 1:]))
    flat = ops.reshape(indices, -1)
    shape = x.shape[:axis] + indices.shape + x.shape[axis + 1:]
    if flat.shape[0] == 0 or pre * post == 0:
        if flat.shape[0] and n == 0:
            raise errors.ArrayIndexError(
                "cannot do a non-empty take from an empty axes.")
        return ops._empty(shape, x.dtype, x._device, x.usm_type)
    rows = ops.reshape(x, pre, n, post)
    return ops.reshape(_kernels().take_rows(rows, flat), shape)


def take_along_axis(x, indices, axis=-1):
    """``x``'s elements at ``indices`` along ``axis``, matched with the
    other axes elementwise (NumPy's take_along_axis)."""
    x = _device_array(x, "take_along_axis")
    indices = _device_array(indices, "take_along_axis", x._device)
    if indices.dtype.kind not in "iu":
        raise errors.ArrayIndexError(
            "`indices` must be an integer array")
    if x.ndim != indices.ndim:
        raise errors.InvalidArgumentError(
            "`indices` and `arr` must have the same number of dimensions")
    axis = _axis(x, axis, "take_along_axis")
    if _on_host(x, indices):
        with _numpy_errors():
            return to_device_like(np.take_along_axis(
                host_view(x), host_view(indices), axis), x)
    # flat index = (other coordinates of x) * n + idx, along a moved axis
    n = x.shape[axis]
    shape = np.broadcast_shapes(
        tuple(1 if a == axis else s for a, s in enumerate(x.shape)),
        tuple(1 if a == axis else s for a, s in enumerate(indices.shape)))
    shape = tuple(indices.shape[a] if a == axis else shape[a]
                  for a in range(x.ndim))
    if int(np.prod(shape)) == 0:
        if n == 0 and indices.size:
            raise errors.ArrayIndexError(
                "cannot take along an empty axis")
        return ops._empty(shape, x.dtype, x._device, x.usm_type)
    xb = _broadcast(x, tuple(n if a == axis else shape[a]
                             for a in range(x.ndim)))
    ib = _broadcast(indices, shape)
    xr, _, order = _moved(xb, axis)
    ir, moved_shape, _ = _moved(ib, axis)
    rows = xr.shape[0]
    m = ir.shape[1]
    from . import _library_kernels as K
    base = ops.apply_ufunc(np.multiply, (ops.reshape(
        K.iota(rows, np.int64, x._device), rows, 1), n))
    wrapped = ops.apply_ufunc(np.add, (ops.astype(ir, np.int64), ops.where(
        ops.apply_ufunc(np.less, (ir, 0)), n, 0)))
    _check_bounds(wrapped, n, axis, ir)
    flat = ops.reshape(ops.apply_ufunc(np.add, (wrapped, base)), -1)
    out = K.take_rows(ops.reshape(xr, 1, rows * n, 1), flat)
    return _unmoved(ops.reshape(out, rows, m), moved_shape, order)


def _check_bounds(wrapped, n, axis, original):
    if wrapped.size == 0:
        return
    low, high = int(wrapped.min()), int(wrapped.max())
    if low < 0 or high >= n:
        bad = int(original.min()) if low < 0 else int(original.max())
        raise errors.ArrayIndexError(
            f"index {bad} is out of bounds for axis {axis} with size {n}")


def searchsorted(x1, x2, side="left", sorter=None):
    """Where ``x2``'s elements would go in sorted 1-D ``x1`` (int64)."""
    x1 = _device_array(x1, "searchsorted")
    x2 = _device_array(x2, "searchsorted", x1._device)
    if side not in ("left", "right"):
        raise errors.InvalidArgumentError(
            f"side must be 'left' or 'right' (got {side!r})")
    if x1.ndim != 1:
        raise errors.InvalidArgumentError("object too deep for desired array"
                                          if x1.ndim > 1 else
                                          "object of too small depth for "
                                          "desired array")
    if sorter is not None:
        x1 = take(x1, sorter, 0)
    dtype = np.result_type(x1.dtype, x2.dtype)
    if _on_host(x1, x2):
        return to_device_like(np.searchsorted(
            host_view(x1).astype(dtype, copy=False),
            host_view(x2).astype(dtype, copy=False), side=side)
            .astype(np.int64), x1)
    if x2.size == 0:
        return ops._empty(x2.shape, np.int64, x1._device, x1.usm_type)
    if x1.size == 0:
        return _spirjit.to_device(np.zeros(x2.shape, np.int64), x1._device,
                                  x1.usm_type)
    return _kernels().searchsorted(ops.astype(x1, dtype, copy=False),
                                   ops.astype(x2, dtype, copy=False), side)


# -------------------------------------------------------------- set functions

def unique(x, counts=False, indices=False, inverse=False, equal_nan=False):
    """The sorted distinct values of ``x`` (flattened) and what is asked:
    the first index of each (``indices``), the index of each element's
    value (``inverse``, x's shape), each value's count. NaNs are distinct
    unless ``equal_nan`` (NumPy's np.unique collapses them)."""
    x = _device_array(x, "unique")
    flat = ops.reshape(x, -1)
    n = flat.shape[0]
    if _on_host(x):
        h = host_view(flat)
        order = np.argsort(h, kind="stable")
        s = h[order]
        first = _firsts(s, equal_nan)
        values = s[first]
        result = [to_device_like(values, x)]
        starts = np.flatnonzero(first)
        if indices:
            result.append(to_device_like(order[starts].astype(np.int64), x))
        if inverse:
            inv = np.empty(n, np.int64)
            inv[order] = np.cumsum(first) - 1
            result.append(to_device_like(inv.reshape(x.shape), x))
        if counts:
            result.append(to_device_like(
                np.diff(np.append(starts, n)).astype(np.int64), x))
        return result
    if n == 0:
        empty = ops._empty((0,), np.int64, x._device, x.usm_type)
        result = [ops._empty((0,), x.dtype, x._device, x.usm_type)]
        if indices:
            result.append(empty)
        if inverse:
            result.append(ops._empty(x.shape, np.int64, x._device,
                                     x.usm_type))
        if counts:
            result.append(empty)
        return result
    K = _kernels()
    order = ops.reshape(K.argsort_rows(ops.reshape(flat, 1, n)), -1)
    s = ops.reshape(K.take_rows(ops.reshape(flat, 1, n, 1), order), -1)
    first = _firsts_device(s, equal_nan)
    starts = K.compact(first)
    values = ops.reshape(K.take_rows(ops.reshape(s, 1, n, 1), starts), -1)
    result = [values]
    if indices:
        result.append(ops.reshape(K.take_rows(
            ops.reshape(order, 1, n, 1), starts), -1))
    if inverse:
        rank = ops.apply_ufunc(np.subtract, (ops.reshape(K.scan_rows(
            ops.reshape(first, 1, n), "+", np.int64), -1), 1))
        inv = ops._empty((n,), np.int64, x._device, x.usm_type)
        K.put_rows(ops.reshape(inv, 1, n, 1), order,
                   ops.reshape(ops.copy(rank), 1, n, 1))
        result.append(ops.reshape(inv, x.shape))
    if counts:
        ends = ops._empty((starts.shape[0] + 1,), np.int64, x._device,
                          x.usm_type)
        ends[:-1] = starts
        ends[-1:] = np.array([n], np.int64)
        result.append(ops.copy(ops.apply_ufunc(
            np.subtract, (ends[1:], ends[:-1]))))
    return result


def _firsts(s, equal_nan):
    first = np.empty(s.shape, np.bool_)
    if s.size:
        first[0] = True
        first[1:] = s[1:] != s[:-1]
        if equal_nan and s.dtype.kind in "fc":
            first[1:] &= ~(np.isnan(s[1:]) & np.isnan(s[:-1]))
    return first


def _firsts_device(s, equal_nan):
    n = s.shape[0]
    first = ops._empty((n,), np.bool_, s._device, s.usm_type)
    first[:1] = np.array([True])
    if n > 1:
        differ = ops.apply_ufunc(np.not_equal, (s[1:], s[:-1]))
        if equal_nan and s.dtype.kind in "fc":
            both = ops.apply_ufunc(np.logical_and, (
                ops.apply_ufunc(np.isnan, (s[1:],)),
                ops.apply_ufunc(np.isnan, (s[:-1],))))
            differ = ops.apply_ufunc(np.logical_and, (
                differ, ops.apply_ufunc(np.logical_not, (both,))))
        first[1:] = differ
    return first
