"""Clear errors for what a def line or a decorator keyword asks for (issue
13 class 6): named as the user wrote it, at the def's line."""

import inspect

import pytest

import spirjit
from spirjit import errors


async def async_kernel(item, a):
    a[0] = 1


def keywords_kernel(item, a, **options):
    a[0] = 1


def varargs_kernel(item, a, *rest):
    a[0] = 1


@pytest.mark.parametrize("function, what", [
    (async_kernel, "'async def'"),
    (keywords_kernel, "'**kwargs'"),
    (varargs_kernel, "'*args'"),
])
@pytest.mark.parametrize("decorator, kind", [
    (spirjit.kernel, "kernels"), (spirjit.device_func, "device functions"),
    (spirjit.jit, "jit functions")])
def test_def_line_constructs_are_named(function, what, decorator, kind):
    with pytest.raises(errors.UnsupportedFeatureError) as e:
        decorator(function)
    assert f"{what} is not supported in spirjit {kind}" in str(e.value)
    assert e.value.filename == __file__
    assert e.value.lineno == inspect.getsourcelines(function)[1]


@pytest.mark.parametrize("level", [99, -1, "2", 2.0, True])
def test_optimisation_level_out_of_range(level):
    def plain(item, a):
        a[0] = 1

    with pytest.raises(ValueError) as e:
        spirjit.kernel(plain, opt=level)
    assert "opt=" in str(e.value)
