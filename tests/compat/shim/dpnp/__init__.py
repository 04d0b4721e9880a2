"""dpnp's array constructors over spirjit DeviceArrays, and NumPy's dtypes.

Each constructor builds the values with NumPy and copies them to the device
that ``device=`` or ``sycl_queue=`` names (default: SPIRJIT_DEVICE's); the
result is a spirjit DeviceArray, the type ``dpnp.ndarray`` names here.
``usm_type=`` is accepted: spirjit has one kind of device allocation.
"""

import numpy as _np
import spirjit as _sj
from numpy import (  # noqa: F401
    array_equal, bool_, complex64, complex128, dtype, float16, float32,
    float64, floating, int32, int64, integer, uint32, uint64)

ndarray = _sj.DeviceArray
bool = bool_  # noqa: A001 (dpnp.bool, as NumPy 2 spells it)


def _device(device=None, sycl_queue=None, like=None):
    chosen = sycl_queue if sycl_queue is not None else device
    if chosen is None and isinstance(like, _sj.DeviceArray):
        return like.device
    if chosen is None:
        return _sj.default_device()
    return getattr(chosen, "_spirjit_device", chosen)


def _put(values, dtype=None, device=None, sycl_queue=None, usm_type=None,
         like=None):
    values = _np.asarray(values, dtype=dtype)
    return _sj.asarray(values, device=_device(device, sycl_queue, like))


def asnumpy(a):
    return _sj.asnumpy(a)


def asarray(a, dtype=None, device=None, sycl_queue=None, usm_type=None,
            order="C"):
    if isinstance(a, _sj.DeviceArray) and dtype is None and \
            device is None and sycl_queue is None:
        return a
    host = a.asnumpy() if isinstance(a, _sj.DeviceArray) else a
    return _put(host, dtype, device, sycl_queue)


array = asarray


def copy(a, **kwargs):
    return _put(_sj.asnumpy(a), like=a, **kwargs)


def empty(shape, dtype=None, device=None, sycl_queue=None, usm_type=None):
    return _put(_np.empty(shape, dtype=dtype or float64), None, device,
                sycl_queue)


def zeros(shape, dtype=None, device=None, sycl_queue=None, usm_type=None):
    return _put(_np.zeros(shape, dtype=dtype or float64), None, device,
                sycl_queue)


def ones(shape, dtype=None, device=None, sycl_queue=None, usm_type=None):
    return _put(_np.ones(shape, dtype=dtype or float64), None, device,
                sycl_queue)


def full(shape, fill_value, dtype=None, device=None, sycl_queue=None,
         usm_type=None):
    return _put(_np.full(shape, fill_value, dtype=dtype), None, device,
                sycl_queue)


def arange(start, stop=None, step=1, dtype=None, device=None, sycl_queue=None,
           usm_type=None):
    values = _np.arange(start, stop, step, dtype=dtype) if stop is not None \
        else _np.arange(start, step=step, dtype=dtype)
    return _put(values, None, device, sycl_queue)


def _like(make):
    def like(a, dtype=None, device=None, sycl_queue=None, usm_type=None,
             **kwargs):
        return _put(make(_np.empty(a.shape, dtype=dtype or a.dtype), **kwargs),
                    None, device, sycl_queue, like=a)
    like.__name__ = make.__name__
    return like


empty_like = _like(_np.empty_like)
zeros_like = _like(_np.zeros_like)
ones_like = _like(_np.ones_like)
full_like = _like(_np.full_like)


def _elementwise(op):
    # dpnp's elementwise functions on the host, for the tests that compare a
    # kernel's result with them: NumPy computes, the result goes back to the
    # operands' device.
    def apply(*operands, **kwargs):
        hosts = [_sj.asnumpy(x) for x in operands]
        like = next((x for x in operands if isinstance(x, _sj.DeviceArray)),
                    None)
        return _put(op(*hosts, **kwargs), like=like)
    apply.__name__ = op.__name__
    return apply


add = _elementwise(_np.add)
divide = _elementwise(_np.divide)
true_divide = _elementwise(_np.true_divide)
cos = _elementwise(_np.cos)
exp = _elementwise(_np.exp)
fabs = _elementwise(_np.fabs)
log = _elementwise(_np.log)
sin = _elementwise(_np.sin)
sqrt = _elementwise(_np.sqrt)
tan = _elementwise(_np.tan)


def reshape(a, shape, order="C"):
    """A reshaped copy (dpnp gives a view where it can; the tests that call
    it only read the result)."""
    return _put(_np.reshape(_sj.asnumpy(a), shape, order=order), like=a)
