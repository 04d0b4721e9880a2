// The table of scalar math functions (MathFunctions.def), shared by type
// inference and the lowering: `math.<name>` and the NumPy ufuncs that
// ArrayOps.def computes with a row of it.
#pragma once

#include <string>

namespace spirjit {

struct MathFunction {
  enum class Module { Math, Array }; // math.<name>, or a ufunc's only
  enum class Kind {
    Float, Rounding, Predicate, Scale, Square, LdExp,
    Sign,       // -1, 0 or 1 in the argument's type (nan stays nan)
    NanMinMax,  // fmax/fmin: the larger/smaller, a nan only if both are
    Logical,    // logical_and/or/xor/not: truth of each argument -> bool
    Reciprocal, // 1 / x in the argument's type (an int's 1 // x, 0 for 0)
    Conjugate,  // a real number itself; a complex one, imaginary part negated
    SignBit,    // the sign bit of the float -> bool
    LogAddExp,  // log(exp(x) + exp(y)) (log2/exp2 for logaddexp2)
    Heaviside,  // 0, h or 1 as x is < 0, 0 or > 0 (a NaN x stays)
    Gcd,        // gcd or lcm of integers' magnitudes (NumPy's)
    BitCount,   // the 1 bits of an integer's magnitude -> uint8
  };
  Module module;
  const char *name;
  const char *builtin; // OpenCL built-in, or the constant of a Scale
  int arity;
  Kind kind;
};

/// The message of a call of a function neither this table nor the others
/// have ("numpy.eye"), in a kernel or device function or, when `host`, in a
/// jit function's code (host code and prange bodies).
std::string unsupportedCallMessage(const std::string &qualifiedName,
                                   bool host);

/// The function `qualifiedName` ("math.sqrt", or "numpy.arctan2" by its
/// ArrayOps.def row), or nullptr.
const MathFunction *findMathFunction(const std::string &qualifiedName);

} // namespace spirjit
