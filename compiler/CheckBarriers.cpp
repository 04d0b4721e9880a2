// Divergent barriers (CheckBarriers.h states the contract).
#include "compiler/CheckBarriers.h"

#include "compiler/KernelAPI.h"
#include "frontend/Diagnostics.h"

#include <functional>
#include <set>

namespace spirjit {

using ir::Block;
using ir::Instruction;
using ir::Opcode;

namespace {

const KernelApiFunction *apiOf(const Instruction *inst) {
  if (!inst->isa(Opcode::Call) || !inst->operands[0]->type)
    return nullptr;
  return findKernelApi(inst->operands[0]->type);
}

bool isIdQuery(const Instruction *inst) {
  const KernelApiFunction *api = apiOf(inst);
  if (!api)
    return false;
  switch (api->id) {
  case KernelApi::ItemGetId:
  case KernelApi::ItemGetLinearId:
  case KernelApi::NdItemGetGlobalId:
  case KernelApi::NdItemGetLocalId:
  case KernelApi::NdItemGetGlobalLinearId:
  case KernelApi::NdItemGetLocalLinearId:
    return true;
  default:
    return false;
  }
}

bool isCollective(const Instruction *inst) {
  const KernelApiFunction *api = apiOf(inst);
  if (!api)
    return false;
  return api->id == KernelApi::GroupBarrier ||
         api->id == KernelApi::GroupReduce ||
         api->id == KernelApi::GroupBroadcast || isGroupAlgorithm(api->id);
}

std::set<const Block *> reachable(const Block *from) {
  std::set<const Block *> seen;
  std::function<void(const Block *)> visit = [&](const Block *b) {
    if (!seen.insert(b).second)
      return;
    for (const Block *s : b->successors())
      visit(s);
  };
  visit(from);
  return seen;
}

/// The first return among `blocks`, in the function's order.
const Instruction *firstReturn(const ir::Function &fn,
                               const std::set<const Block *> &blocks) {
  for (const auto &block : fn.blocks)
    if (blocks.count(block.get()))
      if (const Instruction *end = block->terminator())
        if (end->isa(Opcode::Return))
          return end;
  return nullptr;
}

} // namespace

bool hasCollectives(const TypedFunction &function) {
  for (const auto &block : function.function->blocks)
    for (const auto &inst : block->instructions)
      if (isCollective(inst.get()))
        return true;
  return false;
}

void checkBarriers(const TypedFunction &kernel) {
  const ir::Function &fn = *kernel.function;
  if (!hasCollectives(kernel))
    return;

  // The values that vary across a group: a fixed point over operands.
  std::set<const Instruction *> varying;
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto &block : fn.blocks)
      for (const auto &inst : block->instructions) {
        if (varying.count(inst.get()))
          continue;
        bool v = isIdQuery(inst.get());
        for (const Instruction *o : inst->operands)
          v |= varying.count(o) > 0;
        if (v) {
          varying.insert(inst.get());
          changed = true;
        }
      }
  }

  for (const auto &block : fn.blocks) {
    const Instruction *br = block->terminator();
    if (!br || !br->isa(Opcode::CondBranch) || !varying.count(br->operands[0]))
      continue;
    std::set<const Block *> yes = reachable(br->targets[0]);
    std::set<const Block *> no = reachable(br->targets[1]);
    bool meet = false;
    for (const Block *b : yes)
      meet |= no.count(b) > 0;
    for (const auto &other : fn.blocks) {
      if (yes.count(other.get()) == no.count(other.get()))
        continue; // both sides reach it (after they meet), or neither
      for (const auto &inst : other->instructions) {
        if (!isCollective(inst.get()))
          continue;
        std::string name = "'" + apiOf(inst.get())->name + "'";
        const std::set<const Block *> &without =
            yes.count(other.get()) ? no : yes;
        const Instruction *exit = meet ? nullptr : firstReturn(fn, without);
        // The end of the kernel (Python's implicit return, at the branch's
        // own line) is no `return` of the user's: the other message.
        if (exit && exit->line <= br->line)
          exit = nullptr;
        throw UserError(
            UserErrorKind::Compile, kernel.description->filename, inst->line,
            exit ? name + " is not reached by the work-items that return at "
                          "line " + std::to_string(exit->line) +
                       ", on one side of the branch at line " +
                       std::to_string(br->line) +
                       ", which depends on the work-item's id: every "
                       "work-item of a group must reach it, or the group "
                       "deadlocks; return after it instead"
                 : name + " runs only in the work-items that take one side "
                          "of the branch at line " +
                       std::to_string(br->line) +
                       ", which depends on the work-item's id: every "
                       "work-item of a group must reach it, or the group "
                       "deadlocks; move it out of the branch");
      }
    }
  }
}

} // namespace spirjit
