"""NumPy's functions of the Array API's names on DeviceArrays: what
``__array_function__`` dispatches to (``np.sort(x)``, ``np.cumsum(x)``,
``np.unique(x, return_counts=True)``, ``np.linalg.norm(x)``...).

Contract: ``numpy_functions()`` maps each NumPy function to its DeviceArray
version, with NumPy's signature and defaults (where they differ from the
standard's: ``np.unique`` collapses NaNs, ``np.argsort`` is stable only when
asked); results are DeviceArrays on the operands' device, or Python values
where NumPy's are (``np.allclose``). A NumPy function outside the map
raises ``not_on_device(func)``: spirjit never copies to the host behind the
caller's back.
"""

import numbers
import operator

import numpy as np

from . import _array_extensions as extensions
from . import _array_numpy_more as more
from . import _array_ops as ops
from . import _array_primitives as prims
from . import _vendor_solver as cuda
from . import errors
from ._spirjit import DeviceArray
from ._array_statistics import _xp
from ._array_api import (_array, _cumulative, _device_of, broadcast_arrays,
                         broadcast_to, concat, count_nonzero, diff,
                         expand_dims, flip, matrix_transpose, meshgrid,
                         moveaxis, repeat, roll, stack, tensordot, tile, tril,
                         triu, unique_all, unique_counts, unique_inverse,
                         unique_values, unstack, vecdot)


def _numpy_axis_flat(x, axis):
    """NumPy's axis=None for sort-like functions: the flattened array."""
    x = _array(x)
    if axis is None:
        return (x if x.ndim == 1 else ops.reshape(x, -1)), 0
    return x, axis


# NumPy's accumulator dtype of cumsum/cumprod a dtype (asking NumPy each
# call cost a scan's whole queuing on a GPU's host a tenth).
_ACCUMULATORS = {}


def _np_cumulative(op):
    def function(a, axis=None, dtype=None, out=None):
        if out is not None:
            return ops.write_out(out, function(a, axis, dtype),
                                 "cumsum" if op == "+" else "cumprod")
        x, axis = _numpy_axis_flat(a, axis)
        if dtype is None:
            dtype = _ACCUMULATORS.get(x.dtype)
            if dtype is None:
                dtype = _ACCUMULATORS[x.dtype] = \
                    np.cumsum(np.zeros(1, x.dtype)).dtype
        return prims.cumulative(op, x, axis, dtype)
    return function


def _np_unique(ar, return_index=False, return_inverse=False,
               return_counts=False, axis=None, *, equal_nan=True,
               sorted=True):
    if axis is not None:
        return _unique_along(_array(ar), axis, return_index, return_inverse,
                             return_counts)
    x = _array(ar)
    parts = prims.unique(x, counts=return_counts, indices=return_index,
                         inverse=return_inverse, equal_nan=equal_nan)
    if return_inverse:
        i = 1 + int(bool(return_index))
        # NumPy 2 gives the inverse the input's shape for axis=None
        parts[i] = ops.reshape(parts[i], np.unique(
            np.zeros(x.shape, np.int8), return_inverse=True)[1].shape)
    return parts[0] if len(parts) == 1 else tuple(parts)


def _unique_along(x, axis, return_index, return_inverse, return_counts):
    """np.unique(axis=...): the distinct slices along axis, sorted
    lexicographically (a stable sort by each other position, last first),
    with their first indices, each slice's inverse and the counts."""
    xp = _xp()
    axis = operator.index(axis)
    if not -x.ndim <= axis < x.ndim:
        raise errors.ArrayAxisError(
            f"axis {axis} is out of bounds for array of dimension {x.ndim}")
    moved = moveaxis(x, axis % x.ndim, 0)
    n = moved.shape[0]
    rows = ops.reshape(moved, (n, -1))
    width = rows.shape[1]
    if n == 0 or width == 0:
        raise errors.NotSupportedError(
            "numpy.unique(axis=...) of an empty DeviceArray is not supported")
    order = xp.arange(n, dtype=np.int64, device=x._device)
    for j in reversed(range(width)):  # stable: the first column decides last
        order = prims.take(order, prims.argsort(prims.take(
            rows[:, j], order, 0), 0, stable=True), 0)
    ordered = prims.take(rows, order, 0)
    differs = (ordered[1:] != ordered[:-1]).any(axis=1)
    first = xp.concat((xp.ones((1,), dtype=np.bool_, device=x._device),
                       differs))
    starts = prims.nonzero(first)[0]
    values = ops.reshape(prims.take(ordered, starts, 0),
                         (starts.shape[0],) + tuple(moved.shape[1:]))
    result = [moveaxis(values, 0, axis % x.ndim)]
    if return_index:
        result.append(prims.take(order, starts, 0))
    if return_inverse:
        inverse = xp.zeros((n,), dtype=np.int64, device=x._device)
        inverse[order] = xp.cumulative_sum(ops.astype(first, np.int64)) - 1
        result.append(inverse)
    if return_counts:
        ends = xp.concat((starts[1:], xp.asarray([n], dtype=np.int64,
                                                 device=x._device)))
        result.append(ends - starts)
    return result[0] if len(result) == 1 else tuple(result)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """NumPy's isclose, composed of elementwise operations (one kernel)."""
    device = _device_of(a, b)
    a = _array(a, device)
    b = _array(b, device)
    f = ops.apply_ufunc
    diff = f(np.absolute, (f(np.subtract, (a, b)),))
    bound = f(np.add, (atol, f(np.multiply, (rtol, f(np.absolute, (b,))))))
    finite = f(np.logical_and, (f(np.isfinite, (a,)), f(np.isfinite, (b,))))
    close = ops.where(finite, f(np.less_equal, (diff, bound)),
                      f(np.equal, (a, b)))
    if equal_nan:
        close = f(np.logical_or, (close, f(np.logical_and, (
            f(np.isnan, (a,)), f(np.isnan, (b,))))))
    return close


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(isclose(a, b, rtol, atol, equal_nan).all())


def array_equal(a1, a2, equal_nan=False):
    device = _device_of(a1, a2)
    a1, a2 = _array(a1, device), _array(a2, device)
    if a1.shape != a2.shape:
        return False
    same = ops.apply_ufunc(np.equal, (a1, a2))
    if equal_nan and a1.dtype.kind in "fc":
        same = ops.apply_ufunc(np.logical_or, (same, ops.apply_ufunc(
            np.logical_and, (ops.apply_ufunc(np.isnan, (a1,)),
                             ops.apply_ufunc(np.isnan, (a2,))))))
    return bool(same.all())


def _norm(x, ord=None, axis=None, keepdims=False):
    x = _array(x)
    if ord is None and (axis is None or isinstance(axis, numbers.Integral)
                        or (isinstance(axis, tuple) and len(axis) == 2)):
        return extensions.vector_norm(x, axis=axis, keepdims=keepdims)
    if axis is None and x.ndim == 1 or isinstance(axis, numbers.Integral):
        return extensions.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord)
    if axis is None and x.ndim == 2 or isinstance(axis, tuple) and \
            len(axis) == 2:
        # A matrix norm over two axes: the composed one, on every device.
        rows, cols = (ops.normalize_axes(x, a)[0] for a in (
            (-2, -1) if axis is None else axis))
        if rows == cols:
            raise errors.InvalidArgumentError("Duplicate axes given.")
        rest = [a for a in range(x.ndim) if a not in (rows, cols)]
        result = extensions.matrix_norm(ops.transpose(x, rest + [rows, cols]),
                                        ord=ord)
        if keepdims:
            result = ops.reshape(result, tuple(
                1 if a in (rows, cols) else x.shape[a]
                for a in range(x.ndim)))
        return result
    return extensions.in_place("linalg", "norm", np.linalg.norm)(
        x, ord=ord, axis=axis, keepdims=keepdims)


def _trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """np.trace: the composed trace of the matrices over axis1, axis2."""
    if out is not None:
        raise errors.NotSupportedError(
            "numpy.trace(out=...) on DeviceArrays; assign the result instead")
    x = _array(a)
    rows, cols = (ops.normalize_axes(x, axis)[0] for axis in (axis1, axis2))
    if rows == cols:
        raise errors.InvalidArgumentError("axis1 and axis2 cannot be the "
                                          "same")
    rest = [axis for axis in range(x.ndim) if axis not in (rows, cols)]
    return extensions.trace(ops.transpose(x, rest + [rows, cols]),
                            offset=offset, dtype=dtype)


def _hermitian_lower(a, UPLO):
    """a as eigh reads it with UPLO='L': UPLO='U' reads a's upper triangle,
    the lower one of a's conjugate transpose."""
    if UPLO == "L":
        return a
    if UPLO != "U":
        raise errors.InvalidArgumentError("UPLO argument must be 'L' or 'U'")
    a = _array(a)
    return ops.apply_ufunc(np.conjugate, (ops.transpose(a, list(range(
        a.ndim - 2)) + [a.ndim - 1, a.ndim - 2]),))


def _svd_on_cuda(a, full_matrices=True, compute_uv=True, hermitian=False):
    if not compute_uv:
        return cuda.svdvals(a)
    return cuda.svd(a, full_matrices=full_matrices)


def _qr_on_cuda(a, mode="reduced"):
    if mode == "r":
        return cuda.qr(a).R
    if mode == "raw":
        raise errors.NotSupportedError(
            "numpy.linalg.qr(mode='raw') on CUDA devices; use 'reduced', "
            "'complete' or 'r'")
    return cuda.qr(a, mode)


def _pinv_on_cuda(a, rcond=None, hermitian=False, *, rtol=None):
    return extensions._pinv_by_svd(a, rtol=rtol if rtol is not None
                                   else rcond)


def _matrix_rank_on_cuda(A, tol=None, hermitian=False, *, rtol=None):
    if tol is None:
        return extensions._matrix_rank_by_svd(A, rtol=rtol)
    s = cuda.svdvals(A)
    if isinstance(tol, (np.ndarray, DeviceArray)):
        tol = ops.reshape(_array(tol, s._device), np.shape(tol) + (1,))
    return ops.reduce("sum", ops.apply_ufunc(np.greater, (s, tol)), axis=-1)


def _lstsq_on_cuda(a, b, rcond=None):
    """NumPy's lstsq by the SVD (cuSOLVER): the minimum-norm solution,
    the residuals' squared norms where a has full column rank and more
    rows, the rank and the singular values."""
    a = _array(a)
    b = _array(b, a._device)
    m, n = a.shape[-2:]
    if rcond is None:
        rcond = np.finfo(np.result_type(a.dtype, np.float32)).eps * max(m, n)
    s = cuda.svdvals(a)
    x = ops.matmul(extensions._pinv_by_svd(a, rtol=rcond), b)
    rank = int(ops.reduce("sum", ops.apply_ufunc(
        np.greater, (s, ops.apply_ufunc(np.multiply, (s[0], rcond))))))
    if rank == n and m > n:
        r = ops.apply_ufunc(np.subtract, (b, ops.matmul(a, x)))
        r = ops.apply_ufunc(np.absolute, (r,))
        residuals = ops.reduce("sum", ops.apply_ufunc(np.multiply, (r, r)),
                               axis=0)
        if residuals.ndim == 0:
            residuals = ops.reshape(residuals, (1,))
    else:
        residuals = ops._empty((0,), s.dtype, a._device)
    return x, residuals, rank, s


def _not_on_cuda(name, instead):
    def function(*args, **kwargs):
        raise errors.NotSupportedError(
            f"numpy.linalg.{name} on CUDA devices is not supported yet "
            f"(cuSOLVER's general eigensolver is not wired); {instead}")
    return function


# np.linalg's factorizations with NumPy's signatures on CUDA devices
# (cuSOLVER); NumPy's own runs in place where the host addresses memory.
_NUMPY_LINALG_ON_CUDA = {
    "solve": lambda a, b: cuda.solve(a, b),
    "inv": lambda a: cuda.inv(a),
    "det": lambda a: cuda.det(a),
    "slogdet": lambda a: cuda.slogdet(a),
    "cholesky": lambda a, /, *, upper=False: cuda.cholesky(a, upper),
    "eigh": lambda a, UPLO="L": cuda.eigh(_hermitian_lower(a, UPLO)),
    "eigvalsh": lambda a, UPLO="L": cuda.eigvalsh(_hermitian_lower(a, UPLO)),
    "svd": _svd_on_cuda,
    "qr": _qr_on_cuda,
    "pinv": _pinv_on_cuda,
    "matrix_rank": _matrix_rank_on_cuda,
    "lstsq": _lstsq_on_cuda,
    "eig": _not_on_cuda("eig", "eigh takes Hermitian matrices there"),
    "eigvals": _not_on_cuda("eigvals", "eigvalsh takes Hermitian matrices "
                            "there"),
}


def _stack_like(name, ndmin, axis):
    def function(tup, *, dtype=None, casting="same_kind"):
        arrays = [_array(a, _device_of(*tup)) for a in tup]
        shaped = []
        for a in arrays:
            while a.ndim < ndmin:
                a = expand_dims(a, axis=0 if ndmin == 2 or a.ndim == 0
                                else a.ndim)
            shaped.append(a)
        ax = axis
        if name == "hstack" and shaped and shaped[0].ndim == 1:
            ax = 0
        out = concat(shaped, axis=ax)
        return out if dtype is None else ops.astype(out, dtype)
    return function


def _cond(x, p=None):
    """NumPy's condition number: the ratio of the extreme singular values
    (p None, 2, -2), else norm(x, p) * norm(inv(x), p)."""
    a = _array(x)
    if p is None or p in (2, -2):
        s = np.linalg.svd(a, compute_uv=False)
        large, small = s[..., 0], s[..., -1]
        return large / small if p != -2 else small / large
    return np.linalg.norm(a, p, axis=(-2, -1)) * \
        np.linalg.norm(np.linalg.inv(a), p, axis=(-2, -1))


def _take(a, indices, axis=None, out=None, mode="raise"):
    """np.take; mode 'clip' or 'wrap' brings the indices into the axis
    first (NumPy's)."""
    if out is not None:
        raise errors.NotSupportedError(
            "numpy.take(out=...) on DeviceArrays is not supported; assign "
            "the result instead")
    if mode == "raise":
        return prims.take(a, indices, axis)
    if mode not in ("clip", "wrap"):
        raise errors.InvalidArgumentError(
            f"clipmode must be one of 'clip', 'raise', or 'wrap' (got "
            f"{mode!r})")
    x = _array(a)
    n = x.size if axis is None else x.shape[operator.index(axis)]
    if n == 0:
        raise errors.ArrayIndexError("cannot do a non-empty take from an "
                                     "empty axes.")
    index = _array(indices, x._device)
    index = ops.apply_ufunc(np.remainder, (index, n)) if mode == "wrap" \
        else ops.apply_ufunc(np.minimum, (ops.apply_ufunc(
            np.maximum, (index, 0)), n - 1))
    return prims.take(x, index, axis)


def _put(a, ind, v, mode="raise"):
    """np.put: a.flat[ind] = v, in place (the values repeated); mode 'clip'
    or 'wrap' brings the indices into the array first."""
    if not isinstance(a, DeviceArray):
        raise errors.TypingError("argument 1 must be a DeviceArray")
    index = _array(ind, a._device)
    if mode in ("clip", "wrap"):
        if a.size == 0:
            raise errors.ArrayIndexError("cannot replace elements of an "
                                         "empty array")
        index = ops.apply_ufunc(np.remainder, (index, a.size)) \
            if mode == "wrap" else ops.apply_ufunc(np.minimum, (
                ops.apply_ufunc(np.maximum, (index, 0)), a.size - 1))
    elif mode != "raise":
        raise errors.InvalidArgumentError(
            f"clipmode must be one of 'clip', 'raise', or 'wrap' (got "
            f"{mode!r})")
    else:
        size = a.size
        if index.size and bool(((index < -size) | (index >= size)).any()):
            raise errors.ArrayIndexError(
                f"index out of bounds for an array of size {size}")
    a.flat[index] = v
    return None


def not_on_device(func):
    module = getattr(func, "__module__", "numpy") or "numpy"
    module = module.replace("numpy._core", "numpy").replace(
        "numpy.lib._function_base_impl", "numpy")
    name = f"{module.split('.')[0]}.{func.__name__}" \
        if module.startswith("numpy._") else f"{module}.{func.__name__}"
    return errors.NotSupportedError(
        f"{name} has no DeviceArray version yet, and spirjit does not copy "
        f"to the host behind your back: call it on np.asarray(x) (a host "
        f"copy) or write it with spirjit's functions")


def numpy_functions():
    """NumPy function -> its DeviceArray version, for __array_function__."""
    f = {
        np.sort: lambda a, axis=-1, kind=None, order=None, *, stable=None:
            prims.sort(*_numpy_axis_flat(a, axis)),
        np.argsort: lambda a, axis=-1, kind=None, order=None, *, stable=None:
            prims.argsort(*_numpy_axis_flat(a, axis), stable=bool(
                stable or kind in ("stable", "mergesort"))),
        np.argpartition: lambda a, kth, axis=-1, kind="introselect",
            order=None: prims.argpartition(*_numpy_axis_flat(a, axis)[:1],
                                           kth, -1 if axis is None else axis),
        np.partition: lambda a, kth, axis=-1, kind="introselect", order=None:
            prims.partition(*_numpy_axis_flat(a, axis)[:1], kth,
                            -1 if axis is None else axis),
        np.cumsum: _np_cumulative("+"),
        np.cumprod: _np_cumulative("*"),
        np.nonzero: lambda a: prims.nonzero(_array(a)),
        np.flatnonzero: lambda a: prims.nonzero(ops.reshape(_array(a),
                                                            -1))[0],
        np.argwhere: lambda a: stack(list(prims.nonzero(_array(a))),
                                     axis=1) if _array(a).ndim else
            _array(a).reshape(1, 0),
        np.count_nonzero: lambda a, axis=None, *, keepdims=False:
            count_nonzero(a, axis=axis, keepdims=keepdims),
        np.unique: _np_unique,
        np.concatenate: lambda arrays, axis=0, out=None, *, dtype=None,
            casting="same_kind": (lambda r: r if dtype is None else
                                  ops.astype(r, dtype))(concat(arrays,
                                                               axis=axis)),
        np.stack: lambda arrays, axis=0, out=None, *, dtype=None,
            casting="same_kind": stack(arrays, axis=axis),
        np.vstack: _stack_like("vstack", 2, 0),
        np.hstack: _stack_like("hstack", 1, 1),
        np.take: _take,
        np.put: _put,
        np.take_along_axis: lambda arr, indices, axis=-1:
            prims.take_along_axis(arr, indices, axis),
        np.searchsorted: lambda a, v, side="left", sorter=None:
            prims.searchsorted(a, v, side, sorter),
        np.flip: lambda m, axis=None: flip(m, axis=axis),
        np.roll: lambda a, shift, axis=None: roll(a, shift, axis=axis),
        np.expand_dims: lambda a, axis: expand_dims(
            a, axis=tuple(axis) if isinstance(axis, list) else axis),
        np.broadcast_to: lambda array, shape, subok=False:
            broadcast_to(array, (shape,) if isinstance(
                shape, numbers.Integral) else shape),
        np.broadcast_arrays: lambda *args, subok=False:
            tuple(broadcast_arrays(*args)),
        np.moveaxis: lambda a, source, destination:
            moveaxis(a, source, destination),
        np.repeat: lambda a, repeats, axis=None: repeat(a, repeats,
                                                        axis=axis),
        np.tile: lambda A, reps: tile(A, (reps,) if isinstance(
            reps, numbers.Integral) else reps),
        np.diff: lambda a, n=1, axis=-1, prepend=None, append=None:
            diff(a, n=n, axis=axis, prepend=prepend, append=append),
        np.tril: lambda m, k=0: tril(m, k=k),
        np.triu: lambda m, k=0: triu(m, k=k),
        np.meshgrid: lambda *xi, copy=True, sparse=False, indexing="xy":
            tuple(meshgrid(*xi, indexing=indexing)),
        np.isclose: isclose,
        np.allclose: allclose,
        np.array_equal: array_equal,
        np.shape: lambda a: tuple(a.shape),
        np.ndim: lambda a: a.ndim,
        np.size: lambda a, axis=None: a.size if axis is None else
            a.shape[axis],
        np.iscomplexobj: lambda x: x.dtype.kind == "c",
        np.isrealobj: lambda x: x.dtype.kind != "c",
        np.linalg.norm: _norm,
        np.outer: lambda a, b, out=None: extensions.outer(a, b),
        np.tensordot: lambda a, b, axes=2: tensordot(a, b, axes=axes),
        np.vdot: lambda a, b: vecdot(ops.reshape(_array(a), -1),
                                     ops.reshape(_array(b), -1)),
        np.trace: _trace,
        np.linalg.matrix_transpose: matrix_transpose,
        np.cumulative_sum: lambda x, /, *, axis=None, dtype=None, out=None,
            include_initial=False: _cumulative("+")(
                x, axis=axis, dtype=dtype, include_initial=include_initial),
        np.cumulative_prod: lambda x, /, *, axis=None, dtype=None, out=None,
            include_initial=False: _cumulative("*")(
                x, axis=axis, dtype=dtype, include_initial=include_initial),
        np.unique_values: unique_values,
        np.unique_counts: unique_counts,
        np.unique_inverse: unique_inverse,
        np.unique_all: unique_all,
        np.permute_dims: lambda a, axes=None: ops.transpose(_array(a), axes),
        np.concat: lambda arrays, /, *, axis=0, out=None, dtype=None,
            casting="same_kind": concat(arrays, axis=axis),
        np.unstack: lambda x, /, *, axis=0: unstack(x, axis=axis),
    }
    for name, on_cuda in _NUMPY_LINALG_ON_CUDA.items():
        f[getattr(np.linalg, name)] = extensions.dispatch(
            name, getattr(np.linalg, name), on_cuda)
    f[np.linalg.matrix_power] = lambda a, n: extensions.matrix_power(a, n)
    f[np.linalg.cond] = _cond
    for name in ("svdvals", "vector_norm", "matrix_norm"):
        if hasattr(np.linalg, name):  # (NumPy 2)
            f[getattr(np.linalg, name)] = getattr(extensions, name)
    for name in ("fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn",
                 "irfftn", "fft2", "ifft2", "rfft2", "irfft2", "hfft",
                 "ihfft"):
        f[getattr(np.fft, name)] = extensions.in_place("fft", name,
                                             getattr(np.fft, name))
    f[np.fft.fftshift] = lambda x, axes=None: extensions.fftshift(
        x, axes=axes)
    f[np.fft.ifftshift] = lambda x, axes=None: extensions.ifftshift(
        x, axes=axes)
    f.update(more.functions())
    return f
