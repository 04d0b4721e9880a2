"""The Array API's inspection object: ``spirjit.__array_namespace_info__()``
tells the devices spirjit has, the default one, and the dtypes each device
computes in (no float64 or complex128 where a device has no fp64).
"""

import numpy as np

from ._array_api import _DTYPES, isdtype


class _Info:
    """``__array_namespace_info__()``: the devices and dtypes spirjit has."""

    def capabilities(self):
        return {"boolean indexing": True, "data-dependent shapes": True,
                "max dimensions": 64}

    def default_device(self):
        from . import default_device
        return default_device()

    def devices(self):
        from . import devices
        return devices()

    def default_dtypes(self, *, device=None):
        fp64 = self._fp64(device)
        return {"real floating": np.dtype(np.float64 if fp64 else
                                          np.float32),
                "complex floating": np.dtype(np.complex128 if fp64 else
                                             np.complex64),
                "integral": np.dtype(np.int64),
                "indexing": np.dtype(np.int64)}

    def dtypes(self, *, device=None, kind=None):
        fp64 = self._fp64(device)
        out = {}
        for name, dtype in _DTYPES.items():
            if not fp64 and name in ("float64", "complex128"):
                continue
            if kind is None or isdtype(dtype, kind):
                out[name] = dtype
        return out

    @staticmethod
    def _fp64(device):
        from . import Device, default_device
        device = default_device() if device is None else Device(device) \
            if not isinstance(device, Device) else device
        return bool(device.has_fp64)


def __array_namespace_info__():
    return _Info()
