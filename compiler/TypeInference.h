// Type inference over pyir.
//
// Contract: requires verified pyir and the types of the arguments (the
// kernel's item first); fills Instruction::type for every instruction,
// resolves globals, closure values and module attributes to constants or
// callables, and checks that every operation is defined on its operand
// types. Keeps the IR unchanged otherwise. Raises UserError (Typing,
// UnsupportedFeature, KernelReturnValue) naming the user's line. Device
// functions the code calls are typed per call signature, from pyir built
// once per compilation. compiler/infer/ holds it.
#pragma once

#include "compiler/FunctionKind.h"
#include "compiler/Types.h"
#include "frontend/FunctionDescription.h"
#include "frontend/InstructionTable.h"
#include "frontend/PyIR.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace spirjit {

struct TypedFunction;

/// Device-function specialisations made while typing one kernel: each
/// (device function, argument types) pair is typed once.
struct Specializations {
  const std::map<std::string, std::shared_ptr<FunctionDescription>>
      *deviceFunctions = nullptr;
  std::map<std::string, std::unique_ptr<TypedFunction>> byKey;
  std::set<std::string> inProgress; // to reject recursion
  /// Each device function's pyir, untyped: the frontend builds it once per
  /// compilation, and each specialisation types its own copy.
  std::map<const FunctionDescription *, std::unique_ptr<ir::Function>>
      untypedBodies;
  /// May the target device use 64-bit atomics?
  bool hasAtomic64 = true;
};

struct TypedFunction {
  const FunctionDescription *description = nullptr;
  std::unique_ptr<ir::Function> function;
  FunctionKind kind = FunctionKind::Kernel;
  std::vector<const Type *> argumentTypes;
  /// What the function returns for codegen (weak types made concrete), and
  /// as callers see it (a returned Python literal stays weak, NEP 50).
  const Type *returnType = nullptr;
  const Type *returnTypeAsWritten = nullptr;
  /// The device-function specialisation each call instruction calls.
  /// These tables are InstructionTables: passes erase instructions and
  /// create others where they were.
  ir::InstructionTable<const TypedFunction *> calls;
  /// Calls with keyword arguments or defaults: the arguments in parameter
  /// order, nullptr where the parameter keeps its default.
  ir::InstructionTable<std::vector<const ir::Instruction *>> callArguments;
  /// group_reduce or group_broadcast is used: the kernel needs the hidden
  /// GroupScratch parameter (KernelABI.h).
  bool usesGroupScratch = false;

  /// Compile-time values: numeric globals, closure values and constants
  /// such as math.pi or a.ndim, by the instruction that produces them.
  ir::InstructionTable<ConstValue> constants;
  /// Per argument: may the function write to it (array arguments only)?
  std::vector<bool> writtenArguments;
};

/// The compile-time value of `inst` in `typed`: a constant instruction, or
/// a value inference folded (TypedFunction::constants); nullptr otherwise.
const ConstValue *constantOf(const TypedFunction &typed,
                             const ir::Instruction *inst);

/// np.empty/zeros/ones/full and their _like forms, from numpy or spirjit:
/// host code only.
bool isArrayConstructor(const std::string &qualifiedName);

/// The extents of np.array's object, a nested tuple of numbers of constant
/// shape (InferHost.cpp checked it).
std::vector<int64_t> literalArrayShape(const Type *object);

/// a.sum() and friends, as "numpy.sum", "numpy.prod", "numpy.min",
/// "numpy.max", "numpy.amin", "numpy.amax", "numpy.mean", "numpy.dot" (a
/// method `a.sum` is named as the function): host code only.
bool isArrayReduction(const std::string &qualifiedName);

/// Does an index of this type make a view (a slice, None/np.newaxis or
/// `...`, or a tuple holding one)? Host code only (InferArrays.cpp).
bool isViewIndex(const Type *index);

/// Does this index name a row, as a store's target (`a[i] = x` on a 2-D
/// array, `a[i, j] = x` on a 3-D one): integers for fewer dimensions than
/// the array has? Host code stores into it as into a slice.
bool isRowIndex(const Type *array, const Type *index);

/// The NumPy ufuncs that are operators (np.add is +, np.less is <,
/// np.negative is unary -): the pyir instruction and operator they mean on
/// array elements; nullopt for other names.
struct UfuncOperator {
  ir::Opcode opcode;
  int64_t op; // a BinaryOperator, CompareOperator or UnaryOperator
};
std::optional<UfuncOperator> ufuncOperator(const std::string &qualifiedName);

/// What happened to one device function in this process, by its key in
/// the deviceFunctions tables: the kernel specialisations that contain it,
/// compiled or loaded from the disk cache (launch/CompileCache.cpp). It
/// has no cache of its own, so no memory hits.
struct DeviceFunctionCounters {
  int compiles = 0, memoryHits = 0, diskHits = 0;
};
void countDeviceFunction(const std::string &key,
                         int DeviceFunctionCounters::*counter);
DeviceFunctionCounters deviceFunctionCounters(const std::string &key);

TypedFunction inferTypes(const FunctionDescription &description,
                         std::unique_ptr<ir::Function> function,
                         const std::vector<const Type *> &argumentTypes,
                         FunctionKind kind, Specializations &specializations);

} // namespace spirjit
