"""The kernels behind DeviceArray arithmetic: elementwise operations with
broadcasting.

Contract: every entry point takes DeviceArrays that already live on one
device (``_array_ops`` decides the device, the dtypes and the result shape)
and launches ordinary spirjit kernels there. Each kernel is Python source
generated from the operation, the dtypes and the rank, turned into a
``spirjit.kernel`` once per such key and kept in ``_KERNELS``; the kernel's
dispatcher then specialises it per layout and device and keeps the result in
memory and in the disk cache, exactly as for user kernels (the generated
source is deterministic, so the disk cache finds it in the next process).
"""

import hashlib
import linecache

import numpy as np

from . import _spirjit
from . import kernel_api as kapi

_KERNELS = {}


def _kernel(key, name, build_source, names=None, kernels=None):
    """The kernel for ``key`` in ``kernels`` (default: ``_KERNELS``);
    ``build_source()`` gives its source (a function called ``name`` that may
    use ``names`` as globals) the first time."""
    kernels = _KERNELS if kernels is None else kernels
    kernel = kernels.get(key)
    if kernel is not None:
        return kernel
    from . import Kernel
    source = build_source()
    digest = hashlib.sha1(source.encode()).hexdigest()[:12]
    # A file name that tracebacks and compile errors can show, with the
    # source in linecache so they can quote it.
    filename = f"<spirjit array kernel {name} {digest}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True),
                                 filename)
    namespace = {"np": np, "kapi": kapi}
    namespace.update(_DTYPE_CLASSES)
    namespace.update(names or {})
    exec(compile(source, filename, "exec"), namespace)
    kernel = Kernel(namespace[name])
    kernels[key] = kernel
    return kernel


_DTYPE_CLASSES = {f"T_{np.dtype(t).name}": np.dtype(t).type for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
    np.uint32, np.uint64, np.float32, np.float64, np.complex64,
    np.complex128)}


def cast(expression, source, target):
    """``expression`` (of dtype ``source``) converted to dtype ``target``, as
    kernel source."""
    source, target = np.dtype(source), np.dtype(target)
    if source == target:
        return expression
    if target == np.bool_:
        return f"({expression} != 0)"
    return f"T_{target.name}({expression})"


def broadcast_view(array, shape):
    """``array`` seen with ``shape`` (NumPy's broadcasting: missing leading
    axes and axes of length 1 repeat with stride 0)."""
    if array.shape == tuple(shape):
        return array
    lead = len(shape) - array.ndim
    strides = [0] * lead + [
        0 if n == 1 and m != 1 else st
        for n, m, st in zip(array.shape, shape[lead:], array.strides)]
    return array._view(list(shape), strides, array._offset)


def empty(shape, dtype, device, usm_type="device"):
    """Uninitialised C-contiguous memory on ``device`` (a runtime device)."""
    return _spirjit.empty(list(shape), np.dtype(dtype), device, usm_type)


def _index_lines(ndim):
    """Kernel lines that set i0..i{ndim-1} from the item, and the index text.
    Up to three axes are the launch's own; more are unravelled from a 1-D
    launch over the output's shape."""
    names = [f"i{d}" for d in range(ndim)]
    if ndim <= 3:
        lines = [f"    i{d} = item.get_id({d})" for d in range(ndim)]
    else:
        lines = ["    r = item.get_id(0)"]
        for d in reversed(range(ndim)):
            lines.append(f"    i{d} = r % out.shape[{d}]")
            lines.append(f"    r = r // out.shape[{d}]")
    return lines, ", ".join(names)


def _launch_range(shape):
    if len(shape) <= 3:
        return kapi.Range(*shape)
    return kapi.Range(int(np.prod(shape)))


def elementwise(name, expression, operands, loop_dtypes, out, names=None,
                kernels=None):
    """out[...] = expression over ``operands`` (DeviceArrays or NumPy
    scalars), broadcast to ``out``'s shape. ``expression`` names the operand
    values {0}, {1}, ... converted to ``loop_dtypes`` (inputs, then the
    result's) and may call ``names`` (globals of the kernel); the result is
    converted to ``out``'s dtype. ``kernels`` caches the kernels of an
    expression whose ``names`` are not the same for every caller."""
    result, shape = out, out.shape
    if 0 in shape:
        return result
    ndim = max(len(shape), 1)
    if not shape:  # 0-d: one element, seen as a 1-D array of one
        out = out._view([1], [0], out._offset)
        shape = (1,)
    # dtypes themselves in the key: their .name is Python code in NumPy,
    # and six lookups were a tenth of a small expression's time.
    arguments, kinds = [], []
    for value in operands:
        if isinstance(value, np.generic):
            arguments.append(value)
            kinds.append(("scalar", value.dtype))
        else:
            arguments.append(broadcast_view(value, shape))
            kinds.append(("array", value.dtype))
    key = ("elementwise", name, expression, tuple(kinds),
           tuple(np.dtype(d) for d in loop_dtypes), out.dtype, ndim)

    def source():
        lines, index = _index_lines(ndim)
        values = []
        for k, (kind, dtype) in enumerate(kinds):
            load = f"x{k}[{index}]" if kind == "array" else f"x{k}"
            lines.append(f"    v{k} = {cast(load, dtype, loop_dtypes[k])}")
            values.append(f"v{k}")
        result = cast(f"({expression.format(*values)})", loop_dtypes[-1],
                      out.dtype)
        lines.append(f"    out[{index}] = {result}")
        params = ", ".join(f"x{k}" for k in range(len(kinds)))
        return (f"def {name}(item, {params}, out):\n" + "\n".join(lines) +
                "\n")

    kernel = _kernel(key, name, source, names, kernels)
    from . import call_kernel
    call_kernel(kernel, _launch_range(shape), *arguments, out)
    return result
