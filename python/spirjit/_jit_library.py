"""NumPy functions and array methods for jit host code, written in the jit
language itself, as numba writes much of its NumPy support in Python.

A jit function whose code names one of them (``a.std()``, ``np.std(a)``,
``np.linspace(0, 1, 50)``) carries them in its description's "library"
table (_describe.py), keyed by NumPy's name and the number of arguments
(and a form's name, for forms written for calls with keywords);
the compiler inlines the one called into the caller's host code
(compiler/InlineJit.h), where its prange loops and array expressions
become the caller's kernels on the caller's device. They follow NumPy's
results; what they do not take (``axis=``, ``ddof=``, ``out=``) is an
``UnsupportedFeatureError`` at the user's line, naming what is taken.
"""

import numpy as np

from . import jit, prange
from ._jit_library_names import NAMES


class _Fail:
    """``fail(message, got, expected)``, alone in an ``if`` body of library
    code: NumPy's ValueError, naming the user's file:line, with ``{got}``
    and ``{expected}`` in the message replaced by the two integers
    (compiler/InlineJit.cpp makes it the compiler's own check)."""

    __spirjit_name__ = "spirjit._fail"

    def __call__(self, message, got, expected):
        raise ValueError(message.format(got=got, expected=expected))


fail = _Fail()


@jit
def var(a):
    mean = a.mean()
    deviation = a - mean
    return (deviation * deviation).sum() / a.size


@jit
def std(a):
    return np.sqrt(var(a))


@jit
def fill(a, value):
    a[:] = value
    return None


@jit
def _arg_extreme(a, smallest):
    # NumPy's rule: the first extreme element, or the first NaN. `smallest`
    # is a constant where argmax and argmin pass it: one branch prunes.
    extreme = a.min() if smallest else a.max()
    first = a.shape[0]
    if extreme != extreme:
        for i in prange(a.shape[0]):
            if a[i] != a[i]:
                first = min(first, i)
    else:
        for i in prange(a.shape[0]):
            if a[i] == extreme:
                first = min(first, i)
    return first


@jit
def argmax(a):
    # The flat index, as NumPy's without an axis.
    if a.ndim == 1:
        return _arg_extreme(a, False)
    return _arg_extreme(a.reshape(-1), False)


@jit
def argmin(a):
    if a.ndim == 1:
        return _arg_extreme(a, True)
    return _arg_extreme(a.reshape(-1), True)


# Reductions over one axis of a 1-D or 2-D array; `op` is a constant where
# each caller below passes it, so the other operations' branches prune.
SUM, PROD, MIN, MAX, MEAN = 0, 1, 2, 3, 4


@jit
def _reduce_axis(a, axis, op):
    if a.ndim > 2:
        fail("a reduction over an axis in jit code takes 1-D and 2-D "
             "arrays, not {got}-D ones", a.ndim, 2)
    if axis < -a.ndim or axis >= a.ndim:
        fail("axis {got} is out of bounds for array of dimension "
             "{expected}", axis, a.ndim)
    if a.ndim == 1:
        if op == SUM:
            return a.sum()
        if op == PROD:
            return a.prod()
        if op == MIN:
            return a.min()
        if op == MAX:
            return a.max()
        return a.mean()
    rows = axis == 0 or axis == -2  # the result has one value per column
    n = a.shape[1] if rows else a.shape[0]
    k = a.shape[0] if rows else a.shape[1]
    if (op == MIN or op == MAX) and k == 0:
        fail("zero-size array to a minimum or maximum over an axis of "
             "{got} elements, which has no identity", k, 0)
    # NumPy's result dtypes (each condition is known when the caller
    # compiles, so `out` has one type).
    if op == MIN or op == MAX:
        out = np.empty(n, a.dtype)
    elif op == MEAN:
        if a.dtype == np.float32:
            out = np.empty(n, np.float32)
        else:
            out = np.empty(n)
    elif a.dtype == np.float32 or a.dtype == np.float64:
        out = np.empty(n, a.dtype)
    elif a.dtype == np.uint8 or a.dtype == np.uint16 or \
            a.dtype == np.uint32 or a.dtype == np.uint64:
        out = np.empty(n, np.uint64)
    else:
        out = np.empty(n, np.int64)
    for j in prange(n):
        # Accumulators of the result's type (a weak 0 had taken uint8's
        # and wrapped): NumPy's sums of integers in int64 or uint64, its
        # means of integers in float64.
        if op == MEAN:
            s = out.dtype.type(0)
        elif op == SUM:
            s = out.dtype.type(0)
        elif op == PROD:
            s = out.dtype.type(1)
        elif rows:
            s = a[0, j]
        else:
            s = a[j, 0]
        for i in range(k):
            x = a[i, j] if rows else a[j, i]
            if op == SUM or op == MEAN:
                s += x
            elif op == PROD:
                s *= x
            elif op == MIN:
                s = np.minimum(s, x)
            else:
                s = np.maximum(s, x)
        if op == MEAN:
            out[j] = s / k
        else:
            out[j] = s
    return out


@jit
def sum_axis(a, axis):
    return _reduce_axis(a, axis, SUM)


@jit
def prod_axis(a, axis):
    return _reduce_axis(a, axis, PROD)


@jit
def min_axis(a, axis):
    return _reduce_axis(a, axis, MIN)


@jit
def max_axis(a, axis):
    return _reduce_axis(a, axis, MAX)


@jit
def mean_axis(a, axis):
    return _reduce_axis(a, axis, MEAN)


@jit
def linspace(start, stop, num):
    out = np.empty(num)
    step = (stop - start) / max(num - 1, 1)
    for i in prange(num):
        # NumPy's: start + i * step, and the endpoint exactly.
        if i == num - 1 and num > 1:
            out[i] = stop
        else:
            out[i] = start + i * step
    return out


@jit
def linspace50(start, stop):
    return linspace(start, stop, 50)


@jit
def matmul(a, b):
    # NumPy's matmul and dot of 1-D and 2-D arrays; branches on the ranks
    # and dtypes are pruned when the caller compiles.
    if a.ndim > 2 or b.ndim > 2:
        fail("matmul in jit code takes 1-D and 2-D arrays, not {got}-D and "
             "{expected}-D", a.ndim, b.ndim)
    inner = a.shape[0] if a.ndim == 1 else a.shape[1]
    if inner != b.shape[0]:
        fail("matmul: the operands' inner extents differ ({got} and "
             "{expected})", inner, b.shape[0])
    if a.ndim == 1 and b.ndim == 1:
        # In the operands' promoted type, as NumPy's dot: uint8 products
        # wrap, bools give whether any pair holds (the sum alone is int64).
        p = a * b
        return p.dtype.type(p.sum())
    if a.ndim == 2 and b.ndim == 2:
        if a.dtype == b.dtype:
            c = np.empty((a.shape[0], b.shape[1]), a.dtype)
        else:
            c = np.empty((a.shape[0], b.shape[1]))
        for i in prange(a.shape[0]):
            for j in prange(b.shape[1]):
                s = 0
                for p in range(inner):
                    s += a[i, p] * b[p, j]
                c[i, j] = s
        return c
    if a.ndim == 2:
        if a.dtype == b.dtype:
            y = np.empty(a.shape[0], a.dtype)
        else:
            y = np.empty(a.shape[0])
        for i in prange(a.shape[0]):
            s = 0
            for p in range(inner):
                s += a[i, p] * b[p]
            y[i] = s
        return y
    if a.dtype == b.dtype:
        x = np.empty(b.shape[1], a.dtype)
    else:
        x = np.empty(b.shape[1])
    for j in prange(b.shape[1]):
        s = 0
        for p in range(inner):
            s += a[p] * b[p, j]
        x[j] = s
    return x


@jit
def _merge_sorted(a, indexed):
    # A stable merge sort, every pass one prange over the elements: each
    # finds its place in the merged pair of runs by a binary search in the
    # other run (ties: the left run's first, so equal keys keep their
    # order). NaN sorts last, as NumPy's. Returns the values and, when
    # `indexed` (a constant where callers pass it), where they came from.
    n = a.shape[0]
    src = a.copy()
    dst = np.empty(n, a.dtype)
    m = n if indexed else 1
    isrc = np.arange(m)
    idst = np.empty(m, np.int64)
    w = 1
    while w < n:
        for i in prange(n):
            x = src[i]
            block = i // w
            start = block * w
            if block % 2 == 0:
                # Left run: after the right run's elements less than x.
                lo = start + w
                left = lo
                right = min(lo + w, n)
                while left < right:
                    mid = (left + right) // 2
                    y = src[mid]
                    if y < x or (y == y and x != x):
                        left = mid + 1
                    else:
                        right = mid
                pos = i + (left - lo)
            else:
                # Right run: after the left run's elements not above x.
                lo = start - w
                left = lo
                right = start
                while left < right:
                    mid = (left + right) // 2
                    y = src[mid]
                    if x < y or (x == x and y != y):
                        right = mid
                    else:
                        left = mid + 1
                pos = lo + (i - start) + (left - lo)
            dst[pos] = x
            if indexed:
                idst[pos] = isrc[i]
        src, dst = dst, src
        isrc, idst = idst, isrc
        w *= 2
    return src, isrc


@jit
def sort(a):
    if a.ndim != 1:
        fail("np.sort in jit code takes 1-D arrays, not {got}-D ones",
             a.ndim, 1)
    return _merge_sorted(a, False)[0]


@jit
def argsort(a):
    # Stable: equal elements in their order (NumPy's kind="stable").
    if a.ndim != 1:
        fail("argsort in jit code takes 1-D arrays, not {got}-D ones",
             a.ndim, 1)
    return _merge_sorted(a, True)[1]


@jit
def sort_in_place(a):
    if a.ndim != 1:
        fail("a.sort() in jit code takes 1-D arrays, not {got}-D ones",
             a.ndim, 1)
    a[:] = _merge_sorted(a, False)[0]
    return None


@jit
def _scan(flat, multiply):
    # NumPy's cumsum/cumprod of a 1-D array: a Hillis-Steele scan, log2(n)
    # prange passes (floats round as a tree adds, within NumPy's tolerance
    # of its sequential sum). Integers and booleans accumulate in int64,
    # unsigned integers in uint64, as NumPy's on this platform.
    a = flat
    n = flat.shape[0]
    if a.dtype == np.float32 or a.dtype == np.float64:
        src = np.empty(n, a.dtype)
    elif a.dtype == np.complex64 or a.dtype == np.complex128:
        src = np.empty(n, a.dtype)
    elif a.dtype == np.uint8 or a.dtype == np.uint16 or \
            a.dtype == np.uint32 or a.dtype == np.uint64:
        src = np.empty(n, np.uint64)
    else:
        src = np.empty(n, np.int64)
    src[:] = flat
    dst = np.empty(n, src.dtype)
    w = 1
    while w < n:
        for i in prange(n):
            if i >= w:
                if multiply:
                    dst[i] = src[i] * src[i - w]
                else:
                    dst[i] = src[i] + src[i - w]
            else:
                dst[i] = src[i]
        src, dst = dst, src
        w *= 2
    return src


@jit
def cumsum(a):
    # Of the flattened array, as NumPy's without an axis.
    if a.ndim == 1:
        return _scan(a, False)
    return _scan(a.reshape(-1), False)


@jit
def cumprod(a):
    if a.ndim == 1:
        return _scan(a, True)
    return _scan(a.reshape(-1), True)


@jit
def _item(a, i):
    # Element i of an array of 1 to 3 dimensions, any layout, in C order.
    if a.ndim == 1:
        return a[i]
    if a.ndim == 2:
        return a[i // a.shape[1], i % a.shape[1]]
    return a[i // (a.shape[1] * a.shape[2]), i // a.shape[2] % a.shape[1],
             i % a.shape[2]]


@jit
def mask_index(a, mask):
    # a[mask], a boolean mask of a's shape: the elements where it holds, in
    # C order, as a 1-D array. Each work-item takes a run of the flattened
    # mask: one pass counts each run's elements (and their total, which
    # sizes the result), one work-item adds the counts up into each run's
    # first place in the result, and a last pass copies each run's
    # elements there.
    if a.ndim > 3:
        fail("a[mask] in jit code takes arrays of 1 to 3 dimensions, not "
             "{got}", a.ndim, 3)
    if a.shape[0] != mask.shape[0]:
        fail("boolean index did not match indexed array along axis 0; "
             "size of axis is {expected} but size of corresponding "
             "boolean axis is {got}", mask.shape[0], a.shape[0])
    if a.ndim >= 2:
        if a.shape[1] != mask.shape[1]:
            fail("boolean index did not match indexed array along axis "
                 "1; size of axis is {expected} but size of corresponding "
                 "boolean axis is {got}", mask.shape[1], a.shape[1])
    if a.ndim == 3:
        if a.shape[2] != mask.shape[2]:
            fail("boolean index did not match indexed array along axis "
                 "2; size of axis is {expected} but size of corresponding "
                 "boolean axis is {got}", mask.shape[2], a.shape[2])
    n = a.size
    run = max(64, (n + 16383) // 16384)
    runs = (n + run - 1) // run
    counts = np.empty(runs, np.int64)
    total = 0
    for r in prange(runs):
        count = 0
        for i in range(r * run, min(n, r * run + run)):
            if _item(mask, i):
                count += 1
        counts[r] = count
        total += count
    out = np.empty(total, a.dtype)
    if total > 0:
        for r in prange(1):
            first = 0
            for k in range(runs):
                count = counts[k]
                counts[k] = first
                first += count
        for r in prange(runs):
            j = counts[r]
            for i in range(r * run, min(n, r * run + run)):
                if _item(mask, i):
                    out[j] = _item(a, i)
                    j += 1
    return out


# np.random's array forms: prange loops of the draws jit code makes as
# numbers (compiler/RandomDraws.h), one per element, each iteration its own
# stream. `draw` is a constant where the functions below pass it.
_UNIFORM, _NORMAL, _INTEGER = 0, 1, 2


@jit
def _draws(shape, draw, p0, p1):
    if draw == _INTEGER:
        out = np.empty(shape, np.int64)
    else:
        out = np.empty(shape)
    flat = out.reshape(-1)
    for i in prange(flat.shape[0]):
        if draw == _UNIFORM:
            flat[i] = np.random.uniform(p0, p1)
        elif draw == _NORMAL:
            flat[i] = np.random.normal(p0, p1)
        else:
            flat[i] = np.random.randint(p0, p1)
    return out


@jit
def random_size(size):
    return _draws(size, _UNIFORM, 0.0, 1.0)


@jit
def rand1(d0):
    return _draws(d0, _UNIFORM, 0.0, 1.0)


@jit
def rand2(d0, d1):
    return _draws((d0, d1), _UNIFORM, 0.0, 1.0)


@jit
def rand3(d0, d1, d2):
    return _draws((d0, d1, d2), _UNIFORM, 0.0, 1.0)


@jit
def randn1(d0):
    return _draws(d0, _NORMAL, 0.0, 1.0)


@jit
def randn2(d0, d1):
    return _draws((d0, d1), _NORMAL, 0.0, 1.0)


@jit
def randn3(d0, d1, d2):
    return _draws((d0, d1, d2), _NORMAL, 0.0, 1.0)


@jit
def uniform_size(low, high, size):
    return _draws(size, _UNIFORM, low, high)


@jit
def normal_size(loc, scale, size):
    return _draws(size, _NORMAL, loc, scale)


@jit
def randint_size(low, high, size):
    return _draws(size, _INTEGER, low, high)


@jit
def outer(a, b):
    # NumPy's: each element of a (flattened) times each of b, as the
    # broadcast product of a column and a row (ArrayOps.def's multiply).
    if a.ndim == 1 and b.ndim == 1:
        return a[:, None] * b[None, :]
    return a.reshape(-1)[:, None] * b.reshape(-1)[None, :]


@jit
def count_nonzero(a):
    return (a != 0).sum()


@jit
def clip(a, a_min, a_max):
    # NumPy 2's clip is maximum, then minimum: NaN propagates, results
    # take NumPy's promotion of the three (ArrayOps.def's rows).
    if a_min is None:
        return np.minimum(a, a_max)
    if a_max is None:
        return np.maximum(a, a_min)
    return np.minimum(np.maximum(a, a_min), a_max)


@jit
def _eye(rows, columns, k, dtype):
    out = np.zeros((rows, columns), dtype)
    for i in prange(rows):
        j = i + k
        if j >= 0 and j < columns:
            out[i, j] = 1
    return out


@jit
def identity(n):
    return _eye(n, n, 0, np.float64)


@jit
def identity_dtype(n, dtype):
    return _eye(n, n, 0, dtype)


@jit
def eye1(N):
    return _eye(N, N, 0, np.float64)


@jit
def eye2(N, M):
    if M is None:
        return _eye(N, N, 0, np.float64)
    return _eye(N, M, 0, np.float64)


@jit
def eye3(N, M, k):
    if M is None:
        return _eye(N, N, k, np.float64)
    return _eye(N, M, k, np.float64)


@jit
def eye4(N, M, k, dtype):
    if M is None:
        return _eye(N, N, k, dtype)
    return _eye(N, M, k, dtype)


# np.eye's keyword forms that no positional one spells with the same
# arguments (np.eye(3, dtype=t) is two arguments, as eye2's N and M).
@jit
def eye_dtype(N, dtype):
    return _eye(N, N, 0, dtype)


@jit
def eye_k(N, k):
    return _eye(N, N, k, np.float64)


@jit
def eye_k_dtype(N, k, dtype):
    return _eye(N, N, k, dtype)


@jit
def eye_m_dtype(N, M, dtype):
    if M is None:
        return _eye(N, N, 0, dtype)
    return _eye(N, M, 0, dtype)


# NumPy's name -> the functions writing it, one per number of arguments
# (an array method's array counted).
_AXES = {"sum": sum_axis, "prod": prod_axis, "min": min_axis,
         "max": max_axis, "mean": mean_axis, "amin": min_axis,
         "amax": max_axis}
FUNCTIONS = {"std": (std,), "var": (var,), "argmax": (argmax,),
             "argmin": (argmin,), "linspace": (linspace50, linspace),
             "dot": (matmul,), "matmul": (matmul,), "sort": (sort,),
             "argsort": (argsort,), "cumsum": (cumsum,),
             "cumprod": (cumprod,), "outer": (outer,),
             "count_nonzero": (count_nonzero,), "clip": (clip,),
             "identity": (identity, identity_dtype),
             "eye": (eye1, eye2, eye3, eye4),
             **{name: (fn,) for name, fn in _AXES.items()}}
# Forms for calls with keywords, by NumPy's name: "numpy.eye#2:eye_dtype"
# is np.eye(n, dtype=t). The compiler takes the one whose first parameters
# are NumPy's positional ones, as many as the call gives by position, and
# whose others are the keywords (compiler/InlineJit.cpp); else the form of
# that many arguments, whose parameters the keywords must name.
KEYWORD_FUNCTIONS = {"eye": (eye_dtype, eye_k, eye_k_dtype, eye_m_dtype)}
METHODS = {"std": (std,), "var": (var,), "fill": (fill,),
           "argmax": (argmax,), "argmin": (argmin,), "dot": (matmul,),
           "sort": (sort_in_place,), "argsort": (argsort,),
           "cumsum": (cumsum,), "cumprod": (cumprod,), "clip": (clip,),
           **{name: (fn,) for name, fn in _AXES.items()
              if not name.startswith("a")}}
# The functions of _jit_library_more.py (it reads this module's helpers).
from . import _jit_library_more as _more  # noqa: E402
for _name, _forms in _more.FUNCTIONS.items():
    FUNCTIONS[_name] = FUNCTIONS.get(_name, ()) + _forms
for _name, _forms in _more.METHODS.items():
    METHODS[_name] = METHODS.get(_name, ()) + _forms
assert set(FUNCTIONS) | set(METHODS) | {"random"} == NAMES, \
    "_jit_library_names.NAMES must name what the library writes"
# np.random's functions with their array forms ("numpy.random.<name>"), and
# the numbers of arguments with which jit code draws a number itself.
RANDOM = {"random": (random_size,), "random_sample": (random_size,),
          "sample": (random_size,), "ranf": (random_size,),
          "rand": (rand1, rand2, rand3), "randn": (randn1, randn2, randn3),
          "uniform": (uniform_size,), "normal": (normal_size,),
          "randint": (randint_size,)}
RANDOM_NATIVE = {"random": (0,), "random_sample": (0,), "sample": (0,),
                 "ranf": (0,), "rand": (0,), "randn": (0,),
                 "uniform": (0, 1, 2), "normal": (0, 1, 2),
                 "randint": (1, 2)}
# Operations of Python's syntax that the library writes where types call
# for it (compiler/MaskReads.h), keyed "spirjit.<name>#<arguments>":
# a description has them when the compiler asks (LibraryOperationsNeeded).
OPERATIONS = {"mask_index": mask_index}
# The names above of NumPy's that jit code also computes itself, with the
# number of arguments it takes them with ("numpy.sum#1" is a.sum() there).
NATIVE = {f"{prefix}{name}#1" for name in ("sum", "prod", "min", "max",
                                          "mean", "amin", "amax")
          for prefix in ("numpy.", "method:")} | {"numpy.where#3"}


def entries(names, describe_value, table, operations=()):
    """The library table of a function whose code uses ``names`` and the
    ``operations`` named in OPERATIONS: for each library name among them,
    "numpy.<name>#<arguments>" and "method:<name>#<arguments>" (and
    "spirjit.<operation>#<arguments>") -> the key of its description in
    ``table``."""
    out = {}
    for name in operations:
        fn = OPERATIONS[name]
        count = fn.py_func.__code__.co_argcount
        out[f"spirjit.{name}#{count}"] = describe_value(fn, table)["name"]
    for name in names:
        for prefix, group in (("numpy.", FUNCTIONS), ("method:", METHODS)):
            for fn in group.get(name, ()):
                count = fn.py_func.__code__.co_argcount
                out[f"{prefix}{name}#{count}"] = describe_value(
                    fn, table)["name"]
            if prefix == "numpy.":
                for fn in KEYWORD_FUNCTIONS.get(name, ()):
                    code = fn.py_func.__code__
                    out[f"numpy.{name}#{code.co_argcount}:{code.co_name}"] \
                        = describe_value(fn, table)["name"]
            written = any(key.startswith(f"{prefix}{name}#") for key in out)
            for key in NATIVE:
                if written and key.startswith(f"{prefix}{name}#"):
                    out[key] = ""  # the compiler's own
        if "random" in names:  # np.random.<name>
            for fn in RANDOM.get(name, ()):
                count = fn.py_func.__code__.co_argcount
                out[f"numpy.random.{name}#{count}"] = describe_value(
                    fn, table)["name"]
            for count in RANDOM_NATIVE.get(name, ()):
                out[f"numpy.random.{name}#{count}"] = ""
    return out
