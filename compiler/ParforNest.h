// Which loops of a prange nest become the dimensions of its launch: the
// parfor stage's (Parfor.h) choice of a kernel's shape.
//
// Contract: perfectNest(outer, ...) returns the loops of the perfect nest
// starting at the prange loop `outer`, outermost first, at most 3: each
// inner loop (a prange, or one `range` loop last) is the whole body of
// the loop around it, its bounds computed only from values that do not
// depend on the outer loops. What the outer bodies compute for the inner
// ranges (loop-invariant, pure) moves to `preheader`. The nest ends in a
// `range` loop only when its iterations are independent (ParforRows.h)
// and `mapRows` (a device that wants coalescing); `parfor.rows` says what
// became of such a loop and why (the dump's note), and
// `parfor.rowsMappable` that a GPU would have mapped it.
//
// A reducing loop (`reductions`, the prange loop's header phis) may end in
// such a range loop too, when each reduction goes on through the inner
// loop and nothing else is carried: `carried` then gets, per reduction,
// the inner loop's header phi that continues it.
#pragma once

#include "compiler/Parfor.h"

#include <set>
#include <unordered_set>
#include <vector>

namespace spirjit {

std::vector<const ir::Loop *>
perfectNest(const ir::Loop &outer, ir::Block *preheader,
            const std::set<ir::Block *> &asserts, bool mapRows,
            const std::unordered_set<const ir::Instruction *> &nonNegative,
            Parfor &parfor, const std::vector<ir::Instruction *> &reductions,
            std::vector<ir::Instruction *> &carried);

} // namespace spirjit
