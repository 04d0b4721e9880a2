// @spirjit.jit from Python: arguments into the host ABI's parameters
// (LowerToLLVM.h), the call through launch::JitFunction, and the result
// buffer back into Python objects.
#pragma once

#include "launch/HostCall.h"

#include <pybind11/pybind11.h>

namespace spirjit::python {

class JitDispatcher {
public:
  /// `describe` returns the function's description dict (called at the
  /// first compilation); `device` is None or a Device every call runs on.
  JitDispatcher(pybind11::object describe, pybind11::object device,
                bool fastmath, int optLevel, bool boundscheck, bool debug);
  pybind11::object call(pybind11::args args);
  /// Compiles for these arguments without running; the stages printed by
  /// `dump` (stage name -> text) when given.
  void compileFor(pybind11::args args);
  int specializations() { return function_.specializations(); }
  /// compiles, memory_hits, disk_hits and compile_seconds (of the last
  /// compile) of the host code.
  pybind11::dict hostStats();
  /// compiles, memory_hits, disk_hits, compile_seconds and
  /// device_build_seconds of the prange loops' kernels.
  pybind11::dict kernelStats();
  /// The describe callback, for the cycle collector (Collectable.h).
  pybind11::object &heldObject() { return describe_; }

private:
  pybind11::object describe_;
  std::shared_ptr<runtime::Device> device_;
  launch::JitFunction function_;
};

void addJit(pybind11::module_ &m);

} // namespace spirjit::python
