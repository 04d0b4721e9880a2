#include "compiler/MathFunctions.h"

namespace spirjit {

const MathFunction *findMathFunction(const std::string &qualifiedName) {
  static const MathFunction table[] = {
#define MATH(module, name, builtin, arity, kind)                               \
  {MathFunction::Module::module, name, builtin, arity, MathFunction::Kind::kind},
#include "compiler/MathFunctions.def"
  };
  size_t dot = qualifiedName.find('.');
  if (dot == std::string::npos)
    return nullptr;
  std::string module = qualifiedName.substr(0, dot);
  std::string name = qualifiedName.substr(dot + 1);
  bool isMath = module == "math", isNumPy = module == "numpy";
  if (!isMath && !isNumPy)
    return nullptr;
  for (const MathFunction &f : table) {
    if (name != f.name)
      continue;
    if (f.module == MathFunction::Module::Both ||
        (isMath && f.module == MathFunction::Module::Math) ||
        (isNumPy && f.module == MathFunction::Module::NumPy))
      return &f;
  }
  return nullptr;
}

} // namespace spirjit
