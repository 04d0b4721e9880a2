"""The numeric Python language inside kernels: control flow, operators with
Python/NumPy semantics, builtins, math functions, casts, frozen globals and
closures, NEP 50 weak literals and scalar arguments. Every kernel's result is
compared with the same computation in plain Python or NumPy.

Checks are grouped into a few kernels writing many output columns, since each
specialisation costs a device build."""

import math
import sys

import numpy as np
import pytest

import spirjit
from spirjit import kernel_api as kapi

THIS_MODULE = sys.modules[__name__]


def launch(kernel, n, *args):
    spirjit.call_kernel(kernel, kapi.Range(n), *args)


def check_rows(kernel, reference, a, columns, dtype=np.int64):
    """Runs `kernel` with one work-item per element of `a`, each writing a
    row of `columns` values, and compares row i with reference(int(a[i]))."""
    out = np.zeros((len(a), columns), dtype=dtype)
    launch(kernel, len(a), a, out)
    expected = np.array([reference(int(n)) for n in a], dtype=dtype)
    np.testing.assert_array_equal(out, expected)


# --------------------------------------------------------------------------
# for loops over range(...)

@spirjit.kernel
def for_loops(item: kapi.Item, a, out):
    i = item.get_id(0)
    n = a[i]
    # range(stop)
    s = 0
    for k in range(n):
        s = s * 2 + k
    out[i, 0] = s
    # range(start, stop)
    s = 0
    for k in range(2, n):
        s = s * 2 - k
    out[i, 1] = s
    # range(start, stop, step), negative step
    s = 0
    for k in range(n, -3, -2):
        s = s * 3 + k
    out[i, 2] = s
    # positive step above 1 from a negative start
    s = 0
    for k in range(-n, n, 3):
        s = s * 2 + (k % 5)
    out[i, 3] = s
    # an empty range leaves the loop variable as it was
    last = -100
    for last in range(3, n):
        pass
    out[i, 4] = last
    # break and continue
    s = 0
    for k in range(1, 20, 3):
        if k > n:
            break
        if k % 2 == 0:
            continue
        s = s * 2 + k
    out[i, 5] = s
    # nested loops, the inner bound depending on the outer variable
    t = 0
    for x in range(4):
        for y in range(x, n, 2):
            if y > 9:
                break
            t = t * 2 + x * 10 + y
    out[i, 6] = t
    # for/else: else runs when the loop did not break
    r = 0
    for k in range(2, 10):
        if k * k == n:
            r = k
            break
    else:
        r = -1
    out[i, 7] = r
    # negative step with a variable stop, float accumulation
    f = 0.0
    for k in range(10, n, -3):
        f += k * 0.5
    out[i, 8] = f * 2


def for_loops_reference(n):
    r = [0] * 9
    s = 0
    for k in range(n):
        s = s * 2 + k
    r[0] = s
    s = 0
    for k in range(2, n):
        s = s * 2 - k
    r[1] = s
    s = 0
    for k in range(n, -3, -2):
        s = s * 3 + k
    r[2] = s
    s = 0
    for k in range(-n, n, 3):
        s = s * 2 + (k % 5)
    r[3] = s
    r[4] = n - 1 if n > 3 else -100
    s = 0
    for k in range(1, 20, 3):
        if k > n:
            break
        if k % 2 == 0:
            continue
        s = s * 2 + k
    r[5] = s
    t = 0
    for x in range(4):
        for y in range(x, n, 2):
            if y > 9:
                break
            t = t * 2 + x * 10 + y
    r[6] = t
    roots = [k for k in range(2, 10) if k * k == n]
    r[7] = roots[0] if roots else -1
    r[8] = sum(k * 0.5 for k in range(10, n, -3)) * 2
    return r


def test_for_loops(device_filter, require_dtypes):
    require_dtypes(np.float64)  # float accumulators are float64
    check_rows(for_loops, for_loops_reference,
               np.arange(-4, 21, dtype=np.int64), 9)


@spirjit.kernel
def sums(item: kapi.Item, a, out):
    # The most common loop of all: accumulate into a local variable.
    i = item.get_id(0)
    n = a[i]
    s = 0
    for k in range(n):
        s += k
    out[i, 0] = s
    s = 0
    for k in range(2, n):
        s += k * k
    out[i, 1] = s
    f = 0.0
    for k in range(n):
        f += k * 0.25
    out[i, 2] = f * 4


def test_accumulate_over_variable_range(device_filter, require_dtypes):
    require_dtypes(np.float64)  # float accumulators are float64
    # Large counts too: a closed form must not overflow where the loop
    # does not.
    a = np.concatenate([np.arange(-2, 30), [100_000, 2_000_000]])
    out = np.zeros((len(a), 3), dtype=np.int64)
    launch(sums, len(a), a, out)
    def triangle(n):  # sum(range(n))
        return n * (n - 1) // 2 if n > 0 else 0

    def squares(n):  # sum(k * k for k in range(2, n))
        return (n - 1) * n * (2 * n - 1) // 6 - 1 if n >= 2 else 0

    assert [squares(n) for n in range(-2, 30)] == \
        [sum(k * k for k in range(2, n)) for n in range(-2, 30)]
    expected = [[triangle(n), squares(n), triangle(n)] for n in a.tolist()]
    assert out.tolist() == expected


@pytest.mark.parametrize("opt", [0, 1, 3])
def test_for_loop_at_other_opt_levels(device_filter, opt):
    @spirjit.kernel(opt=opt)
    def loop(item, a, out):
        i = item.get_id(0)
        s = a[i]
        for k in range(3):
            s = s * 2 + k
        t = 0
        for k in range(a[i]):
            t += k
        out[i] = s * 1000 + t

    a = np.arange(6, dtype=np.int64)
    out = np.zeros(6, dtype=np.int64)
    launch(loop, 6, a, out)
    expected = [(((x * 2 + 0) * 2 + 1) * 2 + 2) * 1000 + sum(range(x))
                for x in a.tolist()]
    assert out.tolist() == expected


# --------------------------------------------------------------------------
# while, if/elif/else, conditional expressions, boolean operators

@spirjit.kernel
def while_loops(item: kapi.Item, a, out):
    i = item.get_id(0)
    n = a[i]
    # Collatz steps: a while loop around an if/else
    k = n
    c = 0
    while k > 1:
        if k % 2 == 0:
            k = k // 2
        else:
            k = 3 * k + 1
        c += 1
    out[i, 0] = c
    # while True with break
    c = 0
    while True:
        c += 1
        if c * c > n:
            break
    out[i, 1] = c
    # while with a compound condition, nested for
    j = 0
    t = 0
    while j < n and t < 1000:
        for m in range(j):
            t += m
        j += 1
    out[i, 2] = t * 100 + j


def while_loops_reference(n):
    k, c = n, 0
    while k > 1:
        k = k // 2 if k % 2 == 0 else 3 * k + 1
        c += 1
    r0 = c
    c = 0
    while True:
        c += 1
        if c * c > n:
            break
    r1 = c
    j = t = 0
    while j < n and t < 1000:
        for m in range(j):
            t += m
        j += 1
    return [r0, r1, t * 100 + j]


def test_while_loops(device_filter):
    check_rows(while_loops, while_loops_reference,
               np.arange(-3, 40, dtype=np.int64), 3)


def test_while_with_continue(device_filter):
    @spirjit.kernel
    def while_continue(item, a, out):
        i = item.get_id(0)
        n = a[i]
        c = 0
        j = 0
        while j < n:
            j += 1
            if j % 3 == 0:
                continue
            c = c * 2 + j
        out[i] = c

    def reference(n):
        c = j = 0
        while j < n:
            j += 1
            if j % 3 == 0:
                continue
            c = c * 2 + j
        return c

    a = np.arange(-2, 15, dtype=np.int64)
    out = np.zeros(len(a), dtype=np.int64)
    launch(while_continue, len(a), a, out)
    np.testing.assert_array_equal(out, [reference(int(n)) for n in a])


@spirjit.kernel
def branches(item: kapi.Item, a, out):
    i = item.get_id(0)
    n = a[i]
    if n < 0:
        r = -1
    elif n == 0:
        r = 100
    elif n < 5:
        r = 5
    else:
        r = 9
    out[i, 0] = r
    out[i, 1] = n * 2 if n % 3 == 0 else n - 7
    out[i, 2] = 1 if (n > 2 and n < 8) or not (n != 0) else 0
    out[i, 3] = 1 if 2 < n <= 5 else 0
    out[i, 4] = n and 7
    out[i, 5] = n or -3
    out[i, 6] = not n
    out[i, 7] = 1 if not (n > 0 or n < -2) else 0
    if n == 13:
        return  # an early return leaves column 8 untouched
    out[i, 8] = 1


def branches_reference(n):
    r0 = -1 if n < 0 else 100 if n == 0 else 5 if n < 5 else 9
    return [r0,
            n * 2 if n % 3 == 0 else n - 7,
            1 if (n > 2 and n < 8) or not (n != 0) else 0,
            1 if 2 < n <= 5 else 0,
            n and 7,
            n or -3,
            int(not n),
            1 if not (n > 0 or n < -2) else 0,
            0 if n == 13 else 1]


def test_branches(device_filter):
    check_rows(branches, branches_reference,
               np.arange(-5, 16, dtype=np.int64), 9)


@spirjit.kernel
def float_branches(item: kapi.Item, a, out):
    i = item.get_id(0)
    x = a[i]
    # floats as conditions: 0.0 is false, NaN is true
    out[i, 0] = 1 if x else 0
    out[i, 1] = not x
    out[i, 2] = x if x > 0.5 else -x
    out[i, 3] = (x > 0) and (x < 2)


def test_float_truthiness(device_filter):
    a = np.array([0.0, -0.0, 0.25, 1.5, -3.0, np.nan, np.inf], np.float32)
    out = np.zeros((len(a), 4), dtype=np.float32)
    launch(float_branches, len(a), a, out)
    expected = np.array([[1 if x else 0, not x, x if x > 0.5 else -x,
                          (x > 0) and (x < 2)] for x in a.tolist()],
                        dtype=np.float32)
    np.testing.assert_array_equal(out, expected)


@spirjit.kernel
def tuples_and_else(item: kapi.Item, a, out):
    i = item.get_id(0)
    n = a[i]
    # tuple build and unpack: Fibonacci by swapping
    x, y = n, 1
    for k in range(5):
        x, y = y, x + y
    out[i, 0] = x * 1000 + y
    # while/else
    j = 0
    while j < n:
        j += 2
    else:
        j = -j
    out[i, 1] = j
    # constant tuple indices, negative too, and len of a tuple
    p = (n, n * 2, n * 3)
    out[i, 2] = p[0] + p[-1] * 10 + len(p) * 100
    # a variable holding an int on one path and a float on the other
    v = n * 0.5 if n > 3 else n
    out[i, 3] = v * 2
    # max/min over mixed int and float
    out[i, 4] = max(n, 2.5) * 2 + min(n, -1)


def tuples_and_else_reference(n):
    x, y = n, 1
    for k in range(5):
        x, y = y, x + y
    j = 0
    while j < n:
        j += 2
    else:
        j = -j
    p = (n, n * 2, n * 3)
    v = n * 0.5 if n > 3 else n
    return [x * 1000 + y, j, p[0] + p[-1] * 10 + len(p) * 100, v * 2,
            max(n, 2.5) * 2 + min(n, -1)]


def test_tuples_while_else_mixed_types(device_filter, require_dtypes):
    require_dtypes(np.float64)
    check_rows(tuples_and_else, tuples_and_else_reference,
               np.arange(-3, 12, dtype=np.int64), 5, dtype=np.float64)


def test_variable_assigned_in_loop_used_after(device_filter):
    @spirjit.kernel
    def last_value(item, a, out):
        i = item.get_id(0)
        for k in range(3):
            last = k * 2 + a[i]
        out[i] = last

    a = np.arange(5, dtype=np.int64)
    out = np.zeros(5, dtype=np.int64)
    launch(last_value, 5, a, out)
    np.testing.assert_array_equal(out, a + 4)


# --------------------------------------------------------------------------
# Integer operators: Python semantics for // and %, no trap on zero

@spirjit.kernel
def int_ops(item: kapi.Item, a, b, out):
    i = item.get_id(0)
    x = a[i]
    y = b[i]
    out[i, 0] = x // y
    out[i, 1] = x % y
    out[i, 2] = x << 3
    out[i, 3] = x >> 2
    out[i, 4] = x & y
    out[i, 5] = x | y
    out[i, 6] = x ^ y
    out[i, 7] = ~x
    out[i, 8] = -x
    out[i, 9] = abs(x)
    out[i, 10] = min(x, y)
    out[i, 11] = max(x, y)
    out[i, 12] = x < y
    out[i, 13] = x <= y
    out[i, 14] = x == y
    out[i, 15] = x != y
    out[i, 16] = x > y
    out[i, 17] = x >= y
    out[i, 18] = x + y * 2 - 1
    out[i, 19] = x >> (y & 3)
    out[i, 20] = x << (y & 3)
    out[i, 21] = x // 2
    out[i, 22] = x % 2
    out[i, 25] = +x


@spirjit.kernel
def negative_literal_divisors(item: kapi.Item, a, out):
    # Signed types only: NumPy 2 refuses -2 beside an unsigned one (a
    # TypingError here, test_language_more.py).
    i = item.get_id(0)
    out[i, 23] = a[i] // -2
    out[i, 24] = a[i] % -3


def int_ops_reference(a, b):
    y3 = b & 3
    with np.errstate(all="ignore"):
        columns = [a // b, a % b, a << 3, a >> 2, a & b, a | b, a ^ b, ~a,
                   -a, np.abs(a), np.minimum(a, b), np.maximum(a, b),
                   a < b, a <= b, a == b, a != b, a > b, a >= b,
                   a + b * 2 - 1, a >> y3, a << y3, a // 2, a % 2]
        if a.dtype.kind == "i":
            columns += [a // -2, a % -3]
        else:
            columns += [np.zeros_like(a), np.zeros_like(a)]
        columns += [+a]
    return np.stack([np.asarray(c).astype(np.int64) for c in columns],
                    axis=1)


def int_operands(dtype):
    info = np.iinfo(dtype)
    if info.min < 0:
        xs = [-7, 7, -7, 7, 0, 5, -1, 3, 9, -9, info.min, info.min,
              info.max, info.max, -8, 100 % info.max]
        ys = [2, -2, -2, 2, 3, 0, 4, 1, -4, 0, -1, 1, -1, 3, 5, -7]
    else:
        xs = [7, 250 % info.max, 0, 5, 9, 3, 1, info.max, info.max, 6]
        ys = [2, 3, 4, 0, 2, 7, 1, 1, 0, 4]
    return np.array(xs, dtype=dtype), np.array(ys, dtype=dtype)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int8, np.uint8,
                                   np.uint32],
                         ids=lambda d: np.dtype(d).name)
def test_int_ops(device_filter, dtype):
    a, b = int_operands(dtype)
    out = np.full((len(a), 26), 12345, dtype=np.int64)
    launch(int_ops, len(a), a, b, out)
    expected = int_ops_reference(a, b)
    if np.dtype(dtype).kind == "u":
        out[:, 23:25] = 0  # (the reference's zeros)
    else:
        launch(negative_literal_divisors, len(a), a, out)
    np.testing.assert_array_equal(out, expected)


def test_python_division_semantics_spelled_out(device_filter):
    # The cases users trip over, with their Python values spelled out.
    a = np.array([-7, 7, -7, 7, 5, -5, 0, np.iinfo(np.int64).min], np.int64)
    b = np.array([2, -2, -2, 2, 0, 0, 0, -1], np.int64)
    out = np.zeros((len(a), 26), dtype=np.int64)
    launch(int_ops, len(a), a, b, out)
    assert out[:, 0].tolist() == [-4, -4, 3, 3, 0, 0, 0,
                                  np.iinfo(np.int64).min]
    assert out[:, 1].tolist() == [1, -1, -1, 1, 0, 0, 0, 0]
    assert (-7 // 2, -7 % 2, 7 // -2, 7 % -2) == (-4, 1, -4, -1)


def test_abs_of_int32_min_wraps_like_numpy(device_filter):
    @spirjit.kernel
    def absolute(item, a, out):
        i = item.get_id(0)
        out[i] = abs(a[i])

    a = np.array([np.iinfo(np.int32).min, -5, 5], dtype=np.int32)
    out = np.zeros(3, dtype=np.int64)
    launch(absolute, 3, a, out)
    with np.errstate(over="ignore"):
        expected = np.abs(a).astype(np.int64)
    np.testing.assert_array_equal(out, expected)  # [-2**31, 5, 5]


def test_integer_power(device_filter):
    @spirjit.kernel
    def int_power(item, a, b, out):
        i = item.get_id(0)
        out[i, 0] = a[i] ** 2
        out[i, 1] = a[i] ** b[i]
        out[i, 2] = 3 ** b[i]

    a = np.array([-3, -1, 0, 1, 2, 7, 10], dtype=np.int64)
    b = np.array([0, 1, 2, 3, 4, 5, 18], dtype=np.int64)
    out = np.zeros((len(a), 3), dtype=np.int64)
    launch(int_power, len(a), a, b, out)
    np.testing.assert_array_equal(out[:, 0], a ** 2)
    np.testing.assert_array_equal(out[:, 1], a ** b)
    np.testing.assert_array_equal(out[:, 2], 3 ** b)


@spirjit.kernel
def augmented(item: kapi.Item, a, out):
    i = item.get_id(0)
    out[i] += a[i]
    out[i] *= 2
    v = a[i]
    v //= 2
    v -= 1
    v %= 7
    v <<= 2
    v |= 1
    v ^= 6
    v &= 0xFF
    v >>= 1
    v += 3
    out[i] += v


def test_augmented_assignment(device_filter):
    a = np.arange(-8, 8, dtype=np.int64)
    out = np.full(len(a), 5, dtype=np.int64)
    launch(augmented, len(a), a, out)
    expected = []
    for x in a.tolist():
        r = (5 + x) * 2
        v = x
        v //= 2
        v -= 1
        v %= 7
        v <<= 2
        v |= 1
        v ^= 6
        v &= 0xFF
        v >>= 1
        v += 3
        expected.append(r + v)
    assert out.tolist() == expected


def test_bool_arithmetic_follows_numpy(device_filter):
    @spirjit.kernel
    def bool_add(item, a, b, out):
        i = item.get_id(0)
        out[i] = a[i] + b[i]

    a = np.array([True, True, False, False])
    b = np.array([True, False, True, False])
    out = np.zeros(4, dtype=np.int64)
    launch(bool_add, 4, a, b, out)
    np.testing.assert_array_equal(out, (a + b).astype(np.int64))


def test_bool_arrays(device_filter):
    @spirjit.kernel
    def bool_logic(item, a, b, out):
        i = item.get_id(0)
        x = a[i]
        y = b[i]
        out[i, 0] = x and not y
        out[i, 1] = x & y
        out[i, 2] = x | y
        out[i, 3] = x ^ y
        out[i, 4] = x == y
        out[i, 5] = x or y

    a = np.array([True, True, False, False])
    b = np.array([True, False, True, False])
    out = np.zeros((4, 6), dtype=bool)
    launch(bool_logic, 4, a, b, out)
    expected = np.stack([a & ~b, a & b, a | b, a ^ b, a == b, a | b], axis=1)
    np.testing.assert_array_equal(out, expected)


# --------------------------------------------------------------------------
# Float operators

@spirjit.kernel
def float_ops(item: kapi.Item, a, b, out):
    i = item.get_id(0)
    x = a[i]
    y = b[i]
    out[i, 0] = x // y
    out[i, 1] = x % y
    out[i, 2] = x / y
    out[i, 3] = -x
    out[i, 4] = abs(x)
    out[i, 5] = min(x, y)
    out[i, 6] = max(x, y)
    out[i, 7] = x < y
    out[i, 8] = x == y
    out[i, 9] = x * y - x
    out[i, 10] = x ** y
    out[i, 11] = x ** 2


FLOAT_X = [-7.5, 7.5, -7.5, 7.5, 0.0, 5.0, -1.0, 3.0, -0.0, 1e10, -3.25,
           6.0, 2.0]
FLOAT_Y = [2.0, -2.0, -2.0, 2.0, 3.0, 0.5, 4.0, 1.0, 2.0, 3.0, 0.5, -4.0,
           -0.5]


@pytest.mark.parametrize("dtype", [np.float32, np.float64],
                         ids=lambda d: np.dtype(d).name)
def test_float_ops(device_filter, require_dtypes, dtype):
    require_dtypes(dtype)
    a = np.array(FLOAT_X, dtype=dtype)
    b = np.array(FLOAT_Y, dtype=dtype)
    out = np.zeros((len(a), 12), dtype=dtype)
    launch(float_ops, len(a), a, b, out)
    with np.errstate(all="ignore"):
        exact = [np.floor_divide(a, b), np.mod(a, b), a / b, -a, np.abs(a),
                 np.minimum(a, b), np.maximum(a, b), a < b, a == b,
                 a * b - a]
    for column, expected in enumerate(exact):
        np.testing.assert_array_equal(out[:, column],
                                      expected.astype(dtype),
                                      err_msg=f"column {column}")
    rtol = 1e-6 if dtype == np.float32 else 1e-14
    with np.errstate(invalid="ignore"):
        power = np.power(a, b)
    np.testing.assert_allclose(out[:, 10], power, rtol=rtol)
    np.testing.assert_allclose(out[:, 11], a ** 2, rtol=rtol)
    # Python's own float semantics for the famous cases
    assert out[0, 0] == -7.5 // 2.0 == -4.0
    assert out[0, 1] == -7.5 % 2.0 == 0.5
    assert out[1, 1] == 7.5 % -2.0 == -0.5


# --------------------------------------------------------------------------
# Builtins, math functions, casts

@spirjit.kernel
def math_funcs(item: kapi.Item, a, out, iout):
    i = item.get_id(0)
    x = a[i]
    out[i, 0] = math.sqrt(abs(x))
    out[i, 1] = math.exp(x / 8)
    out[i, 2] = math.sin(x)
    out[i, 3] = math.cos(x)
    out[i, 4] = math.log(abs(x) + 1)
    out[i, 5] = np.sqrt(abs(x))
    out[i, 6] = math.tanh(x)
    out[i, 7] = math.pi * x
    iout[i, 0] = math.floor(x)
    iout[i, 1] = math.ceil(x)
    iout[i, 2] = math.trunc(x)
    iout[i, 3] = int(x)
    # math.floor returns an int: it shifts and indexes like one
    iout[i, 4] = math.floor(x) << 1
    iout[i, 5] = a[abs(math.floor(x)) % 3] * 4
    iout[i, 6] = int(-x * 2)
    iout[i, 7] = float(math.floor(x)) / 2 * 4


def test_math_functions(device_filter, require_dtypes):
    require_dtypes(np.float64)
    a = np.array([-2.5, -0.5, 0.0, 0.5, 2.5, 3.99, -7.25, 10.0])
    out = np.zeros((len(a), 8))
    iout = np.zeros((len(a), 8), dtype=np.int64)
    launch(math_funcs, len(a), a, out, iout)
    xs = a.tolist()
    expected = np.array([[math.sqrt(abs(x)), math.exp(x / 8), math.sin(x),
                          math.cos(x), math.log(abs(x) + 1),
                          math.sqrt(abs(x)), math.tanh(x), math.pi * x]
                         for x in xs])
    np.testing.assert_allclose(out, expected, rtol=1e-13, atol=1e-15)
    floors = [math.floor(x) for x in xs]
    np.testing.assert_array_equal(iout[:, 0], floors)
    np.testing.assert_array_equal(iout[:, 1], [math.ceil(x) for x in xs])
    np.testing.assert_array_equal(iout[:, 2], [math.trunc(x) for x in xs])
    np.testing.assert_array_equal(iout[:, 3], [int(x) for x in xs])
    np.testing.assert_array_equal(iout[:, 4], [f << 1 for f in floors])
    np.testing.assert_array_equal(iout[:, 5],
                                  [int(xs[abs(f) % 3] * 4) for f in floors])
    np.testing.assert_array_equal(iout[:, 6], [int(-x * 2) for x in xs])
    np.testing.assert_array_equal(iout[:, 7],
                                  [int(float(f) / 2 * 4) for f in floors])


@spirjit.kernel
def casts(item: kapi.Item, a, out):
    i = item.get_id(0)
    x = a[i]
    out[i, 0] = np.float32(x)
    out[i, 1] = np.float32(x) * np.float32(3.0)
    out[i, 2] = x * 3.0
    out[i, 3] = np.int32(x * 10)
    out[i, 4] = a.dtype.type(i) + x
    out[i, 5] = float(i) / 4
    out[i, 6] = bool(x)
    out[i, 7] = np.float64(np.float32(x)) - x


def test_numpy_casts(device_filter, require_dtypes):
    require_dtypes(np.float64)
    a = np.array([0.1, 1 / 3, 2.7, -1e-3, 123456.789, 0.0])
    out = np.zeros((len(a), 8))
    launch(casts, len(a), a, out)
    f32 = a.astype(np.float32)
    np.testing.assert_array_equal(out[:, 0], f32.astype(np.float64))
    np.testing.assert_array_equal(out[:, 1],
                                  (f32 * np.float32(3.0)).astype(np.float64))
    np.testing.assert_array_equal(out[:, 2], a * 3.0)
    # The float32 product is not the float64 one: the cast really happened.
    assert not np.array_equal(out[:, 1], out[:, 2])
    np.testing.assert_array_equal(out[:, 3], (a * 10).astype(np.int32))
    np.testing.assert_array_equal(out[:, 4], np.arange(len(a)) + a)
    np.testing.assert_array_equal(out[:, 5], np.arange(len(a)) / 4)
    np.testing.assert_array_equal(out[:, 6], a != 0)
    np.testing.assert_array_equal(out[:, 7], f32.astype(np.float64) - a)


def test_round_builtin(device_filter, require_dtypes):
    require_dtypes(np.float64)
    @spirjit.kernel
    def rounding(item, a, out):
        i = item.get_id(0)
        out[i] = round(a[i])

    a = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.6, -2.6])
    out = np.zeros(len(a), dtype=np.int64)
    launch(rounding, len(a), a, out)
    # Python rounds half to even.
    np.testing.assert_array_equal(out, [round(x) for x in a.tolist()])


# --------------------------------------------------------------------------
# NEP 50: Python literals are weak

@spirjit.kernel
def weak_float_literals(item: kapi.Item, a, out):
    i = item.get_id(0)
    x = a[i]
    out[i, 0] = x * 0.1
    out[i, 1] = x + 0.1
    out[i, 2] = x / 3
    out[i, 3] = x * 2.0
    out[i, 4] = 1.0 - x
    out[i, 5] = x + 1
    out[i, 6] = (x * 0.1) * 0.1


def test_weak_float_literals_keep_float32(device_filter, require_dtypes):
    # The output is float64, so a computation done in float64 and one done
    # in float32 (then widened) give different numbers.
    require_dtypes(np.float64)
    rng = np.random.default_rng(7)
    a = (rng.random(64) * 10).astype(np.float32)
    a[:3] = [np.float32(0.1), np.float32(1 / 3), np.float32(2.7)]
    out = np.zeros((len(a), 7), dtype=np.float64)
    launch(weak_float_literals, len(a), a, out)
    expected32 = [a * 0.1, a + 0.1, a / 3, a * 2.0, 1.0 - a, a + 1,
                  (a * 0.1) * 0.1]
    for column, e in enumerate(expected32):
        assert e.dtype == np.float32  # NumPy 2 itself keeps float32
        np.testing.assert_array_equal(out[:, column], e.astype(np.float64),
                                      err_msg=f"column {column}")
    # The test discriminates: float64 arithmetic would differ.
    assert not np.array_equal(out[:, 0], a.astype(np.float64) * 0.1)
    assert not np.array_equal(out[:, 1], a.astype(np.float64) + 0.1)
    assert out[0, 0] == np.float64(np.float32(0.1) * np.float32(0.1))


@spirjit.kernel
def weak_int_literals(item: kapi.Item, a, out):
    i = item.get_id(0)
    x = a[i]
    out[i, 0] = x * 4
    out[i, 1] = x + 200
    out[i, 2] = x - 1


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.int16],
                         ids=lambda d: np.dtype(d).name)
def test_weak_int_literals_keep_the_array_dtype(device_filter, dtype):
    # int32 * 4 stays int32 and wraps; uint8 + 200 stays uint8 and wraps.
    info = np.iinfo(dtype)
    a = np.array([0, 1, info.max, info.min, info.max // 2 + 1, 100],
                 dtype=dtype)
    out = np.zeros((len(a), 3), dtype=np.int64)
    launch(weak_int_literals, len(a), a, out)
    with np.errstate(over="ignore"):
        expected = [a * 4, a + 200, a - 1]
    for column, e in enumerate(expected):
        assert e.dtype == dtype
        np.testing.assert_array_equal(out[:, column], e.astype(np.int64),
                                      err_msg=f"column {column}")


def test_weak_float_literal_comparisons(device_filter):
    # np.float32(0.1) == 0.1 in NumPy 2: the literal becomes float32 first.
    @spirjit.kernel
    def compare_literals(item, f, out):
        i = item.get_id(0)
        y = f[i]
        out[i, 0] = y == 0.1
        out[i, 1] = y < 0.2
        out[i, 2] = y != 0.3

    f = np.array([0.1, 0.2, 0.3, -1.0], dtype=np.float32)
    out = np.zeros((4, 3), dtype=np.int64)
    launch(compare_literals, 4, f, out)
    expected = np.stack([f == 0.1, f < 0.2, f != 0.3], axis=1)
    np.testing.assert_array_equal(out, expected.astype(np.int64))
    assert out[:, 0].tolist() == [1, 0, 0, 0]


def test_comparison_with_out_of_range_int_literal(device_filter):
    @spirjit.kernel
    def compare_out_of_range(item, u, s, out):
        i = item.get_id(0)
        x = u[i]
        y = s[i]
        out[i, 0] = x > -1
        out[i, 1] = x < 256
        out[i, 2] = -1 < x
        out[i, 3] = y < 200
        out[i, 4] = y > -200
        out[i, 5] = x != 300

    u = np.array([0, 5, 255], dtype=np.uint8)
    s = np.array([-128, 0, 127], dtype=np.int8)
    out = np.zeros((3, 6), dtype=np.int64)
    launch(compare_out_of_range, 3, u, s, out)
    expected = np.stack([u > -1, u < 256, -1 < u, s < 200, s > -200,
                         u != 300], axis=1)
    assert expected.all()
    np.testing.assert_array_equal(out, expected.astype(np.int64))


def test_mixed_signedness_promotes_like_numpy(device_filter, require_dtypes):
    require_dtypes(np.float64)

    @spirjit.kernel
    def mixed(item, a, b, c, out):
        i = item.get_id(0)
        out[i, 0] = a[i] + b[i]  # uint64 + int64 -> float64
        out[i, 1] = c[i] + b[i]  # int32 + int64 -> int64
        out[i, 2] = a[i] / b[i]
        out[i, 3] = c[i] / 4     # int / int -> float64

    a = np.array([2 ** 63 + 5, 7, 0], dtype=np.uint64)
    b = np.array([-3, 2, 5], dtype=np.int64)
    c = np.array([1, -2, 2 ** 31 - 1], dtype=np.int32)
    out = np.zeros((3, 4), dtype=np.float64)
    launch(mixed, 3, a, b, c, out)
    expected = np.stack([a + b, (c + b).astype(np.float64), a / b, c / 4],
                        axis=1)
    np.testing.assert_array_equal(out, expected)


# --------------------------------------------------------------------------
# Scalar arguments

@spirjit.kernel
def with_scalars(item: kapi.Item, a, out, n, f, flag, g, m):
    i = item.get_id(0)
    out[i, 0] = a[i] * g
    out[i, 1] = a[i] * f
    out[i, 2] = i * n
    v = a[i] + 1
    if flag:
        v = -v
    out[i, 3] = v
    out[i, 4] = m + i
    out[i, 5] = g * 2.5


@pytest.mark.parametrize("flag", [True, False])
def test_scalar_arguments(device_filter, require_dtypes, flag):
    require_dtypes(np.float64)
    a = np.array([0.1, 1.7, -3.3, 1e3], dtype=np.float32)
    out = np.zeros((len(a), 6), dtype=np.float64)
    n = 3_000_000_000  # needs int64
    f = 0.1
    g = np.float32(0.3)
    m = np.int32(-7)
    launch(with_scalars, len(a), a, out, n, f, flag, g, m)
    idx = np.arange(len(a))
    # float32 * np.float32 stays float32
    np.testing.assert_array_equal(out[:, 0], (a * g).astype(np.float64))
    # a Python float argument is a float64 value (as in numba)
    np.testing.assert_array_equal(out[:, 1], a.astype(np.float64) * f)
    np.testing.assert_array_equal(out[:, 2], idx * n)
    v = (a + 1).astype(np.float64)
    np.testing.assert_array_equal(out[:, 3], -v if flag else v)
    np.testing.assert_array_equal(out[:, 4], idx - 7)
    np.testing.assert_array_equal(out[:, 5], np.float64(g * 2.5))
    assert with_scalars.stats["compiles"] >= 1


def test_scalar_arguments_reuse_the_specialisation(device_filter):
    @spirjit.kernel
    def scale(item, a, out, factor):
        i = item.get_id(0)
        out[i] = a[i] * factor

    a = np.arange(5, dtype=np.int64)
    out = np.zeros(5, dtype=np.int64)
    for factor in (2, 3, -4):
        launch(scale, 5, a, out, factor)
        np.testing.assert_array_equal(out, a * factor)
    # Compiled, or loaded from what an identical device compiled.
    assert scale.stats["compiles"] + scale.stats["disk_hits"] == 1


# --------------------------------------------------------------------------
# Module-level constants and closure variables, frozen at compile time

SCALE = 3
OFFSET = 0.25
F32_FACTOR = np.float32(0.1)
FROZEN = 2


@spirjit.kernel
def uses_globals(item: kapi.Item, a, out):
    i = item.get_id(0)
    out[i, 0] = a[i] * SCALE + OFFSET
    out[i, 1] = a[i] * F32_FACTOR
    out[i, 2] = math.pi + a[i] * 0
    out[i, 3] = np.e + math.tau


def make_scaled(factor, shift):
    @spirjit.kernel
    def scaled(item: kapi.Item, a, out):
        i = item.get_id(0)
        out[i] = a[i] * factor + shift
    return scaled


def test_module_constants(device_filter, require_dtypes):
    require_dtypes(np.float64)
    a = np.array([0.1, 2.0, -3.7], dtype=np.float32)
    out = np.zeros((3, 4), dtype=np.float64)
    launch(uses_globals, 3, a, out)
    np.testing.assert_array_equal(out[:, 0], (a * SCALE + OFFSET))
    # A NumPy float32 global is a float32 value.
    np.testing.assert_array_equal(out[:, 1], (a * F32_FACTOR))
    assert (a * F32_FACTOR).dtype == np.float32
    # math.pi is a weak float: float32 here.
    np.testing.assert_array_equal(out[:, 2], np.float32(math.pi))
    np.testing.assert_allclose(out[:, 3], np.e + math.tau, rtol=1e-15)


def test_closure_variables(device_filter):
    a = np.arange(6, dtype=np.int64)
    out = np.zeros(6, dtype=np.int64)
    first = make_scaled(2, 10)
    second = make_scaled(-5, 1)
    launch(first, 6, a, out)
    np.testing.assert_array_equal(out, a * 2 + 10)
    launch(second, 6, a, out)
    np.testing.assert_array_equal(out, a * -5 + 1)
    launch(first, 6, a, out)
    np.testing.assert_array_equal(out, a * 2 + 10)


def test_globals_are_frozen_at_first_compile(device_filter, monkeypatch):
    def times_frozen(item, a, out):
        i = item.get_id(0)
        out[i] = a[i] * FROZEN

    kernel = spirjit.kernel(times_frozen)
    a = np.arange(4, dtype=np.int64)
    out = np.zeros(4, dtype=np.int64)
    launch(kernel, 4, a, out)
    np.testing.assert_array_equal(out, a * 2)

    monkeypatch.setattr(THIS_MODULE, "FROZEN", 5)
    # The compiled kernel keeps the value it was compiled with ...
    launch(kernel, 4, a, out)
    np.testing.assert_array_equal(out, a * 2)
    # ... also for a new specialisation of the same kernel object ...
    a32 = a.astype(np.int32)
    out32 = np.zeros(4, dtype=np.int32)
    launch(kernel, 4, a32, out32)
    np.testing.assert_array_equal(out32, a32 * 2)
    # ... while a kernel object created after the change sees the new value.
    fresh = spirjit.kernel(times_frozen)
    launch(fresh, 4, a, out)
    np.testing.assert_array_equal(out, a * 5)


def classify(x):
    match x:
        case 1 | 2:
            return 10
        case 3 if x > 2:
            return 30
        case 7:
            return 70
        case other:
            return other * 2


def test_match_with_literal_capture_or_and_guard_patterns(device_filter):
    # Such patterns are comparisons in the bytecode, and run as Python's
    # (sequence, mapping and class patterns are UnsupportedFeatureErrors).
    device_classify = spirjit.device_func(classify)

    @spirjit.kernel
    def kernel(item, out):
        i = item.get_id(0)
        out[i] = device_classify(i)

    out = np.zeros(10, np.int64)
    launch(kernel, 10, out)
    assert out.tolist() == [classify(i) for i in range(10)]
