#include "compiler/MathFunctions.h"

#include "compiler/ArrayOps.h"

namespace spirjit {

const MathFunction *findMathFunction(const std::string &qualifiedName) {
  static const MathFunction table[] = {
#define MATH(module, name, builtin, arity, kind)                               \
  {MathFunction::Module::module, name, builtin, arity, MathFunction::Kind::kind},
#include "compiler/MathFunctions.def"
  };
  std::string name;
  bool isMath = qualifiedName.compare(0, 5, "math.") == 0;
  if (isMath) {
    name = qualifiedName.substr(5);
  } else {
    const ArrayOp *op = findUfunc(qualifiedName);
    if (!op || op->scalar != ArrayOpScalar::Math)
      return nullptr;
    name = op->scalarOp;
  }
  for (const MathFunction &f : table)
    if (name == f.name && (!isMath || f.module == MathFunction::Module::Math))
      return &f;
  return nullptr;
}

} // namespace spirjit
