// Copying a typed function: its pyir and the side tables that type
// inference keys by instruction.
//
// Contract: requires a TypedFunction as inferTypes returns it; returns one
// whose pyir is cloneFunction's copy (same ids, same types, so the `typed`
// dump prints the same) and whose constants, calls and callArguments are
// keyed by, and point to, the copied instructions. The callees in `calls`
// and the types are shared, not copied: both outlive any one kernel's
// compilation. `map` receives the original -> copy map, for a caller that
// keeps instructions of its own. The original is unchanged.
#pragma once

#include "compiler/TypeInference.h"
#include "frontend/CloneFunction.h"

namespace spirjit {

TypedFunction cloneTypedFunction(const TypedFunction &typed, ir::ValueMap &map);

} // namespace spirjit
