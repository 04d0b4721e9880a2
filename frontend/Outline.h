// Outlining a single-entry single-exit region of blocks into a function of
// its own: what the parfor stage does with a prange loop's body.
//
// Contract: requires a verified function and a region of its blocks that
// does not hold the entry block, is entered by exactly one edge and left
// by exactly one edge (an InternalError says which rule a region breaks).
// Produces two verified functions:
//  - the outlined one, named `name`: a new entry block binds one `arg` per
//    value the region uses but does not define, in the order of first use
//    (blocks in function order, instructions in order); constants,
//    globals, closure values and undefs are copied in instead, so that
//    type inference still sees them as compile-time values. It returns the
//    values the region defines and later code uses as one tuple, in the
//    order they are defined, or None when there are none.
//  - the original, where one new block in the region's place evaluates
//    `call (global 'name'), arguments...`, takes each result out of the
//    returned tuple with `tuple_get`, and branches where the region went.
//    pyir has no call-an-IR-function opcode and needs none: the `global`
//    names the outlined function, and the stage that outlines binds that
//    name for type inference. The region's blocks are deleted.
// Types (Instruction::type) are copied along, and each new `arg` and
// `tuple_get` has the type of the value it stands for; the other new
// instructions have none yet. Side tables keyed by instruction (a
// TypedFunction's) are the caller's to mend.
#pragma once

#include "frontend/PyIR.h"

#include <memory>
#include <string>
#include <vector>

namespace spirjit::ir {

struct OutlinedRegion {
  std::unique_ptr<Function> function;
  /// In the original: the call that replaced the region.
  Instruction *call = nullptr;
  /// In the original: the values passed, in parameter order.
  std::vector<Instruction *> arguments;
  /// In the original: the `tuple_get`s that now stand for the values the
  /// region defined and later code uses, in the order of the tuple.
  std::vector<Instruction *> results;
};

OutlinedRegion outlineRegion(Function &function,
                             const std::vector<Block *> &region,
                             const std::string &name);

} // namespace spirjit::ir
