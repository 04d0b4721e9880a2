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
// again, is a UserError (Compile) at the collective's line. Reads the
// function only. Early returns are not judged (the two sides never meet).
#pragma once

#include "compiler/TypeInference.h"

namespace spirjit {

void checkBarriers(const TypedFunction &kernel);

} // namespace spirjit
