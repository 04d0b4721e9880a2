"""spirjit.random (API.md): Philox4x32-10, the same numbers on every device
for the same seed, NumPy's Generator methods, and the counter-based
functions inside kernels and jit functions."""

import math

import numpy as np
import pytest

import spirjit
from spirjit import errors
from spirjit import kernel_api as kapi
from spirjit import random as R


def philox_reference(counter, key):
    """Philox4x32-10 in plain Python integers (Salmon et al. 2011)."""
    c = list(counter)
    k0, k1 = key
    mask = 0xFFFFFFFF
    for _ in range(10):
        p0 = 0xD2511F53 * c[0]
        p1 = 0xCD9E8D57 * c[2]
        c = [((p1 >> 32) ^ c[1] ^ k0) & mask, p1 & mask,
             ((p0 >> 32) ^ c[3] ^ k1) & mask, p0 & mask]
        k0 = (k0 + 0x9E3779B9) & mask
        k1 = (k1 + 0xBB67AE85) & mask
    return c


def draw_reference(key, start, n, per):
    """A draw's n outputs as the generator lays them out: blocks from
    counter ``start`` in stripes of 256 (spirjit.random._STRIPE), output
    q * per * 256 + k * 256 + lane being output k of block q * 256 + lane;
    each output the words it is made of (four outputs a block: one word
    each; two: two words each). Returns (outputs, counters taken)."""
    stripe = 256
    outputs = []
    for j in range(n):
        q, r = divmod(j, per * stripe)
        k, lane = divmod(r, stripe)
        words = philox_reference((start + q * stripe + lane, 0, 0, 0), key)
        width = 4 // per
        outputs.append(tuple(words[k * width:(k + 1) * width]))
    return outputs, -(-n // (per * stripe)) * stripe


@spirjit.kernel
def philox_words(item, out, c0, c1, c2, c3, k0, k1):
    a, b, c, d = R.philox4x32(c0, c1, c2, c3, k0, k1)
    out[0] = np.uint32(a)
    out[1] = np.uint32(b)
    out[2] = np.uint32(c)
    out[3] = np.uint32(d)


# Random123's known answers for Philox4x32-10.
KNOWN = [((0, 0, 0, 0), (0, 0),
          (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
         ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2,
          (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
         ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344),
          (0xA4093822, 0x299F31D0),
          (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1))]


def test_philox_gives_random123s_known_answers(device):
    for counter, key, answer in KNOWN:
        out = np.zeros(4, np.uint32)
        spirjit.call_kernel(philox_words, kapi.Range(1), out,
                            *(np.uint32(v) for v in counter + key))
        assert [int(v) for v in out] == list(answer)
        assert philox_reference(counter, key) == list(answer)


def test_the_same_seed_gives_the_same_numbers_on_every_device(device):
    g = spirjit.random.default_rng(2024, device=device)
    assert g.device == device
    ints = g.integers(0, 1000, size=64)
    u64 = g.random(33)
    u32 = g.random(17, dtype=np.float32)
    # The reference: the same draws computed on the host.
    key = tuple(int(k) for k in
                np.random.SeedSequence(2024).generate_state(2, np.uint32))
    words, taken = draw_reference(key, 0, 64, 4)
    np.testing.assert_array_equal(
        ints.asnumpy(), [(w * 1000) >> 32 for (w,) in words])
    assert ints.dtype == np.int64 and ints.device == device
    pairs, _ = draw_reference(key, taken, 33, 2)
    assert u64.asnumpy().tolist() == [
        (((hi >> 6) << 27) | (lo >> 5)) / 2.0**53 for hi, lo in pairs]
    assert u32.dtype == np.float32 and u64.shape == (33,)


def normal_reference(key, start, n, per, loc, scale):
    """A normal draw's n outputs (per two float64 or four float32 a block,
    laid out as draw_reference's), by the same Box-Muller arithmetic on
    the host: the device's bits must be these, whatever its libm."""
    from spirjit import _random_math as M
    stripe = 256
    out = []
    for j in range(n):
        q, r = divmod(j, per * stripe)
        k, lane = divmod(r, stripe)
        w = philox_reference((start + q * stripe + lane, 0, 0, 0), key)
        if per == 2:
            bits = [((w[0] >> 6) << 27) | (w[1] >> 5),
                    ((w[2] >> 6) << 27) | (w[3] >> 5)]
            radius = math.sqrt(-2.0 * M.log_of_uniform(2**53 - bits[0], 53))
            s, c = M.sincos_turn(bits[1], 53)
            z = (radius * c, radius * s)[k]
            out.append(loc + scale * z)
        else:
            a, b = w[2 * (k // 2)] >> 8, w[2 * (k // 2) + 1] >> 8
            radius = math.sqrt(-2.0 * M.log_of_uniform(2**24 - a, 24))
            s, c = M.sincos_turn(b, 24)
            z = np.float32((radius * c, radius * s)[k % 2])
            out.append(np.float32(loc) + np.float32(scale) * z)
    return out


def test_normals_are_the_same_bits_on_every_device(device, require_dtypes):
    # Box-Muller by spirjit's own log, sin and cos (_random_math.py):
    # each device's libm rounds its own way.
    require_dtypes(np.float64)
    g = spirjit.random.default_rng(11, device=device)
    key = tuple(int(k) for k in
                np.random.SeedSequence(11).generate_state(2, np.uint32))
    z64 = g.normal(0.5, 2.0, size=600).asnumpy()
    z32 = g.standard_normal(size=1100, dtype=np.float32).asnumpy()
    want64 = normal_reference(key, 0, 600, 2, 0.5, 2.0)
    assert z64.tolist() == [float(v) for v in want64]
    taken = -(-600 // (2 * 256)) * 256
    want32 = normal_reference(key, taken, 1100, 4, 0.0, 1.0)
    np.testing.assert_array_equal(z32, np.array(want32, np.float32))
    assert abs(z64.mean() - 0.5) < 0.3 and abs(z32.std() - 1.0) < 0.1


@pytest.mark.parametrize("blocks_per_item", [None, 1, 3])
def test_draws_over_many_work_groups_put_each_output_in_its_place(
        device, monkeypatch, blocks_per_item):
    # Across stripes and work-groups, in a ragged last stripe, from where
    # the previous draw left the counter, and whatever the number of blocks
    # a work-item computes.
    monkeypatch.setattr(R, "BLOCKS_PER_ITEM", blocks_per_item)
    g = spirjit.random.default_rng(7, device=device)
    key = tuple(int(k) for k in
                np.random.SeedSequence(7).generate_state(2, np.uint32))
    n = 3 * 1024 + 4 * 37 + 3
    got = g.random(n, dtype=np.float32).asnumpy()
    ints = g.integers(0, 2**31, size=n // 2).asnumpy()
    some = g.integers(5, 5 + 1000, size=n // 2).asnumpy()
    wide = g.integers(0, 3 * 2**40, size=700).asnumpy()
    words, taken = draw_reference(key, 0, n, 4)
    want = np.array([w >> 8 for (w,) in words]) / np.float32(2**24)
    np.testing.assert_array_equal(got, want.astype(np.float32))
    # A power-of-two span: a word's top bits; any other: floor(w * span /
    # 2**bits) of 64 bits (spans up to 2**32) or 128 bits (above).
    words, more = draw_reference(key, taken, n // 2, 4)
    np.testing.assert_array_equal(ints, [(w * 2**31) >> 32 for (w,) in words])
    taken += more
    pairs, more = draw_reference(key, taken, n // 2, 2)
    np.testing.assert_array_equal(
        some, [5 + ((((hi << 32) | lo) * 1000) >> 64) for hi, lo in pairs])
    quads, _ = draw_reference(key, taken + more, 700, 1)
    np.testing.assert_array_equal(
        wide, [(((a << 96) | (b << 64) | (c << 32) | d) * 3 * 2**40) >> 128
               for a, b, c, d in quads])


def test_distributions_look_like_numpys(device, require_dtypes):
    require_dtypes(np.float64)
    g = spirjit.random.default_rng(5, device=device)
    u = g.uniform(-2.0, 3.0, size=200_000).asnumpy()
    assert u.min() >= -2.0 and u.max() < 3.0
    assert abs(u.mean() - 0.5) < 0.02
    z = g.normal(1.0, 2.0, size=(400, 500)).asnumpy()
    assert z.shape == (400, 500)
    assert abs(z.mean() - 1.0) < 0.03 and abs(z.std() - 2.0) < 0.03
    k = g.integers(-3, 4, size=100_000, endpoint=True).asnumpy()
    assert set(np.unique(k)) == set(range(-3, 5))
    s = g.standard_normal(10, dtype=np.float32)
    assert s.dtype == np.float32
    assert g.random().shape == ()


def test_integers_are_uniform_over_any_span(device):
    # A span of 3 * 2**61: a third of the values lie at or above 2**62
    # (a 64-bit word modulo the span had put a quarter there); a span just
    # above 2**31 (the top 32 bits of word * span gave some values twice
    # the weight of others: those below 2**31 came out three in four).
    g = spirjit.random.default_rng(11, device=device)
    v = g.integers(0, 3 * 2**61, size=60_000).asnumpy()
    assert v.min() >= 0 and abs((v >= 2**62).mean() - 1 / 3) < 0.015
    w = g.integers(0, 3 * 2**30, size=60_000).asnumpy()
    assert w.max() < 3 * 2**30 and abs((w < 2**31).mean() - 2 / 3) < 0.015
    # The whole range of int64 and of uint64, as NumPy takes them.
    full = g.integers(-2**63, 2**63 - 1, size=4000, endpoint=True)
    assert full.dtype == np.int64
    assert (full.asnumpy() < 0).mean() == pytest.approx(0.5, abs=0.04)
    top = g.integers(2**63, 2**64, size=1000, dtype=np.uint64).asnumpy()
    assert top.dtype == np.uint64 and top.min() >= 2**63
    small = g.integers(-128, 127, size=1000, dtype=np.int8,
                       endpoint=True).asnumpy()
    assert small.dtype == np.int8 and small.min() < -100 and small.max() > 100


def test_permutation_shuffle_choice_spawn(device):
    g = spirjit.random.default_rng(11, device=device)
    p = g.permutation(1000).asnumpy()
    assert sorted(p.tolist()) == list(range(1000))
    assert not np.array_equal(p, np.arange(1000))
    x = spirjit.asarray(np.arange(12.0).reshape(6, 2), device=device)
    y = g.permutation(x).asnumpy()
    assert sorted(y[:, 0].tolist()) == list(range(0, 12, 2))
    np.testing.assert_array_equal(y[:, 1] - y[:, 0], 1)
    g.shuffle(x)
    assert sorted(x.asnumpy()[:, 0].tolist()) == list(range(0, 12, 2))
    c = g.choice(50, size=20, replace=False).asnumpy()
    assert len(set(c.tolist())) == 20 and c.max() < 50
    r = g.choice(spirjit.asarray(np.array([5, 7]), device=device), size=100)
    assert set(r.asnumpy().tolist()) == {5, 7}
    children = g.spawn(3)
    draws = [c.random(4).asnumpy() for c in children]
    assert not np.array_equal(draws[0], draws[1])
    again = spirjit.random.default_rng(11, device=device).spawn(3)
    # children depend only on the parent's seed, as NumPy's do
    assert len(again) == 3


def test_bad_arguments_say_what_is_wrong(device):
    g = spirjit.random.default_rng(0, device=device)
    with pytest.raises(ValueError, match="low >= high"):
        g.integers(5, 5)
    with pytest.raises(ValueError, match="larger sample than population"):
        g.choice(3, size=5, replace=False)
    with pytest.raises(TypeError, match="float32 or float64"):
        g.random(3, dtype=np.int32)
    with pytest.raises(ValueError, match="negative dimensions"):
        g.random((-1, 2))
    assert isinstance(g.random(2), spirjit.DeviceArray)
    with pytest.raises(errors.SpirjitError):
        g.normal(0.0, -1.0, size=2)


@spirjit.kernel
def noise(item, out, seed):
    i = item.get_id(0)
    out[i, 0] = spirjit.random.philox_uniform(seed, i)
    out[i, 1] = spirjit.random.philox_normal(seed, i)


@spirjit.jit
def uniform_in_jit(n, seed):
    out = np.empty(n)
    for i in spirjit.prange(n):
        out[i] = spirjit.random.philox_uniform(seed, i)
    return out


def test_counter_based_functions_in_kernels_and_jit(device, require_dtypes):
    require_dtypes(np.float64)
    out = np.zeros((1000, 2))
    spirjit.call_kernel(noise, kapi.Range(1000), out, np.uint64(99))
    assert 0.0 <= out[:, 0].min() and out[:, 0].max() < 1.0
    assert abs(out[:, 0].mean() - 0.5) < 0.05
    assert abs(out[:, 1].mean()) < 0.15 and abs(out[:, 1].std() - 1) < 0.1
    words = philox_reference((7, 0, 0, 0), (99, 0))
    assert out[7, 0] == (((words[0] >> 6) << 27) | (words[1] >> 5)) / 2.0**53
    u1 = 1.0 - out[7, 0]
    u2 = (((words[2] >> 6) << 27) | (words[3] >> 5)) / 2.0**53
    assert out[7, 1] == pytest.approx(
        math.sqrt(-2 * math.log(u1)) * math.cos(2 * math.pi * u2), rel=1e-12)
    assert out[7, 1] == normal_reference((99, 0), 7, 1, 2, 0.0, 1.0)[0]
    np.testing.assert_array_equal(uniform_in_jit(1000, np.uint64(99)),
                                  out[:, 0])
