// The table of math functions kernels may call (MathFunctions.def), shared
// by type inference and the lowering.
#pragma once

#include <string>

namespace spirjit {

struct MathFunction {
  enum class Module { Math, NumPy, Both };
  enum class Kind { Float, Rounding, Predicate, Scale, Square, LdExp };
  Module module;
  const char *name;
  const char *builtin; // OpenCL built-in, or the constant of a Scale
  int arity;
  Kind kind;
};

/// The function `qualifiedName` ("math.sqrt", "numpy.arctan2"), or nullptr.
const MathFunction *findMathFunction(const std::string &qualifiedName);

} // namespace spirjit
