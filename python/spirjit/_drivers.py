"""Finds OpenCL drivers installed from PyPI into this Python environment.

Intel's CPU OpenCL runtime (PyPI ``intel-opencl-rt``) installs
``libintelocl.so`` into the environment's ``lib/`` folder, where the system's
OpenCL ICD loader (ocl-icd) does not look: the loader reads the ``.icd``
files of ``/etc/OpenCL/vendors``, or of the folder ``OCL_ICD_VENDORS`` names
instead.  So that a user who ``pip install``\\ s the runtime gets it with no
variables to set, importing spirjit writes a vendors folder inside the
environment holding the system's ICDs plus this one, and points
``OCL_ICD_VENDORS`` at it, before the loader first runs.

It does nothing when the user set ``OCL_ICD_VENDORS`` (their choice wins),
when ``SPIRJIT_NO_ENV_OPENCL=1``, when no such runtime is installed, or when
the system already lists it.  Child processes inherit the variable, so
their OpenCL programs see the same drivers.
"""

import glob
import os
import site
import sys
import tempfile
import zlib

_SYSTEM_VENDORS = "/etc/OpenCL/vendors"
_LIBRARIES = ("libintelocl.so",)


def _environment_libraries():
    """Driver libraries found in the lib/ folders of this environment."""
    roots = [sys.prefix, getattr(site, "USER_BASE", None)]
    found = []
    for root in filter(None, roots):
        for name in _LIBRARIES:
            path = os.path.join(root, "lib", name)
            if os.path.isfile(path) and path not in found:
                found.append(path)
    return found


def _read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def _system_icds():
    return {os.path.basename(p): _read(p)
            for p in sorted(glob.glob(os.path.join(_SYSTEM_VENDORS, "*.icd")))}


def _write_vendors(folder, entries):
    """Makes ``folder`` hold exactly ``entries`` (name -> library); returns
    whether it does. Files are rewritten only when they differ, so a
    second import writes nothing."""
    try:
        os.makedirs(folder, exist_ok=True)
        for name in os.listdir(folder):
            if name.endswith(".icd") and name not in entries:
                os.unlink(os.path.join(folder, name))
        for name, library in entries.items():
            path = os.path.join(folder, name)
            if _read(path) == library and \
                    os.stat(path).st_mode & 0o044 != 0o044:
                os.chmod(path, 0o644)  # written unreadable by an older one
            if _read(path) != library:
                tmp = tempfile.NamedTemporaryFile(
                    "w", dir=folder, suffix=".tmp", delete=False)
                with tmp:
                    tmp.write(library + "\n")
                # Readable by everyone (a temporary file is the owner's
                # only): another user of a shared environment must see
                # the same drivers.
                os.chmod(tmp.name, 0o644)
                os.replace(tmp.name, path)
        return True
    except OSError:
        return False


def register_environment_drivers():
    """Points OCL_ICD_VENDORS at a folder listing the system's drivers and
    those of this environment; see the module's text for when."""
    if os.environ.get("OCL_ICD_VENDORS") or \
            os.environ.get("SPIRJIT_NO_ENV_OPENCL") == "1":
        return
    libraries = _environment_libraries()
    if not libraries:
        return
    system = _system_icds()
    registered = " ".join(v for v in system.values() if v)
    missing = [lib for lib in libraries
               if os.path.basename(lib) not in registered]
    if not missing:
        return
    entries = {name: library for name, library in system.items() if library}
    for library in missing:
        entries["spirjit-env-" + os.path.basename(library)[3:-3] + ".icd"] = \
            library
    candidates = [os.path.join(sys.prefix, "etc", "OpenCL", "vendors"),
                  os.path.join(os.environ.get("XDG_CACHE_HOME") or
                               os.path.expanduser("~/.cache"), "spirjit",
                               "opencl-vendors-%08x" % zlib.crc32(sys.prefix.encode()))]
    for folder in candidates:
        if _write_vendors(folder, entries):
            os.environ["OCL_ICD_VENDORS"] = folder
            return
