"""Sparse PCA by the truncated power method (Yuan and Zhang, JMLR 2013),
written once against the Array API: the same function runs on NumPy arrays
and on spirjit DeviceArrays, on every device.

    python examples/sparse_pca.py [--samples 4000] [--features 512] [--k 16]

The data are random samples (spirjit.random, the same numbers on every
device) with a planted sparse component. Each iteration multiplies by the
covariance without forming it (``X.T @ (X @ v)``), keeps the k entries of
largest magnitude (``argsort`` and a gather: the top-k), and normalises.
The script checks every device's answer against NumPy's on the same data.
"""

import argparse
import time

import numpy as np

import spirjit


def sparse_pca(X, k, iterations=50):
    """The leading k-sparse principal component of the samples X (rows),
    and the variance it explains; ``X``'s namespace computes everything."""
    xp = X.__array_namespace__()
    n, d = X.shape
    # Normalise: centre each feature and scale it to unit norm.
    X = X - xp.mean(X, axis=0)
    X = X / xp.linalg.vector_norm(X, axis=0)
    v = xp.ones(d, dtype=X.dtype, device=X.device) / d ** 0.5
    for _ in range(iterations):
        w = xp.matmul(xp.matrix_transpose(X), xp.matmul(X, v))
        # Truncate: keep the k largest magnitudes (the top-k), zero the rest.
        top = xp.argsort(-xp.abs(w))[:k]
        v = xp.zeros_like(w)
        v[top] = xp.take(w, top)
        v = v / xp.linalg.vector_norm(v)
    Xv = xp.matmul(X, v)
    return v, float(xp.vecdot(Xv, Xv))


def samples(n, d, k, device, seed=7):
    """n samples of d features: noise plus a planted component on k
    features, drawn by spirjit's generator on ``device``."""
    rng = spirjit.random.default_rng(seed, device=device)
    noise = rng.standard_normal((n, d), dtype=np.float64)
    weights = spirjit.zeros(d, device=device)
    weights[: k] = spirjit.asarray(np.linspace(1.0, 2.0, k), device=device)
    signal = rng.standard_normal((n, 1), dtype=np.float64) * 3.0
    return noise + signal * weights


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=4000)
    parser.add_argument("--features", type=int, default=512)
    parser.add_argument("--k", type=int, default=16)
    args = parser.parse_args()
    worst = 0.0
    for device in spirjit.devices():
        if not device.has_fp64:
            print(f"{device.filter_string}: no float64, skipped")
            continue
        X = samples(args.samples, args.features, args.k, device)
        start = time.perf_counter()
        v, variance = sparse_pca(X, args.k)
        v = spirjit.asnumpy(v)
        seconds = time.perf_counter() - start
        v_np, variance_np = sparse_pca(spirjit.asnumpy(X), args.k)
        support = np.flatnonzero(v)
        same = np.array_equal(support, np.flatnonzero(v_np))
        error = float(np.max(np.abs(v - v_np)))
        worst = max(worst, error)
        print(f"{device.filter_string:14} support {support.tolist()} "
              f"variance {variance:.4f} (NumPy {variance_np:.4f}), "
              f"|v - v_NumPy| = {error:.1e}, {seconds * 1e3:.1f} ms, "
              f"{'same support' if same else 'DIFFERENT SUPPORT'}")
        assert same and error < 1e-8, "the device and NumPy disagree"
    print(f"every device agrees with NumPy (largest difference {worst:.1e})")


if __name__ == "__main__":
    main()
