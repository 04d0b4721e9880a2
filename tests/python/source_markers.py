"""Lines of a test file marked with a comment ``# <- name``, so tests can
say which line an error must name without hard-coding line numbers."""

import functools
import pathlib
import re

import pytest


@functools.lru_cache(maxsize=None)
def _lines(path):
    return pathlib.Path(path).read_text().splitlines()


def marked_line(path, name):
    """The number of the one line of file `path` marked ``# <- name``."""
    hits = [number for number, text in enumerate(_lines(path), start=1)
            if name in re.findall(r"# <- ([\w-]+)", text)]
    assert len(hits) == 1, f"marker {name!r} found {len(hits)} times"
    return hits[0]


def raises_at(error, call, path, marker, text):
    """Calls `call`, which must raise `error` whose message starts with
    `path`:line of `marker` and holds `text`."""
    with pytest.raises(error) as info:
        call()
    message = str(info.value)
    assert message.startswith(f"{path}:{marked_line(path, marker)}: ")
    assert text in message
