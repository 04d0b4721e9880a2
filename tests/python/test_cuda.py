"""The CUDA backend: PTX generation and the driver-absent case on any
machine; kernels, memory, errors and array interchange on an NVIDIA GPU
when one is present (skipped otherwise)."""

import math
import os

import numpy as np
import pytest

import spirjit
from spirjit import _spirjit, errors
from spirjit import kernel_api as kapi
from spirjit.dump_ir import main as dump_ir

from kapi_kernels import tree_reduce

_CUDA = [d for d in spirjit.devices() if d.backend == "cuda"]
needs_gpu = pytest.mark.skipif(not _CUDA, reason="no CUDA device")
_HERE = os.path.abspath(__file__)


def exp_kernel(item, a, out):
    i = item.get_id(0)
    out[i] = math.exp(a[i]) + math.sqrt(a[i])


def plain_kernel(item, a, out):
    i = item.get_id(0)
    out[i] = a[i] * 2.0 + math.sqrt(a[i])


def _ptx(capsys, function, sig):
    code = dump_ir([_HERE, function, "--sig", sig, "--target", "cuda",
                    "--stage", "ptx"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_ptx_without_libdevice_names_the_function(capsys, monkeypatch):
    monkeypatch.setenv("SPIRJIT_LIBDEVICE", "/nonexistent/libdevice.10.bc")
    code, out, err = _ptx(capsys, "exp_kernel", "(float32[::1], float32[::1])")
    assert code == 1
    assert "test_cuda.py" in err and "'exp_kernel'" in err
    assert "exp" in err and "SPIRJIT_LIBDEVICE" in err


def test_ptx_needs_no_libdevice_for_native_math(capsys, monkeypatch):
    monkeypatch.setenv("SPIRJIT_LIBDEVICE", "/nonexistent/libdevice.10.bc")
    code, out, err = _ptx(capsys, "plain_kernel",
                          "(float64[::1], float64[::1])")
    assert code == 0, err
    assert ".visible .entry spirjit_plain_kernel(" in out
    assert "sqrt.rn.f64" in out


@pytest.mark.skipif(not os.path.exists(
    "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"),
    reason="no CUDA libdevice here")
def test_ptx_links_libdevice(capsys, monkeypatch):
    monkeypatch.delenv("SPIRJIT_LIBDEVICE", raising=False)
    code, out, err = _ptx(capsys, "exp_kernel", "(float32[::1], float32[::1])")
    assert code == 0, err
    assert "__nv_" not in out  # linked and inlined, not called
    assert "ex2.approx" in out


def test_no_driver_lists_no_cuda_device(run_isolated, monkeypatch):
    monkeypatch.setenv("SPIRJIT_CUDA_DRIVER", "/nonexistent/libcuda.so.1")
    monkeypatch.delenv("SPIRJIT_DEVICE", raising=False)
    result = run_isolated("""
        import spirjit
        print([d.backend for d in spirjit.devices()])
        print(spirjit.Device.__name__)
    """)
    assert result.returncode == 0, result.stderr
    assert "cuda" not in result.stdout.splitlines()[0]


@spirjit.kernel
def vecadd(item, a, b, c):
    i = item.get_id(0)
    c[i] = a[i] + b[i]


@spirjit.kernel
def grid2d(item, out):
    i = item.get_id(0)
    j = item.get_id(1)
    out[i, j] = i * 1000 + j + item.get_range(1) * 0


@spirjit.kernel
def atomic_sum(item, a, total):
    kapi.AtomicRef(total, 0).fetch_add(a[item.get_id(0)])


@spirjit.kernel
def black_scholes_like(item, s, out):
    i = item.get_id(0)
    out[i] = math.exp(-s[i]) * math.log(s[i] + 1.0) + math.erf(s[i])


@needs_gpu
def test_cuda_is_listed_first_and_filters():
    assert spirjit.devices()[0].backend == "cuda"
    device = spirjit.Device("cuda:gpu:0")
    assert device.filter_string == "cuda:gpu:0"
    assert device.device_type == "gpu"


@needs_gpu
@pytest.mark.parametrize("n", [1, 1000, 1 << 20, (1 << 20) + 3])
def test_vecadd_on_device_arrays(n):
    rng = np.random.default_rng(0)
    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)
    da = spirjit.asarray(a, device="cuda:gpu:0")
    db = spirjit.asarray(b, device="cuda:gpu:0")
    dc = spirjit.empty_like(da)
    spirjit.call_kernel(vecadd, spirjit.Range(n), da, db, dc)
    assert dc.device.backend == "cuda"  # compute follows data
    np.testing.assert_array_equal(dc.asnumpy(), a + b)


@needs_gpu
def test_numpy_arguments_are_copied_in_and_back(monkeypatch):
    monkeypatch.setenv("SPIRJIT_DEVICE", "cuda:gpu:0")
    a = np.arange(999, dtype=np.float64)
    c = np.zeros_like(a)
    spirjit.call_kernel(vecadd, spirjit.Range(a.size), a, a, c)
    np.testing.assert_array_equal(c, 2 * a)


@needs_gpu
def test_2d_range_is_guarded(monkeypatch):
    monkeypatch.setenv("SPIRJIT_DEVICE", "cuda:gpu:0")
    out = np.zeros((37, 300), dtype=np.int64)
    spirjit.call_kernel(grid2d, spirjit.Range(37, 300), out)
    i, j = np.indices(out.shape)
    np.testing.assert_array_equal(out, i * 1000 + j)


@needs_gpu
def test_local_memory_and_barriers(monkeypatch):
    monkeypatch.setenv("SPIRJIT_DEVICE", "cuda:gpu:0")
    a = np.arange(1 << 16, dtype=np.float32)
    partial = np.zeros(256, dtype=np.float32)
    loc = kapi.LocalAccessor(256, np.float32)
    spirjit.call_kernel(tree_reduce, kapi.NdRange((1 << 16,), (256,)), a,
                        partial, loc)
    np.testing.assert_allclose(partial, a.reshape(256, 256).sum(axis=1))


@needs_gpu
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32, np.uint64,
                                   np.float32, np.float64])
def test_atomic_add_all_dtypes(dtype, monkeypatch):
    monkeypatch.setenv("SPIRJIT_DEVICE", "cuda:gpu:0")
    a = np.ones(100_000, dtype=dtype)
    total = np.zeros(1, dtype=dtype)
    spirjit.call_kernel(atomic_sum, spirjit.Range(a.size), a, total)
    assert total[0] == a.size


@needs_gpu
def test_libdevice_math(monkeypatch):
    monkeypatch.setenv("SPIRJIT_DEVICE", "cuda:gpu:0")
    s = np.linspace(0.1, 4, 4097)
    out = np.zeros_like(s)
    spirjit.call_kernel(black_scholes_like, spirjit.Range(s.size), s, out)
    from math import erf
    expected = np.exp(-s) * np.log(s + 1) + np.vectorize(erf)(s)
    np.testing.assert_allclose(out, expected, rtol=1e-12)


@spirjit.kernel
def gamma_kernel(item, x, out):
    i = item.get_id(0)
    out[i] = math.gamma(x[i])


@needs_gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gamma_at_half_integers(dtype, monkeypatch):
    # libdevice reduces |x| < 1.5 as x - rint(x); LLVM 15 had turned its
    # rint into a round-half-away and swapped gamma(0.5) and gamma(-0.5)
    # on float32.
    monkeypatch.setenv("SPIRJIT_DEVICE", "cuda:gpu:0")
    x = np.array([0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.25, 1.0], dtype=dtype)
    out = np.zeros_like(x)
    spirjit.call_kernel(gamma_kernel, spirjit.Range(x.size), x, out)
    expected = np.array([math.gamma(float(v)) for v in x])
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(out, expected, rtol=rtol)


@needs_gpu
def test_async_launch_and_event():
    a = spirjit.asarray(np.ones(1 << 20, np.float32), device="cuda:gpu:0")
    c = spirjit.empty_like(a)
    event = spirjit.call_kernel_async(vecadd, spirjit.Range(a.size), [], a,
                                      a, c)
    event.wait()
    assert float(c.asnumpy().sum()) == 2 * a.size


@needs_gpu
def test_bad_ptx_is_a_device_error_naming_the_curesult():
    device = spirjit.Device("cuda:gpu:0")
    with pytest.raises(errors.DeviceError) as info:
        _spirjit._build_program(device._device, "ptx",
                                b".version 7.5\n.target sm_80\nnonsense;\n")
    assert info.value.backend == "cuda"
    assert "CUDA_ERROR" in str(info.value)


@needs_gpu
def test_spirv_is_refused_by_cuda():
    device = spirjit.Device("cuda:gpu:0")
    with pytest.raises(errors.DeviceError, match="takes no spirv"):
        _spirjit._build_program(device._device, "spirv", b"\x03\x02\x23\x07")


@needs_gpu
def test_cupy_array_into_kernel_without_copy():
    cupy = pytest.importorskip("cupy")
    a = cupy.arange(4096, dtype=cupy.float32)
    c = cupy.zeros_like(a)
    spirjit.call_kernel(vecadd, spirjit.Range(a.size), a, a, c)
    assert float(c.sum()) == float(2 * a.sum())


@needs_gpu
def test_torch_tensor_into_kernel_without_copy():
    torch = pytest.importorskip("torch")
    a = torch.arange(4096, dtype=torch.float32, device="cuda")
    c = torch.zeros_like(a)
    spirjit.call_kernel(vecadd, spirjit.Range(a.numel()), a, a, c)
    assert float(c.sum()) == float(2 * a.sum())


@needs_gpu
def test_device_array_into_cupy_and_torch_without_copy():
    cupy = pytest.importorskip("cupy")
    d = spirjit.asarray(np.arange(10, dtype=np.float32), device="cuda:gpu:0")
    view = cupy.asarray(d)
    assert view.data.ptr == d.__cuda_array_interface__["data"][0]
    view += 1  # writes the DeviceArray's memory
    np.testing.assert_array_equal(d.asnumpy(), np.arange(10) + 1)
    torch = pytest.importorskip("torch")
    t = torch.from_dlpack(d)
    assert t.device.type == "cuda" and t.data_ptr() == view.data.ptr


class DLPackOnly:
    """A producer that speaks DLPack alone (no __cuda_array_interface__)."""

    def __init__(self, tensor):
        self._tensor = tensor

    def __dlpack__(self, **kwargs):
        return self._tensor.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._tensor.__dlpack_device__()


@needs_gpu
def test_dlpack_only_cuda_object_into_kernel_without_copy():
    torch = pytest.importorskip("torch")
    a = torch.arange(4096, dtype=torch.float32, device="cuda")
    c = torch.zeros_like(a)
    torch.cuda.synchronize()
    spirjit.call_kernel(vecadd, spirjit.Range(a.numel()), DLPackOnly(a),
                        DLPackOnly(a), DLPackOnly(c))
    assert float(c.sum()) == float(2 * a.sum())  # written in place
    view = spirjit.asarray(DLPackOnly(c[::2]))
    assert view.device.backend == "cuda"
    assert view.__cuda_array_interface__["data"][0] == c.data_ptr()
    assert view.shape == (2048,) and view.strides == (8,)
    del c  # the view keeps the tensor's memory alive
    np.testing.assert_array_equal(view.asnumpy(), 2 * np.arange(0, 4096, 2))


@needs_gpu
def test_dlpack_only_import_waits_for_the_producers_queued_work():
    # The producer is handed spirjit's stream (__dlpack__(stream=...)) and
    # orders its own pending kernels before it: no synchronize here.
    torch = pytest.importorskip("torch")
    n = 1 << 24
    b = torch.full((n,), 3.0, dtype=torch.float32, device="cuda")
    for _ in range(20):  # milliseconds of work queued on torch's stream
        b = b * 1.0 + 0.0
    c = torch.zeros_like(b)
    spirjit.call_kernel(vecadd, spirjit.Range(n), DLPackOnly(b),
                        DLPackOnly(b), DLPackOnly(c))
    assert int((c == 6.0).sum()) == n


@needs_gpu
def test_cuda_array_interface_import_waits_for_the_producers_stream():
    # CuPy names the stream its pending work is queued on (version 3's
    # `stream`); spirjit's own (non-blocking) stream waits for it.
    cupy = pytest.importorskip("cupy")
    n = 1 << 24
    with cupy.cuda.Stream(non_blocking=True):
        b = cupy.full(n, 3.0, dtype=cupy.float32)
        for _ in range(20):  # milliseconds of work queued on that stream
            b = b * 1.0 + 0.0
        c = cupy.zeros_like(b)
        assert b.__cuda_array_interface__["stream"] not in (None, 0)
        spirjit.call_kernel(vecadd, spirjit.Range(n), b, b, c)
        assert int((c == 6.0).sum()) == n


@needs_gpu
def test_device_array_cuda_interface_names_spirjit_stream():
    # Launches run asynchronously on spirjit's stream: a consumer must wait
    # for it, so the interface names it.
    cupy = pytest.importorskip("cupy")
    n = 1 << 24
    a = spirjit.asarray(np.full(n, 3.0, np.float32), device="cuda:gpu:0")
    c = spirjit.zeros(n, np.float32, device="cuda:gpu:0")
    stream = c.__cuda_array_interface__["stream"]
    assert isinstance(stream, int) and stream > 2
    spirjit.call_kernel_async(vecadd, spirjit.Range(n), (), a, a, c)
    assert int((cupy.asarray(c) == 6.0).sum()) == n  # no wait() first


def test_to_device_copies_between_two_gpus_in_order():
    gpus = [d for d in spirjit.devices() if d.backend == "cuda"]
    if len(gpus) < 2:
        pytest.skip("needs two CUDA GPUs")
    first, second = gpus[0], gpus[1]
    host = np.arange(1 << 20, dtype=np.float32)
    x = spirjit.asarray(host, device=first)
    pending = x * 2 + 1  # a value computed on the first GPU, then copied
    y = pending.to_device(second)
    assert y.device == second and y.dtype == np.float32
    x[...] = -1  # after the copy: y keeps what it copied
    del pending
    np.testing.assert_array_equal(y.asnumpy(), host * 2 + 1)
    # A view with an offset, a 2-D array, and back again.
    grid = spirjit.asarray(host.reshape(1024, 1024), device=second)
    rows = grid[3:7]
    back = rows.to_device(first)
    assert back.device == first and back.shape == (4, 1024)
    np.testing.assert_array_equal(back.asnumpy(),
                                  host.reshape(1024, 1024)[3:7])
    # Not C-contiguous: through the host, with the same answer.
    np.testing.assert_array_equal(grid[:, ::2].to_device(first).asnumpy(),
                                  host.reshape(1024, 1024)[:, ::2])
