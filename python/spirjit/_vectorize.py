"""``spirjit.vectorize``: a scalar Python function made into a ufunc that
runs over arrays on a device.

Contract: each call picks a loop (the first signature the inputs cast to
safely, as NumPy picks ufunc loops, or, without signatures, the inputs'
own dtypes) and records a ``call`` node of the array-expression graph
(launch/ArrayGraph.h), as DeviceArray operators record theirs: the scalar
function is compiled by the ordinary frontend into the fused kernel that
computes the value, with the operations around it, when the value is
needed. Its errors are typed out at the first call of each loop, so they
raise there and name its file and line. The device is that of the
DeviceArray inputs, else the decorator's ``device=``, else the default one;
inputs with no DeviceArray among them get a NumPy result, computed at once.
"""

import functools
import re

import numpy as np

from . import _array_ops, _spirjit, errors
from ._describe import callee_key, describe_function
from ._spirjit import DeviceArray

_NAMES = {"boolean": "bool", "b1": "bool", "double": "float64",
          "float": "float32", "intp": "int64"}


def _dtype(text, signature):
    text = text.strip()
    try:
        return np.dtype(_NAMES.get(text, text))
    except TypeError:
        raise errors.TypingError(
            f"vectorize signature {signature!r}: unknown type "
            f"{text!r}") from None


def parse_signature(text):
    """``"float32(float32, int64)"`` -> (dtype of the result, input dtypes)."""
    match = re.fullmatch(r"\s*(\w+)\s*\((.*)\)\s*", text)
    if not match:
        raise errors.TypingError(f"vectorize takes signatures such as "
                                 f"'float32(float32, float32)', not {text!r}")
    inputs = [_dtype(t, text) for t in match.group(2).split(",") if t.strip()]
    return _dtype(match.group(1), text), tuple(inputs)


# NumPy's simplified kind ordering (bool, integer, inexact) that decides
# whether Python numbers stay weak in a ufunc's loop search.
_KIND_ORDER = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 2}


def _python_number(value):
    # np.float64 is a float subclass, yet typed (NEP 50).
    return isinstance(value, (int, float, complex)) and \
        not isinstance(value, (bool, np.generic))


def _weak_python_numbers(inputs):
    """Whether NumPy's loop search takes the Python numbers among
    ``inputs`` weakly, as NumPy 2 does (should_use_min_scalar_weak_literals
    in its umath/ufunc_type_resolution.c): only beside typed data of at
    least their kind. Scalars alone, or a float beside integer arrays, are
    their default dtypes (float64, int64, complex128) and cast by the safe
    rule, so 1.0 + 2.0 takes a float64 loop and int8 + 1.0 one of float64,
    while float32 + 1.0 takes float32."""
    typed = [_array_ops._dtype_key(v) for v in inputs
             if not _python_number(v)]
    if not typed:
        return False
    scalar_kind = max((_KIND_ORDER["u" if isinstance(v, int) else "f"]
                       for v in inputs if _python_number(v)), default=0)
    return max(_KIND_ORDER.get(d.kind, 3) for d in typed) >= scalar_kind


def _casts_safely(value, dtype, weak):
    """Whether input ``value`` goes to a loop of ``dtype`` as NumPy's loop
    search allows: typed data by the 'safe' rule, weak Python numbers by
    kind (an int to any number type, a float to floating and complex)."""
    if _python_number(value) and weak:
        kinds = "iufc" if isinstance(value, int) else \
            "fc" if isinstance(value, float) else "c"
        return dtype.kind in kinds
    return np.can_cast(np.result_type(_array_ops._dtype_key(value)), dtype,
                       "safe")


# reduce()'s initial= when none is given (None is a value there).
_NO_INITIAL = object()


class Vectorized:
    """The ufunc ``spirjit.vectorize`` makes of a scalar function."""

    # A jit function calling it applies it element by element, as a device
    # function of its signatures (_describe.py).
    __spirjit_vectorize__ = True

    def __init__(self, fn, signatures, device):
        from . import _check_function
        _check_function(fn, "vectorize")
        if isinstance(signatures, str):
            signatures = [signatures]
        functools.update_wrapper(self, fn)
        self.py_func = fn
        self.signatures = [parse_signature(s) for s in signatures or ()]
        self.device_signatures = list(signatures or ())
        self._device = device
        # The scalar function as the graph's callee (described at the first
        # call: its globals are frozen then), and the loops typed so far.
        self._function = None
        self._typed = set()
        self.nin = fn.__code__.co_argcount
        for result, inputs in self.signatures:
            if len(inputs) != self.nin:
                raise errors.TypingError(
                    f"vectorize signature {result}{inputs} has "
                    f"{len(inputs)} inputs; {fn.__qualname__} takes "
                    f"{self.nin}")
        # Signatures compile now, as numba's do: errors in the scalar
        # function surface at decoration (on the device a call would use).
        if self.signatures and _spirjit.devices():
            for result, inputs in self.signatures:
                self(*(np.ones(1, d) for d in inputs))

    def _loop(self, inputs):
        """(input dtypes, result dtype) for ``inputs``."""
        if self.signatures:
            weak = _weak_python_numbers(inputs)
            for result, dtypes in self.signatures:
                if all(_casts_safely(v, d, weak)
                       for v, d in zip(inputs, dtypes)):
                    return dtypes, result
            given = ", ".join(str(np.result_type(_array_ops._dtype_key(v)))
                              for v in inputs)
            known = ", ".join(f"{r}({', '.join(map(str, d))})"
                              for r, d in self.signatures)
            raise errors.TypingError(
                f"{self.__qualname__}: no signature takes inputs of types "
                f"({given}); the signatures are {known}")
        typed = [v.dtype for v in inputs
                 if isinstance(v, (DeviceArray, np.ndarray, np.generic))]
        dtypes = tuple(np.result_type(*typed, v) if not isinstance(
            v, (DeviceArray, np.ndarray, np.generic)) else v.dtype
            for v in inputs)
        return dtypes, self._result_dtype(dtypes)

    def _result_dtype(self, dtypes):
        # What the function returns for ones of those types, run on the host
        # (the device computes with the same NumPy typing rules).
        try:
            value = self.py_func(*(d.type(1) for d in dtypes))
            return np.asarray(value).dtype
        except Exception:
            return np.result_type(*dtypes)

    def _callee(self, loop):
        """The scalar function for the graph, typed for ``loop``."""
        if self._function is None:
            self._function = _spirjit._element_function(
                describe_function(self.py_func), callee_key(self.py_func))
        if loop not in self._typed:
            self._function.check(loop)
            self._typed.add(loop)
        return self._function

    def __call__(self, *inputs, out=None):
        if len(inputs) != self.nin:
            raise errors.TypingError(
                f"{self.__qualname__} takes {self.nin} inputs, "
                f"got {len(inputs)}")
        # As a NumPy ufunc: any array-like input (a list) is np.asarray of
        # it, and out= may be NumPy's tuple of one entry per output.
        inputs = tuple(v if isinstance(v, (DeviceArray, np.ndarray) +
                                       _array_ops._SCALARS)
                       else np.asarray(v) for v in inputs)
        if isinstance(out, tuple):
            if len(out) != 1:
                raise errors.InvalidArgumentError(
                    "The 'out' tuple must have exactly one entry per ufunc "
                    "output")
            out = out[0]
        device = _array_ops.common_device(list(inputs) + [out], "inputs")
        if device is None:
            from . import _resolve_device
            device = _resolve_device(self._device)
        on_device = any(isinstance(v, DeviceArray) for v in inputs)
        dtypes, result_dtype = self._loop(inputs)
        shape = np.broadcast_shapes(*(np.shape(v) if not isinstance(
            v, DeviceArray) else v.shape for v in inputs))
        target = out if isinstance(out, DeviceArray) else None
        if target is not None and target.shape != shape:
            raise errors.InvalidArgumentError(
                f"non-broadcastable output operand with shape "
                f"{target.shape} doesn't match the broadcast shape {shape}")
        loop = tuple(dtypes) + (np.dtype(result_dtype),)
        callee = self._callee(loop)
        operands = [_array_ops._to_operand(v, d, device)
                    for v, d in zip(inputs, dtypes)]
        target = _spirjit._apply("call", operands, loop, loop[-1], shape,
                                 device, target, callee)
        if isinstance(out, np.ndarray):
            out[...] = target.asnumpy()
            return out
        if out is not None or on_device:
            return target
        host = target.asnumpy()
        return host[()] if host.ndim == 0 else host

    def __repr__(self):
        return f"<spirjit.vectorize {self.__qualname__}>"

    # NumPy's ufunc attributes and methods, as numba's @vectorize ufuncs
    # have them.
    nout = 1
    identity = None

    @property
    def nargs(self):
        return self.nin + 1

    @property
    def types(self):
        return ["".join(d.char for d in inputs) + "->" + result.char
                for result, inputs in self.signatures]

    def outer(self, a, b, **kwargs):
        """f(a[i, j, ...], b[k, ...]) for every pair: NumPy's ufunc.outer."""
        self._binary("outer")
        a, b = _as_operand(a), _as_operand(b)
        a_shape, b_shape = np.shape(a), np.shape(b)
        return self(_reshaped(a, a_shape + (1,) * len(b_shape)), b, **kwargs)

    def reduce(self, array, axis=0, dtype=None, out=None, keepdims=False,
               initial=_NO_INITIAL):
        """NumPy's ufunc.reduce: f applied left to right along ``axis``
        (f(f(x0, x1), x2) ...), in a jit loop a row per work-item."""
        return self._fold("reduce", array, axis, dtype, out, keepdims,
                          initial)

    def accumulate(self, array, axis=0, dtype=None, out=None):
        """NumPy's ufunc.accumulate: every partial fold along ``axis``."""
        return self._fold("accumulate", array, axis, dtype, out, False,
                          _NO_INITIAL)

    def _binary(self, method):
        if self.nin != 2:
            raise errors.InvalidArgumentError(
                f"{method} only supported for binary functions")

    def _fold(self, method, array, axis, dtype, out, keepdims, initial):
        self._binary(method)
        x = _as_operand(array)
        on_device = isinstance(x, DeviceArray)
        xp = _array_namespace() if on_device else np
        ndim = len(np.shape(x))
        if axis is None and method == "reduce" and ndim <= 1:
            axis = 0
        elif axis is None or isinstance(axis, tuple):
            # (NumPy's rule for a ufunc not known to be associative.)
            if axis is None or len(axis) != 1:
                raise errors.InvalidArgumentError(
                    f"reduction operation '{self.__name__}' is not "
                    f"reorderable, so at most one axis may be specified")
            axis = axis[0]
        if ndim == 0:
            raise errors.InvalidArgumentError(
                f"{method} of a 0-d array: NumPy's ufuncs need an axis")
        if not -ndim <= axis < ndim:
            raise errors.ArrayAxisError(axis, ndim)
        axis %= ndim
        n = np.shape(x)[axis]
        rest = tuple(e for d, e in enumerate(np.shape(x)) if d != axis)
        if dtype is None:
            operand = x if not isinstance(x, (int, float, complex)) else \
                np.asarray(x)
            _, dtype = self._loop((operand, operand))
        dtype = np.dtype(dtype)
        if method == "reduce" and n == 0 and initial is _NO_INITIAL:
            raise errors.InvalidArgumentError(
                f"zero-size array to reduction operation "
                f"{self.__name__} which has no identity")
        count = int(np.prod(rest, dtype=np.int64))
        rows = xp.reshape(xp.astype(xp.moveaxis(x, axis, -1), dtype)
                          if on_device else
                          np.moveaxis(x, axis, -1).astype(dtype),
                          (count, n))
        if method == "reduce":
            start = 0 if initial is _NO_INITIAL else 1
            folded = (xp.empty((count,), dtype=dtype, device=x.device)
                      if on_device else np.empty(count, dtype))
            first = dtype.type(0 if initial is _NO_INITIAL else initial)
            _fold_rows(rows, folded, self, start, first)
            result = xp.reshape(folded, rest)
            if keepdims:
                result = xp.expand_dims(result, axis=axis)
        else:
            scanned = (xp.empty((count, n), dtype=dtype, device=x.device)
                       if on_device else np.empty((count, n), dtype))
            _scan_rows(rows, scanned, self)
            result = xp.moveaxis(xp.reshape(scanned, rest + (n,)), -1, axis)
        if out is not None:
            out = out[0] if isinstance(out, tuple) else out
            out[...] = result
            return out
        if not on_device and np.ndim(result) == 0:
            return result[()]
        return result


def _as_operand(v):
    """A DeviceArray as it is, anything else as NumPy's array of it."""
    return v if isinstance(v, DeviceArray) else np.asarray(v)


def _array_namespace():
    import spirjit
    return spirjit


def _reshaped(v, shape):
    return _array_namespace().reshape(v, shape) if isinstance(
        v, DeviceArray) else np.reshape(v, shape)


def _fold_rows(rows, out, f, start, first):
    _fold_kernels()[0](rows, out, f, start, first)


def _scan_rows(rows, out, f):
    _fold_kernels()[1](rows, out, f)


@functools.lru_cache(maxsize=None)
def _fold_kernels():
    """jit loops of a ufunc's reduce and accumulate: a work-item folds a
    row left to right, as NumPy does (the function may not be
    associative). Made at first use (spirjit imports this module)."""
    from . import jit, prange

    @jit
    def fold(rows, out, f, start, first):
        for r in prange(rows.shape[0]):
            acc = rows[r, 0] if start == 0 else first
            for j in range(1 - start, rows.shape[1]):
                acc = f(acc, rows[r, j])
            out[r] = acc

    @jit
    def scan(rows, out, f):
        for r in prange(rows.shape[0]):
            if rows.shape[1] > 0:
                acc = rows[r, 0]
                out[r, 0] = acc
                for j in range(1, rows.shape[1]):
                    acc = f(acc, rows[r, j])
                    out[r, j] = acc
    return fold, scan


def vectorize(signatures=None, *, device=None):
    """Decorator: a scalar function becomes a ufunc over NumPy arrays,
    DeviceArrays and scalars. ``signatures`` ("float32(float32, float32)" or
    a list of them) fixes its loops; without, it compiles per input dtypes
    at call time."""
    if callable(signatures):
        return Vectorized(signatures, None, device)
    return lambda fn: Vectorized(fn, signatures, device)
