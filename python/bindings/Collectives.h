// NCCL's communicator for spirjit.mpi: conversions only; what a call may
// pass (contiguity, dtypes, devices) is checked in python/spirjit/mpi.py.
#pragma once

#include <pybind11/pybind11.h>

namespace spirjit::python {

/// Adds `_nccl_available`, `_nccl_version`, `_nccl_unique_id` and
/// `_NcclCommunicator` to the module.
void addCollectives(pybind11::module_ &m);

} // namespace spirjit::python
