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
