// Which header phis of a prange loop the parfor stage (Parfor.h) turns
// into reductions: updates by one operator whose other operands do not
// depend on the accumulator, or last values (ReductionOp::Last).
#pragma once

#include "compiler/Parfor.h"

#include "frontend/Dominators.h"

#include <set>

namespace spirjit {

/// Is `phi` (a header phi of `loop` in `fn`) a reduction? Fills `op`, and
/// `values` with the phi, its updates and the body's phis that merge them.
/// A number is one (ParforReductions.cpp says by which updates), and so is
/// an array updated in place by +=, -=, *= or /= (ArrayReductions.h).
bool isReduction(const ir::Function &fn, const ir::Loop &loop,
                 const ir::Instruction *phi, ReductionOp &op,
                 std::set<const ir::Instruction *> *values = nullptr);

/// Is `phi` (a header phi of `loop`) a variable every iteration assigns
/// and none reads, so that after the loop it holds the last iteration's
/// value (numba's lastprivate)? A conditional assignment merges the phi
/// into the body's value, a read uses it: neither is one.
bool isLastValue(const ir::Loop &loop, const ir::Instruction *phi);

} // namespace spirjit
