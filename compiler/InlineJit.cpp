// Inlining jit functions into their jit callers (InlineJit.h states the
// contract).
#include "compiler/InlineJit.h"

#include "frontend/BuildPyIR.h"
#include "frontend/Bytecode.h"
#include "frontend/CloneFunction.h"
#include "frontend/ControlFlowGraph.h"
#include "frontend/Diagnostics.h"

#include <algorithm>

namespace spirjit {

using ir::Block;
using ir::Instruction;
using ir::Opcode;

namespace {

const int kMaxInlined = 100;

/// The jit function `callee` names, or nullptr.
const FunctionDescription *jitCallee(const Instruction *callee,
                                     const FunctionDescription &description) {
  const GlobalValue *value = nullptr;
  if (callee->isa(Opcode::Global)) {
    auto it = description.globals.find(callee->name);
    if (it != description.globals.end())
      value = &it->second;
  } else if (callee->isa(Opcode::FreeVar) && callee->index >= 0 &&
             callee->index < static_cast<int64_t>(description.closure.size())) {
    value = &description.closure[callee->index];
  }
  if (!value || value->kind != GlobalValue::Kind::DeviceFunction)
    return nullptr;
  auto it = description.deviceFunctions.find(value->name);
  if (it == description.deviceFunctions.end() || !it->second ||
      !it->second->jitFunction)
    return nullptr;
  return it->second.get();
}

/// Puts `call`'s callee in its place.
void inlineCall(ir::Function &fn, FunctionDescription &description,
                Instruction *call, const FunctionDescription &callee,
                int serial) {
  int line = call->line;
  if (!call->name.empty())
    throw UserError(UserErrorKind::UnsupportedFeature, description.filename,
                    line,
                    "pass the arguments of jit function '" + callee.name +
                        "' by position when another jit function calls it");
  size_t given = call->operands.size() - 1;
  if (given != static_cast<size_t>(callee.argCount))
    throw UserError(UserErrorKind::Typing, description.filename, line,
                    "'" + callee.name + "' takes " +
                        std::to_string(callee.argCount) +
                        " arguments but was given " + std::to_string(given));
  std::unique_ptr<ir::Function> body = buildPyIR(
      callee, buildControlFlowGraph(decodeBytecode(callee)));

  // Split the caller's block after the call.
  Block *before = call->parent;
  Block *after = fn.addBlock();
  auto &list = before->instructions;
  auto at = std::find_if(list.begin(), list.end(),
                         [&](const auto &i) { return i.get() == call; });
  for (auto it = std::next(at); it != list.end(); ++it) {
    (*it)->parent = after;
    after->instructions.push_back(std::move(*it));
  }
  list.erase(std::next(at), list.end());
  for (Block *successor : after->successors())
    for (Block *&pred : successor->predecessors)
      if (pred == before)
        pred = after;

  // The callee's blocks, its names renamed into the caller's description.
  std::vector<Block *> blocks;
  for (const auto &block : body->blocks)
    blocks.push_back(block.get());
  ir::ValueMap map;
  std::vector<Block *> copies = ir::cloneBlocks(blocks, fn, map);
  std::string prefix = "__jit" + std::to_string(serial) + "_";
  std::vector<Instruction *> parameters;
  std::vector<std::pair<Block *, Instruction *>> returns;
  for (Block *block : copies)
    for (const auto &inst : block->instructions) {
      Instruction *i = inst.get();
      if (i->isa(Opcode::Arg)) {
        parameters.push_back(i);
      } else if (i->isa(Opcode::Global)) {
        auto g = callee.globals.find(i->name);
        SPIRJIT_INTERNAL_CHECK(g != callee.globals.end(),
                               "an inlined global that does not resolve");
        description.globals[prefix + i->name] = g->second;
        i->name = prefix + i->name;
      } else if (i->isa(Opcode::FreeVar)) {
        std::string name = prefix + "closure" + std::to_string(i->index);
        description.globals[name] = callee.closure.at(i->index);
        i->opcode = Opcode::Global;
        i->name = name;
        i->index = 0;
      } else if (i->isa(Opcode::Return) && i->name.empty()) {
        returns.push_back({block, i});
      }
    }
  for (Instruction *p : parameters) {
    fn.replaceAllUsesWith(p, call->operands[p->index + 1]);
    fn.erase(p);
  }
  if (returns.empty())
    throw UserError(UserErrorKind::UnsupportedFeature, description.filename,
                    line,
                    "jit function '" + callee.name + "' never returns");
  for (auto &[block, ret] : returns) {
    Instruction *value = ret->operands[0];
    fn.erase(ret);
    fn.create(block, Opcode::Branch, {}, line)->targets = {after};
    after->predecessors.push_back(block);
    ret = value;
  }
  Instruction *result = returns[0].second;
  if (returns.size() > 1) {
    std::vector<Instruction *> values;
    for (auto &r : returns)
      values.push_back(r.second);
    result = fn.create(after, Opcode::Phi, values, line);
  }
  fn.replaceAllUsesWith(call, result);
  fn.erase(call);
  fn.create(before, Opcode::Branch, {}, line)->targets = {copies[0]};
  copies[0]->predecessors = {before};

  // Keep the blocks in order: the callee's right after the call's block,
  // then the code after the call.
  auto &all = fn.blocks;
  std::vector<std::unique_ptr<Block>> moved;
  auto isNew = [&](const std::unique_ptr<Block> &b) {
    return b.get() == after ||
           std::find(copies.begin(), copies.end(), b.get()) != copies.end();
  };
  for (auto &b : all)
    if (isNew(b))
      moved.push_back(std::move(b));
  all.erase(std::remove(all.begin(), all.end(), nullptr), all.end());
  std::stable_partition(moved.begin(), moved.end(),
                        [&](const auto &b) { return b.get() != after; });
  auto position = std::find_if(all.begin(), all.end(),
                               [&](const auto &b) { return b.get() == before; });
  all.insert(std::next(position), std::make_move_iterator(moved.begin()),
             std::make_move_iterator(moved.end()));
}

} // namespace

bool callsJitFunctions(const FunctionDescription &description) {
  for (const auto &[key, callee] : description.deviceFunctions)
    if (callee && callee->jitFunction)
      return true;
  return false;
}

void inlineJitCalls(ir::Function &fn, FunctionDescription &description) {
  for (int serial = 0;; ++serial) {
    Instruction *call = nullptr;
    const FunctionDescription *callee = nullptr;
    for (const auto &block : fn.blocks) {
      for (const auto &inst : block->instructions)
        if (inst->isa(Opcode::Call) &&
            (callee = jitCallee(inst->operands[0], description))) {
          call = inst.get();
          break;
        }
      if (call)
        break;
    }
    if (!call)
      break;
    if (serial == kMaxInlined)
      throw UserError(UserErrorKind::UnsupportedFeature, description.filename,
                      call->line,
                      "jit functions call each other more than " +
                          std::to_string(kMaxInlined) +
                          " times deep here; recursion is not supported in "
                          "jit functions");
    inlineCall(fn, description, call, *callee, serial);
  }
  std::string problems = ir::verify(fn);
  SPIRJIT_INTERNAL_CHECK(problems.empty(),
                         "inlining jit functions broke the function: " +
                             problems);
}

} // namespace spirjit
