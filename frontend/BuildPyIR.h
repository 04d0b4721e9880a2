// Turns bytecode into pyir: the interpreter's value stack and the Python
// locals both become SSA values.
//
// Contract: requires a control-flow graph of decoded bytecode; produces a
// verified ir::Function whose every instruction carries its source line.
// Constructs spirjit does not compile (try, with, yield, dicts, sets,
// strings, functions that escape, ...) raise UserError(UnsupportedFeature) naming
// the construct and its line; the strings it keeps are group_reduce's
// operation, and getattr's constant name, which it folds into a getattr
// instruction (`getattr(obj, "name")` is `obj.name`; a name that is not a
// literal, global or closure string is UnsupportedFeature at the call).
// Stack slots and locals are SSA variables of the algorithm of Braun et al.
// ("Simple and Efficient Construction of SSA Form", CC 2013), so no
// dominance frontiers are needed.
#pragma once

#include "frontend/ControlFlowGraph.h"
#include "frontend/FunctionDescription.h"
#include "frontend/PyIR.h"

#include <memory>

namespace spirjit {

std::unique_ptr<ir::Function> buildPyIR(const FunctionDescription &function,
                                        const ControlFlowGraph &cfg);

} // namespace spirjit
