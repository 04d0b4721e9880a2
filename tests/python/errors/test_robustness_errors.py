"""Ordinary mistakes that the compiler once accepted or crashed on
(issue 13) are user errors at the user's line.

Each offending line carries a marker comment ``# <- NAME``."""

import numpy as np
import pytest

import spirjit
from spirjit import errors
from spirjit import kernel_api as kapi

import source_markers


def check_location(error, marker):
    line = source_markers.marked_line(__file__, marker)
    assert error.filename == __file__
    assert error.lineno == line
    assert f"{__file__}:{line}" in str(error)


def launch(function, *args):
    if not args:
        args = (np.zeros(4, np.int64),)
    spirjit.call_kernel(spirjit.kernel(function), kapi.Range(4), *args)


def get_id_of_bool(item, out):
    i = item.get_id(True)  # <- bool-dimension
    out[i] = 1


def test_bool_dimension_is_typing_error():
    with pytest.raises(errors.TypingError,
                       match="get_id takes an integer dimension") as info:
        launch(get_id_of_bool)
    check_location(info.value, "bool-dimension")


# --------------------------------------------------------------------------
# Python ints beyond int64: NumPy 2 raises OverflowError where they meet a
# typed integer; spirjit once wrapped them silently (2**70 became 0).

def adds_big_power(item, out):
    i = item.get_id(0)
    out[i] = i + 2**70  # <- big-power


def adds_big_literal(item, out):
    i = item.get_id(0)
    out[i] = out[i] + 18446744073709551616  # <- big-literal


def adds_big_product(item, out):
    i = item.get_id(0)
    big = 2**40
    out[i] = i + big * big  # <- big-product


@pytest.mark.parametrize("function, marker", [
    (adds_big_power, "big-power"),
    (adds_big_literal, "big-literal"),
    (adds_big_product, "big-product"),
])
def test_int_beyond_int64_is_typing_error(function, marker):
    with pytest.raises(errors.TypingError, match="does not fit int64") as info:
        launch(function)
    check_location(info.value, marker)


# --------------------------------------------------------------------------
# Locals read where some path left them unassigned: Python raises
# UnboundLocalError; spirjit once read an undefined value.

def assigned_in_one_branch(item, out):
    i = item.get_id(0)
    if i > 2:
        x = 1
    out[i] = x  # <- one-branch


def loop_variable_after_empty_loop(item, out):
    i = item.get_id(0)
    for k in range(i):
        pass
    out[i] = k  # <- loop-variable


def assigned_in_empty_constant_loop(item, out):
    i = item.get_id(0)
    for k in range(5, 3):
        v = k
    out[i] = v  # <- empty-range


def assigned_in_inner_branch(item, out):
    i = item.get_id(0)
    if i > 0:
        if i > 2:
            x = 1
        out[i] = x  # <- inner-branch


@pytest.mark.parametrize("function, marker, name", [
    (assigned_in_one_branch, "one-branch", "x"),
    (loop_variable_after_empty_loop, "loop-variable", "k"),
    (assigned_in_empty_constant_loop, "empty-range", "v"),
    (assigned_in_inner_branch, "inner-branch", "x"),
])
def test_possibly_unassigned_local_is_compile_error(function, marker, name):
    with pytest.raises(errors.CompileError,
                       match=f"'{name}' may be used before it is "
                             "assigned") as info:
        launch(function)
    check_location(info.value, marker)
