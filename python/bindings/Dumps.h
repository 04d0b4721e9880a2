// The module's dump entry points (Dumps.cpp): dump_stages,
// dump_host_stages, dump_array_kernels, stage_names, array_ops.
#pragma once

#include <pybind11/pybind11.h>

namespace spirjit::python {

void addStageDumps(pybind11::module_ &m);

} // namespace spirjit::python
