// Type inference over pyir, private to compiler/infer/: one class, its
// methods defined by concern (Halide's Simplify_*.cpp):
//   InferCalls.cpp        the entry point and the fixed point, which
//                         concern types a call, device functions, keyword
//                         arguments and compile-time arguments
//   InferInstructions.cpp one pyir instruction at a time: globals,
//                         attributes, indexing, tuples, loops, returns
//   InferArithmetic.cpp   NumPy's operators and their promotion rules
//   InferMath.cpp         builtins and the math, cmath and NumPy functions
//   InferKernelAPI.cpp    the kernel API (KernelAPI.def)
// TypeInference.h states the contract.
#pragma once

#include "compiler/ArrayOps.h"
#include "compiler/KernelAPI.h"
#include "compiler/TypeInference.h"
#include "frontend/Diagnostics.h"

#include <map>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace spirjit::infer {

using ir::Block;
using ir::Instruction;
using ir::Opcode;

/// The type of the real or imaginary part of a number of type `t`.
const Type *complexPart(const Type *t);
/// Two list types a value may have as inference widens: one list of both
/// element types, or nullptr when they are no lists or do not promote.
const Type *joinLists(const Type *a, const Type *b);
/// Whether `inst` reads the items of a list whose item type is not known
/// yet (what is appended to it is typed in a later round).
bool listItemsPending(const ir::Instruction &inst);


/// Infers the types of one function (the kernel or one device-function
/// specialisation), typing the device functions it calls on the way.
class Inference {
public:
  Inference(const FunctionDescription &desc, TypedFunction &result,
            Specializations &specializations)
      : desc_(desc), result_(result), specializations_(specializations) {}

  void run();
  /// A branch condition known at compile time (constants compared, `x is
  /// None` where the types tell), or nothing.
  std::optional<bool> knownCondition(const ir::Instruction *v) const;
  /// The successors a block's known condition leaves.
  std::vector<ir::Block *> liveSuccessors(const ir::Block &block) const;
  /// After inference: known branches become jumps, and blocks no live
  /// path reaches go (with their edges into live blocks' phis).
  void pruneDeadBranches(const std::set<const ir::Block *> &live);
  static void removeEdge(ir::Block &from, ir::Block &to);

private:
  [[noreturn]] void typingError(const Instruction &inst,
                                const std::string &message) {
    throw UserError(UserErrorKind::Typing, desc_.filename, inst.line, message);
  }
  [[noreturn]] void unsupported(const Instruction &inst,
                                const std::string &message) {
    throw UserError(UserErrorKind::UnsupportedFeature, desc_.filename,
                    inst.line, message);
  }
  void requireInteger(const Instruction &inst, const Type *t,
                      const std::string &what) {
    if (t->kind != TypeKind::Int && t->kind != TypeKind::WeakInt &&
        t->kind != TypeKind::Bool)
      typingError(inst, what + " must be an integer, not " + t->str());
  }
  /// `name` takes `lo` to `hi` arguments; `args` are those given.
  void requireArity(const Instruction &inst,
                    const std::vector<const Type *> &args, size_t lo, size_t hi,
                    const std::string &name);
  void requireNumbers(const Instruction &inst,
                      const std::vector<const Type *> &args,
                      const std::string &name);

  // InferInstructions.cpp
  const Type *infer(Instruction &inst);
  const Type *typeOfValue(const Instruction &inst, const GlobalValue &value,
                          const std::string &what);
  const Type *constantType(const ConstValue &value);
  const Type *inferGetAttr(Instruction &inst, const Type *object);
  /// a[idx] or a[mask] with an array index in host code: the gathered
  /// array's type (a store: the index's), or nullptr for another index.
  const Type *inferArrayIndex(Instruction &inst, const Type *array,
                              const Type *index);
  const Type *inferIndex(Instruction &inst, const Type *array,
                         const Instruction &index);

  // InferArithmetic.cpp
  const Type *inferBinary(Instruction &inst, const Type *a, const Type *b);
  const Type *inferUnary(Instruction &inst, const Type *a);
  /// The value of a constant expression of Python int literals, nullopt
  /// for anything else; a TypingError when it leaves int64.
  std::optional<int64_t> literalValue(const Instruction *inst);
  const Type *inferCompare(Instruction &inst, const Type *a, const Type *b);
  /// NumPy 2's rule for a Python int literal meeting a typed integer: its
  /// value must fit the typed one's dtype, which the result takes (else
  /// NumPy raises OverflowError; here a TypingError at the line, never a
  /// wrapped answer).
  void requireLiteralsFit(Instruction &inst,
                          const std::vector<Instruction *> &operands,
                          const Type *common);

  // InferMath.cpp
  const Type *inferPrint(Instruction &inst);
  const Type *inferBuiltinCall(Instruction &inst,
                               const std::vector<const Type *> &given);
  std::vector<const Type *> ufuncOperands(Instruction &inst,
                                          const ArrayOp &ufunc,
                                          const std::vector<const Type *> &args);
  const Type *inferComplexMath(Instruction &inst, const std::string &name,
                               const std::vector<const Type *> &args);
  const Type *inferUfuncCall(Instruction &inst, const ArrayOp &ufunc,
                             const std::vector<const Type *> &args);

  // InferKernelAPI.cpp
  const Type *inferKernelApiCall(Instruction &inst, const Type *callee);
  const Type *inferWorkItemMethod(Instruction &inst, const Type *callee,
                                  const std::vector<const Type *> &args);
  void checkGroupOp(Instruction &inst, const std::string &function,
                    const Instruction *opInst, const Type *value);
  const Type *
  inferGroupAlgorithm(Instruction &inst, const KernelApiFunction &api,
                      const std::string &name,
                      const std::vector<const Instruction *> &args);
  const Type *inferAtomicRef(Instruction &inst, const KernelApiFunction &api,
                             const std::vector<const Instruction *> &args);
  const Type *inferAtomicMethod(Instruction &inst, const Type *callee);
  /// kapi.Enum.member, a compile-time constant; nullptr if `object` is no
  /// kapi enum.
  const Type *inferKernelApiConstant(Instruction &inst, const Type *object);

  // InferHost.cpp
  const Type *inferArrayConstructor(Instruction &inst, const std::string &name);
  const Type *inferPrivateConstructor(Instruction &inst,
                                      const std::string &name);
  const Type *inferArange(Instruction &inst);
  /// np.array/np.asarray of nested lists or tuples of numbers.
  const Type *inferArrayLiteral(Instruction &inst, const std::string &name);
  /// np.random's draws of a number (RandomDraws.h), host code only.
  const Type *inferRandomCall(Instruction &inst, const std::string &name);

  // InferArrays.cpp: whole arrays in host code; nullptr where the
  // instruction is not an array operation (the scalar rules apply).
  const Type *inferSlice(Instruction &inst);
  const Type *inferView(Instruction &inst, const Type *array,
                        const Type *index);
  const Type *inferArrayOperation(Instruction &inst);
  const Type *inferArrayCall(Instruction &inst);
  const Type *arrayMethodType(const Type *array, const std::string &name);

  // InferLists.cpp: lists that change in host code; nullptr where the
  // instruction is no list operation.
  const Type *inferList(Instruction &inst);
  /// The element type of list class `cls`, widened to take `value` (a
  /// number's type) when given.
  const Type *listElement(Instruction &inst, const std::string &cls,
                          const Type *value);
  /// `x in c`, `x not in c` of a list or a tuple of numbers; nullptr for
  /// other comparisons.
  const Type *inferMembership(Instruction &inst);
  /// sum, min, max and sorted of a list; nullptr for other names.
  const Type *inferListBuiltin(Instruction &inst, const std::string &name,
                               const Type *list);
  /// A list argument (reflected) takes items of its element's kind only.
  void requireReflectedItem(Instruction &inst, const Type *list,
                            const Type *value);
  /// After the fixed point: a list never given an item is an error.
  void requireListItems();
  // InferCalls.cpp
  const Type *inferCall(Instruction &inst);
  const Type *inferDeviceCall(Instruction &inst, const std::string &key,
                              std::vector<const Type *> args);
  /// The arguments of a call with keywords, in parameter order; nullptr
  /// where the parameter keeps its default.
  std::vector<const Instruction *>
  positionalArguments(Instruction &inst, const std::vector<std::string> &params,
                      const std::string &function);
  const ConstValue *constantOf(const Instruction *inst) const;
  int64_t constantInt(const Instruction &at, const Instruction *value,
                      const std::string &what, int64_t fallback);
  void markWrittenArguments();

  const FunctionDescription &desc_;
  TypedFunction &result_;
  Specializations &specializations_;
  const Type *returnType_ = nullptr;
  std::map<const Instruction *, std::optional<int64_t>> literalValues_;
  /// The blocks found live so far (run()): a phi takes no value over an
  /// edge from elsewhere, so a branch known at compile time prunes the
  /// other branch's values too (`if a.ndim == 1: return a[None]` then
  /// `return a`).
  std::set<const ir::Block *> live_;
  /// Each list class's element type (InferLists.cpp); None while unknown.
  std::map<std::string, const Type *> listElements_;
};

} // namespace spirjit::infer
