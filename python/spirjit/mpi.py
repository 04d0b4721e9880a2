"""DeviceArrays between MPI processes: halo exchanges and reductions that
stay on the device, with mpi4py to start the processes and for host data.

    from mpi4py import MPI
    import spirjit.mpi

    comm = spirjit.mpi.Communicator(MPI.COMM_WORLD)  # on local_device()
    comm.sendrecv(u[1], dest=up, recvbuf=u[0], source=down)
    total = comm.allreduce(partial)   # a DeviceArray; float(total) waits

How the data travels, ``Communicator.path``:

- ``"nccl"``: CUDA GPUs, where NVIDIA's NCCL (libnccl.so.2) loads. Sends,
  receives and reductions are queued on the device's stream behind the
  kernels that wrote their input: no host wait and no host copy.
- ``"mpi"``: mpi4py on the arrays themselves, for devices whose memory the
  host addresses (CPU devices: in place) and for GPUs under an MPI built
  with CUDA support (Open MPI's ``MPIX_Query_cuda_support()``).
- ``"host"``: GPUs otherwise: each transfer goes through pinned host
  buffers (a device-to-host copy, MPI, a host-to-device copy).

``path=`` or the environment variable ``SPIRJIT_MPI_PATH`` (``nccl``,
``mpi``, ``host``) chooses; by default each rank takes the first it can in
that order, and the ranks agree on NCCL only when every rank can use it.

A DeviceArray on a GPU handed to mpi4py itself (``comm.Send(x, ...)``)
under an MPI that cannot read GPU memory is refused with
``spirjit.errors.DLPackError`` (a BufferError) instead of crashing the
process.
"""

import ctypes
import os
import sys

import numpy as np

from . import _spirjit, errors
from ._array_ops import is_contiguous

PATHS = ("nccl", "mpi", "host")

_OPS = ("sum", "prod", "max", "min")


def _mpi():
    try:
        from mpi4py import MPI
    except ImportError as error:  # pragma: no cover - CI has mpi4py
        raise errors.NotSupportedError(
            "spirjit.mpi needs mpi4py (pip install mpi4py)") from error
    return MPI


def local_device(comm=None, filter=""):
    """This rank's device: the one SPIRJIT_DEVICE names where it is set in
    the rank's environment, else the devices matching ``filter`` (a
    filter string's backend and type, e.g. ``"cuda:gpu"``; "" for any) taken
    in turn by the node-local rank. Collective over ``comm``."""
    import spirjit
    MPI = _mpi()
    comm = MPI.COMM_WORLD if comm is None else comm
    local = comm.Split_type(MPI.COMM_TYPE_SHARED)
    rank = local.Get_rank()
    local.Free()
    if os.environ.get("SPIRJIT_DEVICE"):
        return spirjit.default_device()
    wanted = [part for part in filter.split(":")[:2]]
    matching = [d for d in spirjit.devices()
                if all(w == f for w, f in zip(wanted, (d.backend,
                                                       d.device_type)) if w)]
    if not matching:
        raise errors.InvalidArgumentError(
            f"no device matches '{filter}'; spirjit.devices() lists "
            + ", ".join(d.filter_string for d in spirjit.devices()))
    return matching[rank % len(matching)]


_cuda_aware = None


def mpi_reads_gpu_memory():
    """Whether the MPI library under mpi4py in this process takes CUDA
    device pointers (Open MPI's MPIX_Query_cuda_support(); False where the
    library does not say, or mpi4py is not loaded)."""
    global _cuda_aware
    if _cuda_aware is not None:
        return _cuda_aware
    if "mpi4py.MPI" not in sys.modules:
        return False
    _cuda_aware = False
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps
                     if "libmpi.so" in line.rsplit("/", 1)[-1]}
        for path in paths:
            query = getattr(ctypes.CDLL(path), "MPIX_Query_cuda_support",
                            None)
            if query is not None:
                query.restype = ctypes.c_int
                _cuda_aware = query() == 1
                break
    except OSError:
        pass
    return _cuda_aware


def _refuse_gpu_memory_for_mpi(array):
    """For __dlpack__(stream=-1, copy=False), the request mpi4py makes for
    memory that is not the CPU's: refused where mpi4py is loaded and its
    MPI cannot read GPU memory, since that MPI would crash the process."""
    if "mpi4py.MPI" in sys.modules and not mpi_reads_gpu_memory():
        raise errors.DLPackError(
            f"a DeviceArray on {array._device.filter_string} is GPU memory, "
            "and this process's MPI (under mpi4py) cannot read GPU memory "
            "(it was built without CUDA support); send it with "
            "spirjit.mpi.Communicator (NCCL, or pinned host buffers), or "
            "pass np.asarray(x) to mpi4py")


class Request:
    """A started exchange (Communicator.iexchange)."""

    def __init__(self, nccl):
        self._nccl = nccl

    def wait(self):
        """Orders the transfers before whatever is queued on the device
        next: a wait on the device, not on the host."""
        if self._nccl is not None:
            self._nccl.rejoin()
            self._nccl = None


class Communicator:
    """Exchanges and reductions of DeviceArrays between the ranks of an
    mpi4py communicator (``comm``, default COMM_WORLD), each rank on its own
    ``device`` (default: local_device(comm)). Collective: every rank of
    ``comm`` constructs one. ``path``: see the module's documentation."""

    def __init__(self, comm=None, device=None, path=None):
        import spirjit
        MPI = _mpi()
        self.comm = MPI.COMM_WORLD if comm is None else comm
        self.device = local_device(self.comm) if device is None else \
            spirjit.Device(device)
        self.rank = self.comm.Get_rank()
        self.size = self.comm.Get_size()
        requested = path or os.environ.get("SPIRJIT_MPI_PATH") or None
        if requested is not None and requested not in PATHS:
            raise errors.InvalidArgumentError(
                f"path {requested!r} is not one of {', '.join(PATHS)} "
                "(SPIRJIT_MPI_PATH or Communicator(path=...))")
        able = self._able()
        if requested is not None and requested not in able:
            raise errors.InvalidArgumentError(
                f"path {requested!r} cannot carry arrays of "
                f"{self.device.filter_string} on rank {self.rank}: it can "
                f"take {', '.join(able)}" + (
                    " (NCCL did not load)" if requested == "nccl" and
                    self.device.backend == "cuda" else ""))
        mine = requested or able[0]
        # NCCL only when every rank takes it, each on a GPU of its own (NCCL
        # refuses two ranks on one GPU); the others speak MPI, and a GPU
        # rank that wanted NCCL then takes the next path it can.
        where = (MPI.Get_processor_name(), self.device.filter_string)
        everyone = self.comm.allgather((mine, where))
        paths = [p for p, _ in everyone]
        shared = len({w for _, w in everyone}) < len(everyone)
        if mine == "nccl" and (shared or any(p != "nccl" for p in paths)):
            if requested == "nccl":
                raise errors.InvalidArgumentError(
                    "path 'nccl' needs every rank on NCCL, each on a GPU of "
                    f"its own; ranks take {paths} on "
                    f"{[w[1] for _, w in everyone]}")
            mine = next(p for p in able if p != "nccl")
        self.path = mine
        self._nccl = None
        self._staging = {}
        if mine == "nccl":
            unique = _spirjit._nccl_unique_id() if self.rank == 0 else None
            unique = self.comm.bcast(unique, root=0)
            self._nccl = _spirjit._NcclCommunicator(
                self.device._device, self.size, unique, self.rank)

    def _able(self):
        """The paths this rank's device can take, best first."""
        import spirjit
        if self.device.backend == "cuda":
            able = []
            if _spirjit._nccl_available():
                able.append("nccl")
            if mpi_reads_gpu_memory():
                able.append("mpi")
            return able + ["host"]
        probe = spirjit.empty(1, dtype="uint8", device=self.device)
        return ["mpi", "host"] if probe._host_addressable else ["host"]

    def __repr__(self):
        return (f"<spirjit.mpi.Communicator rank {self.rank} of {self.size} "
                f"on {self.device.filter_string}, path {self.path!r}>")

    # -- checks ----------------------------------------------------------

    def _own(self, array, role):
        """``array`` as one this communicator may send from or receive
        into: a C-contiguous DeviceArray on its device. (Cheap: a halo
        exchange checks four arrays every sweep.)"""
        import spirjit
        if not isinstance(array, spirjit.DeviceArray):
            if self.path == "mpi" and isinstance(array, np.ndarray):
                return array
            raise errors.InvalidArgumentError(
                f"{role} must be a DeviceArray on {self.device.filter_string},"
                f" not {type(array).__name__}")
        if array._device is not self.device._device and \
                array.device != self.device:
            raise errors.DeviceInferenceError(
                f"{role} is on {array.device.filter_string}, but this "
                f"communicator's device is {self.device.filter_string}")
        if not is_contiguous(array):
            raise errors.InvalidArgumentError(
                f"{role} must be C-contiguous (a row of a C-ordered grid "
                "is; a column is not): pass x.copy() and copy back")
        if self._nccl is not None and array.dtype in (np.int16, np.uint16):
            raise errors.InvalidArgumentError(
                f"NCCL has no {array.dtype} type: send {role} as int32")
        return array

    # -- operations ------------------------------------------------------

    def sendrecv(self, sendbuf, dest, recvbuf, source):
        """Sends ``sendbuf`` to rank ``dest`` and receives ``recvbuf`` from
        rank ``source`` (either may be MPI.PROC_NULL), as MPI's Sendrecv.
        On the "nccl" path it returns once the transfer is queued behind
        the kernels that wrote ``sendbuf``; the kernels queued after it
        see ``recvbuf``."""
        self.exchange([(sendbuf, dest, recvbuf, source)])

    def exchange(self, transfers):
        """Several sendrecv's at once, each ``(sendbuf, dest, recvbuf,
        source)``: on the "nccl" path one group (one launch on the
        device), elsewhere one Sendrecv each in turn. Every rank lists its
        transfers in the same order (halo rows: up first, then down)."""
        self.iexchange(transfers).wait()

    def iexchange(self, transfers):
        """exchange() started, as MPI's nonblocking calls: returns a
        Request whose ``wait()`` orders the transfers before what is queued
        on the device next. On the "nccl" path they run on a stream beside
        the device's, so kernels queued before ``wait()`` run while they
        travel: compute the rows you send first, start the exchange,
        compute the rest, then wait. Until ``wait()`` those kernels must
        neither write the arrays sent nor touch the arrays received (MPI's
        rule for nonblocking buffers). Elsewhere the transfers are done when
        it returns."""
        checked = self._checked(transfers)
        if self._nccl is not None:
            MPI = _mpi()
            null = MPI.PROC_NULL
            self._nccl.sendrecv([(s, -1 if d == null else d, r,
                                  -1 if o == null else o)
                                 for s, d, r, o in checked], True)
            return Request(self._nccl)
        self._blocking(checked)
        return Request(None)

    def _checked(self, transfers):
        checked = []
        for sendbuf, dest, recvbuf, source in transfers:
            sendbuf = self._own(sendbuf, "sendbuf")
            recvbuf = self._own(recvbuf, "recvbuf")
            if sendbuf.dtype != recvbuf.dtype or \
                    sendbuf.size != recvbuf.size:
                raise errors.InvalidArgumentError(
                    f"sendbuf ({sendbuf.size} x {sendbuf.dtype}) and recvbuf "
                    f"({recvbuf.size} x {recvbuf.dtype}) must hold the same "
                    "number of elements of one dtype")
            checked.append((sendbuf, dest, recvbuf, source))
        return checked

    def _blocking(self, checked):
        MPI = _mpi()
        for sendbuf, dest, recvbuf, source in checked:
            if self.path == "mpi":
                self.comm.Sendrecv(sendbuf, dest=dest, recvbuf=recvbuf,
                                   source=source)
                continue
            out = self._stage(sendbuf, "send")
            into = self._stage(recvbuf, "receive")
            if out is None:  # no pinned memory: plain host copies
                out = np.asarray(sendbuf)
                into = np.empty(recvbuf.shape, recvbuf.dtype)
            else:
                out[...] = sendbuf
            self.comm.Sendrecv(out, dest=dest, recvbuf=into, source=source)
            if source != MPI.PROC_NULL:
                recvbuf[...] = into

    def allreduce(self, x, op="sum"):
        """``op`` ("sum", "prod", "max", "min") of ``x`` over the ranks,
        elementwise: a new DeviceArray of ``x``'s shape and dtype on this
        rank's device (a 0-d one for a 0-d ``x``, such as a ``.sum()``).
        Reading it (``float(r)``) waits; queuing kernels on it does not."""
        import spirjit
        if op not in _OPS:
            raise errors.InvalidArgumentError(
                f"op {op!r} is not one of {', '.join(_OPS)}")
        if not isinstance(x, spirjit.DeviceArray):
            x = spirjit.asarray(x, device=self.device)
        if x.device != self.device:
            raise errors.DeviceInferenceError(
                f"x is on {x.device.filter_string}, but this communicator's "
                f"device is {self.device.filter_string}")
        if not is_contiguous(x):
            x = x.copy()
        if x.dtype == np.bool_ and op in ("sum", "prod"):
            raise errors.InvalidArgumentError(
                f"op {op!r} of booleans: use 'max' (any) or 'min' (all), or "
                "convert to an integer dtype")
        if self._nccl is not None:
            if x.dtype.kind == "c" and op != "sum":
                raise errors.InvalidArgumentError(
                    f"NCCL reduces complex numbers only by 'sum', not {op!r}")
            self._own(x, "x")
            out = spirjit.empty(x.shape, dtype=x.dtype, device=self.device)
            self._nccl.allreduce(x, out, op)
            return out
        MPI = _mpi()
        mpi_op = {"sum": MPI.SUM, "prod": MPI.PROD, "max": MPI.MAX,
                  "min": MPI.MIN}[op]
        host = np.ascontiguousarray(np.asarray(x))
        total = np.empty_like(host)
        self.comm.Allreduce(host, total, op=mpi_op)
        return spirjit.asarray(total, device=self.device)

    def _stage(self, array, role):
        """A pinned host DeviceArray of ``array``'s shape and dtype, kept for
        the next transfer of that kind; None where the device has no memory
        that the host addresses."""
        import spirjit
        key = (role, array.shape, array.dtype.str)
        if key not in self._staging:
            pinned = spirjit.empty(array.shape, dtype=array.dtype,
                                   device=self.device, usm_type="host")
            self._staging[key] = pinned if pinned._host_addressable else None
        return self._staging[key]
