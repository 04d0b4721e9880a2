// The fast path of a checked kernel: one test at its entry, for the whole
// launch, then a copy of the body without the index checks it proved.
//
// Checked code costs what the device's vectoriser cannot do with it: each
// access is guarded and each failure kept, so a kernel whose indices are
// plainly in bounds (vecadd, a tiled matmul) ran 2.5 to 7 times slower than
// unchecked. Most indices are affine in the work-item ids and the loop
// counters; over a launch they range between bounds that the arguments,
// the launch's sizes and the loops' trip counts give at entry. When those
// bounds are inside the extents, no check on them can fail, and the body
// runs without them; otherwise the checked body runs, as before.
//
// Contract: runs on the optimised module of a kernel (after optimizeModule,
// before dropUnusedParameters). Requires the lowering's in-bounds markers
// (DebugRecord.h) around the index checks; removes every one of them from
// the module, each becoming its comparison. In `entryPoint`, when at least
// one check is proved: a new entry block computes the test from the
// arguments and the launch's sizes only, so every work-item of a launch
// takes the same copy and barriers stay uniform; the test passing, a copy
// of the body runs in which the proved checks are true; failing, the body
// as it was. Each leaf of the test is bounded at run time (|x| < 2^40) so
// that the test's own arithmetic cannot overflow. Other checks (integer
// division, assert, indices it cannot bound) stay in both copies.
// Returns whether it removed markers: the module then wants optimising
// again, which folds the copy's checks away, and in either copy the
// comparisons the markers hid from the first optimisation (an index under
// `if i < n:`).
#pragma once

#include <llvm/IR/Module.h>

#include <string>

namespace spirjit {

bool addBoundsCheckFastPath(llvm::Module &module,
                            const std::string &entryPoint);

} // namespace spirjit
