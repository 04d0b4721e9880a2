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
from spirjit import errors
from spirjit.errors import UnsupportedFeatureError

from source_markers import marked_line, raises_at


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
def appends_out_of_a_tuple():
    xs = [1.0]
    xs.append(2.0)
    t = (xs, 1)
    t[0].append(3.0)  # <- out-of-a-tuple
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
    (appends_out_of_a_tuple, "out-of-a-tuple", "jit code appends to a list "
     "by the name it was built or passed under, not to one taken out of a "
     "tuple"),
], ids=["append-in-prange", "comprehension-in-prange", "read-in-prange",
        "method", "never-typed", "arrays", "dict", "out-of-a-tuple"])
def test_what_lists_do_not_take(device, call, marker, text):
    raises_at(UnsupportedFeatureError, call, __file__, marker, text)


# A Python list passed to a jit function (numba's reflected list): its
# items' one type, read, iterated, appended to and assigned; the changes go
# back into the caller's list when the call returns.

@jit
def reads_a_list(xs):
    total = xs[0] * 0
    for x in xs:
        total += x
    return len(xs), xs[0], xs[-1], total


@jit
def changes_a_list(xs, n):
    for i in range(n):
        xs.append(xs[-1] * 2)
    xs[0] = -xs[0]
    return len(xs)


@jit
def returns_its_list(xs):
    xs.append(7)
    return xs


@jit
def list_argument_to_array(xs):
    return np.array(xs) * 2


@pytest.mark.parametrize("items", [
    [1, 2, 3], [1.5, -2.5], [True, False, True], [1 + 2j, 3j],
    [np.float32(1.5), np.float32(2.0)], [np.int32(4), np.int32(-5)],
    [1, 2.5],  # promoted to float64, as a list literal's items in jit code
], ids=["int", "float", "bool", "complex", "float32", "int32", "mixed"])
def test_list_arguments_as_python(device, items):
    got_list, want_list = list(items), list(items)
    assert reads_a_list(got_list) == reads_a_list.py_func(want_list)
    # Read only: the caller's list keeps its objects.
    assert [type(x) for x in got_list] == [type(x) for x in items]
    if not isinstance(items[0], bool):  # -True is an int: Python's list
        # of bools would take it, a list argument of bools does not
        assert changes_a_list(got_list, 3) == changes_a_list.py_func(
            want_list, 3)
        assert got_list == want_list
    np.testing.assert_array_equal(list_argument_to_array(items),
                                  list_argument_to_array.py_func(items))


def test_a_changed_list_argument_holds_its_type(device):
    # numba's reflection writes every item back as the list's item type.
    xs = [1, 2.5]
    changes_a_list(xs, 1)
    assert xs == [-1.0, 2.5, 5.0]
    assert [type(x) for x in xs] == [float, float, float]


def test_a_returned_list_argument_is_the_callers_list(device):
    xs = [1, 2]
    assert returns_its_list(xs) is xs
    assert xs == [1, 2, 7]


def test_list_arguments_specialise_on_their_item_type(device):
    @jit
    def length(xs):
        return len(xs)

    assert length([1, 2]) == 2
    assert length([3, 4, 5, 6]) == 4
    assert length.stats["compiles"] == 1
    assert length([1.0]) == 1
    assert length.stats["compiles"] == 2


@jit  # <- empty-list-argument
def takes_a_list(xs):
    return len(xs)


@jit
def appends_a_float_to_ints(xs):
    xs.append(2.5)  # <- float-into-ints
    return xs


@jit
def assigns_a_complex_to_floats(xs):
    xs[0] = 1j  # <- complex-into-floats
    return xs


@jit
def list_argument_in_prange(xs, n):
    out = np.zeros(n)
    for i in prange(n):
        out[i] = xs[i]  # <- list-argument-in-prange
    return out


@pytest.mark.parametrize("call, error, marker, text", [
    (lambda: takes_a_list([]), errors.TypingError, "empty-list-argument",
     "argument 'xs' of takes_a_list() is an empty list, which has no item "
     "type"),
    (lambda: takes_a_list([[1.0], [2.0]]), UnsupportedFeatureError,
     "empty-list-argument", "argument 'xs' of takes_a_list() is a list of "
     "lists: a list argument holds numbers (numba's reflected list); pass "
     "a 2-D array, np.array(xs)"),
    (lambda: takes_a_list([np.zeros(2)]), UnsupportedFeatureError,
     "empty-list-argument", "argument 'xs' of takes_a_list() is a list of "
     "arrays"),
    (lambda: takes_a_list([1, "a"]), UnsupportedFeatureError,
     "empty-list-argument", "argument 'xs' of takes_a_list() holds a "
     "'str'"),
    (lambda: appends_a_float_to_ints([1]), errors.TypingError,
     "float-into-ints", "a list passed to a jit function keeps the type of "
     "its items (int64, numba's reflected list), so it cannot take a "
     "'float64'"),
    (lambda: assigns_a_complex_to_floats([1.0]), errors.TypingError,
     "complex-into-floats", "cannot take a 'complex128'"),
    (lambda: list_argument_in_prange([1.0, 2.0], 2), UnsupportedFeatureError,
     "list-argument-in-prange", "a list is read inside a prange loop: copy "
     "it to an array before the loop (a = np.array(xs))"),
], ids=["empty", "lists", "arrays", "str", "float-into-ints",
        "complex-into-floats", "prange"])
def test_what_list_arguments_do_not_take(device, call, error, marker, text):
    raises_at(error, call, __file__, marker, text)


# sum, min, max, sorted and `in` of a list, with Python's results (numba's
# for an empty list's sum: 0 of the list's type).

@jit
def folds(xs):
    ys = []
    for x in xs:
        ys.append(x)
    return sum(ys), min(ys), max(ys), sum(xs), min(xs), max(xs)


@jit
def sorts(xs):
    ys = sorted(xs)
    ys.append(xs[0])  # a new list, which changes alone
    return ys, sorted(xs, reverse=True), xs


@jit
def member(xs, v):
    ys = [1.5]
    ys.append(v)
    return v in xs, v not in xs, v in ys, v in [1, 2, 3], v not in (4, 5)


@jit
def sum_of_empty(n):
    xs = []
    for i in range(n):
        xs.append(i * 1.5)
    return sum(xs)


@pytest.mark.parametrize("items", [
    [3, 1, 2, 1], [2.5, -1.0, 2.5, 0.5], [True, False, True],
    [np.int32(7), np.int32(-3)], [np.float32(0.5), np.float32(-1.5)],
], ids=["int", "float", "bool", "int32", "float32"])
def test_list_builtins_as_python(device, items):
    assert folds(list(items)) == folds.py_func(list(items))
    assert sorts(list(items)) == sorts.py_func(list(items))
    # As Python numbers: bools stay bools.
    want = sorts.py_func([_python(x) for x in items])[0]
    assert [type(x) for x in sorts(list(items))[0]] == [type(x) for x in want]
    for v in (1, 2, 2.5, 0, -3):
        assert member(list(items), v) == member.py_func(list(items), v)


def _python(x):
    """A NumPy scalar as the Python number jit functions return."""
    return x.item() if isinstance(x, np.generic) else x


def test_sum_of_complex_and_of_nothing(device):
    zs = [1 + 2j, 3 - 1j]

    @jit
    def total(zs):
        return sum(zs)

    assert total(zs) == sum(zs)
    assert sum_of_empty(0) == sum_of_empty.py_func(0) == 0
    assert sum_of_empty(4) == sum_of_empty.py_func(4)


@jit
def min_of_empty(n):
    xs = [1.0]
    for i in range(n):
        xs.append(i)
    ys = sorted(xs)
    ys[0] = 5.0
    zs = [y for y in ys if y < 0]
    return min(zs)  # <- min-of-empty


def test_min_of_an_empty_list_is_a_value_error(device):
    # Python's ValueError (numba lets a StopIteration out).
    with pytest.raises(ValueError) as info:
        min_of_empty(2)
    with pytest.raises(ValueError, match="min\\(\\)"):
        min_of_empty.py_func(2)
    assert str(info.value) == (
        f"{__file__}:{marked_line(__file__, 'min-of-empty')}: "
        "min() arg is an empty sequence")


@jit
def max_of_complex(zs):
    return max(zs)  # <- max-of-complex


@jit
def sorted_with_key(xs):
    return sorted(xs, key=abs)  # <- sorted-key


@jit
def in_an_array(a):
    return 1.0 in a  # <- in-array


@pytest.mark.parametrize("call, error, marker, text", [
    (lambda: max_of_complex([1j]), errors.TypingError, "max-of-complex",
     "max() cannot order complex numbers"),
    (lambda: sorted_with_key([1.0]), UnsupportedFeatureError, "sorted-key",
     "sorted() of a list in jit code takes the list and reverse= (no key=)"),
    (lambda: in_an_array(np.zeros(2)), UnsupportedFeatureError, "in-array",
     "'in' in jit code and kernels tests membership of a number in a list "
     "or a tuple of numbers, not in a 'float64[::1]'; for an array a, "
     "write (a == x).any()"),
], ids=["max-complex", "sorted-key", "in-array"])
def test_what_list_builtins_do_not_take(device, call, error, marker, text):
    raises_at(error, call, __file__, marker, text)


def test_repeating_a_list_says_what_to_write(device_filter):
    @spirjit.jit
    def repeated(n):
        xs = [0.0] * n
        return len(xs)

    with pytest.raises(spirjit.errors.UnsupportedFeatureError,
                       match=r"repeating a list or a tuple \(\[0.0\] \* n\) "
                             r"is not supported here; write np.zeros\(n\)"):
        repeated(3)
