"""The names the jit library (_jit_library.py) writes: NumPy's functions
and array methods, and "random" (np.random's functions).

Describing a function asks whether its code names any of them before it
imports the library itself, whose 50 jit functions cost a first call that
uses none of them a millisecond or two. _jit_library.py checks at import
that its tables name exactly these."""

NAMES = frozenset({
    "all", "allclose", "amax", "amin", "any", "append", "argmax", "argmin",
    "argsort", "argwhere", "around", "array_equal", "ascontiguousarray",
    "atleast_2d", "average", "bincount", "clip", "concatenate",
    "count_nonzero", "cumprod", "cumsum", "diag", "diff", "dot",
    "expand_dims", "eye", "fill", "flatten", "flip", "fliplr", "flipud",
    "hstack", "identity", "interp", "isclose", "isin", "linspace", "matmul",
    "max", "mean", "median", "min", "nanmax", "nanmean", "nanmin", "nansum",
    "nonzero", "outer", "percentile", "prod", "ptp", "quantile", "random",
    "ravel", "repeat", "roll", "round", "searchsorted", "sort", "stack",
    "std", "sum", "take", "trace", "tril", "triu", "unique", "var", "vstack",
    "where"})
