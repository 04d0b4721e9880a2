// DeviceArray operations recorded into the array-expression graph.
#pragma once

#include <pybind11/pybind11.h>

namespace spirjit::python {

/// Adds the array-graph entry points (_apply, _reduce, _assign, the
/// operator, item and reduction methods, _synchronize, ...).
void addArrayFunctions(pybind11::module_ &m);
/// Lets the array graph compute small values with NumPy on CPU runtimes,
/// and adds _host_evaluation to switch it (HostArrays.cpp).
void addHostEvaluation(pybind11::module_ &m);

} // namespace spirjit::python
