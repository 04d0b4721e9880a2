"""Sub-groups and work-group scans in kernels (API.md: SYCL's model beyond
numba-dpex's kapi), on every device and in the simulator, against answers
computed here with NumPy."""

import numpy as np
import pytest

import spirjit
from spirjit import errors
from spirjit import kernel_api as kapi


@spirjit.kernel
def scans(item: kapi.NdItem, x, out):
    g = item.get_group()
    i = item.get_global_id(0)
    v = x[i]
    out[i, 0] = kapi.group_inclusive_scan(g, v, "+")
    out[i, 1] = kapi.group_exclusive_scan(g, v, "+")
    out[i, 2] = kapi.group_inclusive_scan(g, v, "max")
    out[i, 3] = kapi.group_exclusive_scan(g, v, "min")


def expected_scans(x, local):
    out = np.zeros((x.size, 4), x.dtype)
    big = np.finfo(x.dtype).max if x.dtype.kind == "f" else \
        np.iinfo(x.dtype).max
    for start in range(0, x.size, local):
        g = x[start:start + local]
        out[start:start + local, 0] = np.cumsum(g, dtype=x.dtype)
        out[start:start + local, 1] = np.concatenate(
            [[0], np.cumsum(g, dtype=x.dtype)[:-1]])
        out[start:start + local, 2] = np.maximum.accumulate(g)
        ex = np.minimum.accumulate(g)[:-1]
        first = np.inf if x.dtype.kind == "f" else big
        out[start:start + local, 3] = np.concatenate([[first], ex])
    return out


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32])
@pytest.mark.parametrize("local", [1, 7, 40, 64, 100])
def test_group_scans(device, dtype, local):
    x = ((np.arange(3 * local) * 7) % 11 - 3).astype(dtype)
    out = np.zeros((x.size, 4), dtype)
    spirjit.call_kernel(scans, kapi.NdRange((x.size,), (local,)), x, out)
    np.testing.assert_array_equal(out, expected_scans(x, local))
    sim = np.zeros_like(out)
    kapi.call_kernel(scans, kapi.NdRange((x.size,), (local,)), x, sim)
    np.testing.assert_array_equal(sim, out)


@spirjit.kernel
def sub_groups(item: kapi.NdItem, x, out):
    sg = item.get_sub_group()
    i = item.get_global_id(0)
    v = x[i]
    out[i, 0] = sg.get_local_id()
    out[i, 1] = sg.get_local_range()
    out[i, 2] = sg.get_max_local_range()
    out[i, 3] = sg.get_group_id()
    out[i, 4] = sg.get_group_range()
    out[i, 5] = kapi.sub_group_reduce(sg, v, "+")
    out[i, 6] = kapi.sub_group_inclusive_scan(sg, v, "+")
    out[i, 7] = kapi.sub_group_exclusive_scan(sg, v, "^")
    out[i, 8] = kapi.shuffle(sg, v, 2)
    out[i, 9] = kapi.shuffle_xor(sg, v, 1)
    out[i, 10] = kapi.shuffle_down(sg, v, 1)
    out[i, 11] = kapi.shuffle_up(sg, v, 3)
    out[i, 12] = kapi.sub_group_broadcast(sg, v, 1)
    out[i, 13] = 1 if kapi.any_of(sg, v > 40) else 0
    out[i, 14] = 1 if kapi.all_of(sg, v > 0) else 0
    kapi.sub_group_barrier(sg)


def expected_sub_groups(x, local, width):
    out = np.zeros((x.size, 15), np.int64)
    for g0 in range(0, x.size, local):
        for s0 in range(g0, g0 + local, width):
            lanes = x[s0:min(s0 + width, g0 + local)]
            n = lanes.size
            for lane in range(n):
                row = out[s0 + lane]
                v = lanes[lane]
                row[:5] = [lane, n, width, (s0 - g0) // width,
                           -(-local // width)]
                row[5] = lanes.sum()
                row[6] = lanes[:lane + 1].sum()
                row[7] = np.bitwise_xor.reduce(lanes[:lane]) if lane else 0

                def at(k):
                    return lanes[k] if 0 <= k < n else v
                row[8:13] = [at(2), at(lane ^ 1), at(lane + 1),
                             at(lane - 3), at(1)]
                row[13] = (lanes > 40).any()
                row[14] = (lanes > 0).all()
    return out


@pytest.mark.parametrize("local", [5, 16, 40, 64])
def test_sub_group_functions(device, local):
    x = ((np.arange(2 * local) * 13) % 47 + 1).astype(np.int64)
    out = np.zeros((x.size, 15), np.int64)
    spirjit.call_kernel(sub_groups, kapi.NdRange((x.size,), (local,)), x, out)
    width = int(out[0, 2])
    assert width == (32 if device.backend == "cuda" else 16)
    np.testing.assert_array_equal(out, expected_sub_groups(x, local, width))
    sim = np.zeros_like(out)
    kapi.call_kernel(sub_groups, kapi.NdRange((x.size,), (local,)), x, sim)
    np.testing.assert_array_equal(
        sim, expected_sub_groups(x, local, kapi.SUB_GROUP_SIZE))


@spirjit.kernel
def ballots(item: kapi.NdItem, x, out):
    sg = item.get_sub_group()
    i = item.get_global_id(0)
    lanes = kapi.sub_group_ballot(sg, x[i] % 3 == 0)
    out[i, 0] = lanes
    # The lanes below this one whose value is this one's: a stable rank.
    same = np.uint32(0xFFFFFFFF)
    for b in range(4):
        bit = kapi.sub_group_ballot(sg, (x[i] >> b) & 1)
        same &= bit if (x[i] >> b) & 1 else ~bit
    below = same & ((np.uint32(1) << np.uint32(sg.get_local_id())) -
                    np.uint32(1))
    count = 0
    for b in range(32):
        count += (below >> np.uint32(b)) & np.uint32(1)
    out[i, 1] = count


@pytest.mark.parametrize("local", [5, 16, 40, 64])
def test_sub_group_ballot(device, local):
    x = ((np.arange(2 * local) * 7) % 13).astype(np.int64)
    out = np.zeros((x.size, 2), np.uint32)
    spirjit.call_kernel(ballots, kapi.NdRange((x.size,), (local,)), x, out)
    width = 32 if device.backend == "cuda" else 16

    def expected(width):
        want = np.zeros_like(out)
        for g0 in range(0, x.size, local):
            for s0 in range(g0, g0 + local, width):
                lanes = x[s0:min(s0 + width, g0 + local)]
                mask = sum(1 << k for k, v in enumerate(lanes) if v % 3 == 0)
                for lane, v in enumerate(lanes):
                    want[s0 + lane] = mask, (lanes[:lane] == v).sum()
        return want
    np.testing.assert_array_equal(out, expected(width))
    sim = np.zeros_like(out)
    kapi.call_kernel(ballots, kapi.NdRange((x.size,), (local,)), x, sim)
    np.testing.assert_array_equal(sim, expected(kapi.SUB_GROUP_SIZE))


@spirjit.kernel
def floats_and_bools(item: kapi.NdItem, x, out, flags):
    g = item.get_group()
    sg = item.get_sub_group()
    i = item.get_global_id(0)
    out[i] = kapi.sub_group_inclusive_scan(sg, x[i], "*") + \
        kapi.group_exclusive_scan(g, x[i], "*")
    some = kapi.any_of(g, x[i] > 1.5)
    every = kapi.all_of(g, x[i] > 1.5)
    flags[i] = some and not every


def test_float_products_and_bool_results(device):
    x = np.linspace(0.5, 2.0, 32).astype(np.float32)
    out = np.zeros(32, np.float32)
    flags = np.zeros(32, np.bool_)
    spirjit.call_kernel(floats_and_bools, kapi.NdRange((32,), (32,)), x, out,
                        flags)
    width = 32 if device.backend == "cuda" else 16
    want = np.empty(32, np.float32)
    for i in range(32):
        s0 = i - i % width
        want[i] = np.prod(x[s0:i + 1]) + np.prod(x[:i])
    np.testing.assert_allclose(out, want, rtol=1e-5)
    assert flags.all()


def test_wrong_groups_and_ops_are_typing_errors(device):
    x = np.zeros(16, np.float32)

    @spirjit.kernel
    def sub_group_as_group(item: kapi.NdItem, x):
        kapi.group_barrier(item.get_sub_group())

    @spirjit.kernel
    def group_as_sub_group(item: kapi.NdItem, x):
        x[0] = kapi.shuffle(item.get_group(), x[0], 1)

    @spirjit.kernel
    def bitwise_float(item: kapi.NdItem, x):
        x[0] = kapi.group_inclusive_scan(item.get_group(), x[0], "&")

    @spirjit.kernel
    def unknown_op(item: kapi.NdItem, x):
        x[0] = kapi.sub_group_reduce(item.get_sub_group(), x[0], "avg")

    @spirjit.kernel
    def ballot_of_group(item: kapi.NdItem, x):
        x[0] = kapi.sub_group_ballot(item.get_group(), x[0] > 0)

    @spirjit.kernel
    def ballot_of_array(item: kapi.NdItem, x):
        x[0] = kapi.sub_group_ballot(item.get_sub_group(), x)

    cases = [(sub_group_as_group, r"group_barrier\(\) needs the work-group"),
             (group_as_sub_group, r"shuffle\(\) needs the sub-group"),
             (ballot_of_group, r"sub_group_ballot\(\) needs the sub-group"),
             (ballot_of_array, r"sub_group_ballot\(\) takes a predicate"),
             (bitwise_float, r"op '&' combines integers or bools"),
             (unknown_op, r"op must be '\+', '\*', 'min', 'max', '&'")]
    for kernel, message in cases:
        with pytest.raises(errors.TypingError, match=message) as info:
            spirjit.call_kernel(kernel, kapi.NdRange((16,), (16,)), x)
        assert "test_sub_groups.py" in str(info.value)


def test_a_sub_group_function_in_a_branch_is_a_compile_error(device):
    @spirjit.kernel
    def divergent(item: kapi.NdItem, x):
        sg = item.get_sub_group()
        if item.get_local_id(0) < 8:
            x[0] = kapi.sub_group_reduce(sg, x[0], "+")

    with pytest.raises(errors.CompileError, match="test_sub_groups.py"):
        spirjit.call_kernel(divergent, kapi.NdRange((16,), (16,)),
                            np.zeros(16, np.float32))


def test_a_collective_in_a_branch_on_the_id_names_the_branch(device):
    # At the end of the kernel, the other side returns implicitly: the
    # message says the branch, not a `return` the user never wrote.
    @spirjit.kernel
    def partial(nd: kapi.NdItem, a):
        sg = nd.get_sub_group()
        if nd.get_local_id(0) < 3:
            a[nd.get_global_id(0)] = kapi.sub_group_reduce(sg, 1.0, "+")

    with pytest.raises(errors.CompileError,
                       match=r"'sub_group_reduce' runs only in the "
                             r"work-items that take one side of the branch "
                             r"at line \d+, which depends on the "
                             r"work-item's id"):
        spirjit.call_kernel(partial, kapi.NdRange(16, 8), np.zeros(16))
