// DeviceArray operations recorded into the array-expression graph.
#pragma once

#include "launch/ArrayGraph.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

namespace spirjit::python {

/// Adds the array-graph entry points (_apply, _reduce, _assign, the
/// operator, item and reduction methods, _synchronize, ...).
void addArrayFunctions(pybind11::module_ &m);
/// Lets the array graph compute small values with NumPy on CPU runtimes,
/// and adds _host_evaluation to switch it (HostArrays.cpp).
void addHostEvaluation(pybind11::module_ &m);
/// A pending value the host evaluator takes, computed by NumPy straight
/// into `out` (C-contiguous, its shape and dtype); false for any other,
/// which the caller computes as usual.
bool readOnHost(const launch::NodeRef &node, const pybind11::array &out);

} // namespace spirjit::python
