"""NumPy's statistics and counting functions on DeviceArrays, composed
from spirjit's own operations (fused elementwise expressions and
reductions, sort, searchsorted, scans, gathers and scatters), so that they
run on the array's device as the rest of the library does:
``np.nansum/nanprod/nanmin/nanmax/nanmean/nanvar/nanstd``,
``np.nanargmax/nanargmin``, ``np.nancumsum/nancumprod``, ``np.median``,
``np.percentile``, ``np.quantile``, ``np.nanmedian``,
``np.nanpercentile``, ``np.nanquantile``, ``np.cov``, ``np.corrcoef``,
``np.average``, ``np.ptp``, ``np.bincount``, ``np.histogram``,
``np.histogram_bin_edges``, ``np.isin`` and ``np.add.at``/``np.subtract.at``.

Contract: ``functions()`` maps each NumPy function to its DeviceArray
version with NumPy's signature, defaults and answers (NaN rules included);
an option spirjit does not implement raises ``NotSupportedError`` naming
it. A size that depends on the data (``bincount``'s length, ``histogram``'s
automatic range) reads one value back, as NumPy's would.
"""

import builtins
import numbers
import operator

import numpy as np

from . import _array_ops as ops
from . import _array_primitives as prims
from . import errors
from ._array_api import _array, _device_of
from ._spirjit import DeviceArray


def _xp():
    import spirjit
    return spirjit


def _refuse(function, **options):
    """NotSupportedError for the first option given a value spirjit does
    not implement (None and False are the defaults of every one here)."""
    for name, value in options.items():
        if value is not None and value is not False:
            raise errors.NotSupportedError(
                f"numpy.{function}({name}=...) on DeviceArrays is not "
                f"supported; call it on np.asarray(x) (a host copy)")


# --------------------------------------------------------------------------
# Reductions that skip NaNs

def _nan_reduction(name):
    def function(a, axis=None, dtype=None, out=None, keepdims=False,
                 initial=None, where=None):
        _refuse(f"nan{name}", out=out, initial=initial, where=where)
        xp, x = _xp(), _array(a)
        if x.dtype.kind not in "fc":  # no NaN: NumPy's plain reduction
            result = getattr(x, name)(axis=axis, keepdims=keepdims)
            return result if dtype is None else ops.astype(result, dtype)
        nan = xp.isnan(x)
        if name in ("sum", "prod"):
            kept = xp.where(nan, 0 if name == "sum" else 1, x)
            result = getattr(kept, name)(axis=axis, keepdims=keepdims)
        elif name == "mean":
            total = xp.where(nan, 0, x).sum(axis=axis, keepdims=keepdims)
            count = (~nan).sum(axis=axis, keepdims=keepdims)
            result = ops.astype(total / count, x.dtype)
        else:  # max, min: NaN only where the whole slice is NaN
            fill = -np.inf if name == "max" else np.inf
            extreme = getattr(xp.where(nan, fill, x), name)(
                axis=axis, keepdims=keepdims)
            result = xp.where(nan.all(axis=axis, keepdims=keepdims),
                              np.nan, extreme)
        return result if dtype is None else ops.astype(result, dtype)
    function.__name__ = f"nan{name}"
    return function


def _nan_moment(name):
    """nanvar or nanstd: NumPy's, over the elements that are not NaN (NaN
    where fewer than ddof + 1 are left)."""
    def function(a, axis=None, dtype=None, out=None, ddof=0,
                 keepdims=False, *, where=None, mean=None, correction=None):
        _refuse(f"nan{name}", dtype=dtype, out=out, where=where, mean=mean,
                correction=correction)
        xp, x = _xp(), _array(a)
        if x.dtype.kind not in "fc":  # no NaN: NumPy's plain var/std
            return getattr(x, name)(axis=axis, ddof=ddof, keepdims=keepdims)
        real = np.empty(0, x.dtype).real.dtype
        nan = xp.isnan(x)

        def count(keep):
            return ops.astype((~nan).sum(axis=axis, keepdims=keep), real)
        centre = xp.where(nan, 0, x).sum(axis=axis, keepdims=True) / \
            count(True)
        gap = xp.where(nan, 0, x - centre)
        square = gap.real * gap.real + gap.imag * gap.imag \
            if x.dtype.kind == "c" else gap * gap
        dof = count(keepdims) - ddof
        var = xp.where(dof > 0, square.sum(axis=axis, keepdims=keepdims) /
                       dof, np.nan)
        return xp.sqrt(var) if name == "std" else var
    function.__name__ = f"nan{name}"
    return function


def _nan_arg(name):
    """nanargmax or nanargmin: the index of the extreme of the elements
    that are not NaN; ValueError where a slice is all NaN (NumPy's)."""
    def function(a, axis=None, out=None, *, keepdims=False):
        _refuse(f"nan{name}", out=out)
        xp, x = _xp(), _array(a)
        if x.dtype.kind in "fc":
            nan = xp.isnan(x)
            if bool(nan.all(axis=axis).any()):
                raise errors.InvalidArgumentError("All-NaN slice encountered")
            x = xp.where(nan, -np.inf if name == "argmax" else np.inf, x)
        return getattr(x, name)(axis=axis, keepdims=keepdims)
    function.__name__ = f"nan{name}"
    return function


def _nan_cumulative(name):
    """nancumsum or nancumprod: NaN counted as 0 (or 1)."""
    def function(a, axis=None, dtype=None, out=None):
        _refuse(f"nan{name}", out=out)
        xp, x = _xp(), _array(a)
        if x.dtype.kind in "fc":
            x = xp.where(xp.isnan(x), 0 if name == "cumsum" else 1, x)
        return getattr(np, name)(x, axis=axis, dtype=dtype)
    function.__name__ = f"nan{name}"
    return function


# --------------------------------------------------------------------------
# Order statistics: a sort along the axis, then NumPy's linear interpolation

def _flat(x, axis):
    if axis is None:
        return (x if x.ndim == 1 else ops.reshape(x, -1)), 0, None
    axes = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
    if len(axes) != 1:
        raise errors.NotSupportedError(
            "order statistics over several axes of a DeviceArray are not "
            "supported; reshape so that they are one axis")
    return x, ops.normalize_axis(axes[0], x.ndim), axes


def _keep(result, x, axis, flat_axis, q_ndim):
    """NumPy's keepdims: the reduced axes back as length 1 (after q's)."""
    shape = list(x.shape) if axis is not None else [1] * x.ndim
    if axis is not None:
        shape[flat_axis] = 1
    return ops.reshape(result, tuple(result.shape[:q_ndim]) + tuple(shape))


def _nan_order_statistic(ordered, value, along, dtype, median,
                         method="linear"):
    """The statistic at ``value`` (0 to 1) of each slice of ``ordered``
    (sorted along ``along``, NaNs last) over its elements that are not
    NaN: NaN where the slice is all NaN (NumPy's nanpercentile)."""
    xp = _xp()
    count = (~xp.isnan(ordered)).sum(axis=along, keepdims=True)
    low, high, t = _positions(method, ops.astype(count, np.float64), value,
                              xp)
    top = xp.maximum(count - 1, 0)
    low, high = (xp.minimum(xp.maximum(ops.astype(i, np.int64), 0), top)
                 for i in (low, high))
    if median:
        high = xp.minimum(low + 1, top)
    a_low, a_high = (xp.squeeze(xp.take_along_axis(ordered, at, axis=along),
                                axis=along) for at in (low, high))
    count = xp.squeeze(count, axis=along)
    if median:  # NumPy's: the mean of the middle two, or the middle one
        result = xp.where(count % 2 == 1, a_low, (a_low + a_high) / 2)
    elif method in _DISCRETE:
        result = a_low
    else:  # NumPy's _lerp, from the nearer end
        t = ops.astype(xp.squeeze(t, axis=along) if isinstance(
            t, DeviceArray) else t, dtype)
        step = a_high - a_low
        result = xp.where(t >= 0.5, a_high - step * (1 - t), a_low + step * t)
    return xp.where(count == 0, np.nan, result)


# NumPy's quantile methods (Hyndman and Fan's): the discrete ones pick one
# order statistic and keep the input's dtype; the others interpolate
# between two, at the virtual index of their (alpha, beta).
_DISCRETE = ("lower", "higher", "nearest", "inverted_cdf",
             "closest_observation")
_ALPHA_BETA = {"interpolated_inverted_cdf": (0, 1), "hazen": (0.5, 0.5),
               "weibull": (0, 0), "median_unbiased": (1 / 3.0, 1 / 3.0),
               "normal_unbiased": (3 / 8.0, 3 / 8.0)}
_QUANTILE_METHODS = ("linear", "midpoint", "averaged_inverted_cdf") + \
    _DISCRETE + tuple(_ALPHA_BETA)


def _positions(method, n, q, m):
    """(low, high, t): the order statistics (0-based, before clipping) a
    method reads for the q-th quantile of n values and the weight of the
    high one, as NumPy's _quantile computes them. n and the results are
    Python numbers with m = numpy, arrays with m = the spirjit module."""
    if method in ("linear", "lower", "higher", "nearest", "midpoint"):
        v = (n - 1) * q
    elif method in ("inverted_cdf", "averaged_inverted_cdf"):
        v = n * q - 1
    elif method == "closest_observation":
        v = n * q - 1 - 0.5
    else:
        alpha, beta = _ALPHA_BETA[method]
        v = n * q + (alpha + q * (1 - alpha - beta)) - 1
    if method in ("lower", "higher", "nearest"):
        i = {"lower": m.floor, "higher": m.ceil, "nearest": m.round}[
            method](v)
        return i, i, 0.0
    previous = m.floor(v)
    gamma = v - previous
    if method in ("inverted_cdf", "closest_observation"):
        pick = gamma == 0
        if method == "closest_observation":  # the even statistic (1-based)
            pick = pick & (previous % 2 == 1)
        i = m.maximum(m.where(pick, previous, previous + 1), 0)
        return i, i, 0.0
    above, below = v >= n - 1, v < 0
    low = m.where(above, n - 1, m.where(below, 0, previous))
    high = m.where(above, n - 1, m.where(below, 0, previous + 1))
    gamma = v - m.where(above, -1, low)
    if method == "averaged_inverted_cdf":
        gamma = m.where(gamma == 0, 0.5, 1.0)
    elif method == "midpoint":
        gamma = m.where(v % 1 == 0, 0.0, 0.5)
    return low, high, gamma


def _result_dtype(name, dtype, q, method, skip_nan):
    """NumPy's dtype of its quantile or percentile of ``dtype`` values at
    q as the user gave it (a Python number is weak; an array or NumPy
    scalar takes part in the promotion; 'linear' at integer q picks),
    asked of NumPy on one element."""
    function = getattr(np, ("nan" if skip_nan else "") + name)
    try:
        return function(np.zeros(1, dtype), q, method=method).dtype
    except (TypeError, ValueError):
        return None


def _order_statistic(a, q, axis, keepdims, method, name, median=False,
                     skip_nan=False, given_q=None):
    if method not in _QUANTILE_METHODS:  # (NumPy's every method is here)
        raise errors.InvalidArgumentError(
            f"{method!r} is not a valid method. Use one of: "
            f"{', '.join(map(repr, _QUANTILE_METHODS))}")
    xp, x = _xp(), _array(a)
    qs = np.asarray(q.asnumpy() if isinstance(q, DeviceArray) else q,
                    dtype=np.float64)
    if np.any(qs < 0) or np.any(qs > 1) or np.any(np.isnan(qs)):
        raise errors.InvalidArgumentError(
            f"{'Percentiles' if name == 'percentile' else 'Quantiles'} "
            f"must be in the range [0, {100 if name == 'percentile' else 1}]")
    flat, along, axes = _flat(x, axis)
    n = flat.shape[along] if flat.ndim else 1
    if n == 0:
        raise errors.InvalidArgumentError(
            f"numpy.{name} of an empty DeviceArray")
    dtype = np.result_type(x.dtype, np.float64) if x.dtype.kind in "biu" \
        and method not in _DISCRETE else x.dtype
    if given_q is not None:
        dtype = _result_dtype(name, x.dtype, given_q, method,
                              skip_nan) or dtype
    ordered = prims.sort(ops.astype(flat, dtype), along)
    skipping = skip_nan and ordered.dtype.kind in "fc"
    # (NaNs sort last: the plain forms' NaN check reads the last element.)
    last = None if skipping else prims.take(ordered, np.intp(n - 1), along)
    results = []
    for value in qs.reshape(-1):
        if skipping:
            results.append(ops.astype(_nan_order_statistic(
                ordered, value, along, dtype, median, method), dtype))
            continue
        low, high, t = (v.item() for v in np.broadcast_arrays(
            *_positions(method, n, value, np)))
        low, high = int(min(max(low, 0), n - 1)), int(min(high, n - 1))
        if median:
            high = min(low + 1, n - 1)
        a_low = prims.take(ordered, np.intp(low), along)
        a_high = prims.take(ordered, np.intp(high), along)
        if median:
            # NumPy's median: the mean of the middle two (or the middle).
            result = a_low if n % 2 else (a_low + a_high) / 2
        elif t == 0:
            result = a_low
        else:
            # NumPy's _lerp: from the nearer end, so that t = 0 and 1 give
            # the ends exactly.
            step = a_high - a_low
            result = a_high - step * (1 - t) if t >= 0.5 else \
                a_low + step * t
        # Any NaN in the slice makes its statistic NaN (NaNs sort last).
        results.append(ops.astype(xp.where(xp.isnan(last), np.nan, result),
                                  dtype))
    out = results[0] if qs.ndim == 0 else \
        ops.reshape(xp.stack(results), qs.shape + tuple(results[0].shape))
    if keepdims:
        out = _keep(out, x, axes, along, qs.ndim)
    return out


def _median(name, skip_nan):
    def function(a, axis=None, out=None, overwrite_input=False,
                 keepdims=False):
        _refuse(name, out=out)
        return _order_statistic(a, 0.5, axis, keepdims, "linear", name,
                                median=True, skip_nan=skip_nan)
    function.__name__ = name
    return function


def _quantile(name, skip_nan):
    """percentile or quantile (q in percent or as a fraction), with or
    without NaNs skipped."""
    percent = name.endswith("percentile")

    def function(a, q, axis=None, out=None, overwrite_input=False,
                 method="linear", keepdims=False, *, weights=None,
                 interpolation=None):
        _refuse(name, out=out, weights=weights, interpolation=interpolation)
        given = q.asnumpy() if isinstance(q, DeviceArray) else q
        if percent:
            q = np.true_divide(given, 100)
        return _order_statistic(a, q, axis, keepdims, method,
                                "percentile" if percent else "quantile",
                                skip_nan=skip_nan, given_q=given)
    function.__name__ = name
    return function


# --------------------------------------------------------------------------
# Covariance and correlation

def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None,
        aweights=None, *, dtype=None):
    _refuse("cov", fweights=fweights, aweights=aweights)
    xp = _xp()
    device = _device_of(m, y)
    x = _array(m, device)
    if x.ndim > 2:
        raise errors.InvalidArgumentError("m has more than 2 dimensions")
    want = np.result_type(x.dtype, np.float64) if dtype is None else dtype
    x = ops.astype(ops.reshape(x, (1, -1)) if x.ndim < 2 else x, want)
    if not rowvar and x.shape[0] != 1:
        x = ops.transpose(x)
    if y is not None:
        other = _array(y, device)
        other = ops.astype(ops.reshape(other, (1, -1)) if other.ndim < 2
                           else other, want)
        if not rowvar and other.shape[0] != 1:
            other = ops.transpose(other)
        x = xp.concat([x, other], axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    centred = x - x.mean(axis=1, keepdims=True)
    right = ops.transpose(centred)
    if right.dtype.kind == "c":
        right = xp.conj(right)
    c = (centred @ right) / (x.shape[1] - ddof)
    return ops.reshape(c, ()) if c.shape == (1, 1) else c


def corrcoef(x, y=None, rowvar=True, bias=None, ddof=None, *, dtype=None):
    xp = _xp()
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return c / c
    d = xp.linalg.diagonal(c)
    deviation = xp.sqrt(xp.real(d) if d.dtype.kind == "c" else d)
    c = c / ops.reshape(deviation, (-1, 1))
    c = c / ops.reshape(deviation, (1, -1))
    if c.dtype.kind == "c":
        return xp.clip(xp.real(c), -1, 1) + 1j * xp.clip(xp.imag(c), -1, 1)
    return xp.clip(c, -1, 1)


# --------------------------------------------------------------------------
# Counting: bincount, histogram, isin

def bincount(x, weights=None, minlength=0):
    xp, values = _xp(), _array(x)
    if values.ndim != 1:
        raise errors.InvalidArgumentError("object too deep for desired array"
                                          if values.ndim > 1 else
                                          "object of too small depth for "
                                          "desired array")
    if values.dtype.kind not in "biu":
        raise errors.TypingError(
            f"Cannot cast array data from dtype('{values.dtype}') to "
            "dtype('int64') according to the rule 'safe'")
    if minlength < 0:
        raise errors.InvalidArgumentError("'minlength' must not be negative")
    device = values._device
    out_dtype = np.int64 if weights is None else np.float64
    if values.size == 0:
        return xp.zeros(minlength, dtype=out_dtype, device=device)
    if int(values.min()) < 0:
        raise errors.InvalidArgumentError(
            "'list' argument must have no negative elements")
    length = max(int(values.max()) + 1, minlength)
    out = xp.zeros(length, dtype=out_dtype, device=device)
    if weights is None:
        found, counts = xp.unique_counts(values)
        out[found] = counts
        return out
    w = ops.astype(_array(weights, device), np.float64)
    if w.shape != values.shape:
        raise errors.InvalidArgumentError(
            "The weights and list don't have the same length.")
    # Sums per value: the weights in the values' order, scanned, read at
    # each run's end less its start.
    found, sums = _run_sums(values, w)
    out[found] = sums
    return out


def _bin_edges(x, bins, range):
    """NumPy's bin edges for the flat DeviceArray x, on the host: ``bins``
    equal bins over ``range`` (x's extremes by default), or the given
    increasing edges."""
    if isinstance(bins, numbers.Integral):
        if bins < 1:
            raise errors.InvalidArgumentError(
                "`bins` must be positive, when an integer")
        if range is not None:
            first, last = float(range[0]), float(range[1])
            if first > last:
                raise errors.InvalidArgumentError(
                    "max must be larger than min in range parameter.")
        elif x.size == 0:
            first, last = 0.0, 1.0
        else:
            first, last = float(x.min()), float(x.max())
        if not (np.isfinite(first) and np.isfinite(last)):
            raise errors.InvalidArgumentError(
                f"autodetected range of [{first}, {last}] is not finite")
        if first == last:
            first, last = first - 0.5, last + 0.5
        return np.linspace(first, last, bins + 1,
                           dtype=np.result_type(x.dtype, np.float64)
                           if x.dtype.kind in "biu" else x.dtype)
    edges = np.asarray(bins.asnumpy() if isinstance(bins, DeviceArray)
                       else bins)
    if edges.ndim != 1 or np.any(edges[:-1] > edges[1:]):
        raise errors.InvalidArgumentError(
            "`bins` must increase monotonically, when an array")
    return edges


def histogram_bin_edges(a, bins=10, range=None, weights=None):
    x = ops.reshape(_array(a), -1)
    return _xp().asarray(_bin_edges(x, bins, range), device=x._device)


def histogram(a, bins=10, range=None, density=None, weights=None):
    xp, x = _xp(), _array(a)
    device = x._device
    x = ops.reshape(x, -1)
    edges = _bin_edges(x, bins, range)
    count = len(edges) - 1
    on_device = xp.asarray(edges, device=device)
    # A value's bin: the last edge at or below it; the last edge closes
    # the last bin; values outside the edges are not counted (NumPy's).
    index = prims.searchsorted(on_device, x, "right", None) - 1
    index = xp.where(x == edges[-1], count - 1, index)
    inside = (x >= edges[0]) & (x <= edges[-1])
    w = None if weights is None else \
        ops.reshape(_array(weights, device), -1)[inside]
    hist = bincount(index[inside], w, minlength=count)[:count]
    if density:
        widths = xp.asarray(np.diff(edges).astype(np.float64), device=device)
        hist = hist / widths / hist.sum()
    elif weights is not None:
        hist = ops.astype(hist, np.result_type(_array(weights).dtype,
                                               np.float64)
                          if _array(weights).dtype.kind == "f" else
                          np.float64)
    return hist, on_device


def _outer_edges(column, bounds):
    """histogramdd's range of one dimension (NumPy's _get_outer_edges)."""
    if bounds is not None:
        first, last = float(bounds[0]), float(bounds[1])
        if first > last:
            raise errors.InvalidArgumentError(
                "max must be larger than min in range parameter.")
        if not (np.isfinite(first) and np.isfinite(last)):
            raise errors.InvalidArgumentError(
                f"supplied range of [{first}, {last}] is not finite")
    elif column.size == 0:
        first, last = 0.0, 1.0
    else:
        first, last = float(column.min()), float(column.max())
        if not (np.isfinite(first) and np.isfinite(last)):
            raise errors.InvalidArgumentError(
                f"autodetected range of [{first}, {last}] is not finite")
    if first == last:
        first, last = first - 0.5, last + 0.5
    return first, last


def histogramdd(sample, bins=10, range=None, density=None, weights=None):
    """NumPy's: each dimension's bin by searchsorted (the last edge closing
    the last bin), outliers in bins of their own that are dropped, the
    counts by bincount of the raveled bin indices."""
    xp = _xp()
    if isinstance(sample, (list, tuple)):
        device = _device_of(*sample)
        columns = [ops.reshape(_array(s, device), -1) for s in sample]
    else:
        x = _array(sample)
        device = x._device
        columns = [x] if x.ndim == 1 else \
            [x[:, d] for d in builtins.range(x.shape[1])]
    dims = len(columns)
    try:
        if len(bins) != dims:
            raise errors.InvalidArgumentError(
                "The dimension of bins must be equal to the dimension of "
                "the sample x.")
    except TypeError:
        bins = dims * [bins]
    if range is None:
        range = dims * [None]
    elif len(range) != dims:
        raise errors.InvalidArgumentError(
            "range argument must have one entry per dimension")
    edges, index = [], []
    for d, column in enumerate(columns):
        b = bins[d]
        if isinstance(b, DeviceArray):
            b = b.asnumpy()
        if np.ndim(b) == 0:
            if b < 1:
                raise errors.InvalidArgumentError(
                    f"`bins[{d}]` must be positive, when an integer")
            first, last = _outer_edges(column, range[d])
            e = np.linspace(first, last, operator.index(b) + 1)
        else:
            e = np.asarray(b)
            if np.any(e[:-1] > e[1:]):
                raise errors.InvalidArgumentError(
                    f"`bins[{d}]` must be monotonically increasing, when an "
                    "array")
        on_device = xp.asarray(e, device=device)
        count = prims.searchsorted(on_device, column, "right", None)
        index.append(xp.where(column == e[-1], count - 1, count))
        edges.append(on_device)
    sizes = tuple(int(e.shape[0]) + 1 for e in edges)
    flat = np.ravel_multi_index(tuple(index), sizes)
    w = None if weights is None else \
        ops.reshape(_array(weights, device), -1)
    total = 1
    for n in sizes:
        total *= n
    hist = ops.astype(bincount(flat, w, minlength=total), np.float64)
    hist = ops.reshape(hist, sizes)[(slice(1, -1),) * dims]
    if density:
        whole = hist.sum()
        for d, e in enumerate(edges):
            shape = [1] * dims
            shape[d] = sizes[d] - 2
            hist = hist / ops.reshape(e[1:] - e[:-1], tuple(shape))
        hist = hist / whole
    return hist, edges


def histogram2d(x, y, bins=10, range=None, density=None, weights=None):
    try:
        n = len(bins)
    except TypeError:
        n = 1
    if n not in (1, 2):
        bins = [bins, bins]
    hist, edges = histogramdd([x, y], bins, range, density, weights)
    return hist, edges[0], edges[1]


def isin(element, test_elements, assume_unique=False, invert=False, *,
         kind=None):
    xp = _xp()
    device = _device_of(element, test_elements)
    e = _array(element, device)
    tests = ops.reshape(_array(test_elements, device), -1)
    if tests.size == 0:
        found = xp.zeros(e.shape, dtype=np.bool_, device=device)
    else:
        ordered = prims.sort(tests, 0)
        where = prims.searchsorted(ordered, e, "left", None)
        where = xp.where(where >= tests.size, tests.size - 1, where)
        found = prims.take(ordered, ops.reshape(where, -1), 0)
        found = ops.reshape(found, e.shape) == e
    return ~found if invert else found


# --------------------------------------------------------------------------
# Spread and means

def ptp(a, axis=None, out=None, keepdims=False):
    _refuse("ptp", out=out)
    x = _array(a)
    return x.max(axis=axis, keepdims=keepdims) - \
        x.min(axis=axis, keepdims=keepdims)


def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    xp, x = _xp(), _array(a)
    # NumPy's AxisError, named after the argument, before the weights'
    # shape is matched to an axis
    for one in () if axis is None else \
            axis if isinstance(axis, tuple) else (axis,):
        ops.normalize_axis(one, x.ndim, "axis")
    if weights is None:
        avg = x.mean(axis=axis, keepdims=keepdims)
        total = ops.astype(xp.asarray(
            x.size // max(avg.size, 1), device=x._device), avg.dtype)
    else:
        w = _array(weights, x._device)
        if w.shape != x.shape:
            if axis is None or w.ndim != 1 or \
                    w.shape[0] != x.shape[axis]:
                raise errors.InvalidArgumentError(
                    "Shape of weights must be consistent with shape of a "
                    "along specified axis.")
            shape = [1] * x.ndim
            shape[axis] = w.shape[0]
            w = ops.reshape(w, tuple(shape))
        dtype = np.result_type(x.dtype, w.dtype, np.float64) \
            if x.dtype.kind in "biu" else np.result_type(x.dtype, w.dtype)
        total = xp.broadcast_to(w, x.shape).sum(axis=axis,
                                                keepdims=keepdims)
        if bool((total == 0).any()):
            raise ZeroDivisionError(
                "Weights sum to zero, can't be normalized")
        avg = ops.astype((x * w).sum(axis=axis, keepdims=keepdims) / total,
                         dtype)
        total = ops.astype(total, avg.dtype)
    return (avg, xp.broadcast_to(total, avg.shape)) if returned else avg


# --------------------------------------------------------------------------
# Unbuffered in-place sums

def _run_sums(positions, values):
    """The distinct positions and the sum of the values at each: sorted by
    position, scanned, each run's end less its start (a segmented sum
    without atomics, on every device)."""
    xp = _xp()
    order = prims.argsort(positions, 0, stable=True)
    found, counts = xp.unique_counts(positions)
    running = xp.cumulative_sum(prims.take(values, order, 0),
                                include_initial=True)
    ends = xp.cumulative_sum(counts)
    return found, prims.take(running, ends, 0) - \
        prims.take(running, ends - counts, 0)


def _run_folds(ufunc, positions, values):
    """The distinct positions and ``ufunc`` folded over the values at each
    (an associative ufunc: maximum, minimum, multiply): sorted by position,
    each run folded by ``ufunc.reduceat``."""
    xp = _xp()
    order = prims.argsort(positions, 0, stable=True)
    found, counts = xp.unique_counts(positions)
    starts = xp.cumulative_sum(counts) - counts
    return found, ufunc.reduceat(prims.take(values, order, 0), starts)


# ufunc.at's ufuncs on DeviceArrays: add and subtract by segmented sums,
# these by segmented folds.
_AT_FOLDS = ("maximum", "minimum", "fmax", "fmin", "multiply")


def ufunc_at(ufunc, a, indices, b=None):
    """np.add.at(a, indices, b), np.subtract.at, np.maximum.at,
    np.minimum.at, np.multiply.at: unbuffered, so that a repeated index
    takes each of its values (NumPy's)."""
    name = ufunc.__name__
    if name not in ("add", "subtract") + _AT_FOLDS or b is None:
        raise errors.NotSupportedError(
            f"numpy.{name}.at on DeviceArrays is not supported; "
            "numpy.add.at, subtract.at, maximum.at, minimum.at and "
            "multiply.at are")
    xp = _xp()
    x = a
    from ._array_ops import is_contiguous
    if not is_contiguous(x, "C"):
        raise errors.NotSupportedError(
            f"numpy.{name}.at on a non-contiguous DeviceArray; make it "
            "contiguous first (x.copy())")
    device = x._device
    parts = indices if isinstance(indices, tuple) else (indices,)
    if len(parts) > x.ndim or any(isinstance(p, slice) or p is Ellipsis
                                  for p in parts):
        raise errors.NotSupportedError(
            f"numpy.{name}.at on DeviceArrays takes integer index arrays, "
            "one an axis from the first")
    index = [ops.astype(_array(p, device), np.int64) for p in parts]
    if any(i.dtype.kind not in "iu" for i in index):
        raise errors.ArrayIndexError(
            "arrays used as indices must be of integer type")
    index = list(xp.broadcast_arrays(*index))
    flat = None
    for axis, i in enumerate(index):
        n = x.shape[axis]
        if bool(((i < -n) | (i >= n)).any()):
            raise errors.ArrayIndexError(
                f"index out of bounds for axis {axis} with size {n}")
        i = xp.where(i < 0, i + n, i)
        flat = i if flat is None else flat * n + i
    # The axes not indexed: every element of each indexed row.
    rest = tuple(x.shape[len(index):])
    width = int(np.prod(rest))
    if rest:
        flat = ops.reshape(flat, tuple(flat.shape) + (1,) * len(rest)) * \
            width + ops.reshape(xp.arange(width, device=device), rest)
    if name in _AT_FOLDS:
        values = ops.astype(xp.broadcast_to(_array(b, device), flat.shape),
                            x.dtype)
        found, folded = _run_folds(ufunc, ops.reshape(flat, -1),
                                   ops.reshape(values, -1))
        target = ops.reshape(x, -1)
        target[found] = ufunc(prims.take(target, found, 0), folded)
        return
    acc = np.result_type(x.dtype, np.float64) if x.dtype.kind in "fc" \
        else np.dtype(np.int64) if x.dtype.kind in "iub" else x.dtype
    values = ops.astype(xp.broadcast_to(_array(b, device), flat.shape), acc)
    if name == "subtract":
        values = -values
    found, sums = _run_sums(ops.reshape(flat, -1), ops.reshape(values, -1))
    target = ops.reshape(x, -1)
    target[found] = ops.astype(prims.take(target, found, 0) + sums, x.dtype)


def functions():
    """NumPy function -> its DeviceArray version (for __array_function__)."""
    return {
        np.nansum: _nan_reduction("sum"),
        np.nanprod: _nan_reduction("prod"),
        np.nanmax: _nan_reduction("max"),
        np.nanmin: _nan_reduction("min"),
        np.nanmean: _nan_reduction("mean"),
        np.nanvar: _nan_moment("var"),
        np.nanstd: _nan_moment("std"),
        np.nanargmax: _nan_arg("argmax"),
        np.nanargmin: _nan_arg("argmin"),
        np.nancumsum: _nan_cumulative("cumsum"),
        np.nancumprod: _nan_cumulative("cumprod"),
        np.median: _median("median", False),
        np.percentile: _quantile("percentile", False),
        np.quantile: _quantile("quantile", False),
        np.nanmedian: _median("nanmedian", True),
        np.nanpercentile: _quantile("nanpercentile", True),
        np.nanquantile: _quantile("nanquantile", True),
        np.cov: cov,
        np.corrcoef: corrcoef,
        np.average: average,
        np.ptp: ptp,
        np.bincount: bincount,
        np.histogram: histogram,
        np.histogram_bin_edges: histogram_bin_edges,
        np.isin: isin,
        np.histogramdd: histogramdd,
        np.histogram2d: histogram2d,
    }
