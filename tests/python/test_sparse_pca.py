"""examples/sparse_pca.py: the truncated power method, written once against
the Array API, finds the planted component on every device with NumPy's
answer on the same data, through NumPy in place and through the kernels."""

import os
import sys

import numpy as np
import pytest

import spirjit
from spirjit import _array_primitives

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "examples"))
import sparse_pca  # noqa: E402


@pytest.mark.parametrize("host", [True, False], ids=["numpy-in-place",
                                                     "kernels"])
def test_sparse_pca_matches_numpy_on_every_device(device, require_dtypes,
                                                  host):
    require_dtypes(np.float64)
    if host and not spirjit.empty(1, device=device)._host_addressable:
        pytest.skip("the host does not address this device's memory")
    with _array_primitives.use_host(host):
        X = sparse_pca.samples(300, 40, 5, device)
        v, variance = sparse_pca.sparse_pca(X, 5, iterations=20)
        assert isinstance(v, spirjit.DeviceArray) and v.device == device
        v_np, variance_np = sparse_pca.sparse_pca(spirjit.asnumpy(X), 5,
                                                  iterations=20)
    got = spirjit.asnumpy(v)
    np.testing.assert_array_equal(np.flatnonzero(got), np.arange(5))
    np.testing.assert_allclose(got, v_np, atol=1e-10)
    assert variance == pytest.approx(variance_np, rel=1e-10)
