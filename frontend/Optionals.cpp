// Optional values as a flag and a value (Optionals.h states the contract).
#include "frontend/Optionals.h"

#include "frontend/Dominators.h"

#include <algorithm>
#include <map>
#include <set>

namespace spirjit {
namespace {

using ir::Block;
using ir::Instruction;
using ir::Opcode;

bool isNoneConstant(const Instruction *v) {
  return v->isa(Opcode::Const) && v->constant.kind == ConstValue::Kind::None;
}

/// What the values a phi merges are, through the phis among them.
struct Reaches {
  bool none = false, value = false;
};

/// A constant or undef at the end of the entry block, before its jump.
Instruction *entryValue(ir::Function &fn, Opcode op, int line) {
  Block *entry = fn.blocks[0].get();
  Instruction *v = fn.create(entry, op, {}, line);
  auto &list = entry->instructions;
  std::unique_ptr<Instruction> moved = std::move(list.back());
  list.pop_back();
  list.insert(list.end() - (entry->terminator() ? 1 : 0), std::move(moved));
  return v;
}

/// The phi `tested` tests against None and the edge on which it is not
/// None: the condition `x is not None`, `x is None`, through `not` and
/// truth; nullptr when `condition` is none of them.
Instruction *testedPhi(const Instruction *condition, bool &notNoneWhenTrue) {
  notNoneWhenTrue = true;
  for (;;) {
    if (condition->isa(Opcode::Truth)) {
      condition = condition->operands[0];
    } else if (condition->isa(Opcode::UnaryOp) &&
               static_cast<ir::UnaryOperator>(condition->index) ==
                   ir::UnaryOperator::Not) {
      notNoneWhenTrue = !notNoneWhenTrue;
      condition = condition->operands[0];
    } else {
      break;
    }
  }
  if (!condition->isa(Opcode::Compare))
    return nullptr;
  auto op = static_cast<ir::CompareOperator>(condition->index);
  if (op != ir::CompareOperator::Is && op != ir::CompareOperator::IsNot)
    return nullptr;
  if (op == ir::CompareOperator::Is)
    notNoneWhenTrue = !notNoneWhenTrue;
  Instruction *a = condition->operands[0], *b = condition->operands[1];
  if (isNoneConstant(b) && a->isa(Opcode::Phi))
    return a;
  if (isNoneConstant(a) && b->isa(Opcode::Phi))
    return b;
  return nullptr;
}

} // namespace

void splitOptionals(ir::Function &fn) {
  // The phis whose values, through other phis, are None on some path and
  // something else on another.
  std::vector<Instruction *> phis;
  for (const auto &block : fn.blocks)
    for (const auto &inst : block->instructions)
      if (inst->isa(Opcode::Phi))
        phis.push_back(inst.get());
  std::map<const Instruction *, Reaches> reaches;
  for (bool changed = true; changed;) {
    changed = false;
    for (Instruction *phi : phis) {
      Reaches r = reaches[phi];
      for (const Instruction *o : phi->operands) {
        if (o->isa(Opcode::Phi)) {
          r.none |= reaches[o].none;
          r.value |= reaches[o].value;
        } else if (isNoneConstant(o)) {
          r.none = true;
        } else if (!o->isa(Opcode::Undef)) {
          r.value = true;
        }
      }
      Reaches &old = reaches[phi];
      if (r.none != old.none || r.value != old.value) {
        old = r;
        changed = true;
      }
    }
  }
  std::vector<Instruction *> optional;
  for (Instruction *phi : phis)
    if (reaches[phi].none && reaches[phi].value)
      optional.push_back(phi);
  if (optional.empty())
    return;

  // The edges on which a test has shown an optional phi is not None: the
  // not-None successor of the test's branch, when that branch is its only
  // way in (so everything it dominates is under the test).
  std::multimap<const Instruction *, const Block *> shownSet;
  for (const auto &block : fn.blocks) {
    const Instruction *end = block->terminator();
    if (!end || !end->isa(Opcode::CondBranch))
      continue;
    bool notNoneWhenTrue;
    Instruction *phi = testedPhi(end->operands[0], notNoneWhenTrue);
    if (!phi || !std::count(optional.begin(), optional.end(), phi))
      continue;
    Block *set = end->targets[notNoneWhenTrue ? 0 : 1];
    if (set->predecessors.size() == 1 && end->targets[0] != end->targets[1])
      shownSet.insert({phi, set});
  }

  // The flag and the value of each optional phi, beside it.
  int line = fn.firstLine;
  Instruction *undef = entryValue(fn, Opcode::Undef, line);
  Instruction *isFalse = entryValue(fn, Opcode::Const, line);
  isFalse->constant = ConstValue::ofBool(false);
  Instruction *isTrue = entryValue(fn, Opcode::Const, line);
  isTrue->constant = ConstValue::ofBool(true);
  std::map<const Instruction *, Instruction *> flagOf, valueOf;
  for (Instruction *phi : optional) {
    flagOf[phi] = fn.create(phi->parent, Opcode::Phi, {}, phi->line);
    valueOf[phi] = fn.create(phi->parent, Opcode::Phi, {}, phi->line);
  }
  for (Instruction *phi : optional)
    for (Instruction *o : phi->operands) {
      bool isOptional = flagOf.count(o);
      bool none = isNoneConstant(o) ||
                  (o->isa(Opcode::Phi) && !isOptional && reaches[o].none);
      flagOf[phi]->operands.push_back(isOptional ? flagOf[o]
                                      : none     ? isFalse
                                      : o->isa(Opcode::Undef) ? isFalse
                                                              : isTrue);
      valueOf[phi]->operands.push_back(isOptional ? valueOf[o]
                                       : none     ? undef
                                                  : o);
    }

  // Tests read the flag; uses under a test read the value.
  ir::DominatorTree dominators(fn);
  auto underTest = [&](const Instruction *phi, const Block *use) {
    auto [from, to] = shownSet.equal_range(phi);
    for (auto it = from; it != to; ++it)
      if (dominators.dominates(it->second, use))
        return true;
    return false;
  };
  std::set<const Instruction *> added;
  // The None constants that only the optional phis and their tests read.
  std::vector<Instruction *> orphans;
  for (Instruction *phi : optional)
    for (Instruction *o : phi->operands)
      if (isNoneConstant(o))
        orphans.push_back(o);
  for (auto &[phi, flag] : flagOf) {
    added.insert(flag);
    added.insert(valueOf[phi]);
  }
  for (const auto &block : fn.blocks)
    for (const auto &inst : block->instructions) {
      Instruction *user = inst.get();
      if (added.count(user) || flagOf.count(user))
        continue;
      for (size_t i = 0; i < user->operands.size(); ++i) {
        Instruction *phi = user->operands[i];
        if (!flagOf.count(phi))
          continue;
        auto op = static_cast<ir::CompareOperator>(user->index);
        Instruction *other = user->operands[1 - std::min<size_t>(i, 1)];
        if (user->isa(Opcode::Compare) && user->operands.size() == 2 &&
            isNoneConstant(other) &&
            (op == ir::CompareOperator::Is ||
             op == ir::CompareOperator::IsNot)) {
          // `x is None` is `not flag`; `x is not None` is the flag.
          user->opcode = op == ir::CompareOperator::Is ? Opcode::UnaryOp
                                                       : Opcode::Truth;
          if (user->isa(Opcode::UnaryOp))
            user->index = static_cast<int64_t>(ir::UnaryOperator::Not);
          user->operands = {flagOf[phi]};
          orphans.push_back(other);
          break;
        }
        // A phi uses its operand at the end of the predecessor.
        const Block *at = user->isa(Opcode::Phi)
                              ? user->parent->predecessors[i]
                              : user->parent;
        if (underTest(phi, at))
          user->operands[i] = valueOf[phi];
      }
    }

  // What is left unused goes: the optional phis every use of which now
  // reads the flag or the value, and flags and values nothing reads.
  std::vector<Instruction *> candidates = optional;
  for (auto &[phi, flag] : flagOf) {
    candidates.push_back(flag);
    candidates.push_back(valueOf[phi]);
  }
  std::sort(orphans.begin(), orphans.end());
  orphans.erase(std::unique(orphans.begin(), orphans.end()), orphans.end());
  candidates.insert(candidates.end(), orphans.begin(), orphans.end());
  candidates.push_back(undef);
  candidates.push_back(isFalse);
  candidates.push_back(isTrue);
  std::set<const Instruction *> isCandidate(candidates.begin(),
                                            candidates.end());
  std::set<const Instruction *> live;
  std::vector<const Instruction *> pending;
  for (const auto &block : fn.blocks)
    for (const auto &inst : block->instructions)
      if (!isCandidate.count(inst.get()))
        pending.insert(pending.end(), inst->operands.begin(),
                       inst->operands.end());
  while (!pending.empty()) {
    const Instruction *v = pending.back();
    pending.pop_back();
    if (isCandidate.count(v) && live.insert(v).second)
      pending.insert(pending.end(), v->operands.begin(), v->operands.end());
  }
  for (Instruction *v : candidates)
    if (!live.count(v))
      fn.erase(v);
}

} // namespace spirjit
