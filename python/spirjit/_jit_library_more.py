"""More of NumPy for jit host code, written in the jit language (the
library's contract is _jit_library.py's): the predicates (any, all,
isclose, allclose, array_equal), joining and reshaping (concatenate,
stack, hstack, vstack, append, ravel, flatten, expand_dims, atleast_2d,
ascontiguousarray, flip, fliplr, flipud, roll, repeat), elementwise and
triangular forms (round, around, diff, trace, diag, triu, tril, take),
NaN-ignoring reductions (nansum, nanmax, nanmin, nanmean), order
statistics (median, percentile, quantile, ptp, average), and searches
(nonzero, where with one argument, argwhere, unique, searchsorted, isin,
bincount, interp).

Host code never reads an element of an array here: a value that one
element decides is a reduction over a one-element view (``s[k:k + 1]
.sum()``), and element-wise work is a prange loop, so every function runs
where the caller's arrays are, GPUs included.
"""

import numpy as np

from . import jit, prange
from ._jit_library import (_merge_sorted, _scan, count_nonzero, fail)


@jit
def any1(a):
    return count_nonzero(a) > 0


@jit
def all1(a):
    return count_nonzero(a) == a.size


@jit
def isclose2(a, b):
    return isclose4(a, b, 1e-05, 1e-08)


@jit
def isclose4(a, b, rtol, atol):
    # NumPy 2's: |a - b| <= atol + rtol * |b| where b is finite, or equal
    # (infinities of one sign); NaN is close to nothing.
    return ((np.abs(a - b) <= atol + rtol * np.abs(b)) & np.isfinite(b)) | \
        (a == b)


@jit
def allclose2(a, b):
    return all1(isclose4(a, b, 1e-05, 1e-08))


@jit
def allclose4(a, b, rtol, atol):
    return all1(isclose4(a, b, rtol, atol))


@jit
def array_equal(a, b):
    if a.ndim != b.ndim:
        return False
    for d in range(a.ndim):
        if a.shape[d] != b.shape[d]:
            return False
    return count_nonzero(a != b) == 0


@jit
def flatten(a):
    # A copy in C order, as NumPy's flatten (ravel: a copy too here).
    return a.copy().reshape(-1)


@jit
def ascontiguousarray(a):
    return a.copy()


@jit
def round1(a):
    return round2(a, 0)


@jit
def round2(a, decimals):
    # NumPy's: scaled by 10**decimals, rounded half to even, scaled back,
    # in the array's own float type; integers are themselves for
    # decimals >= 0.
    if np.ndim(a) == 0:
        if decimals >= 0:
            return np.rint(a * 10.0 ** decimals) / 10.0 ** decimals
        return np.rint(a / 10.0 ** -decimals) * 10.0 ** -decimals
    if a.dtype == np.float32 or a.dtype == np.float64:
        if decimals >= 0:
            f = a.dtype.type(10.0 ** decimals)
            return np.rint(a * f) / f
        f = a.dtype.type(10.0 ** -decimals)
        return np.rint(a / f) * f
    if decimals >= 0:
        return a.copy()
    f = 10.0 ** -decimals
    return (np.rint(a / f) * f).astype(a.dtype)


@jit
def _join_extent(x, first, along):
    # x's extent along the joined axis, its other extent checked.
    if x.ndim != first.ndim:
        fail("all the input arrays must have same number of dimensions, "
             "but one has {got} dimension(s) and another {expected}",
             x.ndim, first.ndim)
    if first.ndim == 2 and x.shape[1 - along] != first.shape[1 - along]:
        fail("all the input array dimensions except for the concatenation "
             "axis must match exactly: sizes {got} and {expected}",
             x.shape[1 - along], first.shape[1 - along])
    return x.shape[along]


@jit
def _place(out, x, at, along):
    m = x.shape[along]
    if out.ndim == 1:
        out[at:at + m] = x
    elif along == 0:
        out[at:at + m, :] = x
    else:
        out[:, at:at + m] = x
    return at + m


@jit
def _concatenate(arrays, axis):
    # The arrays of the tuple one by one, by constant indices (its arrays
    # may differ in layout, so no loop walks them): up to eight.
    first = arrays[0]
    k = len(arrays)
    if k > 8:
        fail("np.concatenate in jit code joins up to 8 arrays, not {got}",
             k, 8)
    if first.ndim > 2:
        fail("np.concatenate in jit code takes 1-D and 2-D arrays, not "
             "{got}-D ones", first.ndim, 2)
    if axis < -first.ndim or axis >= first.ndim:
        fail("axis {got} is out of bounds for array of dimension "
             "{expected}", axis, first.ndim)
    along = axis % first.ndim
    n = _join_extent(first, first, along)
    if k > 1:
        n += _join_extent(arrays[1], first, along)
    if k > 2:
        n += _join_extent(arrays[2], first, along)
    if k > 3:
        n += _join_extent(arrays[3], first, along)
    if k > 4:
        n += _join_extent(arrays[4], first, along)
    if k > 5:
        n += _join_extent(arrays[5], first, along)
    if k > 6:
        n += _join_extent(arrays[6], first, along)
    if k > 7:
        n += _join_extent(arrays[7], first, along)
    if first.ndim == 1:
        out = np.empty(n, first.dtype)
    elif along == 0:
        out = np.empty((n, first.shape[1]), first.dtype)
    else:
        out = np.empty((first.shape[0], n), first.dtype)
    at = _place(out, first, 0, along)
    if k > 1:
        at = _place(out, arrays[1], at, along)
    if k > 2:
        at = _place(out, arrays[2], at, along)
    if k > 3:
        at = _place(out, arrays[3], at, along)
    if k > 4:
        at = _place(out, arrays[4], at, along)
    if k > 5:
        at = _place(out, arrays[5], at, along)
    if k > 6:
        at = _place(out, arrays[6], at, along)
    if k > 7:
        at = _place(out, arrays[7], at, along)
    return out


@jit
def concatenate1(arrays):
    return _concatenate(arrays, 0)


@jit
def concatenate2(arrays, axis):
    return _concatenate(arrays, axis)


@jit
def stack1(arrays):
    # 1-D arrays of one length as the rows of a new 2-D array: the row
    # vectors joined.
    first = arrays[0]
    if first.ndim != 1:
        fail("np.stack in jit code takes 1-D arrays, not {got}-D ones",
             first.ndim, 1)
    k = len(arrays)
    if k > 4:
        fail("np.stack in jit code stacks up to 4 arrays, not {got}", k, 4)
    if k == 1:
        return _concatenate((first[None, :],), 0)
    if k == 2:
        return _concatenate((first[None, :], arrays[1][None, :]), 0)
    if k == 3:
        return _concatenate((first[None, :], arrays[1][None, :],
                             arrays[2][None, :]), 0)
    if k == 4:
        return _concatenate((first[None, :], arrays[1][None, :],
                             arrays[2][None, :], arrays[3][None, :]), 0)
    return first[None, :]


@jit
def vstack(arrays):
    if arrays[0].ndim == 1:
        return stack1(arrays)
    return _concatenate(arrays, 0)


@jit
def hstack(arrays):
    if arrays[0].ndim == 1:
        return _concatenate(arrays, 0)
    return _concatenate(arrays, 1)


@jit
def append(a, values):
    # Both flattened, as NumPy's without an axis; a number is one value.
    flat = flatten(a)
    n = flat.shape[0]
    if np.ndim(values) == 0:
        out = np.empty(n + 1, flat.dtype)
        out[:n] = flat
        out[n:] = values
        return out
    more = flatten(values)
    out = np.empty(n + more.shape[0], flat.dtype)
    out[:n] = flat
    out[n:] = more
    return out


@jit
def expand_dims(a, axis):
    if a.ndim != 1:
        fail("np.expand_dims in jit code takes 1-D arrays, not {got}-D "
             "ones", a.ndim, 1)
    if axis < -2 or axis > 1:
        fail("axis {got} is out of bounds for array of dimension "
             "{expected}", axis, 2)
    if axis == 0 or axis == -2:
        return a[None, :]
    return a[:, None]


@jit
def atleast_2d(a):
    if a.ndim == 1:
        return a[None, :]
    return a


@jit
def flip(a):
    if a.ndim == 1:
        return a[::-1]
    if a.ndim == 2:
        return a[::-1, ::-1]
    return a[::-1, ::-1, ::-1]


@jit
def flipud(a):
    return a[::-1]


@jit
def fliplr(a):
    return a[:, ::-1]


@jit
def roll(a, shift):
    # Of the flattened array, reshaped back, as NumPy's without an axis.
    flat = flatten(a)
    n = flat.shape[0]
    out = np.empty(n, flat.dtype)
    if n > 0:
        s = shift % n
        for i in prange(n):
            out[(i + s) % n] = flat[i]
    return out.reshape(a.shape)


@jit
def repeat(a, repeats):
    flat = flatten(a)
    out = np.empty(flat.shape[0] * repeats, flat.dtype)
    for i in prange(out.shape[0]):
        out[i] = flat[i // repeats]
    return out


@jit
def take(a, indices):
    return flatten(a)[indices]


@jit
def diff1(a):
    return diff2(a, 1)


@jit
def diff2(a, n):
    # Along the last axis, n times.
    out = a.copy()
    for _ in range(n):
        if out.ndim == 1:
            out = out[1:] - out[:-1]
        else:
            out = out[:, 1:] - out[:, :-1]
    return out


@jit
def trace(a):
    if a.ndim != 2:
        fail("np.trace in jit code takes 2-D arrays, not {got}-D ones",
             a.ndim, 2)
    # NumPy's accumulator: the float or complex type itself, uint64 for
    # unsigned integers, int64 for the others (a weak 0 had taken uint8's
    # type and wrapped).
    if a.dtype == np.float32 or a.dtype == np.float64 or \
            a.dtype == np.complex64 or a.dtype == np.complex128:
        s = a.dtype.type(0)
    elif a.dtype == np.uint8 or a.dtype == np.uint16 or \
            a.dtype == np.uint32 or a.dtype == np.uint64:
        s = np.uint64(0)
    else:
        s = np.int64(0)
    for i in prange(min(a.shape[0], a.shape[1])):
        s += a[i, i]
    return s


@jit
def diag1(v):
    return diag2(v, 0)


@jit
def diag2(v, k):
    # A 1-D v: the square array with v on diagonal k; a 2-D v: its
    # diagonal k, a copy.
    if v.ndim == 1:
        n = v.shape[0] + abs(k)
        out = np.zeros((n, n), v.dtype)
        for i in prange(v.shape[0]):
            if k >= 0:
                out[i, i + k] = v[i]
            else:
                out[i - k, i] = v[i]
        return out
    if v.ndim != 2:
        fail("np.diag takes 1-D and 2-D arrays, not {got}-D ones", v.ndim, 2)
    rows = v.shape[0]
    cols = v.shape[1]
    if k >= 0:
        m = max(min(rows, cols - k), 0)
    else:
        m = max(min(rows + k, cols), 0)
    d = np.empty(m, v.dtype)
    for i in prange(m):
        if k >= 0:
            d[i] = v[i, i + k]
        else:
            d[i] = v[i - k, i]
    return d


@jit
def _triangle(m, k, upper):
    out = m.copy()
    for i in prange(m.shape[0]):
        for j in range(m.shape[1]):
            if (upper and j - i < k) or (not upper and j - i > k):
                out[i, j] = 0
    return out


@jit
def triu1(m):
    return _triangle(m, 0, True)


@jit
def triu2(m, k):
    return _triangle(m, k, True)


@jit
def tril1(m):
    return _triangle(m, 0, False)


@jit
def tril2(m, k):
    return _triangle(m, k, False)


@jit
def nansum(a):
    return np.where(a == a, a, 0).sum()


@jit
def nanmean(a):
    return np.where(a == a, a, 0).sum() / count_nonzero(a == a)


@jit
def _nan_extreme(a, largest):
    # NumPy's: NaNs left out; all NaN (or nothing else) gives NaN.
    if a.dtype == np.float32 or a.dtype == np.float64:
        if count_nonzero(a == a) == 0:
            return a.dtype.type(np.nan)
        if largest:
            return np.where(a == a, a, -np.inf).max()
        return np.where(a == a, a, np.inf).min()
    if largest:
        return a.max()
    return a.min()


@jit
def nanmax(a):
    return _nan_extreme(a, True)


@jit
def nanmin(a):
    return _nan_extreme(a, False)


@jit
def ptp(a):
    return a.max() - a.min()


@jit
def average(a):
    return a.mean()


@jit
def _element(s, k):
    # s[k] as host code may read it wherever s lives: a one-element sum.
    return s[k:k + 1].sum()


@jit
def _sorted_flat(a):
    return _merge_sorted(flatten(a), False)[0]


@jit
def median(a):
    s = _sorted_flat(a)
    n = s.shape[0]
    if n == 0 or count_nonzero(s != s) > 0:
        return np.nan
    if n % 2 == 1:
        return _element(s, n // 2) * 1.0
    return (_element(s, n // 2 - 1) * 1.0 + _element(s, n // 2)) / 2


@jit
def _quantile_of_sorted(s, q):
    # NumPy's "linear" method: the (n - 1) * q-th order statistic,
    # interpolated as NumPy's _lerp does (from the upper neighbour past
    # half way).
    n = s.shape[0]
    if q < 0.0 or q > 1.0:
        fail("Quantiles must be in the range [0, 1]", 0, 0)
    position = (n - 1) * q
    below = int(np.floor(position))
    above = min(below + 1, n - 1)
    t = position - below
    lo = _element(s, below) * 1.0
    hi = _element(s, above) * 1.0
    if t >= 0.5:
        return hi - (hi - lo) * (1 - t)
    return lo + (hi - lo) * t


@jit
def quantile(a, q):
    s = _sorted_flat(a)
    if s.shape[0] == 0 or count_nonzero(s != s) > 0:
        return np.nan
    return _quantile_of_sorted(s, q)


@jit
def percentile(a, q):
    s = _sorted_flat(a)
    if s.shape[0] == 0 or count_nonzero(s != s) > 0:
        return np.nan
    if q < 0.0 or q > 100.0:
        fail("Percentiles must be in the range [0, 100]", 0, 0)
    return _quantile_of_sorted(s, q / 100)


@jit
def _flat_nonzero(a):
    # The flat indices of a's nonzero elements, in order: a scan of the
    # flags places each.
    flat = flatten(a)
    flags = (flat != 0).astype(np.int64)
    places = _scan(flags, False)
    out = np.empty(count_nonzero(flat), np.int64)
    for i in prange(flat.shape[0]):
        if flags[i] != 0:
            out[places[i] - 1] = i
    return out


@jit
def nonzero(a):
    at = _flat_nonzero(a)
    if a.ndim == 1:
        return (at,)
    if a.ndim != 2:
        fail("np.nonzero in jit code takes 1-D and 2-D arrays, not {got}-D "
             "ones", a.ndim, 2)
    return (at // a.shape[1], at % a.shape[1])


@jit
def argwhere(a):
    at = _flat_nonzero(a)
    if a.ndim == 1:
        return at.reshape((at.shape[0], 1))
    if a.ndim != 2:
        fail("np.argwhere in jit code takes 1-D and 2-D arrays, not {got}-D"
             " ones", a.ndim, 2)
    out = np.empty((at.shape[0], 2), np.int64)
    for i in prange(at.shape[0]):
        out[i, 0] = at[i] // a.shape[1]
        out[i, 1] = at[i] % a.shape[1]
    return out


@jit
def unique(a):
    # Sorted, each value once (NaNs as one, as NumPy 2's equal_nan).
    s = _sorted_flat(a)
    n = s.shape[0]
    first = np.empty(n, np.int64)
    for i in prange(n):
        x = s[i]
        if i == 0:
            first[i] = 1
        else:
            y = s[i - 1]
            first[i] = 1 if x != y and not (x != x and y != y) else 0
    places = _scan(first, False)
    out = np.empty(count_nonzero(first), s.dtype)
    for i in prange(n):
        if first[i] != 0:
            out[places[i] - 1] = s[i]
    return out


@jit
def _lower_bound(s, x, right):
    # The first place in sorted s whose element is greater than x (right)
    # or not less than it (left); NaN sorts last.
    lo = 0
    hi = s.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        y = s[mid]
        if right:
            go = y <= x or (x != x and y == y) or (x != x and y != y)
        else:
            go = y < x or (x != x and y == y)
        if go:
            lo = mid + 1
        else:
            hi = mid
    return lo


@jit
def _searchsorted(s, v, right):
    if np.ndim(v) == 0:
        one = np.empty(1, np.int64)
        for i in prange(1):
            one[i] = _lower_bound(s, v, right)
        return one.sum()
    out = np.empty(v.shape, np.int64)
    flat_v = v.reshape(-1)
    flat_out = out.reshape(-1)
    for i in prange(flat_v.shape[0]):
        flat_out[i] = _lower_bound(s, flat_v[i], right)
    return out


@jit
def searchsorted2(a, v):
    return _searchsorted(a, v, False)


@jit
def isin(a, b):
    s = _sorted_flat(b)
    out = np.empty(a.shape, np.bool_)
    flat_a = flatten(a)
    flat_out = out.reshape(-1)
    n = s.shape[0]
    for i in prange(flat_a.shape[0]):
        at = _lower_bound(s, flat_a[i], False)
        flat_out[i] = n > 0 and at < n and s[min(at, n - 1)] == flat_a[i]
    return out


@jit
def bincount(x):
    # Counts of each value 0 .. max(x): each run of a sorted copy writes
    # its length at its value.
    s = _sorted_flat(x)
    n = s.shape[0]
    size = 0 if n == 0 else _element(s, n - 1) + 1
    if n > 0 and _element(s, 0) < 0:
        fail("'list' argument must have no negative elements", 0, 0)
    out = np.zeros(size, np.int64)
    for i in prange(n):
        if i == n - 1 or s[i] != s[i + 1]:
            out[s[i]] = i + 1 - _lower_bound(s, s[i], False)
    return out


@jit
def _interp_one(x, xp, fp):
    n = xp.shape[0]
    if x != x:
        return np.nan
    j = _lower_bound(xp, x, True)  # xp[j - 1] <= x < xp[j]
    if j == 0:
        return fp[0] * 1.0
    if j >= n:
        return fp[n - 1] * 1.0
    x0 = xp[j - 1]
    x1 = xp[j]
    y0 = fp[j - 1] * 1.0
    y1 = fp[j] * 1.0
    if x == x0:
        return y0
    return y0 + (y1 - y0) * ((x - x0) / (x1 - x0))


@jit
def interp(x, xp, fp):
    if xp.shape[0] != fp.shape[0]:
        fail("fp and xp are not of the same length ({got} and {expected})",
             fp.shape[0], xp.shape[0])
    if np.ndim(x) == 0:
        one = np.empty(1)
        for i in prange(1):
            one[i] = _interp_one(x, xp, fp)
        return one.sum()
    out = np.empty(x.shape)
    flat_x = x.reshape(-1)
    flat_out = out.reshape(-1)
    for i in prange(flat_x.shape[0]):
        flat_out[i] = _interp_one(flat_x[i], xp, fp)
    return out


# NumPy's name -> the functions writing it, one per number of arguments
# (_jit_library.FUNCTIONS' form), and the array methods.
FUNCTIONS = {
    "any": (any1,), "all": (all1,), "isclose": (isclose2, isclose4),
    "allclose": (allclose2, allclose4), "array_equal": (array_equal,),
    "ravel": (flatten,), "ascontiguousarray": (ascontiguousarray,),
    "round": (round1, round2), "around": (round1, round2),
    "concatenate": (concatenate1, concatenate2), "stack": (stack1,),
    "vstack": (vstack,), "hstack": (hstack,), "append": (append,),
    "expand_dims": (expand_dims,), "atleast_2d": (atleast_2d,),
    "flip": (flip,), "flipud": (flipud,), "fliplr": (fliplr,),
    "roll": (roll,), "repeat": (repeat,), "take": (take,),
    "diff": (diff1, diff2), "trace": (trace,), "diag": (diag1, diag2),
    "triu": (triu1, triu2), "tril": (tril1, tril2), "nansum": (nansum,),
    "nanmean": (nanmean,), "nanmax": (nanmax,), "nanmin": (nanmin,),
    "ptp": (ptp,), "average": (average,), "median": (median,),
    "quantile": (quantile,), "percentile": (percentile,),
    "nonzero": (nonzero,), "where": (nonzero,), "argwhere": (argwhere,),
    "unique": (unique,),
    "searchsorted": (searchsorted2,), "isin": (isin,),
    "bincount": (bincount,), "interp": (interp,)}
METHODS = {
    "any": (any1,), "all": (all1,), "ravel": (flatten,),
    "flatten": (flatten,), "round": (round1, round2),
    "repeat": (repeat,), "take": (take,), "trace": (trace,),
    "nonzero": (nonzero,), "ptp": (ptp,),
    "searchsorted": (searchsorted2,)}
