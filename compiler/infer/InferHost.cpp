// What only host code (a jit function's driver) may call: NumPy's and
// spirjit's array constructors. `prange` is typed as `range` everywhere
// (InferMath.cpp); the parfor stage decides what a prange loop becomes.
#include "compiler/infer/Inference.h"

namespace spirjit::infer {

namespace {

bool endsWith(const std::string &s, const std::string &tail) {
  return s.size() >= tail.size() &&
         s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

} // namespace
} // namespace spirjit::infer

namespace spirjit {
bool isArrayConstructor(const std::string &name) {
  static const std::set<std::string> names = {
      "empty", "zeros", "ones", "full",
      "empty_like", "zeros_like", "ones_like", "full_like"};
  for (const char *module : {"numpy.", "spirjit."})
    if (name.compare(0, std::strlen(module), module) == 0 &&
        names.count(name.substr(std::strlen(module))))
      return true;
  return false;
}
} // namespace spirjit

namespace spirjit::infer {

const Type *Inference::inferArrayConstructor(Instruction &inst,
                                             const std::string &name) {
  std::string shortName = name.substr(name.find('.') + 1);
  if (result_.kind != FunctionKind::Host)
    unsupported(inst, "np." + shortName +
                          "() allocates memory, which a kernel cannot; "
                          "allocate the array before the launch and pass it "
                          "in (in a kernel, kapi.PrivateArray is per-item "
                          "memory)");
  bool like = endsWith(shortName, "_like");
  bool full = shortName.compare(0, 4, "full") == 0;
  std::vector<std::string> params = {like ? "a" : "shape"};
  if (full)
    params.push_back("fill_value");
  params.push_back("dtype");
  std::vector<const Instruction *> args =
      positionalArguments(inst, params, "np." + shortName);
  result_.callArguments[&inst] = args;
  if (!args[0])
    typingError(inst, "np." + shortName + "() needs its " + params[0]);
  if (full && !args[1])
    typingError(inst, "np." + shortName + "() needs its fill_value");
  const Instruction *dtypeArg = args.back();
  const Type *element = nullptr;
  if (dtypeArg) {
    const Type *t = dtypeArg->type;
    if (t->kind != TypeKind::DTypeClass)
      typingError(inst, "np." + shortName +
                            "()'s dtype must be a NumPy type such as "
                            "np.float32 or a.dtype, not '" +
                            t->str() + "'");
    element = t->element;
  }
  const Type *shape = args[0]->type;
  int ndim = 0;
  if (like) {
    if (shape->kind != TypeKind::Array)
      typingError(inst, "np." + shortName + "() needs an array, not '" +
                            shape->str() + "'");
    ndim = shape->ndim;
    if (!element)
      element = shape->element;
  } else if (shape->kind == TypeKind::Tuple) {
    for (const Type *e : shape->elements)
      requireInteger(inst, e, "an extent of np." + shortName + "()'s shape");
    ndim = static_cast<int>(shape->elements.size());
  } else {
    requireInteger(inst, shape, "np." + shortName + "()'s shape");
    ndim = 1;
  }
  if (ndim < 1 || ndim > 3)
    unsupported(inst, "np." + shortName + "() in a jit function makes "
                      "arrays of 1 to 3 dimensions, not " +
                          std::to_string(ndim));
  if (full && !args[1]->type->isNumber())
    typingError(inst, "np." + shortName + "()'s fill_value must be a number");
  if (!element)
    element = full ? types::materialize(args[1]->type) : types::floating(64);
  if (element->kind == TypeKind::Complex)
    unsupported(inst, "complex arrays are not made in jit functions yet");
  return types::array(element, ndim, 'C');
}

} // namespace spirjit::infer
