"""Data constructs of numba's parallel programs in @spirjit.jit host code
(issue 29): reading an array through a boolean mask (a[mask], a 1-D array
in NumPy's order on the arrays' device) and through an array of integers;
np.random's numbers and arrays (ranges, dtypes, shapes, reproducibility
after a seed, moments); np.array of literals, tuples joined and indexed by
a variable, list literals. On NumPy arrays and DeviceArrays of every
device, compared with NumPy; what jit code does not take is an error of
spirjit's class at the user's line."""

import numpy as np
import pytest

import spirjit
from spirjit import jit, prange
from spirjit.errors import UnsupportedFeatureError

from source_markers import marked_line, raises_at


def on(device, *arrays):
    return [spirjit.asarray(x, device=device) for x in arrays]


def host(x):
    return np.asarray(x.asnumpy() if hasattr(x, "asnumpy") else x)


def scrambled(shape, dtype=np.float64):
    """Values of `shape` with no order to them, some negative."""
    n = int(np.prod(shape))
    values = (np.arange(n) * 7919 % 23) - 9
    return values.astype(dtype).reshape(shape)


@jit
def select(a, mask):
    return a[mask]  # <- select


@jit
def positives(a):
    return a[a > 0]


@jit
def masked_uses(a, b):
    # A read through a mask inside expressions, of an expression's mask.
    picked = a[(a > 0) & (b < 5)]
    return picked.sum(), picked * 2, a[b > 100].size


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32,
                                   np.int64, np.bool_])
def test_a_mask_selects_numpys_elements(device, require_dtypes, dtype):
    require_dtypes(dtype)
    a = scrambled(1000, dtype)
    mask = scrambled(1000) > 0
    got = select(a, mask)
    assert got.dtype == a.dtype and got.shape == a[mask].shape
    np.testing.assert_array_equal(got, a[mask])
    np.testing.assert_array_equal(positives(a), a[a > 0])


@pytest.mark.parametrize("shape", [(0,), (1,), (5,), (70000,), (30, 7),
                                   (3, 4, 5), (0, 3)])
def test_masks_of_every_rank_keep_c_order(device, require_dtypes, shape):
    require_dtypes(np.float64)
    a = scrambled(shape)
    for mask in (a > 0, a < 100, a > 100):  # some, all and no elements
        np.testing.assert_array_equal(select(a, mask), a[mask])


def test_views_and_device_arrays(device, require_dtypes):
    require_dtypes(np.float64)
    a = scrambled((20, 30))
    view = a[2:18:3, ::-2]
    np.testing.assert_array_equal(select(view, view > 2), view[view > 2])
    np.testing.assert_array_equal(select(a.T, a.T > 0), a.T[a.T > 0])
    d, m = on(device, a, a > 0)
    got = select(d, m)
    assert isinstance(got, spirjit.DeviceArray)
    assert got.device == device
    np.testing.assert_array_equal(host(got), a[a > 0])


def test_reads_through_masks_inside_expressions(device, require_dtypes):
    require_dtypes(np.float64)
    a, b = scrambled(500), scrambled(500)[::-1].copy()
    want = a[(a > 0) & (b < 5)]
    total, doubled, none = masked_uses(a, b)
    assert total == want.sum()
    np.testing.assert_array_equal(doubled, want * 2)
    assert none == 0


@jit
def gathered(a, idx):
    return a[idx]


def test_a_gather_alone_is_numpys(device, require_dtypes):
    require_dtypes(np.float64)
    a = scrambled(50)
    idx = np.array([[4, -1], [0, 49], [7, 7]])
    np.testing.assert_array_equal(gathered(a, idx), a[idx])
    got = gathered(*on(device, a, idx))
    assert isinstance(got, spirjit.DeviceArray)
    np.testing.assert_array_equal(host(got), a[idx])


@jit
def count_then_allocate(a):
    # A prange reduction's result sizes an array (regression: the
    # constructor's argument named the reduction before the launch took
    # its place).
    total = 0
    for i in prange(a.shape[0]):
        if a[i] > 0:
            total += 1
    return np.zeros(total)


def test_a_reduction_sizes_an_array(device, require_dtypes):
    require_dtypes(np.float64)
    a = scrambled(100)
    np.testing.assert_array_equal(count_then_allocate(a),
                                  np.zeros((a > 0).sum()))


def test_a_mask_of_another_shape_is_numpys_error(device, require_dtypes):
    require_dtypes(np.float64)
    with pytest.raises(ValueError) as info:
        select(np.zeros((3, 4)), np.ones((3, 5), bool))
    message = str(info.value)
    assert message.startswith(
        f"{__file__}:{marked_line(__file__, 'select')}: ")
    assert message.endswith(
        "boolean index did not match indexed array along axis 1; size of "
        "axis is 4 but size of corresponding boolean axis is 5")


@jit
def rows_by_mask(a, mask):
    return a[mask]  # <- row-mask


@jit
def mask_in_a_loop(a, out):
    for i in prange(out.shape[0]):
        out[i] = a[a > i].sum()  # <- mask-in-loop
    return out


def test_what_a_mask_read_does_not_take(device, require_dtypes):
    require_dtypes(np.float64)
    with pytest.raises(UnsupportedFeatureError) as info:
        rows_by_mask(np.zeros((3, 4)), np.ones(3, bool))
    message = str(info.value)
    assert f"test_jit_data.py:{marked_line(__file__, 'row-mask')}: " \
        in message
    assert "this mask has 1 dimension(s), the array 2" in message
    with pytest.raises(UnsupportedFeatureError) as info:
        mask_in_a_loop(np.arange(5.0), np.zeros(3))
    message = str(info.value)
    assert f"test_jit_data.py:{marked_line(__file__, 'mask-in-loop')}: " \
        in message
    assert "a[mask] (a boolean mask) makes a new array" in message


@jit
def doubled(a, out):
    for i in prange(a.shape[0] - 1):
        out[i] = 2 * a[i + 1] + a[0]


@jit
def doubled_then_positives(a, out):
    for i in prange(a.shape[0]):
        out[i] = 2 * a[i]
    return out[out > 0]


def test_a_mask_read_after_a_prange_loop(device, require_dtypes):
    require_dtypes(np.float64)
    a = scrambled((40,))
    got = doubled_then_positives(*on(device, a, np.zeros(40)))
    np.testing.assert_array_equal(host(got), (2 * a)[2 * a > 0])


def test_a_description_has_the_librarys_mask_read_only_when_asked():
    # Describing the jit library's a[mask] takes a fresh process's first
    # call milliseconds: the compiler asks for it once types show a read
    # through a mask (LibraryOperationsNeeded), and the function is
    # described again with it.
    from spirjit._describe import describe_function
    key = "spirjit.mask_index#2"
    for fn in (doubled, doubled_then_positives, select):
        assert key not in describe_function(fn.py_func)["library"]
    assert key in describe_function(select.py_func,
                                    operations=["mask_index"])["library"]


@jit
def positives_of(a):
    return a[a > 0]


@jit
def calls_a_mask_read(a):
    # The read is in the inlined callee, and in a lambda.
    pick = lambda x: x[x < 0]  # noqa: E731
    return positives_of(a).sum() + pick(a).sum()


def test_a_mask_read_in_a_callee_or_a_lambda(device, require_dtypes):
    require_dtypes(np.float64)
    a = scrambled((30,))
    got = calls_a_mask_read(*on(device, a))
    assert got == pytest.approx(a[a > 0].sum() + a[a < 0].sum())


# np.random (numba's: each thread its own generator; not NumPy's stream).
# Every test seeds first, so each draw is the same in every run: the
# statistics below are of fixed numbers, their bounds five standard errors
# wide.


@jit
def host_scalars(seed):
    np.random.seed(seed)
    return (np.random.random(), np.random.rand(), np.random.randn(),
            np.random.uniform(2.0, 3.0), np.random.normal(10.0, 0.5),
            np.random.randint(5, 9), np.random.randint(3),
            np.random.random_sample(), np.random.sample(), np.random.ranf())


def test_host_scalars_are_in_range_and_reproducible(device):
    first = host_scalars(7)
    assert first == host_scalars(7)
    assert first != host_scalars(8)
    (r, rand, randn, uniform, normal, integer, below,
     *aliases) = first
    assert all(isinstance(x, float) for x in (r, rand, randn, uniform,
                                              normal, *aliases))
    assert isinstance(integer, int) and isinstance(below, int)
    assert 0.0 <= r < 1.0 and 0.0 <= rand < 1.0
    assert all(0.0 <= x < 1.0 for x in aliases)
    assert 2.0 <= uniform < 3.0 and 5 <= integer < 9 and 0 <= below < 3
    assert abs(randn) < 10 and abs(normal - 10.0) < 5


@jit
def seed_only(seed):
    np.random.seed(seed)
    return 0


@jit
def one_draw():
    return np.random.random()


def test_a_seed_holds_across_calls(device):
    seed_only(3)
    first, second = one_draw(), one_draw()
    assert first != second
    seed_only(3)
    assert (one_draw(), one_draw()) == (first, second)


@jit
def loop_draws(n, seed):
    np.random.seed(seed)
    u = np.empty(n)
    z = np.empty(n)
    k = np.empty(n, np.int64)
    for i in prange(n):
        u[i] = np.random.uniform(-1.0, 3.0)
        z[i] = np.random.normal(2.0, 3.0)
        k[i] = np.random.randint(-4, 6)
    return u, z, k


def check_moments(x, mean, variance):
    n = x.size
    assert abs(x.mean() - mean) < 5 * np.sqrt(variance / n)
    assert abs(x.var() - variance) < 5 * variance * np.sqrt(2.0 / n)


def test_prange_bodies_draw_independent_streams(device, require_dtypes):
    require_dtypes(np.float64)
    n = 100_000
    u, z, k = loop_draws(n, 11)
    assert u.dtype == np.float64 and k.dtype == np.int64
    assert u.min() >= -1.0 and u.max() < 3.0
    assert k.min() == -4 and k.max() == 5
    check_moments(u, 1.0, 16.0 / 12.0)
    check_moments(z, 2.0, 9.0)
    check_moments(k, 0.5, (10 ** 2 - 1) / 12.0)
    counts = np.bincount(k + 4, minlength=10)
    assert np.all(np.abs(counts - n / 10) < 5 * np.sqrt(n / 10))
    assert len(np.unique(u)) == n  # no iteration repeats another's draws
    again = loop_draws(n, 11)
    for x, y in zip((u, z, k), again):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(u, loop_draws(n, 12)[0])


@jit
def estimate_pi(n, seed):
    np.random.seed(seed)
    inside = 0
    for i in prange(n):
        x = np.random.random()
        y = np.random.random()
        if x * x + y * y < 1.0:
            inside += 1
    return 4.0 * inside / n


@jit
def grid_draws(n, m, seed):
    np.random.seed(seed)
    out = np.empty((n, m))
    rows = np.empty((n, m))
    for i in prange(n):
        for j in prange(m):
            out[i, j] = np.random.random()
        for j in range(m):
            rows[i, j] = np.random.random()
    return out, rows


def test_reductions_and_nested_loops_draw_apart(device, require_dtypes):
    require_dtypes(np.float64)
    n = 400_000
    p = np.pi / 4
    assert abs(estimate_pi(n, 5) - np.pi) < 5 * 4 * np.sqrt(p * (1 - p) / n)
    assert estimate_pi(n, 5) == estimate_pi(n, 5)
    out, rows = grid_draws(60, 70, 2)
    assert len(np.unique(out)) == out.size
    assert len(np.unique(rows)) == rows.size
    assert not np.intersect1d(out, rows).size
    for x in (out, rows):
        check_moments(x, 0.5, 1.0 / 12.0)


@jit
def walk(n, steps, seed):
    # Each step's loop takes its own stream: the steps' draws add up.
    np.random.seed(seed)
    x = np.zeros(n)
    for t in range(steps):
        for i in prange(n):
            x[i] += np.random.normal()
    return x


@jit
def nd_draws(n, m, seed):
    np.random.seed(seed)
    out = np.empty((n, m))
    for i, j in spirjit.pndindex(n, m):
        out[i, j] = np.random.random()
    return out


def test_loops_over_time_and_pndindex_draw_apart(device, require_dtypes):
    require_dtypes(np.float64)
    check_moments(walk(20_000, 4, 9), 0.0, 4.0)
    out = nd_draws(30, 40, 9)
    assert len(np.unique(out)) == out.size
    check_moments(out, 0.5, 1.0 / 12.0)


@jit
def arrays_of_draws(seed):
    np.random.seed(seed)
    return (np.random.random(1000), np.random.random((20, 30)),
            np.random.rand(7), np.random.rand(4, 5), np.random.rand(2, 3, 4),
            np.random.randn(3000), np.random.randn(6, 7),
            np.random.uniform(5.0, 6.0, 500),
            np.random.normal(-1.0, 0.5, (40, 50)),
            np.random.randint(0, 3, 900), np.random.random(size=8),
            np.random.normal(0.0, 1.0, size=(2, 2)))


def test_arrays_of_draws_take_numpys_shapes(device, require_dtypes):
    require_dtypes(np.float64)
    got = arrays_of_draws(21)
    shapes = [(1000,), (20, 30), (7,), (4, 5), (2, 3, 4), (3000,), (6, 7),
              (500,), (40, 50), (900,), (8,), (2, 2)]
    assert [x.shape for x in got] == shapes
    assert all(x.dtype == np.float64 for i, x in enumerate(got) if i != 9)
    assert got[9].dtype == np.int64
    for x in got[:5]:
        assert x.min() >= 0.0 and x.max() < 1.0
    check_moments(got[0], 0.5, 1.0 / 12.0)
    check_moments(got[5], 0.0, 1.0)
    assert got[7].min() >= 5.0 and got[7].max() < 6.0
    check_moments(got[8], -1.0, 0.25)
    assert set(np.unique(got[9])) == {0, 1, 2}
    for x, y in zip(got, arrays_of_draws(21)):
        np.testing.assert_array_equal(x, y)


@jit
def seed_in_a_loop(n):
    out = np.zeros(n)
    for i in prange(n):
        np.random.seed(i)  # <- seed-in-loop
        out[i] = np.random.random()
    return out


@jit
def unknown_draw():
    return np.random.choice(3)  # <- choice


@jit
def size_alone():
    return np.random.normal(size=3)  # <- size-alone


@jit
def rand_of_four():
    return np.random.rand(1, 2, 3, 4)  # <- rand-4


@spirjit.kernel
def draws_in_a_kernel(item: spirjit.kernel_api.Item, a):
    a[item.get_id(0)] = np.random.random()  # <- kernel-draw


@pytest.mark.parametrize("call, marker, text", [
    (lambda: seed_in_a_loop(4), "seed-in-loop",
     "np.random.seed() in a prange loop's body"),
    (unknown_draw, "choice", "np.random.choice() is not in jit code; of "
     "np.random it takes seed, random, random_sample, sample, ranf, rand, "
     "randn, uniform, normal, randint"),
    (size_alone, "size-alone", "np.random.normal(size=...) in jit code "
     "takes the parameters before size too"),
    (rand_of_four, "rand-4", "np.random.rand() takes 0 or 1 or 2 or 3 "
     "argument(s) in jit code, not 4"),
    (lambda: spirjit.call_kernel(draws_in_a_kernel,
                                 spirjit.kernel_api.Range(4), np.zeros(4)),
     "kernel-draw", "np.random.random() draws in jit functions (host code "
     "and prange bodies), not in kernels"),
])
def test_what_np_random_does_not_take(device, call, marker, text):
    raises_at(UnsupportedFeatureError, call, __file__, marker, text)


# np.array of literals, tuples joined and indexed at run time; list
# literals are tuples of a constant length.


@jit
def literal_arrays(x):
    return (np.array([1.0, 2.0, 3.0]), np.array([[1, 2], [3, 4], [5, x]]),
            np.array(((True, False), (False, True))),
            np.array([1, 2.5], dtype=np.float32),
            np.asarray([x, x + 1, x + 2, 7, 8]),
            np.array([[[1], [2]], [[3], [4]]]), np.array([x, 2.5]),
            np.array([]))


def test_np_array_of_literals_is_numpys(device):
    x = 9
    want = (np.array([1.0, 2.0, 3.0]), np.array([[1, 2], [3, 4], [5, x]]),
            np.array(((True, False), (False, True))),
            np.array([1, 2.5], dtype=np.float32),
            np.asarray([x, x + 1, x + 2, 7, 8]),
            np.array([[[1], [2]], [[3], [4]]]), np.array([x, 2.5]),
            np.array([]))
    for got, expected in zip(literal_arrays(x), want):
        assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_array_equal(got, expected)


@jit
def stencil_weights(a):
    # A literal array used as numba programs use one: weights in a loop.
    w = np.array([0.25, 0.5, 0.25])
    out = np.zeros_like(a)
    for i in prange(1, a.shape[0] - 1):
        out[i] = w[0] * a[i - 1] + w[1] * a[i] + w[2] * a[i + 1]
    return out


def test_a_literal_array_reaches_the_device(device, require_dtypes):
    require_dtypes(np.float64)
    a = scrambled(50)
    want = np.zeros_like(a)
    want[1:-1] = 0.25 * a[:-2] + 0.5 * a[1:-1] + 0.25 * a[2:]
    np.testing.assert_allclose(stencil_weights(a), want)
    got = stencil_weights(*on(device, a))
    np.testing.assert_allclose(host(got), want)


@jit
def tuples_at_run_time(i, j, x):
    t = (1.0, 2.0) + (3.0, x)
    u = (10, 20, 30)
    shape = (2,) + (3,)
    return t[i], u[j], len(t), t, np.zeros(shape).shape


def test_tuples_join_and_take_variable_indices(device):
    for i, j in ((3, -1), (0, 1), (-4, 0)):
        t = (1.0, 2.0) + (3.0, 4.5)
        u = (10, 20, 30)
        assert tuples_at_run_time(i, j, 4.5) == (t[i], u[j], 4, t, (2, 3))


@jit
def list_literals(n):
    xs = [1.0, 2.0, 3.0]
    total = 0.0
    for x in xs:
        total += x
    return total, len(xs), xs[n], xs[-1], np.array(xs + [4.0]).sum()


def test_list_literals_are_read_as_tuples(device):
    assert list_literals(0) == (6.0, 3, 1.0, 3.0, 10.0)
    assert list_literals(2)[2] == 3.0


@jit
def mixed_tuple(i):
    t = (1.0, np.zeros(3))
    return t[i]  # <- mixed-tuple


@jit
def ragged_array():
    return np.array([[1.0, 2.0], [3.0]])  # <- ragged


@jit
def array_in_a_loop(n):
    out = np.zeros(n)
    for i in prange(n):
        out[i] = np.array((1.0, 2.0))[0]  # <- array-in-loop
    return out


@jit
def list_in_a_loop(n):
    out = np.zeros(n)
    for i in prange(n):
        out[i] = [1.0, 2.0][1]  # <- list-in-loop
    return out


@pytest.mark.parametrize("call, marker, kind, text", [
    (lambda: mixed_tuple(0), "mixed-tuple", spirjit.errors.TypingError,
     "a tuple indexed by a variable must hold elements of one type"),
    (ragged_array, "ragged", UnsupportedFeatureError, "np.array() in jit "
     "code takes a list or tuple of numbers, or nested lists or tuples of "
     "one length per level"),
    (lambda: array_in_a_loop(3), "array-in-loop", UnsupportedFeatureError,
     "np.array() makes an array, which a kernel or a prange body cannot"),
    (lambda: list_in_a_loop(3), "list-in-loop", UnsupportedFeatureError,
     "'list' is not supported in spirjit kernels"),
])
def test_what_literals_do_not_take(device, call, marker, kind, text):
    raises_at(kind, call, __file__, marker, text)
