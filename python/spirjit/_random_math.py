"""The logarithm, sine and cosine that spirjit.random's normals take, in
plain arithmetic, so that a seed gives the same bits on every device.

Why: each device's libm rounds log, cos and sin its own way (within a few
ulps), so Box-Muller normals drawn from the same Philox words differed in
their last bits between Intel's CPU runtime, PoCL, the native device and
CUDA. These functions use +, -, *, / and integer operations only, each
correctly rounded on every device spirjit targets, and no device
contracts a multiply and an add here (spirjit compiles without
contraction; tests/python/test_random.py compares the devices).

Contract: ``log_of_uniform(k, bits)`` is log(k * 2**-bits) for an integer
1 <= k <= 2**bits (bits <= 53), within about an ulp; ``sincos_turn(j,
bits)`` is (sin, cos) of 2 * pi * j * 2**-bits for an integer
0 <= j < 2**bits, within about two ulps. Both are device functions (also
plain Python: the simulator and the host run them as they are).
"""

import math
from fractions import Fraction

import numpy as np

from . import device_func

# fdlibm's e_log.c (Sun Microsystems' freely distributable libm): log(1 + f)
# = f - hfsq + s * (hfsq + R(z)) with s = f / (2 + f), z = s * s.
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_LG1 = 6.666666666666735130e-01
_LG2 = 3.999999999940941908e-01
_LG3 = 2.857142874366239149e-01
_LG4 = 2.222219843214978396e-01
_LG5 = 1.818357216161805012e-01
_LG6 = 1.531383769920937332e-01
_LG7 = 1.479819860511658591e-01
_SQRT2 = 1.4142135623730951


def _taylor(odd):
    """Coefficients of sin(pi/2 r) (odd) or cos(pi/2 r) in powers of r*r,
    from pi to 40 digits, each rounded once to a double."""
    pi = Fraction("3.1415926535897932384626433832795028841971")
    half = pi / 2
    out = []
    for k in range(10):
        n = 2 * k + (1 if odd else 0)
        term = half ** n / math.factorial(n)
        out.append(float(-term if k % 2 else term))
    return out


(_S0, _S1, _S2, _S3, _S4, _S5, _S6, _S7, _S8, _S9) = _taylor(True)
(_C0, _C1, _C2, _C3, _C4, _C5, _C6, _C7, _C8, _C9) = _taylor(False)


@device_func
def log_of_uniform(k, bits):
    """log(k * 2**-bits) for the integer 1 <= k <= 2**bits, bits <= 53."""
    v = np.uint64(k)
    e = 0
    if v >= np.uint64(1 << 32):
        v = v >> np.uint64(32)
        e += 32
    if v >= np.uint64(1 << 16):
        v = v >> np.uint64(16)
        e += 16
    if v >= np.uint64(1 << 8):
        v = v >> np.uint64(8)
        e += 8
    if v >= np.uint64(1 << 4):
        v = v >> np.uint64(4)
        e += 4
    if v >= np.uint64(1 << 2):
        v = v >> np.uint64(2)
        e += 2
    if v >= np.uint64(1 << 1):
        e += 1
    # k = m * 2**e with m in [1, 2) (exact: k has at most 53 bits), then
    # m in [sqrt(1/2), sqrt(2)).
    m = np.float64(np.uint64(k)) / np.float64(np.uint64(1) << np.uint64(e))
    if m > _SQRT2:
        m = m * 0.5
        e += 1
    f = m - 1.0
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    t1 = w * (_LG2 + w * (_LG4 + w * _LG6))
    t2 = z * (_LG1 + w * (_LG3 + w * (_LG5 + w * _LG7)))
    r = t2 + t1
    hfsq = 0.5 * f * f
    dk = np.float64(e - bits)
    return dk * _LN2_HI - ((hfsq - (s * (hfsq + r) + dk * _LN2_LO)) - f)


@device_func
def _sin_quarter(r):
    """sin(pi/2 * r) for 0 <= r <= 1/2."""
    x = r * r
    p = _S8 + x * _S9
    p = _S7 + x * p
    p = _S6 + x * p
    p = _S5 + x * p
    p = _S4 + x * p
    p = _S3 + x * p
    p = _S2 + x * p
    p = _S1 + x * p
    return r * (_S0 + x * p)


@device_func
def _cos_quarter(r):
    """cos(pi/2 * r) for 0 <= r <= 1/2."""
    x = r * r
    p = _C8 + x * _C9
    p = _C7 + x * p
    p = _C6 + x * p
    p = _C5 + x * p
    p = _C4 + x * p
    p = _C3 + x * p
    p = _C2 + x * p
    p = _C1 + x * p
    return _C0 + x * p


@device_func
def sincos_turn(j, bits):
    """(sin, cos) of 2 pi j 2**-bits for the integer 0 <= j < 2**bits: the
    quadrant from j's top two bits, the angle within it exactly from the
    rest (r in [0, 1), reflected into [0, 1/2])."""
    u = np.uint64(j)
    quadrant = u >> np.uint64(bits - 2)
    rest = u & ((np.uint64(1) << np.uint64(bits - 2)) - np.uint64(1))
    r = np.float64(rest) / np.float64(np.uint64(1) << np.uint64(bits - 2))
    if r > 0.5:
        s = _cos_quarter(1.0 - r)
        c = _sin_quarter(1.0 - r)
    else:
        s = _sin_quarter(r)
        c = _cos_quarter(r)
    if quadrant == np.uint64(0):
        return s, c
    if quadrant == np.uint64(1):
        return c, -s
    if quadrant == np.uint64(2):
        return -s, -c
    return -c, s
