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

namespace spirjit::pyir_builder {

/// A call of a namedtuple class (a global or closure value) takes its
/// fields in order: keywords go to the fields they name and the class's
/// defaults fill the fields left out, as Python's `Point(y=2, x=1)` does,
/// so type inference and lowering see one operand per field.
void Builder::orderNamedTupleArguments() {
  for (auto &block : function_->blocks)
    for (size_t at = 0; at < block->instructions.size(); ++at) {
      Instruction *call = block->instructions[at].get();
      if (call->opcode != Opcode::Call)
        continue;
      const Instruction *callee = call->operands[0];
      const GlobalValue *frozen = nullptr;
      if (callee->opcode == Opcode::FreeVar && callee->index >= 0 &&
          static_cast<size_t>(callee->index) < desc_.closure.size())
        frozen = &desc_.closure[callee->index];
      if (callee->opcode == Opcode::Global)
        if (auto it = desc_.globals.find(callee->name);
            it != desc_.globals.end())
          frozen = &it->second;
      if (!frozen || frozen->kind != GlobalValue::Kind::NamedTupleClass)
        continue;
      const std::vector<ConstValue> &fields = frozen->value.items.at(0).items;
      const std::vector<ConstValue> &defaults = frozen->value.items.at(1).items;
      // Its __name__: the key is module.qualname, "#n" after a second's.
      std::string cls = frozen->name.substr(0, frozen->name.find('#'));
      cls = cls.substr(cls.rfind('.') + 1);
      auto fail = [&](const std::string &why) {
        throw UserError(UserErrorKind::Typing, desc_.filename, call->line,
                        cls + "() " + why);
      };
      std::vector<std::string> keywords = ir::callKeywords(*call);
      size_t positional = call->operands.size() - 1 - keywords.size();
      if (positional > fields.size())
        fail("takes " + std::to_string(fields.size()) +
             " positional arguments but " + std::to_string(positional) +
             " were given");
      std::vector<Instruction *> ordered(fields.size(), nullptr);
      for (size_t i = 0; i < positional; ++i)
        ordered[i] = call->operands[1 + i];
      for (size_t k = 0; k < keywords.size(); ++k) {
        auto field = std::find_if(
            fields.begin(), fields.end(),
            [&](const ConstValue &f) { return f.text == keywords[k]; });
        if (field == fields.end())
          fail("got an unexpected keyword argument '" + keywords[k] + "'");
        size_t i = static_cast<size_t>(field - fields.begin());
        if (ordered[i])
          fail("got multiple values for argument '" + keywords[k] + "'");
        ordered[i] = call->operands[1 + positional + k];
      }
      size_t firstDefault = fields.size() - defaults.size();
      for (size_t i = 0; i < fields.size(); ++i) {
        if (ordered[i])
          continue;
        if (i < firstDefault)
          fail("missing required argument '" + fields[i].text + "'");
        const ConstValue &given = defaults[i - firstDefault];
        if (!given.isNumber() && given.kind != ConstValue::Kind::None)
          throw UserError(UserErrorKind::UnsupportedFeature, desc_.filename,
                          call->line,
                          cls + "()'s default of '" + fields[i].text +
                              "' is a " + given.str() +
                              ", which jit code cannot hold; pass the "
                              "field, or give it a number as default");
        // The default, a constant made just before the call.
        Instruction *value =
            function_->create(block.get(), Opcode::Const, {}, call->line);
        value->constant = given;
        auto &list = block->instructions;
        std::unique_ptr<Instruction> made = std::move(list.back());
        list.pop_back();
        list.insert(list.begin() + static_cast<std::ptrdiff_t>(at),
                    std::move(made));
        ++at;
        ordered[i] = value;
      }
      call->operands.resize(1);
      call->operands.insert(call->operands.end(), ordered.begin(),
                            ordered.end());
      call->name.clear();
    }
}

} // namespace spirjit::pyir_builder
