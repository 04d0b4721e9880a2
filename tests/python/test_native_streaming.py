"""Streaming stores on the native CPU device (compiler/NativeStreaming.h).
A launch whose arrays exceed the host's last-level cache runs a second body
of its kernel whose vector stores bypass the caches, each row of items cut
where its stores become aligned. Launches that large are slow to test, so
these run in a process told to stream every launch
(SPIRJIT_NATIVE_STREAMING_BYTES=0), over sizes and offsets around the
vector widths, views whose elements start anywhere in a line, 2-D interiors,
a lazily fused DeviceArray expression, and kernels that must not stream
(atomics) or write private memory; every result is compared with NumPy."""

import os
import sys

import pytest

import spirjit

NATIVE = any(d.filter_string.startswith("native")
             for d in spirjit.devices())

pytestmark = pytest.mark.skipif(
    not NATIVE or sys.platform != "linux",
    reason="the native CPU device is not enabled (SPIRJIT_NATIVE=1)")

SCRIPT = r"""
import numpy as np
import spirjit
from spirjit import kernel_api as kapi

D = "native:cpu:0"
rng = np.random.default_rng(7)


@spirjit.kernel
def add(item, a, b, c):
    i = item.get_id(0)
    c[i] = a[i] + b[i]


@spirjit.kernel
def twice_in_place(item, a):
    i = item.get_id(0)
    a[i] = a[i] * 2


@spirjit.kernel
def histogram(item, a, bins):
    i = item.get_id(0)
    kapi.AtomicRef(bins, a[i] % bins.shape[0]).fetch_add(1)
    a[i] = a[i] + 1


@spirjit.kernel
def through_private(item, a, out):
    i = item.get_id(0)
    p = kapi.PrivateArray(3, np.float32)
    for k in range(3):
        p[k] = a[i] * (k + 1)
    out[i] = p[0] + p[1] + p[2]


@spirjit.jit
def jacobi(u, v):
    n, m = u.shape
    for i in spirjit.prange(1, n - 1):
        for j in spirjit.prange(1, m - 1):
            v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] +
                              u[i, j + 1])


checked = 0
for dtype in ("float32", "float64", "int32", "int8", "complex128"):
    for n in (1, 7, 15, 16, 17, 63, 64, 65, 255, 1000, 4099, (1 << 16) + 3):
        for offset in (0, 1, 3):
            a = (rng.random(n + offset) * 100).astype(dtype)
            b = (rng.random(n + offset) * 100).astype(dtype)
            da, db = spirjit.asarray(a, device=D), spirjit.asarray(b, device=D)
            dc = spirjit.zeros(n + offset, dtype=dtype, device=D)
            spirjit.call_kernel(add, kapi.Range(n), da[offset:],
                                db[offset:], dc[offset:])
            want = np.zeros(n + offset, dtype)
            want[offset:] = a[offset:] + b[offset:]
            got = dc.asnumpy()
            assert np.array_equal(got, want), (dtype, n, offset)
            checked += 1

# NumPy arrays in place, their elements at every offset in a line.
for shift in range(0, 64, 4):
    raw = np.zeros(5000 * 4 + 64, np.uint8)
    start = (-raw.ctypes.data) % 64 + shift
    a = raw[start:start + 4000].view(np.float32)
    a[:] = rng.random(1000)
    want = a * 2
    spirjit.call_kernel(twice_in_place, kapi.Range(1000), a)
    assert np.array_equal(a, want), shift
    checked += 1

for n, m in ((3, 3), (5, 20), (17, 33), (130, 67), (257, 1031)):
    u = rng.random((n, m)).astype(np.float32)
    v = np.zeros_like(u)
    want = v.copy()
    want[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] +
                               u[1:-1, 2:])
    dv = spirjit.asarray(v, device=D)
    jacobi(spirjit.asarray(u, device=D), dv)
    assert np.allclose(dv.asnumpy(), want, rtol=1e-6), (n, m)
    checked += 1

a = rng.integers(0, 1000, 100003).astype(np.int64)
bins = spirjit.zeros(13, dtype="int64", device=D)
da = spirjit.asarray(a, device=D)
spirjit.call_kernel(histogram, kapi.Range(a.size), da, bins)
assert np.array_equal(bins.asnumpy(), np.bincount(a % 13, minlength=13))
assert np.array_equal(da.asnumpy(), a + 1)

x = rng.random(70001).astype(np.float32)
out = spirjit.zeros(x.size, dtype="float32", device=D)
spirjit.call_kernel(through_private, kapi.Range(x.size),
                    spirjit.asarray(x, device=D), out)
assert np.allclose(out.asnumpy(), x * 6, rtol=1e-6)

x = spirjit.asarray(rng.random(100000), device=D)
y = spirjit.asarray(rng.random(100000), device=D)
z = x[3:] * y[:-3] + 1.0
want = x.asnumpy()[3:] * y.asnumpy()[:-3] + 1.0
assert np.array_equal(z.asnumpy(), want)
t = spirjit.asarray(rng.random((300, 200)), device=D)
assert np.array_equal((t.T * 2.0).asnumpy(), t.asnumpy().T * 2.0)
print("checked", checked)
"""


def test_streamed_launches_match_numpy(run_isolated, monkeypatch):
    monkeypatch.setenv("SPIRJIT_NATIVE", "1")
    monkeypatch.setenv("SPIRJIT_DEVICE", "native:cpu:0")
    monkeypatch.setenv("SPIRJIT_NATIVE_STREAMING_BYTES", "0")
    done = run_isolated(SCRIPT, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "checked 201" in done.stdout
