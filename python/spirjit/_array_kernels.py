"""The kernels behind DeviceArray arithmetic that the array-expression graph
(launch/ArrayGraph.h) does not make yet: tree reductions of complex numbers
and a tiled matrix product.

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


def _kernel(key, name, build_source):
    """The kernel for ``key`` in ``_KERNELS``; ``build_source()`` gives its
    source (a function called ``name``) the first time."""
    kernel = _KERNELS.get(key)
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
    exec(compile(source, filename, "exec"), namespace)
    kernel = Kernel(namespace[name])
    _KERNELS[key] = kernel
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


def empty(shape, dtype, device, usm_type="device"):
    """Uninitialised C-contiguous memory on ``device`` (a runtime device)."""
    return _spirjit.empty(list(shape), np.dtype(dtype), device, usm_type)


# Reductions. A pass reduces each row of a 2-D (M, K) view to G partial
# results: work-item (m, k) folds x[m, k], x[m, k + G*L], ... into one value,
# then each work-group of L items folds those in local memory as a tree.
# Passes repeat over the partials until one value per row is left.
_COMBINE = {
    "sum": "{0} + {1}",
    "prod": "{0} * {1}",
    # NaN wins, as in NumPy's minimum and maximum
    "min": "{0} if ({0} <= {1} or {0} != {0}) else {1}",
    "max": "{0} if ({0} >= {1} or {0} != {0}) else {1}",
}
_BOOL_COMBINE = {"sum": "{0} or {1}", "prod": "{0} and {1}",
                 "min": "{0} and {1}", "max": "{0} or {1}"}


def _reduce_source(name, op, in_dtype, acc_dtype):
    acc = np.dtype(acc_dtype)
    combine = (_BOOL_COMBINE if acc == np.bool_ else _COMBINE)[op]
    load = cast("x[m, k]", in_dtype, acc)
    if op in ("sum", "prod"):
        start = cast(str(0 if op == "sum" else 1), np.int64, acc)
    else:  # min and max: any element of the row is a neutral start
        start = cast("x[m, 0]", in_dtype, acc)
    if acc.kind == "c":
        # Local memory holds real numbers: a complex value is kept as its
        # two parts, in loc and loc_im.
        def local(i):
            return f"T_{acc.name}(complex(loc[{i}], loc_im[{i}]))"

        def store(i, value, pad):
            return (f"v = {value}\n{pad}loc[{i}] = v.real\n"
                    f"{pad}loc_im[{i}] = v.imag")
        params = "loc, loc_im"
    else:
        def local(i):
            return f"loc[{i}]"

        def store(i, value, pad):
            return f"loc[{i}] = {value}"
        params = "loc"
    return f"""\
def {name}(item, x, out, {params}):
    m = item.get_global_id(0)
    lid = item.get_local_id(1)
    g = item.get_group()
    k = item.get_global_id(1)
    step = item.get_global_range(1)
    n = x.shape[1]
    acc = {start}
    while k < n:
        acc = {combine.format("acc", load)}
        k += step
    {store("lid", "acc", "    ")}
    kapi.group_barrier(g)
    s = item.get_local_range(1) // 2
    while s > 0:
        if lid < s:
            {store("lid", combine.format(local("lid"), local("lid + s")),
                   "            ")}
        kapi.group_barrier(g)
        s //= 2
    if lid == 0:
        out[m, g.get_group_id(1)] = {local(0)}
"""


def _work_group_size(device):
    size = 1
    limit = min(256, device.properties()["max_work_group_size"])
    while size * 2 <= limit:
        size *= 2
    return size


def reduce_rows(op, x, acc_dtype):
    """The ``op`` ("sum", "prod", "min", "max") of each row of the 2-D
    DeviceArray ``x`` (M, K), K > 0, as a new (M, 1) array of ``acc_dtype``."""
    device = x._device
    L = _work_group_size(device)
    acc_dtype = np.dtype(acc_dtype)
    while True:
        rows, n = x.shape
        groups = max(1, min(256, -(-n // (L * 8))))
        name = f"reduce_{op}"
        key = ("reduce", op, x.dtype.name, acc_dtype.name)
        kernel = _kernel(key, name, lambda: _reduce_source(
            name, op, x.dtype, acc_dtype))
        partial = empty((rows, groups), acc_dtype, device)
        from . import call_kernel
        if acc_dtype.kind == "c":
            part = np.empty(0, acc_dtype).real.dtype
            local = [kapi.LocalAccessor((L,), part) for _ in range(2)]
        else:
            local = [kapi.LocalAccessor((L,), acc_dtype)]
        call_kernel(kernel, kapi.NdRange((rows, groups * L), (1, L)), x,
                    partial, *local)
        if groups == 1:
            return partial
        x = partial


_MATMUL_TILE = 16


def _matmul_source(name, dtypes, acc_dtype):
    T = _MATMUL_TILE
    a = cast("a[i, t + lj]", dtypes[0], acc_dtype)
    b = cast("b[t + li, j]", dtypes[1], acc_dtype)
    zero = cast("0", np.int64, acc_dtype)
    return f"""\
def {name}(item, a, b, c, ta, tb):
    i = item.get_global_id(0)
    j = item.get_global_id(1)
    li = item.get_local_id(0)
    lj = item.get_local_id(1)
    g = item.get_group()
    rows = a.shape[0]
    inner = a.shape[1]
    cols = b.shape[1]
    acc = {zero}
    t = 0
    while t < inner:
        if i < rows and t + lj < inner:
            ta[li * {T} + lj] = {a}
        else:
            ta[li * {T} + lj] = {zero}
        if t + li < inner and j < cols:
            tb[li * {T} + lj] = {b}
        else:
            tb[li * {T} + lj] = {zero}
        kapi.group_barrier(g)
        for q in range({T}):
            acc += ta[li * {T} + q] * tb[q * {T} + lj]
        kapi.group_barrier(g)
        t += {T}
    if i < rows and j < cols:
        c[i, j] = acc
"""


def matmul(a, b, out):
    """out = a @ b for 2-D DeviceArrays (any layout), tiled through local
    memory; ``out`` is a 2-D DeviceArray of the result dtype."""
    T = _MATMUL_TILE
    rows, cols = out.shape
    if rows == 0 or cols == 0:
        return out
    acc = out.dtype
    name = "matmul"
    key = ("matmul", a.dtype.name, b.dtype.name, acc.name)
    kernel = _kernel(key, name, lambda: _matmul_source(
        name, (a.dtype, b.dtype), acc))
    space = kapi.NdRange((-(-rows // T) * T, -(-cols // T) * T), (T, T))
    from . import call_kernel
    call_kernel(kernel, space, a, b, out, kapi.LocalAccessor((T * T,), acc),
                kapi.LocalAccessor((T * T,), acc))
    return out
