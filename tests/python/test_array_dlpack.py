"""DLPack export as the Array API standard asks, so that every consumer that
follows it takes a DeviceArray: NumPy, and mpi4py (which asks for the
versioned capsule and failed with "dlpack: invalid capsule object")."""

import ctypes

import numpy as np
import pytest

import spirjit
from producers import DLPackOnly

_capsule_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_name.restype = ctypes.c_char_p
_capsule_name.argtypes = [ctypes.py_object]


def host_addressable(device):
    if not device.host_unified_memory:
        pytest.skip(f"{device.name}'s memory is not host-addressable")


def test_capsule_versions(device):
    host_addressable(device)
    x = spirjit.asarray(np.arange(6.0).reshape(2, 3), device=device)
    assert _capsule_name(x.__dlpack__()) == b"dltensor"
    assert _capsule_name(x.__dlpack__(max_version=(0, 8))) == b"dltensor"
    assert _capsule_name(x.__dlpack__(max_version=(1, 0))) == \
        b"dltensor_versioned"
    assert _capsule_name(x.__dlpack__(stream=None, max_version=(1, 2),
                                      copy=False)) == b"dltensor_versioned"
    assert x.__dlpack_device__() == (1, 0)


def test_numpy_reads_without_a_copy_and_copy_true_copies(device):
    host_addressable(device)
    x = spirjit.asarray(np.arange(6.0).reshape(2, 3), device=device)
    view = np.from_dlpack(x.T)
    np.testing.assert_array_equal(view, np.arange(6.0).reshape(2, 3).T)
    x[0, 0] = 42.0
    assert view[0, 0] == 42.0                  # the same memory
    copied = np.from_dlpack(x, copy=True)
    x[0, 0] = 7.0
    assert copied[0, 0] == 42.0                # a copy
    with pytest.raises(BufferError):
        x.__dlpack__(dl_device=(4, 0), copy=False)


def test_mpi4py_sendrecv_of_device_array_rows(device):
    host_addressable(device)
    MPI = pytest.importorskip("mpi4py.MPI")
    comm = MPI.COMM_SELF
    u = spirjit.asarray(np.arange(12.0).reshape(3, 4), device=device)
    # To itself: row 1 into row 0, read and written in place by mpi4py.
    comm.Sendrecv(u[1], dest=0, recvbuf=u[0], source=0)
    expected = np.arange(12.0).reshape(3, 4)
    expected[0] = expected[1]
    np.testing.assert_array_equal(np.asarray(u), expected)
    assert comm.allreduce(float(u.sum()), op=MPI.SUM) == expected.sum()


@spirjit.kernel
def _twice_the_index(item, x):
    i = item.get_id(0)
    x[i] = 2.0 * i


@pytest.mark.parametrize("producer", [np.asarray, DLPackOnly],
                         ids=["numpy", "other"])
def test_from_dlpack_of_host_memory_does_not_copy(device, producer):
    # Issue 31: the docs promised no copy, and from_dlpack copied.
    host_addressable(device)
    a = np.zeros(16)
    x = spirjit.from_dlpack(producer(a), device=device)
    assert x.device == device and x.usm_type == "host"
    spirjit.call_kernel(_twice_the_index, 16, x)
    np.testing.assert_array_equal(a, 2.0 * np.arange(16))
    x[3] = -1.0
    assert a[3] == -1.0
    a[5] = 7.0  # and the other way
    assert float(x[5]) == 7.0
    # Exported again, it is the producer's memory still.
    assert np.shares_memory(np.from_dlpack(x), a)


def test_from_dlpack_of_a_strided_view_keeps_the_producer_alive(device):
    host_addressable(device)
    x = spirjit.from_dlpack(DLPackOnly(np.arange(12.0)[::3]),
                            device=device)
    import gc
    gc.collect()
    assert x.shape == (4,)
    np.testing.assert_array_equal(np.asarray(x), [0.0, 3.0, 6.0, 9.0])
    view = x[1:]
    del x
    gc.collect()
    np.testing.assert_array_equal(np.asarray(view), [3.0, 6.0, 9.0])
