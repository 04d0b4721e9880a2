#include "frontend/ControlFlowGraph.h"

#include "frontend/Diagnostics.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

namespace spirjit {

bool isUnconditionalJump(PyOp op) {
  return op == PyOp::JUMP_FORWARD || op == PyOp::JUMP_BACKWARD ||
         op == PyOp::JUMP_BACKWARD_NO_INTERRUPT;
}

bool isConditionalJump(PyOp op) {
  switch (op) {
  case PyOp::POP_JUMP_FORWARD_IF_FALSE:
  case PyOp::POP_JUMP_FORWARD_IF_TRUE:
  case PyOp::POP_JUMP_FORWARD_IF_NONE:
  case PyOp::POP_JUMP_FORWARD_IF_NOT_NONE:
  case PyOp::POP_JUMP_BACKWARD_IF_FALSE:
  case PyOp::POP_JUMP_BACKWARD_IF_TRUE:
  case PyOp::POP_JUMP_BACKWARD_IF_NONE:
  case PyOp::POP_JUMP_BACKWARD_IF_NOT_NONE:
  case PyOp::JUMP_IF_FALSE_OR_POP:
  case PyOp::JUMP_IF_TRUE_OR_POP:
  case PyOp::FOR_ITER:
  case PyOp::SEND:
    return true;
  default:
    return false;
  }
}

bool endsFunction(PyOp op) {
  return op == PyOp::RETURN_VALUE || op == PyOp::RETURN_CONST ||
         op == PyOp::RAISE_VARARGS || op == PyOp::RERAISE;
}

int ControlFlowGraph::blockAtOffset(int offset) const {
  for (size_t i = 0; i < blocks.size(); ++i)
    if (blocks[i].offset == offset)
      return static_cast<int>(i);
  SPIRJIT_INTERNAL_CHECK(false, "no block at offset " + std::to_string(offset));
  return -1;
}

std::vector<int> ControlFlowGraph::reversePostOrder() const {
  std::vector<int> order;
  std::vector<char> seen(blocks.size(), 0);
  // Iterative DFS so a huge function cannot overflow the C++ stack.
  std::vector<std::pair<int, size_t>> stack;
  if (blocks.empty())
    return order;
  stack.push_back({0, 0});
  seen[0] = 1;
  while (!stack.empty()) {
    auto &[block, next] = stack.back();
    if (next < blocks[block].successors.size()) {
      int succ = blocks[block].successors[next++];
      if (!seen[succ]) {
        seen[succ] = 1;
        stack.push_back({succ, 0});
      }
      continue;
    }
    order.push_back(block);
    stack.pop_back();
  }
  std::reverse(order.begin(), order.end());
  return order;
}

std::string ControlFlowGraph::print() const {
  std::ostringstream os;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const BytecodeBlock &b = blocks[i];
    os << "block " << i << " @" << b.offset << " [" << b.begin << ", " << b.end
       << ") ->";
    for (int s : b.successors)
      os << " " << s;
    os << "\n";
  }
  return os.str();
}

ControlFlowGraph buildControlFlowGraph(std::vector<BytecodeInstruction> code) {
  SPIRJIT_INTERNAL_CHECK(!code.empty(), "empty bytecode");
  std::set<int> leaders = {0};
  std::map<int, int> indexAtOffset;
  for (size_t i = 0; i < code.size(); ++i)
    indexAtOffset[code[i].offset] = static_cast<int>(i);
  for (size_t i = 0; i < code.size(); ++i) {
    const BytecodeInstruction &inst = code[i];
    if (inst.target >= 0)
      leaders.insert(indexAtOffset.at(inst.target));
    if ((inst.target >= 0 || endsFunction(inst.op)) && i + 1 < code.size())
      leaders.insert(static_cast<int>(i + 1));
  }

  // All blocks in bytecode order, then keep the reachable ones.
  std::vector<BytecodeBlock> all;
  std::vector<int> leaderList(leaders.begin(), leaders.end());
  std::map<int, int> blockOfIndex;
  for (size_t b = 0; b < leaderList.size(); ++b) {
    BytecodeBlock block;
    block.begin = leaderList[b];
    block.end = b + 1 < leaderList.size() ? leaderList[b + 1]
                                          : static_cast<int>(code.size());
    block.offset = code[block.begin].offset;
    blockOfIndex[block.begin] = static_cast<int>(b);
    all.push_back(block);
  }
  for (BytecodeBlock &block : all) {
    const BytecodeInstruction &last = code[block.end - 1];
    bool fallsThrough =
        !isUnconditionalJump(last.op) && !endsFunction(last.op);
    if (fallsThrough) {
      if (block.end >= static_cast<int>(code.size()))
        throw UserError(UserErrorKind::Compile, "<bytecode>", last.line,
                        "malformed bytecode: control falls off the end");
      block.successors.push_back(blockOfIndex.at(block.end));
    }
    if (last.target >= 0)
      block.successors.push_back(
          blockOfIndex.at(indexAtOffset.at(last.target)));
  }

  std::vector<int> newIndex(all.size(), -1);
  {
    ControlFlowGraph probe;
    probe.blocks = all;
    for (int b : probe.reversePostOrder())
      newIndex[b] = 0;
  }
  ControlFlowGraph cfg;
  for (size_t b = 0; b < all.size(); ++b)
    if (newIndex[b] == 0) {
      newIndex[b] = static_cast<int>(cfg.blocks.size());
      cfg.blocks.push_back(all[b]);
    }
  for (BytecodeBlock &block : cfg.blocks)
    for (int &s : block.successors)
      s = newIndex[s];
  for (size_t b = 0; b < cfg.blocks.size(); ++b)
    for (int s : cfg.blocks[b].successors) {
      auto &preds = cfg.blocks[s].predecessors;
      if (std::find(preds.begin(), preds.end(), static_cast<int>(b)) ==
          preds.end())
        preds.push_back(static_cast<int>(b));
    }
  cfg.code = std::move(code);
  return cfg;
}

} // namespace spirjit
