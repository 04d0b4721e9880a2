"""spirjit: Python kernels compiled to SPIR-V and run on OpenCL devices.

A kernel and its launch::

    @spirjit.kernel
    def vecadd(item: kapi.Item, a, b, c):
        i = item.get_id(0)
        c[i] = a[i] + b[i]

    spirjit.call_kernel(vecadd, kapi.Range(n), a, b, c)
"""

import builtins
import contextlib
import functools
import inspect
import operator
import os
import types as _types

from . import _drivers

_drivers.register_environment_drivers()  # before the OpenCL loader first runs

from . import errors, kernel_api  # noqa: E402
from ._spirjit import DeviceArray
from ._spirjit import Dispatcher as _Dispatcher
from . import _spirjit
from ._describe import describe_function as _describe_function
from ._describe import describe_value as _describe_value
from ._describe import callee_key as _callee_key
from .kernel_api import Range
from . import _array_ops
from . import _array_methods
from . import _array_primitives
from . import _array_api
from . import _array_numpy
from ._vectorize import vectorize
# The bindings find _from_cuda_array_interface and _host_view here.
from ._foreign import (  # noqa: F401
    _cuda_interface, _dlpack, _from_cuda_array_interface, _host_view,
    _is_cuda_dlpack, _usm_view, _wrap_host)

__all__ = ["kernel", "device_func", "call_kernel", "call_kernel_async",
           "synchronize",
           "Event", "NdRange", "empty", "zeros", "ones", "full", "empty_like",
           "zeros_like", "from_dlpack", "Range", "DeviceArray", "asarray",
           "asnumpy", "devices", "default_device", "Device", "errors",
           "kernel_api", "vectorize", "jit", "dpjit", "prange",
           "pndindex", "get_include"]
__version__ = "0.1.0"


class Device:
    """An OpenCL or Level Zero device, chosen by a filter string
    ``backend:type:index`` (any part may be omitted: ``"opencl:cpu:0"``,
    ``"cpu"``, ``"level_zero:gpu"``)."""

    def __init__(self, filter_string=""):
        if isinstance(filter_string, Device):
            self._device = filter_string._device
            return
        if not isinstance(filter_string, str):
            # dpctl's SyclQueue and SyclDevice name their device too.
            named = getattr(filter_string, "sycl_device", filter_string)
            named = getattr(named, "filter_string", None)
            if not isinstance(named, str):
                raise errors.TypingError(
                    "a device is a spirjit.Device, a filter string such as "
                    "'opencl:cpu:0', or a dpctl SyclQueue or SyclDevice, "
                    f"not {type(filter_string).__name__}")
            filter_string = named
        matches = _spirjit.match_devices(filter_string)
        if not matches:
            known = "\n".join(f"  {d.filter_string}  {d.properties()['name']}"
                              for d in _spirjit.devices()) or "  none"
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

    def __spirjit_native__(self):
        """The backend and its native handles, for C++ extensions
        (``spirjit/extension.hpp``)."""
        return self._device.__spirjit_native__()


def get_include():
    """The folder holding ``spirjit/extension.hpp``, the header that gives a
    pybind11 module DeviceArrays and Devices (compile with
    ``-I spirjit.get_include() -I pybind11.get_include()``)."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "include")


def devices():
    """Every device spirjit can launch on."""
    return [Device._wrap(d) for d in _spirjit.devices()]


def default_device():
    """The device that launches on NumPy arguments only use
    (``SPIRJIT_DEVICE`` picks it; otherwise the first device)."""
    return Device._wrap(_spirjit.default_device())


def _resolve_device(device):
    if device is None:
        return _spirjit.default_device()
    return Device(device)._device


_USM_TYPES = ("device", "shared", "host")


def synchronize(device=None):
    """Computes every DeviceArray value still pending (operations record
    expressions and run them as fused kernels when a value is needed), then
    waits until ``device`` (a Device or a filter string; every device by
    default) has finished all the work queued on it."""
    _spirjit._synchronize(None if device is None else Device(device)._device)


def _placement(device, sycl_queue, usm_type, what):
    """The device a constructor's keywords name (None: not named):
    ``device=`` or its dpnp spelling ``sycl_queue=`` (a Device, a filter
    string, or an object with a ``sycl_device``), checked with
    ``usm_type=``."""
    if device is not None and sycl_queue is not None:
        raise errors.TypingError(
            f"spirjit.{what}() takes device= or sycl_queue=, "
            "not both")
    if usm_type is not None and usm_type not in _USM_TYPES:
        raise errors.InvalidArgumentError(
            f"spirjit.{what}(): usm_type must be 'device', "
            f"'shared' or 'host', not {usm_type!r}")
    return device if device is not None else sycl_queue


@contextlib.contextmanager
def _converting(what):
    """NumPy's conversion of a constructor's shape, dtype or values, its
    errors raised as spirjit's classes with NumPy's message."""
    try:
        yield
    except errors.SpirjitError:
        raise
    except TypeError as e:
        raise errors.TypingError(f"spirjit.{what}(): {e}") from None
    except ValueError as e:
        raise errors.InvalidArgumentError(f"spirjit.{what}(): {e}") from None


def asarray(obj, dtype=None, device=None, usm_type=None, sycl_queue=None):
    """Copies array-like ``obj`` into a DeviceArray on ``device`` (a Device or
    a filter string; default: ``obj``'s device, else the default device),
    as ``usm_type`` memory (default: ``obj``'s, else "device").
    Objects exposing ``__sycl_usm_array_interface__`` or DLPack are read
    where the runtime can address their memory."""
    import numpy as np
    device = _placement(device, sycl_queue, usm_type, "asarray")
    if isinstance(obj, DeviceArray):
        if device is not None and Device(device) != obj.device:
            obj = obj.to_device(device)
        kind = usm_type or obj.usm_type
        if (dtype is not None and np.dtype(dtype) != obj.dtype) or \
                kind != obj.usm_type:
            return _spirjit.to_device(obj.asnumpy().astype(dtype or obj.dtype),
                                      obj._device, kind)
        return obj
    if hasattr(obj, "__cuda_array_interface__") and dtype is None and \
            device is None and usm_type is None:
        return _from_cuda_array_interface(obj)
    if _is_cuda_dlpack(obj) and dtype is None and device is None and \
            usm_type is None:
        return _spirjit._from_cuda_dlpack(obj)
    if hasattr(obj, "__sycl_usm_array_interface__") and \
            not isinstance(obj, np.ndarray):
        obj = _usm_view(obj).copy()
    elif hasattr(obj, "__dlpack__") and not isinstance(obj, np.ndarray):
        obj = np.from_dlpack(obj)
    with _converting("asarray"):
        array = np.asarray(obj, dtype=dtype)
    return _spirjit.to_device(array, _resolve_device(device),
                              usm_type or "device")


def from_dlpack(obj, device=None, *, copy=None):
    """A DeviceArray of any DLPack producer's array (NumPy arrays and
    DeviceArrays included), as the Array API's ``from_dlpack``: on
    ``device`` (default: the producer's for DeviceArrays and CUDA memory,
    else the default device). ``copy=None`` shares the memory where the
    device can use it in place (CUDA memory on its CUDA device, host memory
    on a device that shares the host's: CPU OpenCL runtimes) and copies
    elsewhere, and for read-only or negatively strided host data;
    ``copy=True`` always copies; ``copy=False`` never does, and raises
    BufferError (spirjit.errors.DLPackError) where it would have to."""
    import numpy as np
    if isinstance(obj, DeviceArray):
        target = obj.device if device is None else Device(device)
        if target != obj.device:
            if copy is False:
                raise errors.DLPackError(
                    f"from_dlpack: a DeviceArray on "
                    f"{obj.device.filter_string} cannot be on "
                    f"{target.filter_string} without a copy (copy=False)")
            return obj.to_device(target)
        return obj.copy() if copy else obj
    if device is None and _is_cuda_dlpack(obj):
        array = _spirjit._from_cuda_dlpack(obj)
        return array.copy() if copy else array
    host = np.from_dlpack(obj)  # host memory: a view, kept by the result
    target = _resolve_device(device)
    if not copy:
        view = _wrap_host(host, target)
        if view is not None:
            return view
        if copy is False:
            raise errors.DLPackError(
                f"from_dlpack: {target.filter_string} cannot use this "
                "producer's host memory in place (it is read-only, empty "
                "or negatively strided, or the device does not share the "
                "host's memory); pass copy=None to allow a copy")
    return asarray(host, device=device)


def asnumpy(x):
    """Copies a DeviceArray back into a new NumPy array."""
    if isinstance(x, DeviceArray):
        return x.asnumpy()
    import numpy as np
    return np.asarray(x)


def empty(shape, dtype="float64", device=None, usm_type="device",
          sycl_queue=None):
    """An uninitialised DeviceArray (dtype defaults to float64) on ``device``
    (``sycl_queue=`` is dpnp's name for it) as ``usm_type`` memory."""
    import numpy as np
    where = _placement(device, sycl_queue, usm_type, "empty")
    with _converting("empty"):
        dtype = np.dtype(dtype or "float64")
        extents = _extents(shape)
    return _spirjit.empty(extents, dtype, _resolve_device(where),
                          usm_type or "device")


def _extents(shape):
    """A constructor's shape (an integer or a sequence of them) as a list."""
    try:
        extents = list(shape)
    except TypeError:
        extents = [shape]
    return [operator.index(n) for n in extents]


def full(shape, fill_value, dtype=None, device=None, usm_type="device",
         sycl_queue=None):
    """A DeviceArray of ``fill_value``; dtype inferred as numpy.full does."""
    return _filled("full", shape, fill_value, dtype, device, usm_type,
                   sycl_queue)


def zeros(shape, dtype="float64", device=None, usm_type="device",
          sycl_queue=None):
    """A DeviceArray of zeros, with ``empty``'s keywords."""
    return _filled("zeros", shape, 0, dtype or "float64", device, usm_type,
                   sycl_queue)


def ones(shape, dtype="float64", device=None, usm_type="device",
         sycl_queue=None):
    """A DeviceArray of ones, with ``empty``'s keywords."""
    return _filled("ones", shape, 1, dtype or "float64", device, usm_type,
                   sycl_queue)


def _filled(what, shape, fill_value, dtype, device, usm_type, sycl_queue):
    """``empty`` filled with ``fill_value`` on the device. Only the value
    is made on the host, at its own size: a whole host array first had
    doubled the peak memory, and a shape too large raised NumPy's
    MemoryError, not OutOfDeviceMemoryError as ``empty`` does."""
    import numpy as np
    where = _placement(device, sycl_queue, usm_type, what)
    if isinstance(fill_value, DeviceArray):
        fill_value = fill_value.asnumpy()
    with _converting(what):
        extents = _extents(shape)
        if builtins.any(n < 0 for n in extents):
            raise ValueError("negative dimensions are not allowed")
        # numpy.full's dtype inference, casting and errors
        value = np.full(np.shape(fill_value), fill_value, dtype=dtype)
        try:
            fits = np.broadcast_shapes(value.shape, extents) == tuple(extents)
        except ValueError:
            fits = False
        if not fits:  # NumPy's message, its shapes without spaces
            raise ValueError(
                "could not broadcast input array from shape " +
                str(value.shape).replace(" ", "") + " into shape " +
                str(tuple(extents)).replace(" ", ""))
    out = _spirjit.empty(extents, value.dtype, _resolve_device(where),
                         usm_type or "device")
    if _array_primitives._on_host(out):
        # NumPy in place, where the host addresses the device's memory
        _array_primitives.host_view(out)[...] = value
    elif value.ndim:
        out[...] = _spirjit.to_device(value, out._device, "device")
    else:
        from . import _library_kernels
        _library_kernels.fill(out, value[()])
    return out


def _like(x, dtype, device, usm_type, sycl_queue):
    """The shape, dtype, device and usm_type of a ``*_like`` result: ``x``'s
    where not given (a NumPy ``x``: the default device, "device")."""
    if device is None and sycl_queue is None:
        device = _device_of(x)
    if usm_type is None:
        usm_type = x.usm_type if isinstance(x, DeviceArray) else "device"
    return (x.shape, dtype or x.dtype, device, usm_type, sycl_queue)


def empty_like(x, dtype=None, device=None, usm_type=None, sycl_queue=None):
    """``empty`` with ``x``'s shape, and its dtype, device and usm_type
    where not given (for a NumPy ``x``: the default device, "device")."""
    shape, dtype, device, usm_type, sycl_queue = _like(
        x, dtype, device, usm_type, sycl_queue)
    return empty(shape, dtype, device, usm_type, sycl_queue)


def zeros_like(x, dtype=None, device=None, usm_type=None, sycl_queue=None):
    """``zeros`` with ``x``'s shape, dtype, device and usm_type, as
    ``empty_like``."""
    shape, dtype, device, usm_type, sycl_queue = _like(
        x, dtype, device, usm_type, sycl_queue)
    return zeros(shape, dtype, device, usm_type, sycl_queue)


def ones_like(x, dtype=None, device=None, usm_type=None, sycl_queue=None):
    """``ones`` with ``x``'s shape, dtype, device and usm_type, as
    ``empty_like``."""
    shape, dtype, device, usm_type, sycl_queue = _like(
        x, dtype, device, usm_type, sycl_queue)
    return ones(shape, dtype, device, usm_type, sycl_queue)


def full_like(x, fill_value, dtype=None, device=None, usm_type=None,
              sycl_queue=None):
    """``full`` with ``x``'s shape, dtype, device and usm_type, as
    ``empty_like``."""
    shape, dtype, device, usm_type, sycl_queue = _like(
        x, dtype, device, usm_type, sycl_queue)
    return full(shape, fill_value, dtype, device, usm_type, sycl_queue)


def _device_of(x):
    return x.device if isinstance(x, DeviceArray) else None


_BAD_INDEX = ("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis "
              "(`None`) and integer or boolean arrays are valid indices")


def _normalise_index(key, ndim):
    if not isinstance(key, tuple):
        key = (key,)
    if builtins.sum(1 for k in key if k is Ellipsis) > 1:
        raise errors.ArrayIndexError(
            "an index can only have a single ellipsis ('...')")
    real = builtins.sum(1 for k in key if k is not None and k is not Ellipsis)
    if real > ndim:
        raise errors.ArrayIndexError(
            f"too many indices for array: array is "
            f"{ndim}-dimensional, but {real} were indexed")
    if builtins.any(k is Ellipsis for k in key):
        at = key.index(Ellipsis)
        return key[:at] + (slice(None),) * (ndim - real) + key[at + 1:]
    return key + (slice(None),) * (ndim - real)


def _select(self, key):
    """The view basic slicing (integers, slices with any step, ..., None)
    selects, and whether ``key`` names one element by integers alone (NumPy
    then reads a scalar, and writes as into one element)."""
    import operator
    shape, strides, offset = [], [], self._offset
    axis = 0
    for k in _normalise_index(key, self.ndim):
        if k is None:  # np.newaxis: a new axis of length 1
            shape.append(1)
            strides.append(0)
            continue
        n, st = self.shape[axis], self.strides[axis]
        if isinstance(k, slice):
            start, stop, step = k.indices(n)
            shape.append(len(range(start, stop, step)))
            strides.append(st * step)
            offset += start * st
        else:
            if isinstance(k, list) or getattr(k, "ndim", 0) > 0:
                raise errors.ArrayIndexError(
                    "a DeviceArray takes basic indices only "
                    "(integers, slices, ..., None), not "
                    "integer or boolean arrays")
            try:
                i = operator.index(k)
            except TypeError:
                raise errors.ArrayIndexError(_BAD_INDEX) from None
            if not -n <= i < n:
                raise errors.ArrayIndexError(
                    f"index {i} is out of bounds for axis "
                    f"{axis} with size {n}")
            offset += (i % n) * st
        axis += 1
    element = not shape and not builtins.any(
        k is None or k is Ellipsis or isinstance(k, slice)
        for k in (key if isinstance(key, tuple) else (key,)))
    return self._view(shape, strides, offset), element


def _getitem(self, key):
    """Basic slicing gives a view; one element by integers is read;
    integer and boolean arrays select a new array (NumPy's advanced
    indexing)."""
    if _array_primitives.has_advanced(key):
        return _array_primitives.getitem(self, key)
    view, element = _select(self, key)
    if element:
        return view.asnumpy()[()]
    return view


def _setitem(self, key, value):
    """Writes ``value``, broadcast to the selected view and cast as NumPy's
    setitem casts, into the view on the device. A DeviceArray value on the
    same device is copied by a kernel there (through a temporary when it
    overlaps the view); any other value is made whole on the host first, so
    it is read before anything is written."""
    import numpy as np
    if _array_primitives.has_advanced(key):
        return _array_primitives.setitem(self, key, value)
    view, element = _select(self, key)
    if isinstance(value, DeviceArray) and not element and \
            _array_ops.assign_on_device(view, value):
        return
    if isinstance(value, DeviceArray):
        value = value.asnumpy()
    if element:
        # One element: NumPy's element assignment, with its errors
        # (a sequence into an element, complex into a real dtype).
        host = np.empty(1, dtype=self.dtype)
        host[0] = value
        host = host.reshape(())
    elif isinstance(value, np.ndarray) and value.dtype == self.dtype and \
            value.shape == view.shape:
        host = value
    else:
        host = np.empty(view.shape, dtype=self.dtype)
        host[...] = value
    view._write_from(host)


def _usm_interface(self):
    pointer = self._pointer
    if pointer is None or self._device.properties()["backend"] == "cuda":
        raise AttributeError("__sycl_usm_array_interface__ needs shared "
                             "virtual memory, which this device lacks")
    itemsize = self.dtype.itemsize
    return {"data": (pointer, False), "shape": tuple(self.shape),
            "strides": tuple(st // itemsize for st in self.strides),
            "typestr": self.dtype.str, "version": 1, "offset": 0,
            "syclobj": self.device}


def _to_device(self, device, /, *, stream=None):
    """This array on ``device`` (a Device or a filter string): itself where
    it already lives there, else a copy: device to device between CUDA GPUs,
    through the host otherwise."""
    target = Device(device)
    if target == self.device:
        return self
    direct = _spirjit._copy_between_devices(self, target._device,
                                            self.usm_type)
    if direct is not None:
        return direct
    return _spirjit.to_device(self.asnumpy(), target._device, self.usm_type)


DeviceArray.__dlpack__ = _dlpack
DeviceArray.__getitem__ = _spirjit._item_method(_getitem, False)
DeviceArray.__setitem__ = _spirjit._item_method(_setitem, True)


def _len(self):
    if not self.shape:
        raise errors.TypingError("len() of unsized object")
    return self.shape[0]


DeviceArray.__len__ = _len


class _Flags:
    """A DeviceArray's memory layout, named as NumPy's ``ndarray.flags``
    names it (attributes and ``flags["C_CONTIGUOUS"]``)."""

    def __init__(self, array):
        self.c_contiguous = _array_ops.is_contiguous(array, "C")
        self.f_contiguous = _array_ops.is_contiguous(array, "F")
        self.contiguous = self.c_contiguous
        self.writeable = True
        self.aligned = True
        self.owndata = array._offset == 0 and self.c_contiguous

    def __getitem__(self, name):
        key = {"C": "c_contiguous", "F": "f_contiguous",
               "W": "writeable", "A": "aligned", "O": "owndata"}.get(
                   name, name.lower())
        return getattr(self, key)

    def __repr__(self):
        return "\n".join(f"  {name.upper()} : {getattr(self, name)}" for name in
                         ("c_contiguous", "f_contiguous", "owndata",
                          "writeable", "aligned"))


DeviceArray.__len__ = _len
DeviceArray.flags = property(_Flags)
DeviceArray.device = property(lambda self: Device._wrap(self._device),
                              doc="the Device the array lives on")
DeviceArray.to_device = _to_device
DeviceArray.__sycl_usm_array_interface__ = property(_usm_interface)
DeviceArray.__cuda_array_interface__ = property(_cuda_interface)
_array_ops.install(DeviceArray)
_array_methods.install(DeviceArray, _array_ops._FUNCTIONS)
_array_ops._FUNCTIONS.update(_array_numpy.numpy_functions())

_array_api.install_methods(DeviceArray)


def _check_function(fn, decorator):
    # The compiler reads the function's bytecode: without a code object
    # the failure would be an AttributeError from deep inside.
    if not isinstance(getattr(fn, "__code__", None), _types.CodeType):
        raise errors.TypingError(
            f"spirjit.{decorator} decorates a Python function, "
            f"not {type(fn).__name__}")
    # What the def line itself asks for, named as the user wrote it (the
    # bytecode would show an async def only as a 'yield').
    code = fn.__code__
    what = None
    if code.co_flags & (inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR):
        what = "async def"
    elif code.co_flags & inspect.CO_VARKEYWORDS:
        what = "**kwargs"
    elif code.co_flags & inspect.CO_VARARGS:
        what = "*args"
    if what:
        where = f"{code.co_filename}:{code.co_firstlineno}"
        kind = {"kernel": "kernels", "device_func": "device functions",
                "jit": "jit functions",
                "vectorize": "vectorize functions"}.get(decorator, decorator)
        raise errors.UnsupportedFeatureError(
            f"{where}: '{what}' is not supported in spirjit {kind}: give "
            f"each parameter a name", code.co_filename, code.co_firstlineno)


def _opt_level(opt, decorator):
    """``opt=`` as an int 0 to 3, or a ValueError naming the decorator."""
    try:
        level = operator.index(opt)
    except TypeError:
        level = None
    if isinstance(opt, builtins.bool) or level not in (0, 1, 2, 3):
        raise errors.InvalidArgumentError(
            f"spirjit.{decorator}'s opt= is an optimisation "
            f"level 0 to 3, not {opt!r}")
    return level


def _env_flag(name):
    """An environment switch: set to anything but "", "0" or "false"."""
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false")


def _signature_list(signatures, decorator, example):
    """``signatures=`` as a list of strings, or a TypeError naming the bad
    element and the expected form (rather than the binding's dump)."""
    if not signatures:
        return []
    if isinstance(signatures, str):
        return [signatures]
    form = (f"spirjit.{decorator}'s signatures= takes a string such as "
            f"{example!r} or a list of them")
    try:
        signatures = list(signatures)
    except TypeError:
        raise errors.TypingError(
            f"{form}, not {type(signatures).__name__} {signatures!r}") from None
    for i, text in enumerate(signatures):
        if not isinstance(text, str):
            raise errors.TypingError(f"{form}; element {i} is "
                                     f"{type(text).__name__} {text!r}")
    return signatures


class Kernel:
    """A function compiled for devices; launch it with call_kernel."""

    def __init__(self, fn, fastmath=False, opt=2, signatures=None,
                 debug=False, boundscheck=False):
        _check_function(fn, "kernel")
        _opt_level(opt, "kernel")
        signatures = _signature_list(signatures, "kernel",
                                     "(float32[::1], int64)")
        functools.update_wrapper(self, fn)
        self.py_func = fn
        # SPIRJIT_DEBUG / SPIRJIT_BOUNDSCHECK turn the checks on for every
        # kernel of the process; the options key the compile caches.
        debug = builtins.bool(debug) or _env_flag("SPIRJIT_DEBUG")
        boundscheck = builtins.bool(boundscheck) or debug or _env_flag(
            "SPIRJIT_BOUNDSCHECK")
        self.debug = debug
        self.boundscheck = boundscheck
        self._dispatcher = _Dispatcher(
            functools.partial(_describe_function, fn), fastmath, opt,
            boundscheck, debug)
        if signatures:
            self._dispatcher.set_signatures(signatures)

    @property
    def stats(self):
        """compiles, memory_hits, disk_hits, rebuilds (programs built again
        after the device let go of them: SPIRJIT_MAX_BUILT_PROGRAMS),
        compile_seconds (bytecode to validated SPIR-V, last compile),
        device_build_seconds."""
        return self._dispatcher.stats

    def __call__(self, *args, **kwargs):
        raise errors.TypingError(
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
    return Kernel(fn, fastmath=fastmath, opt=opt, signatures=signatures,
                  debug=debug, boundscheck=boundscheck)


class DeviceFunction:
    """A helper callable from kernels and other device functions. It is
    compiled into each kernel that calls it, specialised per argument types;
    called from plain Python it simply runs."""

    def __init__(self, fn, signatures=()):
        _check_function(fn, "device_func")
        signatures = _signature_list(signatures, "device_func",
                                     "float64(float64, int64)")
        functools.update_wrapper(self, fn)
        self.py_func = fn
        self.signatures = tuple(signatures)
        self.__spirjit_device_func__ = self

    def __call__(self, *args, **kwargs):
        return self.py_func(*args, **kwargs)

    @property
    def stats(self):
        """compiles: kernel specialisations compiled in this process that
        contain it (it is compiled into each); disk_hits: those loaded from
        the disk cache instead; memory_hits: always 0, since a device
        function has no cache of its own (its kernels' stats have theirs)."""
        return _spirjit.device_function_stats(
            _callee_key(self.py_func))

    def __repr__(self):
        return f"<spirjit.device_func {self.__qualname__}>"


def device_func(fn=None, *, signatures=None):
    """Decorator: ``fn`` becomes a device function, callable from kernels and
    device functions, returning a number, a tuple of numbers, or nothing.
    ``signatures`` ("float64(float64, int64)", or a list) restricts the
    accepted types."""
    if fn is None:
        return lambda f: device_func(f, signatures=signatures)
    return DeviceFunction(fn, signatures)


class _PRange:
    """``range`` that marks a loop as parallel: in a jit function each
    prange loop nest (up to 3 deep) becomes a kernel launch; called from
    plain Python it is ``range``."""

    __spirjit_name__ = "spirjit.prange"

    def __call__(self, *args):
        return range(*args)

    def __repr__(self):
        return "spirjit.prange"


#: ``range`` that marks a loop as parallel: in a jit function each prange
#: loop nest (up to 3 deep) becomes a kernel launch; called from plain
#: Python it is ``range``.
prange = _PRange()


def _is_spirjit_function(value):
    return (getattr(value, "__spirjit_jit__", False) is True or
            getattr(value, "__spirjit_vectorize__", False) is True or
            getattr(value, "__spirjit_device_func__", None) is not None)


class _FunctionArgumentType:
    """Stands for a function argument in a call of the specialisation that
    has the function as a constant."""
    __spirjit_function_argument__ = True


_FunctionArgument = _FunctionArgumentType()


def _describe_with_arguments(fn, constants, operations=()):
    """fn's description with `constants` (parameter name -> function) as
    globals named "<argument name>", which the frontend reads for them."""
    description = _describe_function(fn, operations=operations)
    for name, value in constants.items():
        description["globals"][f"<argument {name}>"] = _describe_value(
            value, description["device_functions"])
    return description


class _PNDIndex:
    """``numpy.ndindex`` that marks a loop as parallel: in a jit function
    ``for idx in pndindex(a.shape)`` (or ``pndindex(n, m)``, 1-3 extents)
    is a launch of as many dimensions, ``idx`` the tuple of indices; called
    from plain Python it is ``numpy.ndindex``."""

    __spirjit_name__ = "spirjit.pndindex"

    def __call__(self, *shape):
        import numpy as np
        return np.ndindex(*shape)

    def __repr__(self):
        return "spirjit.pndindex"


#: ``numpy.ndindex`` that marks a loop as parallel: in a jit function
#: ``for idx in pndindex(a.shape)`` (or ``pndindex(n, m)``, 1-3 extents) is
#: a launch of as many dimensions; called from plain Python it is
#: ``numpy.ndindex``.
pndindex = _PNDIndex()


class JitFunction:
    """A function compiled whole: host code through LLVM's JIT, its prange
    loops as kernels on the device of its arrays (or ``device=``)."""

    __spirjit_jit__ = True  # another jit function's host code inlines it

    def __init__(self, fn, device=None, fastmath=False, opt=2, debug=False,
                 boundscheck=False):
        _check_function(fn, "jit")
        level = _opt_level(opt, "jit")
        functools.update_wrapper(self, fn)
        self.py_func = fn
        self.device = None if device is None else Device(device)
        # The loops' kernels check as a kernel's would (API.md "Debugging
        # kernels"), SPIRJIT_DEBUG / SPIRJIT_BOUNDSCHECK included.
        self.debug = builtins.bool(debug) or _env_flag("SPIRJIT_DEBUG")
        self.boundscheck = builtins.bool(boundscheck) or self.debug or _env_flag(
            "SPIRJIT_BOUNDSCHECK")
        self._options = (None if self.device is None else self.device._device,
                         builtins.bool(fastmath), level, self.boundscheck, self.debug)
        dispatcher = _spirjit.JitDispatcher(
            functools.partial(_describe_function, fn),
            *self._options)
        self._dispatcher = dispatcher
        self._with_functions = {}
        # The bound method itself: a call goes straight to C++.
        self._call = dispatcher.__call__
        # Fewer positional arguments than this: the defaults fill them in
        # (keyword-only parameters: always bound, they take places after
        # the positional ones).
        code = fn.__code__
        self._kwonly = code.co_varnames[code.co_argcount:code.co_argcount +
                                        code.co_kwonlyargcount]
        self._filled_below = code.co_argcount + len(self._kwonly) + 1 \
            if self._kwonly else code.co_argcount if fn.__defaults__ else 0

    def __call__(self, *args, **kwargs):
        if kwargs or len(args) < self._filled_below:
            args = self._bind(args, kwargs)
        try:
            return self._call(*args)
        except errors.TypingError:
            # Functions as arguments (rare: found only when the fast path
            # refuses them).
            functions = {i: a for i, a in enumerate(args)
                         if _is_spirjit_function(a)}
            if not functions:
                raise
            return self._call_with_functions(args, functions)

    def _call_with_functions(self, args, functions):
        """numba's first-class jit functions: one dispatcher per tuple of
        functions passed, whose code has each as a constant (a global of
        the description, "<argument name>"), so calls of it compile as
        calls of a global's."""
        key = tuple((i, id(f)) for i, f in functions.items())
        made = self._with_functions.get(key)
        if made is None:
            names = self.py_func.__code__.co_varnames
            constants = {names[i]: f for i, f in functions.items()}
            made = (_spirjit.JitDispatcher(
                functools.partial(_describe_with_arguments, self.py_func,
                                  constants), *self._options),
                    tuple(functions.values()))  # kept alive with their ids
            self._with_functions[key] = made
        return made[0](*[_FunctionArgument if i in functions else a
                         for i, a in enumerate(args)])

    def _bind(self, args, kwargs):
        try:
            bound = inspect.signature(self.py_func).bind(*args, **kwargs)
        except TypeError as e:
            raise errors.TypingError(f"{self.__name__}(): {e}") from None
        bound.apply_defaults()
        return bound.args + tuple(bound.kwargs[n] for n in self._kwonly)

    @property
    def stats(self):
        """compiles: specialisations made so far (one per argument types),
        their host code compiled or linked from the disk cache; memory_hits:
        calls that found their specialisation made; host: the host code's
        own stats (compiles, memory_hits, disk_hits, compile_seconds);
        kernels: the prange loops' kernels' stats (compiles, memory_hits,
        disk_hits, rebuilds, compile_seconds, device_build_seconds);
        disk_hits: the
        kernels'."""
        kernels = self._dispatcher.kernel_stats()
        host = self._dispatcher.host_stats()
        return {"compiles": self._dispatcher.compiles,
                "memory_hits": host["memory_hits"],
                "disk_hits": kernels["disk_hits"],
                "host": host, "kernels": kernels}

    def __repr__(self):
        return f"<spirjit.jit {self.__qualname__}>"


def jit(fn=None, *, device=None, fastmath=False, opt=2, debug=False,
        boundscheck=False, parallel=True, cache=True, nopython=True,
        nogil=True):
    """Decorator: compiles the whole function; its ``prange`` loops run as
    kernels on the device of its DeviceArray arguments, or on ``device=``
    (a Device or a filter string), or on the default device. ``debug`` and
    ``boundscheck`` check the loops as they check kernels, and the host
    code's indices too. numba's ``parallel``, ``cache``, ``nopython`` and
    ``nogil`` are taken as numba users write them: spirjit's prange loops
    always run in parallel, compiled code is always cached on disk, there
    is no object mode, and the GIL is released while kernels run."""
    if isinstance(fn, (str, list, tuple)):
        raise errors.TypingError(
            "spirjit.jit takes no signature: it compiles for the argument "
            "types of each call (pass options as keywords, "
            "@spirjit.jit(device=...))")
    if not nopython:
        raise errors.UnsupportedFeatureError(
            "spirjit.jit has no object mode (nopython=False); its functions "
            "are always compiled")
    if fn is None:
        return lambda f: jit(f, device=device, fastmath=fastmath, opt=opt,
                             debug=debug, boundscheck=boundscheck)
    return JitFunction(fn, device=device, fastmath=fastmath, opt=opt,
                       debug=debug, boundscheck=boundscheck)


dpjit = jit
njit = jit  # numba's spelling


def _launch_shape(kernel_object, index_space):
    """(global extents, local extents) of a launch: the index spaces that
    call_kernel's C++ entry does not read itself, and every error."""
    if not isinstance(kernel_object, Kernel):
        raise errors.TypingError(
            "call_kernel needs a @spirjit.kernel function, got "
            f"{type(kernel_object).__name__}")
    if isinstance(index_space, kernel_api.NdRange):
        return list(index_space.global_range), list(index_space.local_range)
    if not isinstance(index_space, Range):
        if isinstance(index_space, (tuple, list)):
            index_space = Range(*index_space)
        else:
            index_space = Range(index_space)
    return list(index_space), []


# The launch path is C++ (python/bindings/Dispatcher.cpp): no Python frame
# between the call and the enqueue. _launch_shape above handles the index
# spaces it does not read itself, and says what is wrong with bad ones.
call_kernel = _spirjit.call_kernel
call_kernel_async = _spirjit.call_kernel_async

Event = _spirjit.Event
NdRange = kernel_api.NdRange

# The Array API namespace (API.md), added last: the code above keeps
# Python's builtins (sum, any, bool) that the standard's names shadow.
_array_api.install(__import__("sys").modules[__name__])
from . import random  # noqa: E402,F401  (spirjit.random: Philox4x32-10)


# NumPy's functions beside the Array API's (spirjit.cumsum, ...).
from ._numpy_names import module_getattr as __getattr__  # noqa: E402,F401
