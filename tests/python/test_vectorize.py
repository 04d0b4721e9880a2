"""spirjit.vectorize on every device: eager signatures and lazy typing,
NumPy arrays, DeviceArrays and scalars, broadcasting, out=, loop choice as
NumPy's, and errors that name the scalar function's line. On DeviceArrays a
call is a node of the array-expression graph, fused with the operations
around it into one kernel."""

import math

import numpy as np
import pytest

import spirjit
from spirjit import errors

from source_markers import marked_line


def launches():
    """Fused-kernel launches so far: each is a compile or a cache hit."""
    s = spirjit._spirjit._array_kernel_stats()
    return s["compiles"] + s["memory_hits"] + s["disk_hits"]


@spirjit.vectorize(["float32(float32, float32)",
                    "float64(float64, float64)"])
def rel_diff(a, b):
    return abs(a - b) / (abs(a) + abs(b) + 1)


@spirjit.vectorize
def poly(x, y):
    return x * x + math.sin(y) * 3


@spirjit.vectorize(["int64(int64)"])
def collatz_steps(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def rel_diff_numpy(a, b):
    return np.abs(a - b) / (np.abs(a) + np.abs(b) + 1)


def test_numpy_inputs_give_numpy_results(device_filter):
    x = np.linspace(0, 5, 11, dtype=np.float32)
    y = x[::-1].copy()
    got = rel_diff(x, y)
    assert isinstance(got, np.ndarray) and got.dtype == np.float32
    np.testing.assert_allclose(got, rel_diff_numpy(x, y), rtol=1e-6)
    # float64 inputs pick the second loop; a weak Python float keeps float32
    assert rel_diff(x.astype(np.float64), 1.0).dtype == np.float64
    assert rel_diff(x, 1.0).dtype == np.float32
    # int64 casts safely to float64 only
    assert rel_diff(np.arange(3), np.arange(3)).dtype == np.float64


def test_device_arrays_stay_on_their_device(device):
    x = np.arange(12, dtype=np.float64).reshape(3, 4)
    X = spirjit.asarray(x, device=device)
    got = rel_diff(X, X.T.T[::-1])
    assert isinstance(got, spirjit.DeviceArray) and got.device == device
    np.testing.assert_allclose(np.asarray(got), rel_diff_numpy(x, x[::-1]))
    # broadcasting a row and a NumPy operand into the device computation
    row = np.arange(4, dtype=np.float64)
    got = rel_diff(X, row)
    assert got.device == device and got.shape == (3, 4)
    np.testing.assert_allclose(np.asarray(got), rel_diff_numpy(x, row))


def test_scalars(device_filter):
    value = rel_diff(1.0, 3.0)
    assert np.ndim(value) == 0
    assert value == pytest.approx(0.4)
    assert collatz_steps(27) == 111


# Inputs whose loop NumPy chooses among float32 and float64 (issue 31):
# scalars alone are float64 (a float32 loop once took 1.0 + 3.0), a Python
# number beside typed data of its kind is weak, one of a higher kind is not.
LOOP_CASES = {
    "floats": (1.0, 3.0),
    "int and float": (1, 3.0),
    "ints": (1, 3),
    "float32 array and float": (np.arange(3, dtype=np.float32), 0.5),
    "float and float32 array": (0.5, np.arange(3, dtype=np.float32)),
    "float32 array and int": (np.arange(3, dtype=np.float32), 2),
    "float64 array and float": (np.arange(3, dtype=np.float64), 0.5),
    "int8 array and float": (np.arange(3, dtype=np.int8), 0.5),
    "int32 array and float32 array": (np.arange(3, dtype=np.int32),
                                      np.ones(3, np.float32)),
    "float32 array and float64 scalar": (np.ones(3, np.float32),
                                         np.float64(0.5)),
    "float32 scalar and float": (np.float32(2), 0.5),
    "float32 and float64 arrays": (np.ones(3, np.float32),
                                   np.ones(3, np.float64)),
}


@pytest.mark.parametrize("inputs", LOOP_CASES.values(), ids=LOOP_CASES)
def test_the_loop_is_the_one_numpy_chooses(device_filter, inputs):
    # np.arctan2 has float16, float32, float64 and longdouble loops, in
    # that order: for these inputs NumPy picks its float32 or float64 one.
    expected = np.arctan2(*inputs).dtype
    assert expected in (np.float32, np.float64)
    assert np.asarray(rel_diff(*inputs)).dtype == expected


def test_lazy_typing_follows_the_inputs(device):
    x32 = np.linspace(0, 1, 7, dtype=np.float32)
    got = poly(x32, np.float32(0.5))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, x32 * x32 + np.sin(np.float32(0.5)) * 3,
                               rtol=1e-6)
    x64 = spirjit.asarray(np.arange(5.0), device=device)
    got = poly(x64, 2)
    assert got.dtype == np.float64 and got.device == device
    np.testing.assert_allclose(np.asarray(got),
                               np.arange(5.0) ** 2 + math.sin(2) * 3)


def test_out(device):
    x = np.arange(6, dtype=np.float64)
    host_out = np.zeros(6)
    assert rel_diff(x, 2.0, out=host_out) is host_out
    np.testing.assert_allclose(host_out, rel_diff_numpy(x, 2.0))
    device_out = spirjit.zeros(6, device=device)
    assert rel_diff(spirjit.asarray(x, device=device), 2.0,
                    out=device_out) is device_out
    np.testing.assert_allclose(np.asarray(device_out),
                               rel_diff_numpy(x, 2.0))
    with pytest.raises(ValueError, match="shape"):
        rel_diff(spirjit.asarray(x, device=device), 2.0,
                 out=spirjit.zeros(5, device=device))


def test_out_as_numpys_tuple(device):
    # out=(o,) is NumPy's form of out=o: o is written and returned, a NumPy
    # array staying one (it had been ignored, a fresh array returned).
    x = np.arange(6, dtype=np.float64)
    host_out = np.zeros(6)
    assert rel_diff(x, 2.0, out=(host_out,)) is host_out
    np.testing.assert_allclose(host_out, rel_diff_numpy(x, 2.0))
    device_out = spirjit.zeros(6, device=device)
    assert rel_diff(spirjit.asarray(x, device=device), 2.0,
                    out=(device_out,)) is device_out
    np.testing.assert_allclose(np.asarray(device_out),
                               rel_diff_numpy(x, 2.0))
    got = rel_diff(x, 2.0, out=(None,))
    assert isinstance(got, np.ndarray)
    np.testing.assert_allclose(got, rel_diff_numpy(x, 2.0))
    with pytest.raises(ValueError, match="The 'out' tuple must have exactly "
                       "one entry per ufunc output"):
        rel_diff(x, 2.0, out=(np.zeros(6), np.zeros(6)))


def test_array_likes_are_arrays_as_for_numpys_ufuncs(device):
    # A bare vectorize typed a list as NumPy's result_type cannot.
    got = poly([1, 2], [0.5, 1.5])
    expected = np.asarray([1, 2]) ** 2 + np.sin([0.5, 1.5]) * 3
    assert isinstance(got, np.ndarray) and got.dtype == expected.dtype
    np.testing.assert_allclose(got, expected)

    @spirjit.vectorize
    def double(x):
        return x * 2

    got = double([1, 2])
    assert isinstance(got, np.ndarray) and got.dtype == np.int64
    np.testing.assert_array_equal(got, [2, 4])
    on_device = double(spirjit.asarray([1.5, 2.5], device=device) +
                       double((1.0, 2.0)))
    assert on_device.device == device
    np.testing.assert_array_equal(np.asarray(on_device), [7.0, 13.0])
    assert rel_diff([1.0, 2.0], (3.0,)).dtype == np.float64


def test_integer_loop_with_control_flow(device):
    n = np.arange(1, 30, dtype=np.int64)
    expected = []
    for v in n:
        steps, v = 0, int(v)
        while v != 1:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            steps += 1
        expected.append(steps)
    got = collatz_steps(spirjit.asarray(n, device=device))
    np.testing.assert_array_equal(np.asarray(got), expected)


def test_no_matching_signature_is_a_typing_error(device_filter):
    with pytest.raises(errors.TypingError, match="no signature takes"):
        rel_diff(np.ones(3, np.complex128), 1.0)
    with pytest.raises(errors.TypingError):
        collatz_steps(np.ones(3))                # float64 -> int64 unsafe


def test_errors_name_the_scalar_functions_line(device_filter):
    def uses_a_list(a):
        t = {a: a}  # <- list-line
        return a

    with pytest.raises(errors.UnsupportedFeatureError) as info:
        spirjit.vectorize(["float64(float64)"])(uses_a_list)  # eager
    line = marked_line(__file__, "list-line")
    assert info.value.lineno == line
    assert f"{__file__}:{line}" in str(info.value)

    lazy = spirjit.vectorize(uses_a_list)
    with pytest.raises(errors.UnsupportedFeatureError) as info:
        lazy(np.arange(3.0))
    assert info.value.lineno == line


def test_mixed_devices_are_rejected():
    devices = spirjit.devices()
    if len(devices) < 2:
        pytest.skip("needs two devices")
    a = spirjit.asarray(np.arange(3.0), device=devices[0])
    b = spirjit.asarray(np.arange(3.0), device=devices[1])
    with pytest.raises(errors.DeviceInferenceError, match="to_device"):
        rel_diff(a, b)


def test_decorator_device_is_used_for_host_inputs(device, monkeypatch):
    @spirjit.vectorize(device=device)
    def twice(x):
        return x * 2

    # The default device is another one, where there are two.
    other = [d for d in spirjit.devices() if d != device]
    if other:
        monkeypatch.setenv("SPIRJIT_DEVICE", other[0].filter_string)
    devices = []
    apply = spirjit._spirjit._apply

    def recording(*args):
        devices.append(args[5].filter_string)
        return apply(*args)

    monkeypatch.setattr(spirjit._spirjit, "_apply", recording)
    before = launches()
    np.testing.assert_array_equal(twice(np.arange(4)), np.arange(4) * 2)
    assert devices == [device.filter_string]
    assert launches() == before + 1


def test_bad_signatures():
    with pytest.raises(TypeError, match="signatures such as"):
        spirjit.vectorize(["float32 float32"])(lambda a: a)
    with pytest.raises(TypeError, match="unknown type"):
        spirjit.vectorize(["float32(floaty)"])(lambda a: a)
    with pytest.raises(TypeError, match="takes 1"):
        spirjit.vectorize(["float32(float32, float32)"])(lambda a: a)


@spirjit.jit
def rel_diff_with_a_half(a):
    return rel_diff(a, 0.5)


@spirjit.jit
def rel_diff_with_two(a):
    return rel_diff(a, 2)


@spirjit.jit
def rel_diff_in_jit(a, b):
    return rel_diff(a, b)


# A Python number written in jit code is weak there, as in Python code.
JIT_LOOP_CASES = {
    "int8 array and float": (rel_diff_with_a_half,
                             (np.arange(3, dtype=np.int8),), 0.5),
    "float32 array and float": (rel_diff_with_a_half,
                                (np.arange(3, dtype=np.float32),), 0.5),
    "float32 array and int": (rel_diff_with_two,
                              (np.arange(3, dtype=np.float32),), 2),
    "int32 array and float32 array": (
        rel_diff_in_jit, (np.arange(3, dtype=np.int32),
                          np.ones(3, np.float32)), None),
}


@pytest.mark.parametrize("function, arrays, literal", JIT_LOOP_CASES.values(),
                         ids=JIT_LOOP_CASES)
def test_jit_code_chooses_the_loop_numpy_chooses(device_filter, function,
                                                 arrays, literal):
    # The compiler's choice for calls from jit code follows the same rule
    # (compiler/infer/InferCalls.cpp, numpyLoop).
    inputs = arrays + ((literal,) if literal is not None else ())
    expected = np.arctan2(*inputs).dtype
    assert np.asarray(function(*arrays)).dtype == expected


# --- on DeviceArrays: a node of the array-expression graph ------------------

@spirjit.vectorize(["float64(float64)"])
def plus_one(x):
    return x + 1


@spirjit.vectorize(["float64(float64)"])
def times_three(x):
    return x * 3


@spirjit.device_func
def square(x):
    return x * x


@spirjit.vectorize
def square_plus(x, y):
    return square(x) + y


def test_a_call_fuses_with_the_operators_around_it(device):
    a = np.linspace(0, 5, 1001)
    b, c = a[::-1].copy(), np.cos(a)
    A, B, C = (spirjit.asarray(v, device=device) for v in (a, b, c))
    before = launches()
    R = rel_diff(A + 1, B) * 2 + C
    assert spirjit._spirjit._pending(R) and launches() == before
    assert R.shape == a.shape and R.dtype == np.float64
    np.testing.assert_allclose(np.asarray(R),
                               rel_diff_numpy(a + 1, b) * 2 + c)
    assert launches() == before + 1
    # float32 takes the other loop; the result stays float32
    A32 = spirjit.asarray(a.astype(np.float32), device=device)
    R = -rel_diff(A32, 0.5)
    assert R.dtype == np.float32
    np.testing.assert_allclose(
        np.asarray(R), -rel_diff_numpy(a.astype(np.float32), 0.5),
        rtol=1e-6)


def test_a_call_of_a_device_function_fuses(device):
    x = np.arange(12, dtype=np.float64).reshape(3, 4)
    X = spirjit.asarray(x, device=device)
    before = launches()
    got = np.asarray(square_plus(X, X.T.T) - X.sum())
    np.testing.assert_allclose(got, x * x + x - x.sum())
    # the sum is a reduction of its own, before the fused element-wise one
    assert launches() - before <= 2


def test_two_functions_of_the_same_dtypes_are_two_kernels(device):
    x = np.arange(8.0)
    X = spirjit.asarray(x, device=device)
    np.testing.assert_array_equal(np.asarray(plus_one(X)), x + 1)
    np.testing.assert_array_equal(np.asarray(times_three(X)), x * 3)
    # and both in one kernel
    before = launches()
    np.testing.assert_array_equal(
        np.asarray(plus_one(X) - times_three(X + 1)), x + 1 - (x + 1) * 3)
    assert launches() == before + 1


def test_a_function_defined_again_finds_its_kernel(device):
    X = spirjit.asarray(np.arange(5.0), device=device)
    known = []
    for k in range(4):
        @spirjit.vectorize
        def shifted(x):
            return x - 2.5

        before = launches()
        np.testing.assert_array_equal(np.asarray(shifted(X) * k),
                                      (np.arange(5.0) - 2.5) * k)
        assert launches() == before + 1
        known.append(spirjit._spirjit._array_kernel_stats()["expressions"])
    # the same code is the same function: no kernel per definition
    assert known[1:] == known[:1] * 3


def test_out_takes_the_fused_value(device):
    x = np.linspace(1, 2, 6)
    X = spirjit.asarray(x, device=device)
    out = spirjit.zeros((2, 6), device=device)
    before = launches()
    assert rel_diff(X * 2, 1.0, out=out[1]) is not None
    np.testing.assert_allclose(np.asarray(out),
                               [np.zeros(6), rel_diff_numpy(x * 2, 1.0)])
    assert launches() == before + 1
    host = np.full(6, -1.0)
    assert rel_diff(X * 2, 1.0, out=host) is host
    np.testing.assert_allclose(host, rel_diff_numpy(x * 2, 1.0))
    # int32 out: the float64 result converted as NumPy's out= casts
    ints = spirjit.zeros(6, dtype=np.int32, device=device)
    poly(X, 0.0, out=ints)
    np.testing.assert_array_equal(np.asarray(ints),
                                  (x * x).astype(np.int32))


def test_broadcasting_and_its_errors(device):
    col = np.arange(3.0).reshape(3, 1)
    row = np.arange(4.0)
    Col = spirjit.asarray(col, device=device)
    got = rel_diff(Col, spirjit.asarray(row, device=device)) + Col
    assert got.shape == (3, 4)
    np.testing.assert_allclose(np.asarray(got),
                               rel_diff_numpy(col, row) + col)
    with pytest.raises(ValueError, match="shape mismatch"):
        rel_diff(Col, spirjit.asarray(np.ones((2, 4)), device=device))
    with pytest.raises(ValueError, match="shape mismatch"):
        rel_diff(Col.T, np.arange(5.0))


def test_zero_d_and_empty_arrays(device):
    Z = spirjit.asarray(np.array(3.0), device=device)
    got = rel_diff(Z, 1.0) * 4
    assert isinstance(got, spirjit.DeviceArray) and got.shape == ()
    assert float(np.asarray(got)) == pytest.approx(1.6)  # 2 / 5 * 4
    E = spirjit.asarray(np.zeros((0, 3)), device=device)
    got = rel_diff(E, 1.0) + 1
    assert got.shape == (0, 3) and np.asarray(got).shape == (0, 3)


def test_errors_raise_at_the_call_on_device_arrays(device):
    def uses_a_dict(a):
        t = {a: a}  # <- dict-line
        return a

    def indexes_a_number(a):
        return a[0]  # <- index-line

    def returns_a_pair(a):  # <- pair-line
        return a, a

    X = spirjit.asarray(np.arange(3.0), device=device)
    for function, error, marker in (
            (uses_a_dict, errors.UnsupportedFeatureError, "dict-line"),
            (indexes_a_number, errors.TypingError, "index-line"),
            (returns_a_pair, errors.TypingError, "pair-line")):
        lazy = spirjit.vectorize(function)
        before = spirjit._spirjit._pending_nodes()
        with pytest.raises(error) as info:
            lazy(X)
        line = marked_line(__file__, marker)
        assert info.value.lineno == line
        assert str(info.value).startswith(f"{__file__}:{line}: ")
        assert spirjit._spirjit._pending_nodes() == before  # none recorded
    assert "returns_a_pair(float64) must return a number" in str(info.value)


def test_eager_mode_computes_a_call_at_once(run_isolated):
    script = """
        import os
        os.environ["SPIRJIT_LAZY"] = "0"
        import numpy as np, spirjit

        @spirjit.vectorize
        def half(x):
            return x / 2

        A = spirjit.asarray(np.arange(4.0))
        T = half(A)
        assert not spirjit._spirjit._pending(T)
        print(np.asarray(T + 1).tolist())
    """
    result = run_isolated(script)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[1.0, 1.5, 2.0, 2.5]"


@spirjit.vectorize(["int64(int64, int64)"])
def gcd(a, b):
    while b:
        a, b = b, a % b
    return a


@spirjit.vectorize
def minus(a, b):
    return a - b


def test_ufunc_methods_are_numpys(device):
    # numba's @vectorize gives a ufunc: reduce, accumulate and outer fold
    # left to right as NumPy's do (minus is not associative).
    x = np.array([12, 18, 24, 36])
    m = np.arange(1, 13).reshape(3, 4) * 6
    assert gcd.reduce(x) == np.gcd.reduce(x)
    np.testing.assert_array_equal(gcd.reduce(m, axis=1),
                                  np.gcd.reduce(m, axis=1))
    np.testing.assert_array_equal(gcd.accumulate(x), np.gcd.accumulate(x))
    np.testing.assert_array_equal(gcd.outer(x, x[:2]), np.gcd.outer(x, x[:2]))
    a = np.arange(10.0).reshape(2, 5)
    d = spirjit.asarray(a, device=device)
    for axis in (0, 1, -1):
        got = minus.reduce(d, axis=axis)
        assert isinstance(got, spirjit.DeviceArray)
        np.testing.assert_array_equal(got.asnumpy(),
                                      np.subtract.reduce(a, axis=axis))
        np.testing.assert_array_equal(
            minus.accumulate(d, axis=axis).asnumpy(),
            np.subtract.accumulate(a, axis=axis))
    assert float(minus.reduce(d.ravel(), axis=None)) == \
        np.subtract.reduce(a.ravel(), axis=None)
    with pytest.raises(ValueError, match="reduction operation 'minus' is not "
                                         "reorderable"):
        minus.reduce(d, axis=None)
    assert minus.reduce(d, keepdims=True).shape == (1, 5)
    assert minus.reduce(np.arange(4.0), initial=10.0) == \
        np.subtract.reduce(np.arange(4.0), initial=10.0)
    np.testing.assert_array_equal(
        minus.reduce(np.zeros((0, 3)), axis=0, initial=1.0), [1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="zero-size array to reduction "
                                         "operation minus which has no "
                                         "identity"):
        minus.reduce(np.zeros(0))
    with pytest.raises(ValueError, match="only supported for binary "
                                         "functions"):
        collatz_steps.reduce(x)
    assert (gcd.nin, gcd.nout, gcd.nargs, gcd.types) == (2, 1, 3, ["ll->l"])
