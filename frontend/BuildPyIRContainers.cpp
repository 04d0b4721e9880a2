// Subscripts, slices, tuples and lists: the value-building half of the
// bytecode translation (the builder: BuildPyIRBuilder.h).
#include "frontend/BuildPyIRBuilder.h"

#include <algorithm>
#include <functional>
#include <map>

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
    if (inst.op == PyOp::BUILD_LIST) {
      built->name = "list";
      if (comprehensionNext_)
        comprehensionLists_.insert(built);
      comprehensionNext_ = false;
    }
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
  case PyOp::LIST_APPEND: {
    // A comprehension's `[... for ...]`: the list `arg` deep appends the
    // value, as `l.append(v)` would.
    Instruction *value = pop(line);
    Instruction *append = emit(Opcode::GetAttr, {peek(arg, line)}, line);
    append->name = "append";
    emit(Opcode::Call, {append, value}, line);
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
  // The list literals and phis one value may be, as classes (union-find):
  // a class that some use changes or returns is a list (numba's typed
  // list, in host memory); one only read stays a tuple of its items, which
  // NumPy's constructors and indexing take as they are.
  std::map<Instruction *, Instruction *> parent;
  std::function<Instruction *(Instruction *)> find = [&](Instruction *v) {
    Instruction *&p = parent[v];
    if (!p || p == v)
      return p = v;
    return p = find(p);
  };
  auto isLiteral = [](const Instruction *v) {
    return v->isa(Opcode::BuildTuple) && v->name == "list";
  };
  for (auto &block : function_->blocks)
    for (auto &inst : block->instructions)
      if (inst->isa(Opcode::Phi))
        for (Instruction *operand : inst->operands)
          if (isLiteral(operand) || operand->isa(Opcode::Phi))
            parent[find(operand)] = find(inst.get());
  std::set<Instruction *> changed;
  for (auto &block : function_->blocks)
    for (auto &inst : block->instructions) {
      if (inst->operands.empty())
        continue;
      Instruction *list = inst->operands[0];
      if (!isLiteral(list) && !list->isa(Opcode::Phi))
        continue;
      if (inst->isa(Opcode::GetAttr) || inst->isa(Opcode::SetItem) ||
          inst->isa(Opcode::Return))
        changed.insert(find(list));
    }
  std::vector<Instruction *> numbered; // classes, as first met
  for (auto &block : function_->blocks)
    for (auto &inst : block->instructions) {
      Instruction *root = find(inst.get());
      if (!isLiteral(inst.get()) || !changed.count(root))
        continue;
      auto at = std::find(numbered.begin(), numbered.end(), root);
      if (at == numbered.end())
        at = numbered.insert(at, root);
      inst->opcode = Opcode::BuildList;
      // Unique past inlining: type inference gives a class one element.
      // A comprehension's says so, for the kernels that refuse it.
      inst->name = (comprehensionLists_.count(inst.get()) ? "comprehension:"
                                                          : "") +
                   function_->name + "#" +
                   std::to_string(at - numbered.begin());
    }
}

} // namespace spirjit::pyir_builder
