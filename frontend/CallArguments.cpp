// Calls' arguments in positional order (CallArguments.h states the
// contract).
#include "frontend/CallArguments.h"

#include "frontend/Diagnostics.h"

#include <algorithm>

namespace spirjit {

using ir::Instruction;
using ir::Opcode;

/// Puts keyword arguments at their parameters' places, and `defaults`
/// (a lambda's or nested def's values of its last parameters, or a
/// function's frozenDefaults) where no argument is given.
void orderArguments(Instruction *call, const FunctionDescription &callee,
                    const FunctionDescription &d,
                    const std::vector<Instruction *> &defaults) {
  size_t count = static_cast<size_t>(callee.argCount);
  if (call->name.empty() &&
      (defaults.empty() || call->operands.size() - 1 >= count))
    return;
  std::vector<std::string> keywords = ir::callKeywords(*call);
  size_t positional = call->operands.size() - 1 - keywords.size();
  std::vector<Instruction *> ordered(count, nullptr);
  for (size_t i = 0; i < positional && i < count; ++i)
    ordered[i] = call->operands[1 + i];
  for (size_t k = 0; k < keywords.size(); ++k) {
    auto at = std::find(callee.varnames.begin(),
                        callee.varnames.begin() +
                            std::min(count, callee.varnames.size()),
                        keywords[k]);
    size_t i = static_cast<size_t>(at - callee.varnames.begin());
    if (i >= count || ordered[i])
      throw UserError(UserErrorKind::Typing, d.filename, call->line,
                      "'" + callee.name + "' got " +
                          (i >= count ? "an unexpected" : "a second") +
                          " value for argument '" + keywords[k] + "'");
    ordered[i] = call->operands[1 + positional + k];
  }
  size_t firstDefault = count - std::min(count, defaults.size());
  for (size_t i = firstDefault; i < count; ++i)
    if (!ordered[i])
      ordered[i] = defaults[i - firstDefault];
  call->operands.resize(1);
  for (Instruction *argument : ordered)
    if (argument)
      call->operands.push_back(argument);
  call->name.clear();
}

/// A jit or device function's Python defaults as constants placed just
/// before `call` (numbers, booleans and None, frozen as globals are).
std::vector<Instruction *> frozenDefaults(ir::Function &fn, Instruction *call,
                                          const FunctionDescription &callee,
                                          const FunctionDescription &d) {
  std::vector<Instruction *> made;
  auto &list = call->parent->instructions;
  for (const ConstValue &value : callee.defaults) {
    using Kind = ConstValue::Kind;
    if (value.kind != Kind::None && value.kind != Kind::Bool &&
        value.kind != Kind::Int && value.kind != Kind::Float &&
        value.kind != Kind::Complex)
      throw UserError(UserErrorKind::UnsupportedFeature, d.filename,
                      call->line,
                      "a default of '" + callee.name +
                          "' that is not a number: compiled calls take numbers, "
                          "booleans and None as defaults; pass it");
    Instruction *constant =
        fn.create(call->parent, Opcode::Const, {}, call->line);
    constant->constant = value;
    // create() appended it: move it before the call.
    auto at = std::find_if(list.begin(), list.end(),
                           [&](const auto &i) { return i.get() == call; });
    std::rotate(at, std::prev(list.end()), list.end());
    made.push_back(constant);
  }
  return made;
}

const GlobalValue *valueOf(const Instruction *v, const FunctionDescription &d) {
  if (v->isa(Opcode::Global)) {
    auto it = d.globals.find(v->name);
    return it != d.globals.end() ? &it->second : nullptr;
  }
  if (v->isa(Opcode::FreeVar) && v->index >= 0 &&
      v->index < static_cast<int64_t>(d.closure.size()))
    return &d.closure[v->index];
  return nullptr;
}

void orderDeviceFunctionCalls(ir::Function &fn, const FunctionDescription &d) {
  std::vector<Instruction *> calls;
  for (auto &block : fn.blocks)
    for (auto &inst : block->instructions)
      if (inst->isa(Opcode::Call) && !inst->operands.empty())
        calls.push_back(inst.get());
  for (Instruction *call : calls) {
    const GlobalValue *value = valueOf(call->operands[0], d);
    if (!value || value->kind != GlobalValue::Kind::DeviceFunction)
      continue;
    auto found = d.deviceFunctions.find(value->name);
    if (found == d.deviceFunctions.end() || !found->second ||
        found->second->jitFunction) // jit callees: InlineJit.h's
      continue;
    const FunctionDescription &target = *found->second;
    size_t count = static_cast<size_t>(target.argCount);
    size_t given = call->operands.size() - 1;
    // Too many arguments by position: typing's error, which lists a
    // device function's signatures.
    if (call->name.empty() &&
        (given >= count ||
         (target.defaults.empty() && !target.signatures.empty())))
      continue;
    std::vector<Instruction *> defaults;
    if (!target.defaults.empty() &&
        given - ir::callKeywords(*call).size() < count)
      defaults = frozenDefaults(fn, call, target, d);
    orderArguments(call, target, d, defaults);
    given = call->operands.size() - 1;
    if (given != count)
      throw UserError(UserErrorKind::Typing, d.filename, call->line,
                      "'" + target.name + "' takes " + std::to_string(count) +
                          " arguments but was given " +
                          std::to_string(given));
  }
}

} // namespace spirjit
