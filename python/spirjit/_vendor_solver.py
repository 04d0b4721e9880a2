"""spirjit.linalg's factorizations and solves on NVIDIA GPUs: cuSOLVER's
dense API, loaded at run time as ``_vendor`` loads cuBLAS and cuFFT.

Contract: ``cholesky``, ``det``, ``slogdet``, ``inv``, ``solve``, ``qr``,
``svd``, ``svdvals``, ``eigh`` and ``eigvalsh`` take DeviceArrays of one
CUDA device with the Array API standard's arguments (stacks of matrices
``(..., M, N)`` included; integers and bools are converted to float64, as
NumPy does) and return DeviceArrays on that device with NumPy's values
(up to rounding, and up to the signs or phases of singular and eigen
vectors and of QR's factors, which no two LAPACKs agree on). Nothing is
copied to the host: every matrix is factored by cuSOLVER in a copy made
on the device, queued on spirjit's stream of it (after the work that made
the operands, before what is queued later), one call per matrix of a
stack. The one value read back is cuSOLVER's ``devInfo`` of the whole
stack, after the calls, to raise NumPy's ``LinAlgError`` (as
``errors.LinAlgError``, which is NumPy's class too) with NumPy's message:
"Singular matrix" (inv, solve), "Matrix is not positive definite"
(cholesky), "SVD did not converge", "Eigenvalues did not converge"; a
singular matrix's det is 0 and its slogdet (0, -inf), without error.
Where no cuSOLVER loads (``libcusolver.so.12`` of CUDA 13, ``.11`` of
CUDA 11 and 12, ``libcusolver.so``), each raises ``NotSupportedError``
naming the function and the library. No build-time CUDA dependency.

cuSOLVER reads matrices column-major, and a C-contiguous row-major matrix
is its transpose in those terms; each function says which copy it hands
cuSOLVER (a transposed copy, or the plain one and the transposed
operation or triangle) and how it reads the result back, by views.
"""

import ctypes
import math
import threading
from collections import namedtuple

import numpy as np

from . import _array_ops as ops
from . import _spirjit, errors
from ._vendor import _check, _current, _load

_SONAMES = ("libcusolver.so.12", "libcusolver.so.11", "libcusolver.so")
_library = []
_state = threading.local()

_PREFIX = {np.dtype(np.float32): "S", np.dtype(np.float64): "D",
           np.dtype(np.complex64): "C", np.dtype(np.complex128): "Z"}
# cublasFillMode_t, cublasOperation_t, cusolverEigMode_t
_LOWER, _UPPER = 0, 1
_OP_N, _OP_T = 0, 1
_NO_VECTORS, _VECTORS = 0, 1

_P, _I = ctypes.c_void_p, ctypes.c_int
# The legacy dense API's parameters, for ctypes: pointers as void *,
# enums and sizes as int, gesvd's jobu and jobvt as signed char.
_ARGTYPES = {
    "potrf_bufferSize": (_P, _I, _I, _P, _I, _P),
    "potrf": (_P, _I, _I, _P, _I, _P, _I, _P),
    "getrf_bufferSize": (_P, _I, _I, _P, _I, _P),
    "getrf": (_P, _I, _I, _P, _I, _P, _P, _P),
    "getrs": (_P, _I, _I, _I, _P, _I, _P, _P, _I, _P),
    "geqrf_bufferSize": (_P, _I, _I, _P, _I, _P),
    "geqrf": (_P, _I, _I, _P, _I, _P, _P, _I, _P),
    "orgqr_bufferSize": (_P, _I, _I, _I, _P, _I, _P, _P),
    "orgqr": (_P, _I, _I, _I, _P, _I, _P, _P, _I, _P),
    "gesvd_bufferSize": (_P, _I, _I, _P),
    "gesvd": (_P, ctypes.c_byte, ctypes.c_byte, _I, _I, _P, _I, _P, _P, _I,
              _P, _I, _P, _I, _P, _P),
    "syevd_bufferSize": (_P, _I, _I, _I, _P, _I, _P, _P),
    "syevd": (_P, _I, _I, _I, _P, _I, _P, _P, _I, _P),
}
# The complex types' names of the routines the real types call or- and sy-
_COMPLEX_NAMES = {"orgqr": "ungqr", "syevd": "heevd"}

_linalg = getattr(np.linalg, "_linalg", None)


def _result_type(name, fields):
    """NumPy's namedtuple of a result where it has one (so every device
    gives the same type), else one of the same name and fields."""
    return getattr(_linalg, name, None) or namedtuple(name, fields)


SlogdetResult = _result_type("SlogdetResult", "sign logabsdet")
QRResult = _result_type("QRResult", "Q R")
SVDResult = _result_type("SVDResult", "U S Vh")
EighResult = _result_type("EighResult", "eigenvalues eigenvectors")


def _cusolver():
    return _load(_SONAMES, _library)


def applies(x):
    """Whether ``x`` lives on a CUDA device (where these functions run)."""
    return x._device.properties()["backend"] == "cuda"


class _Solver:
    """cuSOLVER for one call on one device: the library, this thread's
    handle made in spirjit's context and bound to spirjit's stream, and
    the routines of one dtype with their ctypes signatures."""

    def __init__(self, what, like, dtype):
        self.lib = _cusolver()
        if self.lib is None:
            raise errors.NotSupportedError(
                f"spirjit.linalg.{what} on {like._device.filter_string} "
                "needs cuSOLVER, and libcusolver was not found (tried "
                f"{', '.join(_SONAMES)} on the loader's path); install "
                "the CUDA toolkit's cuSOLVER (pip: nvidia-cusolver) or "
                "add its folder to LD_LIBRARY_PATH")
        from . import Device
        native = _current(Device._wrap(like._device))
        handles = getattr(_state, "handles", None)
        if handles is None:
            handles = _state.handles = {}
        key = native["filter_string"]
        if key not in handles:
            handle = ctypes.c_void_p()
            self._check(self.lib.cusolverDnCreate(ctypes.byref(handle)),
                        "cusolverDnCreate")
            handles[key] = handle
        self.handle = handles[key]
        self._check(self.lib.cusolverDnSetStream(
            self.handle, ctypes.c_void_p(native["queue"])),
            "cusolverDnSetStream")
        self.dtype = np.dtype(dtype)
        self.device, self.usm_type = like._device, like.usm_type

    @staticmethod
    def _check(status, what):
        _check(status, what, "cuSOLVER")

    def __call__(self, routine, *args):
        """cusolverDn<T><routine>(handle, *args), its status checked."""
        name = routine
        if self.dtype.kind == "c":
            base = routine.split("_")[0]
            name = routine.replace(base, _COMPLEX_NAMES.get(base, base))
        symbol = f"cusolverDn{_PREFIX[self.dtype]}{name}"
        function = getattr(self.lib, symbol)
        function.argtypes = _ARGTYPES[routine]
        self._check(function(self.handle, *args), symbol)

    def workspace_size(self, routine, *args):
        size = ctypes.c_int()
        self(routine, *args, ctypes.byref(size))
        return size.value

    def empty(self, shape, dtype=None):
        return ops._empty(shape, self.dtype if dtype is None else dtype,
                          self.device, self.usm_type)


def _address(native, index=0, step=0):
    """The device address of element block ``index`` (``step`` bytes each)
    of a leased array, for a void * parameter."""
    return ctypes.c_void_p(native["data"] + index * step)


def _raise_on(info, message):
    """Reads cuSOLVER's devInfo of a stack (the one read back) and raises
    NumPy's LinAlgError where a matrix failed."""
    codes = info.asnumpy()
    if (codes > 0).any():
        raise errors.LinAlgError(message)
    if (codes < 0).any():
        raise errors.InternalCompilerError(
            f"cuSOLVER rejected parameter {-int(codes.min())} of spirjit's "
            "call (a bug in spirjit, please report it)")


# ------------------------------------------------------- the array layer

def _api():
    from . import _array_api
    return _array_api


def _floating(x):
    """x as NumPy's linalg computes it: integers and bools as float64."""
    if x.dtype.kind in "biu":
        return ops.copy(x, np.float64)
    if x.dtype not in _PREFIX:
        raise errors.TypingError(
            f"array type {x.dtype} is unsupported in linalg")
    return x


def _real(dtype):
    return np.dtype(np.float32 if np.dtype(dtype) in (
        np.float32, np.complex64) else np.float64)


def _matrices(x, what, square=True):
    """x (float or complex) checked as NumPy checks a stack of matrices."""
    if x.ndim < 2:
        raise errors.LinAlgError(
            f"{x.ndim}-dimensional array given. Array must be at least "
            "two-dimensional")
    if square and x.shape[-1] != x.shape[-2]:
        raise errors.LinAlgError("Last 2 dimensions of the array must be "
                                 "square")
    return _floating(x)


def _conj(x):
    return ops.apply_ufunc(np.conjugate, (x,)) if x.dtype.kind == "c" else x


def _stack(x, transposed=False, conjugated=False):
    """A new C-contiguous (count, rows, cols) copy of x's matrices for
    cuSOLVER to overwrite: x's own (read column-major: x transposed), or
    x's matrices transposed (read column-major: x itself)."""
    api = _api()
    source = api.matrix_transpose(x) if transposed else x
    if conjugated:
        source = _conj(source)
    count = math.prod(x.shape[:-2])
    return ops.reshape(ops.copy(source, x.dtype), count,
                       *source.shape[-2:])


def _zeros(shape, dtype, like):
    """Zeros on ``like``'s device, filled there."""
    from . import _array_primitives as prims
    zero = _spirjit.to_device(np.zeros((), dtype), like._device,
                              like.usm_type)
    return ops.copy(prims._broadcast(zero, shape))


# ---------------------------------------------------------------- cholesky

def cholesky(x, upper=False):
    x = _matrices(x, "cholesky")
    n = x.shape[-1]
    # x's memory read column-major is x^T, which for Hermitian x is
    # conj(x); its upper triangle is x's lower one (the triangle NumPy
    # reads), and its factor U (conj(x) = U^H U) read row-major is U^T,
    # the lower factor L of x = L L^H.
    a = _stack(x)
    count = a.shape[0]
    solver = _Solver("cholesky", x, x.dtype)
    info = solver.empty((count,), np.int32)
    if count and n:
        na, ni = a.__spirjit_native__(), info.__spirjit_native__()
        lwork = solver.workspace_size("potrf_bufferSize", _UPPER, n,
                                      _address(na), n)
        work = solver.empty((max(lwork, 1),))
        nw = work.__spirjit_native__()
        step = n * n * x.dtype.itemsize
        for i in range(count):
            solver("potrf", _UPPER, n, _address(na, i, step), n,
                   _address(nw), lwork, _address(ni, i, 4))
        del na, ni, nw
        _raise_on(info, "Matrix is not positive definite")
    # The other triangle still holds x's values.
    lower = _api().tril(ops.reshape(a, x.shape))
    if not upper:
        return lower
    return ops.copy(_conj(_api().matrix_transpose(lower)))


# ------------------------------------------------ LU: det, slogdet, inv, solve

def _lu(solver, a, info):
    """a's matrices (count, n, n) factored in place, P a = L U, as
    cuSOLVER reads them (each one's transpose); their pivots (count, n),
    1-based, int32; devInfo into ``info`` (count,)."""
    count, n = a.shape[0], a.shape[-1]
    ipiv = solver.empty((count, max(n, 1)), np.int32)
    if count and n:
        na, pivots, ni = (v.__spirjit_native__() for v in (a, ipiv, info))
        lwork = solver.workspace_size("getrf_bufferSize", n, n,
                                      _address(na), n)
        work = solver.empty((max(lwork, 1),))
        nw = work.__spirjit_native__()
        step = n * n * a.dtype.itemsize
        for i in range(count):
            solver("getrf", n, n, _address(na, i, step), n, _address(nw),
                   _address(pivots, i, 4 * max(n, 1)), _address(ni, i, 4))
        del na, pivots, ni, nw
    return ipiv


def _lu_parts(x, what):
    """The diagonal of U (..., n) and the sign of the permutation (...,)
    of each matrix of x, by getrf (det(x) = det(x^T), so the transposed
    reading does not matter)."""
    from . import _array_primitives as prims
    from ._array_extensions import diagonal
    n = x.shape[-1]
    a = _stack(x)
    solver = _Solver(what, x, x.dtype)
    info = solver.empty((a.shape[0],), np.int32)
    ipiv = _lu(solver, a, info)
    diag = diagonal(ops.reshape(a, x.shape))
    if n == 0:  # the empty product: det 1
        return diag, ops.apply_ufunc(np.add, (_zeros(x.shape[:-2], x.dtype,
                                                     x), 1))
    # Each pivot that is not its own row swaps two rows: the permutation's
    # sign is (-1) ** (number of them).
    rows = ops.apply_ufunc(np.add, (prims._kernels().iota(
        n, np.int32, x._device), 1))
    swaps = ops.reduce("sum", ops.apply_ufunc(np.not_equal, (
        ops.reshape(ipiv, x.shape[:-2] + (n,)), rows)), axis=-1)
    sign = ops.apply_ufunc(np.subtract, (1, ops.apply_ufunc(np.multiply, (
        2, ops.apply_ufunc(np.remainder, (swaps, 2))))))
    return diag, ops.astype(sign, x.dtype)


def det(x):
    x = _matrices(x, "det")
    diag, sign = _lu_parts(x, "det")
    return ops.apply_ufunc(np.multiply, (
        ops.reduce("prod", diag, axis=-1), sign))


def slogdet(x):
    x = _matrices(x, "slogdet")
    diag, sign = _lu_parts(x, "slogdet")
    size = ops.apply_ufunc(np.absolute, (diag,))
    phase = ops.where(ops.apply_ufunc(np.equal, (size, 0)), x.dtype.type(0),
                      ops.astype(ops.apply_ufunc(np.divide, (diag, size)),
                                 x.dtype, copy=False))
    sign = ops.apply_ufunc(np.multiply, (ops.reduce("prod", phase, axis=-1),
                                         sign))
    logabsdet = ops.reduce("sum", ops.apply_ufunc(np.log, (size,)), axis=-1)
    return SlogdetResult(ops.astype(sign, x.dtype, copy=False),
                         ops.astype(logabsdet, _real(x.dtype), copy=False))


def _solve_factored(solver, a, ipiv, b, info, trans):
    """getrs on each matrix of a (factored by _lu) and the columns of b
    (count, nrhs, n: each column-major n x nrhs), in place in b."""
    count, n = a.shape[0], a.shape[-1]
    nrhs = b.shape[1]
    if not (count and n and nrhs):
        return
    na, pivots, nb, ni = (v.__spirjit_native__() for v in (a, ipiv, b, info))
    step = n * n * a.dtype.itemsize
    for i in range(count):
        solver("getrs", trans, n, nrhs, _address(na, i, step), n,
               _address(pivots, i, 4 * n), _address(nb, i, n * nrhs *
                                                  b.dtype.itemsize), n,
               _address(ni, i, 4))
    del na, pivots, nb, ni


def inv(x):
    x = _matrices(x, "inv")
    n = x.shape[-1]
    # x's memory read column-major is x^T; solving x^T X = I gives
    # X = (x^-1)^T, which read row-major is x^-1.
    a = _stack(x)
    count = a.shape[0]
    solver = _Solver("inv", x, x.dtype)
    info = solver.empty((2, count), np.int32)
    ipiv = _lu(solver, a, info[0])
    from . import _array_primitives as prims
    identity = _api().eye(n, dtype=x.dtype, device=x.device)
    b = ops.copy(prims._broadcast(identity, (count, n, n)))
    _solve_factored(solver, a, ipiv, b, info[1], _OP_N)
    if count and n:
        _raise_on(info, "Singular matrix")
    return ops.reshape(b, x.shape)


def solve(x1, x2):
    from . import _array_primitives as prims
    api = _api()
    x1 = _matrices(x1, "solve")
    x2 = _floating(x2)
    dtype = np.result_type(x1.dtype, x2.dtype)
    n = x1.shape[-1]
    vector = x2.ndim == 1   # the standard's (M,) right-hand side
    rows = x2.shape[0] if vector else (x2.shape[-2] if x2.ndim > 1 else 0)
    if rows != n:
        raise errors.InvalidArgumentError(
            "solve: Input operand 1 has a mismatch in its core dimension 0, "
            f"with gufunc signature (m,m),(m,n)->(m,n) (size {rows} is "
            f"different from {n})")
    b = ops.reshape(x2, n, 1) if vector else x2
    try:
        batch = x1.shape[:-2] if vector else np.broadcast_shapes(
            x1.shape[:-2], b.shape[:-2])
    except ValueError:
        raise errors.InvalidArgumentError(
            f"solve: operands could not be broadcast together with shapes "
            f"{x1.shape} {x2.shape}") from None
    nrhs = b.shape[-1]
    # x1's memory read column-major is x1^T, and getrs' transposed
    # operation solves with x1 itself; b goes in as its columns
    # (transposed copies), the solutions come out so.
    a = _stack(ops.astype(prims._broadcast(x1, batch + (n, n)), dtype,
                          copy=False))
    rhs = ops.copy(api.matrix_transpose(prims._broadcast(
        ops.astype(b, dtype, copy=False), batch + (n, nrhs))), dtype)
    count = a.shape[0]
    rhs = ops.reshape(rhs, count, nrhs, n)
    solver = _Solver("solve", x1, dtype)
    info = solver.empty((2, count), np.int32)
    ipiv = _lu(solver, a, info[0])
    _solve_factored(solver, a, ipiv, rhs, info[1], _OP_T)
    if count and n:
        _raise_on(info, "Singular matrix")
    if vector:
        return ops.reshape(rhs, batch + (n,))
    return ops.copy(api.matrix_transpose(ops.reshape(rhs, batch +
                                                     (nrhs, n))))


# ----------------------------------------------------------------------- qr

def qr(x, mode="reduced"):
    if mode not in ("reduced", "complete"):
        raise errors.InvalidArgumentError(
            f"Unrecognized mode '{mode}' (the standard's are 'reduced' and "
            "'complete')")
    api = _api()
    x = _matrices(x, "qr", square=False)
    m, n = x.shape[-2:]
    k = min(m, n)
    columns = k if mode == "reduced" else m
    batch = x.shape[:-2]
    # cuSOLVER factors x itself: its transposed copy, read column-major.
    a = _stack(x, transposed=True)
    count = a.shape[0]
    solver = _Solver("qr", x, x.dtype)
    tau = solver.empty((count, max(k, 1)))
    info = solver.empty((2, count), np.int32)
    item = x.dtype.itemsize
    if count and k:
        na, nt, ni = (v.__spirjit_native__() for v in (a, tau, info))
        lwork = solver.workspace_size("geqrf_bufferSize", m, n,
                                      _address(na), m)
        work = solver.empty((max(lwork, 1),))
        nw = work.__spirjit_native__()
        for i in range(count):
            solver("geqrf", m, n, _address(na, i, m * n * item), m,
                   _address(nt, i, k * item), _address(nw), lwork,
                   _address(ni, i, 4))
        del na, nw
    factored = api.matrix_transpose(ops.reshape(a, batch + (n, m)))
    r = ops.copy(api.triu(factored if mode == "complete" else
                          factored[..., :k, :]))
    # Q from the reflectors: the first k columns of the factored matrix
    # (rows of its memory) in a buffer of Q's columns, which orgqr fills.
    q = _zeros((count, columns, m), x.dtype, x)
    if count and k:
        q[:, :k, :] = a[:, :k, :]
        nq, ni = q.__spirjit_native__(), info.__spirjit_native__()
        lwork = solver.workspace_size("orgqr_bufferSize", m, columns, k,
                                      _address(nq), m, _address(nt))
        work = solver.empty((max(lwork, 1),))
        nw = work.__spirjit_native__()
        for i in range(count):
            solver("orgqr", m, columns, k, _address(nq, i, columns * m *
                                                      item), m,
                   _address(nt, i, k * item), _address(nw), lwork,
                   _address(ni, count + i, 4))
        del nq, nt, ni, nw
        _raise_on(info, "QR factorization failed")
    q = ops.copy(api.matrix_transpose(ops.reshape(q, batch +
                                                  (columns, m))))
    return QRResult(q, r)


# ---------------------------------------------------------------------- svd

def _gesvd(x, what, vectors, full_matrices=False):
    """gesvd of each matrix of x: (S, U, Vh) as NumPy's svd gives them,
    U and Vh None without ``vectors``. cuSOLVER's gesvd takes rows >=
    columns, so a wide x is factored as x^H (its conjugated copy, read
    column-major) and the factors swapped: x = V_b S U_b^H."""
    api = _api()
    x = _matrices(x, what, square=False)
    m, n = x.shape[-2:]
    batch = x.shape[:-2]
    wide = m < n
    a = _stack(x, conjugated=True) if wide else _stack(x, transposed=True)
    rows, cols = (n, m) if wide else (m, n)
    count = a.shape[0]
    solver = _Solver(what, x, x.dtype)
    real = _real(x.dtype)
    s = solver.empty((count, cols), real)
    info = solver.empty((count,), np.int32)
    ucols = rows if full_matrices else cols
    u = solver.empty((count, ucols, rows)) if vectors else None
    vt = solver.empty((count, cols, cols)) if vectors else None
    item = x.dtype.itemsize
    if count and cols:
        lwork = solver.workspace_size("gesvd_bufferSize", rows, cols)
        work = solver.empty((max(lwork, 1),))
        rwork = solver.empty((max(cols - 1, 1),), real)
        na, ns, ni, nw, nr = (v.__spirjit_native__() for v in (
            a, s, info, work, rwork))
        nu = u.__spirjit_native__() if vectors else None
        nv = vt.__spirjit_native__() if vectors else None
        job = ord("A" if full_matrices else "S") if vectors else ord("N")
        for i in range(count):
            solver("gesvd", job, ord("A") if vectors else ord("N"), rows,
                   cols, _address(na, i, rows * cols * item), rows,
                   _address(ns, i, cols * real.itemsize),
                   _address(nu, i, ucols * rows * item) if vectors
                   else None, rows,
                   _address(nv, i, cols * cols * item) if vectors
                   else None, cols, _address(nw), lwork, _address(nr),
                   _address(ni, i, 4))
        del na, ns, ni, nw, nr, nu, nv
        _raise_on(info, "SVD did not converge")
    s = ops.reshape(s, batch + (cols,))
    if not vectors:
        return s, None, None
    # Read row-major, u holds U_b^T and vt holds (V_b^H)^T = conj(V_b).
    u_rows = ops.reshape(u, batch + (ucols, rows))
    vt_rows = ops.reshape(vt, batch + (cols, cols))
    if wide:
        return s, ops.copy(_conj(vt_rows)), ops.copy(_conj(u_rows))
    return (s, ops.copy(api.matrix_transpose(u_rows)),
            ops.copy(api.matrix_transpose(vt_rows)))


def svd(x, full_matrices=True):
    s, u, vh = _gesvd(x, "svd", True, full_matrices)
    return SVDResult(u, s, vh)


def svdvals(x):
    return _gesvd(x, "svdvals", False)[0]


# --------------------------------------------------------------------- eigh

def _syevd(x, what, vectors):
    """Eigenvalues (ascending) and, with ``vectors``, eigenvectors of each
    Hermitian matrix of x, from its lower triangle as NumPy's. x's memory
    read column-major is x^T = conj(x), whose upper triangle is x's lower
    one; conj(x) has x's eigenvalues and the conjugated eigenvectors."""
    api = _api()
    x = _matrices(x, what)
    n = x.shape[-1]
    a = _stack(x)
    count = a.shape[0]
    solver = _Solver(what, x, x.dtype)
    real = _real(x.dtype)
    w = solver.empty((count, n), real)
    info = solver.empty((count,), np.int32)
    job = _VECTORS if vectors else _NO_VECTORS
    if count and n:
        na, nw_, ni = (v.__spirjit_native__() for v in (a, w, info))
        lwork = solver.workspace_size("syevd_bufferSize", job, _UPPER, n,
                                      _address(na), n, _address(nw_))
        work = solver.empty((max(lwork, 1),))
        nw = work.__spirjit_native__()
        for i in range(count):
            solver("syevd", job, _UPPER, n, _address(na, i, n * n *
                                                     x.dtype.itemsize), n,
                   _address(nw_, i, n * real.itemsize), _address(nw), lwork,
                   _address(ni, i, 4))
        del na, nw_, ni, nw
        _raise_on(info, "Eigenvalues did not converge")
    values = ops.reshape(w, x.shape[:-1])
    if not vectors:
        return values, None
    # Column-major eigenvectors V of conj(x), read row-major: V^T.
    vectors = ops.copy(_conj(api.matrix_transpose(ops.reshape(a, x.shape))))
    return values, vectors


def eigh(x):
    return EighResult(*_syevd(x, "eigh", True))


def eigvalsh(x):
    return _syevd(x, "eigvalsh", False)[0]
