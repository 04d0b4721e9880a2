"""Vector addition, the first kernel every user writes: results equal to
NumPy's for every dtype and size, and a kernel compiled once per signature."""

import numpy as np
import pytest

import spirjit
from spirjit import kernel_api as kapi


@spirjit.kernel
def vecadd(item: kapi.Item, a, b, c):
    i = item.get_id(0)
    c[i] = a[i] + b[i]


DTYPES = [np.float32, np.float64, np.int32, np.int64, np.uint8, np.int8,
          np.int16, np.uint16, np.uint32, np.uint64]
SIZES = [1, 7, 1024, 1 << 20]


def random_array(rng, dtype, n):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return (rng.standard_normal(n) * 1000).astype(dtype)
    info = np.iinfo(dtype)
    # The whole range, so that wrap-around on overflow is checked too.
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


def assert_same(got, expected):
    # a + b is one correctly rounded IEEE operation, so floats are exact
    # too; integers wrap around as in NumPy.
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_vecadd_matches_numpy(device_filter, require_dtypes, dtype, n):
    require_dtypes(dtype)
    rng = np.random.default_rng(n)
    a = random_array(rng, dtype, n)
    b = random_array(rng, dtype, n)
    a_before, b_before = a.copy(), b.copy()
    c = np.full_like(a, 17)
    with np.errstate(over="ignore"):
        expected = a + b
    spirjit.call_kernel(vecadd, kapi.Range(n), a, b, c)
    assert_same(c, expected)
    # The inputs are read, never written.
    np.testing.assert_array_equal(a, a_before)
    np.testing.assert_array_equal(b, b_before)


def test_vecadd_api_example(device_filter):
    # The example of the API document, on float32.
    a = np.arange(1024, dtype=np.float32)
    b = np.ones_like(a)
    c = np.empty_like(a)
    spirjit.call_kernel(vecadd, kapi.Range(1024), a, b, c)
    np.testing.assert_allclose(c, a + b)


def test_vecadd_bool(device_filter):
    a = np.array([True, True, False, False])
    b = np.array([True, False, True, False])
    c = np.zeros(4, dtype=bool)
    spirjit.call_kernel(vecadd, kapi.Range(4), a, b, c)
    np.testing.assert_array_equal(c, a + b)


def test_vecadd_mixed_dtypes_promote_like_numpy(device_filter,
                                                require_dtypes):
    require_dtypes(np.float64)
    n = 100
    rng = np.random.default_rng(1)
    a = rng.integers(-1000, 1000, n).astype(np.int32)
    b = (rng.standard_normal(n) * 10).astype(np.float32)
    # int32 + float32 is float64 in NumPy: no rounding to float32 on the way.
    c = np.zeros(n, dtype=np.float64)
    spirjit.call_kernel(vecadd, kapi.Range(n), a, b, c)
    np.testing.assert_array_equal(c, a + b)
    assert (a + b).dtype == np.float64


def test_vecadd_launch_forms(device_filter):
    # A plain integer and a tuple are accepted as index spaces.
    a = np.arange(10, dtype=np.int64)
    b = np.arange(10, dtype=np.int64) * 10
    c = np.zeros(10, dtype=np.int64)
    spirjit.call_kernel(vecadd, 10, a, b, c)
    np.testing.assert_array_equal(c, a + b)
    c[:] = 0
    spirjit.call_kernel(vecadd, (10,), a, b, c)
    np.testing.assert_array_equal(c, a + b)
    c[:] = 0
    spirjit.call_kernel(vecadd, spirjit.Range(10), a, b, c)
    np.testing.assert_array_equal(c, a + b)


def test_vecadd_partial_range_leaves_the_rest(device_filter):
    # Only the launched items write.
    a = np.arange(10, dtype=np.int64)
    b = np.ones(10, dtype=np.int64)
    c = np.full(10, -1, dtype=np.int64)
    spirjit.call_kernel(vecadd, kapi.Range(4), a, b, c)
    np.testing.assert_array_equal(c, [1, 2, 3, 4, -1, -1, -1, -1, -1, -1])


def built(kernel):
    """Specialisations compiled or loaded from the disk cache: a second
    device identical to the first (two GPUs of one machine) loads what the
    first compiled."""
    return kernel.stats["compiles"] + kernel.stats["disk_hits"]


def test_compiled_once_and_reused(device_filter):
    @spirjit.kernel
    def add(item: kapi.Item, a, b, c):
        i = item.get_id(0)
        c[i] = a[i] + b[i]

    stats = add.stats
    assert stats["compiles"] == 0 and stats["memory_hits"] == 0
    for key in ("compiles", "memory_hits", "disk_hits"):
        assert key in stats

    a = np.arange(16, dtype=np.float32)
    b = np.ones_like(a)
    c = np.zeros_like(a)
    spirjit.call_kernel(add, kapi.Range(16), a, b, c)
    np.testing.assert_array_equal(c, a + b)
    assert built(add) == 1
    hits = add.stats["memory_hits"]

    # Same types, other values and another size: no new compile.
    a2 = np.arange(100, dtype=np.float32) * 2
    b2 = np.ones_like(a2)
    c2 = np.zeros_like(a2)
    spirjit.call_kernel(add, kapi.Range(100), a2, b2, c2)
    np.testing.assert_array_equal(c2, a2 + b2)
    assert built(add) == 1
    assert add.stats["memory_hits"] == hits + 1

    spirjit.call_kernel(add, kapi.Range(16), a, b, c)
    assert built(add) == 1
    assert add.stats["memory_hits"] == hits + 2

    # A second dtype is a second specialisation.
    ai = np.arange(16, dtype=np.int32)
    ci = np.zeros_like(ai)
    spirjit.call_kernel(add, kapi.Range(16), ai, ai, ci)
    np.testing.assert_array_equal(ci, ai + ai)
    assert built(add) == 2
    assert add.stats["memory_hits"] == hits + 2

    # And it is reused in turn, while the first stays cached.
    spirjit.call_kernel(add, kapi.Range(16), ai, ai, ci)
    spirjit.call_kernel(add, kapi.Range(16), a, b, c)
    assert built(add) == 2
    assert add.stats["memory_hits"] == hits + 4


def test_rank_of_launch_is_part_of_the_signature(device_filter):
    @spirjit.kernel
    def fill(item, out):
        out[item.get_linear_id()] = item.get_linear_id()

    out = np.zeros(12, dtype=np.int64)
    spirjit.call_kernel(fill, kapi.Range(12), out)
    np.testing.assert_array_equal(out, np.arange(12))
    out[:] = 0
    spirjit.call_kernel(fill, kapi.Range(3, 4), out)
    np.testing.assert_array_equal(out, np.arange(12))
    assert built(fill) == 2


def test_spirjit_device_picks_the_default_device(device_filter, run_isolated):
    # A fresh process started with SPIRJIT_DEVICE set launches there.
    result = run_isolated("""
        import os
        import numpy as np
        import spirjit
        from spirjit import kernel_api as kapi

        @spirjit.kernel
        def vecadd(item, a, b, c):
            i = item.get_id(0)
            c[i] = a[i] + b[i]

        device = spirjit.default_device()
        assert device == spirjit.Device(os.environ["SPIRJIT_DEVICE"])
        a = np.arange(5, dtype=np.int32)
        c = np.zeros_like(a)
        spirjit.call_kernel(vecadd, kapi.Range(5), a, a, c)
        assert c.tolist() == [0, 2, 4, 6, 8]
        print("device", device.filter_string)
    """)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"device {device_filter}" in result.stdout


def test_unknown_spirjit_device_is_a_device_error(monkeypatch):
    monkeypatch.setenv("SPIRJIT_DEVICE", "opencl:accelerator:99")
    a = np.zeros(3, dtype=np.int64)
    with pytest.raises(spirjit.errors.DeviceError, match="SPIRJIT_DEVICE"):
        spirjit.call_kernel(vecadd, kapi.Range(3), a, a, a)


def test_interpreter_exits_cleanly_after_every_launch_path(device_filter,
                                                          run_isolated):
    # The launch path keeps Python objects in C++ statics; none may be
    # released after the interpreter has finalised (that aborts the process
    # at exit: "PyThreadState_Get: ... the GIL is released").
    result = run_isolated("""
        import numpy as np
        import spirjit
        from spirjit import kernel_api as kapi

        @spirjit.kernel
        def add(item, a, b):
            i = item.get_id(0)
            b[i] = a[i] + 1

        a = np.arange(8, dtype=np.float32)
        b = np.zeros_like(a)
        spirjit.call_kernel(add, kapi.Range(8), a, b)         # Range
        spirjit.call_kernel(add, (8,), a, b)                  # a tuple
        spirjit.call_kernel(add, 8, a, b)                     # an int
        spirjit.call_kernel_async(add, kapi.Range(8), (), spirjit.asarray(a),
                                  spirjit.asarray(b))         # dropped
        print(b.tolist())
    """)
    assert result.returncode == 0, result.stderr
    assert "Fatal Python error" not in result.stderr
    assert result.stdout.strip() == str([float(x) + 1 for x in range(8)])
