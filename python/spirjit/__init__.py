"""spirjit: Python kernels compiled to SPIR-V and run on OpenCL devices.

    @spirjit.kernel
    def vecadd(item: kapi.Item, a, b, c):
        i = item.get_id(0)
        c[i] = a[i] + b[i]

    spirjit.call_kernel(vecadd, kapi.Range(n), a, b, c)
"""

import functools

from . import errors, kernel_api
from ._spirjit import DeviceArray
from ._spirjit import Dispatcher as _Dispatcher
from . import _spirjit
from ._describe import describe_function as _describe_function
from .kernel_api import Range

__all__ = ["kernel", "device_func", "call_kernel", "call_kernel_async",
           "Event", "NdRange", "Range", "DeviceArray", "asarray",
           "asnumpy", "devices", "default_device", "Device", "errors",
           "kernel_api"]
__version__ = "0.1.0"


class Device:
    """An OpenCL device, chosen by a filter string ``backend:type:index``
    (any part may be omitted: ``"opencl:cpu:0"``, ``"cpu"``, ``"opencl"``)."""

    def __init__(self, filter_string=""):
        if isinstance(filter_string, Device):
            self._device = filter_string._device
            return
        matches = _spirjit.match_devices(filter_string)
        if not matches:
            known = "\n".join(f"  {d.filter_string}  {d.properties()['name']}"
                              for d in _spirjit.opencl_devices()) or "  none"
            raise errors.DeviceError(
                f"no device matches '{filter_string}'; devices:\n{known}")
        self._device = matches[0]

    @classmethod
    def _wrap(cls, device):
        self = cls.__new__(cls)
        self._device = device
        return self

    def __getattr__(self, name):
        props = self._device.properties()
        if name in props:
            return props[name]
        raise AttributeError(name)

    def __eq__(self, other):
        return isinstance(other, Device) and \
            self._device.filter_string == other._device.filter_string

    def __hash__(self):
        return hash(self._device.filter_string)

    def __repr__(self):
        return f"Device('{self.filter_string}', name='{self.name}')"


def devices():
    """Every device spirjit can launch on."""
    return [Device._wrap(d) for d in _spirjit.opencl_devices()]


def default_device():
    """The device that launches on NumPy arguments only use
    (``SPIRJIT_DEVICE`` picks it; otherwise the first device)."""
    return Device._wrap(_spirjit.default_device())


def _resolve_device(device):
    if device is None:
        return _spirjit.default_device()
    return Device(device)._device


def asarray(obj, dtype=None, device=None):
    """Copies array-like ``obj`` into a DeviceArray on ``device``."""
    import numpy as np
    if isinstance(obj, DeviceArray) and dtype is None and device is None:
        return obj
    array = np.asarray(obj, dtype=dtype)
    return _spirjit.to_device(array, _resolve_device(device))


def asnumpy(x):
    """Copies a DeviceArray back into a new NumPy array."""
    if isinstance(x, DeviceArray):
        return x.asnumpy()
    import numpy as np
    return np.asarray(x)


class Kernel:
    """A function compiled for devices; launch it with call_kernel."""

    def __init__(self, fn, fastmath=False, opt=2):
        functools.update_wrapper(self, fn)
        self.py_func = fn
        self._dispatcher = _Dispatcher(
            functools.partial(_describe_function, fn), fastmath, opt)

    @property
    def stats(self):
        """compiles, memory_hits, disk_hits, compile_seconds (bytecode to
        validated SPIR-V, last compile), device_build_seconds."""
        return self._dispatcher.stats

    def __call__(self, *args, **kwargs):
        raise TypeError(
            f"kernel '{self.__name__}' cannot be called directly; launch it "
            f"with spirjit.call_kernel({self.__name__}, kapi.Range(...), ...)")

    def __repr__(self):
        return f"<spirjit.kernel {self.__qualname__}>"


def kernel(fn=None, *, signatures=None, debug=False, fastmath=False,
           boundscheck=False, opt=2):
    """Decorator: ``fn`` becomes a data-parallel kernel, compiled on first
    launch for each argument-type signature and device."""
    if fn is None:
        return lambda f: kernel(f, signatures=signatures, debug=debug,
                                fastmath=fastmath, boundscheck=boundscheck,
                                opt=opt)
    return Kernel(fn, fastmath=fastmath, opt=opt)


class DeviceFunction:
    """A helper callable from kernels and other device functions. It is
    compiled into each kernel that calls it, specialised per argument types;
    called from plain Python it simply runs."""

    def __init__(self, fn, signatures=()):
        functools.update_wrapper(self, fn)
        self.py_func = fn
        if isinstance(signatures, str):
            signatures = [signatures]
        self.signatures = tuple(signatures or ())
        self.__spirjit_device_func__ = self

    def __call__(self, *args, **kwargs):
        return self.py_func(*args, **kwargs)

    def __repr__(self):
        return f"<spirjit.device_func {self.__qualname__}>"


def device_func(fn=None, *, signatures=None):
    """Decorator: ``fn`` becomes a device function, callable from kernels and
    device functions, returning a number (or nothing). ``signatures``
    ("float64(float64, int64)", or a list) restricts the accepted types."""
    if fn is None:
        return lambda f: device_func(f, signatures=signatures)
    return DeviceFunction(fn, signatures)


def _launch_shape(kernel_object, index_space):
    if not isinstance(kernel_object, Kernel):
        raise TypeError("call_kernel needs a @spirjit.kernel function, got "
                        f"{type(kernel_object).__name__}")
    if isinstance(index_space, kernel_api.NdRange):
        return list(index_space.global_range), list(index_space.local_range)
    if not isinstance(index_space, Range):
        if isinstance(index_space, (tuple, list)):
            index_space = Range(*index_space)
        else:
            index_space = Range(index_space)
    return list(index_space), []


def call_kernel(kernel_object, index_space, *args):
    """Launches ``kernel_object`` over ``index_space`` (a Range or NdRange)
    and waits for it."""
    global_extents, local_extents = _launch_shape(kernel_object, index_space)
    kernel_object._dispatcher.launch(global_extents, local_extents, *args)


def call_kernel_async(kernel_object, index_space, dependent_events, *args):
    """Launches after ``dependent_events`` and returns an Event at once;
    ``Event.wait()`` waits, re-raises any device error and writes NumPy
    arguments back. Compile errors are raised here, at the call."""
    global_extents, local_extents = _launch_shape(kernel_object, index_space)
    return kernel_object._dispatcher.enqueue(
        global_extents, local_extents, list(dependent_events or ()), *args)


Event = _spirjit.Event
NdRange = kernel_api.NdRange
