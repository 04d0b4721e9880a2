"""The names the jit library (_jit_library.py) writes: NumPy's functions
and array methods, and "random" (np.random's functions).

Describing a function asks whether its code names any of them before it
imports the library itself, whose 50 jit functions cost a first call that
uses none of them a millisecond or two. _jit_library.py checks at import
that its tables name exactly these."""

NAMES = frozenset({
    "amax", "amin", "argmax", "argmin", "argsort", "clip", "count_nonzero",
    "cumprod", "cumsum", "dot", "eye", "fill", "identity", "linspace",
    "matmul", "max", "mean", "min", "outer", "prod", "random", "sort", "std",
    "sum", "var"})
