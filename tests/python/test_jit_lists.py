"""Lists that change in @spirjit.jit host code (issue 29), with numba's
typed-list semantics: one number type per list (the promotion of its items
and of what is appended), built empty or from items, appended to, indexed,
assigned, measured with len(), iterated, turned into an array with
np.array/np.asarray, made by list comprehensions, and returned to Python as
a Python list. Compared with the undecorated function on every device; what
jit code does not take (a list built inside a prange body, list methods
other than append, dicts) is an error of spirjit's class at the user's
line."""

import numpy as np
import pytest

import spirjit
from spirjit import jit, prange
from spirjit.errors import UnsupportedFeatureError

from source_markers import marked_line


@jit
def appended(n):
    xs = []
    for i in range(n):
        xs.append(i * 0.5)
    return xs


@jit
def from_items_then_appended(n):
    xs = [1, 2]
    for i in range(n):
        if i % 2:
            xs.append(i)
    xs.append(2.5)  # the list's items become float64, as Python's values
    return xs


@jit
def indexed_and_assigned(n):
    xs = [0.0, 1.0, 2.0]
    for i in range(n):
        xs.append(xs[-1] + xs[-2])
    xs[0] = -1.0
    xs[-1] = xs[-1] * 2
    return xs[0], xs[len(xs) - 2], xs[-1], len(xs)


@jit
def iterated(n):
    xs = []
    for i in range(n):
        xs.append(i * i)
    total = 0
    for x in xs:
        total += x
    count = 0
    for i, x in enumerate(xs):
        count += i * x
    return total, count


@jit
def to_array(n):
    xs = []
    for i in range(n):
        xs.append(i + 0.25)
    a = np.array(xs)
    b = np.asarray(xs)
    return a * 2, b.sum()


@jit
def read_by_prange(a):
    # An array made of the list before the loop is what the loop reads.
    # (Built from numbers, not from a's elements: on a GPU host code
    # reads no element of device memory.)
    xs = []
    for i in range(a.shape[0]):
        xs.append(i * 3.0)
    weights = np.array(xs)
    out = np.zeros_like(a)
    for i in prange(a.shape[0]):
        out[i] = weights[i] + a[i]
    return out


@jit
def comprehension(n):
    return [i * i for i in range(n)]


@jit
def comprehension_of_array(a):
    squares = [x * x for x in a]
    evens = [i for i in range(len(squares)) if i % 2 == 0]
    return np.array(squares), evens


@jit
def bools_and_ints():
    flags = [True]
    flags.append(False)
    small = [np.int32(3)]
    small.append(np.int32(4))
    return flags, small


@jit
def list_of_a_branch(c):
    xs = [1.0] if c else [2.0, 3.0]
    xs.append(4.0)
    return xs


@pytest.mark.parametrize("fn, args", [
    (appended, (0,)), (appended, (7,)),
    (from_items_then_appended, (6,)),
    (indexed_and_assigned, (10,)),
    (iterated, (9,)),
    (comprehension, (6,)),
    (bools_and_ints, ()),
    (list_of_a_branch, (True,)), (list_of_a_branch, (False,)),
], ids=["empty", "appended", "promoted", "indexed", "iterated",
        "comprehension", "bools-and-ints", "branch-true", "branch-false"])
def test_lists_as_python(device, fn, args):
    got = fn(*args)
    want = fn.py_func(*args)
    assert got == want
    assert type(got) is type(want)


def test_a_list_comes_back_as_a_python_list_of_its_type(device):
    flags, small = bools_and_ints()
    assert [type(x) for x in flags] == [bool, bool]
    assert [type(x) for x in small] == [int, int]
    assert type(appended(3)[0]) is float


def test_list_to_array(device):
    got, total = to_array(5)
    want, want_total = to_array.py_func(5)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, want)
    assert total == want_total


def test_array_of_a_list_read_in_prange(device):
    a = spirjit.asarray(np.arange(10.0), device=device)
    got = read_by_prange(a)
    np.testing.assert_array_equal(
        got.asnumpy(), read_by_prange.py_func(np.arange(10.0)))


def test_comprehension_over_an_array(device):
    a = np.array([1.0, -2.0, 3.0])
    squares, evens = comprehension_of_array(a)
    want_squares, want_evens = comprehension_of_array.py_func(a)
    np.testing.assert_array_equal(squares, np.array(want_squares))
    assert evens == want_evens


@jit
def appended_in_prange(n):
    out = np.zeros(n)
    for i in prange(n):
        xs = []  # <- append-in-prange
        xs.append(i)
        out[i] = xs[0]
    return out


@jit
def comprehension_in_prange(n):
    out = np.zeros(n)
    for i in prange(n):
        out[i] = len([j for j in range(i)])  # <- comprehension-in-prange
    return out


@jit
def read_in_prange(n):
    xs = [1.0]
    xs.append(2.0)
    out = np.zeros(n)
    for i in prange(n):
        out[i] = xs[i % 2]  # <- read-in-prange
    return out


@jit
def list_method():
    xs = [1.0]
    xs.insert(0, 2.0)  # <- list-method
    return xs


@jit
def never_typed():
    xs = []  # <- never-typed
    return xs


@jit
def list_of_arrays(a):
    xs = []
    xs.append(a)  # <- list-of-arrays
    return len(xs)


@jit
def uses_dict(n):
    d = {}  # <- dict
    d[1] = n
    return d[1]


@pytest.mark.parametrize("call, marker, text", [
    (lambda: appended_in_prange(3), "append-in-prange",
     "building or appending to a list inside a prange loop is not "
     "supported: the loop's kernel allocates nothing; preallocate an array "
     "before the loop (np.empty(n)) and assign its elements"),
    (lambda: comprehension_in_prange(3), "comprehension-in-prange",
     "building or appending to a list comprehension inside a prange loop "
     "is not supported"),
    (lambda: read_in_prange(3), "read-in-prange",
     "a list is read inside a prange loop: copy it to an array before the "
     "loop (a = np.array(xs)) and read the array there"),
    (list_method, "list-method", "list.insert is not supported in jit code; "
     "a list takes append, len(), indexing, iteration and np.array()"),
    (never_typed, "never-typed", "an empty list that nothing is appended "
     "to has no item type in jit code"),
    (lambda: list_of_arrays(np.zeros(2)), "list-of-arrays",
     "lists in jit code hold numbers (numba's typed list of one number "
     "type), not a 'float64[::1]'"),
    (lambda: uses_dict(1), "dict", "'dict' is not supported in jit code"),
], ids=["append-in-prange", "comprehension-in-prange", "read-in-prange",
        "method", "never-typed", "arrays", "dict"])
def test_what_lists_do_not_take(device, call, marker, text):
    with pytest.raises(UnsupportedFeatureError) as info:
        call()
    message = str(info.value)
    assert message.startswith(f"{__file__}:{marked_line(__file__, marker)}: ")
    assert text in message
