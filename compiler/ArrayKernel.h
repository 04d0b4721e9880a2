// The stage that turns an array expression into a kernel.
//
// Contract: an ArrayExpression is a DAG of values computed at every index
// of an iteration space: loads of array parameters (each already viewed at
// the iteration space's shape, so one index serves all), scalar
// parameters, NumPy ufuncs applied to earlier values, and conversions to a
// dtype, and indices along an axis (np.arange broadcast). arrayKernel()
// writes the kernel that computes it as ordinary
// untyped pyir, with a description whose globals are NumPy's and
// kernel_api's own functions; the normal pipeline types, lowers and
// caches it like any kernel (FunctionDescription::prebuiltPyIR). The
// ufuncs mean in the kernel exactly what `np.<name>(...)` means in a
// user's kernel, so arrays, jit code and kernels share one set of rules.
//
// Two forms:
//   Map     kernel(item, p0, ..., out): out[i] = value at i, over a Range
//           of the output's rank (1 to 3 extents; more are unravelled from
//           one).
//   Reduce  kernel(nditem, p0, ..., K, out): over an NdRange (M, G*L) /
//           (1, L) and parameters viewed as (M, K), work-item (m, k) folds the
//           values at (m, k), (m, k + G*L), ... and its work-group folds
//           those with kapi.group_reduce; out (M, G) gets one partial per
//           group. Folding the partials is the same kernel again.
//           ArgMax/ArgMin kernels take one more output, out_index (M, G),
//           int64: the index of each group's extreme.
#pragma once

#include "frontend/FunctionDescription.h"

#include <memory>
#include <string>
#include <vector>

namespace spirjit {

struct ArrayExpression {
  struct Value {
    enum class Kind { Load, Scalar, Apply, Cast, Index };
    Kind kind = Kind::Load;
    int parameter = 0;         // Load, Scalar: which parameter (0 = first)
    std::string function;      // Apply: the ufunc's NumPy name
    std::vector<int> operands; // Apply, Cast: earlier values
    std::string dtype;         // Cast: NumPy's name of the target dtype
    /// Index: the int64 value sum(id[d] * strides[d]) over the iteration
    /// space's dimensions (an index along one axis: strides of 0 and 1).
    std::vector<int64_t> strides;
  };
  enum class Form { Map, Reduce };
  /// Reductions: kapi.group_reduce's operators, and min/max with NumPy's
  /// NaN rule; argmax/argmin, the index of the first extreme (of the first
  /// NaN, if any, as NumPy).
  enum class Reduction { Sum, Prod, Min, Max, ArgMax, ArgMin };

  std::vector<Value> values;
  int result = -1;
  /// Parameters before the output, in order.
  int parameterCount = 0;
  Form form = Form::Map;
  /// Map: the rank of the iteration space.
  int rank = 1;
  Reduction reduction = Reduction::Sum;
  /// Reduce: the accumulator's dtype (the partials'); the values are
  /// converted to it. Floats fold min/max NaN-first.
  std::string accumulator;
  bool floatingAccumulator = false;
  /// Reduce: the dtype stored in `out` (empty: the accumulator's).
  std::string output;
  /// ArgMax/ArgMin: the parameter holding each element's index (a pass
  /// over partials), or -1: the index is k.
  int indexParameter = -1;

  /// NumPy's name of a reduction ("sum", ..., "argmin"), and the
  /// reduction of a name (false for none).
  static const char *reductionName(Reduction reduction);
  static bool reductionNamed(const std::string &name, Reduction &reduction);

  bool argReduction() const {
    return form == Form::Reduce &&
           (reduction == Reduction::ArgMax || reduction == Reduction::ArgMin);
  }

  /// One line per value: the `graph` the dumps show, and the kernel's key.
  std::string text() const;
  /// Equal expressions are one kernel; hash() agrees with ==. (Finding a
  /// kernel by these rather than by text() spares building the text at
  /// every evaluation.)
  bool operator==(const ArrayExpression &other) const;
  uint64_t hash() const;
};

/// The kernel computing `expression`, named `name`, as a description with
/// prebuilt pyir; its bytecode stage prints the expression.
std::shared_ptr<FunctionDescription>
arrayKernel(const ArrayExpression &expression, const std::string &name);

} // namespace spirjit
