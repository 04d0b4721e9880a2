"""Builds the example extension `matvec` against the installed spirjit's
header (spirjit.get_include()) and pybind11's:

    pip install pybind11 setuptools
    python setup.py build_ext --inplace
    python -c "import matvec, spirjit, numpy as np; \\
        print(matvec.matvec(spirjit.ones((3, 2)), spirjit.ones(2)))"

No OpenCL or CUDA headers or libraries are needed: the module opens the
drivers spirjit has loaded (matvec.cpp)."""

from pybind11.setup_helpers import Pybind11Extension
from setuptools import setup

import spirjit

setup(
    name="spirjit-matvec-example",
    ext_modules=[Pybind11Extension(
        "matvec", ["matvec.cpp"], include_dirs=[spirjit.get_include()],
        libraries=["dl"], cxx_std=17)],
)
