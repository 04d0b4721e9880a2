"""Device discovery: the properties spirjit-devices and spirjit.devices()
report (issue 14 item 6), --json, and the discovery example."""

import json
import os
import subprocess
import sys

import pytest

import spirjit

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
# The spirjit under test: the checkout's, or an installed wheel's.
PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(
    spirjit.__file__)))
PROPERTIES = ["platform", "platform_version", "driver_version",
              "compute_units", "max_work_group_size", "sub_group_sizes",
              "global_mem_size", "local_mem_size", "has_fp16", "has_fp64",
              "image_support", "host_unified_memory"]


def test_devices_report_the_articles_properties(device):
    for name in PROPERTIES:
        getattr(device, name)
    assert device.compute_units >= 1
    assert all(size >= 1 for size in device.sub_group_sizes)
    assert device.driver_version and device.platform_version


def env():
    environment = dict(os.environ)
    environment["PYTHONPATH"] = PACKAGE_ROOT
    environment["SPIRJIT_PYTHON"] = sys.executable
    return environment


def test_json_listing(tool_command):
    if not spirjit.devices():
        pytest.skip("no devices")
    proc = subprocess.run(
        tool_command("spirjit-devices") + ["--json"],
        env=env(), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    listing = json.loads(proc.stdout)
    assert [d["filter_string"] for d in listing] == \
        [d.filter_string for d in spirjit.devices()]
    for entry in listing:
        assert set(PROPERTIES) <= set(entry)
    assert sum(entry["default"] for entry in listing) == 1


def test_text_listing_names_each_property(tool_command):
    if not spirjit.devices():
        pytest.skip("no devices")
    proc = subprocess.run(tool_command("spirjit-devices"),
                          env=env(), capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    for words in ("driver", "compute units", "sub-group sizes",
                  "local memory", "fp16", "fp64", "images",
                  "memory shared with the host"):
        assert words in proc.stdout


def test_discovery_example_runs():
    if not spirjit.devices():
        pytest.skip("no devices")
    proc = subprocess.run(
        [sys.executable, os.path.join(ROOT, "examples",
                                      "device_discovery.py")],
        env=env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    for d in spirjit.devices():
        assert f"on {d.filter_string}: y = 3x" in proc.stdout


def test_imports_and_says_what_to_install_without_any_loader():
    # spirjit opens the OpenCL and Level Zero loaders at run time (as it
    # opens CUDA's driver), so a machine without them imports it and is
    # told what is missing, rather than failing to load the extension.
    env = dict(os.environ, SPIRJIT_OPENCL_LOADER="/nonexistent/libOpenCL.so",
               SPIRJIT_ZE_LOADER="/nonexistent/libze_loader.so",
               SPIRJIT_CUDA_DRIVER="/nonexistent/libcuda.so",
               PYTHONPATH=PACKAGE_ROOT)
    env.pop("SPIRJIT_DEVICE", None)
    env.pop("SPIRJIT_NATIVE", None)
    script = ("import spirjit\n"
              "print(len(spirjit.devices()))\n"
              "try:\n"
              "    spirjit.default_device()\n"
              "except spirjit.errors.DeviceError as e:\n"
              "    print('DeviceError', e)\n")
    out = subprocess.run([sys.executable, "-c", script], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "0"
    assert lines[1].startswith("DeviceError no device found")
    assert "OpenCL driver" in lines[1]
    # spirjit's own CPU device needs no loader at all.
    env["SPIRJIT_NATIVE"] = "1"
    out = subprocess.run([sys.executable, "-c", script], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["1"]
