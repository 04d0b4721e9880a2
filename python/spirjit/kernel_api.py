"""The kernel API ("kapi"), named as in numba-dpex so kernels port by changing
imports. Inside a compiled kernel these names are compile-time constructs;
outside, they are plain Python objects used to describe launches."""

import numbers
import operator

from .errors import InvalidRangeError

__all__ = ["Item", "Range", "call_kernel"]


def _extent(value, what):
    # Python and NumPy integers only: bool and floats (even 2.0) are refused.
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidRangeError(
            f"{what} must be an integer, not {type(value).__name__} {value!r}")
    value = operator.index(value)
    if value <= 0:
        raise InvalidRangeError(f"{what} must be positive, got {value}")
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
        return super().__new__(
            cls, (_extent(e, f"Range extent {d}") for d, e in enumerate(extents)))

    @property
    def ndim(self):
        return len(self)

    def __repr__(self):
        return "Range(" + ", ".join(str(e) for e in self) + ")"


class Item:
    """The work item a Range launch gives a kernel (its first parameter).

    Inside compiled kernels: ``get_id(d)``, ``get_range(d)``,
    ``get_linear_id()``, ``get_linear_range()``, ``dimensions``. Outside, the
    simulator's items behave the same way."""

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
        linear = 0
        for i, n in zip(self._index, self._extents):
            linear = linear * n + i
        return linear

    def get_linear_range(self):
        total = 1
        for n in self._extents:
            total *= n
        return total


def call_kernel(kernel, index_space, *args):
    """Runs a kernel as plain Python, item by item: a simulator for
    debugging (pdb works inside), on NumPy arrays."""
    import itertools

    function = getattr(kernel, "py_func", kernel)
    if not isinstance(index_space, Range):
        index_space = Range(*index_space) if isinstance(
            index_space, (tuple, list)) else Range(index_space)
    for index in itertools.product(*(range(n) for n in index_space)):
        function(Item(index, index_space), *args)
