"""spirjit-dump-ir on inputs that are not a Python file or a usable
--dump-dir, and on a file that never finishes (issue 31, class 1): each is
one line on stderr naming the path and the reason, never a traceback or a
hang. Every case runs the tool as a subprocess with a timeout, since what
failed here once blocked forever (a FIFO, /dev/zero)."""

import os
import signal
import subprocess
import sys

import pytest

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
TOOL = os.path.join(ROOT, "tools", "spirjit-dump-ir")

KERNEL = """\
def k(item, a):
    a[item.get_id(0)] = 1.0
"""


def _tool_env():
    return dict(os.environ, SPIRJIT_PYTHON=sys.executable)


def _default_sigint():
    # A child of a background job starts with SIGINT ignored, and Python
    # then installs no KeyboardInterrupt handler; a user's shell does not.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def dump_ir(*args, timeout=120):
    return subprocess.run([TOOL, *map(str, args)], env=_tool_env(),
                          capture_output=True, text=True, timeout=timeout)


def check_one_line_error(done, *words):
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("spirjit-dump-ir: "), done.stderr
    for word in words:
        assert word in lines[0], done.stderr


@pytest.fixture
def kernel_file(tmp_path):
    path = tmp_path / "k.py"
    path.write_text(KERNEL)
    return path


def test_a_fifo_is_refused_without_opening_it(tmp_path):
    fifo = tmp_path / "kernels.py"
    os.mkfifo(fifo)
    done = dump_ir(fifo, "k", "--sig", "(float32[::1])", timeout=60)
    check_one_line_error(done, str(fifo), "a FIFO")


def test_dev_zero_is_refused():
    done = dump_ir("/dev/zero", "k", "--sig", "(float32[::1])", timeout=60)
    check_one_line_error(done, "/dev/zero", "a character device")


def test_a_directory_is_refused(tmp_path):
    # runpy would run the directory's __main__.py; this one has none.
    done = dump_ir(tmp_path, "k", "--sig", "(float32[::1])", timeout=60)
    check_one_line_error(done, str(tmp_path), "a directory")


def test_a_missing_file(tmp_path):
    missing = tmp_path / "nothing.py"
    done = dump_ir(missing, "k", "--sig", "(float32[::1])", timeout=60)
    check_one_line_error(done, str(missing), "No such file")


def test_a_file_that_is_no_python_source(tmp_path):
    zeros = tmp_path / "zeros.py"
    zeros.write_bytes(bytes(64))
    done = dump_ir(zeros, "k", "--sig", "(float32[::1])", timeout=60)
    check_one_line_error(done, str(zeros))


def test_dump_dir_naming_a_regular_file(kernel_file, tmp_path):
    taken = tmp_path / "taken"
    taken.write_text("keep me")
    done = dump_ir(kernel_file, "k", "--sig", "(float32[::1])",
                   "--dump-dir", taken)
    check_one_line_error(done, str(taken), "not a directory")
    assert taken.read_text() == "keep me"


def test_dump_dir_where_nothing_can_be_written(kernel_file, tmp_path):
    # Under a regular file no directory can be made, even by root (a
    # read-only directory would not stop root).
    blocker = tmp_path / "file"
    blocker.write_text("")
    place = blocker / "dumps"
    done = dump_ir(kernel_file, "k", "--sig", "(float32[::1])",
                   "--dump-dir", place)
    check_one_line_error(done, str(place), "cannot write there")


def test_help_says_the_file_runs():
    done = dump_ir("--help")
    assert done.returncode == 0
    assert "the tool runs it" in " ".join(done.stdout.split())


def test_ctrl_c_ends_a_file_that_never_finishes(tmp_path):
    forever = tmp_path / "forever.py"
    forever.write_text('print("started", flush=True)\n'
                       'while True:\n'
                       '    pass\n')
    child = subprocess.Popen([TOOL, str(forever), "k", "--sig", "()"],
                             env=_tool_env(), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True,
                             preexec_fn=_default_sigint)
    try:
        assert child.stdout.readline() == "started\n", child.stderr.read()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
    finally:
        child.kill()
    assert child.returncode == 130, err
    assert err == "spirjit-dump-ir: interrupted\n", err
