"""More of the numeric Python language inside kernels: NEP 50 weak literals
proven by results, chained comparisons, tuples, variables whose type changes
across branches, frozen globals and closure variables, loops (nested, with
break/continue, negative and run-time steps, while with continue), variables
first assigned inside a loop, and the fastmath and opt options.

Every kernel's result is compared with the same computation in plain Python
or NumPy; checks are grouped into few kernels writing many output columns."""

import math
import sys

import numpy as np
import pytest

import spirjit
from spirjit import kernel_api as kapi

THIS_MODULE = sys.modules[__name__]


def launch(kernel, n, *args):
    spirjit.call_kernel(kernel, kapi.Range(n), *args)


# --------------------------------------------------------------------------
# NEP 50: Python literals are weak, proven by the results

@spirjit.kernel
def weak_literals(item: kapi.Item, f32, i8, u8, i16, fout, iout):
    i = item.get_id(0)
    x = f32[i]
    fout[i, 0] = x * 0.1
    fout[i, 1] = x + 1e-8           # lost in float32, kept in float64
    fout[i, 2] = x / 3
    fout[i, 3] = 2 ** 24 + 1 + x    # the int literal becomes float32
    fout[i, 4] = (x - 0.3) * 1.1
    iout[i, 0] = i8[i] + 1          # int8 wraps at 127
    iout[i, 1] = i8[i] * 2
    iout[i, 2] = u8[i] - 1          # uint8 wraps at 0
    iout[i, 3] = i16[i] * 3
    iout[i, 4] = -i8[i]             # -(-128) wraps to -128
    iout[i, 5] = i8[i] // 1 + 127


def test_weak_literals_keep_the_array_dtype(device_filter, require_dtypes):
    require_dtypes(np.float64)
    f32 = np.array([0.1, 1 / 3, 2.7, 1.0, 7.3, 1e3, -5.5, 0.3],
                   dtype=np.float32)
    i8 = np.array([127, -128, 0, 100, -1, 64, 5, 126], dtype=np.int8)
    u8 = np.array([0, 255, 1, 128, 0, 7, 200, 3], dtype=np.uint8)
    i16 = np.array([32767, -32768, 11000, 0, -11000, 1, 2, 3],
                   dtype=np.int16)
    n = len(f32)
    fout = np.zeros((n, 5), dtype=np.float64)
    iout = np.zeros((n, 6), dtype=np.int64)
    launch(weak_literals, n, f32, i8, u8, i16, fout, iout)
    with np.errstate(over="ignore"):
        expected_f = [f32 * 0.1, f32 + 1e-8, f32 / 3, 2 ** 24 + 1 + f32,
                      (f32 - 0.3) * 1.1]
        expected_i = [i8 + 1, i8 * 2, u8 - 1, i16 * 3, -i8, i8 // 1 + 127]
    for column, e in enumerate(expected_f):
        assert e.dtype == np.float32
        np.testing.assert_array_equal(fout[:, column], e.astype(np.float64),
                                      err_msg=f"float column {column}")
    for column, e in enumerate(expected_i):
        assert e.dtype in (np.int8, np.uint8, np.int16)
        np.testing.assert_array_equal(iout[:, column], e.astype(np.int64),
                                      err_msg=f"int column {column}")
    # a[i] * 0.1 equals a * np.float32(0.1) exactly ...
    np.testing.assert_array_equal(fout[:, 0],
                                  (f32 * np.float32(0.1)).astype(np.float64))
    # ... and not the float64 product rounded to float32
    rounded = (f32.astype(np.float64) * 0.1).astype(np.float32)
    assert not np.array_equal(fout[:, 0], rounded.astype(np.float64))
    assert not np.array_equal(fout[:, 0], f32.astype(np.float64) * 0.1)
    assert fout[3, 1] == 1.0            # 1 + 1e-8 is 1 in float32
    assert iout[0, 0] == -128           # 127 + 1 in int8
    assert iout[0, 2] == 255            # 0 - 1 in uint8
    assert iout[1, 4] == -128


@pytest.mark.parametrize("body", [
    "a[i] + 1000", "min(a[i], 1000)", "a[i] // -3", "max(a[i], 7, 300)",
    "a[i] * -1"])
def test_a_literal_out_of_a_typed_ints_range_is_numpys_error(device_filter,
                                                             body):
    # NumPy 2: np.uint8(5) + 1000 raises OverflowError ("Python integer
    # 1000 out of bounds for uint8"); a kernel must not wrap it silently.
    namespace = {"spirjit": spirjit}
    exec(compile("@spirjit.kernel\ndef k(item, a, out):\n"
                 "    i = item.get_id(0)\n"
                 f"    out[i] = {body}\n", "literal_bounds.py", "exec"),
         namespace)
    a = np.array([0, 100, 255], dtype=np.uint8)
    value = body.split(", ")[-1].rstrip(")").split()[-1]
    with pytest.raises(spirjit.errors.TypingError,
                       match=rf"literal_bounds.py:4: Python integer "
                             rf"{value} out of bounds for uint8"):
        launch(namespace["k"], 3, a, np.zeros(3))

    @spirjit.jit
    def widened(x):
        return x + 1000

    with pytest.raises(spirjit.errors.TypingError,
                       match="Python integer 1000 out of bounds for int8"):
        widened(np.arange(3, dtype=np.int8))


@spirjit.kernel
def signed_against_uint64(item, u, s, out):
    i = item.get_id(0)
    out[i, 0] = u[i] > -1
    out[i, 1] = u[i] == -1
    out[i, 2] = s[i] < u[i]
    out[i, 3] = s[i] == u[i]
    out[i, 4] = u[i] >= s[i]
    out[i, 5] = u[i] != s[i]


def test_uint64_compares_with_signed_integers_by_value(device):
    # NumPy 2 compares uint64 with int64 and with a negative Python int by
    # value: 2**62 < 2**62 + 1 (a float64 common type rounds both to 2**62)
    # and u > -1 (a uint64 common type wraps -1 to 2**64 - 1).
    u = np.array([0, 5, 2**62 + 1, 2**64 - 1, 2**63], np.uint64)
    s = np.array([-1, 5, 2**62, -2**63, 2**63 - 1], np.int64)
    out = np.zeros((5, 6), bool)
    spirjit.call_kernel(signed_against_uint64, kapi.Range(5), u, s, out)
    want = np.stack([u > -1, u == -1, s < u, s == u, u >= s, u != s], 1)
    np.testing.assert_array_equal(out, want)
    U, S = spirjit.asarray(u, device=device), spirjit.asarray(s, device=device)
    np.testing.assert_array_equal(np.asarray(S < U), s < u)
    np.testing.assert_array_equal(np.asarray(U > -1), u > -1)

    @spirjit.jit
    def compare(u, s):
        return (u > -1).all(), (s < u).sum()

    assert compare(u, s) == (True, int((s < u).sum()))


# --------------------------------------------------------------------------
# Chained comparisons

@spirjit.kernel
def chained(item: kapi.Item, a, b, out):
    i = item.get_id(0)
    x = a[i]
    y = b[i]
    out[i, 0] = 0 < x <= 10
    out[i, 1] = x < y < 2 * x
    out[i, 2] = -5 <= x < y <= 20
    out[i, 3] = x == y == 3
    out[i, 4] = 1 if 0 <= x < 4 else 0
    out[i, 5] = x != y != 0
    n = 0
    while 0 <= n < x <= 100:
        n += 3
    out[i, 6] = n
    out[i, 7] = not (1 < x < 8) and y > 0
    out[i, 8] = 0.5 < x * 0.25 < y   # mixed int and float


def chained_reference(x, y):
    n = 0
    while 0 <= n < x <= 100:
        n += 3
    return [0 < x <= 10, x < y < 2 * x, -5 <= x < y <= 20, x == y == 3,
            1 if 0 <= x < 4 else 0, x != y != 0, n,
            (not (1 < x < 8)) and y > 0, 0.5 < x * 0.25 < y]


def test_chained_comparisons(device_filter):
    a = np.array([-6, -5, 0, 1, 3, 3, 4, 10, 11, 7, 50, 200],
                 dtype=np.int64)
    b = np.array([0, 3, 0, 2, 3, 5, 7, 15, 21, 0, 13, 1], dtype=np.int64)
    out = np.zeros((len(a), 9), dtype=np.int64)
    launch(chained, len(a), a, b, out)
    expected = [[int(v) for v in chained_reference(int(x), int(y))]
                for x, y in zip(a, b)]
    assert out.tolist() == expected


# --------------------------------------------------------------------------
# Tuples

@spirjit.kernel
def tuples(item: kapi.Item, a, m, out):
    i = item.get_id(0)
    x = a[i]
    # build and unpack
    p, q, r = x, x * 2, x - 1
    out[i, 0] = p * 100 + q * 10 + r
    # swap
    p, q = q, p
    out[i, 1] = p - q
    # rotate three
    p, q, r = q, r, p
    out[i, 2] = p * 100 + q * 10 + r
    # constant and negative constant indices
    t = (x, x + 1.5, x * 3)
    out[i, 3] = t[0] + t[1] + t[2] * 10
    out[i, 4] = t[-1] - t[-3]
    out[i, 5] = len(t)
    # a tuple as a multi-dimensional index
    rows, cols = m.shape
    j = i % cols
    k = i % rows
    idx = (k, j)
    out[i, 6] = m[idx]
    out[i, 7] = m[(rows - 1 - k, j)]
    out[i, 8] = rows * 10 + cols
    # nested tuples and unpacking them
    nested = ((x, 1), (2, x * x))
    (u, v), (s, w) = nested
    out[i, 9] = u + v * 10 + s * 100 + w * 1000
    out[i, 10] = nested[1][1] - nested[0][0]
    # a tuple of mixed int and float elements keeps each type
    mixed = (x // 2, x / 2)
    out[i, 11] = mixed[0] * 10 + mixed[1]
    # swap inside a loop: Fibonacci
    f0, f1 = 0, 1
    for _ in range(x % 15):
        f0, f1 = f1, f0 + f1
    out[i, 12] = f0
    # m.shape indexed directly and negatively
    out[i, 13] = m.shape[0] * 1000 + m.shape[-1] + m.ndim * 100000


def tuples_reference(i, x, m):
    rows, cols = m.shape
    p, q, r = x, x * 2, x - 1
    c0 = p * 100 + q * 10 + r
    p, q = q, p
    c1 = p - q
    p, q, r = q, r, p
    c2 = p * 100 + q * 10 + r
    t = (x, x + 1.5, x * 3)
    j, k = i % cols, i % rows
    f0, f1 = 0, 1
    for _ in range(x % 15):
        f0, f1 = f1, f0 + f1
    return [c0, c1, c2, t[0] + t[1] + t[2] * 10, t[-1] - t[-3], 3,
            m[k, j], m[rows - 1 - k, j], rows * 10 + cols,
            x + 10 + 200 + x * x * 1000, x * x - x, (x // 2) * 10 + x / 2,
            f0, rows * 1000 + cols + 200000]


def test_tuples(device_filter, require_dtypes):
    require_dtypes(np.float64)
    a = np.arange(-4, 16, dtype=np.int64)
    m = np.arange(15, dtype=np.float64).reshape(3, 5) * 1.5 - 4
    out = np.zeros((len(a), 14))
    launch(tuples, len(a), a, m, out)
    expected = np.array([tuples_reference(i, int(x), m)
                         for i, x in enumerate(a)])
    for column in range(14):
        np.testing.assert_array_equal(out[:, column], expected[:, column],
                                      err_msg=f"column {column}")


def test_tuple_index_on_3d_and_fortran_arrays(device_filter):
    @spirjit.kernel
    def index3(item, c3, f2, out):
        i = item.get_id(0)
        d0, d1, d2 = c3.shape
        where = (i % d0, (i // d0) % d1, i % d2)
        out[i, 0] = c3[where]
        n0, n1 = f2.shape
        out[i, 1] = f2[(i % n0, i % n1)]
        out[i, 2] = f2[i % n0, -1]

    c3 = np.arange(24, dtype=np.int64).reshape(2, 3, 4)
    f2 = np.asfortranarray(np.arange(12, dtype=np.int64).reshape(3, 4)) * 7
    n = 10
    out = np.zeros((n, 3), dtype=np.int64)
    launch(index3, n, c3, f2, out)
    expected = [[c3[i % 2, (i // 2) % 3, i % 4], f2[i % 3, i % 4],
                 f2[i % 3, -1]] for i in range(n)]
    assert out.tolist() == expected


# --------------------------------------------------------------------------
# A variable whose type differs between branches: NumPy promotion

@spirjit.kernel
def branch_types(item: kapi.Item, i8, u8, i32, f32, i64, out):
    i = item.get_id(0)
    # int on one path, float on the other
    if i % 2 == 0:
        v = i * 3
    else:
        v = i * 0.5
    out[i, 0] = v * 2
    # int8 or uint8 -> int16: 200 * 200 wraps in int16
    if i % 3 == 0:
        w = i8[i]
    else:
        w = u8[i]
    out[i, 1] = w * 200
    # int32 or float32 -> float64: 16777217 survives
    if i % 2 == 1:
        z = i32[i]
    else:
        z = f32[i]
    out[i, 2] = z + 0
    # float32 kept on both paths stays float32
    y = f32[i] * 0.1 if i > 2 else f32[i] + 0.2
    out[i, 3] = y
    # an int64 variable that becomes a float in a loop
    s = i64[i]
    for k in range(3):
        if k == 1:
            s = s / 4
    out[i, 4] = s
    # conditional expression mixing int32 and float32
    out[i, 5] = i32[i] if i % 4 == 0 else f32[i]


def branch_types_reference(i, i8, u8, i32, f32, i64):
    v = i * 3 if i % 2 == 0 else i * 0.5
    with np.errstate(over="ignore"):
        w = i8[i].astype(np.int16) if i % 3 == 0 else u8[i].astype(np.int16)
        w200 = np.array([w], dtype=np.int16) * 200
    z = np.float64(i32[i]) if i % 2 == 1 else np.float64(f32[i])
    y = f32[i] * 0.1 if i > 2 else f32[i] + 0.2
    assert y.dtype == np.float32
    return [v * 2, int(w200[0]), z, float(y), i64[i] / 4,
            np.float64(i32[i]) if i % 4 == 0 else np.float64(f32[i])]


def test_variable_type_changes_across_branches(device_filter,
                                               require_dtypes):
    require_dtypes(np.float64)
    n = 12
    i8 = np.array([-100, 5, 127, -128, 0, 1, 100, 2, 3, -1, 9, 10],
                  dtype=np.int8)
    u8 = np.full(n, 200, dtype=np.uint8)
    i32 = np.array([16777217] * n, dtype=np.int32)
    f32 = np.linspace(-3, 3, n).astype(np.float32) + np.float32(0.1)
    i64 = np.arange(n, dtype=np.int64) * 3 + 1
    out = np.zeros((n, 6))
    launch(branch_types, n, i8, u8, i32, f32, i64, out)
    expected = np.array([branch_types_reference(i, i8, u8, i32, f32, i64)
                         for i in range(n)], dtype=np.float64)
    for column in range(6):
        np.testing.assert_array_equal(out[:, column], expected[:, column],
                                      err_msg=f"column {column}")
    assert out[1, 1] == np.int16(-25536)      # 200 * 200 wraps in int16
    assert out[1, 2] == 16777217.0            # float64, not float32
    assert out[0, 5] == 16777217.0


# --------------------------------------------------------------------------
# Module-level constants and closure variables, frozen at the first compile

G_FLOAT = 0.5
G_F32 = np.float32(0.1)
G_COMPLEX = 2 - 1j
G_BOOL = True


@spirjit.device_func
def reads_globals(x):
    return x * G_FLOAT + (1 if G_BOOL else -1)


def using_globals(item, a, out, cout):
    i = item.get_id(0)
    out[i, 0] = a[i] * G_FLOAT
    out[i, 1] = a[i] * G_F32
    out[i, 2] = reads_globals(a[i])       # through a device function
    out[i, 3] = 1 if G_BOOL else 0
    cout[i] = a[i] * G_COMPLEX


def test_globals_frozen_at_first_compile(device_filter, monkeypatch,
                                         require_dtypes):
    require_dtypes(np.float64, np.complex128)
    a = np.array([0.1, 1.5, -3.0], dtype=np.float64)
    out = np.zeros((3, 4))
    cout = np.zeros(3, dtype=np.complex128)

    def expected(g_float, g_f32, g_bool, g_complex):
        return (np.stack([a * g_float, a * g_f32,
                          a * g_float + (1 if g_bool else -1),
                          np.full(3, 1.0 if g_bool else 0.0)], axis=1),
                a * g_complex)

    first = spirjit.kernel(using_globals)
    launch(first, 3, a, out, cout)
    e_out, e_cout = expected(0.5, np.float32(0.1), True, 2 - 1j)
    np.testing.assert_array_equal(out, e_out)
    np.testing.assert_array_equal(cout, e_cout)

    monkeypatch.setattr(THIS_MODULE, "G_FLOAT", -4.0)
    monkeypatch.setattr(THIS_MODULE, "G_F32", np.float32(3.3))
    monkeypatch.setattr(THIS_MODULE, "G_COMPLEX", 0.5j)
    monkeypatch.setattr(THIS_MODULE, "G_BOOL", False)
    # the compiled kernel keeps the old values
    launch(first, 3, a, out, cout)
    np.testing.assert_array_equal(out, e_out)
    np.testing.assert_array_equal(cout, e_cout)
    # a new kernel object compiled after the change sees the new ones,
    # also inside the device function
    fresh = spirjit.kernel(using_globals)
    launch(fresh, 3, a, out, cout)
    e_out, e_cout = expected(-4.0, np.float32(3.3), False, 0.5j)
    np.testing.assert_array_equal(out, e_out)
    np.testing.assert_array_equal(cout, e_cout)
    # and the old one still has the old values
    launch(first, 3, a, out, cout)
    np.testing.assert_array_equal(out[:, 0], a * 0.5)


def test_closure_variables_frozen_at_first_compile(device_filter):
    factor = 3

    def body(item, a, out):
        i = item.get_id(0)
        out[i] = a[i] * factor + offset

    offset = 10
    first = spirjit.kernel(body)
    a = np.arange(5, dtype=np.int64)
    out = np.zeros(5, dtype=np.int64)
    launch(first, 5, a, out)
    np.testing.assert_array_equal(out, a * 3 + 10)

    factor = -2   # the closure cell changes
    offset = 1
    launch(first, 5, a, out)
    np.testing.assert_array_equal(out, a * 3 + 10)
    # a second specialisation of the frozen kernel: still the old values
    a32 = a.astype(np.int32)
    out32 = np.zeros(5, dtype=np.int32)
    launch(first, 5, a32, out32)
    np.testing.assert_array_equal(out32, a32 * 3 + 10)
    fresh = spirjit.kernel(body)
    launch(fresh, 5, a, out)
    np.testing.assert_array_equal(out, a * factor + offset)
    assert (factor, offset) == (-2, 1)


# --------------------------------------------------------------------------
# Loops

@spirjit.kernel
def loops(item: kapi.Item, a, steps, out):
    i = item.get_id(0)
    n = a[i]
    step = steps[i]
    # nested loops with break and continue at both levels
    t = 0
    for x in range(n):
        if x % 3 == 1:
            continue
        for y in range(x, 2 * n):
            if (x + y) % 4 == 0:
                continue
            if y > x + 3:
                break
            t = t * 3 + x - y
            t = t % 1000003
        if t > 500000:
            break
    out[i, 0] = t
    # negative constant steps
    s = 0
    for k in range(n, -n, -3):
        s = s * 2 + k
    out[i, 1] = s
    s = 0
    for k in range(-1, -n - 1, -1):
        s += k * k
    out[i, 2] = s
    # a step only known at run time, positive or negative
    s = 0
    for k in range(n, -n, step):
        s = s * 3 + k
        s = s % 1000003
    out[i, 3] = s
    # while with continue in a nested loop
    c = 0
    j = 0
    while j < n:
        j += 1
        if j % 2 == 0:
            continue
        m = 0
        while m < j:
            m += 1
            if m == 3:
                continue
            c += m
    out[i, 4] = c
    # for inside while, break out of the for, continue the while
    total = 0
    r = n
    while r > 0:
        r -= 2
        if r % 5 == 0:
            continue
        for k in range(10):
            if k > r:
                break
            total += k
    out[i, 5] = total
    # a variable first assigned inside a loop (in a branch) read after
    for k in range(1, n + 1):
        if k % 2 == 1:
            last_odd = k * 10
    out[i, 6] = last_odd if n > 0 else -1
    # the loop variable after break / after the loop
    for k in range(100):
        if k * k >= n:
            break
    out[i, 7] = k


def loops_reference(n, step):
    t = 0
    for x in range(n):
        if x % 3 == 1:
            continue
        for y in range(x, 2 * n):
            if (x + y) % 4 == 0:
                continue
            if y > x + 3:
                break
            t = t * 3 + x - y
            t = t % 1000003
        if t > 500000:
            break
    s1 = 0
    for k in range(n, -n, -3):
        s1 = s1 * 2 + k
    s2 = sum(k * k for k in range(-1, -n - 1, -1))
    s3 = 0
    for k in range(n, -n, step):
        s3 = s3 * 3 + k
        s3 = s3 % 1000003
    c = j = 0
    while j < n:
        j += 1
        if j % 2 == 0:
            continue
        m = 0
        while m < j:
            m += 1
            if m == 3:
                continue
            c += m
    total, r = 0, n
    while r > 0:
        r -= 2
        if r % 5 == 0:
            continue
        for k in range(10):
            if k > r:
                break
            total += k
    last_odd = -1
    for k in range(1, n + 1):
        if k % 2 == 1:
            last_odd = k * 10
    for k in range(100):
        if k * k >= n:
            break
    return [t, s1, s2, s3, c, total, last_odd, k]


def test_loops(device_filter):
    a = np.arange(1, 19, dtype=np.int64)
    steps = np.array([-1, -2, -3, -5, -7, 1, 2, 3, -1, -4, -2, 5, -3, -6, 4,
                      -1, -9, 7], dtype=np.int64)
    out = np.zeros((len(a), 8), dtype=np.int64)
    launch(loops, len(a), a, steps, out)
    expected = [loops_reference(int(n), int(s)) for n, s in zip(a, steps)]
    assert out.tolist() == expected


def test_while_continue_with_float_state(device_filter, require_dtypes):
    require_dtypes(np.float64)

    @spirjit.kernel
    def newton(item, a, out):
        # while with continue whose state is a float: sqrt by Newton's
        # method, skipping odd iterations' bookkeeping
        i = item.get_id(0)
        x = a[i]
        g = x if x > 1 else 1.0
        it = 0
        odd = 0
        while it < 60:
            it += 1
            g = 0.5 * (g + x / g)
            if it % 2 == 0:
                continue
            odd += 1
        out[i, 0] = g
        out[i, 1] = odd

    a = np.array([0.25, 1.0, 2.0, 10.0, 12345.0])
    out = np.zeros((5, 2))
    launch(newton, 5, a, out)
    np.testing.assert_allclose(out[:, 0], np.sqrt(a), rtol=1e-15)
    np.testing.assert_array_equal(out[:, 1], 30)


# --------------------------------------------------------------------------
# fastmath and optimisation levels

def numeric_body(item, a, b, out):
    i = item.get_id(0)
    x = a[i]
    y = b[i]
    s = 0.0
    for k in range(1, 20):
        s += x / k + y * k * 0.001
    out[i, 0] = s
    out[i, 1] = math.sqrt(x * x + y * y)
    out[i, 2] = math.exp(-x * 0.1) * math.sin(y) + math.log1p(x)
    out[i, 3] = (x + y) * (x - y) / (1.0 + x * x)
    out[i, 4] = x / y if y != 0 else 0.0
    out[i, 5] = max(x, y) - min(x, y) + abs(x - y)


numeric_device = spirjit.device_func(numeric_body)


def numeric_reference(a, b):
    rows = []
    for x, y in zip(a.tolist(), b.tolist()):
        s = 0.0
        for k in range(1, 20):
            s += x / k + y * k * 0.001
        rows.append([s, math.sqrt(x * x + y * y),
                     math.exp(-x * 0.1) * math.sin(y) + math.log1p(x),
                     (x + y) * (x - y) / (1.0 + x * x),
                     x / y if y != 0 else 0.0,
                     max(x, y) - min(x, y) + abs(x - y)])
    return np.array(rows)


NUMERIC_A = np.array([0.0, 0.5, 1.0, 2.5, 10.0, 123.25, 7.0, 3.3])
NUMERIC_B = np.array([1.0, -0.5, 0.0, 3.0, -2.0, 0.125, 7.0, -9.9])


def test_fastmath_gives_close_results(device_filter, require_dtypes):
    require_dtypes(np.float64)
    fast = spirjit.kernel(numeric_body, fastmath=True)
    out = np.zeros((len(NUMERIC_A), 6))
    launch(fast, len(NUMERIC_A), NUMERIC_A, NUMERIC_B, out)
    np.testing.assert_allclose(out, numeric_reference(NUMERIC_A, NUMERIC_B),
                               rtol=1e-6, atol=1e-9)
    # float32 too
    a32, b32 = NUMERIC_A.astype(np.float32), NUMERIC_B.astype(np.float32)
    out32 = np.zeros((len(a32), 6), dtype=np.float32)
    launch(fast, len(a32), a32, b32, out32)
    np.testing.assert_allclose(out32, numeric_reference(a32, b32),
                               rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("opt", [0, 1, 3])
def test_opt_levels_give_the_same_results(device_filter, require_dtypes,
                                          opt):
    require_dtypes(np.float64)

    def with_everything(item, a, b, n, out):
        i = item.get_id(0)
        numeric_device(item, a, b, out)
        # integer loops, chained comparisons, tuples, a device function
        t = 0
        for k in range(n[i], -3, -2):
            if 0 < k <= 4:
                continue
            t = t * 2 + k
        p, q = n[i], t
        p, q = q, p
        out[i, 6] = p * 100 + q
        out[i, 7] = reads_globals(n[i]) + math.floor(a[i])

    n = np.arange(len(NUMERIC_A), dtype=np.int64) + 3
    results = {}
    for level in (2, opt):
        kernel = spirjit.kernel(with_everything, opt=level)
        out = np.zeros((len(NUMERIC_A), 8))
        launch(kernel, len(NUMERIC_A), NUMERIC_A, NUMERIC_B, n, out)
        results[level] = out
    np.testing.assert_array_equal(results[opt], results[2])
    np.testing.assert_allclose(results[2][:, :6],
                               numeric_reference(NUMERIC_A, NUMERIC_B),
                               rtol=1e-13, atol=1e-15)
