"""Limits known before the launch (issue 13 item 8): what SPIR-V or the
device cannot take is a documented error at the user's line, never an
internal compiler error or a crash in the driver."""

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
    assert "global memory" in str(e.value)
    # The device is still usable.
    assert np.array_equal(np.asarray(spirjit.ones(3, device=device)),
                          np.ones(3))


# --------------------------------------------------------------------------
# Private memory. PoCL keeps a whole work-group's PrivateArrays on one
# thread's stack (8 MiB): a 2 KB PrivateArray over a Range of 65536 (PoCL
# chose groups of 4096) and 400 KB arrays in groups of 64 crashed the
# process. Each case runs in its own process for that reason.

PRIVATE_KERNEL = """
    import numpy as np
    import spirjit
    from spirjit import errors
    from spirjit import kernel_api as kapi

    N = {n}

    @spirjit.kernel
    def fill_and_sum(item: {item}, out):
        p = kapi.PrivateArray(N, np.float64)
        i = {item_id}
        for j in range(N):
            p[j] = i + j
        s = 0.0
        for j in range(N):
            s += p[j]
        out[i] = s

    total = {total}
    out = np.zeros(total)
    try:
        spirjit.call_kernel(fill_and_sum, {space}, out)
    except errors.OutOfDeviceMemoryError as e:
        print("refused:", e)
    else:
        i = np.arange(total)
        print("right" if np.allclose(out, N * i + N * (N - 1) / 2)
              else "wrong")
"""


def run_private(run_isolated, n, item, total, space):
    item_id = ("item.get_global_id(0)" if item == "kapi.NdItem"
               else "item.get_id(0)")
    result = run_isolated(PRIVATE_KERNEL.format(n=n, item=item, total=total,
                                                space=space, item_id=item_id),
                          timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_range_of_a_kernel_with_private_arrays_runs(device_filter,
                                                    run_isolated):
    # 2 KB per work-item, 65536 work-items: the launch picks groups that fit.
    assert run_private(run_isolated, 256, "kapi.Item", 65536,
                       "kapi.Range(65536)") == "right"


def test_private_arrays_of_a_work_group_beyond_the_device(device_filter,
                                                          run_isolated):
    # 400 KB per work-item, work-groups of 64: 25.6 MB a group. Devices
    # that hold that run it; the others refuse it before the driver, for
    # the group (PoCL) or for one work-item (a CUDA GPU, which reserves a
    # thread's local memory for every thread it can hold).
    out = run_private(run_isolated, 50000, "kapi.NdItem", 128,
                      "kapi.NdRange(128, 64)")
    assert out == "right" or (
        out.startswith("refused:") and "400000 bytes per work-item" in out
        and ("work-group of 64" in out and "smaller work-groups" in out
             or "smaller PrivateArrays" in out)), out
