"""dpctl.tensor's names over spirjit DeviceArrays (usm_ndarray is the
DeviceArray type) and NumPy's dtypes."""

import numpy as _np
import spirjit as _sj
from numpy import (  # noqa: F401
    bool_, complex64, complex128, dtype, float16, float32, float64, int32,
    int64, uint32, uint64)

usm_ndarray = _sj.DeviceArray


def _device(device=None, sycl_queue=None):
    chosen = sycl_queue if sycl_queue is not None else device
    if chosen is None:
        return _sj.default_device()
    return getattr(chosen, "_spirjit_device", chosen)


def asnumpy(a):
    return _sj.asnumpy(a)


def from_numpy(a, device=None, sycl_queue=None, usm_type=None):
    return _sj.asarray(a, device=_device(device, sycl_queue))


def asarray(a, dtype=None, device=None, sycl_queue=None, usm_type=None):
    return _sj.asarray(_sj.asnumpy(a).astype(dtype) if dtype else a,
                       device=_device(device, sycl_queue))


def zeros(shape, dtype=None, device=None, sycl_queue=None, usm_type=None):
    return from_numpy(_np.zeros(shape, dtype=dtype or float64), device,
                      sycl_queue)


def ones(shape, dtype=None, device=None, sycl_queue=None, usm_type=None):
    return from_numpy(_np.ones(shape, dtype=dtype or float64), device,
                      sycl_queue)


def empty(shape, dtype=None, device=None, sycl_queue=None, usm_type=None):
    return from_numpy(_np.empty(shape, dtype=dtype or float64), device,
                      sycl_queue)


def arange(start, stop=None, step=1, dtype=None, device=None, sycl_queue=None,
           usm_type=None):
    values = _np.arange(start, stop, step, dtype=dtype) if stop is not None \
        else _np.arange(start, step=step, dtype=dtype)
    return from_numpy(values, device, sycl_queue)


def reshape(a, shape, order="C"):
    """A reshaped copy (dpctl gives a view where it can; the tests that call
    it only read the result)."""
    return from_numpy(_np.reshape(_sj.asnumpy(a), shape, order=order),
                      a.device)


def _like(make):
    def like(a, dtype=None, device=None, sycl_queue=None, usm_type=None,
             **kwargs):
        values = make(_np.empty(a.shape, dtype=dtype or a.dtype), **kwargs)
        return from_numpy(values, device if device is not None else a.device,
                          sycl_queue)
    like.__name__ = make.__name__
    return like


empty_like = _like(_np.empty_like)
zeros_like = _like(_np.zeros_like)
ones_like = _like(_np.ones_like)
full_like = _like(_np.full_like)
