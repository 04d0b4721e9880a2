// The arguments of a call of a Python function spirjit compiles (a jit
// function, a device function, a lambda or nested def): keyword arguments
// at their parameters' places and Python defaults where none is given.
//
// Contract: works on untyped pyir. `orderArguments` rewrites one call's
// operands into positional order (call->name, the keywords, is cleared);
// `frozenDefaults` makes a callee's Python defaults constants just before
// the call (numbers, booleans and None, frozen as globals are; another
// kind is an UnsupportedFeatureError at the call).
// `orderDeviceFunctionCalls` does both for every call of a device function
// in `fn` and checks the count: a missing or unknown argument is a
// TypingError at the call's line.
#pragma once

#include "frontend/FunctionDescription.h"
#include "frontend/PyIR.h"

#include <vector>

namespace spirjit {

void orderArguments(ir::Instruction *call, const FunctionDescription &callee,
                    const FunctionDescription &d,
                    const std::vector<ir::Instruction *> &defaults);

std::vector<ir::Instruction *>
frozenDefaults(ir::Function &fn, ir::Instruction *call,
               const FunctionDescription &callee,
               const FunctionDescription &d);

void orderDeviceFunctionCalls(ir::Function &fn, const FunctionDescription &d);

/// What the global or closure value `v` (a `global` or `freevar`
/// instruction) referred to when `d` was described, or nullptr.
const GlobalValue *valueOf(const ir::Instruction *v,
                           const FunctionDescription &d);

} // namespace spirjit
