// The stage that turns an array expression into a kernel.
//
// Contract: an ArrayExpression is a DAG of values computed at every index
// of an iteration space: loads of array parameters (each already viewed at
// the iteration space's shape, so one index serves all), scalar
// parameters, NumPy ufuncs applied to earlier values, and conversions to a
// dtype, indices along an axis (np.arange broadcast), and functions of the
// user's (a @spirjit.vectorize's scalar function) called on elements;
// ArrayValues.h says how each is written. arrayKernel() writes the kernel
// that computes it as ordinary untyped pyir, with a description whose
// globals are NumPy's and kernel_api's own functions and the functions it
// calls (each a device function of the kernel, with the device functions
// it calls); the normal pipeline types, lowers and caches it like any
// kernel (FunctionDescription::prebuiltPyIR). The
// ufuncs mean in the kernel exactly what `np.<name>(...)` means in a
// user's kernel, so arrays, jit code and kernels share one set of rules.
// The graph and its element code are shared with jit functions: the
// array-expression stage builds each statement's element as a Map of this
// struct (ArrayExpressionParts.h, StatementGraph), and both write values
// with ArrayValueWriter (ArrayValues.h); only the loops around them differ.
//
// Two forms:
//   Map     kernel(item, p0, ..., out): out[i] = value at i, over a Range
//           of the output's rank (1 to 3 extents; more are unravelled from
//           one). A flat Map (views that are not all contiguous, rank 1 to
//           3) takes each array as the 1-D span of its elements and reads
//           and writes it at offset + sum(id[d] * stride[d]) in uint64,
//           each stride a parameter or a constant 0 or 1: views with equal
//           strides share one index, and a contiguous last axis costs no
//           multiply (a 2-D view indexed as an array multiplies each
//           index by each of its own strides).
//   Reduce  kernel(nditem, p0, ..., K, out): over an NdRange (M, G*L) /
//           (1, L) and parameters viewed as (M, K), work-item (m, k) folds the
//           values at (m, k), (m, k + G*L), ... and its work-group folds
//           those with kapi.group_reduce; out (M, G) gets one partial per
//           group. Folding the partials is the same kernel again. A
//           chunked Reduce (CPU runtimes) gives each group one contiguous
//           chunk of the row instead (a uint64 parameter before K), its
//           items L apart: a group is one core's, and interleaved groups
//           made every core pull every cache line.
//           ArgMax/ArgMin kernels take one more output, out_index (M, G),
//           int64: the index of each group's extreme.
#pragma once

#include "frontend/FunctionDescription.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace spirjit {

/// A function of the user's that an expression calls on elements (a
/// @spirjit.vectorize's scalar function): compiled into the kernel as a
/// device function, specialised for the types of the elements it is given.
struct ElementFunction {
  /// Its description; the device functions it calls are in `callees`.
  std::shared_ptr<FunctionDescription> description;
  std::map<std::string, std::shared_ptr<FunctionDescription>> callees;
  /// Its key among the kernel's device functions (python/spirjit/
  /// _describe.py, callee_key: named by its code, as the jit names it).
  std::string name;
  /// What decides its compiled code (the descriptions' fingerprints), and
  /// its hash: functions of equal fingerprints are one function, so a
  /// function defined again (in a loop) finds the kernels it had.
  std::string fingerprint;
  uint64_t hash = 0;

  static std::shared_ptr<const ElementFunction>
  make(FunctionDescription description, std::string name);
};

struct ArrayExpression {
  struct Value {
    enum class Kind { Load, Scalar, Apply, Cast, Index, Function };
    Kind kind = Kind::Load;
    /// Load, Scalar: which parameter (0 = first). Function: which
    /// function, compiled in rather than passed: an entry of `functions`,
    /// or, in a jit statement's graph (where `functions` is empty), the
    /// statement's parameter holding it (ArrayExpressionParts.h).
    int parameter = 0;
    /// Apply: the ufunc's NumPy name, or the graph's own `copy`, `where`,
    /// `real`, `imag` and `call` (its first operand, a Function value,
    /// called on the others).
    std::string function;
    /// Apply, Cast: earlier values; a Load's one operand, where it has
    /// one, is the index it reads its parameter at (a gather, a[idx]).
    std::vector<int> operands;
    std::string dtype;         // Cast: NumPy's name of the target dtype
    /// Index: the int64 value sum(id[d] * strides[d]) over the iteration
    /// space's dimensions (an index along one axis: strides of 0 and 1).
    std::vector<int64_t> strides;
    /// Load of a flat Map: where in its parameter's span.
    struct Flat {
      /// Per dimension: a uint64 parameter's number, or kStride0/kStride1.
      std::vector<int> strides;
      /// A uint64 parameter added (views with negative strides), or -1.
      int offset = -1;
      bool operator==(const Flat &o) const {
        return strides == o.strides && offset == o.offset;
      }
    } flat;
  };
  static constexpr int kStride0 = -1, kStride1 = -2;
  enum class Form { Map, Reduce };
  /// Reductions: kapi.group_reduce's operators, and min/max with NumPy's
  /// NaN rule; argmax/argmin, the index of the first extreme (of the first
  /// NaN, if any, as NumPy).
  enum class Reduction { Sum, Prod, Min, Max, ArgMax, ArgMin };

  std::vector<Value> values;
  /// The functions Function values name.
  std::vector<std::shared_ptr<const ElementFunction>> functions;
  int result = -1;
  /// Parameters before the output, in order.
  int parameterCount = 0;
  Form form = Form::Map;
  /// Map: the rank of the iteration space.
  int rank = 1;
  /// Map: arrays are flat spans (see Map above); out is stored at
  /// outFlat.
  bool flat = false;
  Value::Flat outFlat;
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
  /// Reduce: each group folds a contiguous chunk (see Reduce above).
  bool chunked = false;
  /// ArgMax/ArgMin, chunked on a device that runs a group's items as
  /// vector lanes: the first pass folds values a block at a time and
  /// reads again only the block holding an item's best (ArrayKernel.cpp,
  /// argFoldBlocks).
  bool blockedArgFold = false;
  /// Reduce, chunked and launched with one item a group on the native
  /// device (which vectorises only loops inside an item): the
  /// item's k's are 0, 1, ... with a constant step, and a reduction of
  /// reals folds one chain, which LLVM's loop vectoriser folds as vectors
  /// where the compile allows it to reassociate the chain and a min or max
  /// to ignore NaNs (CompileOptions::reassociateFolds; ArrayKernel.cpp,
  /// chainsFor, worstValue).
  bool singleItemGroups = false;

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

/// The file name of array kernels' descriptions, which their own errors
/// carry (an error in a function they call carries the function's).
extern const char *const kArrayExpressionFile;

/// The kernel computing `expression`, named `name`, as a description with
/// prebuilt pyir; its bytecode stage prints the expression.
std::shared_ptr<FunctionDescription>
arrayKernel(const ArrayExpression &expression, const std::string &name);

/// Does `expression`'s kernel fold its reduction in one chain that its
/// compile may reassociate, and whose min or max folds may ignore NaNs
/// (CompileOptions::reassociateFolds)? A chunked Reduce of reals with one
/// item a group (singleItemGroups), over elements (not partials): the
/// order of its partial sums is spirjit's choice, as NumPy's pairwise
/// summation is NumPy's, and its floating min/max folds meet no NaN (each
/// is replaced by the worst value and counted apart). Complex and bool
/// reductions, and passes over partials, keep their chains.
bool reassociatesFolds(const ArrayExpression &expression);

} // namespace spirjit
