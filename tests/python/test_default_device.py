"""Which device a user gets with no variables set.

Intel's CPU OpenCL runtime installed from PyPI into the environment is
found by importing spirjit (python/spirjit/_drivers.py) and is the default
device where there is no GPU; PoCL comes after it. A user's own
OCL_ICD_VENDORS wins.
"""

import os
import sys

import pytest

INTEL = os.path.join(sys.prefix, "lib", "libintelocl.so")
needs_intel = pytest.mark.skipif(
    not os.path.isfile(INTEL),
    reason="Intel's CPU OpenCL runtime is not installed in this environment")

LIST = """
    import spirjit
    for d in spirjit.devices():
        print(d.filter_string, '|', d.platform)
    print('default', spirjit.default_device().filter_string)
"""


def clean_env(monkeypatch):
    for name in ("OCL_ICD_VENDORS", "SPIRJIT_DEVICE", "SPIRJIT_NO_ENV_OPENCL",
                 "CL_CONFIG_CPU_VECTORIZER_MODE"):
        monkeypatch.delenv(name, raising=False)


@needs_intel
def test_intel_runtime_is_found_and_is_the_default_cpu_device(
        monkeypatch, run_isolated):
    clean_env(monkeypatch)
    proc = run_isolated(LIST)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    platforms = [line.split(" | ")[1] for line in lines[:-1]]
    assert "Intel(R) OpenCL" in platforms
    first_cpu = next(line for line in lines if "opencl:cpu" in line)
    assert first_cpu.startswith("opencl:cpu:0 | Intel(R) OpenCL")
    if "Portable Computing Language" in platforms:  # PoCL after Intel
        assert platforms.index("Portable Computing Language") > \
            platforms.index("Intel(R) OpenCL")
    assert lines[-1] == "default opencl:cpu:0" or ":gpu:" in lines[-1]


@needs_intel
def test_a_users_own_icd_folder_wins(monkeypatch, run_isolated, tmp_path):
    clean_env(monkeypatch)
    (tmp_path / "pocl.icd").write_text("libpocl.so.2\n")
    monkeypatch.setenv("OCL_ICD_VENDORS", str(tmp_path))
    proc = run_isolated(LIST)
    assert proc.returncode == 0, proc.stderr
    assert "Intel(R) OpenCL" not in proc.stdout


@needs_intel
def test_the_search_can_be_turned_off(monkeypatch, run_isolated):
    clean_env(monkeypatch)
    monkeypatch.setenv("SPIRJIT_NO_ENV_OPENCL", "1")
    proc = run_isolated(LIST)
    assert proc.returncode == 0, proc.stderr
    assert "Intel(R) OpenCL" not in proc.stdout


def test_the_vendors_folder_is_readable_by_other_users(tmp_path):
    """The .icd files spirjit writes for an environment's drivers are read
    by every user of a shared installation: not the owner's only (a
    temporary file's 0600 made another user see no device)."""
    from spirjit import _drivers
    folder = tmp_path / "vendors"
    assert _drivers._write_vendors(str(folder), {"intel.icd": "/x/libintelocl.so"})
    mode = os.stat(folder / "intel.icd").st_mode & 0o777
    assert mode & 0o044 == 0o044, oct(mode)
    assert (folder / "intel.icd").read_text() == "/x/libintelocl.so\n"
    os.chmod(folder / "intel.icd", 0o600)      # as an older spirjit wrote it
    assert _drivers._write_vendors(str(folder), {"intel.icd": "/x/libintelocl.so"})
    assert os.stat(folder / "intel.icd").st_mode & 0o044 == 0o044
