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

std::string unsupportedCallMessage(const std::string &qualifiedName,
                                   bool host) {
  if (!host)
    return "calling '" + qualifiedName + "' is not supported in kernels";
  // As the user spells it: np.eye, not numpy.eye.
  std::string spelled = qualifiedName.rfind("numpy.", 0) == 0
                            ? "np." + qualifiedName.substr(6)
                            : qualifiedName;
  return spelled + "() is not supported in jit functions; call it outside "
                   "the jit function and pass the result in (on "
                   "DeviceArrays NumPy's functions run on their device), "
                   "or write the loop with prange";
}

} // namespace spirjit
