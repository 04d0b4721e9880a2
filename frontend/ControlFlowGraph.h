// The control-flow graph of decoded bytecode.
//
// Contract: requires a decoded instruction list; produces basic blocks in
// bytecode order, unreachable blocks removed, with successor and
// predecessor lists. Successor 0 of a conditional block is the fall-through.
#pragma once

#include "frontend/Bytecode.h"

#include <string>
#include <vector>

namespace spirjit {

struct BytecodeBlock {
  int begin = 0, end = 0; // instruction indices [begin, end)
  int offset = 0;         // byte offset of the first instruction
  std::vector<int> successors, predecessors;
};

struct ControlFlowGraph {
  std::vector<BytecodeInstruction> code;
  std::vector<BytecodeBlock> blocks;

  int blockAtOffset(int offset) const;
  /// Blocks in reverse post-order from the entry.
  std::vector<int> reversePostOrder() const;
  std::string print() const;
};

ControlFlowGraph buildControlFlowGraph(std::vector<BytecodeInstruction> code);

/// True for opcodes that end a block without falling through.
bool isUnconditionalJump(PyOp op);
bool isConditionalJump(PyOp op);
bool endsFunction(PyOp op);

} // namespace spirjit
