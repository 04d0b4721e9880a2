"""NumPy's shape, interpolation and contraction helpers on DeviceArrays,
composed from spirjit's own operations (views, fused elementwise
expressions and reductions, searchsorted, gathers, the matrix product), so
that they run on the array's device as the rest of the library does:
``np.interp``, ``np.diag``, ``np.diagonal``, ``np.split``,
``np.array_split``, ``np.pad`` (constant), ``np.einsum``, ``np.cross``,
``np.kron``, ``np.atleast_1d/2d/3d``, ``np.column_stack``, ``np.dstack``,
``np.unravel_index``, ``np.polyval``, ``np.convolve``, ``np.gradient``,
``np.nan_to_num``; ``functions()`` also holds ``_array_numpy_tail``'s
and ``_array_statistics``' functions.

Contract: ``functions()`` maps each NumPy function to its DeviceArray
version with NumPy's signature, defaults and answers; an option spirjit
does not implement raises ``NotSupportedError`` naming it.
"""

import numbers

import numpy as np

from . import _array_ops as ops
from . import _array_primitives as prims
from . import _array_numpy_index as index
from . import _array_numpy_misc as misc
from . import _array_numpy_tail as tail
from . import _array_numpy_values as values
from . import _array_statistics as statistics
from . import errors
from ._array_api import _array, _device_of
from ._array_statistics import _refuse, _xp
from ._spirjit import DeviceArray


# --------------------------------------------------------------------------
# Interpolation

def interp(x, xp_, fp, left=None, right=None, period=None):
    _refuse("interp", period=period)
    xp = _xp()
    device = _device_of(x, xp_, fp)
    at = _array(x, device)
    xs = ops.astype(_array(xp_, device), np.float64)
    ys = _array(fp, device)
    ys = ops.astype(ys, np.complex128 if ys.dtype.kind == "c" else np.float64)
    if xs.ndim != 1 or ys.ndim != 1 or xs.shape != ys.shape:
        raise errors.InvalidArgumentError(
            "fp and xp are not of the same length." if xs.ndim == 1 and
            ys.ndim == 1 else "object too deep for desired array")
    n = xs.shape[0]
    if n == 0:
        raise errors.InvalidArgumentError("array of sample points is empty")
    at = ops.astype(at, np.float64)
    first, last = ys[0], ys[n - 1]
    if n == 1:
        result = xp.where(at < xs[0], first if left is None else left,
                          xp.where(at > xs[0],
                                   last if right is None else right, first))
        return result
    j = prims.searchsorted(xs, at, "right", None) - 1
    j = xp.where(j < 0, 0, xp.where(j > n - 2, n - 2, j))
    flat_j = ops.reshape(j, -1)
    x0 = ops.reshape(prims.take(xs, flat_j, 0), at.shape)
    x1 = ops.reshape(prims.take(xs, flat_j + 1, 0), at.shape)
    y0 = ops.reshape(prims.take(ys, flat_j, 0), at.shape)
    y1 = ops.reshape(prims.take(ys, flat_j + 1, 0), at.shape)
    slope = (y1 - y0) / (x1 - x0)
    result = xp.where(at == x0, y0, slope * (at - x0) + y0)
    result = xp.where(at == xs[n - 1], last, result)
    result = xp.where(at < xs[0], first if left is None else left, result)
    return xp.where(at > xs[n - 1], last if right is None else right, result)


# --------------------------------------------------------------------------
# Shapes: diag, split, pad

def diag(v, k=0):
    xp, x = _xp(), _array(v)
    if x.ndim == 2:
        return xp.linalg.diagonal(x, offset=k)
    if x.ndim != 1:
        raise errors.InvalidArgumentError("Input must be 1- or 2-d.")
    n = x.shape[0] + abs(k)
    padded = xp.concat([x, xp.zeros(abs(k), dtype=x.dtype,
                                    device=x._device)]) if k else x
    mask = xp.eye(n, k=k, dtype=np.bool_, device=x._device)
    # Row i holds v[i] above the diagonal (k >= 0), column j v[j] below.
    values = ops.reshape(padded, (-1, 1) if k >= 0 else (1, -1))
    return xp.where(mask, values, xp.zeros((), dtype=x.dtype,
                                           device=x._device))


def _split(name, equal):
    def function(ary, indices_or_sections, axis=0):
        x = _array(ary)
        axis = ops.normalize_axis(axis, x.ndim)
        length = x.shape[axis]
        if isinstance(indices_or_sections, numbers.Integral):
            sections = int(indices_or_sections)
            if sections <= 0:
                raise errors.InvalidArgumentError(
                    "number sections must be larger than 0.")
            if equal and length % sections:
                raise errors.InvalidArgumentError(
                    "array split does not result in an equal division")
            each, extra = divmod(length, sections)
            sizes = [each + 1] * extra + [each] * (sections - extra)
            bounds = np.cumsum([0] + sizes)
        else:
            points = [int(p) for p in indices_or_sections]
            bounds = [0] + points + [length]
        parts = []
        for start, stop in zip(bounds[:-1], bounds[1:]):
            index = [slice(None)] * x.ndim
            index[axis] = slice(int(start), int(stop))
            parts.append(x[tuple(index)])
        return parts
    function.__name__ = name
    return function


def _pad_source(mode, n, before, after):
    """For each position along a padded axis, the position of the
    original it copies (edge, wrap, reflect and symmetric: NumPy's
    repeated reflections are periodic)."""
    j = np.arange(-before, n + after)
    if mode == "edge":
        return np.clip(j, 0, n - 1)
    if mode == "wrap":
        return j % n
    if mode == "reflect":
        if n == 1:
            return np.zeros_like(j)
        j %= 2 * n - 2
        return np.where(j >= n, 2 * n - 2 - j, j)
    j %= 2 * n  # symmetric
    return np.where(j >= n, 2 * n - 1 - j, j)


_PAD_OPTIONS = {"constant": {"constant_values"}, "edge": set(),
                "wrap": set(), "reflect": {"reflect_type"},
                "symmetric": {"reflect_type"}, "empty": set(),
                "maximum": {"stat_length"}, "minimum": {"stat_length"},
                "mean": {"stat_length"}, "median": {"stat_length"},
                "linear_ramp": {"end_values"}}


def pad(array, pad_width, mode="constant", **kwargs):
    xp, x = _xp(), _array(array)
    if mode not in _PAD_OPTIONS:
        raise errors.NotSupportedError(
            f"numpy.pad(mode={mode!r}) on DeviceArrays is not supported; "
            "'constant', 'edge', 'wrap', 'reflect', 'symmetric', 'empty', "
            "'maximum', 'minimum', 'mean', 'median' and 'linear_ramp' are")
    extra = set(kwargs) - _PAD_OPTIONS[mode]
    if extra:
        raise errors.TypingError(
            f"unsupported keyword arguments for mode '{mode}': {extra}")
    if kwargs.get("reflect_type", "even") != "even":
        raise errors.NotSupportedError(
            "numpy.pad(reflect_type='odd') on DeviceArrays is not supported")
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64),
                             (x.ndim, 2))
    if np.any(widths < 0):
        raise errors.InvalidArgumentError("index can't contain negative "
                                          "values")
    if mode in ("constant", "empty"):
        fill = np.asarray(kwargs.get("constant_values", 0))
        if fill.size != 1:
            raise errors.NotSupportedError(
                "numpy.pad on DeviceArrays takes one constant_values value")
        shape = tuple(int(n + w[0] + w[1]) for n, w in zip(x.shape, widths))
        out = xp.full(shape, fill.reshape(()).astype(x.dtype)[()],
                      dtype=x.dtype, device=x._device)
        out[tuple(slice(int(w[0]), int(w[0]) + n)
                  for n, w in zip(x.shape, widths))] = x
        return out
    for axis, (before, after) in enumerate(widths):
        before, after, n = int(before), int(after), x.shape[axis]
        if before == after == 0:
            continue
        if n == 0:
            raise errors.InvalidArgumentError(
                f"can't extend empty axis {axis} using modes other than "
                "'constant' or 'empty'")
        if mode in ("edge", "wrap", "reflect", "symmetric"):
            source = _pad_source(mode, n, before, after)
            x = prims.take(x, xp.asarray(source, device=x._device), axis)
            continue
        if mode == "linear_ramp":
            ends = np.broadcast_to(np.asarray(kwargs.get("end_values", 0)),
                                   (x.ndim, 2))[axis]
            x = _pad_ramps(x, axis, before, after, ends)
            continue
        x = _pad_statistic(x, axis, before, after, mode,
                           kwargs.get("stat_length"))
    return x


def _pad_ramps(x, axis, before, after, ends):
    """NumPy's linear_ramp: from each end value to the edge (the edge not
    repeated), as np.linspace in the array's dtype computes them."""
    xp = _xp()
    ramps = []
    for side, width, end in ((0, before, ends[0]), (-1, after, ends[1])):
        index = [slice(None)] * x.ndim
        index[axis] = side
        ramp = misc.linspace(end.item(), x[tuple(index)], num=width,
                             endpoint=False, dtype=x.dtype, axis=axis)
        ramps.append(ramp if side == 0 else xp.flip(ramp, axis=axis))
    return xp.concat((ramps[0], x, ramps[1]), axis=axis)


def _pad_statistic(x, axis, before, after, mode, stat_length):
    """A statistic of each edge's first stat_length values (all of them by
    default), repeated over that side's padding."""
    xp = _xp()
    n = x.shape[axis]
    lengths = (n, n) if stat_length is None else np.broadcast_to(
        np.asarray(stat_length, dtype=np.int64), (x.ndim, 2))[axis]
    if any(k < 0 for k in lengths):
        raise errors.InvalidArgumentError("index can't contain negative "
                                          "values")
    if any(k == 0 for k in lengths) and mode in ("maximum", "minimum"):
        raise errors.InvalidArgumentError(
            "stat_length of 0 yields no value for padding")
    lengths = [max(1, min(int(k), n)) for k in lengths]
    parts = []
    for side, width, length in (("before", before, lengths[0]),
                                ("after", after, lengths[1])):
        index = [slice(None)] * x.ndim
        index[axis] = slice(0, length) if side == "before" else \
            slice(n - length, n)
        chunk = x[tuple(index)]
        if mode == "median":
            value = np.median(chunk, axis=axis, keepdims=True)
        else:
            value = getattr(chunk, {"maximum": "max", "minimum": "min",
                                    "mean": "mean"}[mode])(axis=axis,
                                                           keepdims=True)
        if x.dtype.kind in "biu" and mode in ("mean", "median"):
            value = ops.astype(xp.round(value), x.dtype)
        else:
            value = ops.astype(value, x.dtype)
        shape = list(x.shape)
        shape[axis] = width
        parts.append(xp.broadcast_to(value, tuple(shape)))
    return xp.concat((parts[0], x, parts[1]), axis=axis)


# --------------------------------------------------------------------------
# einsum: a product of broadcast operands summed over the contracted
# letters (one fused kernel: the broadcast product is never stored), or a
# batched matrix product where the contraction is one

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _einsum_terms(spec, arrays):
    """The subscripts of each operand and of the output, with '...'
    spelled out as letters the spec does not use."""
    inputs, arrow, output = spec.replace(" ", "").partition("->")
    terms = inputs.split(",")
    if len(terms) != len(arrays):
        raise errors.InvalidArgumentError(
            f"{'more' if len(arrays) > len(terms) else 'fewer'} operands "
            "provided to einstein sum function than specified in the "
            "subscripts string")
    unused = [c for c in _LETTERS if c not in inputs + output]
    width = max([a.ndim - (len(t) - 3) for t, a in zip(terms, arrays)
                 if "..." in t] + [0])
    ellipsis = "".join(unused[:width])
    spelled = []
    for i, (t, a) in enumerate(zip(terms, arrays)):
        if "..." in t:
            t = t.replace("...", ellipsis[width - (a.ndim - (len(t) - 3)):])
        if any(c not in _LETTERS for c in t):
            raise errors.InvalidArgumentError(
                f"invalid subscript in einstein sum subscripts string, "
                f"subscripts must be letters: {t!r}")
        if len(t) != a.ndim:
            raise errors.InvalidArgumentError(
                "operand has more dimensions than subscripts given in "
                "einstein sum, but no '...' ellipsis provided to broadcast "
                "the extra dimensions." if len(t) < a.ndim else
                "einstein sum subscripts string contains too many "
                f"subscripts for operand {i}")
        spelled.append(t)
    joined = "".join(spelled)
    if arrow:
        out = output.replace("...", ellipsis)
        for c in out:
            if c not in joined:
                raise errors.InvalidArgumentError(
                    f"einstein sum subscripts string included output "
                    f"subscript '{c}' which never appeared in an input")
    else:  # NumPy's implicit output: the letters seen once, in order
        out = ellipsis + "".join(sorted(c for c in set(joined) if
                                        c not in ellipsis and
                                        joined.count(c) == 1))
    return spelled, out


def _take_diagonals(x, term):
    """A letter repeated in one operand's term: its diagonal (the
    repeated axes as one, last)."""
    xp = _xp()
    while len(set(term)) != len(term):
        letter = next(c for c in term if term.count(c) > 1)
        first = term.index(letter)
        second = term.index(letter, first + 1)
        rest = [i for i in range(x.ndim) if i not in (first, second)]
        x = xp.linalg.diagonal(ops.transpose(x, rest + [first, second]))
        term = "".join(term[i] for i in rest) + letter
    return x, term


def _aligned(x, term, letters):
    """x with its axes in the order of `letters`, length 1 where it lacks
    one (so that the operands broadcast)."""
    present = [c for c in letters if c in term]
    x = ops.transpose(x, [term.index(c) for c in present])
    return ops.reshape(x, tuple(x.shape[present.index(c)] if c in present
                                else 1 for c in letters))


def einsum(*operands, out=None, dtype=None, order="K", casting="safe",
           optimize=False):
    _refuse("einsum", out=out)
    if not operands or not isinstance(operands[0], str):
        raise errors.NotSupportedError(
            "numpy.einsum's operand-and-axis-list form on DeviceArrays is "
            "not supported; pass the subscripts as a string")
    xp = _xp()
    device = _device_of(*operands[1:])
    arrays = [_array(a, device) for a in operands[1:]]
    if dtype is not None:
        arrays = [ops.astype(a, dtype) for a in arrays]
    result_dtype = np.result_type(*[a.dtype for a in arrays])
    terms, out_term = _einsum_terms(operands[0], arrays)
    pairs = [_take_diagonals(a, t) for a, t in zip(arrays, terms)]
    sizes = {}
    for a, t in pairs:
        for c, n in zip(t, a.shape):
            if sizes.get(c, 1) not in (1, n) and n != 1:
                raise errors.InvalidArgumentError(
                    f"operands could not be broadcast together with "
                    f"remapped shapes: size {sizes[c]} and {n} for '{c}'")
            sizes[c] = max(sizes.get(c, 1), n)
    # A letter only one operand has and the output lacks: summed there.
    reduced = []
    for k, (a, t) in enumerate(pairs):
        others = out_term + "".join(u for j, (_, u) in enumerate(pairs)
                                    if j != k)
        alone = [i for i, c in enumerate(t) if c not in others]
        if alone:
            a = a.sum(axis=tuple(alone))
            t = "".join(c for i, c in enumerate(t) if i not in alone)
        reduced.append((a, t))
    if len(reduced) == 2 and all(a.ndim for a, _ in reduced) and \
            result_dtype.kind in "fc":
        done = _einsum_matmul(reduced, out_term, sizes)
        if done is not None:
            return ops.astype(done, result_dtype)
    letters = out_term + "".join(sorted(set("".join(t for _, t in reduced)) -
                                        set(out_term)))
    product = None
    for a, t in reduced:
        a = _aligned(a, t, letters)
        product = a if product is None else product * a
    if product is None:
        raise errors.InvalidArgumentError("No input operands")
    if len(letters) > len(out_term):
        product = product.sum(axis=tuple(range(len(out_term), len(letters))))
    if product.shape != tuple(sizes[c] for c in out_term):
        product = xp.broadcast_to(product, tuple(sizes[c] for c in out_term))
    return ops.astype(product, result_dtype)


def _einsum_matmul(pairs, out_term, sizes):
    """Two operands whose summed letters both have: a batched matrix
    product (cuBLAS on CUDA devices, NumPy's in place on CPU devices), or
    None where the contraction is not one."""
    (a, s), (b, t) = pairs
    summed = [c for c in s if c in t and c not in out_term]
    if not summed or any(sizes[c] != a.shape[s.index(c)] or
                         sizes[c] != b.shape[t.index(c)]
                         for c in s + t if c in s and c in t):
        return None
    batch = [c for c in out_term if c in s and c in t]
    left = [c for c in s if c not in t]
    right = [c for c in t if c not in s]
    if set(batch + left + right) != set(out_term):
        return None
    n = lambda letters: int(np.prod([sizes[c] for c in letters]))
    a2 = ops.reshape(ops.transpose(a, [s.index(c) for c in
                                       batch + left + summed]),
                     (n(batch), n(left), n(summed)))
    b2 = ops.reshape(ops.transpose(b, [t.index(c) for c in
                                       batch + summed + right]),
                     (n(batch), n(summed), n(right)))
    product = ops.reshape(a2 @ b2, tuple(sizes[c] for c in
                                         batch + left + right))
    order = batch + left + right
    return ops.transpose(product, [order.index(c) for c in out_term])


# --------------------------------------------------------------------------
# More of NumPy's everyday helpers

def diagonal(a, offset=0, axis1=0, axis2=1):
    x = _array(a)
    axis1 = ops.normalize_axis(axis1, x.ndim, "axis1")
    axis2 = ops.normalize_axis(axis2, x.ndim, "axis2")
    if axis1 == axis2:
        raise errors.InvalidArgumentError("axis1 and axis2 cannot be the "
                                          "same")
    rest = [i for i in range(x.ndim) if i not in (axis1, axis2)]
    moved = ops.transpose(x, rest + [axis1, axis2])
    return _xp().linalg.diagonal(moved, offset=offset)


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    xp = _xp()
    if axis is not None:
        axisa = axisb = axisc = axis
    device = _device_of(a, b)
    x = xp.moveaxis(_array(a, device), axisa, -1)
    y = xp.moveaxis(_array(b, device), axisb, -1)
    if x.shape[-1] not in (2, 3) or y.shape[-1] not in (2, 3):
        raise errors.InvalidArgumentError(
            "incompatible dimensions for cross product\n(dimension must "
            "be 2 or 3)")
    x0, x1 = x[..., 0], x[..., 1]
    y0, y1 = y[..., 0], y[..., 1]
    z = x0 * y1 - x1 * y0
    if x.shape[-1] == 2 and y.shape[-1] == 2:
        return z
    x2 = x[..., 2] if x.shape[-1] == 3 else None
    y2 = y[..., 2] if y.shape[-1] == 3 else None
    first = (x1 * y2 if y2 is not None else 0) - \
        (x2 * y1 if x2 is not None else 0)
    second = (x2 * y0 if x2 is not None else 0) - \
        (x0 * y2 if y2 is not None else 0)
    parts = [xp.broadcast_to(p, z.shape) if isinstance(p, DeviceArray)
             else xp.full(z.shape, p, dtype=z.dtype, device=device)
             for p in (first, second, z)]
    return xp.moveaxis(xp.stack([ops.astype(p, z.dtype) for p in parts],
                                axis=-1), -1, axisc)


def kron(a, b):
    device = _device_of(a, b)
    x, y = _array(a, device), _array(b, device)
    n = max(x.ndim, y.ndim)
    x = ops.reshape(x, (1,) * (n - x.ndim) + tuple(x.shape))
    y = ops.reshape(y, (1,) * (n - y.ndim) + tuple(y.shape))
    # x's axis i and y's axis i side by side: (x0, y0, x1, y1, ...)
    xs = ops.reshape(x, tuple(d for e in x.shape for d in (e, 1)))
    ys = ops.reshape(y, tuple(d for e in y.shape for d in (1, e)))
    return ops.reshape(xs * ys, tuple(p * q for p, q in zip(x.shape,
                                                            y.shape)))


def _atleast(ndim):
    def function(*arys):
        out = []
        for a in arys:
            x = _array(a)
            if x.ndim < ndim:
                if ndim == 3 and x.ndim == 2:
                    shape = tuple(x.shape) + (1,)
                elif ndim == 3 and x.ndim == 1:
                    shape = (1,) + tuple(x.shape) + (1,)
                else:
                    shape = (1,) * (ndim - x.ndim) + tuple(x.shape)
                x = ops.reshape(x, shape)
            out.append(x)
        return out[0] if len(out) == 1 else tuple(out)
    function.__name__ = f"atleast_{ndim}d"
    return function


def column_stack(tup):
    xp = _xp()
    device = _device_of(*tup)
    columns = [_array(a, device) for a in tup]
    columns = [ops.reshape(c, (-1, 1)) if c.ndim < 2 else c for c in columns]
    return xp.concat(columns, axis=1)


def dstack(tup):
    xp = _xp()
    device = _device_of(*tup)
    layers = [_atleast(3)(_array(a, device)) for a in tup]
    return xp.concat(layers, axis=2)


def unravel_index(indices, shape, order="C"):
    xp = _xp()
    flat = _array(indices)
    if flat.dtype.kind not in "iu":
        raise errors.TypingError(
            f"only int indices permitted, not {flat.dtype}")
    shape = (shape,) if isinstance(shape, numbers.Integral) else \
        tuple(shape)
    size = int(np.prod(shape))
    if bool(((flat < 0) | (flat >= size)).any()):
        raise errors.InvalidArgumentError(
            f"index out of bounds for array with size {size}")
    flat = ops.astype(flat, np.int64)
    out = [None] * len(shape)
    axes = range(len(shape) - 1, -1, -1) if order == "C" else \
        range(len(shape))
    for i in axes:
        out[i] = flat % shape[i]
        flat = flat // shape[i]
    return tuple(xp.asarray(o) for o in out)


def polyval(p, x):
    xp = _xp()
    device = _device_of(p, x)
    coefficients = _array(p, device)
    at = _array(x, device)
    y = xp.zeros_like(at, dtype=np.result_type(coefficients.dtype,
                                               at.dtype))
    for i in range(coefficients.shape[0]):
        y = y * at + coefficients[i]
    return y


def convolve(a, v, mode="full"):
    xp = _xp()
    device = _device_of(a, v)
    x, k = _array(a, device), _array(v, device)
    if x.ndim != 1 or k.ndim != 1:
        raise errors.InvalidArgumentError("object too deep for desired array")
    if x.size == 0 or k.size == 0:
        raise errors.InvalidArgumentError(
            f"{'a' if x.size == 0 else 'v'} cannot be empty")
    if k.size > x.size:
        x, k = k, x
    n, m = x.size, k.size
    dtype = np.result_type(x.dtype, k.dtype)
    length = n + m - 1
    zeros = xp.zeros(m - 1, dtype=x.dtype, device=device)
    padded = xp.concat([zeros, x, zeros]) if m > 1 else x
    # out[t] = sum_j k[j] x[t - j]: each term a shifted slice (fused).
    total = None
    for j in range(m):
        term = k[j] * padded[m - 1 - j:m - 1 - j + length]
        total = term if total is None else total + term
    total = ops.astype(total, dtype)
    if mode == "full":
        return total
    if mode == "same":
        start = (m - 1) // 2
        return total[start:start + n]
    if mode == "valid":
        return total[m - 1:n]
    raise errors.InvalidArgumentError(f"mode must be one of 'valid', "
                                      f"'same', or 'full' (got {mode!r})")


def gradient(f, *varargs, axis=None, edge_order=1):
    x = _array(f)
    if edge_order != 1:
        raise errors.NotSupportedError(
            "numpy.gradient(edge_order=2) on DeviceArrays is not "
            "supported; the default edge_order=1 is")
    axes = list(range(x.ndim)) if axis is None else \
        [ops.normalize_axis(a, x.ndim) for a in (
            (axis,) if isinstance(axis, numbers.Integral) else axis)]
    if len(varargs) == 0:
        spacing = [1.0] * len(axes)
    elif len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        spacing = [float(varargs[0])] * len(axes)
    elif len(varargs) == len(axes) and all(np.ndim(h) == 0
                                           for h in varargs):
        spacing = [float(h) for h in varargs]
    else:
        raise errors.NotSupportedError(
            "numpy.gradient with coordinate arrays on DeviceArrays is not "
            "supported; pass scalar spacings")
    dtype = x.dtype if x.dtype.kind in "fc" else np.dtype(np.float64)
    x = ops.astype(x, dtype)
    xp = _xp()
    out = []
    for a, h in zip(axes, spacing):
        if x.shape[a] < 2:
            raise errors.InvalidArgumentError(
                "Shape of array too small to calculate a numerical "
                "gradient, at least (edge_order + 1) elements are required.")

        def part(start, stop):
            index = [slice(None)] * x.ndim
            index[a] = slice(start, stop)
            return x[tuple(index)]
        first = (part(1, 2) - part(0, 1)) / h
        last = (part(-1, None) - part(-2, -1)) / h
        pieces = [first]
        if x.shape[a] > 2:
            pieces.append((part(2, None) - part(None, -2)) / (2 * h))
        pieces.append(last)
        out.append(ops.astype(xp.concat(pieces, axis=a), dtype))
    return out[0] if len(out) == 1 else tuple(out)


# --------------------------------------------------------------------------
# Special values

def _replaced(x, nan, posinf, neginf):
    """Real floats ``x`` with NaN, +inf and -inf replaced by the three
    values (as x's dtype, as NumPy casts them): one fused expression."""
    info = np.finfo(x.dtype)
    with np.errstate(over="ignore"):  # NumPy's own cast: 1e300 -> inf
        nan, posinf, neginf = (np.asarray(v, np.float64).astype(x.dtype)[()]
                               for v in (nan,
                                         info.max if posinf is None
                                         else posinf,
                                         info.min if neginf is None
                                         else neginf))
    f = ops.apply_ufunc
    out = ops.where(f(np.isnan, (x,)), nan, x)
    out = ops.where(f(np.equal, (x, x.dtype.type(np.inf))), posinf, out)
    return ops.where(f(np.equal, (x, x.dtype.type(-np.inf))), neginf, out)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NumPy's nan_to_num: NaN becomes ``nan``, +inf ``posinf`` and -inf
    ``neginf`` (by default the dtype's largest and most negative finite
    values); complex numbers part by part; integers and booleans are
    left as they are. ``copy=False`` writes the answer into x and returns
    x, as NumPy does."""
    x = _array(x)
    if x.dtype.kind not in "fc":
        return ops.copy(x) if copy else x
    out = ops.copy(x) if copy else x
    if x.dtype.kind == "f":
        out[...] = _replaced(x, nan, posinf, neginf)
        return out
    # Each part through its view (x.real, x.imag write into the complex
    # array), right-hand sides computed from x before the stores.
    for part in ("real", "imag"):
        getattr(out, part)[...] = _replaced(getattr(x, part), nan, posinf,
                                            neginf)
    return out


def functions():
    """NumPy function -> its DeviceArray version (for __array_function__)."""
    return {
        **statistics.functions(),
        **tail.functions(),
        **index.functions(),
        **values.functions(),
        **misc.functions(),
        np.interp: interp,
        np.diag: diag,
        np.split: _split("split", True),
        np.array_split: _split("array_split", False),
        np.pad: pad,
        np.einsum: einsum,
        np.diagonal: diagonal,
        np.cross: cross,
        np.kron: kron,
        np.atleast_1d: _atleast(1),
        np.atleast_2d: _atleast(2),
        np.atleast_3d: _atleast(3),
        np.column_stack: column_stack,
        np.dstack: dstack,
        np.unravel_index: unravel_index,
        np.polyval: polyval,
        np.convolve: convolve,
        np.gradient: gradient,
        np.nan_to_num: nan_to_num,
    }
