"""Mistakes that once gave a traceback from inside spirjit, or took the
process down, are errors of the documented class that say what to do
(issue 13, classes 2 and 6)."""

import os
import subprocess
import sys

import pytest

import spirjit
from spirjit import errors
from spirjit import kernel_api as kapi

_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(
    spirjit.__file__)))


# Launch sizes. Drivers abort (PoCL) or trap (Intel) when the total
# overflows their size_t, so each launch runs in a process of its own: a
# crash fails the test instead of ending the session.
@pytest.mark.parametrize("extents", [
    (2**32, 2**32), (2**62, 2**62, 4), (2**63 - 1, 2), (2**54,)],
    ids=["2^32x2^32", "2^62x2^62x4", "int64-max-x2", "2^54"])
def test_too_many_work_items_is_an_invalid_range(device_filter, run_isolated,
                                                 extents):
    result = run_isolated(f"""
        import numpy as np
        import spirjit
        from spirjit import errors, kernel_api as kapi

        @spirjit.kernel
        def fill(item, out):
            out[0] = 1

        out = np.zeros(1, np.int64)
        try:
            spirjit.call_kernel(fill, kapi.Range{extents!r}, out)
        except errors.InvalidRangeError as e:
            print("InvalidRangeError:", e)
        print("ran:", out[0])
        """)
    assert result.returncode == 0, result.stderr
    items = " x ".join(str(e) for e in extents)
    assert f"InvalidRangeError: a launch of {items} work-items is more " \
           "than" in result.stdout
    assert "split the work into several launches" in result.stdout
    assert "ran: 0" in result.stdout  # nothing reached the device


def test_too_many_work_items_in_an_nd_range(device_filter, run_isolated):
    result = run_isolated("""
        import spirjit
        from spirjit import errors, kernel_api as kapi

        @spirjit.kernel
        def nothing(item: kapi.NdItem):
            pass

        try:
            spirjit.call_kernel(
                nothing, kapi.NdRange((2**32, 2**32), (1, 1)))
        except errors.InvalidRangeError as e:
            print("InvalidRangeError:", e)
        """)
    assert result.returncode == 0, result.stderr
    assert "InvalidRangeError: a launch of 4294967296 x 4294967296 " \
           "work-items is more than" in result.stdout


def test_a_launch_within_the_limit_still_runs(device_filter):
    import numpy as np

    @spirjit.kernel
    def ids(item, out):
        out[item.get_id(0)] = item.get_id(0)

    out = np.zeros(1000, np.int64)
    spirjit.call_kernel(ids, kapi.Range(1000), out)
    assert (out == np.arange(1000)).all()


@pytest.mark.parametrize("extent", [2**63, 2**64, 10**30])
def test_an_extent_beyond_int64_is_an_invalid_range(extent):
    with pytest.raises(errors.InvalidRangeError) as info:
        kapi.Range(extent)
    assert str(info.value) == (
        f"Range extent 0 is {extent}, more than a launch can have "
        "(2**63 - 1); split the work into several launches")
    with pytest.raises(errors.InvalidRangeError, match="Range extent 1 is"):
        kapi.NdRange((4, extent), (1, 1))


# Decorators given something other than a function.
@pytest.mark.parametrize("decorator", ["kernel", "device_func"])
@pytest.mark.parametrize("value", [5, "f", None.__class__, print])
def test_decorating_a_non_function_is_a_type_error(decorator, value):
    with pytest.raises(TypeError) as info:
        getattr(spirjit, decorator)(value)
    assert str(info.value) == (f"spirjit.{decorator} decorates a Python "
                               f"function, not {type(value).__name__}")


@pytest.mark.parametrize("decorator,example", [
    ("kernel", "(float32[::1], int64)"),
    ("device_func", "float64(float64, int64)")])
def test_a_non_string_signature_names_the_element(decorator, example):
    def f(x):
        pass

    with pytest.raises(TypeError) as info:
        getattr(spirjit, decorator)(f, signatures=["(int64)", 7])
    assert str(info.value) == (
        f"spirjit.{decorator}'s signatures= takes a string such as "
        f"'{example}' or a list of them; element 1 is int 7")
    with pytest.raises(TypeError) as info:
        getattr(spirjit, decorator)(signatures=5)(f)
    assert str(info.value) == (
        f"spirjit.{decorator}'s signatures= takes a string such as "
        f"'{example}' or a list of them, not int 5")


def test_string_signatures_are_still_accepted():
    @spirjit.kernel(signatures=("(int64[::1])",))
    def k(item, a):
        a[0] = 1

    @spirjit.device_func(signatures="int64(int64)")
    def g(x):
        return x

    assert g.signatures == ("int64(int64)",)
    assert g(3) == 3


# Device filters.
@pytest.mark.parametrize("filter_string", [
    "cpu:99999999999", "opencl:cpu:99999999999999999999999999", "4294967296"])
def test_a_huge_device_index_matches_no_device(filter_string):
    with pytest.raises(errors.DeviceError) as info:
        spirjit.Device(filter_string)
    message = str(info.value)
    assert filter_string in message
    for d in spirjit.devices():
        assert d.filter_string in message


# spirjit-dump-ir: one line and exit status 2 for mistakes on its command
# line, never a traceback.
def dump_ir(*argv, cwd):
    env = dict(os.environ)
    env["PYTHONPATH"] = _PACKAGE_ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-m", "spirjit.dump_ir", *argv,
         "--sig", "(int64[::1])"],
        env=env, cwd=cwd, capture_output=True, text=True, timeout=120)


def check_one_line(result, expected):
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == f"spirjit-dump-ir: {expected}\n"


def test_dump_ir_missing_file(tmp_path):
    check_one_line(dump_ir("missing.py", "k", cwd=tmp_path),
                   "cannot read missing.py: No such file or directory")


def test_dump_ir_syntax_error(tmp_path):
    (tmp_path / "bad.py").write_text("def k(item, a):\n    a[0] = = 1\n")
    check_one_line(dump_ir("bad.py", "k", cwd=tmp_path),
                   "bad.py:2: invalid syntax; fix the file's syntax first")


def test_dump_ir_name_that_is_not_a_function(tmp_path):
    (tmp_path / "k.py").write_text("k = 5\n")
    check_one_line(dump_ir("k.py", "k", cwd=tmp_path),
                   "'k' in k.py is not a function but a value of type int; "
                   "name a function defined with def")


def test_dump_ir_missing_name(tmp_path):
    (tmp_path / "k.py").write_text("def other(item, a):\n    a[0] = 1\n")
    check_one_line(dump_ir("k.py", "k", cwd=tmp_path),
                   "k.py has no function 'k'")


def test_dump_ir_still_dumps_a_function(tmp_path):
    (tmp_path / "k.py").write_text("def k(item, a):\n    a[0] = 1\n")
    result = dump_ir("k.py", "k", "--stage", "pyir", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "; ----- after pyir (kernel: k) -----" in result.stdout


def test_dump_ir_dumps_a_device_function(tmp_path):
    # It once compiled it as a kernel: "'twice' takes 0 arguments after its
    # work item".
    (tmp_path / "d.py").write_text(
        "import spirjit\n\n@spirjit.device_func\ndef twice(x):\n"
        "    return x[0] * 2\n")
    result = dump_ir("d.py", "twice", "--stage", "llir", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert ("after llir (device function: twice, called by kernel "
            "call_twice)") in result.stdout
    assert "@spirjit_twice.device(" in result.stdout


# Attribute errors name what the user wrote, not the compiler's types
# ("'Function(numpy.linalg)' has no attribute 'norm'", "'Item(1)' ...").

def test_missing_attribute_of_a_module_names_the_module():
    import numpy as np

    @spirjit.kernel
    def norm(item, a):
        a[0] = np.linalg.norm(a)

    with pytest.raises(errors.TypingError) as e:
        spirjit.call_kernel(norm, kapi.Range(1), np.zeros(2))
    assert "'numpy.linalg' has no attribute 'norm'" in str(e.value)
    assert "Function(" not in str(e.value)


def test_missing_attribute_of_an_item_names_its_kapi_class():
    import numpy as np

    @spirjit.kernel
    def wrong(item: kapi.Item, a):
        a[0] = item.get_global_id(0)

    with pytest.raises(errors.TypingError) as e:
        spirjit.call_kernel(wrong, kapi.Range(1), np.zeros(1))
    assert ("a 1-dimensional kapi.Item has no attribute 'get_global_id'"
            in str(e.value))
