// Subscripts, slices, tuples and lists: the value-building half of the
// bytecode translation (the builder: BuildPyIRBuilder.h).
#include "frontend/BuildPyIRBuilder.h"

namespace spirjit::pyir_builder {

bool Builder::translateContainer(const BytecodeInstruction &inst) {
  int line = inst.line;
  int arg = inst.arg;
  switch (inst.op) {
  case PyOp::BINARY_SUBSCR: {
    Instruction *index = pop(line);
    Instruction *obj = pop(line);
    stack_.push_back(emit(Opcode::GetItem, {obj, index}, line));
    return true;
  }
  case PyOp::STORE_SUBSCR: {
    Instruction *index = pop(line);
    Instruction *obj = pop(line);
    Instruction *value = pop(line);
    emit(Opcode::SetItem, {obj, index, value}, line);
    return true;
  }
  case PyOp::BUILD_SLICE: {
    // `start:stop:step` becomes a `slice`, typed only in host code.
    Instruction *step = arg == 3 ? pop(line) : nullptr;
    Instruction *stop = pop(line);
    Instruction *start = pop(line);
    stack_.push_back(makeSlice(start, stop, step, line));
    return true;
  }
  case PyOp::BINARY_SLICE: { // 3.12: container[start:stop]
    Instruction *stop = pop(line);
    Instruction *start = pop(line);
    Instruction *obj = pop(line);
    Instruction *slice = makeSlice(start, stop, nullptr, line);
    stack_.push_back(emit(Opcode::GetItem, {obj, slice}, line));
    return true;
  }
  case PyOp::STORE_SLICE: { // 3.12: container[start:stop] = value
    Instruction *stop = pop(line);
    Instruction *start = pop(line);
    Instruction *obj = pop(line);
    Instruction *value = pop(line);
    Instruction *slice = makeSlice(start, stop, nullptr, line);
    emit(Opcode::SetItem, {obj, slice, value}, line);
    return true;
  }
  case PyOp::BUILD_TUPLE:
  case PyOp::BUILD_LIST: {
    std::vector<Instruction *> items(arg);
    for (int i = arg - 1; i >= 0; --i)
      items[i] = pop(line);
    Instruction *built = emit(Opcode::BuildTuple, items, line);
    // A list literal is a tuple of its items, marked (checkLists).
    if (inst.op == PyOp::BUILD_LIST)
      built->name = "list";
    stack_.push_back(built);
    return true;
  }
  case PyOp::LIST_EXTEND: {
    // [1.0, 2.0, 3.0] is BUILD_LIST 0 extended by the constant tuple.
    Instruction *items = pop(line);
    if (arg != 1 || stack_.empty() || !items->isa(Opcode::BuildTuple) ||
        !stack_.back()->isa(Opcode::BuildTuple) ||
        stack_.back()->name != "list")
      unsupported(line, "list");
    std::vector<Instruction *> all = stack_.back()->operands;
    all.insert(all.end(), items->operands.begin(), items->operands.end());
    stack_.back() = emit(Opcode::BuildTuple, all, line);
    stack_.back()->name = "list";
    return true;
  }
  case PyOp::UNPACK_SEQUENCE: {
    Instruction *seq = pop(line);
    for (int i = arg - 1; i >= 0; --i) {
      Instruction *item = emit(Opcode::TupleGet, {seq}, line);
      item->index = i;
      stack_.push_back(item);
    }
    return true;
  }
  default:
    return false;
  }
}

void Builder::checkLists() {
  for (auto &block : function_->blocks)
    for (auto &inst : block->instructions) {
      const Instruction *list =
          inst->operands.empty() ? nullptr : inst->operands[0];
      if (!list || !list->isa(Opcode::BuildTuple) || list->name != "list")
        continue;
      if (inst->isa(Opcode::GetAttr))
        unsupported(inst->line, "list." + inst->name);
      if (inst->isa(Opcode::SetItem))
        unsupported(inst->line, "list item assignment");
      // Python would get a tuple back, not the list it expects.
      if (inst->isa(Opcode::Return))
        unsupported(inst->line, "returning a list");
    }
}

} // namespace spirjit::pyir_builder
