"""A device's vendor libraries, loaded at run time as the driver is: cuBLAS
for matrix products and cuFFT for spirjit.fft on NVIDIA GPUs.

Contract: ``gemm(a, b, out)`` computes ``out = a @ b`` for 2-D float32,
float64, complex64 and complex128 DeviceArrays on one CUDA device, queued
on spirjit's stream of that device (so it runs after the work that made
``a`` and ``b``, and before any launch queued after it), and returns True;
it returns False, computing nothing, where cuBLAS does not apply (another
backend or dtype) or does not load, and the caller's kernel computes the
product instead. No build-time CUDA dependency: the library is found by
its soname (``libcublas.so.13``, ``.12``) on the loader's path. The arrays'
memory is leased through ``__spirjit_native__`` while the call is queued,
so dropping them right after frees nothing under cuBLAS.

``fft(name, x, kwargs)`` computes spirjit.fft's fft, ifft, rfft, irfft,
hfft, ihfft and their n-D forms of a CUDA DeviceArray by cuFFT (``libcufft.so.12``, ``.11``)
on the same stream, with NumPy's n, axis, s, axes and norm, and returns
None where cuFFT does not apply or load (the caller then says the function
has no version for the device).
"""

import ctypes
import threading

import numpy as np

from . import errors

_SONAMES = ("libcublas.so.13", "libcublas.so.12", "libcublas.so")
_GEMM = {np.dtype(np.float32): ("cublasSgemm_v2", ctypes.c_float),
         np.dtype(np.float64): ("cublasDgemm_v2", ctypes.c_double),
         np.dtype(np.complex64): ("cublasCgemm_v2", ctypes.c_float),
         np.dtype(np.complex128): ("cublasZgemm_v2", ctypes.c_double)}
_OP_N, _OP_T = 0, 1

_state = threading.local()
_lock = threading.Lock()
_library = []  # [CDLL] once loaded, [None] where none loads
_driver = []   # libcuda, loaded once (spirjit's runtime has it open too)


def _load(sonames, cache):
    """The first of ``sonames`` that loads (None where none does), loaded
    once into ``cache``."""
    with _lock:
        if not cache:
            found = None
            for name in sonames:
                try:
                    found = ctypes.CDLL(name)
                    break
                except OSError:
                    continue
            cache.append(found)
        return cache[0]


def _cublas():
    return _load(_SONAMES, _library)


def _check(status, what, library="cuBLAS"):
    if status != 0:
        error = errors.DeviceError(
            f"{library} {what} failed with status {status}")
        error.backend = "cuda"
        error.code = f"{library.upper()}_STATUS_{status}"
        raise error


def _current(device):
    """spirjit's context of ``device`` made this thread's current one (the
    libraries queue in the current context); its native handles."""
    native = device.__spirjit_native__()
    cuda = _load(("libcuda.so.1",), _driver)
    _check(cuda.cuCtxSetCurrent(ctypes.c_void_p(native["context"])),
           "cuCtxSetCurrent", "CUDA")
    return native


def _handle(lib, device):
    """This thread's cuBLAS handle for ``device``, made in spirjit's
    context of it and bound to spirjit's stream."""
    handles = getattr(_state, "handles", None)
    if handles is None:
        handles = _state.handles = {}
    native = _current(device)
    key = native["filter_string"]
    if key not in handles:
        handle = ctypes.c_void_p()
        _check(lib.cublasCreate_v2(ctypes.byref(handle)), "cublasCreate")
        handles[key] = handle
    handle = handles[key]
    _check(lib.cublasSetStream_v2(handle, ctypes.c_void_p(native["queue"])),
           "cublasSetStream")
    return handle


def _operand(x):
    """(op, leading dimension) of ``x`` in cuBLAS' column-major terms for
    the row-major product, or None for a layout cuBLAS cannot read."""
    item = x.dtype.itemsize
    rows, cols = x.shape
    s0, s1 = x.strides
    if (s1 == item or cols == 1) and (s0 == cols * item or rows == 1):
        return _OP_N, max(cols, 1)      # C order: the transpose, column-major
    if (s0 == item or rows == 1) and (s1 == rows * item or cols == 1):
        return _OP_T, max(rows, 1)      # F order
    return None


def gemm(a, b, out):
    if out._device.properties()["backend"] != "cuda" or \
            out.dtype not in _GEMM or a.dtype != out.dtype or \
            b.dtype != out.dtype or not out.flags.c_contiguous:
        return False
    m, k = a.shape
    n = b.shape[1]
    if m == 0 or n == 0 or k == 0:
        return False
    lib = _cublas()
    if lib is None:
        return False
    if _operand(a) is None:
        a = a.copy()
    if _operand(b) is None:
        b = b.copy()
    (op_a, lda), (op_b, ldb) = _operand(a), _operand(b)
    symbol, part = _GEMM[out.dtype]
    if out.dtype.kind == "c":
        scalar = part * 2
        one, zero = scalar(1, 0), scalar(0, 0)
    else:
        one, zero = part(1), part(0)
    from . import Device
    handle = _handle(lib, Device._wrap(out._device))
    # Leases: each array's memory outlives what is queued while it is held.
    na, nb, nc = (x.__spirjit_native__() for x in (a, b, out))
    # Row-major out = a @ b is column-major out^T = b^T a^T.
    status = getattr(lib, symbol)(
        handle, op_b, op_a, n, m, k, ctypes.byref(one),
        ctypes.c_void_p(nb["data"]), ldb, ctypes.c_void_p(na["data"]), lda,
        ctypes.byref(zero), ctypes.c_void_p(nc["data"]), max(n, 1))
    _check(status, symbol)
    del na, nb, nc
    return True


# cuFFT: 1-D transforms along one axis (n-D ones axis by axis), batched
# over the other axes, on spirjit's stream; plans are kept per shape.
_CUFFT = ("libcufft.so.12", "libcufft.so.11", "libcufft.so")
_C2C, _Z2Z, _R2C, _D2Z, _C2R, _Z2D = 0x29, 0x69, 0x2A, 0x6A, 0x2C, 0x6C
_cufft_library = []
_plans = {}


def _cufft():
    return _load(_CUFFT, _cufft_library)


def _fft_check(status, what):
    _check(status, what, "cuFFT")


def _plan(lib, device, n, kind, batch):
    native = _current(device)
    key = (native["filter_string"], n, kind, batch)
    with _lock:
        if key not in _plans:
            plan = ctypes.c_int()
            _fft_check(lib.cufftPlan1d(ctypes.byref(plan), n, kind, batch),
                       "cufftPlan1d")
            _plans[key] = plan
        plan = _plans[key]
    _fft_check(lib.cufftSetStream(plan, ctypes.c_void_p(native["queue"])),
               "cufftSetStream")
    return plan


def _resized(x, length):
    """x's last axis cut or zero-padded to ``length``."""
    from . import _array_api as api
    from . import zeros
    m = x.shape[-1]
    if length == m:
        return x
    if length < m:
        return x[..., :length]
    pad = zeros(x.shape[:-1] + (length - m,), dtype=x.dtype,
                device=x.device)
    return api.concat([x, pad], axis=-1)


def _transform(name, x, n, axis, norm):
    """One 1-D fft, ifft, rfft or irfft along ``axis`` by cuFFT."""
    from . import _array_ops as ops
    from . import Device
    lib = _cufft()
    axis = axis % x.ndim
    order = [a for a in range(x.ndim) if a != axis] + [axis]
    moved = ops.transpose(x, order)
    double = x.dtype in (np.float64, np.complex128) or x.dtype.kind in "biu"
    real_dtype = np.dtype(np.float64 if double else np.float32)
    complex_dtype = np.dtype(np.complex128 if double else np.complex64)
    m = moved.shape[-1]
    if name == "irfft":
        length = n if n is not None else 2 * (m - 1)
        source = _resized(ops.astype(moved, complex_dtype, copy=False),
                          length // 2 + 1)
        kind, out_dtype, out_len = (_Z2D if double else _C2R), real_dtype, \
            length
    elif name == "rfft":
        if x.dtype.kind == "c":
            raise errors.TypingError("rfft takes real input, not complex")
        length = n if n is not None else m
        source = _resized(ops.astype(moved, real_dtype, copy=False), length)
        kind, out_dtype, out_len = (_D2Z if double else _R2C), \
            complex_dtype, length // 2 + 1
    else:
        length = n if n is not None else m
        source = _resized(ops.astype(moved, complex_dtype, copy=False),
                          length)
        kind, out_dtype, out_len = (_Z2Z if double else _C2C), \
            complex_dtype, length
    if length < 1:
        raise errors.InvalidArgumentError(
            f"Invalid number of FFT data points ({length}) specified.")
    source = ops.copy(source)  # contiguous, and cuFFT's own (C2R writes it)
    batch = int(np.prod(source.shape[:-1]))
    out = ops._empty(source.shape[:-1] + (out_len,), out_dtype, x._device,
                     x.usm_type)
    if batch and out.size:
        plan = _plan(lib, Device._wrap(x._device), length, kind, batch)
        src, dst = source.__spirjit_native__(), out.__spirjit_native__()
        inverse = name in ("ifft", "irfft")
        if kind in (_C2C, _Z2Z):
            status = getattr(lib, "cufftExecC2C" if kind == _C2C else
                             "cufftExecZ2Z")(
                plan, ctypes.c_void_p(src["data"]),
                ctypes.c_void_p(dst["data"]), 1 if inverse else -1)
        else:
            symbol = {_R2C: "cufftExecR2C", _D2Z: "cufftExecD2Z",
                      _C2R: "cufftExecC2R", _Z2D: "cufftExecZ2D"}[kind]
            status = getattr(lib, symbol)(plan, ctypes.c_void_p(src["data"]),
                                          ctypes.c_void_p(dst["data"]))
        _fft_check(status, name)
        del src, dst
    # NumPy's norm: "backward" scales the inverse by 1/n, "forward" the
    # forward one, "ortho" both by 1/sqrt(n).
    inverse = name in ("ifft", "irfft")
    if norm in (None, "backward"):
        scale = 1.0 / length if inverse else 1.0
    elif norm == "forward":
        scale = 1.0 if inverse else 1.0 / length
    elif norm == "ortho":
        scale = 1.0 / np.sqrt(length)
    else:
        raise errors.InvalidArgumentError(
            f'Invalid norm value {norm}; should be "backward", "ortho" or '
            '"forward".')
    if scale != 1.0:
        out = ops.apply_ufunc(np.multiply, (out, real_dtype.type(scale)))
    back = [order.index(a) for a in range(x.ndim)]
    return ops.transpose(out, back)


def fft(name, x, kwargs):
    """spirjit.fft's ``name`` of DeviceArray ``x`` by cuFFT, or None where
    cuFFT does not apply (another backend, a function it lacks) or does not
    load."""
    if x._device.properties()["backend"] != "cuda" or x.ndim == 0:
        return None
    if name in ("fft2", "ifft2", "rfft2", "irfft2"):
        # NumPy's fft2 family: the n-D transform over axes (-2, -1).
        kwargs = dict(kwargs)
        if kwargs.get("axes") is None:
            kwargs["axes"] = (-2, -1)
        name = name[:-1] + "n"
    if name not in ("fft", "ifft", "rfft", "irfft", "fftn", "ifftn",
                    "rfftn", "irfftn", "hfft", "ihfft") or _cufft() is None:
        return None
    norm = kwargs.get("norm") or "backward"
    if name in ("fftn", "ifftn", "rfftn", "irfftn"):
        axes = kwargs.get("axes")
        s = kwargs.get("s")
        if axes is None:  # NumPy's: the last len(s) axes, else all
            axes = list(range(x.ndim - (len(s) if s is not None else x.ndim),
                              x.ndim))
        axes = list(axes)
        if s is not None and len(s) != len(axes):
            raise errors.InvalidArgumentError(
                "Shape and axes have different lengths.")
        sizes = [None] * len(axes) if s is None else list(s)
        if name == "rfftn":  # NumPy's order: rfft on the last axis first
            x = _transform("rfft", x, sizes[-1], axes[-1], norm)
            for a, n in zip(axes[:-1], sizes[:-1]):
                x = _transform("fft", x, n, a, norm)
            return x
        if name == "irfftn":  # the complex axes first, irfft last
            for a, n in zip(axes[:-1], sizes[:-1]):
                x = _transform("ifft", x, n, a, norm)
            return _transform("irfft", x, sizes[-1], axes[-1], norm)
        one = "fft" if name == "fftn" else "ifft"
        for a, n in zip(axes, sizes):
            x = _transform(one, x, n, a, norm)
        return x
    n, axis = kwargs.get("n"), kwargs.get("axis", -1)
    if name in ("hfft", "ihfft"):
        # NumPy's: hfft is irfft of the conjugate, ihfft the conjugate of
        # rfft, each with the opposite normalisation.
        from . import _array_ops as ops
        swapped = {"backward": "forward", "forward": "backward",
                   "ortho": "ortho"}.get(norm, norm)
        if name == "hfft":
            return _transform("irfft", ops.apply_ufunc(np.conjugate, (x,)),
                              n, axis, swapped)
        return ops.apply_ufunc(np.conjugate, (
            _transform("rfft", x, n, axis, swapped),))
    return _transform(name, x, n, axis, norm)
