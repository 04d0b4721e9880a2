// Rejects reads of locals that some path reaches unassigned, where Python
// would raise UnboundLocalError and the compiled code would read garbage.
//
// Contract: requires the control-flow graph of a function's bytecode;
// changes nothing. Raises UserError(Compile) at the first such read, naming
// the variable. A `for` over `range` of constant, non-empty bounds runs its
// body at least once, so a local assigned in that body counts as assigned
// after the loop; any other loop may run zero times.
#pragma once

#include "frontend/ControlFlowGraph.h"
#include "frontend/FunctionDescription.h"

namespace spirjit {

void checkDefiniteAssignment(const FunctionDescription &function,
                             const ControlFlowGraph &cfg);

} // namespace spirjit
