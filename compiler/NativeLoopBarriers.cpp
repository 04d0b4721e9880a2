// Implicit barriers in a kernel's own loops (NativeLoopBarriers.h states
// the contract).
#include "compiler/NativeLoopBarriers.h"

#include "compiler/NativeBarriers.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/PostDominators.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>

#include <functional>
#include <map>
#include <optional>
#include <vector>

namespace spirjit {

namespace {

/// How far `value` (an integer or a pointer) moves, in elements, when
/// `isStep` values move by one and nothing else that it depends on moves:
/// the coefficient of an affine function of them, or none when it is not
/// one with a constant coefficient (a product of two of them, a value
/// loaded, a stride that is an argument). `seen` guards the cycles of
/// loop phis: a phi met again moves by nothing (optimistic, then checked
/// on its other incoming values).
std::optional<int64_t>
step(const llvm::Value *value,
     const std::function<bool(const llvm::Value *)> &isStep,
     std::map<const llvm::Value *, std::optional<int64_t>> &seen) {
  if (isStep(value))
    return 1;
  const auto *inst = llvm::dyn_cast<llvm::Instruction>(value);
  if (!inst)
    return 0; // a constant or an argument
  if (auto found = seen.find(inst); found != seen.end())
    return found->second;
  seen[inst] = 0;
  auto of = [&](const llvm::Value *operand) {
    return step(operand, isStep, seen);
  };
  std::optional<int64_t> result;
  auto constant = [](const llvm::Value *v) {
    return llvm::dyn_cast<llvm::ConstantInt>(v);
  };
  switch (inst->getOpcode()) {
  case llvm::Instruction::Add:
  case llvm::Instruction::Sub: {
    auto a = of(inst->getOperand(0)), b = of(inst->getOperand(1));
    if (a && b)
      result = inst->getOpcode() == llvm::Instruction::Add ? *a + *b : *a - *b;
    break;
  }
  case llvm::Instruction::Mul: {
    auto a = of(inst->getOperand(0)), b = of(inst->getOperand(1));
    const auto *ca = constant(inst->getOperand(0));
    const auto *cb = constant(inst->getOperand(1));
    if (a && b && *a == 0 && *b == 0)
      result = 0;
    else if (a && cb)
      result = *a * cb->getSExtValue();
    else if (b && ca)
      result = *b * ca->getSExtValue();
    break;
  }
  case llvm::Instruction::Shl: {
    auto a = of(inst->getOperand(0)), b = of(inst->getOperand(1));
    const auto *cb = constant(inst->getOperand(1));
    if (a && b && *a == 0 && *b == 0)
      result = 0;
    else if (a && cb && cb->getZExtValue() < 32)
      result = *a << cb->getZExtValue();
    break;
  }
  case llvm::Instruction::SExt:
  case llvm::Instruction::ZExt:
  case llvm::Instruction::Trunc:
  case llvm::Instruction::BitCast:
    result = of(inst->getOperand(0));
    break;
  case llvm::Instruction::GetElementPtr: {
    // One index: elements of the pointer's own type.
    if (inst->getNumOperands() == 2) {
      auto a = of(inst->getOperand(0)), b = of(inst->getOperand(1));
      if (a && b)
        result = *a + *b;
    } else if (llvm::all_of(inst->operands(), [&](const llvm::Value *v) {
                 auto s = of(v);
                 return s && *s == 0;
               })) {
      result = 0;
    }
    break;
  }
  case llvm::Instruction::PHI: {
    result = 0;
    for (const llvm::Value *incoming :
         llvm::cast<llvm::PHINode>(inst)->incoming_values())
      if (auto s = of(incoming); !s || *s != 0)
        result = std::nullopt;
    break;
  }
  default: {
    // Another query or arithmetic on what does not move: moves by nothing.
    bool still = !inst->mayReadFromMemory() &&
                 llvm::all_of(inst->operands(), [&](const llvm::Value *v) {
                   auto s = of(v);
                   return s && *s == 0;
                 });
    if (still)
      result = 0;
  }
  }
  seen[inst] = result;
  return result;
}

/// The loop's memory accesses: their addresses, and whether each reads.
std::vector<std::pair<const llvm::Value *, bool>>
accesses(const llvm::Loop &loop) {
  std::vector<std::pair<const llvm::Value *, bool>> found;
  for (const llvm::BasicBlock *block : loop.blocks())
    for (const llvm::Instruction &inst : *block)
      if (const auto *load = llvm::dyn_cast<llvm::LoadInst>(&inst))
        found.emplace_back(load->getPointerOperand(), true);
      else if (const auto *store = llvm::dyn_cast<llvm::StoreInst>(&inst))
        found.emplace_back(store->getPointerOperand(), false);
  return found;
}

class LoopBarriers {
public:
  LoopBarriers(llvm::Function &kernel,
               const std::set<std::string> &itemQueries,
               const std::set<std::string> &itemIdNames)
      : dominators_(kernel), postDominators_(kernel), loops_(dominators_),
        uniform_(uniformValues(kernel, itemQueries)),
        itemIdNames_(itemIdNames) {}

  bool run() {
    if (uniform_.empty())
      return false; // irreducible, or nothing known alike
    std::vector<const llvm::Loop *> chosen;
    for (llvm::Loop *loop : loops_.getLoopsInPreorder())
      if (loop->isInnermost() && wanted(*loop))
        chosen.push_back(loop);
    for (const llvm::Loop *loop : chosen) {
      llvm::SmallVector<llvm::Loop::Edge, 4> exits;
      loop->getExitEdges(exits);
      llvm::IRBuilder<> b(&*loop->getHeader()->getFirstInsertionPt());
      createNativeBarrier(b);
      for (auto [from, to] : exits) {
        llvm::BasicBlock *edge = llvm::SplitEdge(from, to);
        b.SetInsertPoint(&*edge->getFirstInsertionPt());
        createNativeBarrier(b);
      }
    }
    return !chosen.empty();
  }

private:
  bool isUniform(const llvm::Value *value) const {
    return !llvm::isa<llvm::Instruction>(value) || uniform_.count(value);
  }

  /// Does the choice `terminator` makes depend only on uniform values?
  bool uniformChoice(const llvm::Instruction *terminator) const {
    if (const auto *branch = llvm::dyn_cast<llvm::BranchInst>(terminator))
      return branch->isUnconditional() || isUniform(branch->getCondition());
    if (const auto *choice = llvm::dyn_cast<llvm::SwitchInst>(terminator))
      return isUniform(choice->getCondition());
    return terminator->getNumSuccessors() < 2;
  }

  /// Do all items of a group reach `block` alike: is every branch it is
  /// control dependent on (and those they are, in turn) uniform?
  bool reachedAlike(const llvm::BasicBlock *block) const {
    std::set<const llvm::BasicBlock *> seen = {block};
    std::vector<const llvm::BasicBlock *> work = {block};
    while (!work.empty()) {
      const llvm::BasicBlock *current = work.back();
      work.pop_back();
      for (const llvm::BasicBlock &from : *block->getParent()) {
        const llvm::Instruction *terminator = from.getTerminator();
        if (terminator->getNumSuccessors() < 2 ||
            (&from != current &&
             postDominators_.properlyDominates(current, &from)))
          continue;
        bool dependent = llvm::any_of(
            llvm::successors(&from), [&](const llvm::BasicBlock *next) {
              return postDominators_.dominates(current, next);
            });
        if (!dependent)
          continue;
        if (!uniformChoice(terminator))
          return false;
        if (seen.insert(&from).second)
          work.push_back(&from);
      }
    }
    return true;
  }

  bool isItemId(const llvm::Value *value) const {
    const auto *call = llvm::dyn_cast<llvm::CallInst>(value);
    const llvm::Function *callee = call ? call->getCalledFunction() : nullptr;
    if (!callee || !itemIdNames_.count(callee->getName().str()))
      return false;
    const auto *dim = llvm::dyn_cast<llvm::ConstantInt>(call->getArgOperand(0));
    return dim && dim->isZero();
  }

  bool wanted(const llvm::Loop &loop) const {
    for (const llvm::BasicBlock *block : loop.blocks())
      for (const llvm::Instruction &inst : *block) {
        if (llvm::isa<llvm::AtomicRMWInst, llvm::AtomicCmpXchgInst,
                      llvm::FenceInst>(inst))
          return false;
        if (const auto *call = llvm::dyn_cast<llvm::CallInst>(&inst))
          if (call->isConvergent() || (call->mayHaveSideEffects() &&
                                       !llvm::isa<llvm::IntrinsicInst>(call)))
            return false;
      }
    llvm::SmallVector<llvm::BasicBlock *, 4> exiting;
    loop.getExitingBlocks(exiting);
    for (const llvm::BasicBlock *block : exiting)
      if (!llvm::isa<llvm::BranchInst>(block->getTerminator()) ||
          !uniformChoice(block->getTerminator()))
        return false;
    if (!reachedAlike(loop.getHeader()))
      return false;
    // Pays: a read contiguous between items, nothing varying between items
    // contiguous between iterations.
    std::vector<const llvm::PHINode *> counters;
    for (const llvm::PHINode &phi : loop.getHeader()->phis())
      if (phi.getType()->isIntegerTy())
        counters.push_back(&phi);
    bool acrossItems = false;
    for (auto [pointer, reads] : accesses(loop)) {
      std::map<const llvm::Value *, std::optional<int64_t>> seen;
      auto byItem = step(
          pointer, [&](const llvm::Value *v) { return isItemId(v); }, seen);
      acrossItems |= reads && byItem == 1;
      if (byItem == 0 || isUniform(pointer))
        continue;
      for (const llvm::PHINode *counter : counters) {
        std::map<const llvm::Value *, std::optional<int64_t>> seenHere;
        auto byIteration = step(
            pointer, [&](const llvm::Value *v) { return v == counter; },
            seenHere);
        if (byIteration == 1 || byIteration == -1)
          return false;
      }
    }
    return acrossItems;
  }

  llvm::DominatorTree dominators_;
  llvm::PostDominatorTree postDominators_;
  llvm::LoopInfo loops_;
  std::set<const llvm::Value *> uniform_;
  const std::set<std::string> &itemIdNames_;
};

} // namespace

bool addLoopBarriers(llvm::Function &kernel,
                     const std::set<std::string> &itemQueries,
                     const std::set<std::string> &itemIdNames) {
  return LoopBarriers(kernel, itemQueries, itemIdNames).run();
}

} // namespace spirjit
