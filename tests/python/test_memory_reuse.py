"""Freed DeviceArrays' memory is reused (runtime/MemoryPool.h): a reused
block never shows its old contents where the API promises values, and a
block still in use is never handed out again."""

import gc

import numpy as np

import spirjit


def test_zeros_and_full_after_a_dropped_array(device):
    n = 100_000
    junk = spirjit.asarray(np.full(n, 7.5), device=device)
    del junk
    gc.collect()
    np.testing.assert_array_equal(spirjit.zeros(n, device=device).asnumpy(),
                                  np.zeros(n))
    np.testing.assert_array_equal(
        spirjit.full(n, 2.0, device=device).asnumpy(), np.full(n, 2.0))
    np.testing.assert_array_equal(spirjit.ones(n, device=device).asnumpy(),
                                  np.ones(n))


def test_results_kept_alive_are_not_overwritten(device):
    # Each iteration's result is kept while temporaries of the same size
    # come and go: every result must keep its own values.
    a = np.arange(50_000, dtype=np.float32)
    da = spirjit.asarray(a, device=device)
    kept = []
    for k in range(8):
        kept.append(da * float(k) + 1.0)  # a temporary, then the result
        del_me = da - float(k)            # dropped at once
        del del_me
    for k, result in enumerate(kept):
        np.testing.assert_array_equal(result.asnumpy(), a * k + 1)


def test_memory_is_reused_across_calls(device):
    # Dropping and recreating arrays of one size keeps working for many
    # rounds (the pool hands the same blocks back).
    a = spirjit.asarray(np.ones((256, 256)), device=device)
    for _ in range(50):
        b = (a + a) * 0.5
        assert float(b.sum()) == 256 * 256
