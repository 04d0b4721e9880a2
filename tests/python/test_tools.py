"""The command-line tools in tools/ run from a tree without a .venv (as
scripts/gpu-setup.sh leaves one): they fall back to python3 on PATH
instead of failing with `.venv/bin/python: not found`."""

import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def test_tools_run_without_a_venv(tmp_path):
    (tmp_path / "tools").mkdir()
    for tool in ("spirjit-devices", "spirjit-dump-ir"):
        shutil.copy(os.path.join(ROOT, "tools", tool), tmp_path / "tools")
    os.symlink(os.path.join(ROOT, "python"), tmp_path / "python")
    env = dict(os.environ)
    env.pop("SPIRJIT_PYTHON", None)
    # python3 on PATH is this interpreter (it has NumPy).
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + \
        env.get("PATH", "")
    proc = subprocess.run([str(tmp_path / "tools" / "spirjit-devices")],
                          env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "not found" not in proc.stderr
    proc = subprocess.run([str(tmp_path / "tools" / "spirjit-dump-ir"),
                           "--help"], env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "usage" in proc.stdout
