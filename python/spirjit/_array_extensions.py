"""The Array API's extensions over DeviceArrays: ``spirjit.linalg`` and
``spirjit.fft``.

Contract: ``linalg_module()`` and ``fft_module()`` make the two modules the
namespace installs. Products, norms and shifts compose the array layer's
operations, so they run on every device; factorizations, solves and
transforms run NumPy's own code in place on the DeviceArrays' memory where
the host addresses it (``in_place``), their results DeviceArrays beside
the inputs, and raise ``NotSupportedError`` naming themselves elsewhere.
Each function has the standard's signature.
"""

import math
import numbers
import types

import numpy as np

from . import _array_ops as ops
from . import _array_primitives as prims
from . import _spirjit, errors
from ._array_api import (_array, _axis_arg, _device_of, _runtime_device,
                         matmul, matrix_transpose, roll, tensordot, vecdot)
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
        with prims._numpy_errors():
            result = numpy_fn(*host_args, **kwargs)
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


def linalg_module():
    m = types.ModuleType("spirjit.linalg", "The Array API's linalg "
                         "extension over DeviceArrays.")
    m.matmul = matmul
    m.matrix_transpose = matrix_transpose
    m.tensordot = tensordot
    m.vecdot = vecdot
    m.vector_norm = vector_norm
    m.outer = outer
    m.trace = lambda x, /, *, offset=0, dtype=None: in_place(
        "linalg", "trace", lambda a: np.trace(a, offset, axis1=-2, axis2=-1,
                                              dtype=dtype))(x)
    m.diagonal = lambda x, /, *, offset=0: in_place(
        "linalg", "diagonal", lambda a: np.diagonal(
            a, offset, axis1=-2, axis2=-1).copy())(x)
    for name in ("cholesky", "det", "eigh", "eigvalsh", "inv", "qr", "slogdet",
                 "solve", "svd", "svdvals", "matrix_rank", "pinv",
                 "matrix_power", "cross", "matrix_norm"):
        fn = {"svdvals": lambda a: np.linalg.svd(a, compute_uv=False),
              "cross": lambda a, b, axis=-1: np.cross(a, b, axis=axis),
              "matrix_norm": lambda a, keepdims=False, ord="fro":
                  np.linalg.norm(a, ord=ord, axis=(-2, -1),
                                 keepdims=keepdims),
              "svd": lambda a, full_matrices=True: np.linalg.svd(
                  a, full_matrices=full_matrices),
              "qr": lambda a, mode="reduced": np.linalg.qr(a, mode),
              "pinv": lambda a, rtol=None: np.linalg.pinv(
                  a, rtol=rtol) if rtol is not None else np.linalg.pinv(a),
              "matrix_rank": lambda a, rtol=None: np.linalg.matrix_rank(
                  a, rtol=rtol) if rtol is not None else
                  np.linalg.matrix_rank(a),
              "cholesky": lambda a, upper=False: np.swapaxes(
                  np.linalg.cholesky(a), -1, -2).conj() if upper else
                  np.linalg.cholesky(a),
              }.get(name, getattr(np.linalg, name, None))
        setattr(m, name, in_place("linalg", name, fn))
    return m


def fft_module():
    m = types.ModuleType("spirjit.fft", "The Array API's fft extension "
                         "over DeviceArrays.")
    for name in ("fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn",
                 "irfftn", "hfft", "ihfft"):
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
