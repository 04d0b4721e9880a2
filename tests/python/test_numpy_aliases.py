"""NumPy's names for C's types (`np.int_`, `np.intp`, `np.double`, ...) in
jit functions and kernels, against NumPy, on every device.

Each alias must be spelt `np.<alias>` in the compiled code (a global bound
to the type is described by its dtype and never reaches the name table), so
the functions are made from one template per alias."""

import numpy as np
import pytest

import spirjit
from spirjit import kernel_api as kapi

# NumPy 2's aliases of C's types (np.float_ and np.complex_ are gone).
REAL_ALIASES = ["int_", "intp", "uintp", "double", "single", "longlong",
                "ulonglong", "bool_", "byte", "ubyte", "short", "ushort",
                "intc", "uintc", "uint", "long", "ulong"]
COMPLEX_ALIASES = ["cdouble", "csingle"]


def _make(template, alias):
    """The function `template` defines, with ALIAS replaced by `alias`."""
    namespace = {"np": np, "spirjit": spirjit, "kapi": kapi,
                 "prange": spirjit.prange}
    exec(compile(template.replace("ALIAS", alias), f"<alias {alias}>",
                 "exec"), namespace)
    return namespace["f"]


JIT_TEMPLATE = """
def f(a):
    n = a.shape[0]
    e = np.empty(n, dtype=np.ALIAS)
    for i in prange(n):
        e[i] = np.ALIAS(a[i])
    z = np.zeros(n, dtype=np.ALIAS)
    o = np.ones(n, np.ALIAS)
    full = np.full(n, 3, dtype=np.ALIAS)
    return e, z, o, full, a.astype(np.ALIAS), np.ALIAS(a[n - 1]) + 1
"""


@pytest.mark.parametrize("alias", REAL_ALIASES)
def test_alias_in_jit_constructors_astype_and_calls(device_filter,
                                                   require_dtypes, alias):
    require_dtypes(getattr(np, alias))
    py = _make(JIT_TEMPLATE, alias)
    jitted = spirjit.jit(py)
    a = np.array([0, 1, 2, 5, 7], dtype=np.int64)
    got = jitted(a)
    want = py(a)
    for g, w in zip(got[:5], want[:5]):
        assert g.dtype == w.dtype, alias
        np.testing.assert_array_equal(g, w)
    assert got[5] == want[5]


COMPLEX_JIT_TEMPLATE = """
def f(a):
    s = np.ALIAS(0)
    for i in range(a.shape[0]):
        s += np.ALIAS(a[i]) * 1j
    return s
"""


@pytest.mark.parametrize("alias", COMPLEX_ALIASES)
def test_complex_alias_as_a_scalar_constructor_in_jit(device_filter,
                                                      require_dtypes, alias):
    require_dtypes(getattr(np, alias))
    py = _make(COMPLEX_JIT_TEMPLATE, alias)
    a = np.array([1.5, 2.0, -3.0])
    assert spirjit.jit(py)(a) == py(a)


KERNEL_TEMPLATE = """
def f(item: kapi.Item, a, b):
    i = item.get_id(0)
    p = kapi.PrivateArray(1, np.ALIAS)
    p[0] = np.ALIAS(a[i])
    b[i] = p[0]
"""


@pytest.mark.parametrize("alias", REAL_ALIASES + COMPLEX_ALIASES)
def test_alias_in_kernels(device_filter, require_dtypes, alias):
    dtype = np.dtype(getattr(np, alias))
    require_dtypes(dtype)
    kernel = spirjit.kernel(_make(KERNEL_TEMPLATE, alias))
    a = np.array([0.0, 1.0, 2.5, 7.0])
    b = np.zeros(4, dtype=dtype)
    spirjit.call_kernel(kernel, kapi.Range(4), a, b)
    np.testing.assert_array_equal(b, a.astype(dtype))

