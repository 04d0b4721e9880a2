#!/usr/bin/env python3
"""Vector add benchmark: c = a + b, float32 and float64, side by side.

Backends (each timed on data already resident where it computes):
  spirjit      spirjit.call_kernel on DeviceArrays, once per CPU OpenCL
               runtime present ([Intel], [PoCL]; the default device first),
               and on spirjit's own native CPU device ([native]) where
               SPIRJIT_NATIVE=1 lists it
  OpenCL C     the same kernel in OpenCL C via pyopencl on the same runtime
  numba        @njit(parallel=True) with prange into a preallocated output
  NumPy        np.add(a, b, out=c)

Every result is checked against NumPy before timing.  A backend that cannot
be imported or set up is shown as "unavailable: <reason>" instead of
stopping the script.  Ratios are relative to the OpenCL C row of the same
runtime; after each table, one line compares spirjit on the default device
with numba parallel.

    python benchmarks/bench_vecadd.py [--n N] [--reps R] [--warmup W]

Exit status: 0, or 1 if a backend produced a wrong result (or, with
--strict, if spirjit is unavailable or slower than --max-ratio x OpenCL C).

New benchmarks: write a make_inputs / reference pair and a list of
Backend(label, setup) entries, wrap them in a Benchmark and add it to
BENCHMARKS (or to a bench_*.py of their own that imports these helpers and
calls run_main; see bench_blackscholes.py).  benchmarks/run_all.py runs every
bench_*.py's BENCHMARKS in one process.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass, field
from typing import Callable

from timing import wait_until_quiet

try:
    import numpy as np
except ImportError:  # the reference for every check: required
    sys.exit("bench_vecadd.py needs numpy (pip install numpy)")

# Compile times are part of the report: measure real compilations, not
# hits in the on-disk kernel cache (bench_dispatch.py measures the cache).
os.environ.setdefault("SPIRJIT_DISABLE_CACHE", "1")

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REFERENCE = "OpenCL C"          # the row ratios are taken against
POCL_PLATFORM = "Portable Computing Language"


# --------------------------------------------------------------------------
# shared helpers


def timeit_median(fn: Callable[[], object], reps: int = 20, warmup: int = 3):
    """Run fn warmup times untimed, then reps times; return (median, min) in s."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times)


class Span(str):
    """A table cell that takes the place of all cells after the first."""


def print_table(headers, rows, out=sys.stdout):
    """rows: lists of len(headers) strings, or [first_cell, Span(text)]."""
    widths = [len(h) for h in headers]
    for row in rows:
        if len(row) == 2 and isinstance(row[1], Span):
            widths[0] = max(widths[0], len(row[0]))
            continue
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))

    def fmt(cells):
        parts = [cells[0].ljust(widths[0])]
        parts += [c.rjust(w) for c, w in zip(cells[1:], widths[1:])]
        return " | ".join(parts).rstrip()

    print(fmt(headers), file=out)
    print("-+-".join("-" * w for w in widths), file=out)
    for row in rows:
        if len(row) == 2 and isinstance(row[1], Span):
            print(row[0].ljust(widths[0]) + " | " + row[1], file=out)
        else:
            print(fmt(row), file=out)


def reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return type(exc).__name__ + (": " + text[0] if text else "")


class Unavailable(Exception):
    """A backend cannot run here; the message says why."""


class WrongResult(Exception):
    """A backend ran but its result differs from NumPy's."""


def check_equal(got, want, label):
    got = np.asarray(got)
    if got.shape != want.shape or got.dtype != want.dtype:
        raise WrongResult(f"{label}: got {got.dtype}{got.shape}, "
                          f"want {want.dtype}{want.shape}")
    if not np.array_equal(got, want):
        bad = np.flatnonzero(got != want)
        i = int(bad[0])
        raise WrongResult(f"{label}: {bad.size} elements differ, first at "
                          f"[{i}]: {got[i]!r} != {want[i]!r}")


def check_close(got, want, label, rtol, atol):
    """got (dtype of the run) against a float64 want: |got - want| <=
    atol + rtol * |want| everywhere, and no NaN where want has none."""
    got = np.asarray(got)
    if got.shape != want.shape:
        raise WrongResult(f"{label}: got shape {got.shape}, want {want.shape}")
    g = got.astype(np.float64)
    err = np.abs(g - want)
    bad = ~(err <= atol + rtol * np.abs(want))     # NaN counts as bad
    if bad.any():
        idx = np.flatnonzero(bad)
        i = int(idx[0])
        raise WrongResult(f"{label}: {idx.size} elements off by more than "
                          f"{atol:g} + {rtol:g}*|ref|, first at [{i}]: "
                          f"{got[i]!r} vs {want[i]!r}")


@dataclass
class Case:
    """One backend set up for one input: run() is what gets timed."""
    run: Callable[[], object]
    result: Callable[[], np.ndarray]
    close: Callable[[], None] = lambda: None
    notes: dict = field(default_factory=dict)   # printed after the table


@dataclass
class Backend:
    label: str
    setup: Callable[[dict, np.dtype], Case]     # (inputs, dtype) -> Case


def check_exact(got, want, label, dtype):
    """The default Benchmark.check: bit for bit, one array or a tuple."""
    if isinstance(want, tuple):
        for k, (g, w) in enumerate(zip(got, want)):
            check_equal(g, w, f"{label} output {k}")
    else:
        check_equal(got, want, label)


@dataclass
class Benchmark:
    name: str
    make_inputs: Callable[[int, np.dtype, np.random.Generator], dict]
    reference: Callable[[dict], object]      # ndarray or tuple of ndarrays
    backends: list
    dtypes: tuple = (np.float32, np.float64)
    n: int = 2 ** 24                         # default problem size
    # check(got, want, label, dtype) raises WrongResult; got is Case.result()
    check: Callable = check_exact


# --------------------------------------------------------------------------
# optional imports (never fatal)

def _import_spirjit():
    try:
        import spirjit  # noqa: F401
    except ImportError as first:
        # Not installed: try the in-tree package (python/spirjit).
        path = os.path.join(REPO_ROOT, "python")
        if os.path.isdir(os.path.join(path, "spirjit")) and path not in sys.path:
            sys.path.insert(0, path)
            try:
                import spirjit  # noqa: F401,F811
            except Exception as exc:
                sys.path.remove(path)
                raise Unavailable(reason(exc)) from exc
        else:
            raise Unavailable(reason(first)) from first
    except Exception as exc:
        raise Unavailable(reason(exc)) from exc
    import spirjit
    if getattr(spirjit, "__file__", None) is None:
        where = ", ".join(getattr(spirjit, "__path__", [])) or "?"
        raise Unavailable(f"spirjit is an empty namespace package ({where}): "
                          "not built or not installed")
    try:
        from spirjit import kernel_api as kapi
    except Exception as exc:
        raise Unavailable(reason(exc)) from exc
    for name in ("kernel", "asarray", "asnumpy", "call_kernel"):
        if not hasattr(spirjit, name):
            raise Unavailable(f"spirjit has no attribute {name!r}")
    return spirjit, kapi


def _import_pyopencl():
    try:
        import pyopencl as cl
    except Exception as exc:
        raise Unavailable(reason(exc)) from exc
    return cl


# The CPU OpenCL runtimes the spirjit and OpenCL C rows run on, each once:
# (short name, OpenCL platform name).
RUNTIMES = (("Intel", "Intel(R) OpenCL"), ("PoCL", POCL_PLATFORM))
# spirjit's own native CPU device (native:cpu:0, listed with
# SPIRJIT_NATIVE=1): spirjit rows only, compared with OpenCL C on Intel's
# runtime, the fastest CPU code the machine has.
NATIVE = "native"
NATIVE_REFERENCE = "Intel"
# The runtime the setup or run in progress is for (per_runtime() sets it).
_CURRENT = {"runtime": "PoCL"}
_CONTEXTS = {}


def cpu_runtimes():
    """[(short name, spirjit filter string or None)] of the runtimes present,
    the one of spirjit's default device first. spirjit is imported first:
    importing it registers Intel's runtime from the Python environment with
    the OpenCL loader, which pyopencl then sees too."""
    found = {}
    default = None
    native = None
    try:
        spirjit, _ = _import_spirjit()
        default = spirjit.default_device()
        for d in spirjit.devices():
            for short, plat in RUNTIMES:
                if d.device_type == "cpu" and d.platform == plat:
                    found.setdefault(short, d.filter_string)
            if d.backend == NATIVE and native is None:
                native = d.filter_string
    except Exception:
        pass
    try:
        for p in _import_pyopencl().get_platforms():
            for short, plat in RUNTIMES:
                if plat in p.name:
                    found.setdefault(short, None)
    except Exception:
        pass
    order = [s for s, plat in RUNTIMES
             if default is not None and default.platform == plat]
    order += [s for s, _ in RUNTIMES if s not in order]
    present = [(s, found[s]) for s in order if s in found]
    return present + ([(NATIVE, native)] if native else [])


def opencl_context():
    """(cl, context, queue, device) for the current runtime's CPU device,
    created once per runtime."""
    name = _CURRENT["runtime"]
    if name == NATIVE:
        raise Unavailable("spirjit's native CPU device runs no OpenCL C")
    if name not in _CONTEXTS:
        cl = _import_pyopencl()
        plat_name = dict(RUNTIMES)[name]
        try:
            plats = [p for p in cl.get_platforms() if plat_name in p.name]
        except Exception as exc:
            raise Unavailable(reason(exc)) from exc
        if not plats:
            raise Unavailable(f"no OpenCL platform named '{plat_name}'")
        dev = plats[0].get_devices()[0]
        ctx = cl.Context([dev])
        _CONTEXTS[name] = (cl, ctx, cl.CommandQueue(ctx), dev)
    return _CONTEXTS[name]


def runs_per_runtime(label):
    """spirjit's rows and the OpenCL C reference run on every runtime."""
    return label.startswith("spirjit") or label == REFERENCE


def per_runtime(setup, runtime, device_filter, needs_spirjit):
    """setup, made to run (and its Case to run) on one runtime: the OpenCL
    C rows through opencl_context(), spirjit's through SPIRJIT_DEVICE."""
    def enter():
        _CURRENT["runtime"] = runtime
        if device_filter is not None:
            os.environ["SPIRJIT_DEVICE"] = device_filter

    def wrapped(inputs, dtype):
        enter()
        if device_filter is None and needs_spirjit:
            raise Unavailable(f"spirjit sees no {runtime} device")
        case = setup(inputs, dtype)
        inner = case.run

        def run():
            enter()
            return inner()

        case.run = run
        return case

    return wrapped


# --------------------------------------------------------------------------
# vector add

def vecadd_inputs(n, dtype, rng):
    a = rng.random(n, dtype=np.float64).astype(dtype)
    b = rng.random(n, dtype=np.float64).astype(dtype)
    return {"a": a, "b": b}


def vecadd_reference(inputs):
    return inputs["a"] + inputs["b"]


def make_spirjit_vecadd(spirjit, kapi):
    # A new kernel object per call (one per dtype), so that each dtype's
    # .stats describe its own first compiled specialisation.
    @spirjit.kernel
    def vecadd(item: kapi.Item, a, b, c):
        i = item.get_id(0)
        c[i] = a[i] + b[i]

    return vecadd


def spirjit_first_call(kern, run):
    """Runs run() once (compile + build + launch) and returns the notes:
    its wall time and kern.stats' compile_seconds / device_build_seconds."""
    t0 = time.perf_counter()
    try:
        run()
    except Exception as exc:
        raise Unavailable("first call: " + reason(exc)) from exc
    first = time.perf_counter() - t0
    stats = dict(getattr(kern, "stats", None) or {})
    missing = f"missing from {getattr(kern, '__name__', 'kernel')}.stats"
    notes = {"first call (incl. compile + build)": first}
    for key, label in (("compile_seconds",
                        "our compile time (bytecode -> validated SPIR-V)"),
                       ("device_build_seconds", "device program build time")):
        notes[label] = stats.get(key, missing)
    notes["compiles"] = str(stats.get("compiles", missing))
    return notes


def setup_vecadd_spirjit(inputs, dtype):
    spirjit, kapi = _import_spirjit()
    a, b = inputs["a"], inputs["b"]
    n = a.size
    try:
        kern = make_spirjit_vecadd(spirjit, kapi)
        da, db = spirjit.asarray(a), spirjit.asarray(b)
        dc = spirjit.asarray(np.zeros_like(a))
        rng = kapi.Range(n)
    except Exception as exc:
        raise Unavailable(reason(exc)) from exc

    def run():
        spirjit.call_kernel(kern, rng, da, db, dc)

    notes = spirjit_first_call(kern, run)
    return Case(run=run, result=lambda: spirjit.asnumpy(dc), notes=notes)


def setup_vecadd_spirjit_numpy(inputs, dtype):
    """The same kernel launched on NumPy arrays: on PoCL's host-unified
    memory they are used in place, so this row should cost about what the
    DeviceArray row costs (target: at most 1.2x)."""
    spirjit, kapi = _import_spirjit()
    a, b = inputs["a"], inputs["b"]
    try:
        kern = make_spirjit_vecadd(spirjit, kapi)
        c = np.zeros_like(a)
        rng = kapi.Range(a.size)
    except Exception as exc:
        raise Unavailable(reason(exc)) from exc

    def run():
        spirjit.call_kernel(kern, rng, a, b, c)

    run()
    return Case(run=run, result=lambda: c.copy())


OPENCL_C_SRC = """
{pragma}
__kernel void vecadd(__global const {T} *a, __global const {T} *b,
                     __global {T} *c)
{{
    size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}}
"""


def setup_vecadd_opencl_c(inputs, dtype):
    cl, ctx, queue, dev = opencl_context()
    a, b = inputs["a"], inputs["b"]
    n = a.size
    if dtype == np.float64:
        if "cl_khr_fp64" not in dev.extensions:
            raise Unavailable("device has no cl_khr_fp64")
        src = OPENCL_C_SRC.format(
            pragma="#pragma OPENCL EXTENSION cl_khr_fp64 : enable", T="double")
    else:
        src = OPENCL_C_SRC.format(pragma="", T="float")
    t0 = time.perf_counter()
    prg = cl.Program(ctx, src).build()
    build = time.perf_counter() - t0
    knl = prg.vecadd
    mf = cl.mem_flags
    da = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
    db = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=b)
    dc = cl.Buffer(ctx, mf.WRITE_ONLY, a.nbytes)
    queue.finish()

    def run():
        knl(queue, (n,), None, da, db, dc)
        queue.finish()

    def result():
        out = np.empty_like(a)
        cl.enqueue_copy(queue, out, dc)
        queue.finish()
        return out

    def close():
        for buf in (da, db, dc):
            buf.release()

    return Case(run=run, result=result, close=close,
                notes={"build of OpenCL C source": build})


_NUMBA_VECADD = None


def setup_vecadd_numba(inputs, dtype):
    global _NUMBA_VECADD
    if _NUMBA_VECADD is None:
        try:
            from numba import njit, prange
        except Exception as exc:
            raise Unavailable(reason(exc)) from exc

        @njit(parallel=True)
        def vecadd_numba(a, b, c):
            for i in prange(a.shape[0]):
                c[i] = a[i] + b[i]

        _NUMBA_VECADD = vecadd_numba
    f = _NUMBA_VECADD
    a, b = inputs["a"], inputs["b"]
    c = np.empty_like(a)
    t0 = time.perf_counter()
    f(a, b, c)
    first = time.perf_counter() - t0
    return Case(run=lambda: f(a, b, c), result=lambda: c,
                notes={"first call (incl. numba compile)": first})


def setup_vecadd_numpy(inputs, dtype):
    a, b = inputs["a"], inputs["b"]
    c = np.empty_like(a)
    return Case(run=lambda: np.add(a, b, out=c), result=lambda: c)


VECADD = Benchmark(
    name="vecadd c = a + b",
    make_inputs=vecadd_inputs,
    reference=vecadd_reference,
    backends=[
        Backend("spirjit", setup_vecadd_spirjit),
        Backend("spirjit NumPy args", setup_vecadd_spirjit_numpy),
        Backend(REFERENCE, setup_vecadd_opencl_c),
        Backend("numba parallel", setup_vecadd_numba),
        Backend("NumPy", setup_vecadd_numpy),
    ],
)

BENCHMARKS = [VECADD]


# --------------------------------------------------------------------------
# driver

@dataclass
class Cell:
    median: float | None = None
    best: float | None = None
    error: str | None = None      # "unavailable: ..." or "WRONG: ..."
    notes: dict = field(default_factory=dict)


def expand_backends(backends, runtimes):
    """Each spirjit and OpenCL C backend once per runtime, labelled
    "spirjit [Intel]"; the others (numba, NumPy) once."""
    out = []
    for be in backends:
        if runs_per_runtime(be.label) and runtimes:
            out += [Backend(f"{be.label} [{name}]",
                            per_runtime(be.setup, name, device_filter,
                                        be.label.startswith("spirjit")))
                    for name, device_filter in runtimes
                    if name != NATIVE or be.label != REFERENCE]
        else:
            out.append(be)
    return out


def run_benchmark(bench: Benchmark, n, reps, warmup, seed=0, runtimes=()):
    """Return {label: {dtype_name: Cell}}.

    All backends of one dtype are set up first, then timed in interleaved
    rounds (one run of each per round), so load that comes and goes on this
    noisy machine lands on every backend alike and the ratios stay fair."""
    backends = expand_backends(bench.backends, runtimes)
    results = {be.label: {} for be in backends}
    for dtype in bench.dtypes:
        dname = np.dtype(dtype).name
        inputs = bench.make_inputs(n, np.dtype(dtype), np.random.default_rng(seed))
        want = bench.reference(inputs)
        cases = {}

        def fail(label, exc):
            cell = results[label][dname]
            if isinstance(exc, Unavailable):
                cell.error = f"unavailable: {exc}"
            elif isinstance(exc, WrongResult):
                cell.error = f"WRONG: {exc}"
            else:  # a crash inside a backend: report it
                cell.error = f"error: {reason(exc)}"
            case = cases.pop(label, None)
            if case is not None:
                try:
                    case.close()
                except Exception:
                    pass

        for be in backends:
            cell = results[be.label][dname] = Cell()
            try:
                case = cases[be.label] = be.setup(inputs, np.dtype(dtype))
                cell.notes = case.notes
                case.run()
                bench.check(case.result(), want, f"{be.label} {dname}",
                            np.dtype(dtype))
                for _ in range(warmup):
                    case.run()
            except Exception as exc:
                fail(be.label, exc)
        times = {label: [] for label in cases}
        for _ in range(reps):
            for label, case in list(cases.items()):
                try:
                    wait_until_quiet()  # no other library's threads spin
                    t0 = time.perf_counter()
                    case.run()
                    times[label].append(time.perf_counter() - t0)
                except Exception as exc:
                    fail(label, exc)
        for label, case in list(cases.items()):
            cell = results[label][dname]
            try:
                # still right after the timed runs?
                bench.check(case.result(), want, f"{label} {dname}",
                            np.dtype(dtype))
                cell.median = statistics.median(times[label])
                cell.best = min(times[label])
            except Exception as exc:
                fail(label, exc)
                continue
            try:
                case.close()
            except Exception:
                pass
        del cases, inputs, want
        gc.collect()
    return results


def fmt_seconds(v):
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return f"{v * 1e3:.2f} ms"
    return str(v)


def _runtime_of(label):
    """"Intel" for "spirjit [Intel]", None for rows run once."""
    if label.endswith("]") and " [" in label:
        return label[label.rindex(" [") + 2:-1]
    return None


def report(bench: Benchmark, results, n, reps, warmup, max_ratio,
           runtimes=()):
    """Prints the table and its check lines; returns (ok, wrong, summary):
    summary is the line comparing spirjit on the default device with numba.
    Each row's ratio is against OpenCL C on the same runtime; rows run once
    (numba, NumPy) are compared with OpenCL C on the default device's."""
    dnames = [np.dtype(d).name for d in bench.dtypes]
    default_rt = runtimes[0][0] if runtimes else None

    def reference_runtime(rt):
        return NATIVE_REFERENCE if rt == NATIVE else rt

    def reference_of(label):
        rt = reference_runtime(_runtime_of(label) or default_rt)
        return results.get(f"{REFERENCE} [{rt}]" if rt else REFERENCE, {})

    headers = ["backend"]
    for d in dnames:
        headers += [f"{d} median ms", f"{d} min ms", f"{d} / {REFERENCE}"]
    rows = []
    for label, cells in results.items():
        errors = {c.error for c in cells.values() if c.error}
        if errors and all(c.error for c in cells.values()) and len(errors) == 1:
            rows.append([label, Span(errors.pop())])
            continue
        row = [label]
        ref = reference_of(label)
        for d in dnames:
            c = cells[d]
            if c.error:
                row += ["n/a", "n/a", "n/a"]
                continue
            r = ref.get(d)
            ratio = (f"{c.median / r.median:.2f}x"
                     if r is not None and r.median else "n/a")
            row += [f"{c.median * 1e3:.2f}", f"{c.best * 1e3:.2f}", ratio]
        rows.append(row)
    print(f"\n== {bench.name}: n = {n}, median of {reps} runs after "
          f"{warmup} warm-up runs, backends interleaved (wall time, perf_counter)")
    if default_rt:
        print(f"   [runtime]: the CPU OpenCL runtime a row ran on; ratios "
              f"against {REFERENCE} on the same runtime ({REFERENCE} "
              f"[{default_rt}] for rows without one"
              + (f"; [{NATIVE}]: spirjit's native CPU device, against "
                 f"{REFERENCE} [{NATIVE_REFERENCE}]"
                 if any(name == NATIVE for name, _ in runtimes) else "")
              + ")")
    print_table(headers, rows)

    # errors for single dtypes, then per-backend notes
    for label, cells in results.items():
        for d in dnames:
            c = cells[d]
            if c.error and not all(x.error == c.error for x in cells.values()):
                print(f"  {label} {d}: {c.error}")
    for label, cells in results.items():
        keys = []
        for d in dnames:
            for k in cells[d].notes:
                if k not in keys:
                    keys.append(k)
        for k in keys:
            vals = ", ".join(f"{d} {fmt_seconds(cells[d].notes[k])}"
                             for d in dnames if k in cells[d].notes)
            print(f"  {label}: {k}: {vals}")

    # the spirjit acceptance lines, one per runtime
    all_ok = True
    for rt in [name for name, _ in runtimes] or [None]:
        suffix = f" [{rt}]" if rt else ""
        ref_rt = reference_runtime(rt)
        sj = results.get("spirjit" + suffix, {})
        ref = results.get(REFERENCE + (f" [{ref_rt}]" if ref_rt else ""), {})
        ratios, why = [], None
        for d in dnames:
            c, r = sj.get(d), ref.get(d)
            if c is None or c.error:
                why = c.error if c is not None else "not run"
                break
            if r is None or r.error or not r.median:
                why = f"{REFERENCE} {d} " + (r.error if r is not None
                                             else "not run")
                break
            ratios.append((d, c.median / r.median))
        if why is None:
            ok = all(x <= max_ratio for _, x in ratios)
            detail = ", ".join(f"{d} {x:.2f}" for d, x in ratios)
            print(f"spirjit{suffix} / OpenCL C [{ref_rt}] ratio <= "
                  f"{max_ratio:g}: {'yes' if ok else 'no'} ({detail})"
                  if rt == NATIVE else
                  f"spirjit / OpenCL C{suffix} ratio <= {max_ratio:g}: "
                  f"{'yes' if ok else 'no'} ({detail})")
        else:
            ok = False
            print(f"spirjit / OpenCL C{suffix} ratio <= {max_ratio:g}: "
                  f"no ({why})")
        # The native device is opt-in and not yet held to the bar.
        all_ok &= ok or rt == NATIVE
    summary = numba_summary(bench, results, dnames, default_rt)
    print(summary)
    wrong = any(c.error and c.error.startswith("WRONG")
                for cells in results.values() for c in cells.values())
    return all_ok, wrong, summary


def numba_summary(bench, results, dnames, default_rt):
    """One line: spirjit on the default device against numba parallel
    (time ratio; below 1 is faster), per dtype; where a benchmark has a
    "spirjit CPU-style" row too, a second line for it."""
    lines = [_numba_line(bench, results, dnames, default_rt, "spirjit")]
    if any(label.startswith("spirjit CPU-style") for label in results):
        lines.append(_numba_line(bench, results, dnames, default_rt,
                                 "spirjit CPU-style"))
    return "\n".join(lines)


def _numba_line(bench, results, dnames, default_rt, label):
    sj = results.get(f"{label} [{default_rt}]" if default_rt else label, {})
    nb = results.get("numba parallel", {})
    parts = []
    for d in dnames:
        c, r = sj.get(d), nb.get(d)
        if c is None or c.error or r is None or r.error or not r.median:
            parts.append(f"{d} n/a")
            continue
        verdict = "faster" if c.median <= r.median else "SLOWER"
        parts.append(f"{d} {c.median * 1e3:.2f} vs {r.median * 1e3:.2f} ms, "
                     f"{c.median / r.median:.2f}x, {verdict}")
    where = f"default device, {default_rt}" if default_rt else "default device"
    return (f"{bench.name.split()[0]}: {label} ({where}) vs numba parallel: "
            + "; ".join(parts))


def versions_line():
    parts = [f"python {platform.python_version()}", f"numpy {np.__version__}"]
    for mod in ("spirjit", "pyopencl", "numba"):
        m = sys.modules.get(mod)
        if m is not None and getattr(m, "__file__", None):
            parts.append(f"{mod} {getattr(m, '__version__', getattr(m, 'VERSION_TEXT', '?'))}")
    return ", ".join(parts)



@contextlib.contextmanager
def spirjit_device_kept():
    """Puts SPIRJIT_DEVICE back as it was: per-runtime rows change it."""
    chosen = os.environ.get("SPIRJIT_DEVICE")
    try:
        yield
    finally:
        if chosen is None:
            os.environ.pop("SPIRJIT_DEVICE", None)
        else:
            os.environ["SPIRJIT_DEVICE"] = chosen


def run_main(benchmarks, argv=None, description=None, header=None):
    """The command line shared by every bench_*.py and run_all.py: runs
    benchmarks, prints their tables, returns the exit status."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--n", type=int, default=None,
                   help="elements (default: each benchmark's own, "
                   + ", ".join(f"{b.name.split()[0]} {b.n}" for b in benchmarks)
                   + ")")
    p.add_argument("--reps", type=int, default=20, help="timed repetitions")
    p.add_argument("--warmup", type=int, default=3, help="untimed runs first")
    p.add_argument("--max-ratio", type=float, default=1.15,
                   help="spirjit / OpenCL C threshold for the check line")
    p.add_argument("--png-dir", default=None,
                   help="also write a PNG chart per table into this folder")
    p.add_argument("--strict", action="store_true",
                   help="exit 1 unless the spirjit check line says yes")
    args = p.parse_args(argv)

    if header:
        print(header)
    print(f"host: {platform.node()}, {os.cpu_count()} logical CPUs, "
          f"{platform.machine()}")
    runtimes = cpu_runtimes()
    for name, device_filter in runtimes:
        _CURRENT["runtime"] = name
        try:
            _, _, _, dev = opencl_context()
            where = f"{dev.name} ({dev.platform.name}, " \
                    f"{dev.max_compute_units} compute units)"
        except Unavailable as exc:
            where = f"OpenCL C unavailable: {exc}"
        if name == NATIVE:
            where = "spirjit's own host machine code, no OpenCL runtime"
        print(f"runtime [{name}]: {where}; spirjit device "
              f"{device_filter or 'none'}"
              + (" (the default)" if name == runtimes[0][0] else ""))
    if not runtimes:
        print("no CPU OpenCL runtime found: spirjit and OpenCL C rows "
              "are unavailable")

    all_ok, any_wrong, summaries = True, False, []
    with spirjit_device_kept():
        for bench in benchmarks:
            n = args.n if args.n is not None else bench.n
            results = run_benchmark(bench, n, args.reps, args.warmup,
                                    runtimes=runtimes)
            ok, wrong, summary = report(bench, results, n, args.reps,
                                        args.warmup, args.max_ratio, runtimes)
            summaries.append(summary)
            if args.png_dir:
                from charts import backends_chart
                path = backends_chart(args.png_dir, f"{bench.name}: n = {n}", {
                    label: {d: c.median for d, c in cells.items()
                            if c.median is not None}
                    for label, cells in results.items()})
                if path:
                    print(f"chart: {path}")
            all_ok &= ok
            any_wrong |= wrong
    if len(benchmarks) > 1:
        print("\n== summary: spirjit on the default device against numba "
              "parallel (median times)")
        for summary in summaries:
            for line in summary.splitlines():
                print("  " + line)
    print(versions_line())
    if any_wrong or (args.strict and not all_ok):
        return 1
    return 0


def main(argv=None):
    return run_main(BENCHMARKS, argv, __doc__.splitlines()[0])


if __name__ == "__main__":
    sys.exit(main())
