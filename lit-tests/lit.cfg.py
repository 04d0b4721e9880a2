# lit configuration: each test is a Python file whose RUN lines call
# spirjit-dump-ir on functions in the file itself and check the output with
# FileCheck.
import os
import platform

import lit.formats

config.name = "spirjit"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".py"]
# lit-tests/passes/: LLVM IR through spirjit-opt, one pass at a time.
config.suffixes.append(".ll")
config.excludes = ["lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)

root = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
python = lit_config.params.get("python", os.path.join(root, ".venv", "bin",
                                                      "python"))
filecheck = lit_config.params.get("filecheck",
                                  "/usr/lib/llvm-15/bin/FileCheck")
config.environment["PYTHONPATH"] = os.path.join(root, "python")
config.environment["SPIRJIT_PYTHON"] = python
config.substitutions.append(
    ("%spirjit-dump-ir", os.path.join(root, "tools", "spirjit-dump-ir")))
config.substitutions.append(
    ("%spirjit-opt",
     lit_config.params.get("spirjit_opt",
                           os.path.join(root, "build", "tools", "spirjit-opt"))))
config.substitutions.append(("FileCheck", filecheck))
config.substitutions.append(("%not", "not"))


def _cpu_flags():
    """The host CPU's flags, as /proc/cpuinfo names them (empty where it
    cannot be read)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


_FLAGS = _cpu_flags()


def _libmvec():
    """Does the native CPU device vectorise math with glibc's libmvec here
    (x86-64 with AVX2, libmvec.so.1 of glibc 2.35 on, which has erf:
    compiler/HostJIT.cpp, compiler/Optimize.cpp)?"""
    import ctypes
    try:
        libmvec = ctypes.CDLL("libmvec.so.1")
    except OSError:
        return False
    return (platform.machine() == "x86_64" and "avx2" in _FLAGS
            and hasattr(libmvec, "_ZGVdN4v_erf"))


if platform.machine() == "x86_64":
    config.available_features.add("x86_64")
# The widest vector ISA the native device's math calls use (AVX-512's
# variants where the CPU runs AVX-512F): a FileCheck prefix
# (lit-tests/native/vector-math.py).
config.substitutions.append(("%vector-isa",
                             "AVX512" if "avx512f" in _FLAGS else "AVX2"))
if _libmvec():
    config.available_features.add("libmvec")
