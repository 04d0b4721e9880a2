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
    with pytest.raises(IndexError, match=r"test_debug_mode.py:\d+: index "
                                         r"\d+ is out of bounds for axis 0 "
                                         r"with size 4"):
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
