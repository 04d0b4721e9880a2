"""dpctl's device and queue names over spirjit.Device.

The runner runs the suite once per device and names that device through
SPIRJIT_DEVICE: the shim shows it as the only SYCL device, so every
``SyclDevice("opencl:cpu:0")`` and ``SyclQueue()`` of a test is the device
under test. A SyclQueue is a device wrapper: spirjit has no user queues.
"""

import enum

import spirjit as _sj

from . import tensor  # noqa: F401


class backend_type(enum.Enum):  # noqa: N801 (dpctl's spelling)
    opencl = "opencl"
    level_zero = "level_zero"
    cuda = "cuda"
    host = "host"


class device_type(enum.Enum):  # noqa: N801
    cpu = "cpu"
    gpu = "gpu"
    accelerator = "accelerator"
    host = "host"


class SyclQueueCreationError(Exception):
    pass


class SyclDeviceCreationError(ValueError):
    pass


def _devices():
    return [_sj.default_device()]


def _matches(device, backend=None, type_=None):
    backend = getattr(backend, "value", backend)
    type_ = getattr(type_, "value", type_)
    return backend in (None, "all", device.backend) and \
        type_ in (None, "all", device.device_type)


def _from_filter(filter_string):
    parts = [p for p in (filter_string or "").split(":") if p]
    backend = next((p for p in parts if p in backend_type.__members__), None)
    type_ = next((p for p in parts if p in device_type.__members__), None)
    index = next((int(p) for p in parts if p.isdigit()), 0)
    found = [d for d in _devices() if _matches(d, backend, type_)]
    # The device under test by its own filter string ("opencl:cpu:1"): the
    # index is its place among the runtime's devices, not in this list.
    own = [d for d in found if d.filter_string == filter_string]
    if own:
        return own[0]
    if index >= len(found):
        raise SyclDeviceCreationError(
            f"no device matches '{filter_string}' (the device under test is "
            f"{_sj.default_device().filter_string})")
    return found[index]


class SyclDevice:
    def __init__(self, filter_string=None):
        if isinstance(filter_string, SyclDevice):
            self._spirjit_device = filter_string._spirjit_device
        elif isinstance(filter_string, _sj.Device):
            self._spirjit_device = _sj.Device(filter_string)
        else:
            self._spirjit_device = _from_filter(filter_string)

    @property
    def name(self):
        return self._spirjit_device.name

    @property
    def backend(self):
        return backend_type(self._spirjit_device.backend)

    @property
    def device_type(self):
        return device_type(self._spirjit_device.device_type)

    @property
    def filter_string(self):
        return self._spirjit_device.filter_string

    @property
    def has_aspect_fp64(self):
        return self._spirjit_device.has_fp64

    @property
    def has_aspect_fp16(self):
        return False

    def __eq__(self, other):
        return isinstance(other, SyclDevice) and \
            self._spirjit_device == other._spirjit_device

    def __hash__(self):
        return hash(self._spirjit_device)


class SyclQueue(_sj.Device):
    """A spirjit.Device under dpctl's name: spirjit has no user queues, so
    a queue is its device (equal queues are queues of one device), and jit
    functions take it as a Device argument."""

    def __init__(self, device=None, *args, **kwargs):
        try:
            sycl_device = SyclDevice(device)
        except SyclDeviceCreationError as e:
            raise SyclQueueCreationError(str(e)) from e
        self._device = sycl_device._spirjit_device._device

    @property
    def sycl_device(self):
        return SyclDevice(_sj.Device(self))

    @property
    def _spirjit_device(self):
        return _sj.Device(self)

    def wait(self):
        pass


class _QueueManager:
    @staticmethod
    def get_device_cached_queue(device):
        return SyclQueue(device)


_sycl_queue_manager = _QueueManager()

# dpnp's array attributes, named over spirjit's: the device and its queue.
_sj.DeviceArray.sycl_device = property(lambda a: SyclDevice(a.device))
_sj.DeviceArray.sycl_queue = property(lambda a: SyclQueue(a.device))


class SyclEvent:
    def wait(self):
        pass


class _Platform:
    def __init__(self, device):
        self.backend = backend_type(device.backend)
        self.name = device.platform


def select_default_device():
    return SyclDevice(_sj.default_device())


def select_cpu_device():
    return SyclDevice("cpu")


def select_gpu_device():
    return SyclDevice("gpu")


def get_devices(backend=None, device_type=None):
    return [SyclDevice(d) for d in _devices()
            if _matches(d, backend, device_type)]


def get_num_devices(backend=None, device_type=None):
    return len(get_devices(backend, device_type))


def get_platforms():
    return [_Platform(d) for d in _devices()]
