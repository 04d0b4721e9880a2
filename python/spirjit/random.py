"""Random numbers on every device: NumPy's ``Generator`` methods over a
counter-based Philox4x32-10 generator (Salmon et al., "Parallel random
numbers: as easy as 1, 2, 3", SC 2011), whose numbers depend only on the
key and the counter, so the same seed gives the same numbers on every
device, bit for bit (normals too: their log, sin and cos are spirjit's own,
_random_math.py, not each device's libm).

Contract: ``default_rng(seed=None, device=None)`` returns a ``Generator``
whose methods return DeviceArrays on its device, computed there by the
kernels below (Philox blocks of four 32-bit words, BLOCKS_PER_ITEM a
work-item).
``philox_uniform(seed, counter)`` and ``philox_normal(seed, counter)`` are
device functions, callable from kernels and jit functions. A generator's
key comes from ``numpy.random.SeedSequence(seed)``; each draw takes fresh
counters, and ``spawn`` gives children keys from the SeedSequence's.
"""

import math
import numbers
import operator

import numpy as np

from . import device_func, kernel, errors
from . import kernel_api as kapi
from ._random_math import log_of_uniform, sincos_turn
from ._spirjit import DeviceArray

__all__ = ["default_rng", "Generator", "philox_uniform", "philox_normal"]

_M0 = 0xD2511F53
_M1 = 0xCD9E8D57
_W0 = 0x9E3779B9
_W1 = 0xBB67AE85
_MASK = 0xFFFFFFFF
# A draw's blocks (counters from the generator's next) go out in stripes of
# _STRIPE blocks: output q * per * _STRIPE + k * _STRIPE + lane holds
# output k of block q * _STRIPE + lane, where each block gives `per`
# outputs (_put). Adjacent work-items then store adjacent elements, one
# coalesced store a warp and a vector store of CPUs' lanes, with no
# staging in local memory. A draw takes whole stripes of counters.
_STRIPE_BITS = 8
_STRIPE = 1 << _STRIPE_BITS
# Blocks a work-item computes: None for 4 on GPUs (the key schedule and the
# item's setup once for four blocks: 2^28 float32 draws 8 % faster on the
# H200), 1 elsewhere; the tests set it to run other counts on every device.
BLOCKS_PER_ITEM = None


@device_func
def philox4x32(c0, c1, c2, c3, k0, k1):
    """The Philox4x32-10 block of counter (c0..c3) under key (k0, k1): four
    uint32 words (every argument is taken modulo 2**32). The state is
    32-bit; each round's products are 32 x 32 -> 64 bits (one wide multiply
    on GPUs), and the key schedule adds in 64 bits under a mask, so that
    the simulator's NumPy scalars never overflow."""
    x0 = np.uint32(np.uint64(c0) & np.uint64(_MASK))
    x1 = np.uint32(np.uint64(c1) & np.uint64(_MASK))
    x2 = np.uint32(np.uint64(c2) & np.uint64(_MASK))
    x3 = np.uint32(np.uint64(c3) & np.uint64(_MASK))
    a = np.uint64(k0) & np.uint64(_MASK)
    b = np.uint64(k1) & np.uint64(_MASK)
    for _ in range(10):
        p0 = np.uint64(x0) * np.uint64(_M0)
        p1 = np.uint64(x2) * np.uint64(_M1)
        y0 = np.uint32(p1 >> np.uint64(32)) ^ x1 ^ np.uint32(a)
        y1 = np.uint32(p1 & np.uint64(_MASK))
        y2 = np.uint32(p0 >> np.uint64(32)) ^ x3 ^ np.uint32(b)
        y3 = np.uint32(p0 & np.uint64(_MASK))
        x0 = y0
        x1 = y1
        x2 = y2
        x3 = y3
        a = (a + np.uint64(_W0)) & np.uint64(_MASK)
        b = (b + np.uint64(_W1)) & np.uint64(_MASK)
    return np.uint64(x0), np.uint64(x1), np.uint64(x2), np.uint64(x3)


@device_func
def _unit53(hi, lo):
    """A float64 in [0, 1) from two words: 53 random bits."""
    bits = ((np.uint64(hi) >> np.uint64(6)) << np.uint64(27)) | \
        (np.uint64(lo) >> np.uint64(5))
    return np.float64(bits) * (1.0 / 9007199254740992.0)


@device_func
def _philox64(c, s):
    """The block of the 64-bit counter c under the 64-bit key s, their
    halves passed as uint32: the rounds' products then stay 32 x 32 bits
    (as 64-bit operands, LLVM had widened the rounds' xors and multiplied
    in 64 bits, 4x the PTX instructions)."""
    return philox4x32(np.uint32(c & np.uint64(_MASK)),
                      np.uint32(c >> np.uint64(32)), np.uint32(0),
                      np.uint32(0), np.uint32(s & np.uint64(_MASK)),
                      np.uint32(s >> np.uint64(32)))


@device_func
def philox_uniform(seed, counter):
    """A float64 in [0, 1): counter-based, the same on every device for
    the same (seed, counter); a work-item's stream is its id."""
    s = np.uint64(seed)
    c = np.uint64(counter)
    w0, w1, w2, w3 = _philox64(c, s)
    return _unit53(w0, w1)


@device_func
def _bits53(hi, lo):
    """The 53 random bits _unit53 scales, as an integer."""
    return ((np.uint64(hi) >> np.uint64(6)) << np.uint64(27)) | \
        (np.uint64(lo) >> np.uint64(5))


@device_func
def _box_muller(k, j, bits):
    """(r cos t, r sin t) of Box-Muller: r = sqrt(-2 log u1) for u1 =
    k 2**-bits in (0, 1], t = 2 pi j 2**-bits; by _random_math's
    functions, the same bits on every device."""
    r = math.sqrt(-2.0 * log_of_uniform(k, bits))
    s, c = sincos_turn(j, bits)
    return r * c, r * s


@device_func
def philox_normal(seed, counter):
    """A standard normal float64 (Box-Muller over one Philox block)."""
    s = np.uint64(seed)
    c = np.uint64(counter)
    w0, w1, w2, w3 = _philox64(c, s)
    k = np.uint64(1 << 53) - _bits53(w0, w1)
    z0, z1 = _box_muller(k, _bits53(w2, w3), 53)
    return z0


@device_func
def _block(start, i, k0, k1):
    """The four words of the generator's block ``start + i`` (the 64-bit
    counter in the first two words) under key (k0, k1)."""
    c = np.uint64(start) + np.uint64(i)
    return philox4x32(np.uint32(c & np.uint64(_MASK)),
                      np.uint32(c >> np.uint64(32)), np.uint32(0),
                      np.uint32(0), k0, k1)  # as uint32: see _philox64


@device_func
def _put(out, i, per, k, v):
    """Output k of the draw's block i (per outputs a block) at its place
    in the block's stripe (_STRIPE); none past the draw's end. (Each item
    storing its own outputs side by side, a warp's store had touched per
    times the sectors it filled: float32 draws on the H100 ran at 0.54
    TB/s; staged through local memory, the staging and its barrier were a
    third of a float32 draw's instructions on the H200.)"""
    b = np.uint64(i)
    j = (b >> np.uint64(_STRIPE_BITS)) * np.uint64(per * _STRIPE) + \
        np.uint64(k * _STRIPE) + (b & np.uint64(_STRIPE - 1))
    if j < np.uint64(out.shape[0]):
        out[j] = v


@device_func
def _put4(out, i, v0, v1, v2, v3):
    """The four outputs of block i (_put)."""
    _put(out, i, 4, 0, v0)
    _put(out, i, 4, 1, v1)
    _put(out, i, 4, 2, v2)
    _put(out, i, 4, 3, v3)


@device_func
def _put2(out, i, v0, v1):
    """The two outputs of block i (_put)."""
    _put(out, i, 2, 0, v0)
    _put(out, i, 2, 1, v1)


@kernel
def _words(item: kapi.NdItem, out, k0, k1, start, reps):
    """The four words of block start + i (uint32), at their places in
    its stripe (_put)."""
    g = item.get_global_id(0)
    for rep in range(reps):  # blocks g, g + width, ... (_draw)
        i = g + rep * item.get_global_range(0)
        w0, w1, w2, w3 = _block(start, i, k0, k1)
        _put4(out, i,
              np.uint32(w0), np.uint32(w1), np.uint32(w2), np.uint32(w3))


@kernel
def _uniform64(item: kapi.NdItem, out, k0, k1, start, reps, low, span):
    """Two float64 in [low, low + span) per block."""
    g = item.get_global_id(0)
    for rep in range(reps):  # blocks g, g + width, ... (_draw)
        i = g + rep * item.get_global_range(0)
        w0, w1, w2, w3 = _block(start, i, k0, k1)
        _put2(out, i,
              low + span * _unit53(w0, w1), low + span * _unit53(w2, w3))


@device_func
def _top24(w):
    """The top 24 bits of the 32-bit word w as a float32 (converted from
    32 bits: GPUs convert 64-bit integers at a fraction of the rate)."""
    return np.float32(np.uint32(w) >> np.uint32(8))


@kernel
def _uniform32(item: kapi.NdItem, out, k0, k1, start, reps, low, span):
    """Four float32 in [low, low + span) per block (24 bits each)."""
    g = item.get_global_id(0)
    for rep in range(reps):  # blocks g, g + width, ... (_draw)
        i = g + rep * item.get_global_range(0)
        w0, w1, w2, w3 = _block(start, i, k0, k1)
        scale = np.float32(1.0 / 16777216.0)
        lo = np.float32(low)
        sp = np.float32(span)
        _put4(out, i,
              lo + sp * (_top24(w0) * scale), lo + sp * (_top24(w1) * scale),
              lo + sp * (_top24(w2) * scale), lo + sp * (_top24(w3) * scale))


@kernel
def _normal64(item: kapi.NdItem, out, k0, k1, start, reps, loc, scale):
    """Two normals per block (Box-Muller), float64."""
    g = item.get_global_id(0)
    for rep in range(reps):  # blocks g, g + width, ... (_draw)
        i = g + rep * item.get_global_range(0)
        w0, w1, w2, w3 = _block(start, i, k0, k1)
        z0, z1 = _box_muller(np.uint64(1 << 53) - _bits53(w0, w1),
                             _bits53(w2, w3), 53)
        _put2(out, i, loc + scale * z0, loc + scale * z1)


@kernel
def _normal32(item: kapi.NdItem, out, k0, k1, start, reps, loc, scale):
    """Four float32 normals per block (Box-Muller twice, 24-bit uniforms,
    computed in float64 and rounded once: the same bits on every device)."""
    g = item.get_global_id(0)
    for rep in range(reps):  # blocks g, g + width, ... (_draw)
        i = g + rep * item.get_global_range(0)
        w0, w1, w2, w3 = _block(start, i, k0, k1)
        top = np.uint64(1 << 24)
        a0, a1 = _box_muller(top - (np.uint64(w0) >> np.uint64(8)),
                             np.uint64(w1) >> np.uint64(8), 24)
        b0, b1 = _box_muller(top - (np.uint64(w2) >> np.uint64(8)),
                             np.uint64(w3) >> np.uint64(8), 24)
        lo = np.float32(loc)
        sc = np.float32(scale)
        _put4(out, i,
              lo + sc * np.float32(a0), lo + sc * np.float32(a1),
              lo + sc * np.float32(b0), lo + sc * np.float32(b1))


@device_func
def _put1(out, i, v):
    """The one output of block i (_put)."""
    _put(out, i, 1, 0, v)


@kernel
def _integers32(item: kapi.NdItem, out, k0, k1, start, reps, low, span):
    """Four integers in [low, low + span) per block, span a power of two
    up to 2**32: a word's top bits, exactly uniform."""
    g = item.get_global_id(0)
    for rep in range(reps):  # blocks g, g + width, ... (_draw)
        i = g + rep * item.get_global_range(0)
        w0, w1, w2, w3 = _block(start, i, k0, k1)
        s = np.uint64(span)
        _put4(out, i,
              low + np.int64((w0 * s) >> np.uint64(32)),
              low + np.int64((w1 * s) >> np.uint64(32)),
              low + np.int64((w2 * s) >> np.uint64(32)),
              low + np.int64((w3 * s) >> np.uint64(32)))


@device_func
def _scaled64(hi, lo, s):
    """floor(w * s / 2**64) for the 64-bit word w = hi:lo and s <= 2**32:
    each value of [0, s) comes from 2**64 / s words, give or take one (a
    bias below s / 2**64, where the top 32 bits alone, NumPy's Lemire
    form without its rejection, had up to 2x between values)."""
    return (hi * s + ((lo * s) >> np.uint64(32))) >> np.uint64(32)


@kernel
def _integers32_wide(item: kapi.NdItem, out, k0, k1, start, reps, low,
                     span):
    """Two integers in [low, low + span) per block, span up to 2**32 (not
    a power of two), each from 64 bits (_scaled64)."""
    g = item.get_global_id(0)
    for rep in range(reps):  # blocks g, g + width, ... (_draw)
        i = g + rep * item.get_global_range(0)
        w0, w1, w2, w3 = _block(start, i, k0, k1)
        s = np.uint64(span)
        _put2(out, i, low + np.int64(_scaled64(w0, w1, s)),
              low + np.int64(_scaled64(w2, w3, s)))


@device_func
def _scaled128(a3, a2, a1, a0, s):
    """floor(w * s / 2**128) for the 128-bit word w = a3:a2:a1:a0 (32-bit
    limbs, a3 the highest) and the 64-bit s, 0 standing for 2**64: the
    top two limbs of the 192-bit product, by columns of 32-bit partial
    products (each column's sum stays below 2**35). The bias is below
    s / 2**128 (a 64-bit word modulo s had a third more weight on the low
    values of a span of 3 * 2**61)."""
    m = np.uint64(0xFFFFFFFF)
    h = np.uint64(32)
    if s == np.uint64(0):
        return (a3 << h) | a2
    b1 = s >> h
    b0 = s & m
    p00 = a0 * b0
    p01 = a0 * b1
    p10 = a1 * b0
    p11 = a1 * b1
    p20 = a2 * b0
    p21 = a2 * b1
    p30 = a3 * b0
    p31 = a3 * b1
    c = ((p00 >> h) + (p01 & m) + (p10 & m)) >> h
    c = (c + (p01 >> h) + (p10 >> h) + (p11 & m) + (p20 & m)) >> h
    c = (c + (p11 >> h) + (p20 >> h) + (p21 & m) + (p30 & m)) >> h
    c4 = c + (p21 >> h) + (p30 >> h) + (p31 & m)
    c5 = (c4 >> h) + (p31 >> h)
    return (c5 << h) | (c4 & m)


@kernel
def _integers64(item: kapi.NdItem, out, k0, k1, start, reps, low, span):
    """One integer in [low, low + span) per block, span above 2**32 (0
    for 2**64), from the block's 128 bits (_scaled128)."""
    g = item.get_global_id(0)
    for rep in range(reps):  # blocks g, g + width, ... (_draw)
        i = g + rep * item.get_global_range(0)
        w0, w1, w2, w3 = _block(start, i, k0, k1)
        _put1(out, i, low + np.int64(_scaled128(w0, w1, w2, w3,
                                                np.uint64(span))))


def _size(size):
    if size is None:
        return ()
    if type(size) is int and size >= 0:
        return (size,)
    if isinstance(size, numbers.Integral):
        size = (size,)
    size = tuple(operator.index(n) for n in size)
    if any(n < 0 for n in size):
        raise errors.InvalidArgumentError("negative dimensions are not "
                                          "allowed")
    return size


class Generator:
    """NumPy's ``Generator`` methods on a spirjit device, over Philox4x32-10.
    Every method returns a DeviceArray on the generator's device (a 0-d one
    for ``size=None``)."""

    def __init__(self, seed_sequence, device):
        from . import _resolve_device
        self._seq = seed_sequence
        key = seed_sequence.generate_state(2, np.uint32)
        self._k0, self._k1 = int(key[0]), int(key[1])
        self._device = _resolve_device(device)
        self._counter = 0

    @property
    def device(self):
        from . import Device
        return Device._wrap(self._device)

    def __repr__(self):
        return f"Generator(Philox4x32-10) on {self.device.filter_string}"

    def _draw(self, kern, shape, dtype, per_block, *params):
        from . import _array_ops as ops
        from ._library_base import (_enqueue, _group_width, _nd_range,
                                    _properties)
        shape = _size(shape)
        n = math.prod(shape)
        out = ops._empty((n,), dtype, self._device)
        if n:
            # Whole stripes of blocks (_STRIPE), `reps` a work-item; blocks
            # past the last stripe store nothing (_put).
            blocks = -(-n // (per_block * _STRIPE)) * _STRIPE
            reps = BLOCKS_PER_ITEM or (
                4 if _properties(out).get("device_type") == "gpu" else 1)
            items = -(-blocks // (reps * _STRIPE)) * _STRIPE
            _enqueue(kern, _nd_range((items,), (_group_width(out),)),
                     out, np.uint32(self._k0), np.uint32(self._k1),
                     np.uint64(self._counter), np.int64(reps), *params)
            self._counter += blocks
        return ops.reshape(out, shape) if shape != (n,) else out

    def _float(self, dtype):
        dtype = np.dtype(dtype)
        if dtype not in (np.float32, np.float64):
            raise errors.TypingError(
                f"Unsupported dtype {dtype} for random floats; use float32 "
                "or float64")
        return dtype

    def random(self, size=None, dtype=np.float64, out=None):
        """Floats uniform in [0, 1)."""
        return self.uniform(0.0, 1.0, size, dtype)

    def _shifted(self, draw, offset, scale, size, dtype):
        """offset + scale * draw(size') for array parameters: size', as
        NumPy's, is ``size`` or else the parameters' broadcast shape, and
        the arithmetic runs on the generator's device."""
        from . import _array_api as api
        offset, scale = (api.asarray(v, device=self.device)
                         for v in (offset, scale))
        shape = np.broadcast_shapes(offset.shape, scale.shape)
        if size is not None:
            shape = np.broadcast_shapes(_size(size), shape)
            if shape != _size(size):
                raise errors.InvalidArgumentError(
                    f"shape mismatch: the parameters' shape {shape} does "
                    f"not broadcast to size {_size(size)}")
        return api.astype(offset + scale * draw(shape), dtype)

    def uniform(self, low=0.0, high=1.0, size=None, dtype=np.float64):
        """Floats uniform in [low, high)."""
        dtype = self._float(dtype)
        if np.ndim(low) or np.ndim(high) or isinstance(
                low, DeviceArray) or isinstance(high, DeviceArray):
            from . import _array_api as api
            span = api.asarray(high, device=self.device) - low
            return self._shifted(lambda shape: self.random(shape, dtype),
                                 low, span, size, dtype)
        span = float(high) - float(low)
        if not math.isfinite(span):
            raise errors.InvalidArgumentError("high - low range exceeds "
                                              "valid bounds")
        if dtype == np.float32:
            return self._draw(_uniform32, size, dtype, 4, np.float32(low),
                              np.float32(span))
        return self._draw(_uniform64, size, dtype, 2, float(low), span)

    def standard_normal(self, size=None, dtype=np.float64, out=None):
        """Standard normal floats."""
        return self.normal(0.0, 1.0, size, dtype)

    def normal(self, loc=0.0, scale=1.0, size=None, dtype=np.float64):
        """Normal floats of mean ``loc`` and deviation ``scale``."""
        dtype = self._float(dtype)
        if np.ndim(loc) or np.ndim(scale) or isinstance(
                loc, DeviceArray) or isinstance(scale, DeviceArray):
            if bool(np.any(scale < 0)):  # (one read, as NumPy checks)
                raise errors.InvalidArgumentError("scale < 0")
            return self._shifted(
                lambda shape: self.standard_normal(shape, dtype), loc, scale,
                size, dtype)
        if scale < 0:
            raise errors.InvalidArgumentError("scale < 0")
        if dtype == np.float32:
            return self._draw(_normal32, size, dtype, 4, np.float32(loc),
                              np.float32(scale))
        return self._draw(_normal64, size, dtype, 2, float(loc),
                          float(scale))

    def integers(self, low, high=None, size=None, dtype=np.int64,
                 endpoint=False):
        """Integers in [low, high) (or [low, high] with ``endpoint``)."""
        if high is None:
            low, high = 0, low
        low, high = operator.index(low), operator.index(high)
        dtype = np.dtype(dtype)
        if dtype.kind not in "iu":
            raise errors.TypingError(f"Unsupported dtype {dtype} for "
                                     "integers")
        span = high - low + (1 if endpoint else 0)
        if span <= 0:
            raise errors.InvalidArgumentError(
                "low > high" if endpoint else "low >= high")
        info = np.iinfo(dtype)
        if low < info.min or high - (0 if endpoint else 1) > info.max:
            raise errors.InvalidArgumentError(
                f"high is out of bounds for {dtype}")
        from . import _array_ops as ops
        # low + the offset wraps as int64 arithmetic does: the offset of a
        # value above 2**63 - 1 (uint64's) keeps its bits.
        base = np.int64(low - 2**64 if low >= 2**63 else low)
        if span <= 2**32 and span & (span - 1) == 0:
            r = self._draw(_integers32, size, np.int64, 4, base,
                           np.uint64(span))
        elif span <= 2**32:
            r = self._draw(_integers32_wide, size, np.int64, 2, base,
                           np.uint64(span))
        else:
            r = self._draw(_integers64, size, np.int64, 1, base,
                           np.uint64(span % 2**64))
        return r if dtype == np.int64 else ops.astype(r, dtype)

    def permutation(self, x):
        """A shuffled copy of ``x`` (along its first axis) or of
        ``arange(x)``."""
        from . import _array_api as api, _array_primitives as prims
        if isinstance(x, numbers.Integral):
            x = api.arange(x, device=self.device)
        else:
            x = prims._device_array(x, "permutation", self._device)
        if x.ndim == 0:
            raise errors.InvalidArgumentError("x must be an integer or at "
                                              "least 1-dimensional")
        n = x.shape[0]
        if n <= 1:
            return x.copy()
        keys = self._draw(_words, (2 * n,), np.uint32, 4)
        from . import _array_ops as ops
        key = ops.apply_ufunc(np.bitwise_or, (ops.apply_ufunc(
            np.left_shift, (ops.astype(keys[:n], np.uint64), 32)),
            ops.astype(keys[n:], np.uint64)))
        order = prims.argsort(key)
        return prims.take(x, order, 0)

    def shuffle(self, x):
        """Shuffles DeviceArray ``x`` in place along its first axis."""
        x[...] = self.permutation(x)

    def choice(self, a, size=None, replace=True):
        """Elements of ``a`` (or of ``arange(a)``), with or without
        replacement."""
        from . import _array_api as api, _array_primitives as prims
        if isinstance(a, numbers.Integral):
            if a <= 0:
                raise errors.InvalidArgumentError("a must be a positive "
                                                  "integer unless no samples "
                                                  "are taken")
            a = api.arange(a, device=self.device)
        else:
            a = prims._device_array(a, "choice", self._device)
        n = a.shape[0] if a.ndim else 0
        shape = _size(size)
        count = int(np.prod(shape))
        if n == 0 and count:
            raise errors.InvalidArgumentError(
                "a cannot be empty unless no samples are taken")
        from . import _array_ops as ops
        if replace:
            idx = self.integers(0, n, size=(count,))
        else:
            if count > n:
                raise errors.InvalidArgumentError(
                    "Cannot take a larger sample than population when "
                    "replace is False")
            idx = self.permutation(n)[:count]
        return ops.reshape(prims.take(a, idx, 0), shape + a.shape[1:])

    def spawn(self, n_children):
        """``n_children`` independent generators on the same device."""
        return [Generator(s, self._device)
                for s in self._seq.spawn(n_children)]


def default_rng(seed=None, device=None):
    """A ``Generator`` on ``device`` (default: the default device), keyed by
    ``numpy.random.SeedSequence(seed)``."""
    if isinstance(seed, Generator):
        return seed
    if isinstance(seed, np.random.SeedSequence):
        return Generator(seed, device)
    return Generator(np.random.SeedSequence(seed), device)
