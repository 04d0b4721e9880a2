"""namedtuples in @spirjit.jit host code (issue 29), as numba takes them:
collections.namedtuple and typing.NamedTuple instances passed in, read by
field, by constant and variable index, unpacked, measured and iterated;
built in jit code from the global class (by position, by keyword, with the
class's defaults), passed to another jit function and returned to Python
as the user's own class; two classes of the same fields are two types; a
field read inside a prange body. What namedtuples do not take there
(_replace, _asdict, assigning a field: they are immutable) is an
UnsupportedFeatureError at the user's line. Also the arrays' itemsize and
nbytes. Compared with the undecorated function on every device."""

import collections
import typing

import numpy as np
import pytest

import spirjit
from spirjit import jit, prange
from spirjit.errors import TypingError, UnsupportedFeatureError

from source_markers import raises_at

Point = collections.namedtuple("Point", ["x", "y"])
Pixel = collections.namedtuple("Pixel", ["x", "y"])  # Point's fields, not Point
Options = collections.namedtuple("Options", ["scale", "shift", "count"],
                                 defaults=[0.5, 3])


class Particle(typing.NamedTuple):
    mass: float
    speed: float
    charge: int = -1


def read_fields(p):
    return p.x + 2 * p.y, p[0] - p[1], p[-1]


def read_by_variable_index(p, n):
    total = 0.0
    for i in range(n):
        total += p[i % 2] * (i + 1)
    return total


def unpack_and_measure(p):
    a, b = p
    return a * b, len(p)


def unpack_three(p):
    mass, speed, charge = p
    return mass * speed + charge, len(p), p.charge


def iterate(p):
    total = 0.0
    for v in p:
        total += v * v
    return total


def build_by_position(a, b):
    return Point(a, b)


def build_by_keyword(a, b):
    return Point(y=b, x=a)


def build_with_defaults(a):
    return Options(a), Options(a, count=7), Options(shift=a, scale=2.0)


def build_typing_class(m):
    return Particle(m, 2.0 * m), Particle(mass=m, speed=1.0, charge=3)


def returns_the_argument(p):
    return p


@jit
def moved(p, dx):
    return Point(p.x + dx, p.y)


def build_and_pass(a, b):
    return moved(Point(a, b), 1.5).x + moved(Point(b, a), 0.5).y


def nested(a, b):
    inner = Point(a, b)
    return (inner, Point(inner.y, inner.x))


@pytest.mark.parametrize("fn, args", [
    (read_fields, (Point(1.5, 2.0),)),
    (read_fields, (Point(3, 4),)),
    (read_by_variable_index, (Point(1.5, 2.5), 5)),
    (unpack_and_measure, (Point(3.0, 4.0),)),
    (unpack_three, (Particle(1.0, 2.0, 3),)),
    (iterate, (Point(3.0, 4.0),)),
    (build_by_position, (1.0, 2.0)),
    (build_by_keyword, (1.0, 2.0)),
    (build_with_defaults, (4.0,)),
    (build_typing_class, (1.5,)),
    (returns_the_argument, (Point(1.0, 2.0),)),
    (returns_the_argument, (Particle(1.0, 2.0, 5),)),
    (build_and_pass, (1.0, 2.0)),
    (nested, (1.0, 2.0)),
], ids=["fields", "int-fields", "variable-index", "unpack", "typing-unpack",
        "iterate", "by-position", "by-keyword", "defaults", "typing-class",
        "argument-back", "typing-argument-back", "to-another-jit",
        "nested"])
def test_namedtuples_as_python(device, fn, args):
    want = fn(*args)
    got = jit(fn)(*args)
    assert got == want
    assert type(got) is type(want)
    if isinstance(want, tuple):
        for g, w in zip(got, want):
            assert type(g) is type(w) or isinstance(w, (int, float))


def test_returned_as_the_users_class(device):
    got = jit(build_by_keyword)(1.0, 2.0)
    assert type(got) is Point
    assert got.x == 1.0 and got.y == 2.0
    particle = jit(build_typing_class)(1.5)[1]
    assert type(particle) is Particle
    assert particle == Particle(1.5, 1.0, 3)


def test_two_classes_of_the_same_fields_are_two_types(device):
    f = jit(returns_the_argument)
    got_point = f(Point(1.0, 2.0))
    got_pixel = f(Pixel(1.0, 2.0))
    assert type(got_point) is Point
    assert type(got_pixel) is Pixel
    assert got_point == got_pixel == (1.0, 2.0)
    # A plain tuple of the same items is a third type.
    assert type(f((1.0, 2.0))) is tuple


def test_a_class_defined_in_a_function(device):
    Local = collections.namedtuple("Local", ["a", "b"])

    @jit
    def make(x):
        return Local(x, b=x + 1)

    got = make(2)
    assert type(got) is Local and got == Local(2, 3)


Grid = collections.namedtuple("Grid", ["values", "spacing", "origin"])


def grid_sum(g):
    total = 0.0
    for i in range(g.values.shape[0]):
        total += g.values[i] * g.spacing
    return total + g.origin.x + g.origin[1]


def grid_back(g):
    return g, g.values


def test_array_and_nested_fields_as_arguments(device):
    g = Grid(np.arange(5.0), 0.5, Point(1.0, 2.0))
    assert jit(grid_sum)(g) == grid_sum(g)
    got, values = jit(grid_back)(g)
    assert type(got) is Grid and type(got.origin) is Point
    assert got.values is g.values and values is g.values
    assert got.spacing == 0.5 and got.origin == (1.0, 2.0)


@jit
def grid_in_prange(g):
    out = np.empty_like(g.values)
    for i in prange(g.values.shape[0]):
        out[i] = g.values[i] * g.spacing + g.origin.y
    return out


def test_array_field_of_an_argument_in_prange(device):
    g = Grid(np.arange(6.0), 2.0, Point(0.0, 1.0))
    np.testing.assert_allclose(grid_in_prange(g), np.arange(6.0) * 2.0 + 1.0)


def test_a_device_array_field(device):
    values = spirjit.asarray(np.arange(4.0, dtype=np.float32), device=device)
    got, back = grid_in_prange(Grid(values, 2.0, Point(0.0, 1.0))), None
    np.testing.assert_allclose(got.asnumpy(), np.arange(4.0) * 2.0 + 1.0)
    back = jit(grid_back)(Grid(values, 2.0, Point(0.0, 1.0)))
    assert back[1] is values and type(back[0]) is Grid


def test_complex_and_nested_plain_tuples(device):
    def f(t):
        return t[0] * 2, t[1][1]

    assert jit(f)((1 + 2j, (3.0, 4))) == f((1 + 2j, (3.0, 4)))


@jit
def scaled_in_prange(a, p):
    out = np.empty_like(a)
    for i in prange(a.shape[0]):
        out[i] = a[i] * p.x + p.y
    return out


@jit
def array_fields_in_prange(a, b):
    pair = Point(a, b)
    out = np.empty_like(a)
    for i in prange(a.shape[0]):
        out[i] = pair.x[i] - 2.0 * pair.y[i] + pair[0][i]
    return out


def test_fields_read_in_prange(device):
    a = np.arange(10.0)
    b = np.linspace(0.0, 1.0, 10)
    np.testing.assert_allclose(scaled_in_prange(a, Point(2.0, 0.5)),
                               a * 2.0 + 0.5)
    np.testing.assert_allclose(array_fields_in_prange(a, b), a - 2.0 * b + a)


@jit
def built_in_prange(a):
    out = np.empty_like(a)
    for i in prange(a.shape[0]):
        p = Point(a[i], y=2.0)
        out[i] = p.x * p.y + p[1]
    return out


def test_built_in_prange(device):
    a = np.arange(5.0)
    np.testing.assert_allclose(built_in_prange(a), a * 2.0 + 2.0)


def test_printed_as_python_prints_it(device, capsys):
    def show(p):
        print(p, Point(1, 2), Particle(0.5, 1.5))
        return 0

    jit(show)(Point(1.5, 2.0))
    got = capsys.readouterr().out
    show(Point(1.5, 2.0))
    assert got == capsys.readouterr().out


def sizes(a):
    return a.itemsize, a.nbytes, a[1:].nbytes


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int16,
                                   np.bool_, np.complex64])
def test_itemsize_and_nbytes(device, dtype):
    a = np.zeros((3, 4), dtype=dtype)
    assert jit(sizes)(a) == sizes(a)


@jit
def sizes_in_prange(a):
    out = np.empty(a.shape[0], dtype=np.int64)
    for i in prange(a.shape[0]):
        out[i] = a.itemsize * i + a.nbytes
    return out


def test_itemsize_and_nbytes_in_prange(device):
    a = np.zeros(6, dtype=np.float32)
    np.testing.assert_array_equal(sizes_in_prange(a),
                                  [4 * i + a.nbytes for i in range(6)])


@jit
def replaced(p):
    return p._replace(x=1.0)  # <- replace


@jit
def as_dict(p):
    return p._asdict()  # <- asdict


@jit
def assigned(p):
    p.x = 1.0  # <- assign
    return p


Labelled = collections.namedtuple("Labelled", ["value", "label"],
                                  defaults=["none"])


@jit
def default_string(v):
    return Labelled(v)  # <- string-default


@pytest.mark.parametrize("call, marker, text", [
    (lambda: default_string(1.0), "string-default",
     "Labelled()'s default of 'label' is a 'none', which jit code cannot "
     "hold"),
    (lambda: replaced(Point(1.0, 2.0)), "replace",
     "namedtuple's _replace() is not supported in jit code"),
    (lambda: as_dict(Point(1.0, 2.0)), "asdict",
     "namedtuple's _asdict() is not supported in jit code"),
    (lambda: assigned(Point(1.0, 2.0)), "assign",
     "attribute assignment is not supported in jit code and kernels: "
     "a namedtuple is immutable"),
], ids=["string-default", "replace", "asdict", "assign"])
def test_what_namedtuples_do_not_take(device, call, marker, text):
    raises_at(UnsupportedFeatureError, call, __file__, marker, text)


@jit
def missing_field(a):
    return Point(a)  # <- missing


@jit
def unknown_keyword(a):
    return Point(a, z=a)  # <- unknown-keyword


@jit
def unknown_field(p):
    return p.z  # <- unknown-field


@pytest.mark.parametrize("call, marker, text", [
    (lambda: missing_field(1.0), "missing",
     "Point() missing required argument 'y'"),
    (lambda: unknown_keyword(1.0), "unknown-keyword",
     "Point() got an unexpected keyword argument 'z'"),
    (lambda: unknown_field(Point(1.0, 2.0)), "unknown-field",
     "has no attribute 'z'"),
], ids=["missing", "unknown-keyword", "unknown-field"])
def test_namedtuple_typing_errors(device, call, marker, text):
    raises_at(TypingError, call, __file__, marker, text)
