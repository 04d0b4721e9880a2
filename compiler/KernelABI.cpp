#include "compiler/KernelABI.h"

namespace spirjit {

namespace {

/// The parameters of one value of type `t`: an argument, or an element of
/// a tuple argument (at `element`).
void addParameters(const Type *t, int i, std::vector<int> &element,
                   std::vector<KernelParameter> &params) {
  auto add = [&](KernelParameter::Kind kind, int dim = 0) {
    params.push_back({kind, i, dim, element});
  };
  if (t->kind == TypeKind::Item || t->kind == TypeKind::NdItem ||
      t->kind == TypeKind::Group)
    return; // work-item queries need no parameter
  if (t->kind == TypeKind::Function || t->kind == TypeKind::None)
    return; // a spirjit.Device or None argument of a jit function: no value
  if (t->kind == TypeKind::Array && t->memorySpace == MemorySpace::Local) {
    add(KernelParameter::Kind::LocalData);
    for (int d = 0; d < t->ndim; ++d)
      add(KernelParameter::Kind::ArrayShape, d);
    return;
  }
  if (t->kind == TypeKind::Complex) { // real part, then imaginary part
    add(KernelParameter::Kind::Scalar, 0);
    add(KernelParameter::Kind::Scalar, 1);
    return;
  }
  if (t->kind == TypeKind::Tuple) { // a jit function's tuple: its elements
    for (int k = 0; k < static_cast<int>(t->elements.size()); ++k) {
      element.push_back(k);
      addParameters(t->elements[k], i, element, params);
      element.pop_back();
    }
    return;
  }
  if (t->kind == TypeKind::List) { // a jit function's list argument
    add(KernelParameter::Kind::ArrayData);
    return;
  }
  if (t->kind != TypeKind::Array) {
    add(KernelParameter::Kind::Scalar);
    return;
  }
  add(KernelParameter::Kind::ArrayData);
  for (int d = 0; d < t->ndim; ++d)
    add(KernelParameter::Kind::ArrayShape, d);
  // Contiguous layouts (C, F) carry no strides: they follow from the
  // shape, and every parameter costs the driver at each launch.
  if (t->layout == 'A')
    for (int d = 0; d < t->ndim; ++d)
      add(KernelParameter::Kind::ArrayStride, d);
}

} // namespace

std::vector<KernelParameter>
kernelParameters(const std::vector<const Type *> &arguments,
                 bool groupScratch, bool debugRecord) {
  std::vector<KernelParameter> params;
  std::vector<int> element;
  for (int i = 0; i < static_cast<int>(arguments.size()); ++i)
    addParameters(arguments[i], i, element, params);
  if (groupScratch)
    params.push_back({KernelParameter::Kind::GroupScratch, -1});
  if (debugRecord)
    params.push_back({KernelParameter::Kind::DebugRecord, -1});
  return params;
}

const Type *parameterType(const KernelParameter &p,
                          const std::vector<const Type *> &arguments) {
  const Type *t = arguments.at(p.argument);
  for (int k : p.element)
    t = t->elements.at(k);
  return t;
}

} // namespace spirjit
