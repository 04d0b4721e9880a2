"""NumPy's functions under the spirjit module's own name, as CuPy and
dpnp offer them (``spirjit.cumsum(x)``, ``spirjit.median(x)``,
``spirjit.identity(3)``) beside the Array API's: every NumPy function that
dispatches on its arrays (``__array_function__``, the ufuncs) and the
creation functions that take ``like=``.

Contract: ``lookup(name)`` returns the spirjit version of ``numpy.<name>``
or raises AttributeError. Called with a DeviceArray among its arguments
it is NumPy's function, which dispatches to the DeviceArray version (or
raises NotSupportedError naming it); called on host data only it is
NumPy's answer copied to the default device (what ``spirjit.asarray``
would make of it); creation functions make their array on ``device=``
(default: the default device)."""

import sys

import numpy as np

from ._spirjit import DeviceArray

_DISPATCHED = []


def _dispatched():
    if not _DISPATCHED:
        from numpy.testing.overrides import \
            get_overridable_numpy_array_functions
        _DISPATCHED.append(frozenset(get_overridable_numpy_array_functions()))
    return _DISPATCHED[0]


def _holds_device_array(args, kwargs):
    for value in list(args) + list(kwargs.values()):
        if isinstance(value, DeviceArray):
            return True
        if isinstance(value, (list, tuple)) and any(
                isinstance(v, DeviceArray) for v in value):
            return True
    return False


def _on_device(value):
    import spirjit
    if isinstance(value, (np.ndarray, np.generic)):
        return spirjit.asarray(value)
    if isinstance(value, tuple):
        parts = [_on_device(v) for v in value]
        return type(value)(*parts) if hasattr(value, "_fields") \
            else tuple(parts)
    if isinstance(value, list):
        return [_on_device(v) for v in value]
    return value


def lookup(name):
    from ._array_numpy_misc import like_functions
    function = getattr(np, name, None) if not name.startswith("_") else None
    made = like_functions().get(function)
    if made is not None:
        def creation(*args, device=None, **kwargs):
            import spirjit
            return made(spirjit.empty((0,), device=device), *args, **kwargs)
        wrapper = creation
    elif isinstance(function, np.ufunc) or function in _dispatched():
        def numpys(*args, **kwargs):
            if _holds_device_array(args, kwargs):
                return function(*args, **kwargs)
            return _on_device(function(*args, **kwargs))
        wrapper = numpys
    else:
        raise AttributeError(f"module 'spirjit' has no attribute {name!r}")
    wrapper.__name__ = wrapper.__qualname__ = name
    wrapper.__doc__ = (f"numpy.{name} on DeviceArrays (their device), or "
                       "on host data with the result on the default device.")
    return wrapper


def module_getattr(name):
    """The spirjit module's ``__getattr__``: NumPy's function of that name,
    kept on the module once made."""
    if name.startswith("_"):
        raise AttributeError(f"module 'spirjit' has no attribute {name!r}")
    function = lookup(name)
    setattr(sys.modules["spirjit"], name, function)
    return function
