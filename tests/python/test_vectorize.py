"""spirjit.vectorize on every device: eager signatures and lazy typing,
NumPy arrays, DeviceArrays and scalars, broadcasting, out=, loop choice as
NumPy's, and errors that name the scalar function's line."""

import math

import numpy as np
import pytest

import spirjit
from spirjit import errors

from source_markers import marked_line


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


def test_decorator_device_is_used_for_host_inputs(device):
    @spirjit.vectorize(device=device)
    def twice(x):
        return x * 2

    np.testing.assert_array_equal(twice(np.arange(4)), np.arange(4) * 2)
    (kernel,) = twice._kernels.values()
    # Compiled, or loaded from what an identical device compiled.
    assert kernel.stats["compiles"] + kernel.stats["disk_hits"] == 1


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
