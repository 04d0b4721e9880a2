"""Launches whose arrays share memory. The launcher compiles a kernel with
noalias array parameters only for launches whose arrays share no byte
(so that CPU runtimes vectorise loops that load one array and store
another); a launch passing one array twice, or overlapping views, must
get the answer the kernel's loops give in order."""

import numpy as np
import pytest

import spirjit
from spirjit import kernel_api as kapi


@spirjit.kernel
def shift_rows(item: kapi.Item, src, dst):
    # A recurrence when src is dst: each element reads the one just
    # written. A vectorised loop that loaded src ahead would not see it.
    i = item.get_id(0)
    for j in range(1, src.shape[1]):
        dst[i, j] = src[i, j - 1] + 1.0


def expected_shift(a, same):
    out = a.copy()
    src = out if same else a
    for j in range(1, a.shape[1]):
        out[:, j] = src[:, j - 1] + 1.0
    return out


@pytest.mark.parametrize("kind", ["numpy", "device"])
def test_one_array_as_both_arguments(device, kind):
    a = np.random.rand(16, 300)
    want = expected_shift(a, same=True)
    if kind == "numpy":
        x = a.copy()
        spirjit.call_kernel(shift_rows, kapi.Range(16), x, x)
        got = x
    else:
        x = spirjit.asarray(a, device=device)
        spirjit.call_kernel(shift_rows, kapi.Range(16), x, x)
        got = x.asnumpy()
    np.testing.assert_array_equal(got, want)


def test_disjoint_arrays(device):
    a = np.random.rand(16, 300)
    src = spirjit.asarray(a, device=device)
    dst = spirjit.asarray(a, device=device)
    spirjit.call_kernel(shift_rows, kapi.Range(16), src, dst)
    np.testing.assert_array_equal(dst.asnumpy(), expected_shift(a, False))


def test_overlapping_views_of_one_array(device):
    # src and dst are one array's columns, one apart: dst[i, j] is
    # x[i, j + 1] and src[i, j - 1] is x[i, j - 1], so each row is a
    # recurrence two elements apart (and rows do not meet: no race).
    a = np.random.rand(16, 300)
    x = spirjit.asarray(a, device=device)
    spirjit.call_kernel(shift_rows, kapi.Range(16), x[:, :-1], x[:, 1:])
    want = a.copy()
    for j in range(1, 299):
        want[:, j + 1] = want[:, j - 1] + 1.0
    np.testing.assert_array_equal(x.asnumpy(), want)


def test_disjoint_then_shared_launches_of_one_kernel(device):
    # The same kernel alternates between its two compiled forms.
    a = np.random.rand(8, 64)
    for _ in range(3):
        src = spirjit.asarray(a, device=device)
        dst = spirjit.asarray(a, device=device)
        spirjit.call_kernel(shift_rows, kapi.Range(8), src, dst)
        np.testing.assert_array_equal(dst.asnumpy(), expected_shift(a, False))
        spirjit.call_kernel(shift_rows, kapi.Range(8), src, src)
        np.testing.assert_array_equal(src.asnumpy(),
                                      expected_shift(a, True))


@spirjit.kernel
def shift_span(item: kapi.Item, whole, part, dst):
    # whole[j + 99] is dst[j - 1]: a recurrence through the read-only view.
    for j in range(1, dst.shape[0]):
        dst[j] = whole[j + 99] + part[0]


def test_read_only_views_overlap_each_other_but_not_the_written_one(device):
    # Read-only arrays may share bytes with each other and stay noalias
    # (nothing modifies them: the fused Jacobi sweep's views of u), but not
    # with a written one, even when, sorted by address, a read-only array
    # between them overlaps neither.
    base = np.random.rand(400)
    whole, part = base[0:400], base[50:60]
    whole.flags.writeable = False
    part.flags.writeable = False
    dst = base[100:300]
    want = base.copy()
    for j in range(1, 200):
        want[100 + j] = want[99 + j] + want[50]
    spirjit.call_kernel(shift_span, kapi.Range(1), whole, part, dst)
    np.testing.assert_array_equal(base, want)
