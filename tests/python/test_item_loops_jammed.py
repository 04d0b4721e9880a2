"""Work-items that run a loop of their own, on every device. On the native
CPU device a kernel without barriers runs such items four at a time, their
loops jammed into one (LLVM's unroll-and-jam, NativeTarget.cpp), so that a
thread reads four streams of memory; LLVM jams only where it finds no
dependence between the items. Each kernel here is one a jam could get
wrong, compared with NumPy at item counts around multiples of four: a
private array of accumulators, a store in every iteration, a break that
depends on the item's data, a row updated in place, a prange reduction over
chunks and a sum of a chunk per item."""

import numpy as np
import pytest

import spirjit
from spirjit import kernel_api as kapi

COUNTS = [1, 3, 4, 5, 7, 8, 130, 1027]
K = 37


@spirjit.kernel
def private_accumulators(item: kapi.Item, a, out):
    i = item.get_id(0)
    acc = kapi.PrivateArray(4, np.float64)
    for r in range(4):
        acc[r] = 0
    for k in range(a.shape[1]):
        acc[k % 4] += a[i, k] * (k + 1)
    out[i] = acc[0] - acc[1] + acc[2] * 2 - acc[3]


@spirjit.kernel
def running_sums(item: kapi.Item, a, out):
    i = item.get_id(0)
    s = 0.0
    for k in range(a.shape[1]):
        s += a[i, k]
        out[i, k] = s


@spirjit.kernel
def sum_until_large(item: kapi.Item, a, out):
    i = item.get_id(0)
    s = 0.0
    for k in range(a.shape[1]):
        if a[i, k] > 0.9:
            break
        s += a[i, k]
    out[i] = s


@spirjit.kernel
def running_sums_in_place(item: kapi.Item, a):
    i = item.get_id(0)
    for k in range(1, a.shape[1]):
        a[i, k] += a[i, k - 1]


@spirjit.kernel
def chunk_sums(item: kapi.Item, a, partial):
    per = a.shape[0] // partial.shape[0]
    base = item.get_id(0) * per
    s = a.dtype.type(0)
    for k in range(per):
        s += a[base + k]
    partial[item.get_id(0)] = s


@spirjit.jit
def prange_sum(a):
    s = 0.0
    for i in spirjit.prange(a.shape[0]):
        s += a[i]
    return s


def _rows(n, seed=1):
    return np.random.default_rng(seed).random((n, K))


@pytest.mark.parametrize("n", COUNTS)
def test_private_accumulators_per_item(device_filter, n):
    a = _rows(n)
    out = spirjit.asarray(np.zeros(n))
    spirjit.call_kernel(private_accumulators, kapi.Range(n),
                        spirjit.asarray(a), out)
    k = np.arange(K)
    acc = [(a[:, k % 4 == r] * (k[k % 4 == r] + 1)).sum(axis=1)
           for r in range(4)]
    np.testing.assert_allclose(spirjit.asnumpy(out),
                               acc[0] - acc[1] + acc[2] * 2 - acc[3],
                               rtol=1e-12)


@pytest.mark.parametrize("n", COUNTS)
def test_a_store_in_every_iteration(device_filter, n):
    a = _rows(n)
    out = spirjit.asarray(np.zeros((n, K)))
    spirjit.call_kernel(running_sums, kapi.Range(n), spirjit.asarray(a), out)
    np.testing.assert_allclose(spirjit.asnumpy(out), np.cumsum(a, axis=1),
                               rtol=1e-12)


@pytest.mark.parametrize("n", COUNTS)
def test_a_break_on_the_items_data(device_filter, n):
    a = _rows(n)
    out = spirjit.asarray(np.zeros(n))
    spirjit.call_kernel(sum_until_large, kapi.Range(n), spirjit.asarray(a),
                        out)
    stops = [np.argmax(row > 0.9) if (row > 0.9).any() else K for row in a]
    want = [row[:stop].sum() for row, stop in zip(a, stops)]
    np.testing.assert_allclose(spirjit.asnumpy(out), want, rtol=1e-12)


@pytest.mark.parametrize("n", COUNTS)
def test_a_row_updated_in_place(device_filter, n):
    a = _rows(n)
    da = spirjit.asarray(a)
    spirjit.call_kernel(running_sums_in_place, kapi.Range(n), da)
    np.testing.assert_allclose(spirjit.asnumpy(da), np.cumsum(a, axis=1),
                               rtol=1e-12)


@pytest.mark.parametrize("chunks", [1, 3, 4, 6, 512])
def test_chunk_sums_keep_each_chunks_order(device_filter, chunks):
    # On the native device each item adds its chunk in order, jammed or
    # not: the partial sums are exactly those of a sequential loop. (Intel's
    # CPU runtime reorders such a sum: there, to the last bits only.)
    a = np.random.default_rng(2).random(chunks * 1001)
    partial = spirjit.asarray(np.zeros(chunks))
    spirjit.call_kernel(chunk_sums, kapi.Range(chunks), spirjit.asarray(a),
                        partial)
    want = []
    for chunk in a.reshape(chunks, -1).tolist():
        s = 0.0
        for v in chunk:  # not sum(): Python 3.12's compensates
            s += v
        want.append(s)
    if device_filter.startswith("native"):
        assert spirjit.asnumpy(partial).tolist() == want
    else:
        np.testing.assert_allclose(spirjit.asnumpy(partial), want,
                                   rtol=1e-12)


@pytest.mark.parametrize("n", [1, 5, 1000, 1 << 20])
def test_prange_sum(device_filter, n):
    a = np.random.default_rng(3).random(n)
    got = prange_sum(spirjit.asarray(a))
    assert got == pytest.approx(a.sum(), rel=1e-12)
