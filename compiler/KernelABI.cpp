#include "compiler/KernelABI.h"

namespace spirjit {

std::vector<KernelParameter>
kernelParameters(const std::vector<const Type *> &arguments,
                 bool groupScratch, bool debugRecord) {
  std::vector<KernelParameter> params;
  for (int i = 0; i < static_cast<int>(arguments.size()); ++i) {
    const Type *t = arguments[i];
    if (t->kind == TypeKind::Item || t->kind == TypeKind::NdItem ||
        t->kind == TypeKind::Group)
      continue; // work-item queries need no parameter
    if (t->kind == TypeKind::Function)
      continue; // a spirjit.Device argument of a jit function: no value
    if (t->kind == TypeKind::Array && t->memorySpace == MemorySpace::Local) {
      params.push_back({KernelParameter::Kind::LocalData, i});
      for (int d = 0; d < t->ndim; ++d)
        params.push_back({KernelParameter::Kind::ArrayShape, i, d});
      continue;
    }
    if (t->kind == TypeKind::Complex) { // real part, then imaginary part
      params.push_back({KernelParameter::Kind::Scalar, i, 0});
      params.push_back({KernelParameter::Kind::Scalar, i, 1});
      continue;
    }
    if (t->kind == TypeKind::Tuple) { // a jit function's tuple of numbers:
      for (int k = 0; k < static_cast<int>(t->elements.size()); ++k)
        params.push_back({KernelParameter::Kind::Scalar, i, k}); // element k
      continue;
    }
    if (t->kind == TypeKind::List) { // a jit function's list argument
      params.push_back({KernelParameter::Kind::ArrayData, i});
      continue;
    }
    if (t->kind != TypeKind::Array) {
      params.push_back({KernelParameter::Kind::Scalar, i});
      continue;
    }
    params.push_back({KernelParameter::Kind::ArrayData, i});
    for (int d = 0; d < t->ndim; ++d)
      params.push_back({KernelParameter::Kind::ArrayShape, i, d});
    // Contiguous layouts (C, F) carry no strides: they follow from the
    // shape, and every parameter costs the driver at each launch.
    if (t->layout == 'A')
      for (int d = 0; d < t->ndim; ++d)
        params.push_back({KernelParameter::Kind::ArrayStride, i, d});
  }
  if (groupScratch)
    params.push_back({KernelParameter::Kind::GroupScratch, -1});
  if (debugRecord)
    params.push_back({KernelParameter::Kind::DebugRecord, -1});
  return params;
}

} // namespace spirjit
