#include "compiler/CheckDeviceCapabilities.h"

#include "frontend/Diagnostics.h"

namespace spirjit {
namespace {

/// "float64" or "complex128" when `t` (or its array element) needs double
/// precision, else nullptr.
const char *doublePrecisionName(const Type *t) {
  if (!t)
    return nullptr;
  if (t->kind == TypeKind::Array || t->kind == TypeKind::AtomicRef)
    t = t->element;
  if (!t)
    return nullptr;
  if (t->kind == TypeKind::Float && t->bits == 64)
    return "float64";
  if (t->kind == TypeKind::Complex && t->bits == 64)
    return "complex128";
  return nullptr;
}

void checkFunction(const TypedFunction &typed, const std::string &deviceName) {
  const ir::Function &function = *typed.function;
  for (const auto &block : function.blocks)
    for (const auto &inst : block->instructions)
      if (const char *name = doublePrecisionName(inst->type)) {
        bool complex = name[0] == 'c';
        throw UserError(UserErrorKind::Typing, function.filename,
                        inst->line ? inst->line : function.firstLine,
                        std::string("this ") + name +
                            " value needs double "
                            "precision, but " +
                            deviceName + " has none; use " +
                            (complex ? "complex64" : "float32") +
                            " (and float32 literals, np.float32(...))");
      }
}

} // namespace

std::string
argumentCapabilityProblem(const std::vector<const Type *> &argumentTypes,
                          bool hasFp64, const std::string &deviceName) {
  if (hasFp64)
    return "";
  for (size_t i = 0; i < argumentTypes.size(); ++i)
    if (const char *name = doublePrecisionName(argumentTypes[i])) {
      bool complex = name[0] == 'c';
      return "argument " + std::to_string(i + 1) + " is " + name + ", but " +
             deviceName + " has no double precision; use " +
             (complex ? "complex64" : "float32");
    }
  return "";
}

void checkDeviceCapabilities(const TypedFunction &kernel,
                             const Specializations &specializations,
                             bool hasFp64, const std::string &deviceName) {
  if (hasFp64)
    return;
  checkFunction(kernel, deviceName);
  for (const auto &[key, callee] : specializations.byKey)
    checkFunction(*callee, deviceName);
}

} // namespace spirjit
