#include "frontend/BuildPyIR.h"

#include "frontend/BuildPyIRBuilder.h"
#include "frontend/CallArguments.h"
#include "frontend/DefiniteAssignment.h"
#include "frontend/Optionals.h"

#include <algorithm>
#include <unordered_map>

namespace spirjit {
namespace pyir_builder {

using ir::isTrivialPhi;

namespace {
/// A global or closure tuple of numbers (_describe.py): built where it is
/// read, as a tuple literal is, so that typing and unrolling see its items.
bool isFrozenTuple(const GlobalValue &value) {
  return value.kind == GlobalValue::Kind::Number &&
         value.value.kind == ConstValue::Kind::Tuple;
}
} // namespace

Instruction *Builder::emitConst(const ConstValue &value, int line) {
  switch (value.kind) {
  case ConstValue::Kind::Str: {
    // Strings have one use in kernels: naming a group algorithm's
    // operation ("+", "min", "&"...). Any other use is rejected once the whole
    // function is built (checkStrings), at the string's own line.
    Instruction *c = emit(Opcode::Const, {}, line);
    c->constant = value;
    strings_.push_back(c);
    return c;
  }
  case ConstValue::Kind::Code: {
    // A lambda's or nested def's code: MAKE_FUNCTION, next, takes it.
    Instruction *c = emit(Opcode::Const, {}, line);
    c->constant = value;
    return c;
  }
  case ConstValue::Kind::Other:
    // NumPy 2 raises OverflowError when such an int meets a typed integer.
    if (value.text == "int beyond 64 bits")
      throw UserError(UserErrorKind::Typing, desc_.filename, line,
                      "integer literal does not fit int64");
    if (value.text == "ellipsis") { // a[..., None]: typing says where it fits
      Instruction *c = emit(Opcode::Const, {}, line);
      c->constant = value;
      return c;
    }
    unsupported(line, value.text);
  case ConstValue::Kind::Tuple: {
    std::vector<Instruction *> items;
    for (const ConstValue &item : value.items)
      items.push_back(emitConst(item, line));
    return emit(Opcode::BuildTuple, items, line);
  }
  default: {
    Instruction *c = emit(Opcode::Const, {}, line);
    c->constant = value;
    return c;
  }
  }
}

void Builder::endBlock(int bytecodeBlock, const std::vector<Block *> &targets,
                       std::vector<size_t> depths, Instruction *operand,
                       int line) {
  // Stack slots are SSA variables: the block's final stack defines them for
  // every successor; each edge says how many of them it keeps.
  for (size_t slot = 0; slot < stack_.size(); ++slot)
    ssa_->write(slotName(slot), current_, stack_[slot]);
  const BytecodeBlock &block = cfg_.blocks[bytecodeBlock];
  for (size_t i = 0; i < block.successors.size(); ++i) {
    int succ = block.successors[i];
    int depth = static_cast<int>(depths[i]);
    if (entryDepth_[succ] == -1)
      entryDepth_[succ] = depth;
    else if (entryDepth_[succ] != depth)
      malformed(line, "inconsistent stack depth at a join");
  }
  Instruction *term;
  if (targets.size() == 2 && targets[0] != targets[1]) {
    term = emit(Opcode::CondBranch, {operand}, line);
    term->targets = targets;
  } else {
    term = emit(Opcode::Branch, {}, line);
    term->targets = {targets[0]};
  }
  terminated_ = true;
}

void Builder::translate(const BytecodeInstruction &inst, int bytecodeBlock) {
  int line = inst.line;
  int arg = inst.arg;
  const BytecodeBlock &block = cfg_.blocks[bytecodeBlock];
  auto successorBlock = [&](int i) { return blocks_[block.successors[i]]; };
  if (const char *what = unsupportedConstruct(inst.op))
    unsupported(line, what);
  if (pendingKeywords_ && inst.op != PyOp::CALL && inst.op != PyOp::PRECALL)
    malformed(line, "KW_NAMES not followed by CALL");

  if (translateContainer(inst))
    return;
  switch (inst.op) {
  case PyOp::NOP:
  case PyOp::RESUME:
  case PyOp::CACHE:
  case PyOp::COPY_FREE_VARS:
  case PyOp::MAKE_CELL:
  case PyOp::PRECALL:
  case PyOp::EXTENDED_ARG:
    return;
  case PyOp::KW_NAMES: {
    // The next CALL's last arguments are keywords: their names ride on the
    // call instruction, and type inference matches them to parameters.
    if (arg >= static_cast<int>(desc_.consts.size()) ||
        desc_.consts[arg].kind != ConstValue::Kind::Tuple)
      malformed(line, "KW_NAMES without a tuple of names");
    keywords_.clear();
    for (const ConstValue &name : desc_.consts[arg].items)
      keywords_.push_back(name.text);
    pendingKeywords_ = true;
    return;
  }
  case PyOp::POP_TOP:
    pop(line);
    return;
  case PyOp::END_FOR: // 3.12: pops the exhausted iterator and its value
    pop(line);
    pop(line);
    return;
  case PyOp::CALL_INTRINSIC_1: {
    // 3.12 spells unary plus as intrinsic 5; the others are not numeric.
    if (arg != 5)
      unsupported(line, "intrinsic function " + std::to_string(arg));
    Instruction *u = emit(Opcode::UnaryOp, {pop(line)}, line);
    u->index = static_cast<int64_t>(ir::UnaryOperator::Pos);
    stack_.push_back(u);
    return;
  }
  case PyOp::PUSH_NULL:
    stack_.push_back(null_);
    return;
  case PyOp::COPY:
    stack_.push_back(peek(arg, line));
    return;
  case PyOp::SWAP: {
    Instruction *top = peek(1, line);
    Instruction *other = peek(arg, line);
    stack_[stack_.size() - 1] = other;
    stack_[stack_.size() - arg] = top;
    return;
  }
  case PyOp::LOAD_FAST:
    stack_.push_back(
        ssa_->read("v:" + nameAt(desc_.varnames, arg, line), current_, line));
    return;
  case PyOp::LOAD_FAST_AND_CLEAR: {
    // 3.12's inlined comprehension (PEP 709) saves the variable it binds
    // (a STORE_FAST after the loop puts it back) and starts it unbound.
    const std::string &name = nameAt(desc_.varnames, arg, line);
    stack_.push_back(ssa_->read("v:" + name, current_, line));
    ssa_->write("v:" + name, current_, undef_);
    comprehensionNext_ = true;
    return;
  }
  case PyOp::STORE_FAST:
    ssa_->write("v:" + nameAt(desc_.varnames, arg, line), current_,
                pop(line));
    return;
  case PyOp::LOAD_CONST:
    if (arg >= static_cast<int>(desc_.consts.size()))
      malformed(line, "constant index out of range");
    stack_.push_back(emitConst(desc_.consts[arg], line));
    if (desc_.consts[arg].kind == ConstValue::Kind::Code)
      stack_.back()->index = arg; // its key in nestedCode names the index
    return;
  case PyOp::MAKE_FUNCTION:
    stack_.push_back(makeFunction(arg, line));
    return;
  case PyOp::LOAD_GLOBAL: {
    if (arg & 1)
      stack_.push_back(null_);
    const std::string &name = nameAt(desc_.names, arg >> 1, line);
    if (!desc_.globals.count(name))
      throw UserError(UserErrorKind::Typing, desc_.filename, line,
                      "name '" + name + "' is not defined");
    const GlobalValue &value = desc_.globals.at(name);
    if (isFrozenTuple(value)) {
      stack_.push_back(emitConst(value.value, line));
      return;
    }
    Instruction *g = emit(Opcode::Global, {}, line);
    g->name = name;
    stack_.push_back(g);
    return;
  }
  case PyOp::LOAD_DEREF:
  case PyOp::LOAD_CLOSURE:
  case PyOp::STORE_DEREF: {
    // 3.11 and 3.12 index "fast locals plus": varnames, new cellvars,
    // freevars. A cell (a local that a nested function reads) is a local
    // here: the nested function is inlined where it is called, with the
    // values it captured, which its calls check
    // (rejectCapturesAssignedBeforeCalls). A
    // free variable is a frozen closure value, written by no one.
    std::vector<std::string> localsPlus = desc_.varnames;
    for (const std::string &cell : desc_.cellvars)
      if (std::find(localsPlus.begin(), localsPlus.end(), cell) ==
          localsPlus.end())
        localsPlus.push_back(cell);
    size_t firstFree = localsPlus.size();
    localsPlus.insert(localsPlus.end(), desc_.freevars.begin(),
                      desc_.freevars.end());
    const std::string &name = nameAt(localsPlus, arg, line);
    bool cell = static_cast<size_t>(arg) < firstFree;
    if (inst.op == PyOp::STORE_DEREF) {
      if (!cell)
        unsupported(line, "nonlocal");
      ssa_->write("v:" + name, current_, pop(line));
      return;
    }
    if (cell) {
      stack_.push_back(ssa_->read("v:" + name, current_, line));
      return;
    }
    size_t free = static_cast<size_t>(arg) - firstFree;
    if (free < desc_.closure.size() && isFrozenTuple(desc_.closure[free])) {
      stack_.push_back(emitConst(desc_.closure[free].value, line));
      return;
    }
    Instruction *v = emit(Opcode::FreeVar, {}, line);
    v->index = arg - static_cast<int>(firstFree);
    v->name = name;
    stack_.push_back(v);
    return;
  }
  case PyOp::LOAD_ATTR: {
    Instruction *obj = pop(line);
    Instruction *attr = emit(Opcode::GetAttr, {obj}, line);
    attr->name = nameAt(desc_.names, arg, line);
    stack_.push_back(attr);
    return;
  }
  case PyOp::LOAD_METHOD: {
    Instruction *obj = pop(line);
    Instruction *attr = emit(Opcode::GetAttr, {obj}, line);
    attr->name = nameAt(desc_.names, arg, line);
    stack_.push_back(null_);
    stack_.push_back(attr);
    return;
  }
  case PyOp::CALL: {
    std::vector<Instruction *> args(arg);
    for (int i = arg - 1; i >= 0; --i)
      args[i] = pop(line);
    Instruction *callable = pop(line);
    Instruction *method = pop(line);
    if (method != null_) {
      args.insert(args.begin(), callable);
      callable = method;
    }
    args.insert(args.begin(), callable);
    Instruction *call = emit(Opcode::Call, args, line);
    // A NULL that went through a loop (3.12 inlines a comprehension that
    // is an argument, `len([...])`) is a phi until the trivial phis are
    // gone: run() looks again then.
    if (method->isa(Opcode::Phi))
      callsAfterPhis_.push_back(call);
    // What each cell holds at the call, for
    // rejectCapturesAssignedBeforeCalls.
    if (!desc_.cellvars.empty()) {
      std::vector<Instruction *> cells;
      for (const std::string &cell : desc_.cellvars)
        cells.push_back(ssa_->read("v:" + cell, current_, line));
      cellsAtCalls_.push_back({call, std::move(cells)});
    }
    if (pendingKeywords_) {
      for (size_t i = 0; i < keywords_.size(); ++i)
        call->name += (i ? "," : "") + keywords_[i];
      pendingKeywords_ = false;
    }
    stack_.push_back(call);
    return;
  }
  case PyOp::BINARY_OP: {
    if (arg < 0 || arg > 25)
      malformed(line, "unknown binary operator " + std::to_string(arg));
    // CPython's NB_* order, the in-place forms 13 later.
    static const ir::BinaryOperator ops[] = {
        ir::BinaryOperator::Add,    ir::BinaryOperator::BitAnd,
        ir::BinaryOperator::FloorDiv, ir::BinaryOperator::LShift,
        ir::BinaryOperator::MatMul, ir::BinaryOperator::Mul,
        ir::BinaryOperator::Mod,    ir::BinaryOperator::BitOr,
        ir::BinaryOperator::Pow,    ir::BinaryOperator::RShift,
        ir::BinaryOperator::Sub,    ir::BinaryOperator::TrueDiv,
        ir::BinaryOperator::BitXor};
    Instruction *rhs = pop(line);
    Instruction *lhs = pop(line);
    Instruction *op = emit(Opcode::BinaryOp, {lhs, rhs}, line);
    op->index = static_cast<int64_t>(ops[arg % 13]);
    if (arg >= 13) // `a += b`: on arrays it writes into a (numbers ignore it)
      op->name = "inplace";
    stack_.push_back(op);
    return;
  }
  case PyOp::UNARY_NEGATIVE:
  case PyOp::UNARY_POSITIVE:
  case PyOp::UNARY_NOT:
  case PyOp::UNARY_INVERT: {
    ir::UnaryOperator op = inst.op == PyOp::UNARY_NEGATIVE
                               ? ir::UnaryOperator::Neg
                           : inst.op == PyOp::UNARY_POSITIVE
                               ? ir::UnaryOperator::Pos
                           : inst.op == PyOp::UNARY_NOT
                               ? ir::UnaryOperator::Not
                               : ir::UnaryOperator::Invert;
    Instruction *u = emit(Opcode::UnaryOp, {pop(line)}, line);
    u->index = static_cast<int64_t>(op);
    stack_.push_back(u);
    return;
  }
  case PyOp::COMPARE_OP:
  case PyOp::IS_OP:
  case PyOp::CONTAINS_OP: {
    if (inst.op == PyOp::COMPARE_OP && (arg < 0 || arg > 5))
      malformed(line, "unknown comparison " + std::to_string(arg));
    Instruction *rhs = pop(line);
    Instruction *lhs = pop(line);
    Instruction *c = emit(Opcode::Compare, {lhs, rhs}, line);
    c->index = inst.op == PyOp::COMPARE_OP ? arg
               : inst.op == PyOp::IS_OP
                   ? static_cast<int64_t>(arg ? ir::CompareOperator::IsNot
                                              : ir::CompareOperator::Is)
                   : static_cast<int64_t>(arg ? ir::CompareOperator::NotIn
                                              : ir::CompareOperator::In);
    stack_.push_back(c);
    return;
  }
  case PyOp::GET_ITER:
    stack_.push_back(emit(Opcode::GetIter, {pop(line)}, line));
    return;
  case PyOp::FOR_ITER: {
    Instruction *iter = peek(1, line);
    Instruction *valid = emit(Opcode::IterValid, {iter}, line);
    stack_.push_back(emit(Opcode::IterNext, {iter}, line));
    size_t depth = stack_.size();
    // Body: the iterator and its value; exhausted: the iterator popped.
    endBlock(bytecodeBlock, {successorBlock(0), successorBlock(1)},
             {depth, depth - 2}, valid, line);
    return;
  }
  case PyOp::POP_JUMP_FORWARD_IF_FALSE:
  case PyOp::POP_JUMP_BACKWARD_IF_FALSE:
  case PyOp::POP_JUMP_FORWARD_IF_TRUE:
  case PyOp::POP_JUMP_BACKWARD_IF_TRUE:
  case PyOp::POP_JUMP_FORWARD_IF_NONE:
  case PyOp::POP_JUMP_BACKWARD_IF_NONE:
  case PyOp::POP_JUMP_FORWARD_IF_NOT_NONE:
  case PyOp::POP_JUMP_BACKWARD_IF_NOT_NONE: {
    Instruction *value = pop(line);
    Instruction *cond;
    bool jumpIfTrue;
    switch (inst.op) {
    case PyOp::POP_JUMP_FORWARD_IF_NONE:
    case PyOp::POP_JUMP_BACKWARD_IF_NONE:
    case PyOp::POP_JUMP_FORWARD_IF_NOT_NONE:
    case PyOp::POP_JUMP_BACKWARD_IF_NOT_NONE: {
      Instruction *none = emitConst(ConstValue::none(), line);
      cond = emit(Opcode::Compare, {value, none}, line);
      cond->index = static_cast<int64_t>(ir::CompareOperator::Is);
      jumpIfTrue = inst.op == PyOp::POP_JUMP_FORWARD_IF_NONE ||
                   inst.op == PyOp::POP_JUMP_BACKWARD_IF_NONE;
      break;
    }
    default:
      cond = emit(Opcode::Truth, {value}, line);
      jumpIfTrue = inst.op == PyOp::POP_JUMP_FORWARD_IF_TRUE ||
                   inst.op == PyOp::POP_JUMP_BACKWARD_IF_TRUE;
    }
    size_t depth = stack_.size();
    // successors: 0 = fall-through, 1 = jump target
    std::vector<Block *> targets =
        jumpIfTrue ? std::vector<Block *>{successorBlock(1), successorBlock(0)}
                   : std::vector<Block *>{successorBlock(0), successorBlock(1)};
    endBlock(bytecodeBlock, targets, {depth, depth}, cond, line);
    return;
  }
  case PyOp::JUMP_IF_FALSE_OR_POP:
  case PyOp::JUMP_IF_TRUE_OR_POP: {
    Instruction *cond = emit(Opcode::Truth, {peek(1, line)}, line);
    size_t depth = stack_.size();
    bool jumpIfTrue = inst.op == PyOp::JUMP_IF_TRUE_OR_POP;
    std::vector<Block *> targets =
        jumpIfTrue ? std::vector<Block *>{successorBlock(1), successorBlock(0)}
                   : std::vector<Block *>{successorBlock(0), successorBlock(1)};
    // The jump keeps the value, the fall-through pops it.
    endBlock(bytecodeBlock, targets, {depth - 1, depth}, cond, line);
    return;
  }
  case PyOp::JUMP_FORWARD:
  case PyOp::JUMP_BACKWARD:
  case PyOp::JUMP_BACKWARD_NO_INTERRUPT:
    endBlock(bytecodeBlock, {successorBlock(0)}, {stack_.size()}, nullptr,
             line);
    return;
  case PyOp::RETURN_VALUE: {
    emit(Opcode::Return, {pop(line)}, line);
    terminated_ = true;
    return;
  }
  case PyOp::LOAD_ASSERTION_ERROR: {
    // `assert c, "message"`: the raise becomes an `assert` of the message,
    // then a return marked "assert": the lowering reports it in debug mode
    // and otherwise never takes the branch into it (asserts compile to
    // nothing, as under `python -O`). Until the raise, a placeholder
    // stands on the stack, and the CALL of a message calls it.
    Instruction *error = emit(Opcode::Global, {}, line);
    error->name = "AssertionError";
    assertionErrors_.insert(error);
    stack_.push_back(error);
    return;
  }
  case PyOp::RAISE_VARARGS: {
    Instruction *raised = arg == 1 ? pop(line) : nullptr;
    Instruction *error =
        raised && raised->opcode == Opcode::Call ? raised->operands[0] : raised;
    if (!error || !assertionErrors_.count(error) ||
        (raised != error && raised->operands.size() > 2))
      unsupported(line, "raise");
    std::vector<Instruction *> message;
    if (raised != error) {
      message.assign(raised->operands.begin() + 1, raised->operands.end());
      function_->erase(raised);
    }
    assertionErrors_.erase(error);
    function_->erase(error);
    emit(Opcode::Assert, message, line);
    Instruction *ret = emit(Opcode::Return, {emitConst(ConstValue::none(), line)},
                            line);
    ret->name = "assert";
    terminated_ = true;
    return;
  }
  case PyOp::RETURN_CONST: {
    if (arg >= static_cast<int>(desc_.consts.size()))
      malformed(line, "constant index out of range");
    emit(Opcode::Return, {emitConst(desc_.consts[arg], line)}, line);
    terminated_ = true;
    return;
  }
  default:
    unsupported(line, std::string("bytecode ") + pyOpName(inst.op));
  }
}

/// MAKE_FUNCTION: the code object on the stack, under it the tuple of the
/// closure's cells (flag 0x08) when the function has free variables. It
/// becomes a `function` instruction, whose operands are the values the
/// cells hold now.
Instruction *Builder::makeFunction(int flags, int line) {
  Instruction *code = pop(line);
  if (!code->isa(Opcode::Const) || code->constant.kind != ConstValue::Kind::Code)
    malformed(line, "MAKE_FUNCTION without a code object");
  std::string name = code->constant.text;
  // A 3.11 list comprehension is a nested function called at once with
  // its iterator, inlined as a lambda is.
  if (name != "<lambda>" && name != "<listcomp>" && name.front() == '<')
    unsupported(line, nestedCodeConstruct(name));
  const char *what = name == "<lambda>" ? "lambda" : "nested function";
  // CPython's flags, popped in this order: 0x08 the closure, 0x04
  // annotations, 0x02 keyword-only defaults, 0x01 defaults (a tuple).
  auto tupleItems = [&](const char *what) {
    Instruction *tuple = pop(line);
    if (!tuple->isa(Opcode::BuildTuple))
      malformed(line, std::string("MAKE_FUNCTION without a tuple of ") + what);
    std::vector<Instruction *> items = tuple->operands;
    function_->erase(tuple);
    return items;
  };
  std::vector<Instruction *> operands, defaults;
  if (flags & 0x08)
    operands = tupleItems("cells");
  if (flags & 0x04)
    unsupported(line, std::string("annotations of a ") + what);
  if (flags & 0x02) // rejectGeneratorsAndComprehensions has refused it
    malformed(line, "keyword-only defaults of a nested function");
  if (flags & 0x01)
    defaults = tupleItems("defaults");
  operands.insert(operands.end(), defaults.begin(), defaults.end());
  std::string key = "code" + std::to_string(code->index);
  function_->erase(code);
  Instruction *function = emit(Opcode::MakeFunction, operands, line);
  function->name = key;
  function->index = static_cast<int64_t>(defaults.size());
  return function;
}

/// The text of a string known at compile time: a literal, or a global or
/// closure value that was a string when the function was described.
const std::string *Builder::constantString(const Instruction *value) const {
  if (value->opcode == Opcode::Const)
    return value->constant.kind == ConstValue::Kind::Str ? &value->constant.text
                                                         : nullptr;
  const GlobalValue *frozen = nullptr;
  if (value->opcode == Opcode::FreeVar && value->index >= 0 &&
      static_cast<size_t>(value->index) < desc_.closure.size())
    frozen = &desc_.closure[value->index];
  if (value->opcode == Opcode::Global)
    if (auto it = desc_.globals.find(value->name); it != desc_.globals.end())
      frozen = &it->second;
  if (frozen && frozen->kind == GlobalValue::Kind::Unknown &&
      frozen->value.kind == ConstValue::Kind::Str)
    return &frozen->value.text;
  return nullptr;
}

/// `getattr(obj, "name")` with a constant name is `obj.name` (numba-dpex
/// code names atomic methods this way, from a closure string): the call
/// becomes a GetAttr, so typing sees no string and no getattr.
void Builder::foldConstantGetattr() {
  auto builtinGetattr = [&](const Instruction *callee) {
    if (callee->opcode != Opcode::Global || callee->name != "getattr")
      return false;
    auto it = desc_.globals.find("getattr");
    return it != desc_.globals.end() &&
           it->second.kind == GlobalValue::Kind::Builtin &&
           it->second.name == "getattr";
  };
  for (auto &block : function_->blocks)
    for (auto &inst : block->instructions) {
      if (inst->opcode != Opcode::Call || !builtinGetattr(inst->operands[0]))
        continue;
      if (inst->operands.size() != 3 || !inst->name.empty())
        throw UserError(UserErrorKind::UnsupportedFeature, desc_.filename,
                        inst->line,
                        "getattr in a kernel takes an object and a constant "
                        "attribute name, and no default");
      const Instruction *name = inst->operands[2];
      const std::string *text = constantString(name);
      if (!text)
        throw UserError(UserErrorKind::UnsupportedFeature, desc_.filename,
                        inst->line,
                        "getattr's attribute name must be a constant string "
                        "(a literal, or a global or closure string, frozen "
                        "at compile time)");
      if (name->opcode == Opcode::Const)
        getattrNames_.insert(name);
      inst->opcode = Opcode::GetAttr;
      inst->name = *text;
      inst->operands = {inst->operands[1]};
    }
}

namespace {

/// For each kernel-API function with an `op` parameter (group_reduce, the
/// group and sub-group scans: KernelAPI.def), the operand index a string
/// naming the operation ("+", "min") takes in its call.
const std::map<std::string, size_t> &opOperands() {
  static const std::map<std::string, size_t> operands = [] {
    std::map<std::string, size_t> m;
    auto add = [&](const char *name, const std::string &parameters) {
      size_t index = 0, start = 0;
      while (start <= parameters.size()) {
        size_t end = parameters.find(',', start);
        if (end == std::string::npos)
          end = parameters.size();
        if (parameters.substr(start, end - start) == "op")
          m[name] = index + 1; // operand 0 is the callee
        ++index;
        start = end + 1;
      }
    };
#define KERNEL_API(id, receiver, name, parameters, required, result)           \
  add(name, parameters);
#include "compiler/KernelAPI.def"
#undef KERNEL_API
    return m;
  }();
  return operands;
}

} // namespace

void Builder::checkStrings() {
  for (Instruction *text : strings_) {
    bool allowed = true, used = false;
    for (auto &block : function_->blocks)
      for (auto &inst : block->instructions)
        for (size_t i = 0; i < inst->operands.size(); ++i) {
          if (inst->operands[i] != text)
            continue;
          used = true;
          // The op of group_reduce(group, value, op) and the scans;
          // any argument of print and an assert's message.
          const Instruction *callee =
              inst->opcode == Opcode::Call ? inst->operands[0] : nullptr;
          auto op = callee && (callee->opcode == Opcode::GetAttr ||
                               callee->opcode == Opcode::Global)
                        ? opOperands().find(callee->name)
                        : opOperands().end();
          bool reduce = op != opOperands().end();
          bool printed = (callee && i > 0 && callee->opcode == Opcode::Global &&
                          callee->name == "print") ||
                         inst->opcode == Opcode::Assert;
          // A keyword argument of a call (usm_type="shared",
          // device="opencl:cpu:0"): type inference says where it may be.
          size_t keywords =
              callee && !inst->name.empty()
                  ? 1 + std::count(inst->name.begin(), inst->name.end(), ',')
                  : 0;
          bool keyword = keywords && i + keywords >= inst->operands.size();
          // The message of the jit library's fail(message, got, expected)
          // (python/spirjit/_jit_library.py; the inliner makes it a check).
          bool failure = callee && i == 1 && callee->opcode == Opcode::Global &&
                         callee->name == "fail";
          if (!printed && !keyword && !failure &&
              (!reduce || i != op->second))
            allowed = false;
        }
    if ((!used && !getattrNames_.count(text)) || !allowed)
      unsupported(text->line, "str");
  }
}

std::unique_ptr<ir::Function> Builder::run() {
  function_ = std::make_unique<ir::Function>();
  function_->name = desc_.qualifiedName.empty() ? desc_.name
                                                : desc_.qualifiedName;
  function_->filename = desc_.filename;
  function_->firstLine = desc_.firstLine;
  if (desc_.argCount > static_cast<int>(desc_.varnames.size()))
    malformed(desc_.firstLine, "more parameters than local names");

  Block *entry = function_->addBlock();
  current_ = entry;
  null_ = emitConst(ConstValue::none(), desc_.firstLine);
  undef_ = emit(Opcode::Undef, {}, desc_.firstLine);
  ssa_ = std::make_unique<SSABuilder>(*function_, undef_);
  for (int i = 0; i < desc_.argCount; ++i) {
    // A function passed as the argument: a constant of this specialisation
    // (numba's dispatcher type), described as a global of its own.
    std::string constant = "<argument " + desc_.varnames[i] + ">";
    if (desc_.globals.count(constant)) {
      Instruction *g = emit(Opcode::Global, {}, desc_.firstLine);
      g->name = constant;
      ssa_->write("v:" + desc_.varnames[i], entry, g);
      function_->parameterNames.push_back(desc_.varnames[i]);
      continue;
    }
    Instruction *a = emit(Opcode::Arg, {}, desc_.firstLine);
    a->index = i;
    a->name = desc_.varnames[i];
    function_->parameterNames.push_back(a->name);
    ssa_->write("v:" + a->name, entry, a);
  }

  for (size_t b = 0; b < cfg_.blocks.size(); ++b)
    blocks_.push_back(function_->addBlock());
  for (size_t b = 0; b < cfg_.blocks.size(); ++b)
    for (int pred : cfg_.blocks[b].predecessors)
      blocks_[b]->predecessors.push_back(blocks_[pred]);
  blocks_[0]->predecessors.insert(blocks_[0]->predecessors.begin(), entry);
  Instruction *jump = emit(Opcode::Branch, {}, desc_.firstLine);
  jump->targets = {blocks_[0]};
  ssa_->seal(entry);

  entryDepth_.assign(cfg_.blocks.size(), -1);
  entryDepth_[0] = 0;
  filled_.assign(cfg_.blocks.size(), 0);
  auto trySeal = [&](int b) {
    if (ssa_->isSealed(blocks_[b]))
      return;
    for (int pred : cfg_.blocks[b].predecessors)
      if (!filled_[pred])
        return;
    ssa_->seal(blocks_[b]);
  };

  for (int b : cfg_.reversePostOrder()) {
    const BytecodeBlock &block = cfg_.blocks[b];
    trySeal(b);
    current_ = blocks_[b];
    terminated_ = false;
    int line = cfg_.code[block.begin].line;
    SPIRJIT_INTERNAL_CHECK(entryDepth_[b] >= 0,
                           "block reached before any predecessor");
    stack_.clear();
    for (int slot = 0; slot < entryDepth_[b]; ++slot)
      stack_.push_back(ssa_->read(slotName(slot), current_, line));
    for (int i = block.begin; i < block.end; ++i) {
      if (terminated_)
        malformed(cfg_.code[i].line, "instruction after a block terminator");
      translate(cfg_.code[i], b);
    }
    if (!terminated_) // the next instruction starts a new block
      endBlock(b, {blocks_[block.successors.at(0)]}, {stack_.size()}, nullptr,
               cfg_.code[block.end - 1].line);
    filled_[b] = 1;
    for (int succ : block.successors)
      trySeal(succ);
  }

  ssa_->resolveAll();
  for (auto &[call, cells] : cellsAtCalls_)
    for (Instruction *&cell : cells)
      cell = ssa_->resolve(cell);
  // Resolving can leave phis whose operands have become one value: remove
  // them, a round at a time, each round one walk of the function: a phi
  // found trivial maps to its value, later phis of the round read through
  // that map, and one rewrite of every operand ends the round.
  for (bool changed = true; changed;) {
    changed = false;
    std::unordered_map<Instruction *, Instruction *> replacement;
    auto current = [&](Instruction *value) {
      for (auto it = replacement.find(value); it != replacement.end();
           it = replacement.find(value))
        value = it->second;
      return value;
    };
    std::vector<Instruction *> removed;
    for (auto &blk : function_->blocks)
      for (auto &inst : blk->instructions) {
        if (inst->opcode != Opcode::Phi)
          continue;
        for (Instruction *&operand : inst->operands)
          operand = current(operand);
        Instruction *same;
        if (!isTrivialPhi(inst.get(), &same) || !same)
          continue;
        replacement[inst.get()] = same;
        removed.push_back(inst.get());
      }
    if (removed.empty())
      break;
    for (auto &blk : function_->blocks)
      for (auto &inst : blk->instructions)
        for (Instruction *&operand : inst->operands)
          operand = current(operand);
    for (auto &[call, cells] : cellsAtCalls_)
      for (Instruction *&cell : cells)
        cell = current(cell);
    for (Instruction *inst : removed)
      function_->erase(inst);
    changed = true;
  }
  for (Instruction *call : callsAfterPhis_)
    if (call->operands[0] == null_) // callable(args), not a method call
      call->operands.erase(call->operands.begin());
  // After the trivial phis are gone, so a string held in a local across a
  // loop is seen as the constant it is.
  foldConstantGetattr();
  orderNamedTupleArguments();
  checkStrings();
  rejectCapturesAssignedBeforeCalls(desc_, cellsAtCalls_);
  cellsAtCalls_.clear(); // what only they read goes below
  checkLists();
  // Unused values that have no effect are dropped (the NULL marker, stack
  // copies, constants of folded branches).
  for (bool changed = true; changed;) {
    changed = false;
    std::set<Instruction *> used;
    for (auto &blk : function_->blocks)
      for (auto &inst : blk->instructions)
        for (Instruction *operand : inst->operands)
          used.insert(operand);
    for (auto &blk : function_->blocks) {
      std::vector<Instruction *> dead;
      for (auto &inst : blk->instructions) {
        Opcode op = inst->opcode;
        // `a += b` writes into an array a (the types are not known yet). A
        // slice stays even unused: type inference refuses it in a kernel.
        bool hasEffect = ir::isTerminator(op) || op == Opcode::SetItem ||
                         op == Opcode::Call || op == Opcode::IterNext ||
                         op == Opcode::Arg || op == Opcode::Assert ||
                         op == Opcode::Slice ||
                         // A kernel's lambda is refused by type inference
                         // at its line; the jit inliner drops unused ones.
                         op == Opcode::MakeFunction ||
                         (op == Opcode::BinaryOp && inst->name == "inplace");
        if (!hasEffect && !used.count(inst.get()))
          dead.push_back(inst.get());
      }
      for (Instruction *inst : dead)
        function_->erase(inst);
      changed |= !dead.empty();
    }
  }

  splitOptionals(*function_);
  std::string problems = ir::verify(*function_);
  SPIRJIT_INTERNAL_CHECK(problems.empty(),
                         "pyir of " + function_->name + " is malformed:\n" +
                             problems + ir::print(*function_));
  return std::move(function_);
}

} // namespace pyir_builder

std::unique_ptr<ir::Function> buildPyIR(const FunctionDescription &function,
                                        const ControlFlowGraph &cfg) {
  rejectGeneratorsAndComprehensions(function, cfg.code);
  // 3.12 guards an inlined comprehension with a handler that restores its
  // variable and reraises (PEP 709): no path of ours reaches it, so such a
  // table alone is no `try`.
  bool onlyComprehensions =
      std::any_of(cfg.code.begin(), cfg.code.end(),
                  [](const BytecodeInstruction &inst) {
                    return inst.op == PyOp::LOAD_FAST_AND_CLEAR;
                  }) &&
      std::none_of(cfg.code.begin(), cfg.code.end(),
                   [](const BytecodeInstruction &inst) {
                     return inst.op == PyOp::PUSH_EXC_INFO ||
                            inst.op == PyOp::BEFORE_WITH;
                   });
  if (function.hasExceptionTable && !onlyComprehensions) {
    // `with` shows itself by its opcode; any other exception table is a try.
    for (const BytecodeInstruction &inst : cfg.code)
      if (inst.op == PyOp::BEFORE_WITH)
        throw unsupportedConstruct(function.filename, inst.line, "with");
    int line = function.firstLine;
    for (const BytecodeInstruction &inst : cfg.code)
      if (inst.op == PyOp::NOP && inst.line > function.firstLine) {
        line = inst.line; // 3.11 marks the `try:` line with a NOP
        break;
      }
    throw unsupportedConstruct(function.filename, line, "try");
  }
  // A raise is seen first through what it uses (it builds its message
  // string): name the construct itself, at its own line. An assert's
  // raise follows its LOAD_ASSERTION_ERROR.
  bool inAssert = false;
  for (const BytecodeInstruction &inst : cfg.code) {
    const char *what = nullptr;
    if (inst.op == PyOp::LOAD_ASSERTION_ERROR)
      inAssert = true;
    else if (inst.op == PyOp::RAISE_VARARGS && !inAssert)
      what = "raise";
    if (inst.op == PyOp::RAISE_VARARGS)
      inAssert = false;
    if (what)
      throw unsupportedConstruct(function.filename, inst.line, what,
                                 /*planned=*/true);
  }
  // Before SSA construction, which would turn such a read into undef.
  checkDefiniteAssignment(function, cfg);
  std::unique_ptr<ir::Function> built =
      pyir_builder::Builder(function, cfg).run();
  orderDeviceFunctionCalls(*built, function);
  return built;
}

} // namespace spirjit
