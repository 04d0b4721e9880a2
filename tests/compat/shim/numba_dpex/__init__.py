"""numba_dpex's names, mapped onto spirjit for the compatibility tier.

Kernels, device functions and launches are spirjit's own; numba-dpex's extra
keyword arguments (debug, inline_threshold, release_gil, ...) are accepted and
do nothing, since they tune numba-dpex's pipeline, not a kernel's meaning.
dpjit and prange are spirjit.jit and spirjit.prange (stand-ins that raise
NotImplementedError where a spirjit without them runs the tier).
"""

import os
import sys

import spirjit
# numba-dpex's scalar types, as kernels use them (float32(x)), are NumPy's
# in spirjit. Its array types are numba array types, which kernel() below
# cannot spell as spirjit signatures.
from numba.types import Array as DpnpNdArray  # noqa: F401
from numba.types import Array as usm_ndarray  # noqa: F401
from numpy import float32, float64, int32, int64, uint32, uint64  # noqa: F401
from spirjit import NdRange, Range, call_kernel, call_kernel_async

from . import config  # noqa: F401

# numba_dpex.kernel_api is spirjit.kernel_api itself, not a module that
# re-exports it: kernels resolve `kapi.AtomicRef` through the module object.
kernel_api = spirjit.kernel_api
sys.modules[__name__ + ".kernel_api"] = kernel_api

# numba-dpex's tests live in the package as numba_dpex.tests: the runner
# names the unpacked copy through SPIRJIT_COMPAT_TESTS.
if os.environ.get("SPIRJIT_COMPAT_TESTS"):
    __path__.append(os.path.join(os.environ["SPIRJIT_COMPAT_TESTS"],
                                 "numba_dpex"))

DPJIT_MISSING = "dpjit: not in spirjit yet"


def _signatures(signature):
    # spirjit spells signatures as strings; numba-dpex's numba type objects
    # have no spirjit spelling, so a launch then specialises on its arguments.
    if isinstance(signature, str):
        return signature
    if isinstance(signature, (list, tuple)) and signature and \
            all(isinstance(s, str) for s in signature):
        return list(signature)
    return None


def kernel(func_or_sig=None, debug=None, inline_threshold=None, **options):
    """numba_dpex.kernel: spirjit.kernel, bare or with a signature."""
    if callable(func_or_sig) and not isinstance(func_or_sig, (str, list)):
        return spirjit.kernel(func_or_sig)
    return spirjit.kernel(signatures=_signatures(func_or_sig))


def device_func(func_or_sig=None, debug=None, inline_threshold=None,
                **options):
    """numba_dpex.device_func: spirjit.device_func."""
    if callable(func_or_sig) and not isinstance(func_or_sig, (str, list)):
        return spirjit.device_func(func_or_sig)
    return spirjit.device_func(signatures=_signatures(func_or_sig))


def _missing(*args, **kwargs):
    raise NotImplementedError(DPJIT_MISSING)


def dpjit(*args, **kwargs):
    """spirjit.jit where it exists; otherwise functions that raise when
    called, so that a test module still imports and each test counts."""
    if hasattr(spirjit, "jit"):
        return spirjit.jit(*args, **kwargs)
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return _missing
    return lambda fn: _missing


prange = getattr(spirjit, "prange", _missing)
