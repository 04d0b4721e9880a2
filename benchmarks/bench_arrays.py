#!/usr/bin/env python3
"""DeviceArrays beside the array libraries, in one run (issue 25).

The same NumPy-style code on every library, float32, wall time per
operation (medians of interleaved rounds; each timed call, or burst at
n = 1000, starts once no other library's threads spin and follows an
untimed one of the same library):

  Jacobi sweep   v[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] +
                                         u[1:-1, :-2] + u[1:-1, 2:])
                 on 2048^2 (CPU) or 4096^2 (GPU)
  (a + b) * 2.0, a * b + sqrt(a) - 1, an 8-operation chain over 4 inputs
  ((a + b) * c - d) * 0.5 + (a * d - b) / c, x.sum(), x.argmax(),
  (a * b).sum()  at 2^20 and 2^22 (CPU), 2^24 and 2^26 (GPU), and at
                 n = 1000 including the read back to the host
                 (np.asarray(...), float(...), int(...)), as a user would,
                 each sample the mean of 10 in a row

One table per device spirjit lists:
  every OpenCL CPU device   spirjit DeviceArrays against NumPy and numba
                            @njit(parallel=True) on the same host
  every CUDA device, when   spirjit DeviceArrays against CuPy (eager), a
  CuPy imports              hand-fused CuPy kernel (ElementwiseKernel or
                            ReductionKernel), a CuPy RawKernel (Jacobi and
                            the elementwise cases) and torch.compile (where
                            it runs; --no-torch leaves it out); the
                            elementwise kernels make a new result each
                            call, as every library's expression does
Each row ends with the issue's target for it, the ratio (or time) it is
judged by, and whether it is met. Every result is checked against NumPy
before and after timing; a backend that cannot run shows n/a with the
reason under the table.

    python benchmarks/bench_arrays.py [--quick] [--device FILTER]
                                      [--reps R] [--warmup W] [--no-torch]
                                      [--case NAME ...]

--device FILTER runs the devices whose filter string starts with FILTER
("cuda", "opencl:cpu:1"); --case NAME (jacobi, add2, mix, chain8, sum,
argmax, dot; repeatable) runs only those rows. Exit status: 0, or 1 if a
result was wrong.
"""

import argparse
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
try:
    import spirjit
except ImportError:  # not installed: the in-tree package, once built
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
    import spirjit
from bench_vecadd import (Unavailable, WrongResult, print_table,  # noqa: E402
                          reason)
from timing import wait_until_quiet  # noqa: E402

# --------------------------------------------------------------------------
# The cases, written once for every library with NumPy's API: xp is the
# module of the library's functions (numpy for NumPy and spirjit, whose
# DeviceArrays take NumPy's ufuncs; cupy; torch).


def jacobi(xp, u, v):
    v[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] +
                            u[1:-1, 2:])
    return v


def add2(xp, a, b):
    return (a + b) * 2.0


def mix(xp, a, b):
    return a * b + xp.sqrt(a) - 1


def chain8(xp, a, b, c, d):
    return ((a + b) * c - d) * 0.5 + (a * d - b) / c


def total(xp, x):
    return x.sum()


def argmax(xp, x):
    return x.argmax()


def dot(xp, a, b):
    return (a * b).sum()


# numba types a Python float as float64 and would compute these in double;
# float32 constants keep its results float32, as NEP 50 does for the others.
QUARTER, TWO, HALF = np.float32(0.25), np.float32(2.0), np.float32(0.5)


def jacobi_numba(u, v):
    v[1:-1, 1:-1] = QUARTER * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] +
                               u[1:-1, 2:])
    return v


def add2_numba(a, b):
    return (a + b) * TWO


def mix_numba(a, b):
    return a * b + np.sqrt(a) - 1


def chain8_numba(a, b, c, d):
    return ((a + b) * c - d) * HALF + (a * d - b) / c


def total_numba(x):
    return x.sum()


def argmax_numba(x):
    return x.argmax()


def dot_numba(a, b):
    return (a * b).sum()


@dataclass
class Case:
    name: str
    label: str
    expr: object          # expr(xp, *arrays)
    numba: object         # the same for @njit(parallel=True)
    inputs: int           # arrays of the same size; 0: the Jacobi grid (u, v)
    read: str             # how a user reads the result: array, float or int
    operations: int       # array operations in the expression
    cuda: str = None      # the elementwise expression in CUDA C (a, b, c, d)


CASES = [
    Case("jacobi", "Jacobi sweep (slices)", jacobi, jacobi_numba, 0, "array",
         5, "0.25f * (((a + b) + c) + d)"),
    Case("add2", "(a + b) * 2.0", add2, add2_numba, 2, "array", 2,
         "(a + b) * 2.0f"),
    Case("mix", "a*b + sqrt(a) - 1", mix, mix_numba, 2, "array", 4,
         "a * b + sqrtf(a) - 1.0f"),
    Case("chain8", "8-op chain, 4 inputs", chain8, chain8_numba, 4, "array",
         8, "((a + b) * c - d) * 0.5f + (a * d - b) / c"),
    Case("sum", "x.sum()", total, total_numba, 1, "float", 1),
    Case("argmax", "x.argmax()", argmax, argmax_numba, 1, "int", 1),
    Case("dot", "(a * b).sum()", dot, dot_numba, 2, "float", 2),
]
SMALL = 1000
BURST = 10       # n = 1000 rows: each sample is the mean of 10 in a row


def make_inputs(case, size, rng):
    """Host float32 arrays in [1, 2) (sqrt and division stay tame); the
    Jacobi case gets (u, v) with v a copy of u, so its border is u's."""
    if case.inputs == 0:
        u = (rng.random((size, size), dtype=np.float32) + 1).astype(np.float32)
        return [u, u.copy()]
    return [(rng.random(size, dtype=np.float32) + 1).astype(np.float32)
            for _ in range(case.inputs)]


def reference(case, host):
    """NumPy's answer: float32 for elementwise results, the float64 sum for
    sums (every library orders them differently), the largest element for
    argmax (ties are likely among 2^26 float32 values)."""
    if case.read == "array":
        return case.expr(np, *[x.copy() for x in host])
    if case.read == "float":
        return float(case.expr(np, *[x.astype(np.float64) for x in host]))
    return host[0].max()


def check(case, got, want, host):
    """Raises WrongResult unless got (read back to the host) is NumPy's
    answer: elementwise results within a few float32 ulps (GPU kernels
    contract to fma), sums within 1e-3, an argmax at a largest element."""
    if case.read == "array":
        got = np.asarray(got)
        if got.dtype != want.dtype or got.shape != want.shape:
            raise WrongResult(f"got {got.dtype}{got.shape}, want "
                              f"{want.dtype}{want.shape}")
        bad = ~np.isclose(got, want, rtol=1e-5, atol=1e-5)
        if bad.any():
            i = np.unravel_index(np.flatnonzero(bad)[0], got.shape)
            raise WrongResult(f"{int(bad.sum())} elements differ, first at "
                              f"{i}: {got[i]!r} != {want[i]!r}")
    elif case.read == "float":
        if not abs(float(got) - want) <= 1e-3 * abs(want):
            raise WrongResult(f"got {got!r}, want {want!r}")
    else:
        x = host[0]
        if not (0 <= int(got) < x.size and x[int(got)] == want):
            raise WrongResult(f"got index {got!r}; the largest element is "
                              f"at {int(x.argmax())}")


# --------------------------------------------------------------------------
# Targets (issue 25): what each row is judged by.


@dataclass
class Target:
    reference: str       # the column compared with, or None: spirjit's time
    limit: float         # ratio, or seconds when reference is None
    strict: bool = False  # "faster than" (<) rather than "at most" (<=)

    def text(self):
        sign = "<" if self.strict else "<="
        if self.reference is None:
            return f"{sign} {self.limit * 1e6:g} us"
        return f"{sign} {self.limit:g}x {self.reference}"

    def judge(self, times):
        """(the number the row is judged by, met?) or None."""
        ours = times.get("spirjit")
        base = times.get(self.reference) if self.reference else 1.0
        if not isinstance(ours, float) or not isinstance(base, float):
            return None
        value = ours / base
        met = value < self.limit if self.strict else value <= self.limit
        return (fmt_time(value) if self.reference is None
                else f"{value:.2f}x"), met


def target_for(kind, case, small):
    """The issue's target for a row, or None. On the CPU runtimes they are
    stated for Intel's: every chain and reduction from 2^20 elements (and
    the Jacobi sweep) faster than NumPy, an expression of one to four
    operations at n = 1000 in at most 25 us. On the GPU: the Jacobi sweep
    within 1.3x the RawKernel, (a+b)*2 and the chain within 1.1x CuPy's
    fused kernel, x.sum() within 1.2x cupy.sum, and at n = 1000 an
    expression of one to four operations no slower than CuPy eager."""
    if small:
        if case.operations > 4:
            return None
        return Target(None, 25e-6) if kind == "cpu" else Target("CuPy", 1.0)
    if kind == "cpu":
        return Target("NumPy", 1.0, strict=True)
    return {"jacobi": Target("RawKernel", 1.3),
            "add2": Target("CuPy kernel", 1.1),
            "chain8": Target("CuPy kernel", 1.1),
            "sum": Target("CuPy", 1.2)}.get(case.name)


# --------------------------------------------------------------------------
# Backends: setup(case, host arrays) -> Runner, or None where the backend
# has no form of the case (a cell "-"); raises Unavailable.


@dataclass
class Runner:
    run: object            # () -> the result, where the library keeps it
    sync: object           # () -> None: waits for the device
    to_host: object        # result -> what the user reads (case.read)


def host_reader(read, as_array):
    return {"array": as_array, "float": float, "int": int}[read]


def spirjit_forcing(device):
    """(force, description): how a timed spirjit operation is made to
    finish. Today's DeviceArray operations are eager (each a synchronous
    launch); lazy ones are evaluated by spirjit.synchronize()."""
    sync = getattr(spirjit, "synchronize", None)
    if sync is None:
        return (lambda: None), "none (operations are eager and synchronous)"
    try:
        sync(device=device)
        return (lambda: sync(device=device)), \
            "spirjit.synchronize(device=...)"
    except TypeError:
        sync()
        return sync, "spirjit.synchronize()"


def spirjit_backend(device, force):
    def setup(case, host):
        try:
            arrays = [spirjit.asarray(x, device=device) for x in host]
        except Exception as exc:
            raise Unavailable(reason(exc)) from exc
        return Runner(lambda: case.expr(np, *arrays), force,
                      host_reader(case.read, np.asarray))
    return setup


def numpy_setup(case, host):
    arrays = [x.copy() for x in host]
    return Runner(lambda: case.expr(np, *arrays), lambda: None,
                  host_reader(case.read, np.asarray))


_NUMBA = {}


def numba_setup(case, host):
    if case.name not in _NUMBA:
        try:
            import numba
        except Exception as exc:
            raise Unavailable(reason(exc)) from exc
        _NUMBA[case.name] = numba.njit(parallel=True)(case.numba)
    fn = _NUMBA[case.name]
    arrays = [x.copy() for x in host]
    return Runner(lambda: fn(*arrays), lambda: None,
                  host_reader(case.read, np.asarray))


def cpu_backends(device, force):
    return [("spirjit", spirjit_backend(device, force)),
            ("NumPy", numpy_setup), ("numba parallel", numba_setup)]


# -- CUDA


RAW_ELEMENTWISE = r"""extern "C" __global__ void k(PARAMS, float *out,
                                                long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  LOADS
  out[i] = EXPR;
}"""

RAW_JACOBI = r"""extern "C" __global__ void k(const float *u, float *v,
                                           long long rows, long long cols) {
  long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x + 1;
  long long i = (long long)blockIdx.y * blockDim.y + threadIdx.y + 1;
  if (i >= rows - 1 || j >= cols - 1) return;
  v[i * cols + j] = 0.25f * (((u[(i - 1) * cols + j] + u[(i + 1) * cols + j])
                              + u[i * cols + j - 1]) + u[i * cols + j + 1]);
}"""

NAMES = "abcd"


def cuda_backends(index, device, force, with_torch):
    import cupy as cp
    cp.cuda.Device(index).use()
    sync = cp.cuda.Device(index).synchronize
    cupy_read = {"array": cp.asnumpy, "float": float, "int": int}
    kernels = {}

    def cupy_setup(case, host):
        arrays = [cp.asarray(x) for x in host]
        return Runner(lambda: case.expr(cp, *arrays), sync,
                      cupy_read[case.read])

    def fused_setup(case, host):
        """CuPy's hand-fused form: one ElementwiseKernel (over the four
        views for the Jacobi sweep) or ReductionKernel; argmax is one
        kernel in CuPy already."""
        arrays = [cp.asarray(x) for x in host]
        if case.name in ("sum", "dot"):
            if case.name not in kernels:
                # a and b are the reduction's own operands: inputs x, z
                sum_ = case.name == "sum"
                kernels[case.name] = cp.ReductionKernel(
                    "float32 x" if sum_ else "float32 x, float32 z",
                    "float32 y", "x" if sum_ else "x * z", "a + b", "y = a",
                    "0", f"bench_{case.name}")
            kernel = kernels[case.name]
            return Runner(lambda: kernel(*arrays), sync, float)
        if case.cuda is None:
            return None
        if case.name not in kernels:
            count = 4 if case.name == "jacobi" else len(arrays)
            kernels[case.name] = cp.ElementwiseKernel(
                ", ".join(f"float32 {n}" for n in NAMES[:count]),
                "float32 out", f"out = {case.cuda}", f"bench_{case.name}")
        kernel = kernels[case.name]
        if case.name == "jacobi":
            u, v = arrays
            views = (u[:-2, 1:-1], u[2:, 1:-1], u[1:-1, :-2], u[1:-1, 2:],
                     v[1:-1, 1:-1])

            def sweep():
                kernel(*views)
                return v
            return Runner(sweep, sync, cp.asnumpy)
        # A new result each call, as the expression makes on every
        # library: into one preallocated `out` the kernel was 10-15 us
        # faster at 2^24 (chain8 on the H100: 129 against 139-148 us),
        # which no expression gets.
        return Runner(lambda: kernel(*arrays), sync, cp.asnumpy)

    def raw_setup(case, host):
        if case.cuda is None:
            return None
        arrays = [cp.asarray(x) for x in host]
        if case.name == "jacobi":
            kernel = cp.RawKernel(RAW_JACOBI, "k")
            u, v = arrays
            rows, cols = u.shape
            grid = ((cols - 2 + 31) // 32, (rows - 2 + 7) // 8)
            args = (u, v, np.int64(rows), np.int64(cols))

            def sweep():
                kernel(grid, (32, 8), args)
                return v
            return Runner(sweep, sync, cp.asnumpy)
        names = NAMES[:len(arrays)]
        source = (RAW_ELEMENTWISE
                  .replace("PARAMS", ", ".join(f"const float *{n.upper()}"
                                               for n in names))
                  .replace("LOADS", " ".join(f"float {n} = {n.upper()}[i];"
                                             for n in names))
                  .replace("EXPR", case.cuda))
        kernel = cp.RawKernel(source, "k")
        n = arrays[0].size
        grid = ((n + 255) // 256,)

        def launch():
            out = cp.empty_like(arrays[0])   # a new result, as above
            kernel(grid, (256,), (*arrays, out, np.int64(n)))
            return out
        return Runner(launch, sync, cp.asnumpy)

    backends = [("spirjit", spirjit_backend(device, force)),
                ("CuPy", cupy_setup), ("CuPy kernel", fused_setup),
                ("RawKernel", raw_setup)]
    if with_torch:
        backends.append(("torch.compile", torch_backend(index)))
    return backends


def torch_backend(index):
    def setup(case, host):
        try:
            import torch
            if not torch.cuda.is_available():
                raise Unavailable("torch sees no CUDA device")
            tensors = [torch.from_numpy(x).to(f"cuda:{index}") for x in host]
            # Every row compiles the same lambda: without a reset, dynamo's
            # limit of recompiles per code object would leave later rows
            # running eagerly.
            torch._dynamo.reset()
            compiled = torch.compile(lambda *t: case.expr(torch, *t),
                                     dynamic=False)
        except Unavailable:
            raise
        except Exception as exc:
            raise Unavailable(reason(exc)) from exc
        read = {"array": lambda t: t.cpu().numpy(), "float": float,
                "int": int}[case.read]
        return Runner(lambda: compiled(*tensors), torch.cuda.synchronize,
                      read)
    return setup


# --------------------------------------------------------------------------
# Driver


def fmt_time(seconds):
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    return f"{seconds * 1e3:.3f} ms"


class Notes:
    """Why cells are n/a or WRONG, numbered, printed under the table; a
    backend that is unavailable for one reason everywhere gets one note."""

    def __init__(self):
        self.lines = []
        self.numbers = {}
        self.wrong = False

    def add(self, label, where, exc):
        if isinstance(exc, WrongResult):
            self.wrong = True
            self.lines.append(f"  [{len(self.lines) + 1}] {label} {where}: "
                              f"{reason(exc)}")
            return f"WRONG [{len(self.lines)}]"
        why = str(exc) if isinstance(exc, Unavailable) else reason(exc)
        if (label, why) not in self.numbers:
            self.lines.append(f"  [{len(self.lines) + 1}] {label}, first "
                              f"at {where}: {why}")
            self.numbers[label, why] = len(self.lines)
        return f"n/a [{self.numbers[label, why]}]"


def measure_row(case, size, backends, args, notes, rng):
    """{backend label: median seconds, or the text of its cell}. Small
    rows time the expression with its read back to the host; large ones
    the expression and the backend's wait for its device."""
    small = size == SMALL
    host = make_inputs(case, size, rng)
    want = reference(case, host)
    cells, timed = {}, {}
    for label, setup in backends:
        try:
            runner = setup(case, host)
            if runner is None:
                cells[label] = "-"
                continue
            got = runner.to_host(runner.run())    # compiles, first touch
            check(case, got, want, host)

            def once(r=runner):
                if small:
                    # A burst in a row: the cost of one expression once
                    # the library runs, not of waking it after another
                    # library's threads (numba's spin a while after each
                    # call, and took half the CPU from the next backend).
                    for _ in range(BURST - 1):
                        r.to_host(r.run())
                    return r.to_host(r.run())
                result = r.run()
                r.sync()
                return result

            def settle(r=runner):
                # Every row starts once no other library's threads spin on
                # (timing.wait_until_quiet; numba's TBB workers spin 8-9
                # ms after each call): small rows too, whose bursts had
                # run beside numba's spinning workers (NumPy's a*b +
                # sqrt(a) - 1 at n = 1000: 3.6 us alone, 4.3-9.1 us in
                # the table; spirjit's 11.5 alone, 28.0).
                wait_until_quiet()
                # Large rows: one untimed call first, so that the timed one
                # finds its own library's threads awake and its own inputs
                # in the caches, as in a program that uses one library.
                # Interleaved rounds otherwise timed each library right
                # after another: numba's OpenMP threads spin a while after
                # each call and took the cores from the next library
                # (Intel's runtime, argmax of 2^20 float32: 143 us alone,
                # 321 us right after numba), and the previous library's
                # inputs had pushed this one's out of the caches.
                # The result is held until the wait: a lazy library
                # (spirjit's DeviceArrays) evaluates nothing that no one
                # holds, and this call had settled nothing for it.
                if small:  # (the burst's first calls woke the cores)
                    for _ in range(BURST):
                        r.to_host(r.run())
                else:
                    result = r.run()
                    r.sync()
                    del result

            for _ in range(args.warmup):
                once()
            timed[label] = (once, runner, settle)
        except Exception as exc:
            cells[label] = notes.add(label, f"{case.name} n={size}", exc)
    samples = {label: [] for label in timed}
    # Interleaved rounds: load that comes and goes on a shared machine
    # falls on every backend alike, and the ratios hold.
    for _ in range(args.reps * (5 if small else 1)):
        for label, (once, _, settle) in list(timed.items()):
            try:
                settle()
                start = time.perf_counter()
                once()
                samples[label].append((time.perf_counter() - start) /
                                      (BURST if small else 1))
            except Exception as exc:
                cells[label] = notes.add(label, f"{case.name} n={size}", exc)
                del timed[label]
    for label, (_, runner, _) in timed.items():
        try:  # still right after the timed runs?
            check(case, runner.to_host(runner.run()), want, host)
            cells[label] = statistics.median(samples[label])
        except Exception as exc:
            cells[label] = notes.add(label, f"{case.name} n={size}", exc)
    return cells


def run_table(kind, title, backends, sizes, grid, args):
    """One device's table; returns whether every result was right."""
    labels = [label for label, _ in backends]
    others = labels[1:] if kind == "cpu" else ["CuPy"]
    headers = ["case", "n"] + labels + [f"vs {o}" for o in others] + \
        ["target", "now", "met"]
    rows, notes = [], Notes()
    rng = np.random.default_rng(0)
    for case in CASES:
        if args.case and case.name not in args.case:
            continue
        for size in ([grid] if case.inputs == 0 else sizes + [SMALL]):
            cells = measure_row(case, size, backends, args, notes, rng)
            ours = cells.get("spirjit")
            row = [case.label, f"{size}^2" if case.inputs == 0 else str(size)]
            row += [fmt_time(cells[lb]) if isinstance(cells[lb], float)
                    else cells[lb] for lb in labels]
            row += [f"{ours / cells[o]:.2f}x"
                    if isinstance(ours, float) and isinstance(cells.get(o),
                                                              float)
                    else "-" for o in others]
            target = target_for(kind, case, size == SMALL)
            judged = target.judge(cells) if target else None
            row += [target.text() if target else "-",
                    judged[0] if judged else "-",
                    ("yes" if judged[1] else "no") if judged else "-"]
            rows.append(row)
    print(f"\n== {title}")
    print_table(headers, rows)
    for line in notes.lines:
        print(line)
    return not notes.wrong


def selected_devices(prefix):
    try:
        found = spirjit.devices()
    except Exception as exc:  # noqa: BLE001 (no runtime: say so, no tables)
        print(f"spirjit.devices() failed: {reason(exc)}")
        return []
    return [d for d in found if d.filter_string.startswith(prefix or "")]


def versions_line():
    parts = [f"python {platform.python_version()}", f"numpy {np.__version__}",
             f"spirjit {spirjit.__version__}"]
    for name in ("numba", "cupy", "torch"):
        module = sys.modules.get(name)
        if module is not None:
            parts.append(f"{name} {getattr(module, '__version__', '?')}")
    return ", ".join(parts)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="tiny sizes and few repeats: a smoke run")
    parser.add_argument("--device", default=None,
                        help="only devices whose filter string starts so")
    parser.add_argument("--reps", type=int, default=None,
                        help="timed rounds (default 20, --quick 3; n = 1000 "
                        "rows take 5x as many)")
    parser.add_argument("--warmup", type=int, default=None,
                        help="untimed runs first (default 3, --quick 1)")
    parser.add_argument("--case", action="append",
                        choices=[case.name for case in CASES],
                        help="only this case's rows (repeatable)")
    parser.add_argument("--no-torch", action="store_true",
                        help="leave out torch.compile (its compiles take "
                        "minutes)")
    args, _ = parser.parse_known_args(argv)  # run_all passes --png-dir
    args.reps = args.reps or (3 if args.quick else 20)
    args.warmup = args.warmup if args.warmup is not None else (
        1 if args.quick else 3)
    print(f"DeviceArrays against array libraries, float32, "
          f"{time.strftime('%Y-%m-%d')}, host {platform.node()} "
          f"({os.cpu_count()} logical CPUs); medians of {args.reps} "
          f"interleaved rounds after {args.warmup} warm-up runs")
    print(f"large rows: the expression and the wait for the device, "
          f"each timed call right after an untimed one of the same "
          f"library; "
          f"n = {SMALL}: the expression and its read back to the host, "
          f"mean of {BURST} in a row")
    ok = True
    devices = selected_devices(args.device)
    if not devices:
        print(f"\nno spirjit device matches '{args.device or ''}'")
    for device in devices:
        backend = getattr(device, "backend", "")
        force, how = spirjit_forcing(device)
        title = f"{device.filter_string} {device.name} " \
            f"({getattr(device, 'platform', backend)})"
        if backend in ("opencl", "native") and device.device_type == "cpu":
            sizes, grid = ([1 << 12], 64) if args.quick else \
                ([1 << 20, 1 << 22], 2048)
            note = "" if device.platform in ("Intel(R) OpenCL",
                                             "spirjit native") else \
                "; the CPU targets are stated for Intel's runtime"
            print(f"\n{title}: against NumPy and numba on this host; "
                  f"spirjit forcing: {how}{note}")
            ok &= run_table("cpu", title, cpu_backends(device, force), sizes,
                            grid, args)
        elif backend == "cuda":
            try:
                import cupy  # noqa: F401
            except Exception as exc:  # noqa: BLE001
                print(f"\n{title}: skipped, CuPy does not import "
                      f"({reason(exc)})")
                continue
            index = int(device.filter_string.rsplit(":", 1)[1])
            sizes, grid = ([1 << 14], 128) if args.quick else \
                ([1 << 24, 1 << 26], 4096)
            print(f"\n{title}: against CuPy and torch.compile; spirjit "
                  f"forcing: {how}")
            if args.no_torch:
                print("torch.compile left out (--no-torch)")
            ok &= run_table("cuda", title,
                            cuda_backends(index, device, force,
                                          not args.no_torch), sizes, grid,
                            args)
        else:
            print(f"\n{title}: no libraries to compare with on this kind "
                  "of device; skipped")
    print("\n" + versions_line())
    return 0 if ok else 1


def _standalone(argv):
    """run_all.py's hook: the whole report with its defaults."""
    main(argv)


STANDALONE = [_standalone]

if __name__ == "__main__":
    sys.exit(main())
