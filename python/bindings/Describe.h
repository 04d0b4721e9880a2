// From a Python description dict (spirjit/_describe.py) to the plain
// FunctionDescription the compiler reads, and compiler types of Python
// arguments.
#pragma once

#include "compiler/Types.h"
#include "frontend/FunctionDescription.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

namespace spirjit::python {

FunctionDescription toFunctionDescription(const pybind11::dict &description);

/// The compiler type of a NumPy dtype, or nullptr when kernels cannot take it.
const Type *typeOfDType(const pybind11::dtype &dtype);

/// NumPy's name of a dtype ("float32"), kept per dtype object: asking
/// NumPy costs more than recording an array operation.
const std::string &dtypeName(const pybind11::dtype &dtype);

} // namespace spirjit::python
