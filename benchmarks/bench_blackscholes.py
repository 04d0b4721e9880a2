#!/usr/bin/env python3
"""Black-Scholes benchmark: European call and put prices, float32 and float64.

n = 2**22 options.  S (spot) in [5, 30], K (strike) in [1, 100], T (years)
in [0.25, 10] are arrays; the rate R = 0.02 and the volatility V = 0.30 are
scalars of the arrays' dtype.  Every backend computes the same formulation:

    d1   = (log(S / K) + (R + 0.5 V^2) T) / (V sqrt(T))
    d2   = d1 - V sqrt(T)
    cnd(d) = 0.5 - y if d < 0 else 0.5 + y,   y = 0.5 erf(|d| / sqrt(2))
             (= 0.5 (1 + erf(d / sqrt(2))), with a branch, in a device
              function in spirjit and OpenCL C)
    KexpRT = K exp(-R T)
    call = S cnd(d1) - KexpRT cnd(d2)
    put  = KexpRT (1 - cnd(d2)) - S (1 - cnd(d1))

Backends (each timed on data already resident where it computes):
  spirjit      @spirjit.kernel + @spirjit.device_func cnd, on DeviceArrays
  OpenCL C     the same kernel in OpenCL C via pyopencl on the same runtime
               (spirjit and OpenCL C run on every CPU OpenCL runtime present)
               (float: 0.5f literals and float math; double: double)
  numba        @njit(parallel=True) with prange, constants of the dtype
  NumPy        vectorised, with scipy.special.erf (NumPy has no erf ufunc:
               "unavailable" without scipy)

Each result is checked against a float64 NumPy reference (erf via math.erf)
computed from the same inputs: float32 within 1e-4 + 1e-3*|ref|, float64
within 1e-9 + 1e-9*|ref|.  Ratios are relative to the OpenCL C row.

    python benchmarks/bench_blackscholes.py [--n N] [--reps R] [--warmup W]
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np

from bench_vecadd import (REFERENCE, Backend, Benchmark, Case, Unavailable,
                          WrongResult, _import_spirjit, check_close,
                          opencl_context, reason, run_main, spirjit_first_call)

RATE = 0.02
VOLATILITY = 0.30
RSQRT2 = 0.7071067811865476          # 1 / sqrt(2)
TOLERANCE = {                        # dtype name -> (rtol, atol)
    "float32": (1e-3, 1e-4),
    "float64": (1e-9, 1e-9),
}


# --------------------------------------------------------------------------
# inputs, reference, check

def bs_inputs(n, dtype, rng):
    return {
        "S": rng.uniform(5.0, 30.0, n).astype(dtype),
        "K": rng.uniform(1.0, 100.0, n).astype(dtype),
        "T": rng.uniform(0.25, 10.0, n).astype(dtype),
        "R": dtype.type(RATE),
        "V": dtype.type(VOLATILITY),
    }


def _bs_numpy(S, K, T, R, V, erf):
    """The formulation above, vectorised; erf is a callable on arrays."""
    sqrt_t = np.sqrt(T)
    d1 = (np.log(S / K) + (R + 0.5 * V * V) * T) / (V * sqrt_t)
    d2 = d1 - V * sqrt_t

    def cnd(d):
        y = 0.5 * erf(np.abs(d) * RSQRT2)
        return np.where(d < 0, 0.5 - y, 0.5 + y)

    c1, c2 = cnd(d1), cnd(d2)
    kexp = K * np.exp(-R * T)
    return S * c1 - kexp * c2, kexp * (1.0 - c2) - S * (1.0 - c1)


_math_erf = np.frompyfunc(math.erf, 1, 1)


def bs_reference(inputs):
    """float64, whatever the inputs' dtype (their values, widened)."""
    f64 = {k: np.float64(v) if np.ndim(v) == 0 else v.astype(np.float64)
           for k, v in inputs.items()}
    return _bs_numpy(f64["S"], f64["K"], f64["T"], f64["R"], f64["V"],
                     lambda x: _math_erf(x).astype(np.float64))


def bs_check(got, want, label, dtype):
    rtol, atol = TOLERANCE[dtype.name]
    for name, g, w in zip(("call", "put"), got, want):
        g = np.asarray(g)
        if g.dtype != dtype:
            raise WrongResult(f"{label} {name}: result dtype {g.dtype}, "
                              f"want {dtype}")
        check_close(g, w, f"{label} {name}", rtol, atol)


# --------------------------------------------------------------------------
# spirjit

def make_spirjit_bs(spirjit, kapi):
    # A new kernel object per call (one per dtype), so that each dtype's
    # .stats describe its own first compiled specialisation.  Python float
    # literals are weak (NEP 50): with float32 arrays and float32 R, V the
    # arithmetic stays float32.
    @spirjit.device_func
    def cnd(d):
        y = 0.5 * math.erf(abs(d) * RSQRT2)
        if d < 0:
            return 0.5 - y
        return 0.5 + y

    @spirjit.kernel
    def blackscholes(item: kapi.Item, S, K, T, R, V, call, put):
        i = item.get_id(0)
        s = S[i]
        k = K[i]
        t = T[i]
        sqrt_t = math.sqrt(t)
        d1 = (math.log(s / k) + (R + 0.5 * V * V) * t) / (V * sqrt_t)
        d2 = d1 - V * sqrt_t
        c1 = cnd(d1)
        c2 = cnd(d2)
        kexp = k * math.exp(-R * t)
        call[i] = s * c1 - kexp * c2
        put[i] = kexp * (1.0 - c2) - s * (1.0 - c1)

    return blackscholes


def setup_bs_spirjit(inputs, dtype):
    spirjit, kapi = _import_spirjit()
    n = inputs["S"].size
    try:
        kern = make_spirjit_bs(spirjit, kapi)
        dS, dK, dT = (spirjit.asarray(inputs[k]) for k in "SKT")
        dcall = spirjit.asarray(np.zeros(n, dtype))
        dput = spirjit.asarray(np.zeros(n, dtype))
        rng = kapi.Range(n)
    except Exception as exc:
        raise Unavailable(reason(exc)) from exc
    R, V = inputs["R"], inputs["V"]          # NumPy scalars of dtype

    def run():
        spirjit.call_kernel(kern, rng, dS, dK, dT, R, V, dcall, dput)

    notes = spirjit_first_call(kern, run)
    return Case(run=run,
                result=lambda: (spirjit.asnumpy(dcall), spirjit.asnumpy(dput)),
                notes=notes)


# --------------------------------------------------------------------------
# OpenCL C

OPENCL_C_SRC = """
{pragma}
typedef {T} real;

real cnd(real d)
{{
    real y = 0.5{f} * erf(fabs(d) * {RSQRT2}{f});
    if (d < 0.0{f})
        return 0.5{f} - y;
    return 0.5{f} + y;
}}

__kernel void blackscholes(__global const real *S, __global const real *K,
                           __global const real *T, real R, real V,
                           __global real *call, __global real *put)
{{
    size_t i = get_global_id(0);
    real s = S[i], k = K[i], t = T[i];
    real sqrt_t = sqrt(t);
    real d1 = (log(s / k) + (R + 0.5{f} * V * V) * t) / (V * sqrt_t);
    real d2 = d1 - V * sqrt_t;
    real c1 = cnd(d1), c2 = cnd(d2);
    real kexp = k * exp(-R * t);
    call[i] = s * c1 - kexp * c2;
    put[i] = kexp * (1.0{f} - c2) - s * (1.0{f} - c1);
}}
"""


def opencl_c_source(dtype):
    if dtype == np.float64:
        return OPENCL_C_SRC.format(
            pragma="#pragma OPENCL EXTENSION cl_khr_fp64 : enable",
            T="double", f="", RSQRT2=repr(RSQRT2))
    return OPENCL_C_SRC.format(pragma="", T="float", f="f",
                               RSQRT2=repr(RSQRT2))


def setup_bs_opencl_c(inputs, dtype):
    cl, ctx, queue, dev = opencl_context()
    n = inputs["S"].size
    if dtype == np.float64 and "cl_khr_fp64" not in dev.extensions:
        raise Unavailable("device has no cl_khr_fp64")
    t0 = time.perf_counter()
    prg = cl.Program(ctx, opencl_c_source(dtype)).build()
    build = time.perf_counter() - t0
    knl = prg.blackscholes
    mf = cl.mem_flags
    dS, dK, dT = (cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR,
                            hostbuf=inputs[k]) for k in "SKT")
    nbytes = inputs["S"].nbytes
    dcall = cl.Buffer(ctx, mf.WRITE_ONLY, nbytes)
    dput = cl.Buffer(ctx, mf.WRITE_ONLY, nbytes)
    R, V = inputs["R"], inputs["V"]          # NumPy scalars: passed by value
    queue.finish()

    def run():
        knl(queue, (n,), None, dS, dK, dT, R, V, dcall, dput)
        queue.finish()

    def result():
        out = (np.empty(n, dtype), np.empty(n, dtype))
        cl.enqueue_copy(queue, out[0], dcall)
        cl.enqueue_copy(queue, out[1], dput)
        queue.finish()
        return out

    def close():
        for buf in (dS, dK, dT, dcall, dput):
            buf.release()

    return Case(run=run, result=result, close=close,
                notes={"build of OpenCL C source": build})


# --------------------------------------------------------------------------
# numba

_NUMBA_BS = {}


def make_numba_bs(dtype):
    """One njit function per dtype: numba types Python float constants as
    float64, so the constants are closure values of the dtype instead."""
    try:
        from numba import njit, prange
    except Exception as exc:
        raise Unavailable(reason(exc)) from exc
    half, one, zero = dtype.type(0.5), dtype.type(1.0), dtype.type(0.0)
    rsqrt2 = dtype.type(RSQRT2)

    @njit
    def cnd(d):
        y = half * math.erf(abs(d) * rsqrt2)
        if d < zero:
            return half - y
        return half + y

    @njit(parallel=True)
    def blackscholes_numba(S, K, T, R, V, call, put):
        for i in prange(S.shape[0]):
            s = S[i]
            k = K[i]
            t = T[i]
            sqrt_t = math.sqrt(t)
            d1 = (math.log(s / k) + (R + half * V * V) * t) / (V * sqrt_t)
            d2 = d1 - V * sqrt_t
            c1 = cnd(d1)
            c2 = cnd(d2)
            kexp = k * math.exp(-R * t)
            call[i] = s * c1 - kexp * c2
            put[i] = kexp * (one - c2) - s * (one - c1)

    return blackscholes_numba


def setup_bs_numba(inputs, dtype):
    if dtype.name not in _NUMBA_BS:
        _NUMBA_BS[dtype.name] = make_numba_bs(dtype)
    f = _NUMBA_BS[dtype.name]
    S, K, T, R, V = (inputs[k] for k in "SKTRV")
    call, put = np.empty_like(S), np.empty_like(S)
    t0 = time.perf_counter()
    f(S, K, T, R, V, call, put)
    first = time.perf_counter() - t0
    return Case(run=lambda: f(S, K, T, R, V, call, put),
                result=lambda: (call, put),
                notes={"first call (incl. numba compile)": first})


# --------------------------------------------------------------------------
# NumPy

def setup_bs_numpy(inputs, dtype):
    try:
        from scipy.special import erf
    except Exception as exc:
        raise Unavailable("NumPy has no erf ufunc and scipy.special.erf "
                          f"cannot be imported ({reason(exc)})") from exc
    S, K, T, R, V = (inputs[k] for k in "SKTRV")
    out = {}

    def run():
        out["r"] = _bs_numpy(S, K, T, R, V, erf)

    return Case(run=run, result=lambda: out["r"])


BLACKSCHOLES = Benchmark(
    name="Black-Scholes call + put",
    make_inputs=bs_inputs,
    reference=bs_reference,
    backends=[
        Backend("spirjit", setup_bs_spirjit),
        Backend(REFERENCE, setup_bs_opencl_c),
        Backend("numba parallel", setup_bs_numba),
        Backend("NumPy", setup_bs_numpy),
    ],
    n=2 ** 22,
    check=bs_check,
)

BENCHMARKS = [BLACKSCHOLES]


def main(argv=None):
    return run_main(BENCHMARKS, argv, __doc__.splitlines()[0])


if __name__ == "__main__":
    sys.exit(main())
