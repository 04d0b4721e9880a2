#include "compiler/SequenceLoops.h"

#include <algorithm>

namespace spirjit {

using ir::Block;
using ir::Instruction;
using ir::Opcode;

namespace {

/// A new instruction placed right before `at` (create appends it).
Instruction *createBefore(ir::Function &fn, Instruction *at, Opcode opcode,
                          std::vector<Instruction *> operands) {
  Block *block = at->parent;
  Instruction *made = fn.create(block, opcode, std::move(operands), at->line);
  auto &list = block->instructions;
  auto position = std::find_if(list.begin(), list.end(),
                               [&](const auto &i) { return i.get() == at; });
  std::rotate(position, std::prev(list.end()), list.end());
  return made;
}

/// The same, right after `at`.
Instruction *createAfter(ir::Function &fn, Instruction *at, Opcode opcode,
                         std::vector<Instruction *> operands) {
  Block *block = at->parent;
  Instruction *made = fn.create(block, opcode, std::move(operands), at->line);
  auto &list = block->instructions;
  auto position = std::find_if(list.begin(), list.end(),
                               [&](const auto &i) { return i.get() == at; });
  std::rotate(std::next(position), std::prev(list.end()), list.end());
  return made;
}

bool isSequenceLoop(const Instruction &inst) {
  return inst.isa(Opcode::GetIter) && inst.type &&
         inst.type->kind == TypeKind::RangeIterator &&
         !inst.type->elements.empty();
}

} // namespace

std::shared_ptr<FunctionDescription> lowerSequenceLoops(TypedFunction &host) {
  ir::Function &fn = *host.function;
  std::vector<Instruction *> iterators;
  for (auto &block : fn.blocks)
    for (auto &inst : block->instructions)
      if (isSequenceLoop(*inst))
        iterators.push_back(inst.get());
  if (iterators.empty())
    return nullptr;
  auto description = std::make_shared<FunctionDescription>(*host.description);
  const char *len = "__spirjit_sequence_len";
  const char *range = "__spirjit_sequence_range";
  description->globals[len] = {GlobalValue::Kind::Builtin, "len", {}, ""};
  description->globals[range] = {GlobalValue::Kind::Builtin, "range", {}, ""};
  for (Instruction *iterator : iterators) {
    Instruction *sequence = iterator->operands[0];
    Instruction *lenFn = createBefore(fn, iterator, Opcode::Global, {});
    lenFn->name = len;
    Instruction *count =
        createBefore(fn, iterator, Opcode::Call, {lenFn, sequence});
    Instruction *rangeFn = createBefore(fn, iterator, Opcode::Global, {});
    rangeFn->name = range;
    iterator->operands[0] =
        createBefore(fn, iterator, Opcode::Call, {rangeFn, count});
    // Each value the loop takes: the sequence's item at the index.
    std::vector<Instruction *> nexts;
    for (auto &block : fn.blocks)
      for (auto &inst : block->instructions)
        if (inst->isa(Opcode::IterNext) && inst->operands[0] == iterator)
          nexts.push_back(inst.get());
    for (Instruction *next : nexts) {
      Instruction *item =
          createAfter(fn, next, Opcode::GetItem, {sequence, next});
      fn.replaceAllUsesWith(next, item);
      item->operands[1] = next; // (replaced with itself just now)
    }
  }
  for (auto &block : fn.blocks)
    for (auto &inst : block->instructions)
      inst->type = nullptr;
  return description;
}

} // namespace spirjit
