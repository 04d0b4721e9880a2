"""NumPy functions in jit code (issue 29, numba's parallel programs): the
ones jit code does not take are UnsupportedFeatureErrors that say so for
jit functions (not "in kernels"), name the function and the user's line."""

import numpy as np
import pytest

import spirjit
from spirjit import prange
from source_markers import marked_line


def eye(a):
    return np.eye(3)  # <- eye


def concatenate(a):
    return np.concatenate((a, a))  # <- concatenate


def stack(a):
    return np.stack((a, a))  # <- stack


def median(a):
    return np.median(a)  # <- median


def unique(a):
    return np.unique(a)  # <- unique


def norm(a):
    return np.linalg.norm(a)  # <- norm


def inv(a):
    return np.linalg.inv(a.reshape(2, 2))  # <- inv


def ptp(a):
    return np.ptp(a)  # <- ptp


def in_prange(a, out):
    for i in prange(a.shape[0]):
        out[i] = np.median(a)  # <- prange
    return out


@pytest.mark.parametrize("fn", [eye, concatenate, stack, median, unique,
                                norm, inv, ptp])
def test_unsupported_numpy_functions_say_jit_functions(device, fn):
    with pytest.raises(spirjit.errors.UnsupportedFeatureError) as info:
        spirjit.jit(fn)(np.arange(4.0))
    name = f"np.{fn.__name__}" if fn not in (norm, inv) else \
        f"np.linalg.{fn.__name__}"
    line = marked_line(__file__, fn.__name__)
    assert f"test_jit_numpy_functions.py:{line}: {name}() is not " \
        "supported in jit functions; call it outside the jit function" \
        in str(info.value)
    assert "kernels" not in str(info.value)


def test_unsupported_numpy_function_in_a_prange_body(device):
    with pytest.raises(spirjit.errors.UnsupportedFeatureError) as info:
        spirjit.jit(in_prange)(np.arange(4.0), np.zeros(4))
    line = marked_line(__file__, "prange")
    assert f"test_jit_numpy_functions.py:{line}: np.median() is not " \
        "supported in jit functions" in str(info.value)


def test_kernels_still_say_kernels(device):
    from spirjit import kernel_api as kapi

    @spirjit.kernel
    def k(item, a):
        a[0] = np.median(a)

    with pytest.raises(spirjit.errors.UnsupportedFeatureError,
                       match="calling 'numpy.median' is not supported in "
                             "kernels"):
        spirjit.call_kernel(k, kapi.Range(1), np.zeros(2))
