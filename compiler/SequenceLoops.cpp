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
  const char *names[][2] = {{"__spirjit_sequence_len", "len"},
                            {"__spirjit_sequence_range", "range"},
                            {"__spirjit_sequence_min", "min"}};
  for (const auto &[global, builtin] : names)
    description->globals[global] = {GlobalValue::Kind::Builtin, builtin, {},
                                    ""};
  auto builtin = [&](Instruction *at, int which) {
    Instruction *g = createBefore(fn, at, Opcode::Global, {});
    g->name = names[which][0];
    return g;
  };
  for (Instruction *iterator : iterators) {
    // The arrays walked in step: a[i]; enumerate(a): (i, a[i]); zip(a, b):
    // (a[i], b[i]) over the shorter.
    Instruction *iterable = iterator->operands[0];
    const Type *walked = iterator->type->elements[0];
    bool enumerate = walked->name == "enumerate";
    std::vector<Instruction *> arrays = {iterable};
    if (walked->kind == TypeKind::Range)
      arrays.assign(iterable->operands.begin() + 1, iterable->operands.end());
    bool tuple = walked->kind == TypeKind::Tuple;
    Instruction *count = nullptr;
    if (tuple) { // its length is known
      count = createBefore(fn, iterator, Opcode::Const, {});
      count->constant =
          ConstValue::ofInt(static_cast<int64_t>(walked->elements.size()));
    } else {
      std::vector<Instruction *> lengths = {builtin(iterator, 2)};
      for (Instruction *array : arrays)
        lengths.push_back(createBefore(fn, iterator, Opcode::Call,
                                       {builtin(iterator, 0), array}));
      count = lengths.size() == 2
                  ? lengths[1]
                  : createBefore(fn, iterator, Opcode::Call, lengths);
    }
    iterator->operands[0] = createBefore(fn, iterator, Opcode::Call,
                                         {builtin(iterator, 1), count});
    // Each value the loop takes.
    std::vector<Instruction *> nexts;
    for (auto &block : fn.blocks)
      for (auto &inst : block->instructions)
        if (inst->isa(Opcode::IterNext) && inst->operands[0] == iterator)
          nexts.push_back(inst.get());
    for (Instruction *next : nexts) {
      std::vector<Instruction *> items;
      Instruction *last = next;
      if (enumerate)
        items.push_back(next);
      for (Instruction *array : arrays) {
        items.push_back(last = createAfter(fn, last, Opcode::GetItem,
                                           {array, next}));
        last->index = tuple ? 1 : 0; // in range by construction
      }
      Instruction *value =
          walked->kind == TypeKind::Range
              ? createAfter(fn, last, Opcode::BuildTuple, items)
              : items.back();
      fn.replaceAllUsesWith(next, value);
      // (the uses just made of `next` itself are put back)
      for (Instruction *item : items)
        if (item != next)
          item->operands[1] = next;
      if (enumerate)
        value->operands[0] = next;
    }
    // enumerate(...) and zip(...) are gone with their loop.
    if (walked->kind == TypeKind::Range) {
      Instruction *callee = iterable->operands[0];
      fn.erase(iterable);
      bool used = false;
      for (auto &block : fn.blocks)
        for (auto &inst : block->instructions)
          for (Instruction *operand : inst->operands)
            used = used || operand == callee;
      if (!used)
        fn.erase(callee);
    }
  }
  for (auto &block : fn.blocks)
    for (auto &inst : block->instructions)
      inst->type = nullptr;
  return description;
}

} // namespace spirjit
