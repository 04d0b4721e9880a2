"""On a CPU runtime, whose memory the host addresses, small DeviceArray
values are computed by NumPy's own functions in place, as API.md allows ("Where the work runs"): a launch
there costs 20-30 us however small the array. What a program sees is the
same as with kernels: NumPy's values and dtypes, the order of writes kept,
no warnings. (conftest.py turns the path off for the rest of the suite,
which tests the kernels at every size.)"""

import warnings

import numpy as np
import pytest

import spirjit
from spirjit import _spirjit
from spirjit import kernel_api as kapi

import test_array_ops_table as table


@pytest.fixture
def host(device):
    if device.device_type != "cpu":
        pytest.skip("NumPy computes in place only on CPU runtimes")
    was = _spirjit._host_evaluation(True)
    yield device
    _spirjit._host_evaluation(was)


def compiles():
    return _spirjit._array_kernel_stats()["compiles"] + \
        _spirjit._array_kernel_stats()["memory_hits"]


@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.float32,
                                   np.float64, np.complex128],
                         ids=lambda d: np.dtype(d).name)
def test_every_ufunc_of_the_table_gives_numpys_answer(host, require_dtypes,
                                                      dtype):
    require_dtypes(dtype)
    rows = table._rows_for(dtype)
    arrays = dict(zip("xyse", table._inputs(dtype)))
    on_device = {k: spirjit.asarray(v, device=host) for k, v in arrays.items()}
    # Complex expm1 and tanh, whose special values NumPy gives otherwise
    # than the table (ArrayOps.def, "Values at infinities"), are left to
    # the kernels (HostArrays.cpp, numpyDiffers): every other row compiles
    # nothing.
    kernels = {"expm1", "tanh"} if np.dtype(dtype).kind == "c" else set()
    before = compiles()
    got = {}
    for row in sorted(rows, key=lambda r: r["numpy"] in kernels):
        if row["numpy"] in kernels and before is not None:
            assert compiles() == before, "no kernel for small values"
            before = None
        result = getattr(np, row["numpy"])(
            *(on_device[o] for o in table._operands(row, dtype)))
        assert result.dtype == table._numpy_dtype(row, dtype), row["numpy"]
        got[row["numpy"]] = np.asarray(result)
    table._check(rows, dtype, [got[r["numpy"]] for r in rows],
                 table._expected(rows, dtype, arrays),
                 "DeviceArray on the host")
    if before is not None:
        assert compiles() == before, "no kernel for small values"


def test_chains_scalars_and_reductions_as_numpy(host):
    rng = np.random.default_rng(0)
    a = rng.random(1000, dtype=np.float32)
    b = rng.random(1000, dtype=np.float32)
    i = rng.integers(-50, 50, 1000).astype(np.int16)
    A, B, I = (spirjit.asarray(v, device=host) for v in (a, b, i))
    before = compiles()
    cases = [
        (A * B + np.sqrt(A) - 1, a * b + np.sqrt(a) - 1),
        ((A + B) * 2.0, (a + b) * 2.0),
        (I * 3 + 1, i * 3 + 1),                    # int16 stays int16
        (I / 7, i / 7),                            # true division: float64
        (np.where(A > 0.5, A, -B), np.where(a > 0.5, a, -b)),
        (A.reshape(10, 100).sum(axis=0), a.reshape(10, 100).sum(axis=0)),
        (A.reshape(10, 100).max(axis=1, keepdims=True),
         a.reshape(10, 100).max(axis=1, keepdims=True)),
        (I.sum(), i.sum()),                        # int16 sums in int64
        ((A * B).mean(), (a * b).mean()),
        (A.argmax(), a.argmax()),
        ((A - B).argmin(), (a - b).argmin()),
        (A[:-1:3] + B[1::3], a[:-1:3] + b[1::3]),
    ]
    for got, want in cases:
        got = np.asarray(got)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-6)
    assert compiles() == before


def test_big_values_still_run_as_kernels(host):
    x = np.arange(100_000, dtype=np.float32)
    X = spirjit.asarray(x, device=host)
    before = compiles()
    np.testing.assert_array_equal(np.asarray(X * 2 + 1), x * 2 + 1)
    assert compiles() > before


def test_kernel_writes_before_and_after_are_seen_in_order(host):
    @spirjit.kernel
    def bump(item, x, by):
        i = item.get_id(0)
        x[i] += by

    X = spirjit.asarray(np.zeros(64, np.float32), device=host)
    spirjit.call_kernel(bump, kapi.Range(64), X, np.float32(1.0))
    y = X + 10.0          # recorded after the first launch: sees 1
    spirjit.call_kernel(bump, kapi.Range(64), X, np.float32(5.0))
    z = X + 10.0          # after the second: sees 6
    np.testing.assert_array_equal(np.asarray(y), np.full(64, 11.0))
    np.testing.assert_array_equal(np.asarray(z), np.full(64, 16.0))
    X[3] = 100.0          # a host write after: y and z keep their values
    assert float(np.asarray(y)[3]) == 11.0 and np.asarray(z)[3] == 16.0


def test_no_numpy_warnings_escape(host):
    X = spirjit.asarray(np.array([1.0, 0.0, -1.0]), device=host)
    K = spirjit.asarray(np.array([3, 0, -3]), device=host)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = np.asarray(X / 0.0)
        s = np.asarray(np.sqrt(X))
        t = np.asarray(K // 0)
    assert np.isinf(r[0]) and np.isnan(r[1]) and np.isnan(s[2])
    np.testing.assert_array_equal(t, [0, 0, 0])
    # The user's own error state is theirs again after the evaluation.
    with np.errstate(all="raise"):
        np.asarray(X / 0.0)
        assert set(np.geterr().values()) == {"raise"}
        with pytest.raises(FloatingPointError, match="divide by zero"):
            np.ones(2) / np.zeros(2)


def test_lazy_assignment_semantics_hold(host):
    u = np.arange(20, dtype=np.float64)
    U = spirjit.asarray(u, device=host)
    U[1:-1] = U[:-2] + U[2:]
    u[1:-1] = u[:-2] + u[2:]
    np.testing.assert_array_equal(np.asarray(U), u)
    V = U[::2]
    V += 1
    u[::2] += 1
    np.testing.assert_array_equal(np.asarray(U), u)


def test_a_value_read_back_stays_a_value_of_its_time(host):
    """np.asarray of a small pending value computes it straight into the
    array returned; the DeviceArray is still that value after its inputs
    change."""
    a = np.arange(10, dtype=np.float32)
    A = spirjit.asarray(a, device=host)
    C = A * 2 + 1
    np.testing.assert_array_equal(np.asarray(C), a * 2 + 1)
    np.testing.assert_array_equal(np.asarray(C), a * 2 + 1)
    A[0] = 100.0              # written after C was recorded and read
    A += 1                    # and again, in place
    np.testing.assert_array_equal(np.asarray(C), a * 2 + 1)
    np.testing.assert_array_equal(np.asarray(A * 2 + 1)[:2], [203, 5])
    assert float(C.sum()) == float((a * 2 + 1).sum())


def test_complex64_scalars_keep_their_imaginary_part(host):
    # A complex64 kernel parameter holds its parts one in each word; the
    # NumPy path once read its imaginary part as zero (sqrt(1+3j) was 1).
    x = spirjit.asarray(np.array([1 + 3j, 2j], np.complex64), device=host)
    s = np.complex64(1 + 3j)
    np.testing.assert_allclose(spirjit.sqrt(s).asnumpy(), np.sqrt(s),
                               rtol=1e-6)
    np.testing.assert_allclose((x + s).asnumpy(), x.asnumpy() + s)
    np.testing.assert_allclose((x * np.complex64(-1j)).asnumpy(),
                               x.asnumpy() * np.complex64(-1j))


def test_a_form_computed_again_and_again_is_compiled_for_the_host(host):
    """A small value of the same form (operations, dtypes, layout) seen a
    third time is compiled for the host and run on the calling thread;
    its answers stay NumPy's, whatever memory and scalars it takes."""
    rng = np.random.default_rng(1)
    a = rng.random(300, dtype=np.float32) + 0.5
    b = rng.random(300, dtype=np.float32)
    b[::7] = np.nan
    i = rng.integers(-50, 50, 300).astype(np.int16)
    j = rng.integers(-3, 4, 300).astype(np.int32)           # zeros among them
    z = (rng.random(300) + 1j * rng.random(300)).astype(np.complex128)
    m = rng.random((15, 15))
    A, B, I, J, Z, M = (spirjit.asarray(v, device=host)
                        for v in (a, b, i, j, z, m))
    forms = [
        lambda xp, A, B, I, J, Z, M, s: A * B + xp.sqrt(A) - s,
        lambda xp, A, B, I, J, Z, M, s: xp.maximum(A, B) * s,  # NaN kept
        lambda xp, A, B, I, J, Z, M, s: I * 3 + J // (J + 0 * I),  # int //0
        lambda xp, A, B, I, J, Z, M, s: I / 7 + s,                # float64
        lambda xp, A, B, I, J, Z, M, s: xp.exp(Z * s) - Z.conj(),
        lambda xp, A, B, I, J, Z, M, s: M - M.mean(axis=0)[None, :] * 0
        + M[:, :1] * s,                                           # broadcast
        lambda xp, A, B, I, J, Z, M, s: A[::-3] + B[1::3] * s,    # strides
        lambda xp, A, B, I, J, Z, M, s: xp.where(A > s, A, B) < 0.7,
        # Reductions, their elementwise prologue fused
        lambda xp, A, B, I, J, Z, M, s: (A * s).sum(),
        lambda xp, A, B, I, J, Z, M, s: (A * B - s).reshape(30, 10).max(
            axis=1),
        lambda xp, A, B, I, J, Z, M, s: (M * s).mean(axis=0),
        lambda xp, A, B, I, J, Z, M, s: (A - s).argmin(),
        lambda xp, A, B, I, J, Z, M, s: xp.argmax(M * s - M.T, axis=1),
        lambda xp, A, B, I, J, Z, M, s: (I * 1000).sum(),  # int64 acc.
        lambda xp, A, B, I, J, Z, M, s: (Z * s).sum(),
        lambda xp, A, B, I, J, Z, M, s: (A > s).any(),
        lambda xp, A, B, I, J, Z, M, s: (A + s).prod(),
    ]
    hosts = (a, b, i, j, z, m)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")        # NumPy's own warnings
        for k, form in enumerate(forms):
            for step in range(6):
                s = 0.25 * step + 0.5                # a new scalar each time
                want = form(np, *hosts, s)
                got = np.asarray(form(np, A, B, I, J, Z, M, s))
                assert got.dtype == want.dtype, (k, step)
                np.testing.assert_allclose(got, want, rtol=1e-6,
                                           err_msg=f"form {k}, step {step}")
    # Stores: a small Jacobi step in a loop, in place and through views.
    u = np.linspace(0, 1, 50)
    U = spirjit.asarray(u, device=host)
    for _ in range(8):
        U[1:-1] = 0.5 * (U[:-2] + U[2:])
        u[1:-1] = 0.5 * (u[:-2] + u[2:])
        U[::2] += 1
        u[::2] += 1
    np.testing.assert_allclose(np.asarray(U), u, rtol=1e-12)
    # Evaluated values (not read straight into NumPy) are compiled too.
    C = A * 1.0              # memory of its own, as each C after it
    spirjit.synchronize()
    stats = _spirjit._array_kernel_stats()
    for _ in range(6):
        C = C * 0.5 + A
        spirjit.synchronize()
    now = _spirjit._array_kernel_stats()
    # At most one kernel built, the form's (none if it was warm already),
    # and at least the last four values computed by it.
    assert now["compiles"] + now["disk_hits"] <= \
        stats["compiles"] + stats["disk_hits"] + 1
    assert now["host_values"] >= stats["host_values"] + 4
    c = a
    for _ in range(6):
        c = c * 0.5 + a
    np.testing.assert_allclose(np.asarray(C), c, rtol=1e-6)
