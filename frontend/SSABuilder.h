// SSA construction over a function's named variables (Braun et al., CC
// 2013), as BuildPyIR fills blocks from the value stack and the locals.
//
// Contract: blocks are filled in any order and sealed once all their
// predecessors are known; read() gives the value a variable has at the end
// of a block, creating phis where paths meet. Trivial phis are removed as
// soon as they are seen to be trivial; resolveAll() must run once at the
// end to redirect every operand that still names one. Private to frontend/.
#pragma once

#include "frontend/PyIR.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace spirjit::ir {

/// Braun et al.'s trivial phi: its operands, itself aside, are at most one
/// value. Returns whether `phi` is trivial, and that value in `same`
/// (nullptr when there is none).
bool isTrivialPhi(const Instruction *phi, Instruction **same);

/// SSA construction over named variables (Braun et al.). A trivial phi is
/// not replaced in every instruction at once, which costs a walk of the
/// whole function per phi: it is mapped to its replacement, reads resolve
/// through that map, and resolveAll() rewrites every operand once at the
/// end. Each phi knows the phis that use it, so removing one rechecks only
/// those.
class SSABuilder {
public:
  SSABuilder(Function &function, Instruction *undef)
      : function_(function), undef_(undef) {}

  void write(const std::string &var, Block *block, Instruction *value) {
    defs_[var][block] = value;
  }

  Instruction *read(const std::string &var, Block *block, int line) {
    auto &perBlock = defs_[var];
    auto it = perBlock.find(block);
    if (it != perBlock.end())
      return resolve(it->second);
    return readRecursive(var, block, line);
  }

  bool isSealed(Block *block) const { return sealed_.count(block) != 0; }

  void seal(Block *block) {
    auto pending = std::move(incomplete_[block]);
    incomplete_.erase(block);
    sealed_.insert(block);
    for (auto &[var, phi] : pending)
      addOperands(var, phi);
  }

  /// The value that stands for `value` now that trivial phis are gone.
  Instruction *resolve(Instruction *value) {
    Instruction *result = value;
    for (auto it = replaced_.find(result); it != replaced_.end();
         it = replaced_.find(result))
      result = it->second;
    // Path compression: later lookups of a long chain take one step.
    while (value != result) {
      Instruction *&next = replaced_[value];
      value = next;
      next = result;
    }
    return result;
  }

  /// Maps every operand still naming a removed phi to its replacement.
  void resolveAll() {
    for (auto &block : function_.blocks)
      for (auto &inst : block->instructions)
        for (Instruction *&operand : inst->operands)
          operand = resolve(operand);
  }

private:
  Instruction *readRecursive(const std::string &var, Block *block, int line) {
    Instruction *value;
    if (!isSealed(block)) {
      value = function_.create(block, Opcode::Phi, {}, line);
      incomplete_[block][var] = value;
    } else if (block->predecessors.empty()) {
      value = undef_;
    } else if (block->predecessors.size() == 1) {
      value = read(var, block->predecessors[0], line);
    } else {
      Instruction *phi = function_.create(block, Opcode::Phi, {}, line);
      write(var, block, phi);
      value = addOperands(var, phi);
    }
    write(var, block, value);
    return value;
  }

  Instruction *addOperands(const std::string &var, Instruction *phi) {
    for (Block *pred : phi->parent->predecessors) {
      Instruction *value = read(var, pred, phi->line);
      phi->operands.push_back(value);
      if (value->opcode == Opcode::Phi && value != phi)
        phiUsers_[value].push_back(phi);
    }
    return removeIfTrivial(phi);
  }

  Instruction *removeIfTrivial(Instruction *phi) {
    for (Instruction *&operand : phi->operands)
      operand = resolve(operand);
    Instruction *same;
    if (!isTrivialPhi(phi, &same))
      return phi;
    if (!same)
      same = undef_;
    replaced_[phi] = same;
    std::vector<Instruction *> users = std::move(phiUsers_[phi]);
    phiUsers_.erase(phi);
    if (same->opcode == Opcode::Phi) // they use `same` now
      phiUsers_[same].insert(phiUsers_[same].end(), users.begin(),
                             users.end());
    // Callers up the stack may still hold `phi`: keep it alive, detached,
    // and let resolve() map it to its replacement.
    auto &list = phi->parent->instructions;
    auto it = std::find_if(list.begin(), list.end(),
                           [&](auto &i) { return i.get() == phi; });
    graveyard_.push_back(std::move(*it));
    list.erase(it);
    for (Instruction *user : users)
      if (user != phi && !replaced_.count(user))
        removeIfTrivial(user);
    return same;
  }

  Function &function_;
  Instruction *undef_;
  std::unordered_map<Instruction *, Instruction *> replaced_;
  std::unordered_map<Instruction *, std::vector<Instruction *>> phiUsers_;
  std::vector<std::unique_ptr<Instruction>> graveyard_;
  std::map<std::string, std::map<Block *, Instruction *>> defs_;
  std::map<Block *, std::map<std::string, Instruction *>> incomplete_;
  std::set<Block *> sealed_;
};

} // namespace spirjit::ir
