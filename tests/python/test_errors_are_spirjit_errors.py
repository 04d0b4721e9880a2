"""Every exception spirjit raises for a mistake in how it is used is a
spirjit.errors.SpirjitError, as the user guide says, and still the builtin
class code catches today (issue 31, class 3: opt=5 was a bare ValueError,
misuse of the API bare TypeErrors)."""

import numpy as np
import pytest

import spirjit
from spirjit import errors


def plain(item, a):
    a[item.get_id(0)] = 1.0


@spirjit.kernel
def kernel(item, a):
    a[item.get_id(0)] = 1.0


CASES = {
    "opt out of range": (lambda: spirjit.kernel(plain, opt=5),
                         errors.InvalidArgumentError, ValueError,
                         "spirjit.kernel's opt= is an optimisation level 0 "
                         "to 3, not 5"),
    "decorating a number": (lambda: spirjit.kernel(5), errors.TypingError,
                            TypeError, "spirjit.kernel decorates a Python "
                                       "function, not int"),
    "unknown usm_type": (lambda: spirjit.zeros(3, usm_type="pinned"),
                         errors.InvalidArgumentError, ValueError,
                         "usm_type must be 'device', 'shared' or 'host'"),
    "device and sycl_queue": (
        lambda: spirjit.empty(3, device="cpu", sycl_queue="cpu"),
        errors.TypingError, TypeError, "takes device= or sycl_queue=, not "
                                       "both"),
    "negative dimension": (lambda: spirjit.empty(-1),
                           errors.InvalidArgumentError, ValueError,
                           "negative dimensions are not allowed"),
    "object dtype": (lambda: spirjit.asarray(np.array([None])),
                     errors.TypingError, TypeError,
                     "arrays of dtype object cannot live on a device"),
    "index out of bounds": (lambda: spirjit.zeros(3)[5],
                            errors.ArrayIndexError, IndexError,
                            "index 5 is out of bounds for axis 0 with size 3"),
    "axis out of range": (lambda: spirjit.zeros((2, 2)).sum(axis=3),
                          errors.ArrayAxisError, np.exceptions.AxisError,
                          "axis 3 is out of bounds for array of dimension 2"),
    "NumPy function without a kernel": (
        lambda: np.power.accumulate(spirjit.zeros(4)), errors.TypingError,
        TypeError,
        "numpy.power.accumulate has no spirjit kernel for DeviceArrays"),
    "pad option not there": (lambda: np.pad(spirjit.zeros(4), 1,
                                            mode="reflect",
                                            reflect_type="odd"),
                             errors.NotSupportedError, NotImplementedError,
                             "numpy.pad(reflect_type='odd')"),
    "call_kernel without a range": (lambda: spirjit.call_kernel(kernel),
                                    errors.TypingError, TypeError,
                                    "a kernel and a Range or NdRange are "
                                    "needed"),
    "call_kernel of a function": (lambda: spirjit.call_kernel(plain, 4),
                                  errors.TypingError, TypeError,
                                  "call_kernel needs a @spirjit.kernel "
                                  "function"),
    "bad vectorize signature": (
        lambda: spirjit.vectorize("float32 of float32")(lambda x: x),
        errors.TypingError, TypeError, "vectorize takes signatures such as"),
    "shape of strings": (lambda: spirjit.zeros("a"), errors.TypingError,
                         TypeError, "spirjit.zeros(): 'str' object cannot "
                                    "be interpreted as an integer"),
    "unknown dtype": (lambda: spirjit.empty(3, dtype="foo"),
                      errors.TypingError, TypeError,
                      "spirjit.empty(): data type 'foo' not understood"),
    "fill value of another kind": (
        lambda: spirjit.full(2, "x", dtype=np.float32),
        errors.InvalidArgumentError, ValueError,
        "spirjit.full(): could not convert string to float"),
    "dependent events not a sequence": (
        lambda: spirjit.call_kernel_async(kernel, 4, 5, np.zeros(4)),
        errors.TypingError, TypeError, "dependent_events must be a "
                                       "sequence of Events, not int"),
    "bad group_reduce operation": (
        lambda: spirjit.kernel_api.group_reduce(None, 1.0, "-"),
        errors.InvalidArgumentError, ValueError, "group_reduce supports"),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES)
def test_user_errors_are_spirjit_errors_and_builtin_ones(case):
    call, spirjit_class, builtin, words = case
    with pytest.raises(spirjit_class) as e:
        call()
    assert isinstance(e.value, errors.SpirjitError)
    assert isinstance(e.value, builtin)
    assert words in str(e.value)


def test_every_class_is_exported_and_documented():
    guide = open(__file__.rsplit("/tests/", 1)[0] +
                 "/docs/user-guide.md").read()
    for name in errors.__all__:
        cls = getattr(errors, name)
        assert issubclass(cls, errors.SpirjitError)
        assert name in guide, name
