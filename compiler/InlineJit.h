// Inlining jit functions that a jit function calls.
//
// Why: a jit function's helper is often another jit function with its own
// prange loops or array expressions. Inlined into the caller's host code,
// its loops become the caller's parfors (kernels on the caller's device)
// and its scalar code compiles with the caller's; nothing is called
// through Python.
//
// Contract: requires the verified untyped pyir of a jit function and a copy
// of its description that may change. Replaces every call of a jit
// function (a global or closure value whose description in
// `description.deviceFunctions` has `jitFunction`) by the callee's body:
// its parameters become the call's arguments, its globals and closure
// values enter `description.globals` under fresh names, and its returns
// branch to the code after the call, where a phi merges their values.
// Calls of NumPy functions and array methods that the jit library writes
// in the jit language (FunctionDescription::library; `a.std()`, `np.std(a)`)
// are inlined the same way, the array of a method as the first argument.
// Calls of a lambda or nested def (a `function` instruction, whose
// description is in `description.nestedCode`) are inlined the same way,
// numba's closure inlining: the callee's free variables become the values
// the `function` instruction captured (the frontend has checked that they
// are still the variables' values at the call), and parameters a call
// leaves out take the defaults it holds. A `function` left unused
// goes; one used otherwise than called (returned, in a tuple, passed to
// a function that is not inlined, merged with another in a phi) is an
// UnsupportedFeatureError at that use's line.
// Keyword arguments go to the parameters they name. Calls in inlined
// bodies are inlined too; more than 100 (recursion), a missing or unknown
// argument, and a library name given a number of arguments it does not
// take are UserErrors at the call's line. The result verifies.
#pragma once

#include "frontend/FunctionDescription.h"
#include "frontend/PyIR.h"

namespace spirjit {

void inlineJitCalls(ir::Function &function, FunctionDescription &description);

/// Does `description` call a jit function or make a nested function (so
/// inlineJitCalls has work)?
bool callsJitFunctions(const FunctionDescription &description);

} // namespace spirjit
