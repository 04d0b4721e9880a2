"""The kernel API ("kapi"), named as in numba-dpex so kernels port by changing
imports. Inside a compiled kernel these names are compile-time constructs;
outside, they are plain Python objects: the simulator (`call_kernel`) runs a
kernel with them, item by item, so it can be stepped through with pdb."""

import enum
import inspect
import itertools
import numbers
import operator
import sys
import threading

import numpy as np

from . import errors
from .errors import InvalidRangeError

__all__ = [
    "Range", "NdRange", "Item", "NdItem", "Group", "LocalAccessor",
    "PrivateArray", "AtomicRef", "MemoryOrder", "MemoryScope", "AddressSpace",
    "group_barrier", "atomic_fence", "group_reduce", "group_broadcast",
    "group_inclusive_scan", "group_exclusive_scan", "any_of", "all_of",
    "SubGroup", "sub_group_barrier", "shuffle", "shuffle_xor", "shuffle_down",
    "shuffle_up", "sub_group_broadcast", "sub_group_reduce",
    "sub_group_inclusive_scan", "sub_group_exclusive_scan",
    "sub_group_ballot", "call_kernel",
]


class MemoryOrder(enum.IntEnum):
    RELAXED = 0
    ACQUIRE = 1
    RELEASE = 3
    ACQ_REL = 4
    SEQ_CST = 5


class MemoryScope(enum.IntEnum):
    WORK_ITEM = 0
    SUB_GROUP = 1
    WORK_GROUP = 2
    DEVICE = 3
    SYSTEM = 4


class AddressSpace(enum.IntEnum):
    PRIVATE = 0
    GLOBAL = 1
    CONSTANT = 2
    LOCAL = 3
    GENERIC = 4


_MAX_EXTENT = 2**63 - 1


def _extent(value, what):
    # Python and NumPy integers only: bool and floats (even 2.0) are refused.
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidRangeError(
            f"{what} must be an integer, not {type(value).__name__} {value!r}")
    value = operator.index(value)
    if value <= 0:
        raise InvalidRangeError(f"{what} must be positive, got {value}")
    # Extents travel as int64; a larger one could never launch anyway.
    if value > _MAX_EXTENT:
        raise InvalidRangeError(
            f"{what} is {value}, more than a launch can have (2**63 - 1); "
            "split the work into several launches")
    return value


class Range(tuple):
    """The global index space of a launch: 1 to 3 extents, dimension 0 the
    slowest-varying (row-major, as NumPy's C order)."""

    def __new__(cls, *extents):
        if len(extents) == 1 and isinstance(extents[0], (tuple, list)):
            extents = tuple(extents[0])
        if not 1 <= len(extents) <= 3:
            raise InvalidRangeError(
                f"a Range has 1 to 3 dimensions, got {len(extents)}")
        # A positive int passes as it is (the library's launches build a
        # range or two a call); anything else takes _extent's checks.
        return super().__new__(cls, tuple(
            e if type(e) is int and 0 < e <= _MAX_EXTENT
            else _extent(e, f"Range extent {d}")
            for d, e in enumerate(extents)))

    @property
    def ndim(self):
        return len(self)

    def __repr__(self):
        return "Range(" + ", ".join(str(e) for e in self) + ")"


def _as_range(value, what):
    if isinstance(value, Range):
        return value
    if isinstance(value, (tuple, list)):
        return Range(*value)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidRangeError(
            f"{what} must be a Range, a tuple or an integer, not "
            f"{type(value).__name__} {value!r}")
    return Range(value)


class NdRange:
    """A global range divided into work-groups of `local_range`."""

    def __init__(self, global_range, local_range):
        self.global_range = _as_range(global_range, "NdRange's global range")
        self.local_range = _as_range(local_range, "NdRange's local range")
        if len(self.global_range) != len(self.local_range):
            raise InvalidRangeError(
                f"NdRange's global range {tuple(self.global_range)} and local "
                f"range {tuple(self.local_range)} have different ranks")
        for d, (g, l) in enumerate(zip(self.global_range, self.local_range)):
            if g % l:
                raise InvalidRangeError(
                    f"NdRange: the global extent {g} of dimension {d} is not "
                    f"divisible by the local extent {l}")

    @property
    def ndim(self):
        return len(self.global_range)

    def __repr__(self):
        return f"NdRange({self.global_range!r}, {self.local_range!r})"


def _linear(index, extents):
    linear = 0
    for i, n in zip(index, extents):
        linear = linear * n + i
    return linear


def _product(extents):
    total = 1
    for n in extents:
        total *= n
    return total


class Item:
    """The work item of a Range launch (a kernel's first parameter)."""

    def __init__(self, index, extents):
        self._index = tuple(index)
        self._extents = tuple(extents)

    @property
    def dimensions(self):
        return len(self._extents)

    def get_id(self, dim):
        return self._index[dim]

    def get_range(self, dim):
        return self._extents[dim]

    def get_linear_id(self):
        return _linear(self._index, self._extents)

    def get_linear_range(self):
        return _product(self._extents)


class Group:
    """The work-group of an NdItem."""

    def __init__(self, group_id, group_range, local_range, shared):
        self._id = tuple(group_id)
        self._range = tuple(group_range)
        self._local = tuple(local_range)
        self._shared = shared  # simulator state of this group

    @property
    def dimensions(self):
        return len(self._id)

    def get_group_id(self, dim):
        return self._id[dim]

    def get_group_linear_id(self):
        return _linear(self._id, self._range)

    def get_group_range(self, dim):
        return self._range[dim]

    def get_group_linear_range(self):
        return _product(self._range)

    def get_local_range(self, dim):
        return self._local[dim]

    def get_local_linear_range(self):
        return _product(self._local)


class NdItem:
    """The work item of an NdRange launch."""

    def __init__(self, global_id, local_id, global_range, group):
        self._global = tuple(global_id)
        self._local = tuple(local_id)
        self._global_range = tuple(global_range)
        self._group = group

    @property
    def dimensions(self):
        return len(self._global)

    def get_global_id(self, dim):
        return self._global[dim]

    def get_local_id(self, dim):
        return self._local[dim]

    def get_global_range(self, dim):
        return self._global_range[dim]

    def get_local_range(self, dim):
        return self._group._local[dim]

    def get_global_linear_id(self):
        return _linear(self._global, self._global_range)

    def get_local_linear_id(self):
        return _linear(self._local, self._group._local)

    def get_global_linear_range(self):
        return _product(self._global_range)

    def get_local_linear_range(self):
        return _product(self._group._local)

    def get_group(self):
        return self._group

    def get_sub_group(self):
        return SubGroup(self._group, self.get_local_linear_id())


# The simulator's sub-group width: that of spirjit's OpenCL, Level Zero and
# native devices (NVIDIA GPUs' is a warp, 32). Kernels ask the sub-group.
SUB_GROUP_SIZE = 16


class SubGroup:
    """The sub-group of an NdItem: consecutive local linear ids of its
    work-group, ``get_max_local_range()`` of them (the last sub-group of a
    group may have fewer). spirjit computes sub-group functions through
    the work-group's local memory and barriers, so, like group functions,
    every work-item of the work-group must reach them."""

    def __init__(self, group, me):
        self._group = group
        self._me = me
        size = group.get_local_linear_range()
        self._base = me - me % SUB_GROUP_SIZE
        self._count = min(SUB_GROUP_SIZE, size - self._base)
        self._groups = -(-size // SUB_GROUP_SIZE)

    def get_local_id(self):
        return self._me - self._base

    def get_local_range(self):
        return self._count

    def get_max_local_range(self):
        return SUB_GROUP_SIZE

    def get_group_id(self):
        return self._me // SUB_GROUP_SIZE

    def get_group_range(self):
        return self._groups


class LocalAccessor:
    """Work-group local memory, passed as a kernel argument (NdRange launches
    only): each work-group sees its own array of `shape` and `dtype`."""

    def __init__(self, shape, dtype):
        if isinstance(shape, numbers.Integral):
            shape = (shape,)
        self.shape = tuple(_extent(s, "LocalAccessor extent") for s in shape)
        if not 1 <= len(self.shape) <= 3:
            raise InvalidRangeError("a LocalAccessor has 1 to 3 dimensions")
        self.dtype = np.dtype(dtype)
        self.ndim = len(self.shape)

    @property
    def nbytes(self):
        return _product(self.shape) * self.dtype.itemsize

    def __repr__(self):
        return f"LocalAccessor({self.shape}, {self.dtype})"

    def _outside_a_kernel(self, *args):
        raise errors.NotSupportedError(
            "a LocalAccessor's memory exists only inside a kernel launched "
            "over an NdRange (one array per work-group); index it there")

    __getitem__ = __setitem__ = _outside_a_kernel


def PrivateArray(shape, dtype, fill_zeros=False):
    """A per-work-item array; `shape` and `dtype` are compile-time constants
    in kernels. (Here, outside a compiled kernel: a NumPy array.)"""
    if fill_zeros:
        return np.zeros(shape, dtype=dtype)
    return np.empty(shape, dtype=dtype)


_atomic_lock = threading.Lock()


class AtomicRef:
    """An atomic view of one element of a global array or LocalAccessor."""

    _DTYPES = tuple(np.dtype(t) for t in (np.int32, np.uint32, np.int64,
                                          np.uint64, np.float32, np.float64))

    def __init__(self, ref, index=0, memory_order=MemoryOrder.RELAXED,
                 memory_scope=MemoryScope.DEVICE,
                 address_space=AddressSpace.GLOBAL):
        dtype = getattr(ref, "dtype", None)
        if dtype not in self._DTYPES or not hasattr(ref, "__setitem__"):
            what = f"an array of {dtype}" if dtype is not None \
                else f"a '{type(ref).__name__}'"
            raise errors.TypingError(
                f"AtomicRef refers to an element of an array of "
                f"int32, uint32, int64, uint64, float32 or "
                f"float64, not {what}")
        self._ref = ref
        self._index = index

    def _rmw(self, update):
        with _atomic_lock:
            old = self._ref[self._index]
            self._ref[self._index] = update(old)
            return old

    def fetch_add(self, v):
        return self._rmw(lambda old: old + v)

    def fetch_sub(self, v):
        return self._rmw(lambda old: old - v)

    def fetch_min(self, v):
        return self._rmw(lambda old: min(old, v))

    def fetch_max(self, v):
        return self._rmw(lambda old: max(old, v))

    def fetch_and(self, v):
        return self._rmw(lambda old: old & v)

    def fetch_or(self, v):
        return self._rmw(lambda old: old | v)

    def fetch_xor(self, v):
        return self._rmw(lambda old: old ^ v)

    def exchange(self, v):
        return self._rmw(lambda old: v)

    def load(self):
        with _atomic_lock:
            return self._ref[self._index]

    def store(self, v):
        with _atomic_lock:
            self._ref[self._index] = v

    def compare_exchange(self, expected_ref, desired, expected_idx=0):
        with _atomic_lock:
            old = self._ref[self._index]
            if old == expected_ref[expected_idx]:
                self._ref[self._index] = desired
                return True
            expected_ref[expected_idx] = old
            return False


def group_barrier(group, fence_scope=MemoryScope.WORK_GROUP):
    """Waits until every work-item of `group` arrives."""
    group._shared.barrier.wait()


class _GroupBarrier:
    """threading.Barrier for a work-group's items that also knows which
    items returned: a barrier one of them never comes to raises at once
    (a CompileError, as the compiler's check where it can see it), where
    threading.Barrier waited forever."""

    def __init__(self, parties):
        self._parties = parties
        self._cond = threading.Condition()
        self._count = 0        # arrived at the barrier now filling
        self._generation = 0   # barriers filled so far
        self._gone = 0         # items that returned
        self._broken = False

    def wait(self):
        with self._cond:
            if self._broken:
                raise threading.BrokenBarrierError
            if self._gone:
                raise self._not_reached()
            generation = self._generation
            self._count += 1
            if self._count == self._parties:
                self._count = 0
                self._generation += 1
                self._cond.notify_all()
                return
            while generation == self._generation and not self._broken \
                    and not self._gone:
                self._cond.wait()
            if generation != self._generation:
                return
            if self._gone:
                raise self._not_reached()
            raise threading.BrokenBarrierError

    def leave(self):
        """An item returned: barriers waited at now never fill."""
        with self._cond:
            self._gone += 1
            self._cond.notify_all()

    def abort(self):
        with self._cond:
            self._broken = True
            self._cond.notify_all()

    @staticmethod
    def _not_reached():
        # The kernel's frame: above wait() and group_barrier (or the group
        # function that called it).
        frame = sys._getframe(2)
        while frame and frame.f_code.co_filename == __file__:
            frame = frame.f_back
        where = f"{frame.f_code.co_filename}:{frame.f_lineno}: " if frame \
            else ""
        return errors.CompileError(
            f"{where}'group_barrier' is not reached by every work-item of "
            "the group (one returned before it), so the group deadlocks; "
            "return after it instead")


def atomic_fence(memory_order, memory_scope):
    """Orders memory accesses (a no-op in the simulator, which runs each
    access in program order)."""


_REDUCTIONS = {
    "+": operator.add, "*": operator.mul, "min": min, "max": max,
    "&": operator.and_, "|": operator.or_, "^": operator.xor,
}


def _reduction(op):
    if op in _REDUCTIONS:
        return _REDUCTIONS[op]
    for fn in _REDUCTIONS.values():
        if op is fn:
            return fn
    raise errors.InvalidArgumentError(
        f"group_reduce supports '+', '*', 'min', 'max', '&', '|' and '^' "
        f"(or operator.add, operator.mul, min, max, operator.and_, "
        f"operator.or_, operator.xor), not {op!r}")


def group_reduce(group, value, op):
    """Combines `value` of every work-item of the group with `op` ('+',
    '*', 'min', 'max'); every work-item gets the result. 'min' and 'max'
    order complex numbers as NumPy does (np.minimum, np.maximum: by real
    part, then imaginary part; a NaN part wins)."""
    fn = _reduction(op)
    if fn in (min, max) and isinstance(value, (complex, np.complexfloating)):
        fn = np.minimum if fn is min else np.maximum
    shared = group._shared
    with shared.lock:
        shared.values.append(value)
    group_barrier(group)
    result = shared.values[0]
    for v in shared.values[1:]:
        result = fn(result, v)
    group_barrier(group)
    with shared.lock:
        shared.values.clear()
    group_barrier(group)
    return result


def group_broadcast(group, value, local_id=0):
    """The `value` of the work-item whose local linear id is `local_id`."""
    shared = group._shared
    me = threading.current_thread().__dict__.get("_spirjit_local_linear")
    if me == local_id:
        shared.broadcast = value
    group_barrier(group)
    result = shared.broadcast
    group_barrier(group)
    return result


def _my_id():
    return threading.current_thread().__dict__.get("_spirjit_local_linear")


def _gather(group, value):
    """Every work-item's ``value`` by local linear id (the scratch that
    spirjit's group algorithms use), after a barrier."""
    shared = group._shared
    me = _my_id()
    with shared.lock:
        shared.slots[me] = value
    group_barrier(group)
    values = dict(shared.slots)
    group_barrier(group)
    return me, values


def _identity(fn, value):
    """The value ``fn`` leaves unchanged, of ``value``'s type."""
    kind = type(value)
    if isinstance(value, (bool, np.bool_)):
        return kind({operator.and_: True, min: True}.get(fn, False))
    if fn is operator.add or fn in (operator.or_, operator.xor):
        return kind(0)
    if fn is operator.mul:
        return kind(1)
    if fn is operator.and_:
        return kind(-1) if not isinstance(value, np.unsignedinteger) else \
            np.iinfo(kind).max
    if isinstance(value, (float, np.floating)):
        return kind(np.inf if fn is min else -np.inf)
    info = np.iinfo(kind if isinstance(value, np.integer) else np.int64)
    return kind(info.max if fn is min else info.min)


def _segment(g):
    """(group, lanes' first linear id, lane count, this item's lane)."""
    if isinstance(g, SubGroup):
        return g._group, g._base, g._count, g._me - g._base
    if not isinstance(g, Group):
        raise errors.TypingError(f"expected a work-group or sub-group, got "
                                 f"{type(g).__name__}")
    me = _my_id()
    return g, 0, g.get_local_linear_range(), me


def _scan(g, x, op, inclusive):
    fn = _reduction(op)
    group, base, count, lane = _segment(g)
    _, values = _gather(group, x)
    lanes = lane + 1 if inclusive else lane
    if lanes == 0:
        return _identity(fn, x)
    result = values[base]
    for i in range(1, lanes):
        result = fn(result, values[base + i])
    return result


def group_inclusive_scan(group, x, op):
    """``op`` over the values of work-items 0..me of the group."""
    return _scan(group, x, op, True)


def group_exclusive_scan(group, x, op):
    """``op`` over the values of work-items 0..me-1 of the group (``op``'s
    identity for the first)."""
    return _scan(group, x, op, False)


def sub_group_inclusive_scan(sg, x, op):
    """``op`` over the values of lanes 0..lane of the sub-group."""
    return _scan(sg, x, op, True)


def sub_group_exclusive_scan(sg, x, op):
    """``op`` over the values of lanes 0..lane-1 (identity for lane 0)."""
    return _scan(sg, x, op, False)


def sub_group_reduce(sg, x, op):
    """``op`` over every lane's value; every lane gets the result."""
    fn = _reduction(op)
    group, base, count, _ = _segment(sg)
    _, values = _gather(group, x)
    result = values[base]
    for i in range(1, count):
        result = fn(result, values[base + i])
    return result


def any_of(group, pred):
    """Whether ``pred`` is true for any work-item of the group or
    sub-group."""
    g, base, count, _ = _segment(group)
    _, values = _gather(g, bool(pred))
    return any(values[base + i] for i in range(count))


def all_of(group, pred):
    """Whether ``pred`` is true for every work-item of the group or
    sub-group."""
    g, base, count, _ = _segment(group)
    _, values = _gather(g, bool(pred))
    return all(values[base + i] for i in range(count))


def sub_group_ballot(sg, pred):
    """The lanes of the sub-group whose ``pred`` holds, as a np.uint32 with
    bit i set for lane i (a spirjit extension: SYCL's ``group_ballot``,
    CUDA's ``__ballot_sync``)."""
    group, base, count, _ = _segment(sg)
    _, values = _gather(group, bool(pred))
    lanes = 0
    for i in range(count):
        if values[base + i]:
            lanes |= 1 << i
    return np.uint32(lanes)


def sub_group_barrier(sg):
    """Waits for the sub-group (spirjit: for the whole work-group)."""
    group_barrier(sg._group)


def _shuffle_from(sg, x, lane):
    group, base, count, _ = _segment(sg)
    _, values = _gather(group, x)
    return values[base + lane] if 0 <= lane < count else x


def shuffle(sg, x, lane):
    """The value of sub-group lane ``lane`` (one's own where there is no
    such lane)."""
    return _shuffle_from(sg, x, lane)


def shuffle_xor(sg, x, mask):
    """The value of lane ``lane ^ mask``."""
    return _shuffle_from(sg, x, sg.get_local_id() ^ mask)


def shuffle_down(sg, x, delta):
    """The value of lane ``lane + delta``."""
    return _shuffle_from(sg, x, sg.get_local_id() + delta)


def shuffle_up(sg, x, delta):
    """The value of lane ``lane - delta``."""
    return _shuffle_from(sg, x, sg.get_local_id() - delta)


def sub_group_broadcast(sg, x, lane=0):
    """Lane ``lane``'s value, in every lane."""
    return _shuffle_from(sg, x, lane)


class _GroupState:
    def __init__(self, size):
        self.barrier = _GroupBarrier(size)
        self.lock = threading.Lock()
        self.values = []
        self.slots = {}
        self.broadcast = None


def call_kernel(kernel, index_space, *args):
    """Runs a kernel as plain Python over NumPy arrays, item by item: a
    simulator for debugging. Work-items of one group run as threads, so a
    group_barrier really waits; LocalAccessors become one NumPy array per
    group; AtomicRef operations are atomic."""
    function = getattr(kernel, "py_func", kernel)
    if function is not kernel:
        # A spirjit kernel: what its launch on a device would reject. (A
        # plain function's annotation is not checked: numba-dpex's
        # simulator runs an Item-annotated one over an NdRange.)
        _check_launch_kind(function, index_space)
    if isinstance(index_space, NdRange):
        _simulate_nd_range(function, index_space, args)
        return
    index_space = _as_range(index_space, "the index space")
    for a in args:
        if isinstance(a, LocalAccessor):
            raise errors.TypingError(
                "a LocalAccessor needs an NdRange launch; "
                "launch with kapi.NdRange(global, local)")
    for index in itertools.product(*(range(n) for n in index_space)):
        _returned_nothing(function,
                          function(Item(index, index_space), *args))


def _where(function):
    code = function.__code__
    return f"{code.co_filename}:{code.co_firstlineno}"


def _check_launch_kind(function, index_space):
    """The compiled launch's rule: an NdItem kernel over an NdRange, an
    Item kernel over a Range (API.md, kernel/launch mismatch)."""
    try:
        first = next(iter(inspect.signature(function).parameters.values()))
    except (StopIteration, TypeError, ValueError):
        return
    nd = isinstance(index_space, NdRange)
    name = function.__name__
    if first.annotation is NdItem and not nd:
        raise errors.TypingError(
            f"{_where(function)}: '{name}' takes a kapi.NdItem, so it must "
            "be launched over a kapi.NdRange(global, local), not a Range")
    if first.annotation is Item and nd:
        raise errors.TypingError(
            f"{_where(function)}: '{name}' takes a kapi.Item, so it must be "
            "launched over a kapi.Range; annotate its first parameter with "
            "kapi.NdItem to launch it over an NdRange")


def _returned_nothing(function, value):
    if value is not None:
        raise errors.KernelHasReturnValueError(
            f"{_where(function)}: a kernel must not return a value (it "
            f"returns a '{type(value).__name__}'); write results into an "
            "array")


def _simulate_nd_range(function, nd_range, args):
    global_range = tuple(nd_range.global_range)
    local_range = tuple(nd_range.local_range)
    group_range = tuple(g // l for g, l in zip(global_range, local_range))
    group_size = _product(local_range)
    for group_id in itertools.product(*(range(n) for n in group_range)):
        shared = _GroupState(group_size)
        group = Group(group_id, group_range, local_range, shared)
        group_args = [np.zeros(a.shape, a.dtype) if isinstance(a, LocalAccessor)
                      else a for a in args]
        errors = []

        def run(local_id):
            threading.current_thread()._spirjit_local_linear = _linear(
                local_id, local_range)
            global_id = tuple(g * l + i for g, l, i in
                              zip(group_id, local_range, local_id))
            try:
                _returned_nothing(function, function(
                    NdItem(global_id, local_id, global_range, group),
                    *group_args))
            except BaseException as e:  # re-raised below, in the caller
                errors.append(e)
                shared.barrier.abort()
                return
            shared.barrier.leave()

        threads = [threading.Thread(target=run, args=(local_id,))
                   for local_id in itertools.product(
                       *(range(n) for n in local_range))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        real = [e for e in errors if not isinstance(e, threading.BrokenBarrierError)]
        if real or errors:
            raise (real or errors)[0]
