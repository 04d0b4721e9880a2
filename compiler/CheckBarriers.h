// Divergent barriers the compiler can see.
//
// Why: a work-group barrier (or collective: group_reduce,
// group_broadcast) that only some work-items of a group reach deadlocks on
// GPUs and gives undefined results on CPUs. When the branch around it
// depends on the work-item's id, that is visible in the code.
//
// Contract: requires a typed kernel. A value varies across the work-items
// of a group when it depends, through its operands, on a work-item id query
// (get_id, get_global_id, get_local_id and their linear forms). A
// collective in a block that only one side of a varying `if` (or the body
// of a loop whose condition varies) reaches, before the two sides meet
// again, is a UserError (Compile) at the collective's line; so is one
// after a varying early return (`if get_local_id(0) == 0: return`), which
// only the side that does not return reaches: the sides never meet, and
// the message names the return. Reads the function only.
#pragma once

#include "compiler/TypeInference.h"

namespace spirjit {

void checkBarriers(const TypedFunction &kernel);

/// Does `function` itself call a barrier or a group collective? Such a
/// kernel's arrays must not be noalias parameters: other work-items'
/// accesses, which a barrier orders, are outside the function, so LLVM
/// would take a barrier for no access to them and move loads across it.
bool hasCollectives(const TypedFunction &function);

} // namespace spirjit
