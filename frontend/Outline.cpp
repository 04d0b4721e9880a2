#include "frontend/Outline.h"

#include "frontend/CloneFunction.h"
#include "frontend/Diagnostics.h"

#include <algorithm>
#include <set>

namespace spirjit::ir {
namespace {

/// Values with no operands and no place: copying one into the outlined
/// function keeps it a compile-time value there.
bool isCopiedIn(const Instruction &inst) {
  return inst.opcode == Opcode::Const || inst.opcode == Opcode::Global ||
         inst.opcode == Opcode::FreeVar || inst.opcode == Opcode::Undef;
}

} // namespace

OutlinedRegion outlineRegion(Function &function,
                             const std::vector<Block *> &region,
                             const std::string &name) {
  std::set<const Block *> inRegion(region.begin(), region.end());
  SPIRJIT_INTERNAL_CHECK(!region.empty(),
                         "outlining an empty region of " + function.name);
  SPIRJIT_INTERNAL_CHECK(!inRegion.count(function.blocks.front().get()),
                         "outlining the entry block of " + function.name);
  std::vector<Block *> blocks;
  for (const auto &block : function.blocks)
    if (inRegion.count(block.get()))
      blocks.push_back(block.get());
  SPIRJIT_INTERNAL_CHECK(blocks.size() == inRegion.size(),
                         "outlining blocks that are not in " + function.name);

  Block *entry = nullptr, *before = nullptr, *exiting = nullptr,
        *after = nullptr;
  unsigned entryEdges = 0, exitEdges = 0;
  for (Block *block : blocks) {
    for (Block *pred : block->predecessors)
      if (!inRegion.count(pred)) {
        ++entryEdges;
        entry = block;
        before = pred;
      }
    for (Block *successor : block->successors())
      if (!inRegion.count(successor)) {
        ++exitEdges;
        exiting = block;
        after = successor;
      }
  }
  SPIRJIT_INTERNAL_CHECK(entryEdges == 1,
                         "a region to outline from " + function.name +
                             " is entered by " + std::to_string(entryEdges) +
                             " edges, not one");
  SPIRJIT_INTERNAL_CHECK(exitEdges == 1, "a region to outline from " +
                                             function.name + " is left by " +
                                             std::to_string(exitEdges) +
                                             " edges, not one");

  std::vector<Instruction *> liveIns, copiedIn;
  std::set<const Instruction *> seen;
  for (Block *block : blocks)
    for (const auto &inst : block->instructions)
      for (Instruction *operand : inst->operands)
        if (!inRegion.count(operand->parent) && seen.insert(operand).second)
          (isCopiedIn(*operand) ? copiedIn : liveIns).push_back(operand);
  std::set<const Instruction *> usedAfter;
  for (const auto &block : function.blocks)
    if (!inRegion.count(block.get()))
      for (const auto &inst : block->instructions)
        for (Instruction *operand : inst->operands)
          if (inRegion.count(operand->parent))
            usedAfter.insert(operand);
  std::vector<Instruction *> liveOuts;
  for (Block *block : blocks)
    for (const auto &inst : block->instructions)
      if (usedAfter.count(inst.get()))
        liveOuts.push_back(inst.get());

  int entryLine = entry->instructions.front()->line;
  int exitLine = exiting->terminator()->line;

  // The outlined function: a prologue that binds the parameters, the
  // copied region, and an epilogue that returns what later code uses.
  OutlinedRegion result;
  result.function = std::make_unique<Function>();
  Function &outlined = *result.function;
  outlined.name = name;
  outlined.filename = function.filename;
  outlined.firstLine = entryLine;
  ValueMap map;
  Block *prologue = outlined.addBlock();
  for (size_t i = 0; i < liveIns.size(); ++i) {
    Instruction *value = liveIns[i];
    std::string parameter = value->opcode == Opcode::Arg
                                ? value->name
                                : "v" + std::to_string(value->id);
    outlined.parameterNames.push_back(parameter);
    Instruction *arg = outlined.create(prologue, Opcode::Arg, {}, entryLine);
    arg->index = static_cast<int64_t>(i);
    arg->name = parameter;
    arg->type = value->type;
    map.values[value] = arg;
  }
  for (Instruction *value : copiedIn)
    map.values[value] = cloneInstruction(*value, outlined, prologue);
  cloneBlocks(blocks, outlined, map);
  outlined.create(prologue, Opcode::Branch, {}, entryLine)->targets = {
      map[entry]};
  std::replace(map[entry]->predecessors.begin(), map[entry]->predecessors.end(),
               before, prologue);

  Block *epilogue = outlined.addBlock();
  epilogue->predecessors = {map[exiting]};
  for (Block *&target : map[exiting]->terminator()->targets)
    if (target == after)
      target = epilogue;
  Instruction *returned;
  if (liveOuts.empty()) {
    returned = outlined.create(epilogue, Opcode::Const, {}, exitLine);
  } else {
    std::vector<Instruction *> values;
    for (Instruction *value : liveOuts)
      values.push_back(map[value]);
    returned = outlined.create(epilogue, Opcode::BuildTuple, values, exitLine);
  }
  outlined.create(epilogue, Opcode::Return, {returned}, exitLine);

  // The original: one block calls the outlined function where the region
  // was, and its results replace the region's values after it.
  Block *callBlock = function.addBlock();
  Instruction *callee =
      function.create(callBlock, Opcode::Global, {}, entryLine);
  callee->name = name;
  std::vector<Instruction *> operands{callee};
  operands.insert(operands.end(), liveIns.begin(), liveIns.end());
  result.call = function.create(callBlock, Opcode::Call, operands, entryLine);
  result.arguments = liveIns;
  for (size_t i = 0; i < liveOuts.size(); ++i) {
    Instruction *get =
        function.create(callBlock, Opcode::TupleGet, {result.call}, exitLine);
    get->index = static_cast<int64_t>(i);
    get->type = liveOuts[i]->type;
    result.results.push_back(get);
    function.replaceAllUsesWith(liveOuts[i], get);
  }
  function.create(callBlock, Opcode::Branch, {}, exitLine)->targets = {after};
  callBlock->predecessors = {before};
  for (Block *&target : before->terminator()->targets)
    if (target == entry)
      target = callBlock;
  std::replace(after->predecessors.begin(), after->predecessors.end(), exiting,
               callBlock);

  // The call block takes the region entry's place in the block order, so
  // the printed function still reads in source order.
  auto &list = function.blocks;
  std::unique_ptr<Block> owned = std::move(list.back());
  list.pop_back();
  list.insert(std::find_if(list.begin(), list.end(),
                           [&](auto &block) { return block.get() == entry; }),
              std::move(owned));
  list.erase(std::remove_if(
                 list.begin(), list.end(),
                 [&](auto &block) { return inRegion.count(block.get()) != 0; }),
             list.end());
  return result;
}

} // namespace spirjit::ir
