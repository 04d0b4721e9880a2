"""Where arrays live, as dpnp programs say it: usm_type on DeviceArrays and
their constructors, device=/sycl_queue= in jit functions, Device and tuple
arguments of jit functions, and libraries that re-export spirjit's or
NumPy's functions under their own module name."""

import sys
import types

import numpy as np
import pytest

import spirjit
from spirjit import errors

USM_TYPES = ["device", "shared", "host"]


@pytest.mark.parametrize("usm_type", USM_TYPES)
def test_constructors_keep_the_usm_type_asked_for(device, usm_type):
    made = [spirjit.empty(4, device=device, usm_type=usm_type),
            spirjit.zeros((2, 3), np.int32, device, usm_type),
            spirjit.ones(5, usm_type=usm_type),
            spirjit.full(3, 7.5, usm_type=usm_type),
            spirjit.asarray(np.arange(4), usm_type=usm_type)]
    for a in made:
        assert a.usm_type == usm_type
    like = made[1]
    assert spirjit.zeros_like(like).usm_type == usm_type
    assert spirjit.full_like(like, 2).asnumpy().tolist() == [[2] * 3] * 2
    assert spirjit.ones_like(like, usm_type="shared").usm_type == "shared"
    assert spirjit.empty(3).usm_type == "device"


def test_results_take_the_most_device_bound_usm_type(device):
    host = spirjit.ones(6, device=device, usm_type="host")
    shared = spirjit.ones(6, device=device, usm_type="shared")
    dev = spirjit.ones(6, device=device, usm_type="device")
    assert (host + host).usm_type == "host"
    assert (host + shared).usm_type == "shared"
    assert (shared * dev).usm_type == "device"
    assert np.sqrt(host).usm_type == "host"
    assert host[1:4].usm_type == "host"


def test_bad_usm_type_and_both_device_keywords_are_refused(device):
    with pytest.raises(ValueError, match="usm_type must be 'device', "
                                         "'shared' or 'host', not 'pinned'"):
        spirjit.empty(3, usm_type="pinned")
    with pytest.raises(TypeError, match="takes device= or sycl_queue=, not "
                                        "both"):
        spirjit.zeros(3, device=device, sycl_queue=device)
    with pytest.raises(TypeError, match="takes device= or sycl_queue=, not "
                                        "both"):
        spirjit.asarray([1, 2], device=device, sycl_queue=device)
    with pytest.raises(TypeError, match="a device is a spirjit.Device, a "
                                        "filter string"):
        spirjit.empty(3, device=7)


@pytest.mark.parametrize("usm_type", USM_TYPES)
def test_jit_constructors_take_device_and_usm_type(device, usm_type):
    where = device.filter_string

    @spirjit.jit
    def make(shape, fill):
        return spirjit.full(shape, fill, dtype=np.int32, usm_type=usm_type,
                            device=where)

    c = make((2, 5), 9)
    assert isinstance(c, spirjit.DeviceArray)
    assert c.shape == (2, 5) and c.dtype == np.int32
    assert c.usm_type == usm_type and c.device == device
    assert (c.asnumpy() == 9).all()


def test_jit_runs_where_its_device_argument_says(device):
    @spirjit.jit
    def make(n, queue):
        return spirjit.zeros(n, dtype=np.float32, sycl_queue=queue)

    c = make(4, device)
    assert c.device == device and c.usm_type == "device"
    assert c.asnumpy().tolist() == [0.0] * 4


def test_jit_makes_arrays_where_another_array_lives(device):
    # dpnp's idiom: a new array on the queue of the one passed in.
    @spirjit.jit
    def beside(a):
        queue = a.sycl_queue
        b = spirjit.empty(a.shape, dtype=a.dtype, sycl_queue=queue)
        c = spirjit.zeros(3, device=a.device)
        for i in spirjit.prange(a.shape[0]):
            b[i] = a[i] + 1
        return b, c

    a = spirjit.asarray(np.arange(6, dtype=np.int32), device=device)
    b, c = beside(a)
    assert b.device == device and c.device == device
    assert b.dtype == np.int32 and b.asnumpy().tolist() == [1, 2, 3, 4, 5, 6]
    assert c.asnumpy().tolist() == [0.0] * 3


def test_an_arrays_device_is_not_read_in_kernels(device):
    from spirjit import kernel_api as kapi

    @spirjit.kernel
    def k(item: kapi.Item, a):
        a[0] = a.sycl_queue

    with pytest.raises(errors.TypingError,
                       match="has no attribute 'sycl_queue' usable in "
                             "kernels"):
        spirjit.call_kernel(k, kapi.Range(2), np.zeros(2))


def test_jit_results_follow_their_operands_usm_type(device):
    @spirjit.jit
    def add(a, b):
        return a + b

    @spirjit.jit
    def like(a):
        return spirjit.empty_like(a)

    a = spirjit.ones(8, device=device, usm_type="host")
    b = spirjit.ones(8, device=device, usm_type="shared")
    assert add(a, a).usm_type == "host"
    assert add(a, b).usm_type == "shared"
    assert like(b).usm_type == "shared"
    assert add(a, b).asnumpy().tolist() == [2.0] * 8


def test_jit_device_that_is_not_the_calls_is_a_clear_error(device):
    @spirjit.jit
    def make(n):
        return spirjit.empty(n, device="level_zero:gpu:7")

    with pytest.raises(ValueError, match="device='level_zero:gpu:7' names "
                                         "no device, but this call of the "
                                         "jit function runs on"):
        make(3)


def test_jit_usm_type_must_be_known_at_compile_time(device):
    @spirjit.jit
    def make(n, kind):
        return spirjit.empty(n, usm_type=kind)

    with pytest.raises(errors.TypingError, match="usm_type must be 'device', "
                                                 "'shared' or 'host', known "
                                                 "when the function compiles"):
        make(3, 1)


def test_jit_takes_tuples_of_numbers(device):
    @spirjit.jit
    def make(shape, scale):
        out = np.empty(shape)
        x, y = scale
        for i in spirjit.prange(shape[0]):
            for j in range(shape[1]):
                out[i, j] = x * i + y * j
        return out

    got = make((3, 4), (10.0, 1.0))
    i, j = np.indices((3, 4))
    assert np.array_equal(got, 10.0 * i + j)
    # Tuples of numbers, arrays and tuples (test_jit_namedtuple.py), not
    # of other objects.
    with pytest.raises(errors.TypingError, match="argument 1 is a tuple "
                                                 "holding a 'str'; jit "
                                                 "functions take tuples of "
                                                 "numbers, arrays and tuples"):
        make(("3", 4), (1.0, 1.0))


def test_a_tuple_argument_is_read_inside_a_prange_loop(device):
    @spirjit.jit
    def scaled(a, t):
        for i in spirjit.prange(a.shape[0]):
            a[i] = t[0] * i + t[1]
        return a

    got = scaled(np.zeros(5), (2.0, 1.0))
    assert got.tolist() == [1.0, 3.0, 5.0, 7.0, 9.0]
    d = scaled(spirjit.zeros(3, device=device), (3, -1))
    assert d.asnumpy().tolist() == [-1.0, 2.0, 5.0]


def test_a_library_reexporting_spirjit_and_numpy_names_compiles(device):
    lib = types.ModuleType("arraylib")
    lib.zeros = spirjit.zeros
    lib.add = np.add
    sys.modules["arraylib"] = lib
    try:
        namespace = {"arraylib": lib, "spirjit": spirjit, "np": np}
        exec("def f(a):\n"
             "    b = arraylib.zeros(a.shape[0], usm_type='shared')\n"
             "    return arraylib.add(a, b) + 1\n", namespace)
        f = spirjit.jit(namespace["f"])
        a = spirjit.asarray(np.arange(4.0), device=device, usm_type="host")
        got = f(a)
        assert got.asnumpy().tolist() == [1.0, 2.0, 3.0, 4.0]
        # Array expressions inside a jit function take the kind of the
        # call's array arguments (here the host argument's).
        assert got.usm_type == "host"
    finally:
        del sys.modules["arraylib"]


@pytest.mark.parametrize("usm_type", USM_TYPES)
def test_kernels_and_jit_functions_run_on_every_usm_type(device, usm_type):
    from spirjit import kernel_api as kapi

    @spirjit.kernel
    def scale(item: kapi.Item, a, out):
        i = item.get_id(0)
        out[i] = a[i] * 3

    @spirjit.jit
    def plus_one(a):
        for i in spirjit.prange(a.shape[0]):
            a[i] += 1
        return a + a

    a = spirjit.asarray(np.arange(1000, dtype=np.float32), device=device,
                        usm_type=usm_type)
    out = spirjit.empty_like(a)
    spirjit.call_kernel(scale, spirjit.Range(1000), a, out)
    assert out.usm_type == usm_type
    np.testing.assert_array_equal(out.asnumpy(), np.arange(1000) * 3)
    twice = plus_one(out)
    np.testing.assert_array_equal(twice.asnumpy(),
                                  (np.arange(1000) * 3 + 1) * 2)
    assert twice.usm_type == usm_type
    if device.backend == "cuda":
        # "shared" is managed memory and "host" pinned host memory: both at
        # one address the host can use; "device" is the GPU's own.
        assert a._host_addressable == (usm_type != "device")


def test_a_numpy_call_whose_host_code_touches_what_it_makes(device):
    @spirjit.jit(device=device)
    def first_plus_one(a):
        out = spirjit.zeros(a.shape[0])
        out[0] = a[0] + 1
        return out

    got = first_plus_one(np.arange(3.0))
    assert got.asnumpy().tolist() == [1.0, 0.0, 0.0]
    # A GPU's own memory is not the host's: the array is managed memory.
    assert got.usm_type == ("shared" if device.backend == "cuda" else "device")
