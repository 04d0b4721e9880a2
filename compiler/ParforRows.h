// Whether the parfor stage (Parfor.h) may map a prange body's inner `range`
// loop onto a launch dimension of its own: one work-item per (row, column)
// instead of one per row. On a GPU neighbouring work-items then read
// neighbouring elements (the inner index varies fastest), and loads
// coalesce; a row per work-item reads addresses a row apart (45x slower
// for a Jacobi sweep on an H100). CPU runtimes run rows well.
//
// The check is conservative; what it accepts, an iteration of the inner
// loop can neither see nor undo another's effects:
//  - The inner loop is the whole body of the prange nest (Parfor.cpp's
//    perfectNest checks that: nothing before it but its range's bounds,
//    which do not depend on the prange indices, nothing after it).
//  - It carries no value from one iteration to the next (its header has no
//    phi) but the prange loop's reductions (`carried`: a reduction over the
//    row alone keeps the rows), and is left only by its header (no break).
//  - Its range starts at a non-negative value (an index that counts from
//    the end could alias another) with a constant positive step.
//  - It writes arrays only by `a[idx] = x`, `a` defined before the prange
//    loop and `idx` a tuple holding each prange index and the inner index
//    unchanged; every write to `a` has the same tuple (component for
//    component: the same value, or equal constants), and every read of `a`
//    too. No call takes an array, no view is made.
// Distinct arrays are taken not to overlap, as prange itself does.
#pragma once

#include "frontend/Dominators.h"

#include <set>
#include <string>
#include <unordered_set>
#include <vector>

namespace spirjit {

/// The builtin range() call a loop of typed pyir iterates over, or nullptr.
ir::Instruction *rangeCallOf(const ir::Loop &loop);

/// Why the iterations of `inner` (a range loop, the whole body of the
/// prange nest `nest`, outermost first) might depend on one another, or ""
/// when they cannot (the contract above). `asserts`: the failed-assert
/// blocks the kernel takes with the body; `nonNegative`: the host's
/// non-negative integers (NonNegative.h); `carried`: the inner loop's
/// header phis that continue the prange loop's reductions.
std::string
rowDependence(const std::vector<const ir::Loop *> &nest, const ir::Loop &inner,
              const std::set<ir::Block *> &asserts,
              const std::unordered_set<const ir::Instruction *> &nonNegative,
              const std::set<const ir::Instruction *> &carried = {});

/// Why the prange loop `outer`'s reductions (its header phis
/// `reductions`) do not simply go on through its inner loop `inner`, or ""
/// with `carried` holding, per reduction, the inner header phi that
/// continues it: the phi starts from the reduction's value, the prange
/// loop's next iteration starts from the phi's (the body does nothing with
/// it after the inner loop), and the inner loop carries nothing else.
std::string
reductionContinuations(const ir::Loop &outer, const ir::Loop &inner,
                       const std::vector<ir::Instruction *> &reductions,
                       std::vector<ir::Instruction *> &carried);

} // namespace spirjit
