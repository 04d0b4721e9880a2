"""Limits known before the launch (issue 13 item 8): what SPIR-V or the
device cannot take is a documented error at the user's line, never an
internal compiler error."""

import numpy as np
import pytest

import spirjit
from spirjit import errors
from spirjit import kernel_api as kapi


def generated(source, name, tmp_path):
    """The function `name` of `source`, compiled from a file of its own so
    that errors name a real file and line."""
    path = tmp_path / "generated.py"
    path.write_text(source)
    namespace = {"spirjit": spirjit}
    exec(compile(source, str(path), "exec"), namespace)
    return namespace[name], str(path)


def sum_source(count):
    names = ", ".join(f"x{i}" for i in range(count))
    total = " + ".join(f"x{i}" for i in range(count))
    return f"def many(item, out, {names}):\n    out[0] = {total}\n"


def test_kernel_of_more_parameters_than_spirv_takes(device_filter, tmp_path):
    function, path = generated(sum_source(300), "many", tmp_path)
    kernel = spirjit.kernel(function)
    with pytest.raises(errors.CompileError) as e:
        spirjit.call_kernel(kernel, kapi.Range(1), np.zeros(1), *[1.0] * 300)
    assert not isinstance(e.value, errors.InternalCompilerError)
    assert e.value.filename == path and e.value.lineno == 1
    # 300 scalars and out's data (its extent is never read, so dropped).
    assert "301 device parameters" in str(e.value)
    assert "255" in str(e.value)


def test_kernel_just_below_the_limit_runs(device_filter, tmp_path):
    function, _ = generated(sum_source(250), "many", tmp_path)
    kernel = spirjit.kernel(function)
    out = np.zeros(1)
    spirjit.call_kernel(kernel, kapi.Range(1), out, *[1.0] * 250)
    assert out[0] == 250


def test_allocation_beyond_global_memory(device):
    with pytest.raises(errors.OutOfDeviceMemoryError) as e:
        spirjit.empty(4 * device.global_mem_size, dtype=np.uint8,
                      device=device)
    assert isinstance(e.value, MemoryError)
    # The device is still usable.
    assert np.array_equal(np.asarray(spirjit.ones(3, device=device)),
                          np.ones(3))
