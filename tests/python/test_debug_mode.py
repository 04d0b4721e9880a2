"""The debug mode (API.md "Debugging kernels", issue 13 item 7): bounds
checks, integer division by zero and asserts raise after the launch, from
the launching call, with the user's file:line; `print` prints from the
device as Python would. On every device.

PYTEST_DONT_REWRITE: pytest would rewrite the kernels' asserts into raises
of its own, which kernels cannot compile."""

import re

import numpy as np
import pytest

import spirjit
from spirjit import kernel_api as kapi


def line_of(function, marker):
    """The line of `function`'s source that carries `# <- marker`."""
    import inspect
    lines, first = inspect.getsourcelines(function)
    for offset, text in enumerate(lines):
        if f"# <- {marker}" in text:
            return first + offset
    raise AssertionError(f"no marker {marker}")


# --------------------------------------------------------------------------
# boundscheck


def shifted_body(item: kapi.Item, a, b):
    i = item.get_id(0)
    b[i] = a[i + 1]  # <- shifted


def test_boundscheck_names_parameter_index_extent_and_line(device_filter):
    kernel = spirjit.kernel(shifted_body, boundscheck=True)
    a = np.arange(10, dtype=np.float32)
    b = np.zeros_like(a)
    with pytest.raises(IndexError) as e:
        spirjit.call_kernel(kernel, kapi.Range(10), a, b)
    message = str(e.value)
    assert f"{__file__}:{line_of(shifted_body, 'shifted')}:" in message
    assert "index 10 is out of bounds for axis 0 with size 10" in message
    assert "'a'" in message
    # The work-items in bounds did their work; the failing one wrote the
    # sink, not memory past the array.
    assert np.array_equal(b[:9], a[1:])


def test_boundscheck_off_by_default(device_filter):
    @spirjit.kernel
    def copy(item: kapi.Item, a, b):
        i = item.get_id(0)
        b[i] = a[i]

    a = np.arange(8.0, dtype=np.float32)
    b = np.zeros_like(a)
    spirjit.call_kernel(copy, kapi.Range(8), a, b)
    assert np.array_equal(a, b)
    assert not copy.boundscheck and not copy.debug


def negative_body(item: kapi.Item, a, out):
    i = item.get_id(0)
    out[i] = a[i - 12]  # <- negative


def test_boundscheck_negative_index_beyond_wraparound(device_filter):
    kernel = spirjit.kernel(negative_body, boundscheck=True)
    a = np.arange(10, dtype=np.int64)
    out = np.zeros(3, dtype=np.int64)
    # i - 12 is -12, -11, -10: the first two miss, -10 wraps to 0.
    with pytest.raises(IndexError) as e:
        spirjit.call_kernel(kernel, kapi.Range(3), a, out)
    assert re.search(r"index -1[12] is out of bounds for axis 0 with size 10",
                     str(e.value))
    assert out[2] == 0


def matrix_body(item: kapi.Item, m, out):
    i = item.get_id(0)
    out[i] = m[i, i + 2] + m[i][0]  # <- matrix


def test_boundscheck_reports_the_failing_axis(device_filter):
    kernel = spirjit.kernel(matrix_body, boundscheck=True)
    m = np.ones((4, 5), dtype=np.float32)
    out = np.zeros(4, dtype=np.float32)
    with pytest.raises(IndexError) as e:
        spirjit.call_kernel(kernel, kapi.Range(4), m, out)
    assert re.search(r"index [56] is out of bounds for axis 1 with size 5",
                     str(e.value))
    assert "'m'" in str(e.value)


def view_body(item: kapi.Item, m, out):
    i = item.get_id(0)
    row = m[0]
    out[i] = row[i]  # <- view


def test_boundscheck_of_a_view_counts_axes_of_the_array(device_filter):
    kernel = spirjit.kernel(view_body, boundscheck=True)
    m = np.ones((2, 3), dtype=np.float64)
    out = np.zeros(4, dtype=np.float64)
    with pytest.raises(IndexError) as e:
        spirjit.call_kernel(kernel, kapi.Range(4), m, out)
    assert "index 3 is out of bounds for axis 1 with size 3" in str(e.value)


def helper_body(v, i):
    return v[i]  # <- helper


helper = spirjit.device_func(helper_body)


def calls_helper_body(item: kapi.Item, a, out):
    i = item.get_id(0)
    out[i] = helper(a, i + 1)


def test_boundscheck_inside_a_device_function(device_filter):
    kernel = spirjit.kernel(calls_helper_body, boundscheck=True)
    a = np.arange(4, dtype=np.int32)
    out = np.zeros(4, dtype=np.int32)
    with pytest.raises(IndexError) as e:
        spirjit.call_kernel(kernel, kapi.Range(4), a, out)
    assert f"{__file__}:{line_of(helper_body, 'helper')}:" in str(e.value)
    assert "'v'" in str(e.value)
    assert np.array_equal(out[:3], a[1:])


def test_boundscheck_on_device_arrays_and_async(device):
    kernel = spirjit.kernel(shifted_body, boundscheck=True)
    a = spirjit.asarray(np.arange(6, dtype=np.float32), device=device)
    b = spirjit.zeros(6, dtype=np.float32, device=device)
    event = spirjit.call_kernel_async(kernel, kapi.Range(6), [], a, b)
    with pytest.raises(IndexError):
        event.wait()
    # A correct launch of the same kernel raises nothing.
    spirjit.call_kernel(kernel, kapi.Range(5), a, b)
    assert np.array_equal(np.asarray(b)[:5], np.arange(1, 6))


def test_boundscheck_with_local_and_private_memory(device_filter):
    @spirjit.kernel(boundscheck=True)
    def staged(item: kapi.NdItem, a, scratch, out):
        i = item.get_global_id(0)
        j = item.get_local_id(0)
        p = kapi.PrivateArray(2, np.float32)
        p[0] = a[i]
        p[1] = 1
        scratch[j] = p[0] + p[1]
        kapi.group_barrier(item.get_group())
        out[i] = scratch[j]

    a = np.arange(8, dtype=np.float32)
    out = np.zeros_like(a)
    spirjit.call_kernel(staged, kapi.NdRange(kapi.Range(8), kapi.Range(4)), a,
                        kapi.LocalAccessor(4, np.float32), out)
    assert np.array_equal(out, a + 1)

    @spirjit.kernel(boundscheck=True)
    def private_overrun(item: kapi.Item, out):
        i = item.get_id(0)
        p = kapi.PrivateArray(3, np.int64, fill_zeros=True)
        p[i] = 5
        out[i] = p[i]

    out = np.zeros(4, dtype=np.int64)
    with pytest.raises(IndexError) as e:
        spirjit.call_kernel(private_overrun, kapi.Range(4), out)
    assert "index 3 is out of bounds for axis 0 with size 3" in str(e.value)
    assert "PrivateArray" in str(e.value)


ROWS = 4


def matmul_rows_body(item: kapi.Item, A, B, C):
    # The user guide's matmul_rows: its PrivateArray indexed by a counter.
    i = item.get_id(0) * ROWS
    j = item.get_id(1)
    acc = kapi.PrivateArray(ROWS, C.dtype)
    for r in range(ROWS):
        acc[r] = 0
    for k in range(A.shape[1]):
        b = B[k, j]
        for r in range(ROWS):
            acc[r] += A[i + r, k] * b
    for r in range(ROWS):
        C[i + r, j] = acc[r]


def pick_body(item: kapi.Item, a, n):
    i = item.get_id(0)
    p = kapi.PrivateArray(4, a.dtype)
    for r in range(4):
        p[r] = a[i] + r
    a[i] = p[n]  # <- pick


@pytest.mark.parametrize("option", ["boundscheck", "debug"])
def test_issue31_private_array_with_a_run_time_index(device_filter, option):
    # Issue 31: checks on a PrivateArray indexed by a run-time value left
    # its alloca out of the entry block, which spirv-val refused (an
    # internal compiler error).
    matmul = spirjit.kernel(matmul_rows_body, **{option: True})
    m = 8
    A = np.arange(m * m, dtype=np.float32).reshape(m, m) / 8
    B = np.ones((m, m), dtype=np.float32) + np.eye(m, dtype=np.float32)
    C = np.zeros((m, m), dtype=np.float32)
    spirjit.call_kernel(matmul, kapi.Range(m // ROWS, m), A, B, C)
    np.testing.assert_allclose(C, A @ B, rtol=1e-6)

    pick = spirjit.kernel(pick_body, **{option: True})
    a = np.arange(4.0)
    spirjit.call_kernel(pick, kapi.Range(4), a, 2)
    np.testing.assert_array_equal(a, np.arange(4.0) + 2)
    with pytest.raises(IndexError) as e:
        spirjit.call_kernel(pick, kapi.Range(4), a, 4)
    assert f"{__file__}:{line_of(pick_body, 'pick')}:" in str(e.value)
    assert "index 4 is out of bounds for axis 0 with size 4" in str(e.value)


# --------------------------------------------------------------------------
# The fast path (compiler/BoundsCheckFastPath.h): a launch whose accesses a
# test at entry proves in bounds runs without checks; any other launch of
# the same kernel runs the checked body and reports as before.


def offset_copy_body(item: kapi.Item, a, out, offset):
    i = item.get_id(0)
    out[i] = a[i + offset]  # <- offset


def test_fast_path_and_checked_path_of_one_kernel(device_filter):
    kernel = spirjit.kernel(offset_copy_body, boundscheck=True)
    a = np.arange(16, dtype=np.float32)
    # In bounds for every work-item: the unchecked copy, the right answer.
    out = np.zeros(12, dtype=np.float32)
    spirjit.call_kernel(kernel, kapi.Range(12), a, out, 4)
    assert np.array_equal(out, a[4:])
    # Most work-items in bounds, the last three not: the first failure
    # along the work-items' order need not be the one reported, but the
    # one reported is a real one, and nothing past `a` is read or past
    # `out` written (out is a view of a larger buffer, whose tail stays).
    buffer = np.full(20, -1, dtype=np.float32)
    out = buffer[:12]
    with pytest.raises(IndexError) as e:
        spirjit.call_kernel(kernel, kapi.Range(12), a, out, 7)
    message = str(e.value)
    assert f"{__file__}:{line_of(offset_copy_body, 'offset')}:" in message
    index = int(re.search(r"index (\d+) is out", message).group(1))
    assert index in (16, 17, 18)
    assert "axis 0 with size 16 (array parameter 'a'" in message
    assert np.array_equal(out[:9], a[7:])
    assert np.all(buffer[12:] == -1)
    # A negative offset wraps as NumPy's does, where it lands in bounds.
    out = np.zeros(12, dtype=np.float32)
    spirjit.call_kernel(kernel, kapi.Range(12), a, out, -1)
    assert np.array_equal(out, np.concatenate([a[-1:], a[:11]]))
    with pytest.raises(IndexError, match="index -17 is out of bounds"):
        spirjit.call_kernel(kernel, kapi.Range(12), a, out, -17)
    # And in bounds again afterwards: no error is left over.
    spirjit.call_kernel(kernel, kapi.Range(12), a, out, 0)
    assert np.array_equal(out, a[:12])


def test_fast_path_test_cannot_overflow(device_filter):
    # An index far beyond any array: the test at entry must not wrap
    # around into "in bounds".
    @spirjit.kernel(boundscheck=True)
    def strided(item: kapi.Item, a, out):
        i = item.get_id(0)
        out[i] = a[i * 4611686018427387904]  # 2**62

    a = np.arange(4, dtype=np.float32)
    out = np.zeros(4, dtype=np.float32)
    with pytest.raises(IndexError, match="out of bounds for axis 0 with "
                                         "size 4"):
        spirjit.call_kernel(strided, kapi.Range(4), a, out)
    assert out[0] == a[0]


def row_sums_body(item: kapi.Item, m, out, columns):
    i = item.get_id(0)
    s = m.dtype.type(0)
    for k in range(columns):
        s += m[i, k]  # <- row
    out[i] = s


def test_fast_path_of_a_loop_and_its_trip_count(device_filter):
    kernel = spirjit.kernel(row_sums_body, boundscheck=True)
    m = np.arange(20, dtype=np.float64).reshape(4, 5)
    out = np.zeros(4)
    spirjit.call_kernel(kernel, kapi.Range(4), m, out, 5)
    assert np.array_equal(out, m.sum(axis=1))
    spirjit.call_kernel(kernel, kapi.Range(4), m, out, 0)
    assert np.array_equal(out, np.zeros(4))
    # One iteration too many on every row: axis 1 is reported.
    with pytest.raises(IndexError) as e:
        spirjit.call_kernel(kernel, kapi.Range(4), m, out, 6)
    assert f"{__file__}:{line_of(row_sums_body, 'row')}:" in str(e.value)
    assert "index 5 is out of bounds for axis 1 with size 5" in str(e.value)
    # More rows launched than the matrix has: axis 0.
    with pytest.raises(IndexError, match="index 4 is out of bounds for "
                                         "axis 0 with size 4"):
        spirjit.call_kernel(kernel, kapi.Range(5), m, np.zeros(5), 5)


TILE_SIDE = 4


def tiled_transpose_body(item: kapi.NdItem, a, out, tile):
    row = item.get_global_id(0)
    col = item.get_global_id(1)
    li = item.get_local_id(0)
    lj = item.get_local_id(1)
    tile[li, lj] = a[row, col]
    kapi.group_barrier(item.get_group())
    out[col - lj + li, row - li + lj] = tile[lj, li]  # <- transpose


def test_fast_path_of_a_2d_kernel_with_barriers(device_filter):
    kernel = spirjit.kernel(tiled_transpose_body, boundscheck=True)
    a = np.arange(64, dtype=np.float32).reshape(8, 8)
    out = np.zeros_like(a)
    launch = kapi.NdRange(kapi.Range(8, 8), kapi.Range(TILE_SIDE, TILE_SIDE))
    spirjit.call_kernel(kernel, launch, a, out,
                        kapi.LocalAccessor((TILE_SIDE, TILE_SIDE),
                                           np.float32))
    assert np.array_equal(out, a.T)
    # An output one column short: every work-group still reaches its
    # barrier (the checked body runs for all), and the failure names axis 1.
    short = np.zeros((8, 7), dtype=np.float32)
    with pytest.raises(IndexError) as e:
        spirjit.call_kernel(kernel, launch, a, short,
                            kapi.LocalAccessor((TILE_SIDE, TILE_SIDE),
                                               np.float32))
    message = str(e.value)
    assert f"{__file__}:{line_of(tiled_transpose_body, 'transpose')}:" \
        in message
    assert "index 7 is out of bounds for axis 1 with size 7" in message
    assert "'out'" in message
    assert np.array_equal(short, a.T[:, :7])


def affine_body(item: kapi.Item, a, out, scale, offset):
    i = item.get_id(0)
    out[i] = a[i * scale + offset]


def strided_sums_body(item: kapi.Item, a, out, lo, hi, scale):
    i = item.get_id(0)
    acc = a.dtype.type(0)
    for k in range(lo, hi):
        acc += a[k * scale + i]
    out[i] = acc


def test_fast_path_agrees_with_numpy_on_a_grid_of_launches(device_filter):
    # Whichever copy runs, a launch raises IndexError exactly when NumPy
    # would, and otherwise gives NumPy's answer (negative indices wrap).
    affine = spirjit.kernel(affine_body, boundscheck=True)
    sums = spirjit.kernel(strided_sums_body, boundscheck=True)
    a = np.arange(1, 13, dtype=np.float64)
    n = a.size
    for items in (1, 4, 12, 13):
        for scale in (-1, 0, 1, 2):
            for offset in (-13, -5, 0, 3, 11):
                index = [i * scale + offset for i in range(items)]
                fits = all(-n <= x < n for x in index)
                out = np.zeros(items)
                launch = (affine, kapi.Range(items), a, out, scale, offset)
                if fits:
                    spirjit.call_kernel(*launch)
                    assert np.array_equal(out, a[index]), launch[2:]
                else:
                    with pytest.raises(IndexError):
                        spirjit.call_kernel(*launch)
    for items in (1, 6):
        for lo, hi in ((0, 0), (-3, 2), (0, 6), (2, 7)):
            for scale in (0, 2):
                index = [[k * scale + i for k in range(lo, hi)]
                         for i in range(items)]
                fits = all(-n <= x < n for row in index for x in row)
                out = np.zeros(items)
                launch = (sums, kapi.Range(items), a, out, lo, hi, scale)
                if fits:
                    spirjit.call_kernel(*launch)
                    assert np.array_equal(
                        out, [a[row].sum() for row in index]), launch[4:]
                else:
                    with pytest.raises(IndexError):
                        spirjit.call_kernel(*launch)


# --------------------------------------------------------------------------
# debug: division by zero and assert


def divide_body(item: kapi.Item, a, out):
    i = item.get_id(0)
    out[i] = 100 // a[i]  # <- divide


def modulo_body(item: kapi.Item, a, out):
    i = item.get_id(0)
    out[i] = 100 % a[i]  # <- modulo


@pytest.mark.parametrize("body, marker", [(divide_body, "divide"),
                                          (modulo_body, "modulo")])
def test_debug_integer_division_by_zero(device_filter, body, marker):
    kernel = spirjit.kernel(body, debug=True)
    a = np.array([5, 3, 0, 7], dtype=np.int32)
    out = np.zeros(4, dtype=np.int32)
    with pytest.raises(ZeroDivisionError) as e:
        spirjit.call_kernel(kernel, kapi.Range(4), a, out)
    assert f"{__file__}:{line_of(body, marker)}:" in str(e.value)
    assert "division or modulo by zero" in str(e.value)
    # Without debug, Python's kernel semantics: x // 0 gives 0.
    plain = spirjit.kernel(body)
    spirjit.call_kernel(plain, kapi.Range(4), a, out)
    assert out[2] == 0


def asserting_body(item: kapi.Item, a, out):
    i = item.get_id(0)
    assert a[i] >= 0, "negative input"  # <- assert
    out[i] = a[i] * 2


def test_debug_assert_raises_assertion_error_with_message(device_filter):
    kernel = spirjit.kernel(asserting_body, debug=True)
    a = np.array([1, -1, 2, 3], dtype=np.float64)
    out = np.zeros_like(a)
    with pytest.raises(AssertionError) as e:
        spirjit.call_kernel(kernel, kapi.Range(4), a, out)
    assert "negative input" in str(e.value)
    assert f"{__file__}:{line_of(asserting_body, 'assert')}:" in str(e.value)
    # Passing asserts cost nothing visible.
    spirjit.call_kernel(kernel, kapi.Range(4), np.abs(a), out)
    assert np.array_equal(out, np.abs(a) * 2)


def test_assert_without_debug_compiles_to_nothing(device_filter):
    # As under `python -O`: the work-item goes on past a false assert.
    kernel = spirjit.kernel(asserting_body)
    a = np.array([1, -1, 2, 3], dtype=np.float64)
    out = np.zeros_like(a)
    spirjit.call_kernel(kernel, kapi.Range(4), a, out)
    assert np.array_equal(out, a * 2)


def test_debug_assert_without_message_and_in_a_device_function(device_filter):
    @spirjit.device_func
    def checked_half(x):
        assert x % 2 == 0
        return x // 2

    @spirjit.kernel(debug=True)
    def halve(item: kapi.Item, a, out):
        i = item.get_id(0)
        out[i] = checked_half(a[i])

    a = np.array([2, 4, 5, 8], dtype=np.int64)
    out = np.zeros_like(a)
    with pytest.raises(AssertionError) as e:
        spirjit.call_kernel(halve, kapi.Range(4), a, out)
    assert "assertion failed" in str(e.value)
    a[2] = 6
    spirjit.call_kernel(halve, kapi.Range(4), a, out)
    assert np.array_equal(out, a // 2)


def test_debug_implies_boundscheck(device_filter):
    kernel = spirjit.kernel(shifted_body, debug=True)
    assert kernel.boundscheck
    a = np.arange(4, dtype=np.float32)
    with pytest.raises(IndexError):
        spirjit.call_kernel(kernel, kapi.Range(4), a, np.zeros_like(a))


def test_assert_message_must_be_a_string_literal(device_filter):
    @spirjit.kernel(debug=True)
    def bad(item: kapi.Item, a):
        i = item.get_id(0)
        assert i < 10, i
        a[i] = 0

    with pytest.raises(spirjit.errors.UnsupportedFeatureError) as e:
        spirjit.call_kernel(bad, kapi.Range(2), np.zeros(2))
    assert "string literal" in str(e.value)


def test_raise_stays_unsupported(device_filter):
    @spirjit.kernel(debug=True)
    def raising(item: kapi.Item, a):
        i = item.get_id(0)
        if i > 4:
            raise AssertionError("no")
        a[i] = 0

    with pytest.raises(spirjit.errors.UnsupportedFeatureError) as e:
        spirjit.call_kernel(raising, kapi.Range(2), np.zeros(2))
    assert "raise" in str(e.value)


# --------------------------------------------------------------------------
# The environment switches and the caches


ENVIRONMENT_SCRIPT = """
import numpy as np, spirjit
from spirjit import kernel_api as kapi

@spirjit.kernel
def shifted(item: kapi.Item, a, b):
    i = item.get_id(0)
    b[i] = 10 // a[i + 1]

a = np.array([1, 1, 1, 0], dtype=np.int64)
try:
    spirjit.call_kernel(shifted, kapi.Range(4), a, np.zeros_like(a))
    print("no error")
except (IndexError, ZeroDivisionError) as e:
    print(type(e).__name__)
print(shifted.stats["compiles"], shifted.stats["disk_hits"])
"""


@pytest.mark.parametrize("variable, expected", [
    (None, "no error"),
    ("SPIRJIT_BOUNDSCHECK", "IndexError"),
    ("SPIRJIT_DEBUG", None),  # either check may be first
])
def test_environment_turns_checks_on_and_keys_the_disk_cache(
        device_filter, run_isolated, monkeypatch, tmp_path, variable,
        expected):
    # The same cache directory for every run: a kernel cached without
    # checks must not be taken for one with them, and vice versa.
    monkeypatch.setenv("SPIRJIT_CACHE_DIR", str(tmp_path.parent / "shared"))
    for name in ("SPIRJIT_BOUNDSCHECK", "SPIRJIT_DEBUG"):
        monkeypatch.delenv(name, raising=False)
    if variable:
        monkeypatch.setenv(variable, "1")
    for run in range(2):  # the second run hits the disk cache
        result = run_isolated(ENVIRONMENT_SCRIPT)
        assert result.returncode == 0, result.stderr
        outcome, counts = result.stdout.splitlines()
        if expected:
            assert outcome == expected
        else:
            assert outcome in ("IndexError", "ZeroDivisionError")
        if run == 1:
            assert counts == "0 1"  # the sites came back from the disk


# --------------------------------------------------------------------------
# print


PRINT_SCRIPT = """
import numpy as np, spirjit
from spirjit import kernel_api as kapi

@spirjit.kernel
def show(item: kapi.Item, a, f, flags):
    i = item.get_id(0)
    print("item", i, a[i], f[i], flags[i], "100%")
    print(i, -i, sep=":", end=";\\n")

a = np.array([0.0, 1.5, 0.1, 1e20, -2.5e-7])
f = np.array([0.1, 3.0, 123456.5, 1e-7, -0.0], dtype=np.float32)
flags = np.array([True, False, True, False, True])
spirjit.call_kernel(show, kapi.Range(5), a, f, flags)
"""


def test_print_from_the_device_as_python_prints(device_filter, run_isolated):
    result = run_isolated(PRINT_SCRIPT)
    assert result.returncode == 0, result.stderr
    a = [0.0, 1.5, 0.1, 1e20, -2.5e-7]
    f = np.array([0.1, 3.0, 123456.5, 1e-7, -0.0], dtype=np.float32)
    flags = [True, False, True, False, True]
    expected = [f"item {i} {a[i]} {str(f[i])} {flags[i]} 100%"
                for i in range(5)]
    expected += [f"{i}:{-i};" for i in range(5)]
    assert sorted(result.stdout.splitlines()) == sorted(expected)


DOUBLES_SCRIPT = """
import numpy as np, spirjit
from spirjit import kernel_api as kapi

@spirjit.kernel
def show(item: kapi.Item, a):
    i = item.get_id(0)
    print(i, a[i])

@spirjit.kernel
def five(item: kapi.Item, a):
    print(a[4], a[5], a[6], a[7], a[8])

inf, nan = float("inf"), float("nan")
a = np.array(%r)
spirjit.call_kernel(show, kapi.Range(len(a)), a)
spirjit.call_kernel(five, kapi.Range(1), a)
"""


def test_print_of_doubles_is_pythons_shortest_repr(device_filter,
                                                    run_isolated):
    # 16 digits, 17 digits, 15 digits (where 16 would show another last
    # digit), powers of ten on either side, a large integral value, the
    # specials; PoCL had printed every double as a float.
    a = [1 / 3, 0.1 + 0.2, 3.141592653589793, 0.75926850053958, 1e16,
         1e-05, 99999.99999999999, 1000.0000000000001, 1e22, 2.5e-300,
         -0.0, 123456.789, float("inf"), float("nan"), 0.7999999999999999]
    result = run_isolated(DOUBLES_SCRIPT % (a,))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    expected = [f"{i} {v!r}" for i, v in enumerate(a)]
    # (Five floats in one print: 16 digits where 15 would do, so that the
    # kernel holds fewer printf variants; none of these needs 15.)
    assert sorted(lines) == sorted(
        expected + [" ".join(repr(v) for v in a[4:9])])


def test_print_rejects_what_it_cannot_print(device_filter):
    @spirjit.kernel
    def prints_array(item: kapi.Item, a):
        print(a)

    with pytest.raises(spirjit.errors.TypingError) as e:
        spirjit.call_kernel(prints_array, kapi.Range(1), np.zeros(2))
    assert "print()" in str(e.value)

    @spirjit.kernel
    def prints_to_a_file(item: kapi.Item, a):
        print(a[0], flush=True)

    with pytest.raises(spirjit.errors.UnsupportedFeatureError) as e:
        spirjit.call_kernel(prints_to_a_file, kapi.Range(1), np.zeros(2))
    assert "flush" in str(e.value)


def test_jit_debug_checks_the_loops():
    from spirjit import dpjit, prange

    @dpjit(debug=True)
    def checked(a, n, d):
        for i in prange(a.shape[0]):
            assert a[i] >= 0, "negative input"
            a[i + n] = i // d

    checked(np.zeros(4, np.int64), 0, 1)
    # (The array and function are the user's: not the loop's kernel's.)
    with pytest.raises(IndexError, match=r"test_debug_mode.py:\d+: index "
                                         r"\d+ is out of bounds for axis 0 "
                                         r"with size 4 \(array parameter "
                                         r"'a' of '[\w.<>]*checked'\)"):
        checked(np.zeros(4, np.int64), 2, 1)
    with pytest.raises(ZeroDivisionError, match=r"test_debug_mode.py:\d+"):
        checked(np.zeros(4, np.int64), 0, 0)
    with pytest.raises(AssertionError, match="negative input"):
        checked(-np.ones(4, np.int64), 0, 1)

    @dpjit
    def unchecked(a):
        for i in prange(a.shape[0]):
            assert a[i] >= 0, "negative input"
            a[i] += 1

    a = -np.ones(3, np.int64)
    unchecked(a)  # asserts compile to nothing without debug, as in kernels
    np.testing.assert_array_equal(a, np.zeros(3))


def test_jit_checks_its_host_code_too():
    # Host code (outside prange) had no checks: a[5] of a 3-element array
    # read past it, a store past it corrupted the process's heap, and
    # x // 0 gave 0. boundscheck=True checks indices, debug=True also the
    # integer division.
    def read(a, i):
        return a[i]

    def write_past(a):
        for i in range(a.shape[0] + 200):
            a[i] = 1.0

    def divide(x, y):
        return x % y

    for options in ({"debug": True}, {"boundscheck": True}):
        with pytest.raises(IndexError,
                           match=r"test_debug_mode.py:\d+: index 5 is out "
                                 r"of bounds for axis 0 with size 3"):
            spirjit.jit(read, **options)(np.ones(3), 5)
        with pytest.raises(IndexError, match="index -4 is out of bounds"):
            spirjit.jit(read, **options)(np.ones(3), -4)
        assert spirjit.jit(read, **options)(np.arange(3.0), -1) == 2.0
        a = np.zeros(3)
        with pytest.raises(IndexError, match="index 3 is out of bounds"):
            spirjit.jit(write_past, **options)(a)
        np.testing.assert_array_equal(a, np.ones(3))
    with pytest.raises(ZeroDivisionError,
                       match=r"test_debug_mode.py:\d+: integer division or "
                             r"modulo by zero"):
        spirjit.jit(divide, debug=True)(5, 0)
    assert spirjit.jit(divide, boundscheck=True)(5, 0) == 0
    assert spirjit.jit(read)(np.arange(3.0), 1) == 1.0
