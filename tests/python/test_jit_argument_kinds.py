"""Arguments of jit functions beyond 1-3-D arrays and numbers, as numba takes
them: 0-D arrays, arrays of any rank, and functions; against NumPy on every
device."""

import numpy as np
import pytest

import spirjit
from spirjit import prange
from spirjit.errors import TypingError

# --- 0-D arrays ---------------------------------------------------------------


@spirjit.jit
def zero_d_read_write(a, x):
    old = a[()]
    a[()] = x
    return old * 2, a.item(), a.ndim, a.size, a.shape


@spirjit.jit
def zero_d_arithmetic(a, b, v):
    return a + b, np.sqrt(a), a * 2.0, a[()] > 2.0, a + v


@spirjit.jit
def zero_d_arrays(a):
    a += 1
    return a, a.copy(), a.astype(np.float32), a.sum(), a.max(), np.zeros(())


@spirjit.jit
def zero_d_in_prange(s, out):
    for i in prange(out.shape[0]):
        out[i] = s[()] * i


@spirjit.jit
def item(a):
    return a.item()


def test_zero_d_argument_reads_writes_and_item(device):
    a = np.array(3.0)
    want_a = a.copy()
    assert zero_d_read_write(a, 5.0) == zero_d_read_write.py_func(want_a, 5.0)
    assert a == want_a == 5.0


def test_zero_d_arithmetic_gives_numpy_numbers(device):
    a, b, v = np.array(3.0), np.array(2.0), np.arange(3.0)
    got = zero_d_arithmetic(a, b, v)
    want = zero_d_arithmetic.py_func(a, b, v)
    for g, w in zip(got[:4], want[:4]):
        assert not isinstance(g, np.ndarray)
        assert g == w
    np.testing.assert_array_equal(got[4], want[4])


def test_zero_d_results_stay_arrays(device):
    a = np.array(3.0)
    got = zero_d_arrays(a)
    want = zero_d_arrays.py_func(np.array(3.0))
    assert a == 4.0
    assert got[0] is not None and got[0].shape == () and got[0] == 4.0
    for g, w in zip(got[1:3] + got[5:], want[1:3] + want[5:]):
        assert isinstance(g, np.ndarray) and g.dtype == w.dtype
        assert g.shape == () and g == w
    assert got[3:5] == want[3:5]


def test_zero_d_argument_in_prange(device):
    out = np.zeros(5)
    zero_d_in_prange(np.array(2.0), out)
    np.testing.assert_array_equal(out, 2.0 * np.arange(5))


def test_zero_d_device_array(device):
    d = spirjit.asarray(np.array(4.0), device=device)
    if spirjit.Device(device).backend == "cuda":
        # Host code cannot read GPU memory: the documented error.
        with pytest.raises(spirjit.errors.UnsupportedFeatureError,
                           match="cannot address"):
            item(d)
    else:
        assert item(d) == 4.0
    out = spirjit.asarray(np.zeros(3), device=device)
    zero_d_in_prange(d, out)
    np.testing.assert_array_equal(out.asnumpy(), [0.0, 4.0, 8.0])


def test_item_of_size_one_arrays_and_its_error(device):
    assert item(np.full((1, 1), 7, dtype=np.int32)) == 7
    with pytest.raises(ValueError, match=r"test_jit_argument_kinds\.py:\d+: "
                       "can only convert an array of size 1"):
        item(np.ones(2))


def test_zero_d_kernel_arguments(device):
    from spirjit import kernel_api as kapi

    @spirjit.kernel
    def k(it: kapi.Item, s, b, t):
        i = it.get_id(0)
        b[i] = s[()] + i
        if i == 0:
            t[()] = 5

    b, t = np.zeros(3), np.array(1, dtype=np.int32)
    spirjit.call_kernel(k, kapi.Range(3), np.array(2.0), b, t)
    np.testing.assert_array_equal(b, [2.0, 3.0, 4.0])
    assert t == 5
    d, out = (spirjit.asarray(np.array(2.0), device=device),
              spirjit.asarray(np.zeros(3), device=device))
    spirjit.call_kernel(k, kapi.Range(3), d, out,
                        spirjit.asarray(t, device=device))
    np.testing.assert_array_equal(out.asnumpy(), [2.0, 3.0, 4.0])

    @spirjit.kernel
    def as_number(it: kapi.Item, s, b):
        b[it.get_id(0)] = s

    with pytest.raises(TypingError, match=r"test_jit_argument_kinds\.py:\d+: "
                       r"cannot store a 'float64\[\]' .*a 0-D array's "
                       r"element is a\[\(\)\]"):
        spirjit.call_kernel(as_number, kapi.Range(2), np.array(1.0),
                            np.zeros(2))


# --- arrays of more than 3 dimensions ----------------------------------------


@spirjit.jit
def fill_4d(a):
    for i in prange(a.shape[0]):
        for j in prange(a.shape[1]):
            for k in prange(a.shape[2]):
                for l in range(a.shape[3]):
                    a[i, j, k, l] = i * 1000 + j * 100 + k * 10 + l
    return a


@spirjit.jit
def fill_5d(a):
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            for k in range(a.shape[2]):
                for l in range(a.shape[3]):
                    for m in range(a.shape[4]):
                        a[i, j, k, l, m] = i + 2 * j + 3 * k + 4 * l + 5 * m
    return a.shape, a.size, a.ndim


@spirjit.jit
def host_4d(a):
    a[1, 2, 0, 1] = 7.0
    s = 0.0
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            for k in range(a.shape[2]):
                for l in range(a.shape[3]):
                    s += a[i, j, k, l]
    return a[1, 2, 0, 1] + a[0, 0, 0, 1], s, a.shape, a.size, a.ndim


@spirjit.jit
def expressions_4d(a, b):
    c = a * 2.0 + b
    return c, c.sum(), np.zeros((2, 3, 4, 5)), a[1], a[:, 1:, :, ::2]


@pytest.mark.parametrize("order", ["C", "F", "view"])
def test_4d_argument_in_prange_nest(device, order):
    shape = (3, 4, 2, 5)
    if order == "view":
        a = np.zeros((3, 4, 4, 5))[:, :, ::2]
    else:
        a = np.zeros(shape, order=order)
    want = fill_4d.py_func(np.zeros(shape))
    got = fill_4d(a)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(a, want)


def test_5d_argument_shape_size_ndim(device):
    a = np.zeros((2, 3, 2, 2, 3), dtype=np.int32)
    want_a = a.copy()
    assert fill_5d(a) == fill_5d.py_func(want_a)
    np.testing.assert_array_equal(a, want_a)


def test_4d_indexing_in_host_code_and_reductions(device):
    a = np.arange(120.0).reshape(3, 4, 2, 5)
    want_a = a.copy()
    assert host_4d(a) == host_4d.py_func(want_a)
    np.testing.assert_array_equal(a, want_a)


def test_4d_array_expressions_views_and_constructors(device):
    a = np.arange(120.0).reshape(3, 4, 2, 5)
    b = np.ones_like(a)
    for g, w in zip(expressions_4d(a, b), expressions_4d.py_func(a, b)):
        assert np.shape(g) == np.shape(w)
        np.testing.assert_array_equal(g, w)


def test_4d_device_array(device):
    d = spirjit.asarray(np.zeros((2, 3, 2, 2)), device=device)
    got = fill_4d(d)
    assert isinstance(got, spirjit.DeviceArray) and got.shape == (2, 3, 2, 2)
    np.testing.assert_array_equal(got.asnumpy(),
                                  fill_4d.py_func(np.zeros((2, 3, 2, 2))))


def test_4d_kernel_argument(device):
    from spirjit import kernel_api as kapi

    @spirjit.kernel
    def k(it: kapi.Item, a):
        i = it.get_id(0)
        j = it.get_id(1)
        for k in range(a.shape[2]):
            for l in range(a.shape[3]):
                a[i, j, k, l] = i + j * 10 + k * 100 + l * 1000

    a = np.zeros((2, 3, 4, 5))
    spirjit.call_kernel(k, kapi.Range(2, 3), a)
    np.testing.assert_array_equal(a, np.fromfunction(
        lambda i, j, k, l: i + j * 10 + k * 100 + l * 1000, a.shape))


# --- functions as arguments ---------------------------------------------------


@spirjit.jit
def square(x):
    return x * x


@spirjit.device_func
def cube(x):
    return x * x * x


@spirjit.vectorize
def half(x):
    return x / 2


@spirjit.jit
def apply(f, a):
    for i in prange(a.shape[0]):
        a[i] = f(a[i])
    return f(a[0]) + 1


@spirjit.jit
def apply_square_inlined(a):
    return apply(square, a)


def apply_with(f):
    """One jit function per callee: the closure's function is a constant of
    the compiled code, as a global is."""

    @spirjit.jit
    def apply_f(a):
        for i in prange(a.shape[0]):
            a[i] = f(a[i])
        return a

    return apply_f


@pytest.mark.parametrize("f", [square, cube, half, square],
                         ids=["jit", "device_func", "vectorize", "jit-again"])
def test_spirjit_function_as_argument(device, f):
    a = np.arange(5.0)
    want_a = a.copy()
    assert apply(f, a) == apply.py_func(f.py_func, want_a)
    np.testing.assert_array_equal(a, want_a)


def test_function_argument_of_an_inlined_jit_call(device):
    a = np.arange(5.0)
    want_a = a.copy()
    assert apply_square_inlined(a) == apply.py_func(square.py_func, want_a)
    np.testing.assert_array_equal(a, want_a)


@pytest.mark.parametrize("f", [abs, lambda x: x], ids=["builtin", "lambda"])
def test_other_callables_are_a_typing_error(device, f):
    with pytest.raises(TypingError, match=r"argument 1 is the function "
                       r"'.*'; jit functions take @spirjit.jit, "
                       r"@spirjit.device_func and @spirjit.vectorize "
                       r"functions as arguments"):
        apply(f, np.arange(4.0))


@pytest.mark.parametrize("f", [square, cube], ids=["jit", "device_func"])
def test_closure_per_callee(device, f):
    a = np.arange(5.0)
    np.testing.assert_array_equal(apply_with(f)(a.copy()),
                                  [f.py_func(x) for x in a])


# --- dtypes jit arrays do not hold: a documented error with what to pass ------


@spirjit.jit
def field_sum(x):
    s = 0.0
    for i in prange(x.shape[0]):
        s += x[i] * 2.0
    return s


@spirjit.jit
def days_between(t):
    out = np.empty(t.shape[0] - 1, np.int64)
    for i in prange(t.shape[0] - 1):
        out[i] = t[i + 1] - t[i]
    return out


RECORDS = np.array([(1.5, 2), (2.5, 3), (4.0, 5)],
                   dtype=[("x", "f8"), ("n", "i4")])
DATES = np.array(["2020-01-01", "2020-01-05", "2020-03-01"],
                 dtype="datetime64[D]")


@pytest.mark.parametrize("argument, says", [
    (RECORDS, "structured (record) arrays are not taken: pass each field "
              "as an array of its own, f(a['x'], a['y'])"),
    (DATES, "datetime64 and timedelta64 arrays are not taken: pass their "
            "counts of the unit, t.view('int64')"),
    (np.diff(DATES), "r.view('timedelta64[D]')"),
    (np.array(["a", "b"]), "strings cannot live on a device"),
])
def test_dtypes_jit_arrays_do_not_hold_are_explained(argument, says):
    with pytest.raises(spirjit.errors.UnsupportedFeatureError) as caught:
        field_sum(argument)
    assert "argument 1 has dtype" in str(caught.value)
    assert says in str(caught.value)


def test_what_the_explanations_advise_works(device):
    # A field of records whose size is a multiple of the field's is a
    # strided view of numbers, taken in place; other fields are copied.
    aligned = np.zeros(3, dtype=[("x", "f8"), ("n", "i8")])
    aligned["x"] = RECORDS["x"]
    assert field_sum(aligned["x"]) == pytest.approx(16.0)
    assert field_sum(np.ascontiguousarray(RECORDS["x"])) == pytest.approx(16.0)
    days = days_between(DATES.view("int64"))
    np.testing.assert_array_equal(days.view("timedelta64[D]"), np.diff(DATES))


@spirjit.jit
def doubled_into(a, out=None):
    if out is None:
        out = np.empty_like(a)
    for i in spirjit.prange(a.shape[0]):
        out[i] = a[i] * 2
    return out


@spirjit.jit
def maybe_scaled(x, scale=None):
    if scale is not None:
        return x * scale
    return x + 0.0


def test_none_arguments_prune_their_tests(device_filter):
    # numba's out=None idiom: None is a type of its own, `x is None` is
    # known when the call compiles.
    a = np.arange(4.0)
    assert doubled_into(a).tolist() == [0.0, 2.0, 4.0, 6.0]
    out = np.zeros(4)
    assert doubled_into(a, out) is out and out.tolist() == [0, 2, 4, 6]
    assert doubled_into(a, None).tolist() == [0.0, 2.0, 4.0, 6.0]
    d = doubled_into(spirjit.asarray(a))
    assert isinstance(d, spirjit.DeviceArray)
    assert maybe_scaled(a).tolist() == a.tolist()
    assert maybe_scaled(a, 3.0).tolist() == (a * 3).tolist()
    with pytest.raises(spirjit.errors.TypingError, match="not a 'none'"):
        spirjit.jit(lambda x, y: x + y)(a, None)
