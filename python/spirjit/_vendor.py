"""A device's vendor libraries, loaded at run time as the driver is: cuBLAS
for matrix products on NVIDIA GPUs.

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


def _cublas():
    with _lock:
        if not _library:
            found = None
            for name in _SONAMES:
                try:
                    found = ctypes.CDLL(name)
                    break
                except OSError:
                    continue
            _library.append(found)
        return _library[0]


def _check(status, what):
    if status != 0:
        error = errors.DeviceError(
            f"cuBLAS {what} failed with status {status}")
        error.backend, error.code = "cuda", f"CUBLAS_STATUS_{status}"
        raise error


def _handle(lib, device):
    """This thread's cuBLAS handle for ``device``, made in spirjit's
    context of it and bound to spirjit's stream."""
    handles = getattr(_state, "handles", None)
    if handles is None:
        handles = _state.handles = {}
    native = device.__spirjit_native__()
    cuda = ctypes.CDLL("libcuda.so.1")
    _check(cuda.cuCtxSetCurrent(ctypes.c_void_p(native["context"])),
           "cuCtxSetCurrent")
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
