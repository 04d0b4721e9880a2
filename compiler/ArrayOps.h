// The array operations (ArrayOps.def): every NumPy ufunc and reduction
// spirjit computes, with its names, arity, dtype and NaN rules and how one
// element is computed. Kernel typing and lowering, the array-expression
// stage and the Python bindings look operations up here.
#pragma once

#include <string>
#include <vector>

namespace spirjit {

enum class ArrayOpId {
#define ARRAY_OP(id, numpy, aliases, arrayApi, arity, kind, loops, result,     \
                 nan, identity, scalar, scalarOp)                              \
  id,
#include "compiler/ArrayOps.def"
};

enum class ArrayOpKind { Elementwise, Reduction };

/// The result dtype, NEP 50's weak Python numbers taking the other
/// operand's type.
enum class ArrayOpResult {
  Promote,    // the operands' common type
  Same,       // the operand's own type
  Float,      // the common type, integers and bools as floats (float64;
              // float32 for 8- and 16-bit ones, where NumPy has float16)
  Real,       // a complex number's real type, else the operand's
  Bool,       // bool
  Accumulate, // sum/prod: bools and integers in int64 (uint64 unsigned)
  Mean,       // a float or complex operand's type, else float64
  Index,      // int64, an index
  Count,      // uint8, a count of bits
};

/// What a NaN operand gives.
enum class ArrayOpNaN {
  Propagate,     // a NaN (the first one of two)
  FirstOperand,  // a NaN of the first operand; of the second, only its sign
  Unordered,     // comparisons: false, != true
  Ignore,        // the other operand, a NaN only if both are
  Truthy,        // a NaN is true, as bool(nan)
  Tests,         // the answer is about the NaN (isnan, isinf, isfinite)
  NotApplicable, // integers only
  FirstIndex,    // arg-reductions: the index of the first NaN
};

/// How one element is computed (ArrayOps.def explains).
enum class ArrayOpScalar { Binary, Compare, Unary, Math, Absolute, MaxMin,
                           Reduce };

struct ArrayOp {
  ArrayOpId id;
  const char *numpy;
  const char *aliases; // other numpy names, comma-separated
  const char *arrayApi;
  int arity;
  ArrayOpKind kind;
  const char *loops;
  ArrayOpResult result;
  ArrayOpNaN nan;
  const char *identity;
  ArrayOpScalar scalar;
  const char *scalarOp;
};

/// Every row of ArrayOps.def, in its order.
const std::vector<ArrayOp> &arrayOps();

/// The elementwise operation (a ufunc) `qualifiedName` names ("numpy.add",
/// "numpy.acos"), by its NumPy name, an alias or its Array API name (NumPy
/// 2 has those too); nullptr for other names and for reductions.
const ArrayOp *findUfunc(const std::string &qualifiedName);

/// The Aliases column as a list.
std::vector<std::string> aliasesOf(const ArrayOp &op);

/// The names of enumerators, for the bindings and dumps.
const char *arrayOpKindName(ArrayOpKind kind);
const char *arrayOpResultName(ArrayOpResult result);
const char *arrayOpNaNName(ArrayOpNaN nan);
const char *arrayOpScalarName(ArrayOpScalar scalar);

} // namespace spirjit
