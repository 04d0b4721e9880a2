"""What users see when spirjit rejects their code: the right exception class,
a message that names the construct, and the user's own ``file:line``.

Each offending line carries a marker comment ``# <- NAME``; ``marked_line``
finds its number, so editing this file never breaks the expectations.

Arrays are float32, so that the checks hold on devices without float64.

PYTEST_DONT_REWRITE: pytest's assertion rewriting would turn the ``assert``
inside the kernel below into code full of strings and calls."""

import math

import numpy as np
import pytest

import spirjit
from spirjit import errors
from spirjit import kernel_api as kapi

import source_markers

def marked_line(name):
    """The number of the one line of this file marked ``# <- name``."""
    return source_markers.marked_line(__file__, name)


def launch(function, *args, index_space=4):
    kernel = function if isinstance(function, spirjit.Kernel) else \
        spirjit.kernel(function)
    if not args:
        args = (np.zeros(4, np.float32),)
    spirjit.call_kernel(kernel, index_space, *args)


def check_location(error, marker):
    line = marked_line(marker)
    assert error.filename == __file__
    assert error.lineno == line
    assert f"{__file__}:{line}" in str(error)


class Unusable:
    """An arbitrary Python object; kernels cannot use it."""
    value = 1.0


AN_OBJECT = Unusable()
A_LIST = [1.0, 2.0]


def python_helper(x):
    return x + 1


# --------------------------------------------------------------------------
# Unsupported constructs: UnsupportedFeatureError naming the construct

def uses_try(item, a):
    i = item.get_id(0)
    try:  # <- try
        a[i] = 1
    except Exception:
        a[i] = 2


def uses_try_finally(item, a):
    i = item.get_id(0)
    try:  # <- try-finally
        a[i] = 1
    finally:
        a[i] = 2


def uses_with(item, a):
    i = item.get_id(0)
    with AN_OBJECT:  # <- with
        a[i] = 1


def uses_list(item, a):
    i = item.get_id(0)
    values = [1.0, 2.0, 3.0]  # <- list
    a[i] = values[0]


def uses_dict(item, a):
    i = item.get_id(0)
    table = {1: 2.0}  # <- dict
    a[i] = table[1]


def uses_set(item, a):
    i = item.get_id(0)
    seen = {1, 2}  # <- set
    a[i] = 1


def uses_str(item, a):
    i = item.get_id(0)
    label = "hello"  # <- str
    a[i] = 1


def uses_fstring(item, a):
    i = item.get_id(0)
    label = f"item {i}"  # <- f-string
    a[i] = 1


def uses_bytes(item, a):
    i = item.get_id(0)
    raw = b"xy"  # <- bytes
    a[i] = 1


def uses_yield(item, a):
    i = item.get_id(0)
    a[i] = 1
    yield i  # <- yield


def uses_lambda(item, a):
    i = item.get_id(0)
    f = lambda v: v + 1  # <- lambda  # noqa: E731
    a[i] = 1


def uses_list_comprehension(item, a):
    i = item.get_id(0)
    a[i] = len([k for k in range(3)])  # <- list-comprehension


def uses_generator_expression(item, a):
    i = item.get_id(0)
    a[i] = sum(k for k in range(3))  # <- generator-expression


def uses_dict_comprehension(item, a):
    i = item.get_id(0)
    d = {k: k for k in range(3)}  # <- dict-comprehension
    a[i] = 1


def uses_set_comprehension(item, a):
    i = item.get_id(0)
    s = {k for k in range(3)}  # <- set-comprehension
    a[i] = 1


def uses_nested_def(item, a):
    i = item.get_id(0)

    def inner(x):  # <- nested-def
        return x
    a[i] = 1


def uses_raise(item, a):
    i = item.get_id(0)
    if i > 100:
        raise ValueError  # <- raise
    a[i] = 1


def uses_raise_with_message(item, a):
    i = item.get_id(0)
    if i > 100:
        raise ValueError("bad index")  # <- raise-message
    a[i] = 1


def uses_import(item, a):
    import os  # <- import  # noqa: F401
    a[0] = 1


def uses_global_statement(item, a):
    # The declaration itself has no bytecode: the error names 'global' at
    # the first use of the declared name.
    global A_LIST
    A_LIST = 1  # <- global


def uses_del(item, a):
    i = item.get_id(0)
    del i  # <- del


def uses_class(item, a):
    class Local:  # <- class
        pass
    a[0] = 1


def uses_slice(item, a):
    a[1:3] = 1.0  # <- slice


def uses_in(item, a):
    # A tuple or list of numbers takes `in`; an array does not.
    i = item.get_id(0)
    a[i] = i in a  # <- in


def uses_star_args(item, a):
    t = (1, 2)
    a[0] = max(*t)  # <- star-args


def uses_object_global(item, a):
    i = item.get_id(0)
    a[i] = AN_OBJECT.value  # <- object-global


def uses_list_global(item, a):
    i = item.get_id(0)
    a[i] = A_LIST[0]  # <- list-global


def uses_python_function(item, a):
    i = item.get_id(0)
    a[i] = python_helper(i)  # <- python-function


def uses_unknown_math_function(item, a):
    a[0] = math.gcd(4, 6)  # <- math-gcd


def uses_matmul(item, a):
    i = item.get_id(0)
    a[i] = i @ i  # <- matmul


def uses_structural_match(item, a):
    # A sequence pattern; literal, capture, `|` and guard patterns compile
    # to comparisons and run (test_control_flow.py).
    match (a[0], a[1]):
        case (x, y):  # <- match
            a[0] = x + y


UNSUPPORTED = [
    # (kernel function, marker, a word the message must contain)
    (uses_try, "try", "try"),
    (uses_try_finally, "try-finally", "try"),
    (uses_with, "with", "with"),
    (uses_list, "list", "list"),
    (uses_dict, "dict", "dict"),
    (uses_set, "set", "set"),
    (uses_str, "str", "str"),
    (uses_fstring, "f-string", "str"),
    (uses_bytes, "bytes", "bytes"),
    pytest.param(uses_yield, "yield", "yield"),
    (uses_lambda, "lambda", "lambda"),
    (uses_list_comprehension, "list-comprehension", "comprehension"),
    (uses_generator_expression, "generator-expression", "generator"),
    (uses_dict_comprehension, "dict-comprehension", "comprehension"),
    (uses_set_comprehension, "set-comprehension", "comprehension"),
    (uses_nested_def, "nested-def", "function"),
    (uses_raise, "raise", "raise"),
    pytest.param(uses_raise_with_message, "raise-message", "raise"),
    (uses_import, "import", "import"),
    (uses_global_statement, "global", "global"),
    (uses_del, "del", "del"),
    (uses_class, "class", "class"),
    (uses_slice, "slice", "slice"),
    (uses_in, "in", "in"),
    (uses_star_args, "star-args", "*args"),
    (uses_structural_match, "match", "match"),
    (uses_object_global, "object-global", "Unusable"),
    (uses_list_global, "list-global", "list"),
    (uses_python_function, "python-function", "python_helper"),
    (uses_unknown_math_function, "math-gcd", "math.gcd"),
    (uses_matmul, "matmul", "@"),
]


def with_ids(cases):
    """Each case is named by its marker."""
    named = []
    for case in cases:
        if hasattr(case, "marks"):  # already a pytest.param
            named.append(pytest.param(*case.values, marks=case.marks,
                                      id=case.values[1]))
        else:
            named.append(pytest.param(*case, id=case[1]))
    return named


@pytest.mark.parametrize("function, marker, word", with_ids(UNSUPPORTED))
def test_unsupported_construct(function, marker, word):
    with pytest.raises(errors.UnsupportedFeatureError) as e:
        launch(function)
    assert word in str(e.value)
    check_location(e.value, marker)
    assert isinstance(e.value, errors.CompileError)
    assert isinstance(e.value, errors.SpirjitError)


_REWRITE = ("is not supported in spirjit kernels and device functions; "
            "rewrite it with scalars, arrays, tuples and loops")


# CPython 3.12 wraps a generator in a hidden exception handler and inlines
# comprehensions inside one (PEP 709); neither is a `try`, and the message
# and line are those of 3.11 (issue 31).
@pytest.mark.parametrize("function, marker, message", [
    (uses_yield, "yield", "'yield' is not supported in spirjit kernels and "
                          "device functions yet"),
    (uses_list_comprehension, "list-comprehension",
     "'list comprehension' " + _REWRITE),
    (uses_dict_comprehension, "dict-comprehension",
     "'dict comprehension' is not supported in jit code, kernels and "
     "device functions (numba's typed dict is not implemented); keep values "
     "in an array indexed by integer keys, or in an array of keys and one "
     "of values"),
    (uses_set_comprehension, "set-comprehension",
     "'set comprehension' " + _REWRITE),
], ids=["yield", "list", "dict", "set"])
def test_generators_and_comprehensions_are_named_on_every_python(
        function, marker, message):
    with pytest.raises(errors.UnsupportedFeatureError) as e:
        launch(function)
    check_location(e.value, marker)
    assert str(e.value) == f"{__file__}:{marked_line(marker)}: {message}"


def test_unsupported_construct_in_a_decorated_kernel():
    @spirjit.kernel
    def decorated(item: kapi.Item, a):
        i = item.get_id(0)
        a[i] = [i][0]  # <- decorated-list

    with pytest.raises(errors.UnsupportedFeatureError) as e:
        spirjit.call_kernel(decorated, kapi.Range(4), np.zeros(4, np.float32))
    assert "list" in str(e.value)
    check_location(e.value, "decorated-list")


def test_the_error_repeats_and_other_kernels_still_work():
    # A rejected kernel raises again on the next launch, and leaves spirjit
    # in a working state.
    kernel = spirjit.kernel(uses_try)
    for _ in range(2):
        with pytest.raises(errors.UnsupportedFeatureError):
            spirjit.call_kernel(kernel, 4, np.zeros(4, np.float32))
    assert kernel.stats["compiles"] == 0

    @spirjit.kernel
    def fine(item, a):
        a[item.get_id(0)] = 3.0

    a = np.zeros(4, np.float32)
    spirjit.call_kernel(fine, 4, a)
    np.testing.assert_array_equal(a, 3.0)


# --------------------------------------------------------------------------
# Kernels must not return a value

def returns_value(item, a):
    i = item.get_id(0)
    a[i] = 1
    return i  # <- return


def returns_on_one_path(item, a):
    i = item.get_id(0)
    if i > 2:
        return 1.5  # <- return-on-path
    a[i] = 1


def test_kernel_returning_a_value():
    with pytest.raises(errors.KernelHasReturnValueError) as e:
        launch(returns_value)
    check_location(e.value, "return")
    assert isinstance(e.value, errors.CompileError)


def test_kernel_returning_a_value_on_one_path():
    with pytest.raises(errors.KernelHasReturnValueError) as e:
        launch(returns_on_one_path)
    check_location(e.value, "return-on-path")


def test_bare_return_is_fine():
    def early_exit(item, a):
        i = item.get_id(0)
        if i >= 2:
            return
        a[i] = 1.0

    a = np.zeros(4, np.float32)
    launch(early_exit, a)
    np.testing.assert_array_equal(a, [1, 1, 0, 0])


# --------------------------------------------------------------------------
# Typing errors: TypingError, also a TypeError, at the user's line

def shifts_a_float(item, a):
    i = item.get_id(0)
    a[i] = a[i] << 1.5  # <- shift-float


def indexes_with_a_float(item, a):
    i = item.get_id(0)
    a[i * 1.0] = 1  # <- float-index


def uses_an_undefined_name(item, a):
    i = item.get_id(0)
    a[i] = NOT_DEFINED_ANYWHERE  # <- undefined  # noqa: F821


def uses_unknown_attribute(item, a):
    i = item.get_id(0)
    a[i] = a.no_such_attribute  # <- attribute


def asks_for_a_missing_dimension(item, a):
    a[0] = item.get_id(1)  # <- get-id-dimension


def indexes_too_deep(item, a):
    i = item.get_id(0)
    a[i, i] = 1  # <- too-many-indices


def stores_an_array(item, a):
    a[0] = a  # <- store-array


def ranges_over_a_float(item, a):
    for k in range(1.5):  # <- range-float
        a[0] = k


def takes_len_of_a_number(item, a):
    a[0] = len(3)  # <- len-number


def mixes_types_on_two_paths(item, a):
    i = item.get_id(0)
    if i > 2:
        v = a
    else:
        v = 1
    a[0] = v  # <- two-types


TYPING = [
    (shifts_a_float, "shift-float", "<<"),
    (indexes_with_a_float, "float-index", "index"),
    (uses_an_undefined_name, "undefined", "NOT_DEFINED_ANYWHERE"),
    (uses_unknown_attribute, "attribute", "no_such_attribute"),
    (asks_for_a_missing_dimension, "get-id-dimension", "get_id"),
    (indexes_too_deep, "too-many-indices", "indices"),
    (stores_an_array, "store-array", "store"),
    (ranges_over_a_float, "range-float", "range"),
    (takes_len_of_a_number, "len-number", "len"),
    (mixes_types_on_two_paths, "two-types", "type"),
]


@pytest.mark.parametrize("function, marker, word", with_ids(TYPING))
def test_typing_error(function, marker, word):
    with pytest.raises(errors.TypingError) as e:
        launch(function)
    assert isinstance(e.value, TypeError)
    assert isinstance(e.value, errors.CompileError)
    assert word in str(e.value)
    check_location(e.value, marker)


def test_wrong_number_of_arguments_is_a_typing_error():
    @spirjit.kernel
    def two_arrays(item, a, b):
        a[item.get_id(0)] = b[item.get_id(0)]

    with pytest.raises(errors.TypingError, match="arguments"):
        spirjit.call_kernel(two_arrays, 4, np.zeros(4, np.float32))
    with pytest.raises(TypeError):
        spirjit.call_kernel(two_arrays, 4, np.zeros(4, np.float32), np.zeros(4, np.float32),
                            np.zeros(4, np.float32))


@spirjit.kernel
def writes_first(item: kapi.Item, a):
    a[item.get_id(0)] = 1


read_only = np.zeros(4, np.float32)
read_only.setflags(write=False)


@pytest.mark.parametrize("argument, word", [
    ([1.0, 2.0, 3.0, 4.0], "list"),
    ((1.0, 2.0, 3.0, 4.0), "tuple"),
    ("abcd", "str"),
    (None, "NoneType"),
    ({"a": 1}, "dict"),
    (np.zeros(()), "0-dimensional"),
    (np.zeros(4, dtype=object), "object"),
    (2 ** 70, "int64"),
    (read_only, "read-only"),
], ids=["list", "tuple", "str", "None", "dict", "0d-array", "object-array",
        "huge-int", "read-only-array"])
def test_bad_arguments_are_typing_errors(argument, word):
    with pytest.raises(errors.TypingError) as e:
        spirjit.call_kernel(writes_first, kapi.Range(4), argument)
    assert isinstance(e.value, TypeError)
    assert word in str(e.value)
    if argument is read_only:
        np.testing.assert_array_equal(read_only, 0)


# --------------------------------------------------------------------------
# Launching wrongly

def test_calling_a_kernel_directly_is_a_type_error():
    a = np.zeros(4, np.float32)
    with pytest.raises(TypeError, match="call_kernel") as e:
        writes_first(kapi.Item((0,), (4,)), a)
    assert "writes_first" in str(e.value)
    with pytest.raises(TypeError, match="call_kernel"):
        writes_first(a)
    np.testing.assert_array_equal(a, 0)


def test_call_kernel_needs_a_kernel():
    def plain(item, a):
        a[item.get_id(0)] = 1

    with pytest.raises(TypeError):
        spirjit.call_kernel(plain, kapi.Range(4), np.zeros(4, np.float32))


@pytest.mark.parametrize("extents", [
    (0,), (-3,), (2.0,), (1, 2, 3, 4), (), (True,), (4, 0), (np.float64(2),),
    ("4",), (None,),
], ids=["zero", "negative", "float", "four-dims", "no-dims", "bool",
        "zero-in-2d", "numpy-float", "str", "None"])
def test_invalid_ranges(extents):
    with pytest.raises(errors.InvalidRangeError) as e:
        kapi.Range(*extents)
    assert isinstance(e.value, ValueError)
    assert isinstance(e.value, errors.SpirjitError)


def test_valid_ranges():
    assert tuple(kapi.Range(3)) == (3,)
    assert tuple(kapi.Range(2, 3)) == (2, 3)
    assert tuple(kapi.Range(2, 3, 4)) == (2, 3, 4)
    assert tuple(kapi.Range(np.int32(5), np.int64(6))) == (5, 6)
    assert spirjit.Range is kapi.Range


@pytest.mark.parametrize("index_space", [0, (2, 0), (1, 2, 3, 4), 2.0],
                         ids=["zero", "zero-in-2d", "four-dims", "float"])
def test_invalid_index_space_at_launch(index_space):
    a = np.zeros(4, np.float32)
    with pytest.raises(errors.InvalidRangeError):
        spirjit.call_kernel(writes_first, index_space, a)
    np.testing.assert_array_equal(a, 0)


# --------------------------------------------------------------------------
# The exception hierarchy

def test_every_exception_is_a_spirjit_error():
    for name in errors.__all__:
        cls = getattr(errors, name)
        assert issubclass(cls, errors.SpirjitError), name
        assert issubclass(cls, Exception), name


def test_exception_hierarchy_matches_the_api():
    assert issubclass(errors.CompileError, errors.SpirjitError)
    assert issubclass(errors.TypingError, errors.CompileError)
    assert issubclass(errors.TypingError, TypeError)
    assert issubclass(errors.UnsupportedFeatureError, errors.CompileError)
    assert issubclass(errors.KernelHasReturnValueError, errors.CompileError)
    assert issubclass(errors.DeviceInferenceError, ValueError)
    assert issubclass(errors.InvalidRangeError, ValueError)
    assert issubclass(errors.DeviceError, RuntimeError)
    assert issubclass(errors.OutOfDeviceMemoryError, errors.DeviceError)
    assert issubclass(errors.OutOfDeviceMemoryError, MemoryError)
    for name in ("SpirjitError", "CompileError", "TypingError",
                 "UnsupportedFeatureError", "KernelHasReturnValueError",
                 "DeviceInferenceError", "InvalidRangeError", "DeviceError",
                 "OutOfDeviceMemoryError"):
        assert name in errors.__all__
