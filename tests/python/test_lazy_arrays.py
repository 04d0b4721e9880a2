"""DeviceArrays evaluate lazily and fuse (API.md, "Arrays as a library"):
operations record an expression; a chain of element-wise operations and a
trailing reduction runs as one kernel when a value is needed; what a
program observes is NumPy's eager semantics, at every flush point."""

import sys

import numpy as np
import pytest

import spirjit
from spirjit import errors, kernel_api as kapi


def launches():
    """Fused-kernel launches so far: each is a compile or a cache hit."""
    s = spirjit._spirjit._array_kernel_stats()
    return s["compiles"] + s["memory_hits"] + s["disk_hits"]


def pending(x):
    return spirjit._spirjit._pending(x)


def data(n, dtype=np.float32, seed=0):
    return np.random.default_rng(seed).random(n).astype(dtype)


def test_a_chain_records_and_runs_as_one_kernel(device):
    a, b = data(1000), data(1000, seed=1)
    A, B = (spirjit.asarray(v, device=device) for v in (a, b))
    before = launches()
    R = (A + B) * 2.0 - np.sqrt(A) / (B + 1)
    assert pending(R) and launches() == before   # nothing ran yet
    assert R.shape == (1000,) and R.dtype == np.float32
    assert R.device == device
    np.testing.assert_allclose(np.asarray(R), (a + b) * 2 - np.sqrt(a) /
                               (b + 1), rtol=1e-6)
    assert launches() == before + 1
    assert not pending(R)


def test_a_reduction_fuses_its_element_wise_prologue(device):
    a, b = data(100_000), data(100_000, seed=1)
    A, B = (spirjit.asarray(v, device=device) for v in (a, b))
    before = launches()
    s = (A * B).sum()
    assert s.shape == () and pending(s)
    np.testing.assert_allclose(float(s), float((a * b).sum()), rtol=1e-4)
    # The products are never stored: one pass over the inputs, and at most
    # one more over the work-groups' partial sums.
    assert launches() - before <= 2


def complex_data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.random(shape) + 1j * rng.random(shape)).astype(dtype)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_a_complex_reduction_fuses_its_element_wise_prologue(
        device, require_dtypes, dtype):
    require_dtypes(dtype)
    a, b = complex_data(100_000, dtype), complex_data(100_000, dtype, 1)
    A, B = (spirjit.asarray(v, device=device) for v in (a, b))
    before = launches()
    s = (A * B).sum()
    assert s.shape == () and s.dtype == dtype and pending(s)
    np.testing.assert_allclose(complex(s), (a * b).sum(), rtol=1e-4)
    # As a real sum: the products are never stored, one pass over the
    # inputs and at most one more over the work-groups' partial sums.
    assert 1 <= launches() - before <= 2


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("op", ["sum", "prod", "mean", "min", "max"])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 2), -1, (1, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_complex_reductions_over_axes_match_numpy(device, require_dtypes,
                                                  dtype, op, axis, keepdims):
    require_dtypes(dtype)
    x = complex_data((3, 50, 7), dtype)
    if op == "prod":  # on the unit circle: products neither vanish nor grow
        x = (x / np.abs(x)).astype(dtype)
    X = spirjit.asarray(x, device=device)
    got = getattr(X * 1, op)(axis=axis, keepdims=keepdims)
    assert pending(got) or keepdims  # (keepdims views the result)
    want = getattr(x * dtype(1), op)(axis=axis, keepdims=keepdims)
    assert got.shape == want.shape and got.dtype == want.dtype
    rtol = 2e-4 if dtype == np.complex64 else 1e-12
    np.testing.assert_allclose(np.asarray(got), want, rtol=rtol)


@pytest.mark.parametrize("op", ["sum", "prod", "mean"])
def test_a_nan_in_either_part_reaches_that_part_as_in_numpy(device, op):
    x = complex_data((4, 3000), np.complex128)
    x = x / np.abs(x)
    x[1, 2222] = complex(np.nan, 1.0)
    x[2, 17] = complex(0.5, np.nan)
    if op != "prod":  # (a product's infinities depend on the order)
        x[3, 2999] = complex(np.inf, 0.0)
    X = spirjit.asarray(x, device=device)
    got = np.asarray(getattr(X, op)(axis=1))
    want = getattr(x, op)(axis=1)
    for part in (np.real, np.imag):
        np.testing.assert_allclose(part(got), part(want), rtol=1e-9,
                                   equal_nan=True)


@pytest.mark.parametrize("op", ["min", "max"])
def test_a_complex_nan_wins_min_and_max_in_long_rows(device, op):
    # NumPy's order of complex numbers, a NaN in either part winning,
    # across work-items, work-groups and the pass over their partials.
    x = complex_data((4, 50_000), np.complex128)
    x[1, 44_444] = complex(np.nan, 1.0)
    x[2, 3] = complex(0.5, np.nan)
    x[3, :] = 7 + 1j
    x[3, 49_999] = 7 + 2j
    X = spirjit.asarray(x, device=device)
    got = getattr(X * 1, op)(axis=1)
    assert pending(got)
    got, want = np.asarray(got), getattr(x, op)(axis=1)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(got[[0, 3]], want[[0, 3]])


@pytest.mark.parametrize("op", ["sum", "prod", "min", "max", "mean"])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 2), -1])
def test_reductions_over_axes_match_numpy(device, op, axis):
    x = data(3 * 50 * 7).reshape(3, 50, 7) + 0.5
    X = spirjit.asarray(x, device=device)
    got = getattr(X * 1.0, op)(axis=axis)
    want = getattr(x * np.float32(1.0), op)(axis=axis)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(np.asarray(got), want, rtol=2e-4)


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.int64,
                                   np.bool_, np.float64])
@pytest.mark.parametrize("op", ["sum", "min", "max"])
def test_reductions_of_every_dtype(device, require_dtypes, dtype, op):
    require_dtypes(dtype)
    x = (np.arange(-500, 500) % 97).astype(dtype)
    X = spirjit.asarray(x, device=device)
    got, want = getattr(X, op)(), getattr(x, op)()
    assert got.dtype == want.dtype
    assert got.item() == want


def test_nan_wins_min_and_max_as_in_numpy(device):
    x = data(10_000)
    x[7777] = np.nan
    X = spirjit.asarray(x, device=device)
    assert np.isnan(float(X.min())) and np.isnan(float(X.max()))
    assert np.isnan(float((X * 2).max()))
    y = np.ones((4, 300), np.float32)
    y[2, 5] = np.nan
    got = np.asarray(spirjit.asarray(y, device=device).max(axis=1))
    np.testing.assert_array_equal(got, y.max(axis=1))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_nan_anywhere_in_a_long_row_wins_min_and_max(device, dtype):
    """min and max fold the value and whether a NaN was met apart: a NaN
    at the row's first element (every chunk's start value), in one chunk
    only, or beside infinities, still wins, in every row."""
    n = 300_001
    base = np.random.default_rng(3).random(n).astype(dtype)
    for at in ([0], [n - 1], [n // 3], [0, n - 1]):
        for extra in ({}, {5: np.inf, 7: -np.inf}):
            x = base.copy()
            for i, v in extra.items():
                x[i] = v
            x[at] = np.nan
            X = spirjit.asarray(x, device=device)
            assert np.isnan(float(X.max())) and np.isnan(float(X.min())), at
    x = base.copy()
    x[5], x[7] = np.inf, -np.inf
    X = spirjit.asarray(x, device=device)
    assert float(X.max()) == np.inf and float(X.min()) == -np.inf
    y = np.stack([base[:70_000]] * 3)
    y[1, 0] = np.nan
    Y = spirjit.asarray(y, device=device)
    np.testing.assert_array_equal(np.asarray(Y.max(axis=1)), y.max(axis=1))
    np.testing.assert_array_equal(np.asarray(Y.min(axis=1)), y.min(axis=1))


@pytest.mark.parametrize("n", [1, 2, 15, 16, 17, 63, 64, 65, 127, 129, 1000,
                               1025, 4095, 4097, 65_537, 300_001])
def test_reductions_at_every_remainder_of_a_work_items_rounds(device, n):
    """A reduction's work-item folds four values a round, then single ones,
    then one partial round: every size gives NumPy's answers, with a NaN,
    a tie or the extreme at either end."""
    rng = np.random.default_rng(n)
    base = rng.integers(0, 50, n).astype(np.float32)
    cases = {"plain": base}
    if n > 1:
        ties = base.copy()
        ties[[0, n - 1]] = 99.0                # the first of the equals wins
        first = base.copy()
        first[0] = -99.0
        last = base.copy()
        last[n - 1] = 99.0
        nans = base.copy()
        nans[[n // 2, n - 1]] = np.nan         # the first NaN wins
        cases.update(ties=ties, first=first, last=last, nans=nans)
    for name, x in cases.items():
        X = spirjit.asarray(x, device=device)
        for op in ("sum", "min", "max", "argmax", "argmin"):
            got, want = getattr(X, op)().item(), getattr(x, op)()
            if np.isnan(want):
                assert np.isnan(got), (name, op)
            elif op == "sum":
                assert got == pytest.approx(float(want), rel=1e-5), (name, op)
            else:
                assert got == want, (name, op)


def test_scalars_are_parameters_of_one_kernel(device):
    X = spirjit.asarray(np.arange(6.0, dtype=np.float32), device=device)
    np.asarray(X * 2.0 + 1.0)
    stats = spirjit._spirjit._array_kernel_stats()
    for k in range(3, 8):
        # (outside the assert, whose rewriting would hold X * k)
        got = list(np.asarray(X * float(k) + 1.0))
        assert got == [k * i + 1.0 for i in range(6)]
    after = spirjit._spirjit._array_kernel_stats()
    assert after["compiles"] == stats["compiles"]
    assert after["expressions"] == stats["expressions"]


def test_the_right_hand_side_is_complete_before_the_store(device):
    u = np.arange(20.0)
    U = spirjit.asarray(u, device=device)
    U[1:-1] = U[:-2] + U[2:]
    u[1:-1] = u[:-2] + u[2:]
    np.testing.assert_array_equal(np.asarray(U), u)
    U[::-1] = U * 2           # reversed view of the same memory
    u[::-1] = u * 2
    np.testing.assert_array_equal(np.asarray(U), u)


def test_a_pending_value_keeps_what_it_read_before_a_write(device):
    a = np.arange(8.0)
    A = spirjit.asarray(a, device=device)
    T = A * 10                 # recorded, reads A
    A[0] = 100.0               # host write: T is computed first
    A[1:3] = spirjit.asarray(np.array([7.0, 7.0]), device=device)
    A += 1                     # in place
    np.testing.assert_array_equal(np.asarray(T), a * 10)
    np.testing.assert_array_equal(np.asarray(A),
                                  [101, 8, 8, 4, 5, 6, 7, 8])


def test_views_see_earlier_writes_and_in_place_aliases(device):
    a = np.arange(10.0)
    A = spirjit.asarray(a, device=device)
    V = A[2:]
    A += 1
    a += 1
    np.testing.assert_array_equal(np.asarray(V), a[2:])
    A[1:] += A[:-1]            # overlapping in-place operation
    a[1:] += a[:-1]
    np.testing.assert_array_equal(np.asarray(A), a)


def test_a_kernel_launch_takes_and_sees_pending_values(device):
    @spirjit.kernel
    def double(item, x, y):
        i = item.get_id(0)
        y[i] = 2 * x[i]

    a = data(64)
    A = spirjit.asarray(a, device=device)
    T = A + 1.0                # pending, handed to a kernel
    Y = spirjit.empty(64, np.float32, device=device)
    S = A * 3.0                # pending, reads A, which the kernel writes
    spirjit.call_kernel(double, kapi.Range(64), T, A)
    np.testing.assert_allclose(np.asarray(A), 2 * (a + 1), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(S), a * 3, rtol=1e-6)
    spirjit.call_kernel(double, kapi.Range(64), A * 0.5, Y)
    np.testing.assert_allclose(np.asarray(Y), 2 * (a + 1), rtol=1e-6)


def test_a_jit_function_takes_pending_values(device):
    @spirjit.jit
    def scale(x, out):
        for i in spirjit.prange(x.shape[0]):
            out[i] = x[i] * 3

    a = data(100)
    A = spirjit.asarray(a, device=device)
    out = spirjit.empty(100, np.float32, device=device)
    scale(A - 1.0, out)
    np.testing.assert_allclose(np.asarray(out), (a - 1) * 3, rtol=1e-6)


def test_errors_raise_at_the_operation(device):
    A = spirjit.asarray(np.ones(4), device=device)
    B = spirjit.asarray(np.ones(5), device=device)
    with pytest.raises(ValueError, match="broadcast"):
        A + B
    with pytest.raises(TypeError):
        A + "text"
    with pytest.raises(errors.TypingError, match="same_kind"):
        np.add(A, A, out=spirjit.empty(4, np.int32, device=device))
    with pytest.raises(OverflowError):
        spirjit.asarray(np.ones(3, np.int8), device=device) + 300


def test_a_loop_that_never_reads_runs_in_bounded_memory(device):
    X = spirjit.asarray(np.zeros(16, np.float32), device=device)
    for _ in range(5000):
        X = X + 1.0
    # The chain is computed every so often: it never holds 5000 steps.
    assert spirjit._spirjit._pending_nodes() < 100
    np.testing.assert_array_equal(np.asarray(X), np.full(16, 5000.0))


def test_synchronize_computes_everything_pending(device):
    A = spirjit.asarray(np.arange(5.0), device=device)
    T, U = A + 1, (A * A).sum()
    spirjit.synchronize()
    assert not pending(T) and not pending(U)
    spirjit.synchronize(device)
    spirjit.synchronize(device.filter_string)
    assert float(U) == 30.0


def test_where_and_comparisons_fuse(device):
    a = data(500) - 0.5
    A = spirjit.asarray(a, device=device)
    before = launches()
    R = np.where(A > 0, A * 2, -A)
    np.testing.assert_allclose(np.asarray(R), np.where(a > 0, a * 2, -a))
    assert launches() == before + 1


def test_broadcasting_fuses_across_ranks(device):
    m = data(12).reshape(3, 4)
    v = data(4, seed=2)
    M, V = spirjit.asarray(m, device=device), spirjit.asarray(v, device=device)
    R = (M - V) * (V + 1) + m.dtype.type(2)
    np.testing.assert_allclose(np.asarray(R), (m - v) * (v + 1) + 2,
                               rtol=1e-6)
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float64).reshape(2, 3, 4, 5)
    X = spirjit.asarray(x, device=device)
    T = X.transpose(3, 1, 0, 2)           # rank 4, not contiguous
    np.testing.assert_array_equal(np.asarray(T * 2 + 1),
                                  x.transpose(3, 1, 0, 2) * 2 + 1)


def test_strided_views_of_every_sign_fuse_into_one_flat_kernel(device):
    # Issue 25: a Map kernel reads each view as the 1-D span of its
    # elements at offset + sum(id * stride); reversed views (an offset
    # parameter, strides wrapping in uint64), steps, transposes and
    # broadcasts (stride 0) each index it differently, and the store goes
    # through a strided view of its own.
    x = np.arange(4 * 6 * 10, dtype=np.float32).reshape(4, 6, 10)
    row = data(5, seed=3)
    X, Row = spirjit.asarray(x, device=device), spirjit.asarray(
        row, device=device)
    out = np.zeros((8, 6, 20), np.float32)
    Out = spirjit.asarray(out, device=device)
    before = launches()
    value = (X[::-1, ::-1, ::2] - X[:, :, 1::2] * 2 + Row
             + X.transpose(0, 2, 1)[:, ::2, ::-1].transpose(0, 2, 1))
    Out[1::2, ::-1, 3:13:2] = value
    out[1::2, ::-1, 3:13:2] = (x[::-1, ::-1, ::2] - x[:, :, 1::2] * 2 + row
                               + x.transpose(0, 2, 1)[:, ::2, ::-1]
                               .transpose(0, 2, 1))
    np.testing.assert_array_equal(np.asarray(Out), out)
    assert launches() == before + 1


def test_a_form_evaluated_again_binds_its_own_memory_and_scalars(device):
    # Issue 25: the last Map's parameters are kept and rebound when the
    # next evaluation has the same form (launch/ArrayKernels.cpp, MapMemo):
    # other arrays, offsets and scalars of the same layout, and a view read
    # twice (one parameter) against two views (two), must each give NumPy's
    # answer.
    xs = [data(40, seed=s).reshape(4, 10) for s in range(4)]
    Xs = [spirjit.asarray(x, device=device) for x in xs]
    for k in range(4):
        x, X = xs[k], Xs[k]
        scale = np.float32(k + 0.5)
        got = X[::-1, 1:] * scale + X[:, :-1] - Xs[(k + 1) % 4][:, 1:]
        want = x[::-1, 1:] * scale + x[:, :-1] - xs[(k + 1) % 4][:, 1:]
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
    a, b = Xs[0][:, 1:], Xs[1][:, 1:]
    for first, second in ((a, b), (a, a), (b, a), (b, b), (a, b)):
        want = np.asarray(first) * 2 + np.asarray(second)
        np.testing.assert_allclose(np.asarray(first * 2.0 + second), want,
                                   rtol=1e-6)
    out = np.zeros((6, 12), np.float32)
    Out = spirjit.asarray(out, device=device)
    for k in range(3):                    # stores at other offsets
        Out[k:k + 4, 1:11] = Xs[k] + Xs[k + 1]
        out[k:k + 4, 1:11] = xs[k] + xs[k + 1]
        np.testing.assert_array_equal(np.asarray(Out), out)


def test_eager_mode_computes_each_operation(run_isolated):
    script = """
        import os
        os.environ["SPIRJIT_LAZY"] = "0"
        import numpy as np, spirjit
        A = spirjit.asarray(np.arange(4.0))
        T = A * 2 + 1
        assert not spirjit._spirjit._pending(T)
        assert not spirjit._spirjit._pending(A.sum())
        print(np.asarray(T).tolist())
    """
    result = run_isolated(script)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[1.0, 3.0, 5.0, 7.0]"


def test_dump_dir_shows_the_fused_kernel_and_its_graph(run_isolated,
                                                       tmp_path):
    dump = tmp_path / "dump"
    script = f"""
        import os
        os.environ["SPIRJIT_DUMP_DIR"] = {str(dump)!r}
        os.environ["SPIRJIT_HOST_NUMPY"] = "0"  # a kernel, however small
        import numpy as np, spirjit
        A = spirjit.asarray(np.arange(4, dtype=np.float32))
        print(list(np.asarray(np.sqrt(A) * 3.0 + A)))
    """
    result = run_isolated(script)
    assert result.returncode == 0, result.stderr
    folders = [p for p in dump.iterdir() if p.name.startswith("array_map")]
    assert folders, list(dump.iterdir())
    stages = {p.name.split("-", 1)[1] for p in folders[0].iterdir()}
    assert {"bytecode.txt", "pyir.txt", "typed.txt"} <= stages or any(
        s.startswith("pyir") for s in stages)
    graph = next(p for p in folders[0].iterdir()
                 if "bytecode" in p.name).read_text()
    assert "array expression" in graph and "sqrt" in graph


def test_a_device_error_at_evaluation_names_the_operation(device):
    X = spirjit.asarray(np.ones(1 << 18, np.float32), device=device)
    Y = spirjit.asarray(np.ones((1 << 18, 1), np.float32), device=device)
    Z = X * Y   # recorded: 2**36 elements, more memory than any device has
    line = sys._getframe().f_lineno - 1
    with pytest.raises(errors.OutOfDeviceMemoryError) as info:
        np.asarray(Z[0])
    assert f"{__file__}:{line}:" in str(info.value)
    assert "computing the DeviceArray operation recorded here" in str(
        info.value)


def test_values_a_variable_holds_fuse_where_they_are_used(device):
    a, b = data(1000), data(1000, seed=1)
    A, B = (spirjit.asarray(v, device=device) for v in (a, b))
    before = launches()
    T = A + B                   # held, never read
    s = (T * T).sum()
    np.testing.assert_allclose(float(s), float(((a + b) ** 2).sum()),
                               rtol=1e-5)
    assert launches() == before + 1 and pending(T)
    O = spirjit.empty(1000, np.float32, device=device)
    np.multiply(A + B, 2.0, out=O)  # the argument is held during the call
    assert launches() == before + 2
    X = spirjit.asarray(a, device=device)
    X += 0.5 * (B - X)
    # The right-hand side reads X and a value (the call's argument) holds
    # it, so it is computed before X is written: two kernels.
    assert launches() == before + 4
    np.testing.assert_allclose(np.asarray(O), (a + b) * 2, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(X), a + 0.5 * (b - a), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(T), a + b, rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.int16, np.uint8, np.float32, np.bool_])
def test_reduction_methods_without_arguments(device, dtype):
    x = (np.arange(1, 301) % 7).astype(dtype).reshape(3, 100)
    X = spirjit.asarray(x, device=device)
    for op in ("sum", "prod", "min", "max", "mean"):
        got, want = getattr(X, op)(), getattr(x, op)()
        assert got.dtype == want.dtype and got.shape == ()
        np.testing.assert_allclose(got.item(), want, rtol=1e-6)


def test_views_and_slicing_record_without_computing(device):
    u = data(64).reshape(8, 8)
    U = spirjit.asarray(u, device=device)
    V = spirjit.zeros((8, 8), np.float32, device=device)
    before = launches()
    # Each slice of U is taken while sums over U are pending: nothing runs
    # until the store, which is one kernel into V's view.
    V[1:-1, 1:-1] = 0.25 * (U[:-2, 1:-1] + U[2:, 1:-1] + U[1:-1, :-2] +
                            U[1:-1, 2:])
    assert launches() == before + 1
    want = np.zeros((8, 8), np.float32)
    want[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] +
                               u[1:-1, 2:])
    np.testing.assert_allclose(np.asarray(V), want, rtol=1e-6)
    # A pending value's own view is computed first.
    T = U * 2
    np.testing.assert_allclose(np.asarray(T[2:5, ::2]), u[2:5, ::2] * 2)
    # Errors of the fast path are NumPy's.
    with pytest.raises(IndexError):
        U[8]
    with pytest.raises(IndexError):
        U[0, 0, 0]
    assert U[3, 4] == u[3, 4]


def test_threads_record_and_read_their_own_values(device):
    import threading
    base = np.arange(20_000, dtype=np.float32)
    A = spirjit.asarray(base, device=device)
    failures = []

    def work(t):
        try:
            for i in range(30):
                x = (A + float(t)) * 2.0 - i
                s = x.sum()
                want = (base + t) * 2 - i
                np.testing.assert_array_equal(np.asarray(x[::7]), want[::7])
                np.testing.assert_allclose(float(s), want.sum(), rtol=1e-5)
        except Exception as exc:  # reported by the main thread
            failures.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not any(thread.is_alive() for thread in threads)
    assert not failures, failures[0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8,
                                   np.uint16, np.int64, np.bool_])
def test_argmax_and_argmin_are_one_reduction(device, require_dtypes, dtype):
    require_dtypes(dtype)
    rng = np.random.default_rng(3)
    x = (rng.random((6, 40_000)) * 50).astype(dtype)
    if x.dtype.kind == "f":
        x[2, 30_000] = x[2, 35_000] = np.nan   # the first NaN wins
        x[4, :] = 0.5                          # ties: the first index
        x[5, 100] = -0.0
    X = spirjit.asarray(x, device=device)
    for op in ("argmax", "argmin"):
        before = launches()
        got = getattr(X, op)(axis=1)
        np.testing.assert_array_equal(np.asarray(got), getattr(x, op)(axis=1))
        assert launches() - before <= 2
        assert int(getattr(X, op)()) == getattr(x, op)()
        np.testing.assert_array_equal(np.asarray(getattr(X, op)(axis=0)),
                                      getattr(x, op)(axis=0))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16,
                                   np.uint64])
def test_argmax_finds_the_first_extreme_wherever_it_lies(device,
                                                         require_dtypes,
                                                         dtype):
    # Lengths around a group's chunk and its blocks of rounds; the extreme
    # placed first, last, twice, at a row's first element, beside NaNs,
    # infinities and sorted runs (each element a new best).
    require_dtypes(dtype)
    rng = np.random.default_rng(11)
    floating = np.dtype(dtype).kind == "f"
    for n in (1, 17, 1023, 1025, 4097, 65_537, 300_001):
        base = (rng.random(n) * 1000).astype(dtype)
        cases = [base, np.sort(base), np.sort(base)[::-1].copy(),
                 np.full(n, base[0])]
        for where in sorted({0, n // 3, n - 1}):
            for other in sorted({0, n // 2, n - 1}):
                x = base.copy()
                x[where] = x[other] = x.max()
                y = base.copy()
                y[where] = y[other] = y.min()
                cases += [x, y]
                if floating:
                    z = base.copy()
                    z[other] = np.inf
                    z[where] = np.nan
                    w = base.copy()
                    w[where] = -np.inf
                    cases += [z, w]
        for h in cases:
            x = spirjit.asarray(h, device=device)
            assert int(x.argmax()) == h.argmax(), (n, h[:4])
            assert int(x.argmin()) == h.argmin(), (n, h[:4])


def test_reducing_a_broadcast_product_over_every_axis(device):
    # (a[:, None] * b[None, :]).sum() reduces the last axis fused with the
    # product, then the rest: the product itself (its axes do not merge)
    # had been staged whole in memory.
    rng = np.random.default_rng(2)
    a, b = rng.random(300), rng.random(200)
    a[7] = np.nan
    A, B = (spirjit.asarray(v, device=device) for v in (a, b))
    for op in ("sum", "prod", "min", "max", "mean"):
        want = getattr(a[1:, None] * b[None, :], op)()
        got = float(getattr(A[1:, None] * B[None, :], op)())
        np.testing.assert_allclose(got, want, rtol=1e-10, err_msg=op)
        assert np.isnan(float(getattr(A[:, None] * B[None, :], op)()))
    c = rng.random((4, 1, 5))
    x = c * np.ones((4, 3, 5))
    X = spirjit.asarray(c, device=device) * spirjit.ones((4, 3, 5),
                                                         device=device)
    for axis in (None, (0, 1), (0, 2), (1, 2)):
        np.testing.assert_allclose(np.asarray(X.sum(axis=axis)),
                                   x.sum(axis=axis), rtol=1e-12)
        np.testing.assert_array_equal(np.asarray(X.min(axis=axis)),
                                      x.min(axis=axis))
    assert int((A[1:, None] * B[None, :]).argmax()) == \
        (a[1:, None] * b[None, :]).argmax()
    # Partials in the accumulator's type, not the result's (all() folds
    # bools as int32 minima: written as bools, three bytes of each were
    # left unset).
    for axis in (None, (0, 2)):
        np.testing.assert_array_equal(
            np.asarray((X > 0.3).all(axis=axis)), (x > 0.3).all(axis=axis))
        np.testing.assert_array_equal(
            np.asarray((X > 0.9).any(axis=axis)), (x > 0.9).any(axis=axis))


def test_a_long_float32_sum_rounds_little(device):
    # 10^7 copies of 0.1f, each work-item's share summed in blocks: one
    # running sum per item had lost 0.27 % (PoCL) and 0.04 % (Intel's
    # runtime, the native device); NumPy's pairwise sum loses 1e-7.
    h = np.full(10**7, 0.1, np.float32)
    x = spirjit.asarray(h, device=device)
    exact = 10**7 * float(np.float32(0.1))
    assert abs(float(x.sum()) - exact) / exact < 3e-5
    assert abs(float(x.mean()) - float(np.float32(0.1))) < 3e-5 * 0.1
    r = np.random.default_rng(3).random(10**7, dtype=np.float32)
    want = r.astype(np.float64).sum()
    assert abs(float(spirjit.asarray(r, device=device).sum()) - want) / \
        want < 2e-6


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_sum_and_prod_match_numpy_at_every_length_nan_and_inf_kept(
        device, require_dtypes, dtype):
    # Lengths around a chunk's vector loop and its remainder (the native
    # device folds a sum as vectors, in an order of its own); NumPy's
    # pairwise sum is the reference for accuracy: float32 within 1e-5 of
    # the float64 sum, as NumPy's own is.
    require_dtypes(dtype)
    rng = np.random.default_rng(5)
    floating = np.dtype(dtype).kind == "f"
    for n in (1, 15, 63, 64, 65, 1000, 4097, 65_537, 1_000_003):
        h = (rng.random(n) * 4).astype(dtype) if floating else \
            rng.integers(-50, 50, n).astype(dtype)
        x = spirjit.asarray(h, device=device)
        want = h.astype(np.float64).sum()
        got = x.sum()
        assert np.asarray(got).dtype == h.sum().dtype, n
        np.testing.assert_allclose(float(got), want, rtol=1e-5 if floating
                                   else 0, err_msg=str(n))
        np.testing.assert_allclose(float((x * 2).sum()), 2 * want,
                                   rtol=1e-5 if floating else 0)
        if floating:
            # A product near 1; each factor's rounding adds up over n.
            small = (1 + (h - 2) / (8 * n)).astype(dtype)
            np.testing.assert_allclose(
                float(spirjit.asarray(small, device=device).prod()),
                np.prod(small.astype(np.float64)),
                rtol=n * np.finfo(dtype).eps, err_msg=str(n))
            for special, expect in ((np.nan, np.nan), (np.inf, np.inf)):
                y = h.copy()
                y[n // 2] = special
                assert np.isnan(expect) == np.isnan(
                    float(spirjit.asarray(y, device=device).sum())), n
                if not np.isnan(expect):
                    assert float(spirjit.asarray(y, device=device).sum()) \
                        == np.inf, n
            if n > 1:
                y = h.copy()
                y[0], y[-1] = np.inf, -np.inf  # inf - inf: NaN
                assert np.isnan(float(spirjit.asarray(y, device=device).sum()))
