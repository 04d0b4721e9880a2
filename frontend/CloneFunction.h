// Copying pyir: a whole function, or some of its blocks.
//
// Contract: cloneFunction requires a verified function and returns a
// verified copy that prints exactly as the original (same value and block
// ids, same order, attributes, lines and types), with `map` holding every
// original instruction and block and its copy. cloneBlocks copies blocks
// into `into` (the same function or another), appended in the given order
// with fresh ids; each operand, branch target and predecessor of a copy is
// the map's entry for the original where it has one and the original
// itself otherwise, so a caller seeds the map to redirect values from
// outside (outlining turns them into parameters) and then mends the edges
// that leave the copied blocks: until then the copy need not verify.
// Neither changes the original.
#pragma once

#include "frontend/PyIR.h"

#include <map>
#include <memory>
#include <vector>

namespace spirjit::ir {

/// Original -> copy, for the instructions and blocks of a clone.
struct ValueMap {
  std::map<const Instruction *, Instruction *> values;
  std::map<const Block *, Block *> blocks;

  /// The copy of `inst`, or `inst` itself when the map has none.
  Instruction *operator[](Instruction *inst) const;
  Block *operator[](Block *block) const;
};

/// Appends a copy of `inst` to `block` of `into` with a fresh id: opcode,
/// operands, targets, attributes, line and type as they are.
Instruction *cloneInstruction(const Instruction &inst, Function &into,
                              Block *block);

std::unique_ptr<Function> cloneFunction(const Function &function,
                                        ValueMap &map);

/// Returns the copies, in the order of `blocks`.
std::vector<Block *> cloneBlocks(const std::vector<Block *> &blocks,
                                 Function &into, ValueMap &map);

} // namespace spirjit::ir
