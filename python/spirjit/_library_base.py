"""What every module of the array library's kernels shares: argument
checks, the output allocation, the launch without waiting, and the
device's properties read once.

Contract: helpers only; each takes or makes DeviceArrays of one device.
"""

from . import _spirjit, errors
from . import kernel_api as kapi


def _check_array(x, name, ndim=None):
    if not isinstance(x, _spirjit.DeviceArray):
        raise errors.TypingError(
            f"{name} must be a DeviceArray, not {type(x).__name__}")
    if ndim is not None and x.ndim != ndim:
        raise errors.InvalidArgumentError(
            f"{name} must have {ndim} dimension{'s' if ndim != 1 else ''}, "
            f"not {x.ndim} (shape {tuple(x.shape)})")
    return x


def _device(*arrays):
    from ._array_ops import common_device
    return common_device(arrays, "the arrays")


def _empty(shape, dtype, like):
    from ._array_ops import _empty as empty
    return empty(shape, dtype, like._device, like.usm_type)


def _enqueue(kern, space, *args):
    """Launches ``kern`` over ``space`` without waiting for it, as every
    kernel of the library is launched: the device's queue runs launches in
    order, a host read waits for what was queued before it, and a launch's
    memory lives until it has run. (``call_kernel`` waits: on the H100 each
    wait cost 11 us, so a scan of 1000 elements, five launches, took
    113 us.)"""
    _spirjit.call_kernel_async(kern, space, None, *args)


# Launch shapes and local memories, made once each: the library builds a
# few a call, and their checks cost as much as a launch on a GPU's host
# (an NdRange 4 us, a LocalAccessor 2 us on the H200's). Bounded: a
# program sorting arrays of ever new sizes keeps the last few hundred.
_MADE = {}


def _made(key, make):
    made = _MADE.get(key)
    if made is None:
        if len(_MADE) >= 512:
            _MADE.clear()
        made = _MADE[key] = make()
    return made


def _range(extents):
    """kapi.Range(*extents) for a tuple of extents."""
    return _made(("range", extents), lambda: kapi.Range(*extents))


def _nd_range(global_range, local_range):
    """kapi.NdRange(global_range, local_range), both tuples."""
    return _made(("nd", global_range, local_range),
                 lambda: kapi.NdRange(global_range, local_range))


def _local(shape, dtype):
    """kapi.LocalAccessor(shape, dtype) for a tuple shape."""
    return _made(("local", shape, dtype),
                 lambda: kapi.LocalAccessor(shape, dtype))


def _launch(kern, extents, *args):
    _enqueue(kern, _range(tuple(extents)), *args)


def _as_row(x):
    """A 1-D DeviceArray as a (1, n) view."""
    return x._view([1, x.shape[0]], [0, x.strides[0]], x._offset)


def _same_buffer(a, b):
    return a._buffer_key == b._buffer_key


_PROPERTIES = {}


def _properties(x):
    """The properties of x's device, read once a device (a dict built
    anew by each ``properties()``)."""
    device = x._device
    props = _PROPERTIES.get(device)
    if props is None:
        props = _PROPERTIES[device] = device.properties()
    return props


_WIDTHS = {}


def _group_width(x):
    """The work-group width of the tiled kernels on x's device: 256 items
    where the device allows, else its largest power of two."""
    device = x._device
    width = _WIDTHS.get(device)
    if width is None:
        limit = _properties(x).get("max_work_group_size", 256) or 256
        width = 1
        while width * 2 <= min(limit, 256):
            width *= 2
        _WIDTHS[device] = width
    return width
