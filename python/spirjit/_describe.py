"""Describes a Python function as plain data for the C++ compiler: bytecode,
constants, names, the line table, and what each global, closure variable and
annotation referred to at this moment (compile time freezes them)."""

import builtins
import dis
import hashlib
import marshal
import inspect
import sys
import types

import numpy as np

from . import errors
from ._jit_library_names import NAMES as LIBRARY_NAMES

_BUILTINS = {"range", "abs", "min", "max", "int", "float", "bool", "round",
             "len", "complex", "print", "isinstance", "pow", "getattr",
             "enumerate", "zip", "sum", "sorted"}


def _const(value):
    if value is None:
        return ("none", None)
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int):
        if -(2**63) <= value < 2**63:
            return ("int", value)
        return ("other", "int beyond 64 bits")
    if isinstance(value, float):
        return ("float", value)
    if isinstance(value, complex):
        return ("complex", (value.real, value.imag))
    if isinstance(value, str):
        return ("str", value)
    if isinstance(value, bytes):
        return ("other", "bytes")
    if isinstance(value, tuple):
        return ("tuple", [_const(v) for v in value])
    if isinstance(value, types.CodeType):
        return ("code", value.co_name)
    return ("other", type(value).__name__)


# Each namedtuple class seen, by key, and each key, by class: two classes
# are two types even with the same name and fields (numba's rule), so a
# second class named as a first one gets a key of its own.
_NAMEDTUPLE_CLASSES = {}
_NAMEDTUPLE_KEYS = {}


def is_namedtuple_class(value):
    """collections.namedtuple's classes and typing.NamedTuple's."""
    return (isinstance(value, type) and issubclass(value, tuple) and
            isinstance(getattr(value, "_fields", None), tuple) and
            hasattr(value, "_make"))


def namedtuple_key(cls):
    """The key of a namedtuple class: the name of its instances' type in
    the compiler (and its dispatch cache key)."""
    key = _NAMEDTUPLE_KEYS.get(cls)
    if key is None:
        base = f"{cls.__module__}.{cls.__qualname__}"
        key, n = base, 1
        while key in _NAMEDTUPLE_CLASSES:
            n += 1
            key = f"{base}#{n}"
        _NAMEDTUPLE_CLASSES[key] = cls
        _NAMEDTUPLE_KEYS[cls] = key
    return key


def namedtuple_class(key):
    """The class whose instances a jit function returns as type `key`."""
    return _NAMEDTUPLE_CLASSES[key]


def callee_key(fn):
    """A device function's key in the device_functions table: named by
    what it is, not where it lives, so the same code with the same closure
    values is the same device function in every process, and same-named
    helpers of different code never collide."""
    code = fn.__code__
    closure = tuple(repr(c.cell_contents) for c in (fn.__closure__ or ()))
    # Defaults live on the function, not in its code.
    closure += (repr(fn.__defaults__),)
    digest = hashlib.sha1(marshal.dumps(code) +
                          repr(closure).encode()).hexdigest()[:16]
    return f"{fn.__module__}.{fn.__qualname__}#{digest}"


# The largest global array frozen into compiled code (a constant in its
# module, on GPUs too); a larger one is an error that says to pass it.
FROZEN_ARRAY_BYTES = 1 << 16


def _numbers_only(value):
    """Whether the tuple `value` holds numbers and such tuples alone."""
    for v in value:
        if isinstance(v, tuple):
            if is_namedtuple_class(type(v)) or not _numbers_only(v):
                return False
        elif isinstance(v, (bool, int, float, complex, np.bool_, np.number)):
            if isinstance(v, int) and not (-(2**63) <= v < 2**63):
                return False
        else:
            return False
    return True


def _plain(value):
    """The tuple of numbers `value` with its NumPy scalars as Python's."""
    return tuple(_plain(v) if isinstance(v, tuple) else
                 v.item() if isinstance(v, np.generic) else v for v in value)


def describe_value(value, table=None):
    """What a global, closure value or annotation is, as the compiler sees it.

    Device functions are described once each into ``table`` (key ->
    description), so mutual references and recursion terminate; the
    compiler rejects recursion itself."""
    device_func = getattr(value, "__spirjit_device_func__", None)
    # A jit function another one calls: described like a device function,
    # marked so that the caller's host code inlines it.
    is_jit = getattr(value, "__spirjit_jit__", False) is True
    is_elementwise = getattr(value, "__spirjit_vectorize__", False) is True
    if is_jit or is_elementwise:
        device_func = value
    if device_func is not None and table is not None:
        fn = device_func.py_func
        key = callee_key(fn)
        if key not in table:
            table[key] = None  # reserved: a reference back finds the key
            description = describe_function(fn, table)
            description["signatures"] = list(
                getattr(device_func, "device_signatures", None) or
                getattr(device_func, "signatures", None) or [])
            # Its defaults, for calls that leave them out (frozen, as
            # globals are).
            description["defaults"] = [_const(v)
                                       for v in _all_defaults(fn)]
            if is_jit:
                description["jit"] = True
            if is_elementwise:
                description["elementwise"] = True
            table[key] = description
        return {"kind": "device_function", "name": key}
    if isinstance(value, (bool, int, float, complex)) and not isinstance(
            value, np.generic):
        if isinstance(value, int) and not isinstance(value, bool) and not (
                -(2**63) <= value < 2**63):
            return {"kind": "unknown", "name": "int beyond 64 bits"}
        return {"kind": "number", "name": type(value).__name__,
                "value": _const(value)}
    if isinstance(value, tuple) and not is_namedtuple_class(type(value)) \
            and _numbers_only(value):
        # A tuple of numbers (nested too) is frozen as a tuple literal is,
        # numba's rule; NumPy scalars in it become Python numbers.
        return {"kind": "number", "name": "tuple",
                "value": _const(_plain(value))}
    if isinstance(value, np.ndarray) and value.dtype.kind in "biufc" and \
            1 <= value.ndim <= 3 and value.nbytes <= FROZEN_ARRAY_BYTES:
        # numba's rule: a global array is frozen, its values a constant of
        # the compiled code (read-only there).
        return {"kind": "array", "name": "ndarray",
                "dtype": value.dtype.name, "shape": list(value.shape),
                "data": np.ascontiguousarray(value).tobytes()}
    if isinstance(value, str):
        # Only getattr's name may be one; the text keys the disk cache.
        return {"kind": "unknown", "name": "str", "value": _const(value)}
    if isinstance(value, (np.bool_, np.number)):
        return {"kind": "number", "name": type(value).__name__,
                "value": _const(value.item()), "dtype": value.dtype.name}
    if isinstance(value, types.ModuleType):
        return {"kind": "module", "name": value.__name__}
    if is_namedtuple_class(value):
        defaults = tuple(getattr(value, "_field_defaults", {}).values())
        return {"kind": "namedtuple", "name": namedtuple_key(value),
                "value": _const((value._fields, defaults))}
    if isinstance(value, type) and issubclass(value, np.generic):
        return {"kind": "object", "name": "numpy." + np.dtype(value).name}
    if isinstance(value, np.ufunc):
        return {"kind": "object", "name": "numpy." + value.__name__}
    if (getattr(value, "__name__", None) in ("prange", "pndindex") and str(
            getattr(value, "__module__", "")).startswith(("numba",))):
        # numba's and numba-dpex's prange and pndindex mean spirjit's.
        return {"kind": "object", "name": "spirjit." + value.__name__}
    name = getattr(value, "__spirjit_name__", None)
    if name is not None:
        return {"kind": "object", "name": name}
    module = getattr(value, "__module__", None)
    qualname = getattr(value, "__qualname__", None)
    if module == "builtins" and qualname in _BUILTINS:
        return {"kind": "builtin", "name": qualname}
    if module in ("operator", "_operator") and callable(value):
        return {"kind": "object", "name": f"operator.{value.__name__}"}
    if module in ("math", "cmath") and callable(value):
        return {"kind": "object", "name": f"{module}.{qualname}"}
    if module == "spirjit" and callable(value) and qualname:
        # spirjit's own functions (empty, zeros, ...) under any name.
        return {"kind": "object", "name": f"spirjit.{qualname}"}
    if module == "spirjit.kernel_api" and qualname:
        return {"kind": "object", "name": f"spirjit.kernel_api.{qualname}"}
    if module == "numpy" and callable(value) and qualname:
        return {"kind": "object", "name": f"numpy.{qualname}"}
    return {"kind": "unknown", "name": type(value).__name__}


# Modules whose attributes the compiler knows by name.
_KNOWN_MODULES = ("math", "cmath", "numpy", "spirjit", "spirjit.kernel_api",
                  "numba", "numba_dpex", "operator")


def _module_members(fn_globals, names, table):
    """What `module.name` was, for each global module the compiler does not
    know by name and each attribute name the code uses that the module has
    and the compiler understands: a library re-exporting NumPy's or
    spirjit's functions (``mylib.add = np.add``) is seen through."""
    members = {}
    modules = [fn_globals[n] for n in names
               if isinstance(fn_globals.get(n), types.ModuleType) and
               fn_globals[n].__name__ not in _KNOWN_MODULES]
    if "random" in names and any(
            getattr(fn_globals.get(n), "__name__", None) == "spirjit"
            for n in names):
        import spirjit.random  # spirjit.random.philox_uniform(...)
        modules.append(spirjit.random)
    for module in modules:
        for name in names:
            if name not in getattr(module, "__dict__", {}):
                continue
            d = describe_value(module.__dict__[name], table)
            if d["kind"] != "unknown":
                members[f"{module.__name__}.{name}"] = d
    return members


def _describe_annotation(value):
    # A string that could not be evaluated (PEP 563 inside a function whose
    # module names kapi only locally): "kapi.Item" still means the item.
    if isinstance(value, str):
        last = value.rsplit(".", 1)[-1]
        if last in ("Item", "NdItem"):
            return {"kind": "object", "name": "spirjit.kernel_api." + last}
    return describe_value(value)


_BINARY_OP = dis.opmap.get("BINARY_OP")
# BINARY_OP's arguments for @ and @= (NB_MATRIX_MULTIPLY, its in-place one).
_MATMUL_OPS = (4, 17) if _BINARY_OP is not None else None


def _uses_matmul(code):
    """Whether the code has the @ operator (the library writes it)."""
    raw = code.co_code
    return any(raw[i] == _BINARY_OP and raw[i + 1] in _MATMUL_OPS
               for i in range(0, len(raw), 2))


def _library_entries(names, table, code=None, operations=()):
    """NumPy's functions and methods among ``names`` that the jit library
    writes (_jit_library.py), and its ``operations`` of Python's syntax,
    described into ``table``."""
    if code is not None and _MATMUL_OPS is not None and _uses_matmul(code):
        names = list(names) + ["matmul"]
    if LIBRARY_NAMES.isdisjoint(names) and not operations:
        return {}
    from . import _jit_library
    return _jit_library.entries(names, describe_value, table, operations)


def _all_defaults(fn):
    """The defaults of fn's last parameters, keyword-only ones (which
    follow the positional ones) included."""
    code = fn.__code__
    positional = tuple(fn.__defaults__ or ())
    names = code.co_varnames[code.co_argcount:
                             code.co_argcount + code.co_kwonlyargcount]
    keyword = fn.__kwdefaults__ or {}
    if all(n in keyword for n in names):
        return positional + tuple(keyword[n] for n in names)
    # A keyword-only parameter without a default ends the defaulted run.
    given = [n for n in names if n in keyword]
    if positional or given:
        raise errors.UnsupportedFeatureError(
            f"{code.co_filename}:{code.co_firstlineno}: '{code.co_name}' "
            "has a keyword-only parameter without a default after "
            "parameters with defaults; give it a default or make the others "
            "plain parameters")
    return ()


def describe_function(fn, table=None, operations=()):
    """The description of ``fn``; device functions it calls go into its
    "device_functions" table (shared with the functions that call them).
    ``operations``: the jit library's operations of Python's syntax to
    describe too (_jit_library.OPERATIONS: "mask_index" for a[mask]).
    Describing one costs a first call milliseconds, and only types tell
    that code needs it, so the compiler asks for them when it does
    (LibraryOperationsNeeded in frontend/FunctionDescription.h) and the
    function is described again."""
    top = table is None
    if top:
        table = {}
    try:  # `from __future__ import annotations` leaves strings to evaluate
        raw = inspect.get_annotations(fn, eval_str=True)
    except Exception:
        raw = getattr(fn, "__annotations__", {})
    annotations = {name: _describe_annotation(value)
                   for name, value in raw.items() if name != "return"}
    closure = [describe_value(cell.cell_contents, table) for cell in
               (fn.__closure__ or ())]
    description = _describe_code(fn.__code__, fn.__globals__, closure,
                                 annotations, table, operations)
    description["device_functions"] = table if top else {}
    return description


def _describe_code(code, fn_globals, closure, annotations, table,
                   operations=()):
    """The description of a code object whose globals are ``fn_globals``;
    the code objects among its constants (lambdas and nested defs, which
    the jit inlines where they are called) are described with the same
    globals, their closure values left to the code that makes them (the
    library's ``operations`` go to the outermost description, which the
    compiler reads them from)."""
    resolved = {}
    for name in code.co_names:
        if name in fn_globals:
            resolved[name] = describe_value(fn_globals[name], table)
        elif hasattr(builtins, name):
            resolved[name] = describe_value(getattr(builtins, name))
    members = _module_members(fn_globals, code.co_names, table)
    names = code.co_names
    if any(d == {"kind": "module", "name": "numpy.random"}
           for d in resolved.values()):
        names += ("random",)  # np.random under another name
    library = _library_entries(names, table, code, operations)
    nested = {f"code{i}": _describe_code(c, fn_globals, [], {}, table)
              for i, c in enumerate(code.co_consts)
              if isinstance(c, types.CodeType)}
    return {
        "python_major": sys.version_info.major,
        "python_minor": sys.version_info.minor,
        "name": code.co_name,
        "qualname": getattr(code, "co_qualname", code.co_name),
        "filename": code.co_filename,
        "firstlineno": code.co_firstlineno,
        # Keyword-only parameters follow the positional ones in
        # co_varnames: calls give them their places (JitFunction._bind,
        # frontend/CallArguments).
        "argcount": code.co_argcount + code.co_kwonlyargcount,
        "code": code.co_code,
        "consts": [_const(c) for c in code.co_consts],
        "names": list(code.co_names),
        "varnames": list(code.co_varnames),
        "cellvars": list(code.co_cellvars),
        "freevars": list(code.co_freevars),
        "lines": list(code.co_lines()),
        "has_exception_table": bool(getattr(code, "co_exceptiontable", b"")),
        "flags": code.co_flags,
        "globals": resolved,
        "closure": closure,
        "module_members": members,
        "annotations": annotations,
        "library": library,
        "nested_code": nested,
        "device_functions": {},
        "signatures": [],
    }
