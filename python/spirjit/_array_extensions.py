"""The Array API's extensions over DeviceArrays: ``spirjit.linalg`` and
``spirjit.fft``.

Contract: ``linalg_module()`` and ``fft_module()`` make the two modules the
namespace installs. Products, norms, ``diagonal``, ``trace``, ``cross``,
``matrix_power`` and shifts compose the array layer's operations, so they
run on every device (``matrix_power`` with a negative exponent and the
matrix norms 2, -2 and 'nuc' call ``inv`` and ``svdvals`` of the device).
Factorizations and solves (``cholesky det slogdet inv solve qr svd
svdvals eigh eigvalsh pinv matrix_rank``) run NumPy's own code in place on
the DeviceArrays' memory where the host addresses it (``in_place``), on
CUDA devices cuSOLVER (``_vendor_solver``; ``pinv`` and ``matrix_rank``
composed from its ``svd``), and raise ``NotSupportedError`` naming
themselves elsewhere; their results are DeviceArrays beside the inputs,
never a host round trip. A matrix they cannot factor raises
``errors.LinAlgError`` (NumPy's LinAlgError, NumPy's message) on every
device. Transforms run NumPy in place or cuFFT (``_vendor``) alike. Each
function has the standard's signature.
"""
import math
import numbers
import operator
import types

import numpy as np

from . import _array_ops as ops
from . import _array_primitives as prims
from . import _spirjit, _vendor_solver, errors
from ._array_api import (_array, _axis_arg, _device_of, _runtime_device,
                         eye, matmul, matrix_transpose, roll, stack,
                         tensordot, vecdot)
from ._spirjit import DeviceArray


def _signature(spec):
    """An inspect.Signature written as a parameter list ("x, /, *, n=None"),
    the standard's for a function whose wrapper takes *args."""
    import inspect
    return inspect.signature(eval(f"lambda {spec}: None"))


# The standard's parameters of the functions NumPy computes in place.
_SIGNATURES = {
    "cholesky": "x, /, *, upper=False", "cross": "x1, x2, /, *, axis=-1",
    "det": "x, /", "eigh": "x, /", "eigvalsh": "x, /", "inv": "x, /",
    "matrix_norm": "x, /, *, keepdims=False, ord='fro'",
    "matrix_power": "x, n, /", "matrix_rank": "x, /, *, rtol=None",
    "pinv": "x, /, *, rtol=None", "qr": "x, /, *, mode='reduced'",
    "slogdet": "x, /", "solve": "x1, x2, /",
    "svd": "x, /, *, full_matrices=True", "svdvals": "x, /",
    "fft": "x, /, *, n=None, axis=-1, norm='backward'",
    "ifft": "x, /, *, n=None, axis=-1, norm='backward'",
    "rfft": "x, /, *, n=None, axis=-1, norm='backward'",
    "irfft": "x, /, *, n=None, axis=-1, norm='backward'",
    "hfft": "x, /, *, n=None, axis=-1, norm='backward'",
    "ihfft": "x, /, *, n=None, axis=-1, norm='backward'",
    "fftn": "x, /, *, s=None, axes=None, norm='backward'",
    "ifftn": "x, /, *, s=None, axes=None, norm='backward'",
    "rfftn": "x, /, *, s=None, axes=None, norm='backward'",
    "irfftn": "x, /, *, s=None, axes=None, norm='backward'",
    "fftshift": "x, /, *, axes=None", "ifftshift": "x, /, *, axes=None",
    "fft2": "x, /, *, s=None, axes=(-2, -1), norm='backward'",
    "ifft2": "x, /, *, s=None, axes=(-2, -1), norm='backward'",
    "rfft2": "x, /, *, s=None, axes=(-2, -1), norm='backward'",
    "irfft2": "x, /, *, s=None, axes=(-2, -1), norm='backward'",
}


def in_place(module, name, numpy_fn):
    """``numpy_fn`` over the DeviceArrays' own memory where the host
    addresses it, its results copied into DeviceArrays beside them."""
    def function(*args, **kwargs):
        arrays = [a for a in args if isinstance(a, DeviceArray)]
        if not arrays:
            arrays = [_array(args[0])]
            args = (arrays[0],) + args[1:]
        like = arrays[0]
        _device_of(*arrays)
        if module == "fft" and not prims._on_host(*arrays):
            from . import _vendor  # cuFFT on CUDA devices
            import inspect
            bound = inspect.signature(numpy_fn).bind(*args, **kwargs)
            done = _vendor.fft(name, like, {k: v for k, v in
                                            bound.arguments.items()
                                            if k != "a"})
            if done is not None:
                return done
        if not prims._on_host(*arrays):
            raise errors.NotSupportedError(
                f"spirjit.{module}.{name} has no version for "
                f"{like.device.filter_string} yet; it runs on devices whose "
                "memory the host addresses")
        host_args = [prims.host_view(a) if isinstance(a, DeviceArray) else a
                     for a in args]
        try:
            result = numpy_fn(*host_args, **kwargs)
        except np.linalg.LinAlgError as e:
            raise errors.LinAlgError(str(e)) from None
        except (IndexError, ValueError):
            with prims._numpy_errors():  # NumPy's as spirjit's classes
                raise
        return _wrap(result, like)
    function.__name__ = name
    if name in _SIGNATURES and module in ("linalg", "fft"):
        function.__signature__ = _signature(_SIGNATURES[name])
    function.__doc__ = (f"numpy.{module}.{name} on the array's device "
                        "(NumPy's own, in place, where the host addresses "
                        "the device's memory).")
    return function


def _wrap(result, like):
    if isinstance(result, np.ndarray):
        return prims.to_device_like(result, like)
    if isinstance(result, np.generic):
        return prims.to_device_like(np.asarray(result), like)
    if isinstance(result, tuple):
        wrapped = [_wrap(r, like) for r in result]
        return type(result)(*wrapped) if hasattr(result, "_fields") \
            else tuple(wrapped)
    return result


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    x = _array(x)
    a = ops.apply_ufunc(np.absolute, (x,))
    if ord == 2:
        return ops.apply_ufunc(np.sqrt, (ops.reduce(
            "sum", ops.apply_ufunc(np.multiply, (a, a)), _axis_arg(axis),
            keepdims),))
    if ord == 1:
        return ops.reduce("sum", a, _axis_arg(axis), keepdims)
    if ord == math.inf:
        return ops.reduce("max", a, _axis_arg(axis), keepdims)
    if ord == -math.inf:
        return ops.reduce("min", a, _axis_arg(axis), keepdims)
    if ord == 0:
        return ops.astype(ops.reduce("sum", ops.astype(ops.apply_ufunc(
            np.not_equal, (x, 0)), a.dtype), _axis_arg(axis), keepdims),
            a.dtype, copy=False)
    powered = ops.apply_ufunc(np.power, (a, float(ord)))
    total = ops.reduce("sum", powered, _axis_arg(axis), keepdims)
    return ops.apply_ufunc(np.power, (total, 1.0 / float(ord)))


def outer(x1, x2, /):
    """The outer product of two vectors, elementwise on their device."""
    return ops.apply_ufunc(np.multiply, (ops.reshape(_array(x1), -1, 1),
                                         ops.reshape(_array(x2), 1, -1)))


def _shift(x, axes, sign):
    """x rolled by half its length along each of ``axes`` (all: None)."""
    x = _array(x)
    axes = tuple(range(x.ndim)) if axes is None else (
        (axes,) if isinstance(axes, numbers.Integral) else tuple(axes))
    return roll(x, tuple(sign * (x.shape[a] // 2) for a in axes), axis=axes)


def fftshift(x, /, *, axes=None):
    """The zero frequency moved to the middle: a roll, on any device."""
    return _shift(x, axes, 1)


def ifftshift(x, /, *, axes=None):
    """fftshift undone."""
    return _shift(x, axes, -1)


# ------------------------------------------------- linalg by composition

def _matrix_stack(x, what):
    x = _array(x)
    if x.ndim < 2:
        raise errors.InvalidArgumentError(
            f"{what} needs an array of at least 2 dimensions, not "
            f"{x.ndim}")
    return x


def _diagonal_view(x, offset):
    """The view of the ``offset`` diagonal of each matrix of x (no copy):
    one stride, a row's and a column's together."""
    offset = operator.index(offset)
    rows, cols = x.shape[-2:]
    row_stride, col_stride = x.strides[-2:]
    if offset >= 0:
        length, start = min(rows, cols - offset), offset * col_stride
    else:
        length, start = min(rows + offset, cols), -offset * row_stride
    if length <= 0:
        length, start = 0, 0
    return x._view(list(x.shape[:-2]) + [length],
                   list(x.strides[:-2]) + [row_stride + col_stride],
                   x._offset + start)


def diagonal(x, /, *, offset=0):
    """The ``offset`` diagonal of each matrix, a new array on the device."""
    return ops.copy(_diagonal_view(_matrix_stack(x, "diagonal"), offset))


def trace(x, /, *, offset=0, dtype=None):
    """The sum of each matrix's ``offset`` diagonal; dtype as NumPy's sum
    (the default integer for small integers) unless ``dtype`` names one."""
    d = _diagonal_view(_matrix_stack(x, "trace"), offset)
    if dtype is None:
        return ops.reduce("sum", d, axis=-1)
    dtype = np.dtype(dtype)
    return ops.astype(ops.reduce("sum", ops.astype(d, dtype, copy=False),
                                 axis=-1), dtype, copy=False)


def cross(x1, x2, /, *, axis=-1):
    """The cross product of 3-vectors along ``axis`` of the broadcast
    operands, elementwise on their device."""
    device = _device_of(x1, x2)
    x1, x2 = _array(x1, device), _array(x2, device)
    try:
        shape = np.broadcast_shapes(x1.shape, x2.shape)
    except ValueError:
        raise errors.InvalidArgumentError(
            f"cross: operands could not be broadcast together with shapes "
            f"{x1.shape} {x2.shape}") from None
    ndim = len(shape)
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise errors.ArrayAxisError(axis, ndim)
    axis %= ndim
    for x in (x1, x2):
        own = axis - (ndim - x.ndim)
        if own < 0 or x.shape[own] != 3:
            raise errors.InvalidArgumentError(
                f"cross: axis {axis - ndim} must have size 3 in both "
                f"arrays, not {x1.shape} and {x2.shape}")
    a, b = prims._broadcast(x1, shape), prims._broadcast(x2, shape)
    front = (slice(None),) * axis

    def part(i, j):
        return ops.apply_ufunc(np.subtract, (
            ops.apply_ufunc(np.multiply, (a[front + (i,)], b[front + (j,)])),
            ops.apply_ufunc(np.multiply, (a[front + (j,)], b[front + (i,)]))))
    return stack([part(1, 2), part(2, 0), part(0, 1)], axis=axis)


def _square(x, what):
    x = _array(x)
    if x.ndim < 2:
        raise errors.LinAlgError(
            f"{x.ndim}-dimensional array given. Array must be at least "
            "two-dimensional")
    if x.shape[-1] != x.shape[-2]:
        raise errors.LinAlgError("Last 2 dimensions of the array must be "
                                 "square")
    return x


def matrix_power(x, n, /):
    """x to the integer power n by repeated squaring with matmul; n == 0
    the identity (per matrix of a stack), n < 0 a power of inv(x)."""
    x = _square(x, "matrix_power")
    try:
        n = operator.index(n)
    except TypeError:
        raise errors.TypingError("exponent must be an integer") from None
    if n == 0:
        identity = eye(x.shape[-1], dtype=x.dtype, device=x.device)
        return ops.copy(prims._broadcast(identity, x.shape))
    if n < 0:
        x, n = inv(x), -n
    result, power = None, x
    while True:
        if n & 1:
            result = power if result is None else matmul(result, power)
        n >>= 1
        if not n:
            break
        power = matmul(power, power)
    return ops.copy(result) if result is x else result


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """NumPy's matrix norms over the last two axes: 'fro' and +-1, +-inf
    from reductions; 2, -2 and 'nuc' from the singular values."""
    x = _matrix_stack(x, "matrix_norm")
    if x.dtype.kind in "biu":
        x = ops.copy(x, np.float64)
    batch = x.shape[:-2]
    if isinstance(ord, str) and ord in ("fro", "f"):
        return vector_norm(x, axis=(-2, -1), keepdims=keepdims)
    if isinstance(ord, str) and ord == "nuc":
        total = ops.reduce("sum", svdvals(x), axis=-1)
    elif not isinstance(ord, str) and ord in (1, -1, math.inf, -math.inf):
        a = ops.apply_ufunc(np.absolute, (x,))
        inner, outer = (-2, -1) if ord in (1, -1) else (-1, -2)
        sums = ops.reduce("sum", a, axis=inner, keepdims=True)
        total = ops.reduce("max" if ord > 0 else "min", sums, axis=outer,
                           keepdims=True)
        return total if keepdims else ops.reshape(total, batch)
    elif not isinstance(ord, str) and ord in (2, -2):
        total = ops.reduce("max" if ord > 0 else "min", svdvals(x), axis=-1)
    else:
        raise errors.InvalidArgumentError("Invalid norm order for matrices.")
    return ops.reshape(total, batch + (1, 1)) if keepdims else total


# ------------------------------------- factorizations: NumPy or cuSOLVER

def _rtol(rtol, s):
    """The standard's rtol (a float or an array over the stack) as a
    factor of each matrix's largest singular value, shaped (..., 1)."""
    if isinstance(rtol, (DeviceArray, np.ndarray)):
        r = _array(rtol, s._device)
        return ops.reshape(r, r.shape + (1,))
    return float(rtol)


def _pinv_by_svd(x, /, *, rtol=None):
    """pinv from the device's svd: V diag(1/s where s > rtol * max(s)) U^H,
    NumPy's rule."""
    x = _vendor_solver._matrices(_array(x), "pinv", square=False)
    m, n = x.shape[-2:]
    if m == 0 or n == 0:
        return _vendor_solver._zeros(x.shape[:-2] + (n, m), x.dtype, x)
    u, s, vh = svd(x, full_matrices=False)
    if rtol is None:
        rtol = max(m, n) * np.finfo(s.dtype).eps
    cutoff = ops.apply_ufunc(np.multiply, (
        _rtol(rtol, s), ops.reduce("max", s, axis=-1, keepdims=True)))
    inverted = ops.where(ops.apply_ufunc(np.greater, (s, cutoff)),
                         ops.apply_ufunc(np.divide, (1, s)), s.dtype.type(0))
    v = _vendor_solver._conj(matrix_transpose(vh))
    scaled = ops.apply_ufunc(np.multiply, (v, ops.reshape(
        inverted, inverted.shape[:-1] + (1, inverted.shape[-1]))))
    return matmul(scaled, _vendor_solver._conj(matrix_transpose(u)))


def _matrix_rank_by_svd(x, /, *, rtol=None):
    """The number of singular values above rtol * the largest one."""
    x = _vendor_solver._matrices(_array(x), "matrix_rank", square=False)
    s = svdvals(x)
    if s.shape[-1] == 0:
        return ops.astype(_vendor_solver._zeros(x.shape[:-2], np.int64, x),
                          np.int64, copy=False)
    if rtol is None:
        rtol = max(x.shape[-2:]) * np.finfo(s.dtype).eps
    tol = ops.apply_ufunc(np.multiply, (
        _rtol(rtol, s), ops.reduce("max", s, axis=-1, keepdims=True)))
    return ops.reduce("sum", ops.apply_ufunc(np.greater, (s, tol)), axis=-1)


# NumPy's versions of the factorizations with the standard's signatures,
# run in place where the host addresses the memory.
_NUMPY_LINALG = {
    "svdvals": lambda a: np.linalg.svd(a, compute_uv=False),
    "svd": lambda a, full_matrices=True: np.linalg.svd(
        a, full_matrices=full_matrices),
    "qr": lambda a, mode="reduced": np.linalg.qr(a, mode),
    "pinv": lambda a, rtol=None: np.linalg.pinv(
        a, rtol=rtol) if rtol is not None else np.linalg.pinv(a),
    "matrix_rank": lambda a, rtol=None: np.linalg.matrix_rank(
        a, rtol=rtol) if rtol is not None else np.linalg.matrix_rank(a),
    "cholesky": lambda a, upper=False: np.swapaxes(
        np.linalg.cholesky(a), -1, -2).conj() if upper else
        np.linalg.cholesky(a),
}
_BY_SVD = {"pinv": _pinv_by_svd, "matrix_rank": _matrix_rank_by_svd}


def dispatch(name, numpy_fn, cuda_fn):
    """spirjit.linalg's ``name``: ``numpy_fn`` in place where the host
    addresses the arrays' memory, ``cuda_fn`` on CUDA devices, else
    in_place's NotSupportedError naming it."""
    host = in_place("linalg", name, numpy_fn)

    def function(*args, **kwargs):
        arrays = [a for a in args if isinstance(a, DeviceArray)]
        if not arrays:
            args = (_array(args[0]),) + args[1:]
            arrays = [args[0]]
        _device_of(*arrays)
        if not prims._on_host(*arrays) and \
                _vendor_solver.applies(arrays[0]):
            return cuda_fn(*args, **kwargs)
        return host(*args, **kwargs)
    function.__name__ = name
    if name in _SIGNATURES:
        function.__signature__ = _signature(_SIGNATURES[name])
    function.__doc__ = (f"numpy.linalg.{name} on the array's device: NumPy's "
                        "own in place where the host addresses its memory, "
                        "cuSOLVER on CUDA devices.")
    return function


def _factorization(name):
    return dispatch(name, _NUMPY_LINALG.get(name) or getattr(np.linalg, name),
                    _BY_SVD.get(name) or getattr(_vendor_solver, name))


cholesky, det, eigh, eigvalsh, inv, qr, slogdet, solve, svd, svdvals, \
    matrix_rank, pinv = (_factorization(name) for name in (
        "cholesky", "det", "eigh", "eigvalsh", "inv", "qr", "slogdet",
        "solve", "svd", "svdvals", "matrix_rank", "pinv"))


def linalg_module():
    m = types.ModuleType("spirjit.linalg", "The Array API's linalg "
                         "extension over DeviceArrays.")
    for function in (matmul, matrix_transpose, tensordot, vecdot,
                     vector_norm, outer, diagonal, trace, cross,
                     matrix_power, matrix_norm, cholesky, det, eigh,
                     eigvalsh, inv, qr, slogdet, solve, svd, svdvals,
                     matrix_rank, pinv):
        setattr(m, function.__name__, function)
    return m


def fft_module():
    m = types.ModuleType("spirjit.fft", "The Array API's fft extension "
                         "over DeviceArrays.")
    for name in ("fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn",
                 "irfftn", "hfft", "ihfft", "fft2", "ifft2", "rfft2",
                 "irfft2"):  # (the 2-D ones NumPy's and CuPy's, not the
        # standard's)
        setattr(m, name, in_place("fft", name, getattr(np.fft, name)))

    m.fftshift = fftshift
    m.ifftshift = ifftshift

    def fftfreq(n, /, *, d=1.0, dtype=None, device=None):
        r = np.fft.fftfreq(n, d)
        return _spirjit.to_device(r.astype(dtype or r.dtype),
                                  _runtime_device(device), "device")

    def rfftfreq(n, /, *, d=1.0, dtype=None, device=None):
        r = np.fft.rfftfreq(n, d)
        return _spirjit.to_device(r.astype(dtype or r.dtype),
                                  _runtime_device(device), "device")
    m.fftfreq = fftfreq
    m.rfftfreq = rfftfreq
    return m
