"""Other libraries' arrays: DeviceArrays over a CUDA array's memory
(`__cuda_array_interface__`, DLPack on kDLCUDA), NumPy views of a
`__sycl_usm_array_interface__` or host DLPack producer's memory, and
DeviceArrays over NumPy memory on devices that share the host's. Launches
and `asarray` call these for each such argument (python/bindings/
Dispatcher.cpp finds two of them as `spirjit._from_cuda_array_interface`
and `spirjit._host_view`), so they stay cheap."""

from . import errors
from ._spirjit import DeviceArray
from . import _spirjit

_CUDA_DEVICES = None


def _is_cuda_dlpack(obj):
    """A DLPack producer whose memory is a CUDA GPU's (kDLCUDA, 2)."""
    import numpy as np
    return hasattr(obj, "__dlpack_device__") and \
        not isinstance(obj, (np.ndarray, DeviceArray)) and \
        tuple(obj.__dlpack_device__())[0] == 2


def _from_cuda_array_interface(obj):
    """A DeviceArray over the memory of a CUDA array of another library
    (CuPy, PyTorch, numba-cuda), without a copy; it keeps ``obj`` alive.
    Launches call it for each such argument, so it stays cheap."""
    global _CUDA_DEVICES
    if _CUDA_DEVICES is None:
        _CUDA_DEVICES = [d for d in _spirjit.devices()
                         if d.filter_string.startswith("cuda:")]
    if not _CUDA_DEVICES:
        raise errors.DeviceError("a __cuda_array_interface__ array needs a "
                                 "CUDA device, and spirjit found none")
    import numpy as np
    info = obj.__cuda_array_interface__
    dtype = np.dtype(info["typestr"])
    itemsize = dtype.itemsize
    shape = list(info["shape"])
    strides = info.get("strides")
    if strides is None:
        strides, step = [], itemsize
        for n in reversed(shape):
            strides.append(step)
            step *= n
        strides.reverse()
    else:
        strides = list(strides)
    span = itemsize
    for n, st in zip(shape, strides):
        if n == 0:
            span = 0
            break
        if st < 0:
            raise errors.InvalidArgumentError(
                "a __cuda_array_interface__ array with negative "
                "strides cannot be viewed; copy it first")
        span += (n - 1) * st
    device = _CUDA_DEVICES[0]
    # Version 3: work the producer queued on `stream` must come first.
    stream = info.get("stream")
    if stream:
        _spirjit._cuda_wait_for_stream(device, stream)
    return _spirjit._wrap_device_memory(device, info["data"][0] or 0,
                                        span, dtype, shape, strides, obj)


def _cuda_interface(self):
    if self._device.properties()["backend"] != "cuda":
        raise AttributeError("__cuda_array_interface__ is for arrays in CUDA "
                             "device memory")
    # Launches run asynchronously on spirjit's stream: a consumer waits for
    # it (version 3's `stream`).
    return {"data": (self._pointer, False), "shape": tuple(self.shape),
            "strides": tuple(self.strides), "typestr": self.dtype.str,
            "version": 3, "stream": _spirjit._cuda_stream(self._device)}


def _is_mapped(address, length):
    """Are all the pages of [address, address + length) mapped in this
    process? (mincore fails with ENOMEM on any unmapped page, where reading
    would crash the interpreter.)"""
    import ctypes
    import mmap
    page = mmap.PAGESIZE
    first = address - address % page
    size = address + max(length, 1) - first
    if address <= 0:
        return False
    pages = (ctypes.c_ubyte * ((size + page - 1) // page))()
    libc = ctypes.CDLL(None, use_errno=True)
    return libc.mincore(ctypes.c_void_p(first), ctypes.c_size_t(size),
                        pages) == 0


def _usm_view(obj):
    """A NumPy view of a __sycl_usm_array_interface__ array's memory (no
    copy), which keeps ``obj`` alive; a ValueError where that memory is not
    this process's."""
    import ctypes

    import numpy as np
    info = obj.__sycl_usm_array_interface__
    pointer, readonly = info["data"]
    dtype = np.dtype(info["typestr"])
    shape = tuple(info["shape"])
    strides = info.get("strides")
    offset = info.get("offset", 0) or 0
    from . import devices
    host = any(d.host_unified_memory for d in devices())
    if not host:
        raise errors.InvalidArgumentError(
            "cannot read this __sycl_usm_array_interface__ array: its USM "
            "pointer belongs to another runtime and no device here shares "
            "the host's memory")
    count = int(np.prod(shape)) if shape else 1
    if strides is None:
        strides = tuple(int(np.prod(shape[k + 1:])) for k in range(len(shape)))
    span = 1 + sum((n - 1) * abs(st) for n, st in zip(shape, strides)) if count else 0
    start = pointer + offset * dtype.itemsize
    if count and not _is_mapped(start, span * dtype.itemsize):
        raise errors.InvalidArgumentError(
            "cannot read this __sycl_usm_array_interface__ array: its data "
            f"pointer {start:#x} is not memory of this process (a "
            "device-only USM allocation of another runtime, or a malformed "
            "interface); pass a host or shared USM array, or a NumPy copy")
    base = (ctypes.c_char * (max(span, 1) * dtype.itemsize)).from_address(
        start)
    base.owner = obj
    raw = np.frombuffer(base, dtype=dtype)
    view = np.lib.stride_tricks.as_strided(
        raw, shape=shape, strides=[st * dtype.itemsize for st in strides])
    if readonly:
        view.flags.writeable = False
    return view


def _host_view(obj):
    """A NumPy view of another producer's host memory, for a launch to use
    in place as it uses a NumPy argument (kernel writes reach the owner):
    a __sycl_usm_array_interface__ array (dpnp, dpctl) or a DLPack producer
    on the CPU (kDLCPU). None for anything else."""
    import numpy as np
    if hasattr(obj, "__sycl_usm_array_interface__"):
        return _usm_view(obj)
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__") and \
            tuple(obj.__dlpack_device__())[0] == 1:
        return np.from_dlpack(obj)
    return None


def _wrap_host(array, device):
    """A DeviceArray over NumPy ``array``'s memory on ``device``, or None
    where that device cannot use it in place."""
    if not array.flags.writeable or array.size == 0 or \
            any(st < 0 for st in array.strides):
        return None
    span = array.itemsize + sum((n - 1) * st for n, st in
                                zip(array.shape, array.strides))
    return _spirjit._wrap_host_memory(
        device, array.__array_interface__["data"][0], span, array.dtype,
        list(array.shape), list(array.strides), array)


_KDLCPU, _KDLCUDA = 1, 2


def _dlpack(self, *, stream=None, max_version=None, dl_device=None,
            copy=None):
    """DLPack export as the Array API standard (2024.12) and DLPack 1.x
    specify it: a versioned capsule for consumers passing ``max_version``
    >= (1, 0), else the unversioned one. ``stream``: on CUDA the consumer's
    stream (None: the legacy default stream, -1: no ordering), which then
    waits for spirjit's; elsewhere only None, and the queue is finished
    before the host reads. ``dl_device``: this array's own device, or the
    CPU (1, 0) for a host copy unless ``copy=False``. ``copy=True`` exports
    a copy, flagged as one in a versioned capsule. BufferError
    (spirjit.errors.DLPackError) for what cannot be exported as asked."""
    own = tuple(self.__dlpack_device__())
    where = own if dl_device is None else tuple(dl_device)
    if where != own and (where[0] != _KDLCPU or copy is False):
        raise errors.DLPackError(
            f"cannot export a DeviceArray on {self._device.filter_string} "
            f"(DLPack device {own}) to DLPack device {where}"
            + (" without a copy (copy=False)" if where[0] == _KDLCPU else
               "; it exports to the CPU (1, 0)" if own[0] == _KDLCPU else
               f"; it exports to {own}, or to the CPU (1, 0) as a copy"))
    if where[0] == _KDLCUDA:
        if stream is not None and (not isinstance(stream, int) or
                                   stream == 0 or stream < -1):
            raise errors.InvalidArgumentError(
                f"__dlpack__: stream={stream!r} is not a CUDA stream: pass "
                "None or 1 (the legacy default stream), 2 (per-thread "
                "default), -1 (no ordering) or a CUstream's address")
        if stream == -1 and copy is False:
            # mpi4py's request: its MPI reads the memory at once, with no
            # stream of its own to order behind spirjit's.
            from . import mpi
            mpi._refuse_gpu_memory_for_mpi(self)
            _spirjit._synchronize(self._device)
    elif stream is not None:
        raise errors.InvalidArgumentError(
            f"__dlpack__: stream={stream!r} on DLPack device {where}, which "
            "has no streams: only stream=None is accepted")
    versioned = max_version is not None and tuple(max_version)[0] >= 1
    if where != own:
        host = self.asnumpy()  # a copy the consumer owns
        return host.__dlpack__(max_version=max_version) if versioned \
            else host.__dlpack__()
    if not self._host_addressable and own[0] != _KDLCUDA:
        raise errors.DLPackError(
            f"a DeviceArray on {self._device.filter_string} is in memory "
            f"the host does not address (DLPack device {own}), which no "
            "consumer can take by pointer; ask for a host copy with "
            "dl_device=(1, 0), as np.from_dlpack(x, device='cpu') does, or "
            "use np.asarray(x)")
    if copy:
        return self.copy()._dlpack_capsule(versioned, copied=True,
                                           stream=stream)
    return self._dlpack_capsule(versioned, stream=stream)
