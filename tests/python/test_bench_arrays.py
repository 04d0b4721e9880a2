"""benchmarks/bench_arrays.py --quick on each device: every case runs on
DeviceArrays, gives NumPy's answer and gets a row with its target, so the
script still runs when the array layer changes under it (its timings mean
nothing at these sizes). In a subprocess: bench_vecadd, which it imports,
sets SPIRJIT_DISABLE_CACHE for the process."""

import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SCRIPT = os.path.join(REPO, "benchmarks", "bench_arrays.py")
LABELS = ["Jacobi sweep (slices)", "(a + b) * 2.0", "a*b + sqrt(a) - 1",
          "8-op chain, 4 inputs", "x.sum()", "x.argmax()", "(a * b).sum()"]


def test_quick_run_covers_every_case(device_filter):
    out = subprocess.run([sys.executable, SCRIPT, "--quick", "--device",
                          device_filter], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "WRONG" not in out.stdout, out.stdout
    rows = [line.split(" | ") for line in out.stdout.splitlines()
            if line.split(" | ")[0].strip() in LABELS]
    assert sorted({r[0].strip() for r in rows}) == sorted(LABELS)
    header = next(line.split(" | ") for line in out.stdout.splitlines()
                  if line.startswith("case "))
    spirjit = [cell.strip() for cell in header].index("spirjit")
    for row in rows:
        # the Jacobi grid, a large size and n = 1000 for the others
        assert row[spirjit].strip().endswith(("us", "ms")), row
    assert sum(r[0].strip() != LABELS[0] for r in rows) == 12


def test_case_option_runs_only_that_case(device_filter):
    out = subprocess.run([sys.executable, SCRIPT, "--quick", "--device",
                          device_filter, "--case", "argmax"],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    rows = {line.split(" | ")[0].strip() for line in out.stdout.splitlines()
            if line.split(" | ")[0].strip() in LABELS}
    assert rows == {"x.argmax()"}, out.stdout
