// The array-expression stage's parts (ArrayExpressions.h states the
// contract): what role each typed instruction plays, how a statement
// accesses an array, and the helpers that write the new pyir (with the
// host rules they follow: Python's slices, NumPy's broadcasting).
#pragma once

#include "compiler/ArrayKernel.h"
#include "compiler/TypeInference.h"
#include "frontend/CloneFunction.h"
#include "frontend/Diagnostics.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace spirjit::arrays {

using ir::Block;
using ir::Instruction;
using ir::Opcode;

bool isArray(const Type *t);

/// A call's function as NumPy names it ("numpy.sum" for a.sum()), or "".
std::string calleeName(const Instruction *call);

enum class Role {
  Copied,      // not an array operation: copied as it is
  Index,       // a slice, or a tuple of them: only indexing reads it
  Callee,      // a.sum: only its call reads it
  View,        // a[1:-1]
  Elementwise, // an array-valued expression
  InPlace,     // a += b on an array a
  Assign,      // a[...] = x
  Scatter,     // a[idx] = x, a[mask] = x (an array of indices, a mask)
  Reduction,   // a.sum(), np.dot(a, b), ...
  OnZeroD,     // an element-wise operation on 0-D arrays: a number
  Item,        // a.item()
};

Role roleOf(const Instruction *inst);

/// a[idx] (an array of indices) or a[mask]: advanced indexing.
bool isArrayIndexed(const Instruction *inst);

/// The array a transpose (a Role::View that is not a slice: a.T,
/// a.transpose(), np.transpose(a)) reverses.
Instruction *transposedArray(const Instruction *inst);

/// Host code that may move before a loop emitted later: it reads no array
/// element and has no effect.
bool isPure(const Instruction *inst);

/// A value in a key: a constant's text, else its id.
std::string keyOf(const Instruction *v);

/// A statement's per-element value as the array-expression graph that
/// DeviceArrays build too (ArrayKernel.h), over the loops' rank: NumPy's
/// operators and ufuncs are Apply by their ArrayOps.def names, astype a
/// Cast, np.where/copy and z.real/imag the graph's own functions, a gather
/// a[idx] a Load at the index's element, and any other function on the
/// elements (a device function) an Apply `call` of it. Each parameter is
/// the typed instruction it stands for.
struct StatementGraph {
  ArrayExpression expression;
  struct Parameter {
    enum class Kind {
      Array,    // a Load's array, read at the loop indices
      Gathered, // a Load's array, read at the Load's operand (a[idx])
      Host,     // a Scalar: a number of the host (a kernel argument)
      Callee,   // a Function: what a `call` calls (compile time)
    };
    Kind kind;
    Instruction *value;
  };
  std::vector<Parameter> parameters;
  /// The graph's text with a line per parameter, for the parfor dump.
  std::string text() const;
};
/// The graph of `root`'s element (root is computed even if a number: an
/// operation on 0-D arrays). `computed(v)`: whether array value v is
/// computed in the statement's loop rather than read from memory.
StatementGraph
statementGraph(Instruction *root, int rank,
               const std::function<bool(const Instruction *)> &computed);

/// How one statement reads or writes one array: per dimension of the base
/// array, either a fixed index or a dimension of the view (start, step,
/// length in the host).
struct Access {
  Instruction *base = nullptr; // the real array (an old or new value)
  std::string baseKey;         // which array, for dependences
  struct Dim {
    int baseDim = 0;
    Instruction *start = nullptr; // nullptr: 0
    int64_t step = 1;
    /// A step known only at run time (a[::s]), in the host; then `step`
    /// is unused.
    Instruction *stepValue = nullptr;
    Instruction *length = nullptr;
    std::string startKey, extentKey;
    std::string stepKey() const {
      return stepValue ? "s" + keyOf(stepValue) : std::to_string(step);
    }
  };
  std::vector<Instruction *> fixed; // per base dimension, or nullptr
  std::vector<std::string> fixedKeys;
  std::vector<Dim> dims;

  /// Equal keys: the same element at every iteration.
  std::string key(size_t loopDims) const {
    std::string k = baseKey + "@" + std::to_string(loopDims - dims.size());
    for (size_t b = 0; b < fixed.size(); ++b)
      if (fixed[b])
        k += "[" + fixedKeys[b] + "]";
    // In the view's order, each with its base dimension (a transpose
    // reads other elements at the same iteration).
    for (const Dim &dim : dims)
      k += "[" + std::to_string(dim.baseDim) + ":" + dim.startKey + ":" +
           dim.stepKey() + "]";
    return k;
  }
};

/// The arrays an expression reads, each with its access.
using Leaves = std::vector<std::pair<Instruction *, Access>>;

/// The extents a statement's loops run over, with their keys (equal keys:
/// equal extents, known at compile time).
struct Space {
  std::vector<Instruction *> extents;
  std::vector<std::string> keys;
  /// (an operand's extent, the space's) in each dimension where they may
  /// differ at run time: there the operand's extent is 1 and NumPy
  /// stretches it, or the two are equal.
  std::vector<std::pair<Instruction *, Instruction *>> stretched;
};

/// Writes new pyir into `fn_` at the cursor `cur_`; globals the new code
/// calls go into `description_` under names no user global has.
class PyIRBuilder {
protected:
  explicit PyIRBuilder(std::string filename) : filename_(std::move(filename)) {}

  [[noreturn]] void error(int line, const std::string &message) {
    throw UserError(UserErrorKind::UnsupportedFeature, filename_, line,
                    message);
  }


  Instruction *make(Block *block, Opcode op, std::vector<Instruction *> operands,
                    int line) {
    return fn_->create(block, op, std::move(operands), line);
  }
  Instruction *make(Opcode op, std::vector<Instruction *> operands, int line) {
    return make(cur_, op, std::move(operands), line);
  }
  Instruction *constant(Block *block, ConstValue c, int line) {
    Instruction *inst = make(block, Opcode::Const, {}, line);
    inst->constant = std::move(c);
    return inst;
  }
  Instruction *integer(int64_t v, int line, Block *block = nullptr) {
    return constant(block ? block : cur_, ConstValue::ofInt(v), line);
  }
  /// A global the loops call, added to the description under a name no
  /// user global has.
  Instruction *global(Block *block, const std::string &name,
                      GlobalValue::Kind kind, const std::string &value,
                      int line) {
    Instruction *inst = make(block, Opcode::Global, {}, line);
    inst->name = addGeneratedGlobal(*description_, name, kind, value);
    return inst;
  }
  Instruction *binary(Block *block, ir::BinaryOperator op, Instruction *a,
                      Instruction *b, int line) {
    Instruction *inst = make(block, Opcode::BinaryOp, {a, b}, line);
    inst->index = static_cast<int64_t>(op);
    return inst;
  }
  Instruction *compare(Block *block, ir::CompareOperator op, Instruction *a,
                       Instruction *b, int line) {
    Instruction *inst = make(block, Opcode::Compare, {a, b}, line);
    inst->index = static_cast<int64_t>(op);
    return inst;
  }
  Instruction *builtin(Block *block, const std::string &name,
                       std::vector<Instruction *> args, int line) {
    args.insert(args.begin(),
                global(block, name, GlobalValue::Kind::Builtin, name, line));
    return make(block, Opcode::Call, args, line);
  }
  Instruction *extent(Instruction *array, int d, int line) {
    Instruction *shape = make(Opcode::GetAttr, {array}, line);
    shape->name = "shape";
    Instruction *e = make(Opcode::TupleGet, {shape}, line);
    e->index = d;
    return e;
  }
  /// Copies a compile-time chain (np.sqrt, np.float32) into `block`, so a
  /// loop body calls it instead of taking it as a kernel argument.
  Instruction *cloneChain(Instruction *v, Block *block) {
    if (v->isa(Opcode::GetAttr)) {
      Instruction *object = cloneChain(v->operands[0], block);
      Instruction *copy = make(block, Opcode::GetAttr, {object}, v->line);
      copy->name = v->name;
      return copy;
    }
    if (v->isa(Opcode::Global) || v->isa(Opcode::FreeVar) ||
        v->isa(Opcode::Const)) {
      Instruction *copy = ir::cloneInstruction(*v, *fn_, block);
      copy->type = nullptr;
      return copy;
    }
    return v;
  }

  /// `if not ok: raise ValueError(message)` in the host, at the cursor.
  void check(Instruction *ok, const std::string &message, Instruction *got,
             Instruction *expected, int line) {
    Block *fail = fn_->addBlock();
    Block *next = fn_->addBlock();
    Instruction *br = make(Opcode::CondBranch, {ok}, line);
    br->targets = {next, fail};
    fail->predecessors = {cur_};
    next->predecessors = {cur_};
    Instruction *raise = make(fail, Opcode::Fail, {got, expected}, line);
    raise->name = filename_ + ":" + std::to_string(line) + ": " + message;
    Instruction *ret = make(
        fail, Opcode::Return, {constant(fail, ConstValue::none(), line)}, line);
    ret->name = "fail";
    cur_ = next;
  }

  // --- Python's slice rules, in the host (ArrayExpressionParts.cpp) -------

  /// `bound` normalised against `n` as Python does for a slice bound of a
  /// positive step: negative counts from the end, then clamped to [0, n].
  Instruction *sliceBound(Instruction *bound, Instruction *n, int line);
  /// `bound` normalised as Python does for a slice bound of a negative
  /// step: negative counts from the end, then clamped to [-1, n - 1].
  Instruction *sliceBoundBack(Instruction *bound, Instruction *n, int line);
  /// An index normalised against `n`: negative counts from the end.
  Instruction *fixedIndex(Instruction *index, Instruction *n, int line);

  // --- NumPy's broadcasting (ArrayExpressionParts.cpp) -------------------

  /// The shape NumPy broadcasts the leaves to, aligned on their last
  /// dimensions: per dimension the extent that is not 1, with a run-time
  /// check that the others are it or 1 (else ValueError, at the cursor).
  Space broadcastSpace(const Leaves &ls, int line);
  /// Checks at run time that `from` broadcasts into `into` without
  /// changing it (an assignment's target keeps its shape): each extent of
  /// `from` is `into`'s or 1.
  void checkBroadcastInto(const Space &into, const Space &from,
                          const std::string &what, int line);
  /// Records in `space` the leaves' dimensions that may be stretched (their
  /// extents' keys differ from the space's), and marks them in the leaves'
  /// keys, so that a stretched read never passes for the element a loop
  /// writes.
  void stretchInto(Space &space, Leaves &ls);

  std::string filename_;
  std::unique_ptr<ir::Function> fn_;
  std::shared_ptr<FunctionDescription> description_;
  Block *cur_ = nullptr;
};

} // namespace spirjit::arrays
