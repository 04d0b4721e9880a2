"""bench_prange.py's numba-dpex column, wired to a stand-in venv: the real one
(scripts/setup-numba-dpex.sh) is 2.8 GB, so these check what bench_prange
does with peer_dpjit.py's answer, not numba-dpex itself.

bench_prange is imported in a subprocess: bench_vecadd, which it imports,
sets SPIRJIT_DISABLE_CACHE for the process, and that must not reach the
other tests."""

import json
import os
import subprocess
import sys
import textwrap

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

DRIVER = textwrap.dedent("""
    import argparse, json, sys
    sys.path.insert(0, {bench!r})
    import bench_prange as bp
    peer = bp.run_peer({venv!r}, argparse.Namespace(reps=3, small=True))
    print("RESULT", json.dumps(peer))
    if peer:
        col = bp.PeerColumn(peer)
        print("CELLS", json.dumps([col.cell("vecadd", peer["vecadd"] / 2),
                                   col.cell("jacobi_prange", 0.01),
                                   col.cell("sum")]))
        print("NOTES", json.dumps(col.notes()))
""")


def run_bench(venv, extra_env=None):
    env = dict(os.environ, **(extra_env or {}))
    out = subprocess.run(
        [sys.executable, "-c",
         DRIVER.format(bench=os.path.join(REPO, "benchmarks"), venv=venv)],
        env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    tagged = {}
    for line in out.stdout.splitlines():
        tag, _, rest = line.partition(" ")
        if tag in ("RESULT", "CELLS", "NOTES"):
            tagged[tag] = json.loads(rest)
    return out.stdout, tagged


def fake_venv(tmp_path, python_body):
    """A venv whose bin/python is a shell script and whose env.sh sets one
    variable, as scripts/setup-numba-dpex.sh lays a real one out."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "env.sh").write_text("export FROM_ENV_SH=yes\n")
    python = venv / "bin" / "python"
    python.write_text("#!/bin/sh\n" + python_body)
    python.chmod(0o755)
    return str(venv)


def test_absent_venv_says_how_to_get_it(tmp_path):
    stdout, tagged = run_bench(str(tmp_path / "none"))
    assert tagged["RESULT"] is None
    assert "scripts/setup-numba-dpex.sh" in stdout


def test_rows_and_failures_from_the_peer(tmp_path):
    # The stand-in answers as peer_dpjit.py does, and reports what it saw of
    # the environment: env.sh sourced, spirjit's settings removed, the
    # script and its options passed on.
    venv = fake_venv(tmp_path, textwrap.dedent("""\
        echo "numba chatter on stdout"
        echo '{"_device": "cpu", "_versions": "numba-dpex 0.23.0",' \
             '"vecadd": 0.004, "jacobi_prange": "ValueError: no arrays",' \
             '"env_sh": "'$FROM_ENV_SH'",' \
             '"ocl": "'${OCL_ICD_VENDORS:-unset}'",' \
             '"spirjit": "'${SPIRJIT_DEVICE:-unset}'", "args": "'"$*"'"}'
        """))
    stdout, tagged = run_bench(venv, {"OCL_ICD_VENDORS": "/spirjit/icds",
                                      "SPIRJIT_DEVICE": "opencl:cpu:1"})
    peer = tagged["RESULT"]
    assert peer["vecadd"] == 0.004
    assert peer["env_sh"] == "yes"
    assert peer["ocl"] == "unset" and peer["spirjit"] == "unset"
    assert "peer_dpjit.py --reps 3 --small" in peer["args"]
    assert "numba-dpex 0.23.0, on cpu" in stdout

    # spirjit's time over numba-dpex's; a failure becomes a numbered note;
    # a row peer_dpjit.py did not give is a failure too, not a blank.
    assert tagged["CELLS"] == ["     4.00 ms (ours 0.50x)", "failed [1]",
                               "failed [2]"]
    assert tagged["NOTES"] == [
        "  [1] numba-dpex jacobi_prange: ValueError: no arrays",
        "  [2] numba-dpex sum: not measured by peer_dpjit.py"]


def test_a_crashing_peer_is_one_line_not_a_crash(tmp_path):
    venv = fake_venv(tmp_path, "echo 'Illegal instruction' >&2\nexit 132\n")
    stdout, tagged = run_bench(venv)
    assert tagged["RESULT"] is None
    assert "peer_dpjit.py failed (132): Illegal instruction" in stdout


def test_a_peer_without_its_json_line_is_one_line(tmp_path):
    venv = fake_venv(tmp_path, "echo 'Traceback: half a line'\n")
    stdout, tagged = run_bench(venv)
    assert tagged["RESULT"] is None
    assert "ended without its JSON line: Traceback: half a line" in stdout
