"""Kernel-language forms that numba-dpex's own tests use, as spirjit runs
them: ``getattr`` with a constant name, the item kind taken from the launch
when the first parameter has no annotation, the arity error a launch with
the wrong number of arguments gets, and ``if``/``elif`` chains on work-item
ids. Results are compared with NumPy; errors are checked for class, message
and the user's line (each marked ``# <- NAME``)."""

import math

import numpy as np
import pytest

import spirjit
from spirjit import errors
from spirjit import kernel_api as kapi

import source_markers

N = 16
FETCH_FUNCTIONS = ["fetch_add", "fetch_sub", "fetch_min", "fetch_max",
                   "fetch_and", "fetch_or", "fetch_xor"]
# What each fetch function does to the old value, as NumPy does it.
FETCH_REFERENCE = {"fetch_add": np.add, "fetch_sub": np.subtract,
                   "fetch_min": np.minimum, "fetch_max": np.maximum,
                   "fetch_and": np.bitwise_and, "fetch_or": np.bitwise_or,
                   "fetch_xor": np.bitwise_xor}
SQRT_NAME = "sqrt"  # a module-level string, frozen when the kernel compiles


def check_location(error, marker):
    line = source_markers.marked_line(__file__, marker)
    assert error.filename == __file__
    assert error.lineno == line
    assert f"{__file__}:{line}" in str(error)


# --------------------------------------------------------------------------
# getattr(obj, "name") is obj.name

@pytest.mark.parametrize("fn", FETCH_FUNCTIONS)
def test_getattr_names_an_atomic_method_from_a_closure(device_filter, fn):
    # numba-dpex's test_atomic_fetch_phi.py: the name is a closure string.
    @spirjit.kernel
    def accumulate(item: kapi.Item, a, b, old):
        i = item.get_id(0)
        v = kapi.AtomicRef(b, index=i)
        old[i] = getattr(v, fn)(a[i])

    a = np.arange(N, dtype=np.int32) * 3 + 1
    b = np.full(N, 6, dtype=np.int32)
    old = np.zeros(N, dtype=np.int32)
    expected = FETCH_REFERENCE[fn](b, a)
    spirjit.call_kernel(accumulate, kapi.Range(N), a, b, old)
    np.testing.assert_array_equal(old, np.full(N, 6, dtype=np.int32))
    np.testing.assert_array_equal(b, expected)


def test_getattr_on_one_atomic_reference_from_every_item(device_filter):
    fn = "fetch_add"

    @spirjit.kernel
    def total(item, a, b):
        getattr(kapi.AtomicRef(b, 0), fn)(a[item.get_id(0)])

    a = np.arange(N, dtype=np.float32)
    b = np.zeros(1, dtype=np.float32)
    spirjit.call_kernel(total, kapi.Range(N), a, b)
    assert b[0] == a.sum()


def test_getattr_with_literal_names(device_filter):
    @spirjit.kernel
    def literal_names(item: kapi.Item, a, out):
        i = getattr(item, "get_id")(0)
        n = getattr(a, "shape")[0]
        out[i] = getattr(np, "sqrt")(a[i]) + getattr(math, "floor")(2.5) + n

    a = np.arange(N, dtype=np.float32)
    out = np.zeros(N, dtype=np.float32)
    spirjit.call_kernel(literal_names, kapi.Range(N), a, out)
    np.testing.assert_allclose(out, np.sqrt(a) + 2 + N, rtol=1e-6)


def test_getattr_name_from_a_global_in_a_device_function(device_filter):
    @spirjit.device_func
    def root(x):
        return getattr(np, SQRT_NAME)(x)

    @spirjit.kernel
    def roots(item, a, out):
        i = item.get_id(0)
        out[i] = root(a[i])

    a = np.arange(N, dtype=np.float32)
    out = np.zeros(N, dtype=np.float32)
    spirjit.call_kernel(roots, kapi.Range(N), a, out)
    np.testing.assert_allclose(out, np.sqrt(a), rtol=1e-6)


def test_getattr_name_held_in_a_local_across_a_loop(device_filter):
    @spirjit.kernel
    def repeated(item, a, b):
        name = "fetch_add"
        for _ in range(3):
            getattr(kapi.AtomicRef(b, 0), name)(a[item.get_id(0)])

    a = np.ones(N, dtype=np.int64)
    b = np.zeros(1, dtype=np.int64)
    spirjit.call_kernel(repeated, kapi.Range(N), a, b)
    assert b[0] == 3 * N


def test_kernels_differing_only_in_the_closure_name_compile_apart(
        device_filter):
    def make(fn):
        @spirjit.kernel
        def apply(item, b):
            getattr(kapi.AtomicRef(b, item.get_id(0)), fn)(5)
        return apply

    b = np.full(N, 2, dtype=np.int32)
    spirjit.call_kernel(make("fetch_add"), kapi.Range(N), b)
    spirjit.call_kernel(make("fetch_max"), kapi.Range(N), b)
    spirjit.call_kernel(make("fetch_sub"), kapi.Range(N), b)
    np.testing.assert_array_equal(b, np.full(N, 2, dtype=np.int32))


def test_getattr_float_bitwise_atomic_is_a_typing_error(device_filter):
    fn = "fetch_and"

    @spirjit.kernel
    def float_and(item, a, b):
        getattr(kapi.AtomicRef(b, 0), fn)(a[item.get_id(0)])

    with pytest.raises(errors.TypingError):
        spirjit.call_kernel(float_and, kapi.Range(N),
                            np.ones(N, np.float32), np.ones(N, np.float32))


def test_getattr_name_the_object_lacks_is_a_typing_error(device_filter):
    fn = "fetch_everything"

    @spirjit.kernel
    def missing(item, b):
        getattr(kapi.AtomicRef(b, 0), fn)(1)  # <- missing

    with pytest.raises(errors.TypingError, match="fetch_everything") as e:
        spirjit.call_kernel(missing, kapi.Range(N), np.zeros(N, np.int32))
    check_location(e.value, "missing")


def test_getattr_name_that_is_not_constant_is_unsupported(device_filter):
    @spirjit.kernel
    def chosen(item, b):
        name = "fetch_add" if item.get_id(0) > 2 else "fetch_sub"
        getattr(kapi.AtomicRef(b, 0), name)(1)  # <- chosen

    with pytest.raises(errors.UnsupportedFeatureError,
                       match="constant string") as e:
        spirjit.call_kernel(chosen, kapi.Range(N), np.zeros(N, np.int32))
    check_location(e.value, "chosen")


def test_getattr_with_a_default_is_unsupported(device_filter):
    @spirjit.kernel
    def defaulted(item, a):
        a[0] = getattr(a, "size", 0)  # <- defaulted

    with pytest.raises(errors.UnsupportedFeatureError, match="default") as e:
        spirjit.call_kernel(defaulted, kapi.Range(1), np.zeros(N, np.int32))
    check_location(e.value, "defaulted")


def test_other_strings_are_still_unsupported(device_filter):
    @spirjit.kernel
    def stray(item, a):
        label = "x"  # <- stray
        a[0] = getattr(a, "size")

    with pytest.raises(errors.UnsupportedFeatureError, match="'str'") as e:
        spirjit.call_kernel(stray, kapi.Range(1), np.zeros(N, np.int32))
    check_location(e.value, "stray")


# --------------------------------------------------------------------------
# An unannotated first parameter takes its kind from the launch

@spirjit.kernel
def unannotated(nd, a, out):
    i = nd.get_global_id(0)
    out[i] = a[i] * 2


@spirjit.kernel
def unannotated_local(it, out):
    out[it.get_global_id(0)] = it.get_local_id(0) + 100 * it.get_group(
        ).get_group_id(0)


def test_unannotated_kernel_launches_over_a_range_and_an_ndrange(
        device_filter):
    @spirjit.kernel
    def scale(item, a, out):
        i = item.get_id(0)
        out[i] = a[i] * 2

    a = np.arange(N, dtype=np.float32)
    out = np.zeros(N, dtype=np.float32)
    spirjit.call_kernel(scale, kapi.Range(N), a, out)
    np.testing.assert_array_equal(out, a * 2)

    @spirjit.kernel
    def scale_nd(item, a, out):
        i = item.get_global_id(0)
        out[i] = a[i] * 3

    spirjit.call_kernel(scale_nd, kapi.NdRange((N,), (4,)), a, out)
    np.testing.assert_array_equal(out, a * 3)


def test_one_unannotated_kernel_over_both_launch_kinds(device_filter):
    # get_global_id is an NdItem query: over a Range the item is an Item,
    # which lacks it, so that launch is a typing error naming the query.
    a = np.arange(N, dtype=np.float32)
    out = np.zeros(N, dtype=np.float32)
    spirjit.call_kernel(unannotated, kapi.NdRange((N,), (4,)), a, out)
    np.testing.assert_array_equal(out, a * 2)
    with pytest.raises(errors.TypingError, match="get_global_id"):
        spirjit.call_kernel(unannotated, kapi.Range(N), a, out)

    @spirjit.kernel
    def either(item, a, out):
        out[0] = a[0] + 1

    out[:] = 0
    spirjit.call_kernel(either, kapi.Range(1), a, out)
    assert out[0] == 1
    spirjit.call_kernel(either, kapi.NdRange((4,), (2,)), a + 1, out)
    assert out[0] == 2
    # Compiled, or loaded from what an identical device compiled.
    assert either.stats["compiles"] + either.stats["disk_hits"] == 2


def test_unannotated_kernel_gets_an_nditem_with_groups(device_filter):
    out = np.zeros(N, dtype=np.int64)
    spirjit.call_kernel(unannotated_local, kapi.NdRange((N,), (4,)), out)
    ids = np.arange(N)
    np.testing.assert_array_equal(out, ids % 4 + 100 * (ids // 4))


def test_unannotated_kernel_with_signatures_compiles_for_each_launch(
        device_filter):
    @spirjit.kernel(signatures=["(float32[::1], float32[::1])"])
    def copy(item, a, out):
        out[0] = a[0]

    a = np.full(N, 7, dtype=np.float32)
    out = np.zeros(N, dtype=np.float32)
    spirjit.call_kernel(copy, kapi.Range(1), a, out)
    assert out[0] == 7
    out[:] = 0
    spirjit.call_kernel(copy, kapi.NdRange((4,), (2,)), a, out)
    assert out[0] == 7
    # At the kernel's definition, whose decorator lists them.
    line = copy.py_func.__code__.co_firstlineno
    with pytest.raises(errors.TypingError,
                       match=rf"test_numba_dpex_forms.py:{line}: the arguments "
                       r"\(int32\[::1\], float32\[::1\]\) match none of "
                       "'copy''s signatures"):
        spirjit.call_kernel(copy, kapi.NdRange((4,), (2,)),
                            a.astype(np.int32), out)


def test_annotated_kernels_still_reject_the_other_launch_kind(device_filter):
    @spirjit.kernel
    def items(item: kapi.Item, out):
        out[item.get_id(0)] = 1

    @spirjit.kernel
    def nd_items(nd: kapi.NdItem, out):
        out[nd.get_global_id(0)] = 1

    out = np.zeros(N, dtype=np.int32)
    with pytest.raises(errors.TypingError,
                       match="takes a kapi.Item, so it must be launched "
                             "over a kapi.Range"):
        spirjit.call_kernel(items, kapi.NdRange((N,), (4,)), out)
    with pytest.raises(errors.TypingError,
                       match="takes a kapi.NdItem, so it must be launched "
                             "over a kapi.NdRange"):
        spirjit.call_kernel(nd_items, kapi.Range(N), out)


def test_local_accessor_still_needs_an_ndrange(device_filter):
    @spirjit.kernel
    def uses_local(item, scratch, out):
        out[0] = 1

    with pytest.raises(errors.TypingError, match="NdRange"):
        spirjit.call_kernel(uses_local, kapi.Range(4),
                            kapi.LocalAccessor(4, np.float32),
                            np.zeros(1, np.float32))


# --------------------------------------------------------------------------
# A launch with the wrong number of arguments

def vecadd(item, a, b, c):  # <- vecadd
    i = item.get_id(0)
    c[i] = a[i] + b[i]


def test_arity_error_counts_the_users_arguments(device_filter):
    kernel = spirjit.kernel(vecadd)
    x = np.zeros(4, np.float32)
    with pytest.raises(errors.TypingError) as e:
        spirjit.call_kernel(kernel, kapi.Range(4), x, x)
    message = str(e.value)
    assert ("'vecadd' takes 3 arguments after its work item (a, b, c), but "
            "the launch passed 2") in message
    assert "'item', is the work item" in message
    check_location(e.value, "vecadd")
    with pytest.raises(errors.TypingError,
                       match="takes 3 arguments after its work item "
                             r"\(a, b, c\), but the launch passed 4"):
        spirjit.call_kernel(kernel, kapi.Range(4), x, x, x, x)


def test_arity_error_for_one_and_no_arguments(device_filter):
    @spirjit.kernel
    def one(item, a):
        a[0] = 1

    @spirjit.kernel
    def none(item):
        pass

    x = np.zeros(4, np.float32)
    with pytest.raises(errors.TypingError,
                       match=r"takes 1 argument after its work item \(a\), "
                             "but the launch passed 0"):
        spirjit.call_kernel(one, kapi.Range(4))
    with pytest.raises(errors.TypingError,
                       match="takes no arguments after its work item, but "
                             "the launch passed 1"):
        spirjit.call_kernel(none, kapi.Range(4), x)


# --------------------------------------------------------------------------
# if/elif chains on work-item ids (LLVM makes them switches on i62)

@spirjit.kernel
def local_id_elif_chain(nd: kapi.NdItem, out):
    i = nd.get_local_id(0)
    g = nd.get_global_id(0)
    if i == 0:
        out[g] = 10
    elif i == 1:
        out[g] = 11
    elif i == 2:
        out[g] = 12
    elif i == 5:
        out[g] = 15
    else:
        out[g] = -1


def test_elif_chain_on_local_id(device_filter):
    out = np.zeros(32, np.int64)
    spirjit.call_kernel(local_id_elif_chain, kapi.NdRange((32,), (8,)), out)
    cases = {0: 10, 1: 11, 2: 12, 5: 15}
    expected = np.array([cases.get(g % 8, -1) for g in range(32)])
    np.testing.assert_array_equal(out, expected)


def test_elif_chain_on_unannotated_item_id(device_filter):
    @spirjit.kernel
    def chain(item, out):
        i = item.get_id(0)
        if i == 0:
            out[i] = 3
        elif i == 1:
            out[i] = 4
        elif i == 2:
            out[i] = 5
        elif i == 3:
            out[i] = 6

    out = np.zeros(6, np.int32)
    spirjit.call_kernel(chain, kapi.Range(6), out)
    np.testing.assert_array_equal(out, [3, 4, 5, 6, 0, 0])


def test_any_layout_signatures_take_contiguous_and_strided_arrays(
        device_filter):
    # numba's "[:]" is any layout: C, F and strided arrays all fit it, in
    # kernels' and device functions' signatures alike.
    @spirjit.kernel(signatures="(float64[:, :],)")
    def fill(item, y):
        y[item.get_id(0), item.get_id(1)] = 3.0

    @spirjit.device_func(signatures="float64(float64[:], int64)")
    def twice(a, i):
        return a[i] * 2

    @spirjit.kernel
    def doubled(item, a, out):
        i = item.get_id(0)
        out[i] = twice(a, i)

    for y in (np.zeros((2, 3)), np.asfortranarray(np.zeros((2, 3))),
              np.zeros((4, 3))[::2], spirjit.zeros((2, 3))):
        spirjit.call_kernel(fill, kapi.Range(2, 3), y)
        np.testing.assert_array_equal(np.asarray(y), np.full((2, 3), 3.0))
    out = np.zeros(4)
    spirjit.call_kernel(doubled, kapi.Range(4), np.arange(4.0), out)
    np.testing.assert_array_equal(out, [0.0, 2.0, 4.0, 6.0])
    with pytest.raises(errors.TypingError, match="match none of 'fill''s"):
        spirjit.call_kernel(fill, kapi.Range(2, 3),
                            np.zeros((2, 3), np.float32))


def test_an_integer_to_a_negative_literal_power_is_a_float(device_filter):
    # Python's (and numba's) 2 ** -2 is 0.25, not an integer 0.
    @spirjit.kernel
    def powers(item, a, out):
        i = item.get_id(0)
        out[i] = a[i] ** -2 + 2 ** -1

    out = np.zeros(3)
    spirjit.call_kernel(powers, kapi.Range(3), np.array([1, 2, 4]), out)
    np.testing.assert_array_equal(out, [1.5, 0.75, 0.5625])


def test_a_scalar_casts_safely_to_its_signature_type(device_filter):
    # numba's dispatcher converts np.int32 to a signature's int64 (NumPy's
    # safe casting); unsafe ones (float to int) still match nothing.
    @spirjit.kernel(signatures="(float64[::1], int64, float64)")
    def scaled(item, out, k, x):
        i = item.get_id(0)
        out[i] = k * x + i

    out = np.zeros(3)
    spirjit.call_kernel(scaled, kapi.Range(3), out, np.int32(2),
                        np.float32(0.5))
    assert out.tolist() == [1.0, 2.0, 3.0]
    spirjit.call_kernel(scaled, kapi.Range(3), out, np.uint8(3), True)
    assert out.tolist() == [3.0, 4.0, 5.0]
    with pytest.raises(errors.TypingError, match="match none of 'scaled''s"):
        spirjit.call_kernel(scaled, kapi.Range(3), out, 2.5, 1.0)
    with pytest.raises(errors.TypingError, match="match none of 'scaled''s"):
        spirjit.call_kernel(scaled, kapi.Range(3), out, np.uint64(2), 1.0)


def test_python_numbers_take_a_signatures_narrower_types(device_filter):
    # A Python number is weak (NEP 50), as numba converts it: 2.0 goes to
    # a float32 parameter, 1 to an int32 one; an int that the type cannot
    # hold, or a float for an integer, still matches nothing.
    @spirjit.kernel(signatures=["(float32[::1], float32, int32)"])
    def axpy(item, out, a, k):
        i = item.get_id(0)
        out[i] = a * out[i] + k

    out = np.ones(4, np.float32)
    spirjit.call_kernel(axpy, kapi.Range(4), out, 2.0, 1)
    assert out.tolist() == [3.0] * 4
    spirjit.call_kernel(axpy, kapi.Range(4), out, 0.5, -3)
    assert out.tolist() == [-1.5] * 4
    with pytest.raises(errors.TypingError, match="match none of 'axpy''s"):
        spirjit.call_kernel(axpy, kapi.Range(4), out, 2.0, 2**40)
    with pytest.raises(errors.TypingError, match="match none of 'axpy''s"):
        spirjit.call_kernel(axpy, kapi.Range(4), out, 2.0, 1.5)
