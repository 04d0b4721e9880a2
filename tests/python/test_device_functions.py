"""Device functions (``@spirjit.device_func``): called from kernels and from
other device functions, returning values (early returns too), writing into
array arguments, specialised per argument types, restricted by
``signatures=``, kept apart when two share a name, rejecting recursion, and
running as plain Python when called from Python.

Every kernel's result is compared with the same computation in plain Python
or NumPy; checks are grouped into few kernels writing many output columns."""


import numpy as np
import pytest

import spirjit
from spirjit import errors
from spirjit import kernel_api as kapi

import source_markers

def marked_line(name):
    """The number of the one line of this file marked ``# <- name``."""
    return source_markers.marked_line(__file__, name)


def launch(kernel, n, *args):
    spirjit.call_kernel(kernel, kapi.Range(n), *args)


# --------------------------------------------------------------------------
# Calls from kernels and from device functions, return values, early return

@spirjit.device_func
def square(x):
    return x * x


@spirjit.device_func
def clamp(x, lo, hi):
    # early returns from several branches
    if x < lo:
        return lo
    elif x > hi:
        return hi
    return x


@spirjit.device_func
def sign(x):
    if x > 0:
        return 1
    if x < 0:
        return -1
    return 0


@spirjit.device_func
def first_divisor(n):
    # a return from inside a loop
    for d in range(2, n):
        if n % d == 0:
            return d
    return n


@spirjit.device_func
def poly(x):
    # device functions calling device functions, two levels deep
    return square(x) + 3 * clamp(x, -2, 2) - sign(x)


@spirjit.device_func
def nested(x):
    return poly(square(x) - 5) + first_divisor(abs(x) + 2)


@spirjit.device_func
def with_item(item, a):
    # the item and an array may be passed along
    return a[item.get_id(0)] * 2


@spirjit.device_func
def is_small(x):
    return -3 <= x <= 3


@spirjit.device_func
def mixed_returns(x):
    # an int on one path, a float on the other: NumPy-promoted
    if x % 2 == 0:
        return x
    return x * 0.5


@spirjit.device_func
def mark_odd(a, i):
    # no return value at all (a bare early return); the call is a statement
    if i % 2 == 0:
        return
    a[i, 10] = 7


@spirjit.kernel
def calls(item: kapi.Item, a, out):
    i = item.get_id(0)
    x = a[i]
    out[i, 0] = square(x)
    out[i, 1] = clamp(x, -2, 3)
    out[i, 2] = sign(x)
    out[i, 3] = first_divisor(abs(x) + 2)
    out[i, 4] = poly(x)
    out[i, 5] = nested(x)
    out[i, 6] = with_item(item, a)
    out[i, 7] = is_small(x)
    out[i, 8] = mixed_returns(x) * 2
    out[i, 9] = square(square(x) - 1) + square(2)
    mark_odd(out, i)


def calls_reference(x):
    def square_(v):
        return v * v

    def clamp_(v, lo, hi):
        return lo if v < lo else hi if v > hi else v

    def sign_(v):
        return (v > 0) - (v < 0)

    def first_divisor_(n):
        return next((d for d in range(2, n) if n % d == 0), n)

    def poly_(v):
        return square_(v) + 3 * clamp_(v, -2, 2) - sign_(v)

    mixed = x if x % 2 == 0 else x * 0.5
    return [square_(x), clamp_(x, -2, 3), sign_(x),
            first_divisor_(abs(x) + 2), poly_(x),
            poly_(square_(x) - 5) + first_divisor_(abs(x) + 2), x * 2,
            int(-3 <= x <= 3), mixed * 2,
            square_(square_(x) - 1) + square_(2)]


def test_calls_from_kernels_and_device_functions(device_filter,
                                                 require_dtypes):
    require_dtypes(np.float64)
    a = np.arange(-6, 12, dtype=np.int64)
    out = np.zeros((len(a), 11), dtype=np.float64)
    launch(calls, len(a), a, out)
    expected = np.array([calls_reference(int(x)) + [7 * (i % 2)]
                         for i, x in enumerate(a)], dtype=np.float64)
    np.testing.assert_array_equal(out, expected)


def test_device_function_result_types(device_filter):
    # The returned value keeps the argument's dtype: float32 in, float32 out
    # (the float32 product differs from the float64 one), int8 wraps.
    @spirjit.device_func
    def tenth(x):
        return x * 0.1

    @spirjit.device_func
    def plus_100(x):
        return x + 100

    @spirjit.kernel
    def typed(item, f, b, out_f, out_b):
        i = item.get_id(0)
        out_f[i] = tenth(f[i]) * 3
        out_b[i] = plus_100(b[i])

    f = np.array([0.1, 1 / 3, 2.7, 7.3], dtype=np.float32)
    b = np.array([0, 27, 28, 100], dtype=np.int8)
    out_f = np.zeros(4, dtype=np.float64)
    out_b = np.zeros(4, dtype=np.int64)
    launch(typed, 4, f, b, out_f, out_b)
    expected_f = (f * 0.1) * 3
    assert expected_f.dtype == np.float32
    np.testing.assert_array_equal(out_f, expected_f.astype(np.float64))
    assert not np.array_equal(out_f, f.astype(np.float64) * 0.1 * 3)
    with np.errstate(over="ignore"):
        expected_b = b + 100
    assert expected_b.dtype == np.int8
    np.testing.assert_array_equal(out_b, expected_b.astype(np.int64))
    assert out_b.tolist() == [100, 127, -128, -56]


# --------------------------------------------------------------------------
# Writing into array arguments: NumPy arrays come back to the caller

@spirjit.device_func
def store(a, i, v):
    a[i] = v


@spirjit.device_func
def store_2d(m, i, v):
    m[i, 1] = v
    m[(i, 0)] = -v


@spirjit.device_func
def store_via_helper(a, i, v):
    # the write happens two device functions down
    store(a, i, v + 1000)


@spirjit.device_func
def bump(a, i):
    a[i] += 1
    return a[i]


@spirjit.kernel
def writes(item: kapi.Item, src, w, m, deep, counts, out):
    # The kernel itself never stores into w, m, deep or counts.
    i = item.get_id(0)
    store(w, i, src[i] * 2)
    store_2d(m, i, src[i] + 0.5)
    store_via_helper(deep, i, src[i])
    out[i] = bump(counts, i) + bump(counts, i)


def test_device_function_writes_are_copied_back(device_filter,
                                                require_dtypes):
    require_dtypes(np.float64)
    n = 7
    src = np.arange(n, dtype=np.int64) - 3
    w = np.zeros(n, dtype=np.int64)
    m = np.zeros((n, 2), dtype=np.float64)
    deep = np.zeros(n, dtype=np.int32)
    counts = np.arange(n, dtype=np.int64) * 10
    out = np.zeros(n, dtype=np.int64)
    launch(writes, n, src, w, m, deep, counts, out)
    np.testing.assert_array_equal(w, src * 2)
    np.testing.assert_array_equal(m[:, 1], src + 0.5)
    np.testing.assert_array_equal(m[:, 0], -(src + 0.5))
    np.testing.assert_array_equal(deep, src + 1000)
    start = np.arange(n) * 10
    np.testing.assert_array_equal(counts, start + 2)
    np.testing.assert_array_equal(out, (start + 1) + (start + 2))


def test_device_function_writes_into_a_device_array(device_filter):
    w = spirjit.asarray(np.zeros(5, dtype=np.int64))
    src = np.arange(5, dtype=np.int64)

    @spirjit.kernel
    def write_device_array(item, src, w):
        i = item.get_id(0)
        store(w, i, src[i] * src[i])

    launch(write_device_array, 5, spirjit.asarray(src), w)
    np.testing.assert_array_equal(spirjit.asnumpy(w), src * src)


# --------------------------------------------------------------------------
# One device function, specialised per argument types

@spirjit.device_func
def twice(x):
    return x + x


@spirjit.device_func
def halve(x):
    return x // 2 + x / 4


@spirjit.kernel
def specialised(item: kapi.Item, i32, f64, out_i, out_f):
    i = item.get_id(0)
    out_i[i, 0] = twice(i32[i])        # int32: wraps like NumPy int32
    out_i[i, 1] = twice(i)             # a Python int (int64)
    out_f[i, 0] = twice(f64[i])        # float64
    out_f[i, 1] = halve(i32[i])        # int32 // 2 + int32 / 4
    out_f[i, 2] = halve(f64[i])        # float floor division
    out_f[i, 3] = twice(i32[i]) + twice(f64[i])


def test_specialisation_per_argument_types(device_filter, require_dtypes):
    require_dtypes(np.float64)
    i32 = np.array([1, -7, 2 ** 30, 2 ** 31 - 1, -(2 ** 31)], dtype=np.int32)
    f64 = np.array([1.25, -7.5, 2.0 ** 30, 1e300, -0.0])
    n = len(i32)
    out_i = np.zeros((n, 2), dtype=np.int64)
    out_f = np.zeros((n, 4), dtype=np.float64)
    launch(specialised, n, i32, f64, out_i, out_f)
    with np.errstate(over="ignore"):
        doubled32 = i32 + i32
    assert doubled32.dtype == np.int32
    np.testing.assert_array_equal(out_i[:, 0], doubled32)
    np.testing.assert_array_equal(out_i[:, 1], np.arange(n) * 2)
    np.testing.assert_array_equal(out_f[:, 0], f64 + f64)
    np.testing.assert_array_equal(out_f[:, 1], i32 // 2 + i32 / 4)
    np.testing.assert_array_equal(out_f[:, 2], f64 // 2 + f64 / 4)
    np.testing.assert_array_equal(out_f[:, 3], doubled32 + (f64 + f64))
    # the int32 specialisation really wrapped
    assert out_i[2, 0] == -(2 ** 31)


# --------------------------------------------------------------------------
# signatures=

@spirjit.device_func(signatures=["float64(float64, int64)"])
def scaled(x, n):
    return x * 0.1 * n


@spirjit.device_func(signatures="int64(int64)")
def int_only(x):
    return x * 3


def test_signature_converts_the_arguments(device_filter, require_dtypes):
    require_dtypes(np.float64)
    assert scaled.signatures == ("float64(float64, int64)",)
    assert int_only.signatures == ("int64(int64)",)

    @spirjit.kernel
    def use_signature(item, f, k, out):
        i = item.get_id(0)
        out[i, 0] = scaled(f[i], k[i])    # float32, int32 -> float64, int64
        out[i, 1] = scaled(i, 2)          # ints convert to float64
        out[i, 2] = int_only(k[i]) * 2 ** 30  # int32 -> int64: no wrap

    f = np.array([0.1, 1 / 3, 2.7, 7.3], dtype=np.float32)
    k = np.array([3, -1, 7, 5], dtype=np.int32)
    out = np.zeros((4, 3), dtype=np.float64)
    launch(use_signature, 4, f, k, out)
    expected = f.astype(np.float64) * 0.1 * k.astype(np.int64)
    np.testing.assert_array_equal(out[:, 0], expected)
    # computed in float64, not in float32
    assert not np.array_equal(out[:, 0], (f * np.float32(0.1) * k)
                              .astype(np.float64))
    np.testing.assert_array_equal(out[:, 1], np.arange(4) * 0.1 * 2)
    np.testing.assert_array_equal(out[:, 2],
                                  k.astype(np.int64) * 3 * 2 ** 30)


def test_argument_matching_no_signature_is_a_typing_error(device_filter):
    @spirjit.kernel
    def passes_an_array(item, f, out):
        i = item.get_id(0)
        out[i] = scaled(f, 2)  # <- array-for-number

    @spirjit.kernel
    def passes_three(item, f, out):
        i = item.get_id(0)
        out[i] = scaled(f[i], 2, 3)  # <- three-arguments

    f = np.ones(4, dtype=np.float32)
    out = np.zeros(4, dtype=np.float32)
    for kernel, marker in ((passes_an_array, "array-for-number"),
                           (passes_three, "three-arguments")):
        with pytest.raises(errors.TypingError) as info:
            launch(kernel, 4, f, out)
        message = str(info.value)
        assert "'scaled'" in message
        assert "float64(float64, int64)" in message
        line = marked_line(marker)
        assert info.value.lineno == line
        assert f"{__file__}:{line}" in message
        assert isinstance(info.value, TypeError)


def test_signature_return_type_converts_the_result(device_filter,
                                                   require_dtypes):
    require_dtypes(np.float64)

    @spirjit.device_func(signatures="float32(float64)")
    def narrowed(x):
        return x * 0.1

    @spirjit.kernel
    def use_narrowed(item, a, out):
        i = item.get_id(0)
        out[i] = narrowed(a[i])

    a = np.array([0.1, 0.7, 1 / 3])
    out = np.zeros(3)
    launch(use_narrowed, 3, a, out)
    np.testing.assert_array_equal(out, (a * 0.1).astype(np.float32))


def test_exact_signature_match_wins(device_filter, require_dtypes):
    require_dtypes(np.float64)

    @spirjit.device_func(signatures=["int32(int32)", "float64(float64)"])
    def doubled(x):
        return x + x

    @spirjit.kernel
    def use_doubled(item, a, out):
        i = item.get_id(0)
        out[i] = doubled(a[i])

    a = np.array([0.75, 2.5, -1.25])
    out = np.zeros(3)
    launch(use_doubled, 3, a, out)
    np.testing.assert_array_equal(out, a + a)


# --------------------------------------------------------------------------
# Two device functions of the same name do not collide

def make_adder(k):
    @spirjit.device_func
    def helper(x):
        return x + k
    return helper


def make_multiplier(k):
    @spirjit.device_func
    def helper(x):
        return x * k
    return helper


add_one = make_adder(1)
add_ten = make_adder(10)
times_three = make_multiplier(3)


@spirjit.kernel
def same_names(item: kapi.Item, a, out):
    i = item.get_id(0)
    x = a[i]
    out[i, 0] = add_one(x)
    out[i, 1] = add_ten(x)
    out[i, 2] = times_three(x)
    out[i, 3] = times_three(add_ten(add_one(x)))


def test_same_name_in_different_scopes(device_filter):
    assert add_one.__name__ == add_ten.__name__ == times_three.__name__
    a = np.arange(-3, 5, dtype=np.int64)
    out = np.zeros((len(a), 4), dtype=np.int64)
    launch(same_names, len(a), a, out)
    np.testing.assert_array_equal(
        out, np.stack([a + 1, a + 10, a * 3, (a + 11) * 3], axis=1))


def test_same_name_through_closures(device_filter):
    def build(dev):
        @spirjit.kernel
        def apply(item, a, out):
            i = item.get_id(0)
            out[i] = dev(a[i])
        return apply

    a = np.arange(5, dtype=np.int64)
    out = np.zeros(5, dtype=np.int64)
    for dev, expected in ((add_one, a + 1), (times_three, a * 3),
                          (add_ten, a + 10)):
        launch(build(dev), 5, a, out)
        np.testing.assert_array_equal(out, expected)


# --------------------------------------------------------------------------
# Recursion is rejected

@spirjit.device_func
def factorial(n):
    if n <= 1:
        return 1
    return n * factorial(n - 1)  # <- self-recursion


@spirjit.device_func
def is_even(n):
    if n == 0:
        return True
    return is_odd(n - 1)


@spirjit.device_func
def is_odd(n):
    if n == 0:
        return False
    return is_even(n - 1)  # <- mutual-recursion


@spirjit.kernel
def calls_factorial(item: kapi.Item, a, out):
    i = item.get_id(0)
    out[i] = factorial(a[i])


@spirjit.kernel
def calls_is_even(item: kapi.Item, a, out):
    i = item.get_id(0)
    out[i] = is_even(a[i])


@pytest.mark.parametrize("kernel, marker", [
    (calls_factorial, "self-recursion"),
    (calls_is_even, "mutual-recursion"),
], ids=["self", "mutual"])
def test_recursion_is_unsupported(device_filter, kernel, marker):
    a = np.arange(4, dtype=np.int64)
    out = np.zeros(4, dtype=np.int64)
    for _ in range(2):  # the error repeats; nothing is cached half-built
        with pytest.raises(errors.UnsupportedFeatureError) as info:
            launch(kernel, 4, a, out)
        message = str(info.value)
        assert "recursion" in message
        line = marked_line(marker)
        assert info.value.filename == __file__
        assert info.value.lineno == line
        assert f"{__file__}:{line}" in message
    # Python itself runs them fine
    assert factorial(5) == 120
    assert is_even(6) and not is_even(7)


# --------------------------------------------------------------------------
# From plain Python a device function just runs

def test_called_from_python():
    assert square(7) == 49
    assert clamp(10, 0, 3) == 3 and clamp(-1, 0, 3) == 0
    assert first_divisor(35) == 5
    assert poly(2.5) == 2.5 * 2.5 + 6 - 1
    assert scaled(2.0, 3) == 2.0 * 0.1 * 3
    assert add_one(1) == 2 and add_ten(1) == 11 and times_three(2) == 6
    a = np.zeros(3)
    store(a, 1, 5.0)
    assert a.tolist() == [0.0, 5.0, 0.0]
    assert isinstance(square, spirjit.DeviceFunction)
    assert square.__name__ == "square"
    assert "square" in repr(square)


def test_device_functions_in_the_simulator():
    a = np.arange(-6, 12, dtype=np.int64)
    out = np.zeros((len(a), 11), dtype=np.float64)
    kapi.call_kernel(calls, kapi.Range(len(a)), a, out)
    expected = np.array([calls_reference(int(x)) + [7 * (i % 2)]
                         for i, x in enumerate(a)], dtype=np.float64)
    np.testing.assert_array_equal(out, expected)


def test_device_function_has_stats():
    for key in ("compiles", "memory_hits", "disk_hits"):
        assert key in square.stats


@spirjit.device_func
def divmod3(x):
    return x // 3, x % 3, 0.5 * x


@spirjit.kernel
def use_divmod3(item, x, q, r, h):
    i = item.get_id(0)
    a, b, c = divmod3(x[i])
    q[i] = a
    r[i] = b
    h[i] = c


def test_device_function_returns_a_tuple(device_filter):
    x = np.arange(-4, 6, dtype=np.int64)
    q, r = np.zeros_like(x), np.zeros_like(x)
    h = np.zeros(x.shape, dtype=np.float32)
    launch(use_divmod3, x.size, x, q, r, h)
    np.testing.assert_array_equal(q, x // 3)
    np.testing.assert_array_equal(r, x % 3)
    np.testing.assert_array_equal(h, 0.5 * x)



def test_device_function_stats_count_the_kernels_that_contain_it(
        device_filter, monkeypatch):
    monkeypatch.setenv("SPIRJIT_DISABLE_CACHE", "1")

    @spirjit.device_func
    def twice(x):
        return 2 * x

    @spirjit.kernel
    def k(item, a):
        i = item.get_id(0)
        a[i] = twice(a[i]) + twice(a[i])

    before = twice.stats["compiles"]
    a = np.ones(4)
    launch(k, 4, a)
    launch(k, 4, a)  # the same specialisation: no new compile
    np.testing.assert_array_equal(a, np.full(4, 16.0))
    assert twice.stats["compiles"] == before + 1
    launch(k, 4, np.ones(4, dtype=np.float32))
    assert twice.stats["compiles"] == before + 2
