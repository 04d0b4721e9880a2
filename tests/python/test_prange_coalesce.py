"""A prange body's inner range loop whose iterations are independent may run
as a second launch dimension (one work-item per element, the inner index
fastest: GPUs' loads coalesce so), and must keep a loop per work-item (a
row) otherwise. SPIRJIT_PRANGE_COALESCE (here through its test door,
_prange_coalesce) picks: auto maps on GPUs only, always and never on every
device; the OpenCL CPU devices here run both forms, compared with plain
Python. The parfor dump says which form each loop got."""

import json
import os
import subprocess

import numpy as np
import pytest

import spirjit
from spirjit import prange


def jacobi(u, v):
    n, m = u.shape
    for i in prange(1, n - 1):
        for j in range(1, m - 1):
            v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] +
                              u[i, j + 1])


def stepped(a, b):
    for i in prange(a.shape[0]):
        for j in range(2, a.shape[1], 3):
            b[i, j] = a[i, j] * 2.0 + 1.0


def in_place(a):
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            if a[i, j] > 3.0:
                a[i, j] = a[i, j] - 3.0


def matmul(a, b, c):
    for i in prange(a.shape[0]):
        for j in range(b.shape[1]):
            for k in range(a.shape[1]):
                c[i, j] += a[i, k] * b[k, j]


def triangle(a, b):
    for i in prange(a.shape[0]):
        for j in range(min(i + 1, a.shape[1])):
            b[i, j] = a[i, j] + 1.0


def row_sums(a, out):
    for i in prange(a.shape[0]):
        s = 0.0
        for j in range(a.shape[1]):
            s += a[i, j]
        out[i] = s


def then_first(a, b, c):
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            b[i, j] = a[i, j] * 2.0
        c[i] = b[i, 0] + 1.0


def running(a):
    for i in prange(a.shape[0]):
        for j in range(a.shape[1] - 1):
            a[i, j + 1] = a[i, j] + a[i, j + 1]


def shifted_read(a):
    for i in prange(a.shape[0]):
        for j in range(1, a.shape[1]):
            a[i, j] = a[i, j - 1] * 0.5 + a[i, j]


def stops_early(a, b):
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            if a[i, j] > 5.0:
                break
            b[i, j] = a[i, j]


def wrapped(a, b):
    # j = -1 and j = m - 1 name one element: updated twice in a row.
    for i in prange(a.shape[0]):
        for j in range(-1, a.shape[1]):
            b[i, j] = b[i, j] * 2.0 + a[i, j]


def cube(a, b):
    n, m, p = a.shape
    for i in prange(n):
        for j in prange(m):
            for k in range(1, p):
                b[i, j, k] = a[i, j, k] - a[i, j, k - 1]


# Does the mapped form apply? The function of each name is the global.
CASES = {
    "jacobi": True,
    "stepped": True,
    "in_place": True,
    "matmul": True,
    "cube": True,
    "triangle": False,
    "row_sums": False,
    "then_first": False,
    "running": False,
    "shifted_read": False,
    "stops_early": False,
    "wrapped": False,
}


def arrays(name, shape):
    """The arguments of CASES[name] for an n x m problem, float32."""
    n, m = shape
    rng = np.random.default_rng(7)
    a = rng.integers(0, 8, size=(n, m)).astype(np.float32)
    if name == "matmul":
        return [a, rng.integers(0, 8, size=(m, n)).astype(np.float32),
                np.ones((n, n), np.float32)]
    if name == "cube":
        a = rng.integers(0, 8, size=(n, m, 5)).astype(np.float32)
        return [a, np.zeros_like(a)]
    if name == "row_sums":
        return [a, np.zeros(n, np.float32)]
    if name == "then_first":
        return [a, np.zeros_like(a), np.zeros(n, np.float32)]
    if name in ("in_place", "running", "shifted_read"):
        return [a]
    return [a, rng.integers(0, 8, size=(n, m)).astype(np.float32)]


def signature(name):
    """CASES[name]'s argument types, numba-style, for spirjit-dump-ir."""
    return "(" + ", ".join(
        "float32[" + ", ".join([":"] * (x.ndim - 1) + ["::1"]) + "]"
        for x in arrays(name, (2, 2))) + ")"


@pytest.fixture
def coalesce():
    """``coalesce(mode)`` sets the mapping for jit functions compiled from
    then on; the test's end restores it."""
    was = spirjit._spirjit._prange_coalesce("auto")
    spirjit._spirjit._prange_coalesce(was)
    yield spirjit._spirjit._prange_coalesce
    spirjit._spirjit._prange_coalesce(was)


@pytest.mark.parametrize("mode", ["always", "never"])
@pytest.mark.parametrize("shape", [(1, 1), (3, 4), (37, 65), (130, 9)])
@pytest.mark.parametrize("name", sorted(CASES))
def test_same_answers_both_ways(device, coalesce, name, mode, shape):
    function = globals()[name]
    coalesce(mode)
    got = arrays(name, shape)
    want = [x.copy() for x in got]
    function(*want)  # plain Python
    spirjit.jit(function)(*got)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def parfor_dump(tool_command, name, mode, extra=()):
    """The parfor stage of CASES[name] as spirjit-dump-ir prints it under
    SPIRJIT_PRANGE_COALESCE=mode."""
    env = dict(os.environ, SPIRJIT_PRANGE_COALESCE=mode)
    out = subprocess.run(
        tool_command("spirjit-dump-ir") + [__file__, name, "--jit", "--sig",
                                           signature(name), "--stage",
                                           "parfor",
                                           *extra],
        env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_dump_says_which_form(tool_command, name):
    pranges = 2 if name == "cube" else 1
    text = parfor_dump(tool_command, name, "always")
    if CASES[name]:
        assert f"; parfor 0: rows mapped onto a {pranges + 1}-D launch " \
               "(inner range loop independent)" in text
        assert f"; parfor 0: a {pranges + 1}-D launch" in text
    else:
        assert "; parfor 0: rows kept: " in text
        assert f"; parfor 0: a {pranges}-D launch" in text
    # never, and auto for a CPU (a SPIR-V image), keep the rows.
    for mode in ("never", "auto"):
        text = parfor_dump(tool_command, name, mode)
        assert f"; parfor 0: a {pranges}-D launch" in text
        assert "; parfor 0: rows kept: " in text


def test_auto_maps_for_a_gpu(tool_command):
    """The dump tool compiles a PTX image for a GPU: auto maps there."""
    text = parfor_dump(tool_command, "jacobi", "auto", ["--target", "cuda"])
    assert "rows mapped onto a 2-D launch" in text


def test_each_form_is_a_specialisation_of_its_own(device, coalesce):
    """The host code differs between the forms: a function called under
    both compiles twice, and each call runs its own form (never reusing
    the other's). auto on a CPU device is the rows form again."""
    f = spirjit.jit(jacobi)
    u = np.arange(64 * 33, dtype=np.float32).reshape(64, 33) % 7
    want = np.zeros_like(u)
    jacobi(u, want)
    for mode, compiles in (("always", 1), ("never", 2), ("auto", 2),
                           ("always", 2)):
        coalesce(mode)
        v = np.zeros_like(u)
        f(u, v)
        np.testing.assert_array_equal(v, want)
        assert f.stats["host"]["compiles"] + \
            f.stats["host"]["disk_hits"] == compiles, mode


CACHED_SWEEP = """
import json
import numpy as np
import spirjit
from spirjit import prange

@spirjit.jit
def sweep(u, v):
    n, m = u.shape
    for i in prange(1, n - 1):
        for j in range(1, m - 1):
            v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] +
                              u[i, j + 1])

u = np.arange(40 * 30, dtype=np.float32).reshape(40, 30) % 11
v = np.zeros_like(u)
sweep(u, v)
want = np.zeros_like(u)
want[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] +
                           u[1:-1, 2:])
host = sweep.stats["host"]
print(json.dumps({"right": bool((v == want).all()),
                  "compiles": host["compiles"],
                  "disk_hits": host["disk_hits"]}))
"""


def test_disk_cache_keeps_the_forms_apart(device_filter, run_isolated,
                                          monkeypatch, tmp_path):
    """A process that maps the rows never links the host code a process
    keeping them stored (hostCacheKey holds the choice), and the other way
    round; each finds its own form on disk again."""
    monkeypatch.setenv("SPIRJIT_CACHE_DIR", str(tmp_path / "cache"))

    def run(mode):
        monkeypatch.setenv("SPIRJIT_PRANGE_COALESCE", mode)
        done = run_isolated(CACHED_SWEEP)
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout.splitlines()[-1])
        assert result["right"], mode
        return result["compiles"], result["disk_hits"]

    assert run("always") == (1, 0)
    assert run("never") == (1, 0)
    assert run("always") == (0, 1)
    assert run("never") == (0, 1)
    # auto: a CPU runs the rows form; a first call on a GPU loads the rows
    # form (compiled while the devices are found) and then the mapped one.
    gpu = spirjit.Device(device_filter).device_type == "gpu"
    assert run("auto") == ((0, 2) if gpu else (0, 1))


def test_unknown_mode_is_refused(coalesce):
    with pytest.raises(spirjit.errors.InvalidArgumentError,
                       match="unknown mode 'sometimes'"):
        coalesce("sometimes")


# Reductions over a prange nest whose row loop is independent: the mapped
# form shares the (row, column) pairs among work-items, the column fastest.

def residual(u, v):
    # examples/laplace's dpjit sweep: numba-dpex's form.
    n, m = u.shape
    err = 0.0
    for i in prange(1, n - 1):
        for j in range(1, m - 1):
            x = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
            err += (x - u[i, j]) ** 2
            v[i, j] = x
    return err


def sum_and_max(a, b):
    total = 1.0
    top = -1.0
    for i in prange(a.shape[0]):
        for j in range(2, a.shape[1], 3):
            b[i, j] = a[i, j] * 2.0
            total += b[i, j]
            top = max(top, a[i, j])
    return total, top


def count_over(a, b):
    n = 0
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            if a[i, j] > 3.0:
                n += 1
                b[i, j] = 1.0
    return n


def row_then_total(a, b):
    # The reduction is updated after the row loop too: rows kept.
    s = 0.0
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            s += a[i, j]
        s += b[i, 0]
    return s


def carries_more(a, b):
    # The row loop carries a running value besides the reduction.
    s = 0.0
    for i in prange(a.shape[0]):
        run = 0.0
        for j in range(a.shape[1]):
            run += a[i, j]
            s += run
    return s


REDUCING = {"residual": True, "sum_and_max": True, "count_over": True,
            "row_then_total": False, "carries_more": False}


@pytest.mark.parametrize("mode", ["always", "never"])
@pytest.mark.parametrize("shape", [(1, 1), (3, 4), (37, 65), (130, 9),
                                   (0, 4), (4, 0)])
@pytest.mark.parametrize("name", sorted(REDUCING))
def test_reductions_same_answers_both_ways(device, coalesce, name, mode,
                                           shape):
    function = globals()[name]
    coalesce(mode)
    rng = np.random.default_rng(3)
    got = [rng.integers(0, 8, size=shape).astype(np.float64)
           for _ in range(2)]
    if name in ("row_then_total",) and shape[1] == 0:
        got[1] = np.ones((shape[0], 1))
    want = [x.copy() for x in got]
    expected = function(*want)  # plain Python
    result = spirjit.jit(function)(*got)
    assert result == expected
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("name", sorted(REDUCING))
def test_the_dump_says_which_form_a_reduction_got(tool_command, name):
    env = dict(os.environ, SPIRJIT_PRANGE_COALESCE="always")
    out = subprocess.run(
        tool_command("spirjit-dump-ir") + [
            __file__, name, "--jit", "--sig",
            "(float64[:, ::1], float64[:, ::1])", "--stage", "parfor"],
        env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    if REDUCING[name]:
        assert "; parfor 0: rows mapped: the reduction runs over (row, " \
               "column) pairs" in out.stdout
    else:
        assert "; parfor 0: rows kept: " in out.stdout
