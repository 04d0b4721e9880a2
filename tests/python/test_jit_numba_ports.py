"""Forms of numba `@njit(parallel=True)` programs in jit functions (issue
29), compared with what CPython and NumPy give: print() in host code,
reductions of views made in loops, returned argument arrays, and array
expressions in prange bodies."""

import numpy as np
import pytest

import spirjit
from spirjit import prange
from source_markers import marked_line


@spirjit.jit
def report(a, n):
    print("rows", a.shape[0], "scale", 0.1, n > 2, 1.5 + 2j, -3)
    print(2.0, 1e-05, np.float32(0.1), a.shape, (n, 2.5), sep=", ",
          end="!\n")
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i]
    print("sum", s)
    return s


@spirjit.jit
def print_array(a):
    print(a)  # <- print-array
    return a[0]


def test_print_in_host_code_prints_as_python(device_filter, capsys):
    a = np.arange(4.0)
    print("before")
    assert report(a, 3) == 6.0
    print("after")
    expected = ("before\n"
                "rows 4 scale 0.1 True (1.5+2j) -3\n"
                "2.0, 1e-05, 0.1, (4,), (3, 2.5)!\n"
                "sum 6.0\n"
                "after\n")
    assert capsys.readouterr().out == expected


def test_print_in_host_code_goes_to_the_process_stdout_in_order(
        device_filter, run_isolated):
    done = run_isolated("""
        import numpy as np, spirjit
        @spirjit.jit
        def f(a):
            print("inside", a.shape[0])
            return a
        print("before")
        f(np.zeros(3))
        print("after")
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "before\ninside 3\nafter\n"


def test_print_of_an_array_in_host_code_is_a_typing_error(device_filter):
    line = marked_line(__file__, "print-array")
    with pytest.raises(spirjit.errors.TypingError,
                       match=rf"test_jit_numba_ports.py:{line}: print\(\) in "
                             r"a jit function prints numbers, tuples of "
                             r"numbers and string literals, not .*print "
                             r"its elements"):
        print_array(np.zeros(3))


@spirjit.jit
def set_first(a):
    a[0] = 1
    return a


@spirjit.jit
def swapped(u, v, iterations):
    for it in range(iterations):
        for i in prange(u.shape[0]):
            v[i] = u[i] + 1.0
        u, v = v, u
    return u, v


@spirjit.jit
def tail(a):
    return a[1:]


@pytest.mark.parametrize("where", ["numpy", "device"])
def test_a_returned_argument_is_the_callers_object(device_filter, where):
    make = np.zeros if where == "numpy" else spirjit.zeros
    x = make(4)
    if where == "device" and x.device.backend == "cuda":
        pytest.skip("set_first writes an element in host code")
    r = set_first(x)
    assert r is x
    assert np.asarray(r if where == "numpy" else r.asnumpy()).tolist() == \
        [1.0, 0.0, 0.0, 0.0]
    u, v = make(3), make(3)
    first, second = swapped(u, v, 3)
    assert first is v and second is u
    assert np.asarray(first if where == "numpy" else first.asnumpy()
                      ).tolist() == [3.0, 3.0, 3.0]
    t = tail(x)
    assert t is not x
    assert np.asarray(t if where == "numpy" else t.asnumpy()).tolist() == \
        [0.0, 0.0, 0.0]


def test_a_returned_argument_of_another_layout_is_itself(device_filter):
    m = np.arange(12.0).reshape(3, 4)
    view = m[:, ::2]
    assert set_first(view) is view
    assert m[0].tolist() == [1.0, 1.0, 1.0, 3.0]


@spirjit.jit
def doubled_rows(a, b):
    for i in prange(a.shape[0]):
        b[i, :] = a[i, :] * 2.0
    return b


@spirjit.jit
def shifted_rows(a, b):
    for i in prange(a.shape[0]):
        row = a[i] + 1.0
        b[i] = row
        b[i, 1:] += a[i, :-1]
    return b


@spirjit.jit
def filled_rows(b):
    for i in prange(b.shape[0]):
        b[i, :] = 7.0
    return b


@spirjit.jit
def row_sums(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i].sum()
    return s


@spirjit.jit
def row_used_twice(a, b, c):
    for i in prange(a.shape[0]):
        row = a[i] + 1.0  # <- row-twice
        b[i] = row
        c[i] = row * 2.0
    return b


@spirjit.jit(debug=True)
def doubled_rows_checked(a, b):
    for i in prange(a.shape[0]):
        b[i, :] = a[i, :] * 2.0  # <- rows-checked
    return b


def test_array_statements_in_a_prange_body(device_filter):
    a = np.arange(20.0).reshape(4, 5)
    assert doubled_rows(a, np.zeros((4, 5))).tolist() == (a * 2.0).tolist()
    expected = a + 1.0
    expected[:, 1:] += a[:, :-1]
    assert shifted_rows(a, np.zeros((4, 5))).tolist() == expected.tolist()
    assert filled_rows(np.zeros((3, 4))).tolist() == np.full((3, 4), 7.0
                                                             ).tolist()
    assert row_sums(a) == a.sum()
    out = spirjit.zeros((4, 5))
    assert doubled_rows(spirjit.asarray(a), out) is out
    assert out.asnumpy().tolist() == (a * 2.0).tolist()


def test_a_prange_array_expression_needing_storage_is_refused(device_filter):
    line = marked_line(__file__, "row-twice")
    a = np.ones((3, 4))
    with pytest.raises(spirjit.errors.UnsupportedFeatureError,
                       match=rf"test_jit_numba_ports.py:{line}: this array "
                             r"expression in a prange loop needs an array of "
                             r"its own .* inner `for j in range\(\.\.\.\)` "
                             r"loop"):
        row_used_twice(a, np.zeros((3, 4)), np.zeros((3, 4)))


def test_a_prange_body_shape_mismatch_is_reported_in_debug_mode(
        device_filter):
    line = marked_line(__file__, "rows-checked")
    with pytest.raises(AssertionError,
                       match=rf"test_jit_numba_ports.py:{line}: could "
                             r"not broadcast input array into the target: "
                             r"the extents differ"):
        doubled_rows_checked(np.ones((3, 5)), np.zeros((3, 4)))


@spirjit.jit
def row_max(a):
    m = 0.0
    for k in range(a.shape[0]):
        v = a[k, :]
        m = max(m, np.max(v))
    return m


@spirjit.jit
def row_spread(a):
    m = 0.0
    for k in range(a.shape[0]):
        v = a[k]
        m = max(m, v.max() - np.min(v))
    return m


@spirjit.jit
def window_max(a):
    m = 0.0
    for k in range(a.shape[0] - 1):
        m = max(m, np.max(a[k:k + 2]))
    return m


@spirjit.jit
def row_max_parallel(a):
    m = 0.0
    for k in prange(a.shape[0]):
        v = a[k, :]
        m = max(m, np.max(v))
    return m


@spirjit.jit
def window_max_parallel(a):
    m = 0.0
    for k in prange(a.shape[0] - 1):
        m = max(m, np.max(a[k:k + 2]))
    return m


@spirjit.jit
def row_extremes(a, out):
    for k in prange(a.shape[0]):
        out[k] = np.max(a[k]) + a[k].min()
    return out


@pytest.mark.parametrize("shape", [(5, 6), (7,), (7, 3)])
def test_reductions_of_views_made_in_loops(device_filter, shape):
    rng = np.random.default_rng(29)
    a = rng.random(shape)
    windows = max(a[k:k + 2].max() for k in range(a.shape[0] - 1))
    assert window_max(a) == windows
    assert window_max_parallel(a) == windows
    if a.ndim == 1:
        return
    assert row_max(a) == a.max()
    assert row_max_parallel(a) == a.max()
    assert row_spread(a) == max(r.max() - r.min() for r in a)
    assert row_extremes(a, np.zeros(a.shape[0])).tolist() == \
        (a.max(axis=1) + a.min(axis=1)).tolist()


def test_print_of_tuples_in_a_kernel(device_filter, run_isolated):
    done = run_isolated("""
        import numpy as np, spirjit
        from spirjit import kernel_api as kapi
        @spirjit.kernel
        def k(item: kapi.Item, a):
            i = item.get_id(0)
            print("t", a.shape, (i, a[i]))
        spirjit.call_kernel(k, kapi.Range(2), np.array([1.5, 2.0]))
    """)
    assert done.returncode == 0, done.stderr
    assert sorted(done.stdout.splitlines()) == ["t (2,) (0, 1.5)",
                                                 "t (2,) (1, 2.0)"]


def test_python_defaults_fill_the_missing_arguments(device_filter):
    # numba's: f(a) of def f(a, scale=2.0) takes the default, from Python
    # and from jit code; keywords too.
    @spirjit.jit
    def scaled(a, scale=2.0, shift=0.0):
        return a * scale + shift

    @spirjit.jit
    def calls(a):
        return scaled(a) + scaled(a, 3.0) + scaled(a, shift=1.0)

    a = np.ones(3)
    np.testing.assert_array_equal(scaled(a), np.full(3, 2.0))
    np.testing.assert_array_equal(scaled(a, 3.0), np.full(3, 3.0))
    np.testing.assert_array_equal(scaled(a, shift=1.0), np.full(3, 3.0))
    np.testing.assert_array_equal(calls(a), np.full(3, 8.0))
    with pytest.raises(spirjit.errors.TypingError,
                       match="missing a required argument: 'a'"):
        scaled()


# Module-level tuples of numbers are frozen as numba freezes them: a table
# of coefficients read by index, in a loop, by len, in kernels and jit code.
COEFFS = (1.0, 2.0, 3.0)
PAIRS = ((1, 2), (3, 4))
MIXED = (np.float32(0.5), 2)


@spirjit.jit
def horner(x):
    s = np.zeros_like(x)
    for c in COEFFS:
        s = s * x + c
    return s, len(COEFFS), PAIRS[1][0] + MIXED[1]


@spirjit.kernel
def table_lookup(item, a):
    i = item.get_id(0)
    a[i] = COEFFS[i % 3] + PAIRS[1][0] + MIXED[0]


def test_global_and_closure_tuples_of_numbers_are_frozen(device_filter):
    x = np.arange(4.0)
    s, n, k = horner(x)
    np.testing.assert_array_equal(s, (x * 1.0 + 2.0) * x + 3.0)
    assert (n, k) == (3, 5)
    a = np.zeros(4)
    spirjit.call_kernel(table_lookup, spirjit.Range(4), a)
    assert a.tolist() == [4.5, 5.5, 6.5, 4.5]

    def make(scale):
        pair = (scale, 2 * scale)

        @spirjit.jit
        def affine(v):
            return v * pair[0] + pair[1]
        return affine
    assert make(3.0)(np.ones(2)).tolist() == [9.0, 9.0]
    assert make(5.0)(np.ones(2)).tolist() == [15.0, 15.0]


@spirjit.device_func
def scale_by(x, factor=2.0, shift=0.0):
    return x * factor + shift


@spirjit.kernel
def defaults_and_keywords(item, a, out):
    i = item.get_id(0)
    out[i, 0] = scale_by(a[i])
    out[i, 1] = scale_by(a[i], 3.0)
    out[i, 2] = scale_by(a[i], shift=1.0)
    out[i, 3] = scale_by(factor=4.0, x=a[i])


@spirjit.jit
def device_defaults_from_jit(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += scale_by(a[i], shift=0.5)
    return s


def test_device_functions_take_defaults_and_keywords(device_filter):
    # numba's @njit callees take them; so do device functions here, in
    # kernels and jit code alike.
    a = np.arange(4.0)
    out = np.zeros((4, 4))
    spirjit.call_kernel(defaults_and_keywords, spirjit.Range(4), a, out)
    np.testing.assert_array_equal(out, np.stack(
        [a * 2, a * 3, a * 2 + 1, a * 4], axis=1))
    assert device_defaults_from_jit(a) == (a * 2 + 0.5).sum()


def test_a_missing_device_function_argument_names_the_call(device_filter):
    @spirjit.device_func
    def two(x, y):
        return x + y

    @spirjit.kernel
    def calls_with_one(item, a):
        i = item.get_id(0)
        a[i] = two(a[i])  # <- one-argument

    with pytest.raises(spirjit.errors.TypingError,
                       match=rf":{marked_line(__file__, 'one-argument')}: "
                             r"'two' takes 2 arguments but was given 1"):
        spirjit.call_kernel(calls_with_one, spirjit.Range(2), np.zeros(2))


def test_a_max_reduction_takes_the_accumulator_either_side(device_filter):
    @spirjit.jit
    def extremes(a):
        hi = -1e300
        lo = 1e300
        total = 0.0
        for i in prange(a.shape[0]):
            hi = max(a[i], hi)
            lo = min(lo, a[i])
            total = a[i] + total
        return hi, lo, total

    a = np.array([3.0, 9.0, -2.0, 4.0])
    assert extremes(a) == (9.0, -2.0, 14.0)


def test_a_failed_assert_in_debug_host_code_raises(device_filter):
    # (Built from text: pytest rewrites the asserts of test modules.)
    namespace = {"spirjit": spirjit}
    exec(compile("@spirjit.jit(debug=True)\n"
                 "def checked(n):\n"
                 "    assert n > 0, 'n must be positive'\n"
                 "    return n * 2\n", "host_assert.py", "exec"), namespace)
    checked = namespace["checked"]
    assert checked(3) == 6
    with pytest.raises(AssertionError,
                       match=r"host_assert.py:3: n must be positive"):
        checked(-1)


def test_a_reduction_started_in_a_pruned_branch_before_another_loop(
        device_filter):
    # The sum's starting value is a phi of a branch known at compile time;
    # outlining the second loop had erased it (an internal error).
    @spirjit.jit
    def two_loops(a):
        if a.dtype == np.float64:
            s = 1.0
        else:
            s = 0
        for i in prange(a.shape[0]):
            s += a[i]
        b = np.empty_like(a)
        for i in prange(a.shape[0]):
            b[i] = a[i] * 2
        return s, b

    s, b = two_loops(np.arange(4.0))
    assert s == 7.0 and b.tolist() == [0.0, 2.0, 4.0, 6.0]


# Global and closure NumPy arrays are frozen as numba freezes them: a
# constant of the compiled code, read in kernels, prange loops and host
# code, read-only there.
LOOKUP = np.array([0, 1, 1, 2, 1, 2, 2, 3])
WEIGHTS = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)
BIG = np.zeros(20000)


@spirjit.jit
def popcount3(a):
    out = np.empty_like(a)
    for i in prange(a.shape[0]):
        out[i] = LOOKUP[a[i] & 7]
    return out


@spirjit.jit
def lookup_in_host_code(a):
    s = 0
    for k in range(LOOKUP.shape[0]):
        s += LOOKUP[k]
    return s, LOOKUP.sum(), (a + LOOKUP).sum(), WEIGHTS.T @ WEIGHTS


@spirjit.kernel
def weighted_lookup(item, out):
    i = item.get_id(0)
    out[i] = WEIGHTS[i % 2, i // 2 % 2] + LOOKUP[i % 8]


def test_global_and_closure_arrays_are_frozen(device):
    a = np.arange(8)
    got = popcount3(spirjit.asarray(a, device=device))
    assert isinstance(got, spirjit.DeviceArray)
    assert got.asnumpy().tolist() == [0, 1, 1, 2, 1, 2, 2, 3]
    s, total, shifted, gram = lookup_in_host_code(a)
    assert (s, total, shifted) == (12, 12, 40)
    np.testing.assert_array_equal(gram, WEIGHTS.T @ WEIGHTS)
    out = spirjit.zeros(8, device=device)
    spirjit.call_kernel(weighted_lookup, spirjit.Range(8), out)
    assert out.asnumpy().tolist() == [1.0, 4.0, 3.0, 6.0, 2.0, 5.0, 4.0, 7.0]

    def make(taps):
        @spirjit.jit
        def smooth(x):
            out = np.zeros_like(x)
            for i in prange(1, x.shape[0] - 1):
                out[i] = taps[0] * x[i - 1] + taps[1] * x[i] + \
                    taps[2] * x[i + 1]
            return out
        return smooth

    x = spirjit.asarray(np.arange(5.0), device=device)
    assert make(np.array([0.25, 0.5, 0.25]))(x).asnumpy().tolist() == \
        [0.0, 1.0, 2.0, 3.0, 0.0]
    # Another closure's values are another constant (the cache keys on them).
    assert make(np.array([0.0, 1.0, 0.0]))(x).asnumpy().tolist() == \
        [0.0, 1.0, 2.0, 3.0, 0.0]
    assert make(np.array([1.0, 0.0, 0.0]))(x).asnumpy().tolist() == \
        [0.0, 0.0, 1.0, 2.0, 0.0]


def test_frozen_arrays_are_read_only_and_bounded(device_filter):
    @spirjit.jit
    def writes(a):
        LOOKUP[0] = 5  # <- frozen-write
        return a

    with pytest.raises(spirjit.errors.TypingError,
                       match=rf":{marked_line(__file__, 'frozen-write')}: "
                             r"'LOOKUP' is a global array, frozen into the "
                             r"compiled code as numba freezes it: it is "
                             r"read-only there"):
        writes(np.zeros(2))

    @spirjit.jit
    def too_big(a):
        return BIG[0] + a  # <- too-big

    with pytest.raises(spirjit.errors.UnsupportedFeatureError,
                       match=rf":{marked_line(__file__, 'too-big')}: "
                             r"global 'BIG' is an array that compiled code "
                             r"cannot freeze"):
        too_big(1.0)


@spirjit.jit
def scaled_by_keyword(a, *, scale=2.0, shift=1):
    return a * scale + shift


@spirjit.jit
def calls_with_a_keyword_only_argument(a):
    return scaled_by_keyword(a, shift=10)


@spirjit.device_func
def times(x, *, k=3):
    return x * k


@spirjit.kernel
def keyword_only_device_calls(item, a):
    i = item.get_id(0)
    a[i] = times(a[i]) + times(a[i], k=1)


def test_keyword_only_parameters_take_their_arguments_and_defaults(
        device_filter):
    # def f(a, *, scale=2.0): the parameter had been taken for a local
    # that "may be used before it is assigned".
    a = np.ones(3)
    np.testing.assert_array_equal(scaled_by_keyword(a), [3.0] * 3)
    np.testing.assert_array_equal(scaled_by_keyword(a, scale=3.0, shift=0),
                                  [3.0] * 3)
    np.testing.assert_array_equal(calls_with_a_keyword_only_argument(a),
                                  [12.0] * 3)
    out = np.ones(3)
    spirjit.call_kernel(keyword_only_device_calls, spirjit.Range(3), out)
    np.testing.assert_array_equal(out, [4.0] * 3)
    with pytest.raises(spirjit.errors.TypingError,
                       match="scaled_by_keyword"):
        scaled_by_keyword(a, 2.0)


def test_numbas_decorator_options_are_taken(device_filter):
    # @njit(parallel=True, cache=True) as numba users write it: spirjit's
    # prange always runs in parallel and its code is always cached.
    @spirjit.njit(parallel=True, cache=True, nogil=True, fastmath=False)
    def total(a):
        s = 0.0
        for i in prange(a.shape[0]):
            s += a[i]
        return s

    assert total(np.arange(10.0)) == 45.0
    with pytest.raises(spirjit.errors.UnsupportedFeatureError,
                       match="no object mode"):
        spirjit.jit(nopython=False)
    with pytest.raises(spirjit.errors.TypingError, match="takes no signature"):
        spirjit.jit("float64(float64[:])")
