"""The rest of ndarray's everyday methods on DeviceArrays: ``all``/``any``,
``argmax``/``argmin``, ``var``/``std``, ``clip``, ``round``, ``conj``,
``fill``, ``ravel``/``flatten``/``squeeze``/``swapaxes``, ``real``/``imag``,
``itemsize``,
``nbytes``, ``tolist``/``tobytes``, ``view``, the methods of NumPy functions
(``cumsum``, ``argsort``, ``nonzero``, ``take``, ``sort`` in place...), and
the NumPy functions of the same
names (``np.all(x)``, ``np.argmax(x, axis=1)``...); and NumPy's
``*_like`` constructors of a DeviceArray, which make DeviceArrays beside it.

Contract: ``install(DeviceArray)`` adds them. Each is composed from
``_array_ops``' device operations (ufuncs, ``where``, reductions, views), so
it computes on the array's device and returns DeviceArrays there, with
NumPy's result shapes, dtypes and errors; ``tolist``/``tobytes`` copy to the
host, as their results live there. ``out=`` is not supported
(NotImplementedError), as for the reductions.
"""

import operator

import numpy as np

from . import _array_ops as ops
from . import _spirjit, errors
from ._spirjit import DeviceArray


def _truth(name, op):
    def method(self, axis=None, out=None, keepdims=False):
        if out is not None:
            return ops.write_out(out, method(self, axis, None, keepdims),
                                 name)
        axes = ops.normalize_axes(self, axis)
        if any(self.shape[a] == 0 for a in axes):
            # min/max have no identity; NumPy: all([]) True, any([]) False
            shape = np.zeros(self.shape, np.bool_).all(
                axis=tuple(axes), keepdims=keepdims).shape
            return _spirjit.to_device(np.full(shape, name == "all"),
                                      self._device, self.usm_type)
        return ops.reduce(op, ops.apply_ufunc(np.not_equal, (self, 0)),
                          axis, keepdims)
    method.__name__ = name
    method.__doc__ = (f"NumPy's {name}: whether {name} of the elements along "
                      "``axis`` (None: every axis; an int or a tuple) are "
                      "nonzero, as a bool DeviceArray on the array's device.")
    return method


def _arg(name, op):
    def method(self, axis=None, out=None, *, keepdims=False):
        if out is not None:
            return ops.write_out(out, method(self, axis, None,
                                             keepdims=keepdims), name)
        if self.size == 0:
            raise errors.InvalidArgumentError(
                f"attempt to get {name} of an empty sequence")
        x = self
        if axis is None:
            x = ravel(x)
            axis = 0
        axis = ops.normalize_axes(x, axis)[0]
        if x.dtype.kind != "c":
            # One reduction kernel (two passes where the rows are long):
            # each group's extreme and the least index holding it.
            _, _, acc = ops.reduction_dtypes(op, x.dtype)
            first = _spirjit._reduce(x, "arg" + op, [axis], acc,
                                     np.dtype(np.intp))
            if keepdims:
                return ops.reshape(first, tuple(
                    1 if a == axis or self.ndim != x.ndim else n
                    for a, n in enumerate(self.shape)))
            return first
        extreme = ops.reduce(op, x, axis, True)
        hit = ops.apply_ufunc(np.equal, (x, extreme))
        if x.dtype.kind in "fc":
            # NaN is the extreme, as in NumPy: the first NaN's index
            hit = ops.where(ops.apply_ufunc(np.isnan, (extreme,)),
                            ops.apply_ufunc(np.isnan, (x,)), hit)
        n = x.shape[axis]
        # The index along the axis, computed in the kernel (no memory).
        index = _spirjit._index([n if a == axis else 1
                                 for a in range(x.ndim)], axis, x._device)
        first = ops.reduce("min", ops.where(hit, index, np.intp(n)), axis,
                           True)
        if keepdims:
            if self.ndim != x.ndim:  # axis=None: all axes kept, of one
                return ops.reshape(first, (1,) * self.ndim)
            return first
        return squeeze(first, axis)
    method.__name__ = name
    method.__doc__ = (f"NumPy's {name}: the index of the first {op}imum "
                      "along ``axis`` (None: in the flattened array), or of "
                      "the first NaN, as an intp DeviceArray.")
    return method


def var(x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """NumPy's var: the mean of abs(x - x.mean())**2 over ``axis``, divided
    by (count - ddof) rather than count."""
    if out is not None:
        return ops.write_out(out, var(x, axis, dtype, None, ddof, keepdims),
                             "var")
    if dtype is not None:
        x = ops.astype(x, dtype)
    axes = ops.normalize_axes(x, axis)
    count = int(np.prod([x.shape[a] for a in axes]))
    mean = ops.reduce("mean", x, axis, True)
    deviation = ops.apply_ufunc(np.subtract, (x, mean))
    if deviation.dtype.kind == "c":
        deviation = ops.apply_ufunc(np.absolute, (deviation,))
    squares = ops.apply_ufunc(np.square, (deviation,))
    total = ops.reduce("sum", squares, axis, keepdims)
    return ops.apply_ufunc(np.divide, (total, max(count - ddof, 0)))


def std(x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """NumPy's std: the square root of ``var`` with the same arguments."""
    root = ops.apply_ufunc(np.sqrt, (var(x, axis, dtype, None, ddof,
                                         keepdims),))
    return root if out is None else ops.write_out(out, root, "std")


def clip(x, min=None, max=None, out=None, **kwargs):
    """NumPy's clip: maximum(x, min), then minimum(..., max); NaN stays."""
    if out is not None:
        return ops.write_out(out, clip(x, min, max, None, **kwargs), "clip")
    min = kwargs.pop("a_min", min)
    max = kwargs.pop("a_max", max)
    if kwargs:
        raise errors.TypingError(f"DeviceArray.clip does not take "
                                 f"{', '.join(sorted(kwargs))}")
    result = x
    if min is not None:
        result = ops.apply_ufunc(np.maximum, (result, min))
    if max is not None:
        result = ops.apply_ufunc(np.minimum, (result, max))
    return ops.copy(result) if result is x else result


def round(x, decimals=0, out=None):
    """NumPy's round: half to even at ``decimals`` places (through a
    scaling by 10**decimals, as NumPy computes it); integers round to
    negative places only."""
    if out is not None:
        return ops.write_out(out, round(x, decimals), "round")
    decimals = operator.index(decimals)
    if x.dtype.kind in "biu":
        if decimals >= 0:
            return ops.copy(x)
        scale = 10 ** -decimals
        scaled = ops.apply_ufunc(np.divide, (x, scale))
        rounded = ops.apply_ufunc(np.rint, (scaled,))
        return ops.astype(ops.apply_ufunc(np.multiply, (rounded, scale)),
                          x.dtype)
    if decimals == 0:
        return ops.apply_ufunc(np.rint, (x,))
    if decimals > 0:
        scale = 10.0 ** decimals
        rounded = ops.apply_ufunc(np.rint, (ops.apply_ufunc(
            np.multiply, (x, scale)),))
        return ops.apply_ufunc(np.divide, (rounded, scale))
    scale = 10.0 ** -decimals
    rounded = ops.apply_ufunc(np.rint, (ops.apply_ufunc(
        np.divide, (x, scale)),))
    return ops.apply_ufunc(np.multiply, (rounded, scale))


def ravel(x, order="C"):
    """A 1-D view when ``x`` is C-contiguous, else a 1-D copy."""
    return ops.reshape(x, -1, order=order)


def flatten(x, order="C"):
    """A 1-D copy, always (order='F': Fortran order)."""
    if ops._layout_order(x, order) == "F":
        return ops.reshape(ops.copy(ops.transpose(x)), -1)
    return ops.reshape(ops.copy(x), -1)


def squeeze(x, axis=None):
    """A view without the axes of length one (or those of ``axis``)."""
    if axis is None:
        drop = [a for a in range(x.ndim) if x.shape[a] == 1]
    else:
        drop = ops.normalize_axes(x, axis)
        if any(x.shape[a] != 1 for a in drop):
            raise errors.InvalidArgumentError(
                "cannot select an axis to squeeze out which "
                "has size not equal to one")
    keep = [a for a in range(x.ndim) if a not in drop]
    return x._view([x.shape[a] for a in keep], [x.strides[a] for a in keep],
                   x._offset)


def swapaxes(x, axis1, axis2):
    """A view with axes ``axis1`` and ``axis2`` interchanged."""
    a, b = (ops.normalize_axes(x, operator.index(v))[0]
            for v in (axis1, axis2))
    order = list(range(x.ndim))
    order[a], order[b] = order[b], order[a]
    return ops.transpose(x, order)


def _part(x, which):
    """x.real or x.imag: a view of each element's part for complex ``x``,
    as in NumPy (writes reach ``x``); for real ``x``, ``x`` itself and a
    new array of zeros."""
    if x.dtype.kind != "c":
        if which == "real":
            return x
        import spirjit
        return spirjit.zeros_like(x)
    part = np.empty(0, x.dtype).real.dtype
    offset = x._offset + (part.itemsize if which == "imag" else 0)
    return x._view(list(x.shape), list(x.strides), offset, part)


def _set_part(x, which, value):
    if which == "imag" and x.dtype.kind != "c":
        raise errors.TypingError("array does not have imaginary part to set")
    _part(x, which)[...] = value


def fill(x, value):
    """Sets every element to ``value``, on the device."""
    x[...] = value


def _like(kind, prototype, fill, dtype, order, shape, device):
    """np.empty_like/zeros_like/ones_like/full_like of a DeviceArray: a
    DeviceArray on its device, C-ordered (NumPy's device="cpu" asks for a
    NumPy array)."""
    dtype = np.dtype(dtype) if dtype is not None else prototype.dtype
    shape = prototype.shape if shape is None else shape
    if device is not None:
        if device != "cpu":
            raise errors.InvalidArgumentError(
                f"numpy.{kind}_like's device= is 'cpu' "
                f"(NumPy's only one), not {device!r}; use "
                f"spirjit.{kind}_like(x, device=...)")
        return getattr(np, f"{kind}_like")(np.empty(0, dtype), *fill,
                                           shape=shape)
    if order not in ("K", "A", "C"):
        raise errors.NotSupportedError(
            f"numpy.{kind}_like of a DeviceArray makes C-ordered arrays, "
            f"not order={order!r}")
    import spirjit
    return getattr(spirjit, kind)(shape, *fill, dtype,
                                  device=prototype.device,
                                  usm_type=prototype.usm_type)


def _empty_like(prototype, dtype=None, order="K", subok=True, shape=None, *,
                device=None):
    return _like("empty", prototype, (), dtype, order, shape, device)


def _zeros_like(a, dtype=None, order="K", subok=True, shape=None, *,
                device=None):
    return _like("zeros", a, (), dtype, order, shape, device)


def _ones_like(a, dtype=None, order="K", subok=True, shape=None, *,
               device=None):
    return _like("ones", a, (), dtype, order, shape, device)


def _full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None,
               *, device=None):
    return _like("full", a, (fill_value,), dtype, order, shape, device)


_METHODS = {
    "all": _truth("all", "min"),
    "any": _truth("any", "max"),
    "argmax": _arg("argmax", "max"),
    "argmin": _arg("argmin", "min"),
}

_FUNCTIONS = {
    np.all: lambda a, axis=None, out=None, keepdims=False:
        _METHODS["all"](a, axis, out, keepdims),
    np.any: lambda a, axis=None, out=None, keepdims=False:
        _METHODS["any"](a, axis, out, keepdims),
    np.argmax: lambda a, axis=None, out=None, *, keepdims=False:
        _METHODS["argmax"](a, axis, out, keepdims=keepdims),
    np.argmin: lambda a, axis=None, out=None, *, keepdims=False:
        _METHODS["argmin"](a, axis, out, keepdims=keepdims),
    np.var: var,
    np.std: std,
    np.clip: lambda a, a_min=None, a_max=None, out=None, **kw:
        clip(a, kw.pop("min", a_min), kw.pop("max", a_max), out, **kw),
    np.round: round,
    np.around: round,
    np.ravel: ravel,
    np.squeeze: squeeze,
    np.swapaxes: swapaxes,
    np.empty_like: _empty_like,
    np.zeros_like: _zeros_like,
    np.ones_like: _ones_like,
    np.full_like: _full_like,
    np.real: lambda val: _part(val, "real"),
    np.imag: lambda val: _part(val, "imag"),
}


def view(x, dtype=None, type=None):
    """x's bytes as another dtype, without a copy (NumPy's ndarray.view):
    the same shape for an itemsize alike, else the last axis, which must
    be contiguous, rescaled."""
    if type is not None:
        raise errors.NotSupportedError(
            "DeviceArray.view(type=...) is not supported; DeviceArrays are "
            "one type")
    if dtype is None:
        return x._view(list(x.shape), list(x.strides), x._offset, x.dtype)
    dtype = np.dtype(dtype)
    old = x.dtype.itemsize
    if dtype.itemsize == old:
        return x._view(list(x.shape), list(x.strides), x._offset, dtype)
    if x.ndim == 0 or x.strides[-1] != old:
        raise errors.InvalidArgumentError(
            "To change to a dtype of a different size, the last axis must "
            "be contiguous")
    nbytes = x.shape[-1] * old
    if nbytes % dtype.itemsize:
        raise errors.InvalidArgumentError(
            "When changing to a larger dtype, its size must be a divisor "
            "of the total size in bytes of the last axis of the array.")
    shape = list(x.shape[:-1]) + [nbytes // dtype.itemsize]
    strides = list(x.strides[:-1]) + [dtype.itemsize]
    return x._view(shape, strides, x._offset, dtype)


def _numpy_method(function_name, in_place=False):
    """ndarray's method of the NumPy function's name: the function on
    DeviceArrays (``x.cumsum(axis=1)`` is ``np.cumsum(x, axis=1)``); an
    in-place method (``sort``, ``partition``) writes the result back."""
    def method(self, *args, **kwargs):
        result = getattr(np, function_name)(self, *args, **kwargs)
        if not in_place:
            return result
        self[...] = result
        return None
    method.__name__ = function_name
    method.__doc__ = (f"numpy.ndarray.{function_name}: numpy."
                      f"{function_name} on the array's device"
                      + (", in place." if in_place else "."))
    return method


class FlatIterator:
    """``x.flat``: the array's elements in C order as one axis (NumPy's
    flatiter). Reading ``x.flat[key]`` is ``ravel(x)[key]``; writing
    ``x.flat[key] = values`` writes those elements of x itself, the
    values repeated as NumPy repeats them; iterating yields 0-d
    DeviceArrays."""

    def __init__(self, base):
        self.base = base

    def __len__(self):
        return self.base.size

    def _positions(self, key):
        x = self.base
        if isinstance(key, DeviceArray):
            if key.dtype == np.bool_:
                from . import _array_primitives as prims
                return prims.nonzero(ops.reshape(key, -1))[0]
            import spirjit
            whole = spirjit.arange(x.size, dtype=np.int64, device=x._device)
            return whole[key]
        return np.arange(x.size)[key]

    def __getitem__(self, key):
        return ravel(self.base)[key]

    def __setitem__(self, key, values):
        x = self.base
        positions = self._positions(key)
        count = int(np.prod(positions.shape))
        if count == 0:
            return
        import spirjit
        values = values if isinstance(values, DeviceArray) else \
            spirjit.asarray(np.asarray(values, dtype=x.dtype), device=x._device)
        values = ops.reshape(values, -1)
        if values.shape[0] == 0:
            return
        if values.shape[0] != count:  # NumPy repeats the values
            from . import _array_primitives as prims
            cycle = spirjit.arange(count, dtype=np.int64,
                                   device=x._device) % values.shape[0]
            values = prims.take(values, cycle, 0)
        flat = positions if isinstance(positions, DeviceArray) else \
            spirjit.asarray(np.asarray(positions, np.int64).reshape(-1),
                            device=x._device)
        x[np.unravel_index(ops.reshape(flat, -1), x.shape)] = \
            ops.astype(values, x.dtype)

    def __iter__(self):
        flat = ravel(self.base)
        return (flat[i] for i in range(flat.shape[0]))

    def copy(self):
        return flatten(self.base)


def _repr(x):
    """NumPy's repr of the value, named DeviceArray (a host read)."""
    host = x.asnumpy()
    numpys = np.array_repr(host)
    body = np.array2string(host, separator=", ", prefix="array(")
    suffix = numpys[len("array(") + len(body):-1].replace(
        "\n      ", "\n            ")  # dtype=, shape=
    return "DeviceArray(" + np.array2string(
        host, separator=", ", prefix="DeviceArray(") + suffix + ")"


def _format(x, spec):
    if x.ndim == 0:
        return format(x.asnumpy()[()], spec)
    if spec:
        raise errors.TypingError(
            "unsupported format string passed to DeviceArray.__format__ "
            "(as NumPy: only 0-d arrays take a format spec)")
    return str(x)


def _iterate(x):
    """NumPy's iteration: the elements of a 1-d array (read at once), the
    rows (views) of more dimensions; a 0-d array is not iterable."""
    if x.ndim == 0:
        raise errors.TypingError("iteration over a 0-d array")
    if x.ndim == 1:
        return iter(x.asnumpy())
    return (x[i] for i in range(x.shape[0]))


def get(x, stream=None, order="C", out=None, blocking=True):
    """CuPy's name for the host copy: a NumPy array (into ``out``)."""
    host = x.asnumpy()
    if order not in ("C", "A", "K"):
        host = np.asfortranarray(host)
    if out is None:
        return host
    out[...] = host
    return out


def install(cls, functions):
    """Adds the methods to DeviceArray and the NumPy functions to
    ``functions`` (``_array_ops``' ``__array_function__`` table)."""
    for name, method in _METHODS.items():
        setattr(cls, name, method)
    for name in ("argmax", "argmin"):   # x.argmax() of 1-D: recorded in C++
        setattr(cls, name, _spirjit._reduction_method(
            name, _METHODS[name], ops.reduction_dtypes))
    for function in (var, std, clip, round, ravel, flatten, squeeze,
                     swapaxes, fill):
        setattr(cls, function.__name__, function)
    cls.conj = cls.conjugate = lambda self: ops.apply_ufunc(np.conjugate,
                                                            (self,))
    cls.real = property(lambda self: _part(self, "real"),
                        lambda self, v: _set_part(self, "real", v))
    cls.imag = property(lambda self: _part(self, "imag"),
                        lambda self, v: _set_part(self, "imag", v))
    cls.flat = property(FlatIterator)
    cls.itemsize = property(lambda self: self.dtype.itemsize)
    cls.nbytes = property(lambda self: self.size * self.dtype.itemsize)
    for name in ("cumsum", "cumprod", "argsort", "argpartition",
                 "nonzero", "repeat", "take", "put", "searchsorted",
                 "diagonal",
                 "trace", "ptp"):
        setattr(cls, name, _numpy_method(name))
    # (np.compress takes the condition first.)
    cls.compress = lambda self, condition, axis=None, out=None: \
        np.compress(condition, self, axis=axis, out=out)
    cls.sort = _numpy_method("sort", in_place=True)
    cls.partition = _numpy_method("partition", in_place=True)
    cls.view = view
    from ._array_numpy_misc import byteswap
    cls.byteswap = byteswap
    cls.tolist = lambda self: self.asnumpy().tolist()
    cls.get = get
    cls.__iter__ = _iterate
    cls.__repr__ = _repr
    cls.__str__ = lambda self: str(self.asnumpy())
    cls.__format__ = _format
    cls.__contains__ = lambda self, value: bool((self == value).any())
    cls.tobytes = lambda self, order="C": self.asnumpy().tobytes(order)
    functions.update(_FUNCTIONS)
