"""dpnp's names over spirjit and NumPy.

The array type is spirjit's DeviceArray (``dpnp.ndarray``); the constructors
are spirjit's own (``empty``, ``zeros``, ``full_like``, ... take ``device=``,
``sycl_queue=`` and ``usm_type=`` as dpnp's do), so jit functions that call
``dpnp.empty(...)`` compile them as spirjit's; the elementwise functions are
NumPy's ufuncs, which run on the device of their DeviceArray operands
(compute follows data) and compile in jit functions as NumPy's.
"""

import math as _math

import numpy as _np
import spirjit as _sj
from numpy import (  # noqa: F401
    array_equal, bool_, complex64, complex128, dtype, float16, float32,
    float64, floating, int32, int64, integer, random, uint32, uint64)
from spirjit import (  # noqa: F401
    asnumpy, empty, empty_like, full, full_like, ones, ones_like, zeros,
    zeros_like)

ndarray = _sj.DeviceArray
bool = bool_  # noqa: A001 (dpnp.bool, as NumPy 2 spells it)

# dpnp's `_array_obj` (the dpctl array under a dpnp array) is the array
# itself here.
_sj.DeviceArray._array_obj = property(lambda a: a)


def asarray(a, dtype=None, device=None, sycl_queue=None, usm_type=None,
            order="C"):
    if isinstance(a, (list, tuple)):
        a = _np.asarray([asnumpy(x) if isinstance(x, ndarray) else x
                         for x in a])
    return _sj.asarray(a, dtype=dtype, device=device, usm_type=usm_type,
                       sycl_queue=sycl_queue)


def array(a, dtype=None, device=None, sycl_queue=None, usm_type=None,
          order="C", copy=True):
    if isinstance(a, ndarray) and copy:
        a = a.asnumpy()
    return asarray(a, dtype, device, sycl_queue, usm_type, order)


def copy(a, **kwargs):
    return asarray(asnumpy(a), device=a.device, usm_type=a.usm_type)


def arange(start, stop=None, step=1, dtype=None, device=None, sycl_queue=None,
           usm_type=None):
    values = _np.arange(start, stop, step, dtype=dtype) if stop is not None \
        else _np.arange(start, step=step, dtype=dtype)
    return asarray(values, device=device, sycl_queue=sycl_queue,
                   usm_type=usm_type)


def reshape(a, shape, order="C"):
    """A reshaped copy (dpnp gives a view where it can; the tests that call
    it only read the result)."""
    return asarray(_np.reshape(asnumpy(a), shape, order=order),
                   device=a.device, usm_type=a.usm_type)


# The elementwise functions: NumPy's ufuncs under their dpnp names.
for _name in dir(_np):
    if isinstance(getattr(_np, _name), _np.ufunc):
        globals()[_name] = getattr(_np, _name)
true_divide = _np.divide
abs = _np.absolute  # noqa: A001


# dpnp.erf, which NumPy lacks: math.erf element by element.
@_sj.vectorize
def erf(x):
    return _math.erf(x)
