"""DeviceArray arithmetic as NumPy users know it: operators, ufuncs through
``__array_ufunc__``, ``np.where`` and friends through ``__array_function__``,
reductions, ``astype``/``copy``/``reshape``/``T`` and the matrix product.

Contract: ``install(DeviceArray)`` adds these methods. Every operation finds
one device (the DeviceArrays' own; DeviceArrays on two devices raise
DeviceInferenceError), moves NumPy operands there, asks NumPy for the result
dtype (``ufunc.resolve_dtypes``, so NEP 50's weak Python scalars and every
promotion and casting error are NumPy's own) and the broadcast shape, and
records a node of the array-expression graph (``_spirjit``, in C++) or
launches a library kernel (``_array_library``) there. Nothing is computed
on the host: a ufunc without a kernel raises TypeError rather than copying.
"""

import contextvars
import math
import numbers
import operator

import numpy as np

from . import _spirjit, errors
from . import kernel_api as kapi
from ._spirjit import DeviceArray

def _empty(shape, dtype, device, usm_type="device"):
    """Uninitialised C-contiguous memory on ``device`` (a runtime device)."""
    return _spirjit.empty(list(shape), np.dtype(dtype), device, usm_type)


# The ufuncs DeviceArrays compute: the elementwise rows of
# compiler/ArrayOps.def, the one table kernels and jit code read too. The
# fused kernels (compiler/ArrayKernel) call each as `np.<name>(...)`, which
# computes it with NumPy's rules (np.maximum's NaN included).
UFUNCS = {row["numpy"]: row for row in _spirjit.array_ops()
          if row["kind"] == "Elementwise"}

_SCALARS = (numbers.Number, np.generic)

# The dtypes DeviceArrays hold (the bindings' typeOfDType: in the host's
# byte order; no float16, strings or objects). A new array of any other
# would record a node without an element type, an internal error.
DTYPES = {name: np.dtype(name) for name in (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
    "uint64", "float32", "float64", "complex64", "complex128")}
_DEVICE_DTYPES = frozenset(DTYPES.values())


def _is_operand(value):
    return isinstance(value, (DeviceArray, np.ndarray, list, tuple) +
                      _SCALARS)


# The device of the DeviceArray whose NumPy function is running
# (``__array_function__``). The implementations make one operand a
# DeviceArray at a time, so a NumPy operand that comes first
# (np.searchsorted(host, x)) would otherwise go to the default device, not
# x's, as API.md has it join.
_CALL_DEVICE = contextvars.ContextVar("spirjit_call_device", default=None)


def operand_device():
    """The runtime device a NumPy operand joins when no DeviceArray beside
    it names one: that of the NumPy function's DeviceArray while one runs,
    else the default device."""
    device = _CALL_DEVICE.get()
    if device is None:
        from . import _resolve_device
        device = _resolve_device(None)
    return device


def common_device(values, what="operands"):
    """The runtime device of the DeviceArrays among ``values`` (None if
    there are none); DeviceInferenceError if they live on different ones."""
    device = None
    for value in values:
        if isinstance(value, DeviceArray):
            if device is None:
                device = value._device
            elif value._device.filter_string != device.filter_string:
                raise errors.DeviceInferenceError(
                    f"{what} live on different devices: "
                    f"{device.filter_string} and "
                    f"{value._device.filter_string}; move one first, "
                    "e.g. x.to_device(y.device)")
    return device


_USM_ORDER = ("device", "shared", "host")


def usm_type_of(values):
    """The usm_type of a result computed from ``values``: dpctl's rule, the
    most device-bound kind among their DeviceArrays ("device" if none)."""
    kinds = [v.usm_type for v in values if isinstance(v, DeviceArray)]
    return min(kinds, key=_USM_ORDER.index) if kinds else "device"


def _dtype_key(value):
    """What resolve_dtypes sees of ``value``: Python numbers are weak."""
    if isinstance(value, (DeviceArray, np.ndarray, np.generic)):
        return value.dtype
    if isinstance(value, bool):
        return np.dtype(np.bool_)
    if isinstance(value, (int, float, complex)):
        return type(value)
    return np.asarray(value).dtype


def _to_operand(value, dtype, device):
    """``value`` as a kernel operand: DeviceArrays as they are, NumPy data
    moved to ``device`` as ``dtype``, scalars as NumPy scalars of ``dtype``
    (NumPy's conversion errors included: int8 + 300 overflows)."""
    if isinstance(value, DeviceArray):
        return value
    if isinstance(value, _SCALARS):
        return np.asarray(value, dtype=dtype)[()]
    array = np.asarray(value)
    if array.ndim == 0:
        return array.astype(dtype)[()]
    return _spirjit.to_device(np.ascontiguousarray(array, dtype=dtype),
                              device)


def _unsupported(ufunc, method="__call__"):
    what = f"numpy.{ufunc.__name__}"
    if method != "__call__":
        what += f".{method}"
    return errors.TypingError(
        f"{what} has no spirjit kernel for DeviceArrays; copy the data to "
        "the host first (np.asarray(x)) to compute it with NumPy")


def _overlaps(a, b):
    """Whether two DeviceArrays may share memory and are not the same view
    (a kernel writing one while reading the other would race)."""
    if a._buffer_key != b._buffer_key:
        return False
    return not (a._offset == b._offset and a.shape == b.shape and
                a.strides == b.strides)


# Comparisons whose answer NumPy 2 settles for an int out of the array's
# range (_array_numpy_values.compare_out_of_range).
_COMPARISONS = {"equal", "not_equal", "less", "less_equal", "greater",
                "greater_equal"}


def apply_ufunc(ufunc, inputs, out=None, device=None):
    """ufunc(*inputs, out=out) on the device of the DeviceArrays among
    ``inputs`` and ``out`` (or ``device``, or the default device)."""
    name = ufunc.__name__
    if name == "matmul":
        a, b = inputs
        return matmul(a, b, out)
    if name not in UFUNCS or ufunc.nout != 1:
        raise _unsupported(ufunc)
    if ufunc.nin != len(inputs):
        raise errors.TypingError(f"numpy.{name} takes {ufunc.nin} inputs, "
                                 f"got {len(inputs)}")
    if device is None:
        device = common_device(list(inputs) + [out])
    if device is None:
        device = operand_device()
    if name in _COMPARISONS and len(inputs) == 2:
        from ._array_numpy_values import compare_out_of_range
        settled = compare_out_of_range(name, inputs, device)
        if settled is not None:
            return settled if out is None else write_out(out, settled, name)
    # NumPy's own loop choice: weak Python scalars (NEP 50), the casting
    # of each input, the result dtype, and TypeError where no loop fits.
    loop = ufunc.resolve_dtypes(tuple(_dtype_key(v) for v in inputs) +
                                (None,))
    # No float16 on devices: NumPy's float16 loops (np.sqrt of a bool or
    # int8) run in float32, as kernels compute them.
    loop = tuple(np.dtype(np.float32) if np.dtype(d) == np.float16 else d
                 for d in loop)
    if name == "power" and loop[-1].kind in "iu":
        from ._array_numpy_values import check_exponent
        check_exponent(inputs[1], getattr(inputs[0], "dtype", None))
    shapes = [np.shape(v) if not isinstance(v, DeviceArray) else v.shape
              for v in inputs]
    shape = np.broadcast_shapes(*shapes)
    if out is not None:
        if not isinstance(out, DeviceArray):
            raise errors.TypingError(
                "out= of a DeviceArray operation must be a "
                f"DeviceArray, not {type(out).__name__}")
        if out.shape != shape:
            raise errors.InvalidArgumentError(
                f"non-broadcastable output operand with shape {out.shape} "
                f"doesn't match the broadcast shape {shape}")
        if not np.can_cast(loop[-1], out.dtype, "same_kind"):
            raise errors.TypingError(
                f"Cannot cast ufunc '{name}' output from {loop[-1]!r} to "
                f"{out.dtype!r} with casting rule 'same_kind'")
    operands = [_to_operand(value, dtype, device)
                for value, dtype in zip(inputs, loop)]
    return _spirjit._apply(name, operands, loop, np.dtype(loop[-1]), shape,
                           device, out)


def copy(x, dtype=None):
    """A new C-contiguous DeviceArray with ``x``'s elements (as ``dtype``)."""
    dtype = np.dtype(dtype) if dtype is not None else x.dtype
    if dtype not in _DEVICE_DTYPES:
        # asarray's message, and what a device can hold instead
        raise errors.TypingError(
            f"arrays of dtype {dtype} cannot live on a device (DeviceArrays "
            "hold bool, int8-int64, uint8-uint64, float32, float64, "
            "complex64 and complex128)")
    return _spirjit._apply("copy", [x], (dtype, dtype), dtype, x.shape,
                           x._device)


def assign_on_device(view, value):
    """view[...] = value by a kernel when both DeviceArrays live on one
    device and NumPy would broadcast and cast ``value`` without complaint;
    False (nothing written) otherwise, for the host path and its errors."""
    if value._device.filter_string != view._device.filter_string:
        return False
    if value.dtype.kind == "c" and view.dtype.kind != "c":
        return False  # NumPy warns that the imaginary part is dropped
    try:
        if np.broadcast_shapes(value.shape, view.shape) != view.shape:
            return False
    except ValueError:
        return False
    _spirjit._assign(view, value)
    return True


def astype(x, dtype, copy=True):
    """The elements cast to ``dtype`` (NumPy's unsafe casting), computed on
    the array's device; ``copy=False`` returns ``x`` itself when it already
    has that dtype."""
    dtype = np.dtype(dtype)
    if dtype == x.dtype and not copy:
        return x
    return globals()["copy"](x, dtype)


_NO_BYTES = np.dtype([])


def is_contiguous(x, order="C"):
    """NumPy's ``flags.c_contiguous`` (order "C") or ``f_contiguous``
    ("F") of the DeviceArray x: its elements lie in that order without
    gaps (an empty array always does)."""
    shape = x.shape
    if 0 in shape:
        return True
    pairs = list(zip(shape, x.strides))
    expected = x.dtype.itemsize
    for n, step in reversed(pairs) if order == "C" else pairs:
        if n != 1 and step != expected:
            return False
        expected *= n
    return True


def _layout_order(x, order):
    """'C' or 'F' for NumPy's order argument ('A': F where x is
    F-contiguous and not C-contiguous, as 'K' for a copy)."""
    if order in ("A", "K"):
        return "F" if x.ndim > 1 and is_contiguous(x, "F") and \
            not is_contiguous(x, "C") else "C"
    if order not in ("C", "F"):
        raise errors.InvalidArgumentError(
            f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    return order


def reshape(x, *shape, order="C"):
    """A view with ``shape`` when ``x`` is C-contiguous (else a copy, as
    NumPy does); one extent may be -1. order='F' reads and places the
    elements in Fortran order."""
    if len(shape) == 1 and not isinstance(shape[0], numbers.Integral):
        shape = tuple(shape[0])
    if order != "C":
        if order == "K":
            raise errors.InvalidArgumentError(
                "order 'K' is not permitted for reshaping")
        if _layout_order(x, order) == "F":
            return transpose(reshape(transpose(x), tuple(reversed(shape))))
    shape = tuple(operator.index(n) for n in shape)
    if min(shape, default=0) < 0 or math.prod(shape) != x.size:
        known = [n for n in shape if n != -1]
        rest = math.prod(known)
        if len(known) == len(shape) - 1 and min(known, default=1) > 0 \
                and x.size % rest == 0:  # one -1 extent, as NumPy finds it
            shape = tuple(x.size // rest if n == -1 else n for n in shape)
        else:
            # NumPy's own checks and errors, on an array of elements of no
            # bytes (a bool array of x's shape took 20 us at 2^26 elements)
            shape = np.empty(x.shape, dtype=_NO_BYTES).reshape(shape).shape
    if not is_contiguous(x):
        x = copy(x)
    return x._view(list(shape), _c_strides(shape, x.dtype), x._offset)


def shape_in_place(x, shape):
    """(shape, strides) of ``x.shape = shape``: NumPy's own answer for a
    view of x's layout over no memory (as_strided reads none), so its
    rules and its AttributeError ("Incompatible shape for in-place
    modification") are NumPy's."""
    ghost = np.lib.stride_tricks.as_strided(
        np.zeros(1, dtype=x.dtype), shape=x.shape, strides=x.strides)
    ghost.shape = shape
    return tuple(ghost.shape), tuple(ghost.strides)


def transpose(x, axes=None):
    axes = tuple(reversed(range(x.ndim))) if axes is None else tuple(axes)
    if len(axes) != x.ndim:
        raise errors.InvalidArgumentError("axes don't match array")
    axes = [normalize_axis(a, x.ndim) for a in axes]
    if len(set(axes)) != len(axes):
        raise errors.InvalidArgumentError("repeated axis in transpose")
    return x._view([x.shape[a] for a in axes], [x.strides[a] for a in axes],
                   x._offset)


def normalize_axis(axis, ndim, prefix=None):
    """NumPy's normalize_axis_index: the integer ``axis`` of ``ndim`` axes
    counted from 0; one outside [-ndim, ndim) is NumPy's AxisError (its
    message, after ``prefix``), never wrapped around to another axis."""
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise errors.ArrayAxisError(axis, ndim, prefix)
    return axis % ndim


def normalize_axes(x, axis):
    """NumPy's reading of ``axis`` (None, an int or a tuple of them) for
    ``x``: a sorted list of axes; AxisError or ValueError as NumPy's."""
    if axis is None:
        return list(range(x.ndim))
    axes = [normalize_axis(a, x.ndim)
            for a in (axis if isinstance(axis, tuple) else (axis,))]
    if len(set(axes)) != len(axes):
        raise errors.InvalidArgumentError("duplicate value in 'axis'")
    return sorted(axes)


_REDUCTION_DTYPE = {"sum": np.sum, "prod": np.prod, "min": np.min,
                    "max": np.max, "mean": np.mean}


def write_out(out, result, name):
    """NumPy's out= of a reduction or scan: the result stored into ``out``
    (a DeviceArray of the result's shape, its own dtype kept), which is
    returned."""
    if not isinstance(out, DeviceArray):
        raise errors.TypingError(
            f"{name}(out=...) of DeviceArrays takes a DeviceArray, not "
            f"{type(out).__name__}")
    if tuple(out.shape) != tuple(result.shape):
        raise errors.InvalidArgumentError(
            f"output parameter for {name} has the wrong shape: "
            f"{tuple(out.shape)}, where the result's is "
            f"{tuple(result.shape)}")
    out[...] = result
    return out


def reduce(op, x, axis=None, keepdims=False, out=None):
    """``op`` ("sum", "prod", "min", "max", "mean") over all of ``x`` or
    some axes, as NumPy's method of that name; the result is a DeviceArray
    (0-d for axis=None) of NumPy's result dtype, computed lazily: the
    reduction and the element-wise operations before it are one kernel."""
    if out is not None:
        return write_out(out, reduce(op, x, axis, keepdims), op)
    if x.ndim == 0 and axis is not None and axis not in (0, -1, (), (0,),
                                                         (-1,)):
        raise errors.ArrayAxisError(
            axis if isinstance(axis, int) else axis[0], 0)
    axes = [] if x.ndim == 0 else normalize_axes(x, axis)
    result_dtype, acc_dtype, kernel_acc = reduction_dtypes(op, x.dtype)
    kept = [a for a in range(x.ndim) if a not in axes]
    rows = int(np.prod([x.shape[a] for a in kept]))
    count = int(np.prod([x.shape[a] for a in axes]))
    final = tuple(1 if a in axes else x.shape[a] for a in range(x.ndim)) \
        if keepdims else tuple(x.shape[a] for a in kept)
    device = x._device
    if count == 0:
        if op in ("min", "max"):
            name = "minimum" if op == "min" else "maximum"
            raise errors.InvalidArgumentError(
                f"zero-size array to reduction operation {name} "
                "which has no identity")
        fill = {"sum": 0, "prod": 1, "mean": np.nan}[op]
        return _spirjit.to_device(np.full(final, fill, result_dtype), device,
                                  x.usm_type)
    if rows == 0:
        return _empty(final, result_dtype, device, x.usm_type)
    result = _spirjit._reduce(
        x, "sum" if op == "mean" else op, axes, kernel_acc, acc_dtype)
    if keepdims and result.shape != final:
        result = result._view(list(final), _c_strides(final, acc_dtype),
                              result._offset)
    if op == "mean":
        result = apply_ufunc(np.divide,
                             (result, np.dtype(acc_dtype).type(count)))
        if result.dtype != result_dtype:
            result = copy(result, result_dtype)
    elif np.dtype(acc_dtype) != result_dtype:
        result = copy(result, result_dtype)
    return result


def reduction_dtypes(op, dtype):
    """NumPy's dtypes of reduction ``op`` over ``dtype``: the result's, the
    accumulator's (float64 for a mean of integers), and the one kernels fold
    in (at least 32 bits for min and max: the group reductions' widths)."""
    result = _REDUCTION_DTYPE[op](np.zeros(1, dtype)).dtype
    acc = np.dtype(np.float64) if op == "mean" and np.dtype(
        dtype).kind in "biu" else result
    kernel = acc
    if op in ("min", "max") and acc.itemsize < 4 and acc.kind in "biu":
        kernel = np.dtype(np.uint32 if acc.kind == "u" else np.int32)
    return result, acc, kernel


def _c_strides(shape, dtype):
    strides, step = [], np.dtype(dtype).itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return list(reversed(strides))


def where(condition, x=None, y=None):
    """np.where(condition, x, y) on the operands' device; np.where(condition)
    is np.nonzero(condition)."""
    if x is None and y is None:
        from . import _array_primitives as prims
        return prims.nonzero(condition if isinstance(condition, DeviceArray)
                             else _spirjit.to_device(np.asarray(condition),
                                                     common_device(
                                                         [condition])))
    if x is None or y is None:
        raise errors.InvalidArgumentError(
            "either both or neither of x and y should be given")
    device = common_device([condition, x, y])
    if device is None:
        device = operand_device()
    dtype = np.result_type(*(v.dtype if isinstance(v, DeviceArray) else v
                             for v in (x, y)))
    shape = np.broadcast_shapes(*(np.shape(v) if not isinstance(
        v, DeviceArray) else v.shape for v in (condition, x, y)))
    loop = (np.dtype(np.bool_), dtype, dtype, dtype)
    operands = [_to_operand(v, d, device) for v, d in zip(
        (condition, x, y), loop)]
    return _spirjit._apply("where", operands, loop, dtype, shape, device)


def matmul(a, b, out=None):
    """a @ b for 1-D and 2-D operands, NumPy's rules for 1-D ones."""
    device = common_device([a, b, out])
    loop = np.matmul.resolve_dtypes((_dtype_key(a), _dtype_key(b), None))
    a, b = (_to_operand(v, d, device) for v, d in zip((a, b), loop))
    if not isinstance(a, DeviceArray) or not isinstance(b, DeviceArray):
        raise errors.InvalidArgumentError(
            "matmul: Input operand does not have enough "
            "dimensions (a scalar is not a matrix)")
    if a.ndim == 0 or b.ndim == 0:
        raise errors.InvalidArgumentError(
            "matmul: Input operand does not have enough dimensions (a 0-d "
            "array is not a matrix)")
    if a.ndim > 2 or b.ndim > 2:
        result = _batched_matmul(a, b, loop[-1])
        return result if out is None else write_out(out, result, "matmul")
    a2 = a if a.ndim == 2 else a._view([1, a.shape[0]], [0, a.strides[0]],
                                       a._offset)
    b2 = b if b.ndim == 2 else b._view([b.shape[0], 1], [b.strides[0], 0],
                                       b._offset)
    if a2.shape[1] != b2.shape[0]:
        raise errors.InvalidArgumentError(
            f"matmul: Input operand 1 has a mismatch in its core dimension "
            f"0, with gufunc signature (n?,k),(k,m?)->(n?,m?) (size "
            f"{b2.shape[0]} is different from {a2.shape[1]})")
    shape = (a2.shape[0], b2.shape[1])
    final = tuple(n for n, keep in zip(shape, (a.ndim == 2, b.ndim == 2))
                  if keep)
    result = _empty(shape, loop[-1], a._device, usm_type_of((a, b)))
    from . import _array_primitives as prims
    if prims._on_host(a2, b2):
        # The host's BLAS in place on the device's memory (API.md, "Where
        # the work runs"): NumPy's matmul writes the result directly.
        h = prims.host_view
        if result.size:
            np.matmul(h(a2).astype(loop[-1], copy=False),
                      h(b2).astype(loop[-1], copy=False), out=h(result))
    else:
        from . import _vendor
        # cuBLAS on CUDA devices where it loads; the tiled kernel elsewhere.
        if not _vendor.gemm(a2, b2, result):
            result = _matmul(a2, b2, result)
    result = result._view(list(final), _c_strides(final, loop[-1]),
                          result._offset)
    return result if out is None else write_out(out, result, "matmul")


def _batched_matmul(a, b, dtype):
    """NumPy's matmul of operands with more than two dimensions: the
    leading axes broadcast, each matrix product by itself."""
    from . import _array_primitives as prims
    a_mat = a if a.ndim > 1 else a._view([1, a.shape[0]], [0, a.strides[0]],
                                          a._offset)
    b_mat = b if b.ndim > 1 else b._view([b.shape[0], 1], [b.strides[0], 0],
                                          b._offset)
    if a_mat.shape[-1] != b_mat.shape[-2]:
        raise errors.InvalidArgumentError(
            f"matmul: Input operand 1 has a mismatch in its core dimension "
            f"0, with gufunc signature (n?,k),(k,m?)->(n?,m?) (size "
            f"{b_mat.shape[-2]} is different from {a_mat.shape[-1]})")
    try:
        batch = np.broadcast_shapes(a_mat.shape[:-2], b_mat.shape[:-2])
    except ValueError:
        raise errors.InvalidArgumentError(
            f"operands could not be broadcast together with shapes "
            f"{a.shape} {b.shape}") from None
    n, m = a_mat.shape[-2], b_mat.shape[-1]
    # A 1-D operand's axis leaves the result (NumPy's rule).
    final = batch + ((n,) if a.ndim > 1 else ()) + ((m,) if b.ndim > 1
                                                     else ())
    if prims._on_host(a, b):
        result = _empty(final, dtype, a._device, usm_type_of((a, b)))
        if result.size:
            np.matmul(prims.host_view(a).astype(dtype, copy=False),
                      prims.host_view(b).astype(dtype, copy=False),
                      out=prims.host_view(result))
        return result
    result = _empty(batch + (n, m), dtype, a._device, usm_type_of((a, b)))
    ab = prims._broadcast(a_mat, batch + a_mat.shape[-2:])
    bb = prims._broadcast(b_mat, batch + b_mat.shape[-2:])
    from . import _vendor
    for index in np.ndindex(*batch):
        if n and m and not _vendor.gemm(ab[index], bb[index], result[index]):
            _matmul(ab[index], bb[index], result[index])
    return reshape(result, final)


def _matmul(a, b, out):
    """out = a @ b for 2-D DeviceArrays (any layout) by the tiled kernel,
    in ``out``'s dtype."""
    from . import _array_library as L
    from ._library_base import _enqueue, _local, _nd_range
    rows, cols = out.shape
    if rows == 0 or cols == 0:
        return out
    T = L.TILE
    tiles = [_local((T * T,), out.dtype) for _ in range(2)]
    _enqueue(L.matmul, _nd_range((-(-rows // T) * T,
                                     -(-cols // T) * T), (T, T)),
             a, b, out, *tiles)
    return out


def _copy_method(self, order="C"):
    """ndarray.copy: C order, or Fortran order for 'F' ('A' and 'K' keep
    a Fortran-ordered array's)."""
    if _layout_order(self, order) == "F":
        return transpose(copy(transpose(self)))
    return copy(self)


def _rebuild(host, device, usm_type):
    import spirjit
    return spirjit.asarray(host, device=device, usm_type=usm_type)


def _reduce(self):
    """Pickling (and so multiprocessing): the values go through the host
    and come back to a device of the same filter string."""
    return (_rebuild, (self.asnumpy(), self.device.filter_string,
                       self.usm_type))


def _item(self, *args):
    """ndarray.item: the one element, or the one a flat index or an index
    per axis names, as a Python number."""
    if not args:
        if self.size != 1:
            # NumPy's ValueError: a shape, not a type, is what is wrong
            raise errors.InvalidArgumentError(
                "can only convert an array of size 1 to a Python scalar")
        return _one_element(self, None).item()
    if len(args) == 1 and isinstance(args[0], tuple):
        args = args[0]
    if len(args) == 1:
        index = operator.index(args[0])
        if not -self.size <= index < self.size:
            raise errors.ArrayIndexError(
                f"index {index} is out of bounds for size {self.size}")
        element = reshape(self, -1)[index]
    else:
        if len(args) != self.ndim:
            raise errors.InvalidArgumentError("incorrect number of indices "
                                              "for array")
        element = self[tuple(operator.index(a) for a in args)]
    return _one_element(element, None).item() \
        if isinstance(element, DeviceArray) else element.item()


def _one_element(x, kind):
    if x.size != 1:
        if kind is bool:
            raise errors.InvalidArgumentError(
                "The truth value of an array with more than one element is "
                "ambiguous. Use a.any() or a.all()")
        raise errors.TypingError(
            "only 1-element DeviceArrays can be converted to "
            "Python scalars")
    return x.asnumpy().reshape(())[()]


def _binary(ufunc, reflected=False):
    def method(self, other):
        if not _is_operand(other):
            return NotImplemented
        inputs = (other, self) if reflected else (self, other)
        return apply_ufunc(ufunc, inputs)
    return method


def _inplace(ufunc):
    def method(self, other):
        if not _is_operand(other):
            return NotImplemented
        return apply_ufunc(ufunc, (self, other), out=self)
    return method


def _fast(ufunc, slow, arity, reflected=False):
    """The operator method: recorded in C++ for DeviceArrays and Python
    numbers (the bindings' fast path), else ``slow``."""
    return _spirjit._operator_method(ufunc.__name__, ufunc, slow, arity,
                                     reflected)


def _unary(ufunc):
    return lambda self: apply_ufunc(ufunc, (self,))


# ufunc.reduce's and ufunc.accumulate's DeviceArray versions: the
# reductions and scans of the same operation.
_UFUNC_REDUCTIONS = {"add": "sum", "multiply": "prod", "minimum": "min",
                     "maximum": "max", "logical_and": "all",
                     "logical_or": "any"}
_UFUNC_SCANS = {"add": "+", "multiply": "*"}


def _ufunc_method(ufunc, method, x, axis=0, dtype=None, keepdims=False):
    """np.<ufunc>.reduce(x, axis, dtype, keepdims=) and
    np.<ufunc>.accumulate(x, axis, dtype) on a DeviceArray."""
    name = ufunc.__name__
    if method == "reduce" and name in _UFUNC_REDUCTIONS:
        op = _UFUNC_REDUCTIONS[name]
        if op in ("all", "any"):
            result = getattr(astype(x, np.bool_) if x.dtype != np.bool_
                             else x, op)(axis=axis, keepdims=keepdims)
        else:
            if dtype is not None:
                x = astype(x, dtype)
            result = reduce(op, x, axis=axis, keepdims=keepdims)
        return result if dtype is None else astype(result, dtype)
    if method == "reduce" and name in ("subtract", "divide") and \
            x.ndim >= 1 and dtype is None:
        from ._array_numpy_misc import fold_inverse
        return fold_inverse(name, x, axis, keepdims)
    if method == "accumulate" and name in _UFUNC_SCANS:
        if x.ndim == 0:
            raise errors.TypingError(
                f"numpy.{name}.accumulate of a 0-d DeviceArray: NumPy "
                "accumulates along an axis; reshape it to 1-d")
        # np.cumsum/np.cumprod's (their accumulator dtypes: small
        # integers widen), along one axis.
        from ._array_numpy import _np_cumulative
        return _np_cumulative(_UFUNC_SCANS[name])(
            x, axis=normalize_axes(x, axis)[0], dtype=dtype)
    raise _unsupported(ufunc, method)


def _array_ufunc(self, ufunc, method, *inputs, out=None, **kwargs):
    if method == "at" and inputs and isinstance(inputs[0], DeviceArray):
        from . import _array_statistics
        return _array_statistics.ufunc_at(ufunc, *inputs)
    if not all(_is_operand(v) for v in inputs):
        return NotImplemented
    from . import _array_numpy_misc as misc
    from . import _array_numpy_values as values
    if method == "accumulate" and out is None and len(inputs) == 1 and \
            ufunc.__name__ not in _UFUNC_SCANS and \
            set(kwargs) <= {"axis", "dtype"}:
        scanned = values.accumulate(ufunc, inputs[0], **kwargs)
        if scanned is None:
            scanned = misc.accumulate(ufunc, inputs[0], **kwargs)
        if scanned is not None:
            return scanned
    if method == "reduceat" and set(kwargs) <= {"axis", "dtype"}:
        # (NumPy hands a ufunc's out= over as a tuple of one.)
        folded = misc.reduceat(ufunc, *inputs,
                               out=out[0] if out else None, **kwargs)
        if folded is not None:
            return folded
    if method in ("reduce", "accumulate") and out is None and \
            len(inputs) == 1 and isinstance(inputs[0], DeviceArray) and \
            set(kwargs) <= {"axis", "dtype", "keepdims"} and \
            not (method == "accumulate" and "keepdims" in kwargs):
        return _ufunc_method(ufunc, method, inputs[0], **kwargs)
    if method == "outer" and out is None and not kwargs and \
            len(inputs) == 2:
        return values.outer(ufunc, *inputs)
    if method == "__call__" and ufunc in values.ufuncs() and not kwargs:
        return values.ufuncs()[ufunc](*inputs, out=out)
    if method == "__call__" and set(kwargs) == {"where"} and \
            ufunc not in values.ufuncs() and ufunc is not np.divmod:
        # Where the mask is False: out's values, or zeros without an out
        # (NumPy leaves those uninitialized).
        mask = kwargs["where"]
        target = out[0] if isinstance(out, tuple) and len(out) == 1 else out
        result = apply_ufunc(ufunc, inputs)
        if target is None:
            return where(mask, result, 0)
        target[...] = where(mask, result, target)
        return target
    if kwargs:
        raise errors.TypingError(
            f"numpy.{ufunc.__name__} on DeviceArrays takes "
            f"out= only, not {', '.join(sorted(kwargs))}")
    if ufunc is np.divmod and method == "__call__":
        outs = out if isinstance(out, tuple) else (None, None)
        return tuple(apply_ufunc(part, inputs, out=o) for part, o in
                     zip((np.floor_divide, np.remainder), outs))
    if isinstance(out, tuple):
        if len(out) != 1:
            raise _unsupported(ufunc, method)
        out = out[0]
    if method == "__call__":
        return apply_ufunc(ufunc, inputs, out=out)
    raise _unsupported(ufunc, method)


def _array_function(self, func, types, args, kwargs):
    implementation = _FUNCTIONS.get(func)
    if implementation is not None:
        token = _CALL_DEVICE.set(self._device)
        try:
            return implementation(*args, **kwargs)
        finally:
            _CALL_DEVICE.reset(token)
    from . import _array_numpy_misc
    made = _array_numpy_misc.like_functions().get(func)
    if made is not None:  # like=self (NEP 35)
        return made(self, *args, **kwargs)
    # No silent host copies (API.md): a NumPy function without a device
    # version says so, and how to compute it on the host on purpose.
    from . import _array_numpy
    raise _array_numpy.not_on_device(func)


def _to_host(value):
    if isinstance(value, DeviceArray):
        return value.asnumpy()
    if isinstance(value, (list, tuple)):
        return type(value)(_to_host(v) for v in value)
    if isinstance(value, dict):
        return {k: _to_host(v) for k, v in value.items()}
    return value


# Identities of the reductions that have one: a where= mask puts them in
# place of the elements it leaves out (NumPy's ufunc.identity).
_REDUCTION_IDENTITIES = {"sum": 0, "prod": 1}


def _masked_reduction(op, x, axis, dtype, keepdims, mask, initial):
    """NumPy's where= and initial= of a reduction: the elements the mask
    leaves out count as the identity (min and max need initial=, as in
    NumPy), and initial is one more element of every slice."""
    import spirjit as xp
    name = {"min": "minimum", "max": "maximum", "sum": "add",
            "prod": "multiply"}.get(op, op)
    if dtype is not None:
        x = astype(x, dtype)
    if op == "mean":
        if initial is not None:
            raise errors.TypingError(
                "mean() got an unexpected keyword argument 'initial'")
        kept = where(mask, 1, 0) if mask is not None else 1
        kept = apply_ufunc(np.add, (xp.zeros(x.shape, dtype=np.int64,
                                             device=x._device), kept))
        total = reduce("sum", where(kept, x, 0), axis=axis,
                       keepdims=keepdims)
        count = reduce("sum", kept, axis=axis, keepdims=keepdims)
        with np.errstate(all="ignore"):
            like = np.mean(np.zeros(1, x.dtype)).dtype
        return astype(apply_ufunc(np.divide, (total, count)), like)
    if mask is not None:
        # (min and max: initial itself, which the result takes in anyway)
        fill = _REDUCTION_IDENTITIES.get(op, initial)
        if fill is None:
            raise errors.InvalidArgumentError(
                f"reduction operation '{name}' does not have an identity, "
                "so to use a where mask one has to specify 'initial'")
        x = where(mask, x, astype(xp.full(x.shape, fill, device=x._device),
                                  x.dtype))
    axes = [] if x.ndim == 0 else normalize_axes(x, axis)
    if initial is not None and any(x.shape[a] == 0 for a in axes):
        shape = [1 if a in axes else n for a, n in enumerate(x.shape)]
        if not keepdims:
            shape = [n for a, n in enumerate(shape) if a not in axes]
        with np.errstate(all="ignore"):
            like = getattr(np, op)(np.zeros(1, x.dtype)).dtype
        return astype(xp.full(tuple(shape), initial, device=x._device), like)
    result = reduce(op, x, axis=axis, keepdims=keepdims)
    if initial is not None:
        result = astype(apply_ufunc(getattr(np, name), (result, initial)),
                        result.dtype)
    return result


def _method_reduction(op):
    def method(self, axis=None, dtype=None, out=None, keepdims=False, *,
               where=None, initial=None):
        if where is not None or initial is not None:
            if out is not None:
                raise errors.NotSupportedError(
                    f"DeviceArray.{op}(out=...) is not supported; assign "
                    "the result instead")
            return _masked_reduction(op, self, axis, dtype, keepdims, where,
                                     initial)
        if dtype is not None:
            # NumPy's: the elements as dtype, and the result in it.
            dtype = np.dtype(dtype)
            return astype(reduce(op, astype(self, dtype), axis=axis,
                                 keepdims=keepdims, out=out), dtype)
        return reduce(op, self, axis=axis, keepdims=keepdims, out=out)
    method.__name__ = op
    method.__doc__ = (f"NumPy's {op} over ``axis`` (None: every axis; an int "
                      "or a tuple), computed on the array's device: a "
                      "DeviceArray there (0-d for every axis), dtypes as "
                      f"numpy.{op} gives them (``dtype=`` and ``out=``: "
                      "not yet).")
    return method


def _function_reduction(op):
    def function(a, axis=None, dtype=None, out=None, keepdims=False,
                 **kwargs):
        extra = set(kwargs) - ({"where"} if op == "mean" else
                               {"where", "initial"})
        if extra:
            raise errors.TypingError(
                f"numpy.{op} on DeviceArrays does not take "
                f"{', '.join(sorted(extra))}")
        return _method_reduction(op)(a, axis=axis, dtype=dtype, out=out,
                                     keepdims=keepdims, **kwargs)
    return function


def _dot(a, b, out=None):
    return matmul(a, b, out)


_FUNCTIONS = {
    np.where: where,
    np.sum: _function_reduction("sum"),
    np.prod: _function_reduction("prod"),
    np.min: _function_reduction("min"),
    np.max: _function_reduction("max"),
    np.amin: _function_reduction("min"),
    np.amax: _function_reduction("max"),
    np.mean: _function_reduction("mean"),
    np.dot: _dot,
    np.reshape: lambda a, shape, order="C": reshape(a, shape, order=order),
    np.transpose: lambda a, axes=None: transpose(a, axes),
    np.copy: lambda a, order="K", subok=False: copy(a),
    np.astype: lambda x, dtype, copy=True, **kw: astype(x, dtype, copy),
}


def install(cls):
    """Adds the operators and methods to DeviceArray."""
    for name, ufunc in (("add", np.add), ("sub", np.subtract),
                        ("mul", np.multiply), ("truediv", np.divide),
                        ("floordiv", np.floor_divide), ("mod", np.remainder),
                        ("pow", np.power), ("and", np.bitwise_and),
                        ("or", np.bitwise_or), ("xor", np.bitwise_xor),
                        ("lshift", np.left_shift), ("rshift", np.right_shift)):
        setattr(cls, f"__{name}__", _fast(ufunc, _binary(ufunc), 2))
        setattr(cls, f"__r{name}__", _fast(
            ufunc, _binary(ufunc, reflected=True), 2, reflected=True))
        setattr(cls, f"__i{name}__", _inplace(ufunc))
    for name, ufunc in (("lt", np.less), ("le", np.less_equal),
                        ("gt", np.greater), ("ge", np.greater_equal),
                        ("eq", np.equal), ("ne", np.not_equal)):
        setattr(cls, f"__{name}__", _fast(ufunc, _binary(ufunc), 2))
    cls.__divmod__ = lambda self, other: _array_ufunc(
        self, np.divmod, "__call__", self, other)
    cls.__rdivmod__ = lambda self, other: _array_ufunc(
        self, np.divmod, "__call__", other, self)
    cls.__hash__ = None  # == is elementwise, as for NumPy arrays
    cls.__matmul__ = lambda self, other: matmul(self, other) \
        if _is_operand(other) else NotImplemented
    cls.__rmatmul__ = lambda self, other: matmul(other, self) \
        if _is_operand(other) else NotImplemented
    cls.__neg__ = _fast(np.negative, _unary(np.negative), 1)
    cls.__pos__ = _fast(np.positive, _unary(np.positive), 1)
    cls.__abs__ = _fast(np.absolute, _unary(np.absolute), 1)
    cls.__invert__ = _fast(np.invert, _unary(np.invert), 1)
    cls.__array_ufunc__ = _spirjit._ufunc_method(_array_ufunc)
    cls.__array_function__ = _array_function
    for op in ("sum", "prod", "min", "max", "mean"):
        setattr(cls, op, _spirjit._reduction_method(
            op, _method_reduction(op), reduction_dtypes))
    cls.astype = astype
    cls.copy = _copy_method
    cls.__copy__ = lambda self: copy(self)
    cls.__deepcopy__ = lambda self, memo: copy(self)
    cls.__reduce__ = _reduce
    cls.reshape = reshape
    cls.transpose = lambda self, *axes: transpose(
        self, axes[0] if len(axes) == 1 and not isinstance(
            axes[0], numbers.Integral) else (axes or None))
    cls.T = property(lambda self: transpose(self))
    cls.dot = lambda self, other, out=None: matmul(self, other, out)
    cls.item = _item
    cls.__float__ = lambda self: float(_one_element(self, float))
    cls.__int__ = lambda self: int(_one_element(self, int))
    cls.__complex__ = lambda self: complex(_one_element(self, complex))
    cls.__bool__ = lambda self: bool(_one_element(self, bool))
