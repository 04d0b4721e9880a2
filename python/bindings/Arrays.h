// DeviceArray operations recorded into the array-expression graph.
#pragma once

#include <pybind11/pybind11.h>

namespace spirjit::python {

/// Adds _apply, _reduce, _assign, _lazy, _pending and synchronize.
void addArrayFunctions(pybind11::module_ &m);

} // namespace spirjit::python
