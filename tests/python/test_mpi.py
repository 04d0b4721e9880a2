"""spirjit.mpi between MPI processes, run as a user runs it (mpirun): halo
rows and reductions of DeviceArrays on each rank's device, compared with
what MPI's Sendrecv and Allreduce give, and the errors for what cannot be
sent. On a machine with two or more CUDA GPUs the ranks also run on the
GPUs alone, through NCCL. Skipped without mpirun or mpi4py."""

import ast
import json
import os
import subprocess
import sys

import pytest

import spirjit

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "mpi"))
import launch  # noqa: E402

CHECKS = os.path.join(os.path.dirname(HERE), "mpi", "communicator_checks.py")

pytestmark = pytest.mark.skipif(launch.why_not() is not None,
                                reason=str(launch.why_not()))

GPUS = [d for d in spirjit.devices() if d.backend == "cuda"]

RUNS = {
    # ranks, environment, the path every rank must take (None: any)
    "every_device": (3, {}, None),
    "host_buffers": (2, {"SPIRJIT_MPI_PATH": "host"}, "host"),
}
if len(GPUS) >= 2:
    RUNS["gpus_nccl"] = (len(GPUS), {"CHECK_DEVICES": "cuda:gpu"}, "nccl")


@pytest.fixture(scope="module", params=sorted(RUNS))
def ranks(request):
    count, environment, path = RUNS[request.param]
    command, env = launch.mpirun(count, [CHECKS], environment)
    env.pop("SPIRJIT_DEVICE", None)  # the ranks take the devices in turn
    done = subprocess.run(command, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    results = [line for line in done.stdout.splitlines()
               if line.startswith("RESULTS ")]
    assert len(results) == 1, done.stdout + done.stderr
    seen = json.loads(results[0][len("RESULTS "):])
    assert len(seen) == count, done.stdout + done.stderr
    if path is not None:
        assert {s["path"] for s in seen} == {path}
    return sorted(seen, key=lambda s: s["rank"])


def test_a_ring_sends_each_rank_its_neighbours_row(ranks):
    size = len(ranks)
    for s in ranks:
        previous = (s["rank"] - 1) % size
        # The send was a pending expression: computed before it went.
        assert s["ring"] == [j * (previous + 1) + 0.5 for j in range(6)]


def test_a_started_exchange_is_complete_after_wait(ranks):
    size = len(ranks)
    for s in ranks:
        previous = (s["rank"] - 1) % size
        assert s["started"] == [2.0 * j * (previous + 1) for j in range(6)]
        assert s["beside"] == [7.0] * 6


def test_halo_rows_with_proc_null_at_the_ends(ranks):
    last = len(ranks) - 1
    for s in ranks:
        r = s["rank"]
        above = r - 1 if r > 0 else r   # PROC_NULL leaves the row as it was
        below = r + 1 if r < last else r
        assert s["halos"] == [float(above), float(below)]


def test_allreduce_gives_device_arrays_with_mpis_answers(ranks):
    size = len(ranks)
    for s in ranks:
        assert s["sum_type"] == ["DeviceArray", s["device"], "int32"]
        assert s["sum"] == [size * j + size * (size - 1) // 2
                            for j in range(4)]
        assert s["max"] == [j + size - 1 for j in range(4)]
        assert s["scalar"] == sum(10.0 * (r + 1) ** 2 for r in range(size))
        assert ast.literal_eval(s["complex"]) == complex(
            size, 2 * size * (size - 1) // 2)


def test_what_cannot_be_sent_is_a_clear_error(ranks):
    for s in ranks:
        errors = s["errors"]
        assert errors["column"][0] == "InvalidArgumentError"
        assert "C-contiguous" in errors["column"][1]
        assert errors["mismatch"][0] == "InvalidArgumentError"
        assert "same number of elements of one dtype" in errors["mismatch"][1]
        assert errors["op"] == ["InvalidArgumentError",
                                "op 'mean' is not one of sum, prod, max, min"]
        assert "use 'max' (any) or 'min' (all)" in errors["bool_sum"][1]
        assert errors["path"][0] == "InvalidArgumentError"
        assert "'carrier' is not one of nccl, mpi, host" in errors["path"][1]
        if s["path"] != "mpi":
            assert errors["numpy"][0] == "InvalidArgumentError"
            assert "must be a DeviceArray" in errors["numpy"][1]


def test_mpi4py_is_refused_gpu_memory_its_mpi_cannot_read(ranks):
    gpu_ranks = [s for s in ranks if "mpi4py_gpu" in s["errors"]]
    if not gpu_ranks:
        pytest.skip("no rank on a GPU under an MPI without CUDA support")
    for s in gpu_ranks:
        kind, message = s["errors"]["mpi4py_gpu"]
        assert kind == "DLPackError"
        assert "cannot read GPU memory" in message
        assert "spirjit.mpi.Communicator" in message


LAPLACE = os.path.join(os.path.dirname(os.path.dirname(HERE)), "examples",
                       "laplace", "laplace_mpi.py")


@pytest.mark.skipif(len(GPUS) < 2, reason="needs two CUDA GPUs")
@pytest.mark.parametrize("count", sorted({2, len(GPUS)}))
def test_laplace_example_on_gpus_matches_one_process(count):
    command, env = launch.mpirun(count, [
        LAPLACE, "258", "130", "--sweeps", "50", "--halo", "4", "--check",
        "--devices", "cuda:gpu"])
    env.pop("SPIRJIT_DEVICE", None)
    done = subprocess.run(command, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{count} ranks on cuda:gpu:0" in done.stdout
    assert "(path nccl): 50 sweeps" in done.stdout
    assert "max difference from the single-process solver: 0.000e+00" \
        in done.stdout
