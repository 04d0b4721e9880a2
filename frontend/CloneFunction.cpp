#include "frontend/CloneFunction.h"

#include <algorithm>

namespace spirjit::ir {

Instruction *ValueMap::operator[](Instruction *inst) const {
  auto it = values.find(inst);
  return it == values.end() ? inst : it->second;
}

Block *ValueMap::operator[](Block *block) const {
  auto it = blocks.find(block);
  return it == blocks.end() ? block : it->second;
}

Instruction *cloneInstruction(const Instruction &inst, Function &into,
                              Block *block) {
  Instruction *clone =
      into.create(block, inst.opcode, inst.operands, inst.line);
  clone->targets = inst.targets;
  clone->index = inst.index;
  clone->name = inst.name;
  clone->constant = inst.constant;
  clone->type = inst.type;
  return clone;
}

std::vector<Block *> cloneBlocks(const std::vector<Block *> &blocks,
                                 Function &into, ValueMap &map) {
  // Copy first and remap after: a phi, or a block placed later, may use a
  // value whose copy does not exist yet.
  std::vector<Block *> copies;
  for (Block *block : blocks) {
    Block *copy = into.addBlock();
    map.blocks[block] = copy;
    copies.push_back(copy);
    copy->predecessors = block->predecessors;
    for (const auto &inst : block->instructions) {
      map.values[inst.get()] = cloneInstruction(*inst, into, copy);
    }
  }
  for (Block *copy : copies) {
    for (Block *&pred : copy->predecessors)
      pred = map[pred];
    for (const auto &inst : copy->instructions) {
      for (Instruction *&operand : inst->operands)
        operand = map[operand];
      for (Block *&target : inst->targets)
        target = map[target];
    }
  }
  return copies;
}

std::unique_ptr<Function> cloneFunction(const Function &function,
                                        ValueMap &map) {
  auto clone = std::make_unique<Function>();
  clone->name = function.name;
  clone->filename = function.filename;
  clone->firstLine = function.firstLine;
  clone->parameterNames = function.parameterNames;
  std::vector<Block *> blocks;
  for (const auto &block : function.blocks)
    blocks.push_back(block.get());
  cloneBlocks(blocks, *clone, map);

  // Keep the original's ids, so that dumps of the two compare line by line.
  unsigned instructionIds = 0, blockIds = 0;
  for (Block *block : blocks) {
    map.blocks[block]->id = block->id;
    blockIds = std::max(blockIds, block->id + 1);
    for (const auto &inst : block->instructions) {
      map.values[inst.get()]->id = inst->id;
      instructionIds = std::max(instructionIds, inst->id + 1);
    }
  }
  clone->reserveIds(instructionIds, blockIds);
  return clone;
}

} // namespace spirjit::ir
