"""DLPack as the current specification (DLPack 1.x, the Array API's
``__dlpack__(*, stream, max_version, dl_device, copy)`` and
``from_dlpack(x, device, copy)``) asks, and the buffer protocol on memory
the host addresses (issue 27, item 5)."""

import ctypes
import struct

import numpy as np
import pytest

import spirjit
from spirjit import errors

_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]

# A large array: a kernel over it is still running when the call that
# queued it returns.
BIG = 1 << 22


def host_addressable(x):
    if not x._host_addressable:
        pytest.skip(f"{x.device.filter_string}'s memory is not the host's")


def versioned_flags(capsule):
    # DLManagedTensorVersioned: version (2 x uint32), manager_ctx,
    # deleter, then the uint64 flags.
    address = _get_pointer(capsule, b"dltensor_versioned")
    return ctypes.c_uint64.from_address(address + 24).value


def test_host_export_comes_after_the_queued_work(device):
    x = spirjit.ones(BIG, device=device)
    host_addressable(x)
    y = x * 2.0 + 1.0  # pending; computed by the export, asynchronously
    np.testing.assert_array_equal(np.from_dlpack(y), np.full(BIG, 3.0))


def test_launches_finish_while_the_host_holds_a_view(device):
    x = spirjit.zeros(BIG, device=device)
    host_addressable(x)
    view = np.from_dlpack(x)
    x[...] = x + 5.0  # a kernel: the view shows all of it or nothing
    np.testing.assert_array_equal(view, np.full(BIG, 5.0))
    y = x * 2.0  # computed at once while the view lives: it may be written
    view[:] = 1.0
    np.testing.assert_array_equal(np.asarray(y), np.full(BIG, 10.0))


def test_np_asarray_is_a_copy_and_dlpack_views_see_eager_values(device):
    # API.md: np.asarray(x) copies to the host (NumPy asks for the buffer
    # protocol before __array__).
    d = spirjit.asarray(np.ones(5), device=device)
    host_addressable(d)
    n = np.asarray(d)
    y = d + 1
    n[:] = 3
    d += 1
    np.testing.assert_array_equal(n, np.full(5, 3.0))
    np.testing.assert_array_equal(np.asarray(y), np.full(5, 2.0))
    np.testing.assert_array_equal(np.asarray(d), np.full(5, 2.0))
    # A DLPack view writes the memory; what was computed before stays.
    view = np.from_dlpack(d)
    z = d * 10
    view[:] = 50.0
    np.testing.assert_array_equal(np.asarray(z), np.full(5, 20.0))
    np.testing.assert_array_equal(np.asarray(d), np.full(5, 50.0))


def test_copy_true_exports_a_flagged_copy(device):
    x = spirjit.asarray(np.arange(6.0), device=device)
    host_addressable(x)
    capsule = x.__dlpack__(max_version=(1, 0), copy=True)
    assert versioned_flags(capsule) & 2  # DLPACK_FLAG_BITMASK_IS_COPIED
    assert versioned_flags(x.__dlpack__(max_version=(1, 0))) == 0
    copied = np.from_dlpack(x, copy=True)
    x[0] = 42.0
    assert copied[0] == 0.0


def test_stream_is_none_on_devices_without_streams(device):
    x = spirjit.ones(4, device=device)
    host_addressable(x)
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"stream=1 on DLPack device \(1, 0\), which has "
                       "no streams: only stream=None is accepted"):
        x.__dlpack__(stream=1)


def test_dl_device_elsewhere_is_a_buffer_error(device):
    x = spirjit.ones(4, device=device)
    host_addressable(x)
    with pytest.raises(BufferError, match=r"to DLPack device \(2, 0\); it "
                       r"exports to the CPU \(1, 0\)"):
        x.__dlpack__(dl_device=(2, 0))
    capsule = x.__dlpack__(dl_device=(1, 0), copy=False)  # its own: no copy
    assert np.shares_memory(np.from_dlpack(x), np.from_dlpack(
        _Capsule(capsule)))


class _Capsule:
    """A producer handing over one capsule it already made."""

    def __init__(self, capsule):
        self._capsule = capsule

    def __dlpack__(self, **kwargs):
        return self._capsule

    def __dlpack_device__(self):
        return (1, 0)


def test_device_memory_export_asks_for_a_host_copy():
    # A device DLPack has no type for (an OpenCL or Level Zero GPU's
    # memory): the export must be a copy to the host. CUDA memory exports
    # as kDLCUDA (test_cuda_memory_exports_in_place).
    x = _device_memory_array(dlpack_type=False)
    with pytest.raises(BufferError, match="in memory the host does not "
                       "address"):
        x.__dlpack__()
    with pytest.raises(BufferError, match="without a copy"):
        x.__dlpack__(dl_device=(1, 0), copy=False)
    host = np.from_dlpack(x, device="cpu")  # dl_device=(1, 0): a copy
    np.testing.assert_array_equal(host, np.arange(8.0))


def _device_memory_array(dlpack_type=None):
    """An array in memory the host does not address, on a device DLPack
    has a type for (CUDA) or not (either, for None)."""
    for device in spirjit.devices():
        x = spirjit.asarray(np.arange(8.0), device=device)
        if not x._host_addressable and (
                dlpack_type is None or
                (x.__dlpack_device__()[0] == 2) == dlpack_type):
            return x
    pytest.skip("no device here has such memory")


def test_cuda_memory_exports_in_place():
    x = _device_memory_array(dlpack_type=True)
    assert x.__dlpack_device__()[0] == 2  # kDLCUDA
    x.__dlpack__()  # a capsule of the device's memory, no copy
    host = np.from_dlpack(x, device="cpu")  # dl_device=(1, 0): a copy
    np.testing.assert_array_equal(host, np.arange(8.0))


@pytest.mark.parametrize("copy", [None, True, False])
def test_from_dlpack_copy(device, copy):
    a = np.arange(8.0)
    if copy is False and not device.host_unified_memory:
        # The spec's answer where the memory cannot be used in place.
        with pytest.raises(BufferError, match="in place"):
            spirjit.from_dlpack(a, device=device, copy=copy)
        return
    x = spirjit.from_dlpack(a, device=device, copy=copy)
    np.testing.assert_array_equal(np.asarray(x), a)
    shares = x.usm_type == "host"  # over NumPy's memory
    assert shares == (copy is not True and device.host_unified_memory)


def test_from_dlpack_copy_false_that_needs_a_copy(device):
    a = np.arange(8.0)
    a.flags.writeable = False
    with pytest.raises(BufferError, match="cannot use this producer's host "
                       "memory in place"):
        spirjit.from_dlpack(a, device=device, copy=False)


def test_from_dlpack_of_a_device_array(device):
    x = spirjit.asarray(np.arange(5), device=device)
    assert spirjit.from_dlpack(x) is x
    y = spirjit.from_dlpack(x, copy=True)
    assert y is not x and y._buffer_key != x._buffer_key
    np.testing.assert_array_equal(np.asarray(y), np.arange(5))
    others = [d for d in spirjit.devices() if d != device]
    if not others:
        return
    z = spirjit.from_dlpack(x, device=others[0])
    assert z.device == others[0]
    np.testing.assert_array_equal(np.asarray(z), np.arange(5))
    with pytest.raises(BufferError, match="without a copy"):
        spirjit.from_dlpack(x, device=others[0], copy=False)


def test_memoryview_reads_a_copy_and_writes_go_in_place(device):
    x = spirjit.asarray(np.arange(12, dtype=np.int32).reshape(3, 4),
                        device=device)
    host_addressable(x)
    mv = memoryview(x)  # a read: the value, as np.asarray(x) copies it
    assert (mv.format, mv.shape, mv.strides, mv.readonly) == \
        ("i", (3, 4), (16, 4), False)
    assert mv.tolist() == np.arange(12).reshape(3, 4).tolist()
    mv[1, 2] = -7
    assert int(x[1, 2]) == 6
    struct.pack_into("i", x, 24, -7)  # a writable request: the memory
    assert int(x[1, 2]) == -7
    view = x[::2, ::-1]  # any strides
    assert memoryview(view).tolist() == np.asarray(view).tolist()
    assert memoryview(x.astype(np.complex64)).format == "Zf"
    assert memoryview(x > 3).format == "?"


def test_buffer_protocol_contiguity_requests(device):
    x = spirjit.asarray(np.arange(8.0), device=device)
    host_addressable(x)
    assert struct.unpack_from("d", x, 8) == (1.0,)  # a plain buffer
    assert struct.unpack_from("d", x[::2], 8) == (2.0,)  # a read: a copy
    with pytest.raises(TypeError, match="read-write bytes-like"):
        struct.pack_into("d", x[::2], 0, 1.0)  # in place: not contiguous
    struct.pack_into("d", x, 0, -1.0)
    assert float(x[0]) == -1.0


def test_buffer_protocol_on_device_memory_is_a_buffer_error():
    x = _device_memory_array()
    with pytest.raises(BufferError, match="has no memory the host addresses, "
                       "so no buffer protocol; copy it to the host with "
                       r"np.asarray\(x\)"):
        memoryview(x)
    # NumPy then takes the copy (__array__).
    np.testing.assert_array_equal(np.asarray(x), np.arange(8.0))


@pytest.mark.parametrize("how", ["buffer", "dlpack"])
def test_host_writes_from_views_of_the_same_memory(device, how):
    # A view of x's own memory assigned into x overlaps it: NumPy's answer,
    # where the driver's copy refused (CL_MEM_COPY_OVERLAP).
    x = spirjit.asarray(np.arange(10.0), device=device)
    host_addressable(x)
    # (np.frombuffer asks for a writable buffer: the memory itself.)
    host = np.frombuffer(x, np.float64) if how == "buffer" else \
        np.from_dlpack(x)
    x[1:] = host[:-1]
    expected = np.arange(10.0)
    expected[1:] = expected[:-1].copy()
    np.testing.assert_array_equal(np.array(x), expected)
    x[::-1] = np.asarray(x)
    np.testing.assert_array_equal(np.array(x), expected[::-1])
