// Kernel requests for the tests: a fixture's description and a signature.
#pragma once

#include "compiler/Pipeline.h"

#include <string>

namespace spirjit::testing {

/// Compiles `function` (which must outlive the request) for the argument
/// types of a numba-style `signature`, launched over `ndim` dimensions.
inline KernelRequest kernelRequest(const FunctionDescription &function,
                                   const std::string &signature,
                                   int ndim = 1) {
  KernelRequest request;
  request.function = &function;
  request.argumentTypes = types::parseSignature(signature).arguments;
  request.itemDimensions = ndim;
  return request;
}

} // namespace spirjit::testing
