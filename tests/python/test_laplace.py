"""examples/laplace: every version of the solver gives the same grid, to
1e-12, on a small grid (the device versions on every device), and the
tolerance stop works."""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "examples", "laplace"))
import laplace  # noqa: E402

TOLERANCE = 1e-12  # float64 grids; the versions sum in different orders


@pytest.fixture(scope="module")
def reference():
    return laplace.solve("python", 17, 23, 40)


@pytest.mark.parametrize("version", [
    "numpy", "kernel", "device_array", "dpjit"])
def test_versions_agree(device_filter, reference, version):
    grid, done, residual = laplace.solve(version, 17, 23, 40)
    expected, _, expected_residual = reference
    assert done == 40
    np.testing.assert_allclose(grid, expected, atol=TOLERANCE, rtol=0)
    assert residual == pytest.approx(expected_residual, rel=1e-9)


def test_tolerance_stops_early(device_filter):
    _, done, residual = laplace.solve("kernel", 12, 12, 10000, tol=1e-6)
    _, numpy_done, _ = laplace.solve("numpy", 12, 12, 10000, tol=1e-6)
    assert residual < 1e-6 and done == numpy_done < 10000
