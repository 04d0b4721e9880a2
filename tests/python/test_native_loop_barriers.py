"""The native CPU device runs a kernel's own loop that every work-item runs
alike with the loop over the items inside it (compiler/NativeLoopBarriers.h:
an implicit barrier in each iteration), so that a CPU-style matmul's k loop
vectorises across items. Each kernel is compared with NumPy: loops that get
the barriers (a matmul whose extents and K are multiples of nothing, a
private array of accumulators, a break on an argument, a 1-D Range whose
length is no multiple of the group of items a Range runs as) and loops that
must not (a break that depends on the item's data, a loop under a branch on
the item's id, a trip count of the item's own)."""

import numpy as np
import pytest

import spirjit
from spirjit import kernel_api as kapi

from test_native_device import native  # noqa: F401 (a fixture)


@spirjit.kernel
def matmul(item: kapi.Item, a, b, c):
    i = item.get_id(0)
    j = item.get_id(1)
    acc = 0.0
    for k in range(a.shape[1]):
        acc += a[i, k] * b[k, j]
    c[i, j] = acc


ROWS = 4


@spirjit.kernel
def matmul_rows(item: kapi.Item, a, b, c):
    i = item.get_id(0) * ROWS
    j = item.get_id(1)
    acc = kapi.PrivateArray(ROWS, c.dtype)
    for r in range(ROWS):
        acc[r] = 0
    for k in range(a.shape[1]):
        bk = b[k, j]
        for r in range(ROWS):
            acc[r] += a[i + r, k] * bk
    for r in range(ROWS):
        c[i + r, j] = acc[r]


@spirjit.kernel
def uniform_break(item: kapi.Item, a, b, c, stop):
    i = item.get_id(0)
    j = item.get_id(1)
    acc = 0.0
    for k in range(a.shape[1]):
        if k == stop:
            break
        acc += a[i, k] * b[k, j]
    c[i, j] = acc


@spirjit.kernel
def item_break(item: kapi.Item, a, b, c):
    i = item.get_id(0)
    j = item.get_id(1)
    acc = 0.0
    for k in range(a.shape[1]):
        if b[k, j] < 0:
            break
        acc += a[i, k] * b[k, j]
    c[i, j] = acc


@spirjit.kernel
def guarded(item: kapi.Item, a, b, c, n):
    i = item.get_id(0)
    j = item.get_id(1)
    if j < n:
        acc = 0.0
        for k in range(a.shape[1]):
            acc += a[i, k] * b[k, j]
        c[i, j] = acc


@spirjit.kernel
def column_sums(item: kapi.Item, b, out):
    j = item.get_id(0)
    acc = 0
    for k in range(b.shape[0]):
        acc += b[k, j] * (k + 1)
    out[j] = acc


@spirjit.kernel
def own_trip(item: kapi.Item, b, out):
    j = item.get_id(0)
    acc = 0.0
    for k in range(j % 7):
        acc += b[k, j]
    out[j] = acc


def reference_matmul(a, b, stop=None):
    """a @ b summed in k order, as each work-item does, up to `stop`."""
    c = np.zeros((a.shape[0], b.shape[1]), a.dtype)
    for k in range(a.shape[1] if stop is None else min(stop, a.shape[1])):
        c += a[:, k, None] * b[None, k, :]
    return c


@pytest.fixture
def inputs():
    rng = np.random.default_rng(28)
    a = rng.standard_normal((12, 37))
    b = rng.standard_normal((37, 300))
    return a, b


def test_matmul(native, inputs):
    a, b = inputs
    c = np.zeros((12, 300))
    spirjit.call_kernel(matmul, kapi.Range(12, 300), a, b, c)
    np.testing.assert_allclose(c, reference_matmul(a, b), rtol=1e-12)


def test_matmul_float32_private_accumulators(native, inputs):
    a, b = (x.astype(np.float32) for x in inputs)
    c = np.zeros((12, 300), np.float32)
    spirjit.call_kernel(matmul_rows, kapi.Range(12 // ROWS, 300), a, b, c)
    np.testing.assert_allclose(c, reference_matmul(a, b), rtol=1e-5,
                               atol=1e-5)


@pytest.mark.parametrize("stop", [0, 5, 36, 100])
def test_break_on_an_argument(native, inputs, stop):
    a, b = inputs
    c = np.full((12, 300), np.nan)
    spirjit.call_kernel(uniform_break, kapi.Range(12, 300), a, b, c, stop)
    np.testing.assert_allclose(c, reference_matmul(a, b, stop), rtol=1e-12)


def test_break_on_the_items_data(native, inputs):
    a, b = inputs
    c = np.full((12, 300), np.nan)
    spirjit.call_kernel(item_break, kapi.Range(12, 300), a, b, c)
    want = np.zeros_like(c)
    for j in range(300):
        negative = np.flatnonzero(b[:, j] < 0)
        stop = negative[0] if len(negative) else 37
        want[:, j] = a[:, :stop] @ b[:stop, j]
    np.testing.assert_allclose(c, want, rtol=1e-12, atol=1e-12)


def test_loop_under_a_branch_on_the_id(native, inputs):
    a, b = inputs
    c = np.full((12, 300), np.nan)
    spirjit.call_kernel(guarded, kapi.Range(12, 300), a, b, c, 270)
    want = reference_matmul(a, b)
    np.testing.assert_allclose(c[:, :270], want[:, :270], rtol=1e-12)
    assert np.isnan(c[:, 270:]).all()


@pytest.mark.parametrize("n", [1, 63, 255, 256, 257, 600])
def test_1d_range_of_any_length(native, n):
    b = np.arange(9 * n, dtype=np.int64).reshape(9, n) % 13 - 6
    out = np.zeros(n, np.int64)
    spirjit.call_kernel(column_sums, kapi.Range(n), b, out)
    np.testing.assert_array_equal(
        out, (b * np.arange(1, 10)[:, None]).sum(axis=0))


def test_trip_count_of_the_item(native):
    b = np.random.default_rng(5).standard_normal((7, 150))
    out = np.zeros(150)
    spirjit.call_kernel(own_trip, kapi.Range(150), b, out)
    want = [b[:j % 7, j].sum() for j in range(150)]
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-12)
