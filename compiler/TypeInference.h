// Type inference over pyir.
//
// Contract: requires verified pyir and the types of the arguments (the
// kernel's item first); fills Instruction::type for every instruction,
// resolves globals, closure values and module attributes to constants or
// callables, and checks that every operation is defined on its operand
// types. Keeps the IR unchanged otherwise. Raises UserError (Typing,
// UnsupportedFeature, KernelReturnValue) naming the user's line.
#pragma once

#include "compiler/Types.h"
#include "frontend/FunctionDescription.h"
#include "frontend/PyIR.h"

#include <map>
#include <memory>
#include <vector>

namespace spirjit {

struct TypedFunction {
  const FunctionDescription *description = nullptr;
  std::unique_ptr<ir::Function> function;
  bool isKernel = true;
  std::vector<const Type *> argumentTypes;
  const Type *returnType = nullptr;
  /// Compile-time values: numeric globals, closure values and constants
  /// such as math.pi or a.ndim, by the instruction that produces them.
  std::map<const ir::Instruction *, ConstValue> constants;
  /// Per argument: may the function write to it (array arguments only)?
  std::vector<bool> writtenArguments;
};

TypedFunction inferTypes(const FunctionDescription &description,
                         std::unique_ptr<ir::Function> function,
                         const std::vector<const Type *> &argumentTypes,
                         bool isKernel);

/// The names of the unary math functions the compiler lowers, as
/// "math.sqrt" or "numpy.sqrt".
bool isKnownMathFunction(const std::string &qualifiedName);

} // namespace spirjit
