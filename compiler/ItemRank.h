// How many launch dimensions a kernel's item queries need, read from the
// typed code, so a launch rank is chosen without compiling at each rank.
#pragma once

#include "compiler/TypeInference.h"

namespace spirjit {

/// Requires a typed kernel (typed at any rank its queries fit) and the
/// device functions it calls; changes nothing. Returns one more than the
/// largest constant dimension passed to a per-dimension query of an Item,
/// NdItem or Group (get_id, get_global_range, ...), and 1 when none is.
int requiredItemRank(const TypedFunction &kernel,
                     const Specializations &specializations);

} // namespace spirjit
