"""Issue 29: numba's function values in jit host code and prange bodies:
lambdas and nested defs that read the enclosing function's variables
(inlined where they are called), jit and device functions passed as
arguments, and Optional values (None on one path, a value on another,
tested before use); against plain Python on every device, and the
constructs refused, with their class, message and line."""

import numpy as np
import pytest

import spirjit
from spirjit import prange
from spirjit.errors import TypingError, UnsupportedFeatureError

from source_markers import marked_line

# --- lambdas, nested defs and closures ----------------------------------------


@spirjit.jit
def lambda_in_host_and_prange(a, c):
    g = lambda x: x * c + 1.0  # noqa: E731

    def h(x):
        return g(x) - 0.5
    out = np.empty_like(a)
    for i in prange(a.shape[0]):
        out[i] = h(a[i])
    return out, g(2.0)


@spirjit.jit
def lambda_made_in_prange_body(a):
    s = 0.0
    for i in prange(a.shape[0]):
        ai = a[i]
        scale = lambda t: t * ai  # noqa: E731
        s += scale(2.0)
    return s


@spirjit.jit
def lambda_made_in_loop(a):
    s = 0.0
    for i in range(a.shape[0]):
        y = a[i]
        f = lambda x: x + y  # noqa: E731
        s += f(1.0)
    return s


@spirjit.jit
def nested_closures(a, k):
    def outer(x):
        inner = lambda y: y * k  # noqa: E731
        return inner(x) + 1
    return outer(a[1]), outer(a[2])


@spirjit.jit
def lambda_keywords_and_tuples(a):
    f = lambda x, y: (x - y, x * y)  # noqa: E731
    d, p = f(y=a[1], x=a[4])
    return d, p


@spirjit.jit
def nested_def_with_branches_and_loops(a):
    def clipped_sum(lo, hi):
        s = 0.0
        for i in range(a.shape[0]):
            if a[i] < lo:
                s += lo
            elif a[i] > hi:
                s += hi
            else:
                s += a[i]
        return s
    return clipped_sum(1.0, 3.0), clipped_sum(0.0, 10.0)


@spirjit.jit
def defaults_of_a_nested_def(a):
    k = a[1]

    def scaled(x, by=k, plus=1.0):
        return x * by + plus
    k = 100.0  # the default was taken where the def ran, as in Python
    return scaled(a[0]), scaled(a[0], 3.0), scaled(a[0], plus=a[2]), k


@spirjit.jit
def unused_lambda(a):
    f = lambda x: x * 2  # noqa: E731, F841
    return a[0]


@spirjit.jit
def closure_over_array_in_prange(a, b):
    at = lambda i: a[i] + b[i]  # noqa: E731
    out = np.zeros_like(a)
    for i in prange(a.shape[0]):
        out[i] = at(i) * 2
    return out


def test_lambda_and_nested_def_in_host_code_and_prange(device):
    a = np.arange(6.0)
    got, g = lambda_in_host_and_prange(a, 3.0)
    want, want_g = lambda_in_host_and_prange.py_func(a, 3.0)
    np.testing.assert_array_equal(got, want)
    assert g == want_g


@pytest.mark.parametrize("fn", [lambda_made_in_prange_body,
                                lambda_made_in_loop, nested_closures,
                                lambda_keywords_and_tuples,
                                nested_def_with_branches_and_loops,
                                defaults_of_a_nested_def, unused_lambda],
                         ids=lambda f: f.__name__)
def test_closures_as_python(device, fn):
    a = np.array([0.5, 4.0, 2.0, -1.0, 3.0])
    args = (a, 1.5) if fn is nested_closures else (a,)
    assert fn(*args) == fn.py_func(*args)


def test_closure_over_arrays_in_prange(device):
    a, b = np.arange(7.0), np.linspace(0, 1, 7)
    np.testing.assert_allclose(closure_over_array_in_prange(a, b),
                               closure_over_array_in_prange.py_func(a, b))


# --- functions as arguments ---------------------------------------------------


@spirjit.jit
def apply(f, a):
    for i in prange(a.shape[0]):
        a[i] = f(a[i])
    return a


@spirjit.jit
def passes_a_lambda(a, k):
    return apply(lambda x: x + k, a)


@spirjit.device_func
def cube(x):
    return x * x * x


@spirjit.jit
def twice(x):
    return 2 * x


def test_lambda_passed_to_a_jit_function(device):
    # Plain Python runs apply's own code (a jit function takes no plain
    # lambda from Python; from jit code, the inliner passes it).
    a = np.arange(5.0)
    np.testing.assert_array_equal(passes_a_lambda(a.copy(), 2.0),
                                  apply.py_func(lambda x: x + 2.0, a.copy()))


@pytest.mark.parametrize("f", [cube, twice], ids=["device_func", "jit"])
def test_function_passed_as_argument_in_prange(device, f):
    a = np.arange(5.0)
    np.testing.assert_array_equal(apply(f, a.copy()),
                                  [f.py_func(x) for x in a])


# --- Optional values ----------------------------------------------------------


@spirjit.jit
def optional_tested(a, c):
    x = None
    if c > 0:
        x = 3.0
    if x is not None:
        return a[0] + x
    return a[0]


@spirjit.jit
def optional_in_loop(a):
    best = None
    for i in range(a.shape[0]):
        if best is None or a[i] > best:
            best = a[i]
    if best is None:
        return -1.0
    return best


@spirjit.jit
def optional_in_prange_body(a, out):
    for i in prange(a.shape[0]):
        v = None
        if a[i] > 2:
            v = a[i] * 2
        if v is None:
            out[i] = -1.0
        else:
            out[i] = v
    return out


@spirjit.jit
def optional_from_host_into_prange(a, c):
    s = None
    if c:
        s = 2.0
    out = np.zeros_like(a)
    for i in prange(a.shape[0]):
        if s is not None:
            out[i] = a[i] * s
        else:
            out[i] = a[i]
    return out


@pytest.mark.parametrize("c", [1, -1])
def test_optional_tested_before_use(device, c):
    a = np.arange(4.0) + 1
    assert optional_tested(a, c) == optional_tested.py_func(a, c)


@pytest.mark.parametrize("a", [[3.0, 7.0, 1.0], []], ids=["values", "empty"])
def test_optional_in_loop(device, a):
    a = np.array(a)
    assert optional_in_loop(a) == optional_in_loop.py_func(a)


def test_optional_in_prange_body(device):
    a = np.arange(6.0)
    np.testing.assert_array_equal(
        optional_in_prange_body(a, np.zeros(6)),
        optional_in_prange_body.py_func(a, np.zeros(6)))


@pytest.mark.parametrize("c", [True, False])
def test_optional_from_host_code_into_prange(device, c):
    a = np.arange(5.0)
    np.testing.assert_array_equal(optional_from_host_into_prange(a, c),
                                  optional_from_host_into_prange.py_func(a, c))


# --- what is refused ----------------------------------------------------------


@spirjit.jit
def optional_untested(a, c):
    x = None
    if c > 0:
        x = 3.0
    return a[0] + x  # <- optional-untested


@spirjit.jit
def capture_assigned_later(a):
    y = 1.0
    f = lambda x: x + y  # noqa: E731
    y = 2.0
    return f(a[0])  # <- mutated-capture


@spirjit.jit
def closure_escapes(a):
    return lambda x: x + a[0]  # <- escapes


@spirjit.jit
def nested_def_escapes(a):
    def shifted(x):
        return x + a[0]
    return shifted  # <- def-escapes


@spirjit.jit
def lambda_appended_to_a_list(a):
    fs = []
    fs.append(lambda x: x + a[0])  # <- appended
    return len(fs)


@spirjit.jit
def lambda_in_a_returned_list(a):
    return [lambda x: x]  # <- in-a-list


@spirjit.jit
def lambda_in_a_tuple(a):
    t = (lambda x: x + 1, 2)  # <- container
    return t[1]


@spirjit.jit
def recursive_nested_def(a):
    def fact(n):
        return 1 if n <= 1 else n * fact(n - 1)
    return fact(5)  # <- recursive


@spirjit.jit
def nonlocal_write(a):
    y = 1

    def bump():
        nonlocal y
        y += 1  # <- nonlocal
        return y
    return bump()


@spirjit.jit
def lambda_with_keyword_only_argument(a):
    f = lambda x, *, k=2: x * k  # <- keyword-only  # noqa: E731
    return f(a[0])


@spirjit.jit
def one_of_two_lambdas(a, c):
    f = lambda x: x + 1  # noqa: E731
    if c:
        f = lambda x: x - 1  # noqa: E731
    return f(a[0])  # <- two-functions


@pytest.mark.parametrize("fn, marker, cls, message", [
    (optional_untested, "optional-untested", TypingError,
     r"a variable is None on one path and a 'float64' on another \(an "
     r"optional value\): test it with 'if x is not None:'"),
    (capture_assigned_later, "mutated-capture", UnsupportedFeatureError,
     r"'captured variable assigned after capture' is not supported: 'y', "
     r"which the lambda of line \d+ reads, is assigned again"),
    (closure_escapes, "escapes", UnsupportedFeatureError,
     r"'closure that escapes' is not supported in jit functions: the lambda "
     r"of line \d+ is used here as a value"),
    (nested_def_escapes, "def-escapes", UnsupportedFeatureError,
     r"'closure that escapes' is not supported in jit functions: the nested "
     r"function 'shifted' of line \d+ is used here as a value; spirjit "
     r"inlines nested functions where they are called, so call it \(or pass "
     r"it to a jit function\) in the function that makes it"),
    (lambda_appended_to_a_list, "appended", UnsupportedFeatureError,
     r"'lambda stored in a container' is not supported in jit functions"),
    (lambda_in_a_returned_list, "in-a-list", UnsupportedFeatureError,
     r"'lambda stored in a container' is not supported in jit functions"),
    (lambda_in_a_tuple, "container", UnsupportedFeatureError,
     r"'lambda stored in a container' is not supported in jit functions"),
    (recursive_nested_def, "recursive", UnsupportedFeatureError,
     r"'recursive nested function' is not supported"),
    (nonlocal_write, "nonlocal", UnsupportedFeatureError,
     r"'nonlocal' is not supported"),
    (lambda_with_keyword_only_argument, "keyword-only",
     UnsupportedFeatureError,
     r"'keyword-only arguments of a lambda' is not supported"),
    (one_of_two_lambdas, "two-functions", UnsupportedFeatureError,
     r"'variable holding one of several functions' is not supported in jit "
     r"functions"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_refused_constructs(device, fn, marker, cls, message):
    with pytest.raises(cls, match=message) as info:
        fn(np.arange(3.0), 1) if fn.py_func.__code__.co_argcount == 2 \
            else fn(np.arange(3.0))
    assert f"{__file__}:{marked_line(__file__, marker)}:" in str(info.value)
