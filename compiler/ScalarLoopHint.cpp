#include "compiler/ScalarLoopHint.h"

#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/ADT/Triple.h>
#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Metadata.h>

namespace spirjit {

namespace {

/// Whether `value` is computed from `phi` by instructions of this
/// iteration (not through other phis, which end the search).
bool computedFrom(const llvm::Value *value, const llvm::PHINode *phi) {
  llvm::SmallVector<const llvm::Value *, 16> work{value};
  llvm::SmallPtrSet<const llvm::Value *, 32> seen;
  while (!work.empty()) {
    const llvm::Value *v = work.pop_back_val();
    if (v == phi)
      return true;
    const auto *inst = llvm::dyn_cast<llvm::Instruction>(v);
    if (!inst || llvm::isa<llvm::PHINode>(inst) || !seen.insert(inst).second)
      continue;
    for (const llvm::Value *operand : inst->operands())
      work.push_back(operand);
  }
  return false;
}

} // namespace

bool hasRotatingLoop(const llvm::Function &function) {
  for (const llvm::BasicBlock &block : function)
    for (const llvm::PHINode &phi : block.phis())
      for (unsigned i = 0; i < phi.getNumIncomingValues(); ++i) {
        // Only a back edge can bring a phi of this block into it: `phi`
        // takes last iteration's `other`, and `other` is computed from
        // `phi` (the swap). A counter's previous value (`other` computed
        // from itself alone) is not the pattern.
        const auto *other =
            llvm::dyn_cast<llvm::PHINode>(phi.getIncomingValue(i));
        if (!other || other == &phi || other->getParent() != &block)
          continue;
        const llvm::Value *next =
            other->getIncomingValueForBlock(phi.getIncomingBlock(i));
        if (computedFrom(next, &phi))
          return true;
      }
  return false;
}

namespace {

/// Whether the function or one it calls, transitively, has the pattern.
bool reachesRotatingLoop(const llvm::Function &kernel) {
  llvm::SmallVector<const llvm::Function *, 8> work{&kernel};
  llvm::SmallPtrSet<const llvm::Function *, 8> seen{&kernel};
  while (!work.empty()) {
    const llvm::Function *function = work.pop_back_val();
    if (hasRotatingLoop(*function))
      return true;
    for (const llvm::BasicBlock &block : *function)
      for (const llvm::Instruction &inst : block)
        if (const auto *call = llvm::dyn_cast<llvm::CallBase>(&inst))
          if (const llvm::Function *callee = call->getCalledFunction())
            if (!callee->isDeclaration() && seen.insert(callee).second)
              work.push_back(callee);
  }
  return false;
}

/// `!vec_type_hint <4 x i32>`: SPIR 1.2's form, the hinted type (as an
/// undef of it) and whether its elements are signed; the translator makes
/// ExecutionMode VecTypeHint.
llvm::MDNode *scalarHint(llvm::LLVMContext &context) {
  llvm::Type *hint =
      llvm::FixedVectorType::get(llvm::Type::getInt32Ty(context), 4);
  return llvm::MDNode::get(
      context, {llvm::ConstantAsMetadata::get(llvm::UndefValue::get(hint)),
                llvm::ConstantAsMetadata::get(
                    llvm::ConstantInt::get(llvm::Type::getInt32Ty(context), 1))});
}

bool isKernel(const llvm::Function &function) {
  return function.getCallingConv() == llvm::CallingConv::SPIR_KERNEL &&
         !function.isDeclaration();
}

/// Whether `value` is a work-item id of dimension 0: what the runtime's
/// vector lanes differ by.
bool isLaneId(const llvm::Value *value) {
  const auto *call = llvm::dyn_cast<llvm::CallInst>(value);
  const llvm::Function *callee = call ? call->getCalledFunction() : nullptr;
  if (!callee || (callee->getName() != "_Z13get_global_idj" &&
                  callee->getName() != "_Z12get_local_idj"))
    return false;
  const auto *dim = llvm::dyn_cast<llvm::ConstantInt>(call->getArgOperand(0));
  return dim && dim->isZero();
}

/// How the kernel's accesses step across lanes and along loops.
struct LaneSteps {
  // Of the accesses in loops:
  bool unitAcrossLanes = false; // some access: one element per lane
  bool rowPerLaneLoop = false;  // some access: one per iteration of its
                                // innermost loop, more than one per lane
};

LaneSteps laneSteps(llvm::Function &kernel) {
  LaneSteps steps;
  llvm::ValueToSCEVMapTy nextLane;
  llvm::DominatorTree dominators(kernel);
  llvm::LoopInfo loops(dominators);
  if (loops.empty())
    return steps; // no loop walks anything
  llvm::TargetLibraryInfoImpl libraryInfo(
      llvm::Triple(kernel.getParent()->getTargetTriple()));
  llvm::TargetLibraryInfo library(libraryInfo);
  llvm::AssumptionCache assumptions(kernel);
  llvm::ScalarEvolution se(kernel, library, assumptions, dominators, loops);
  for (llvm::BasicBlock &block : kernel)
    for (llvm::Instruction &inst : block)
      if (isLaneId(&inst) && se.isSCEVable(inst.getType()))
        nextLane[&inst] = se.getAddExpr(se.getSCEV(&inst),
                                        se.getOne(inst.getType()));
  if (nextLane.empty())
    return steps;
  for (llvm::BasicBlock &block : kernel)
    for (llvm::Instruction &inst : block) {
      llvm::Value *pointer = nullptr;
      llvm::Type *element = nullptr;
      if (auto *load = llvm::dyn_cast<llvm::LoadInst>(&inst)) {
        pointer = load->getPointerOperand();
        element = load->getType();
      } else if (auto *store = llvm::dyn_cast<llvm::StoreInst>(&inst)) {
        pointer = store->getPointerOperand();
        element = store->getValueOperand()->getType();
      }
      if (!pointer || !element->isSized())
        continue;
      const llvm::SCEV *address = se.getSCEV(pointer);
      if (llvm::isa<llvm::SCEVCouldNotCompute>(address))
        continue;
      uint64_t size =
          kernel.getParent()->getDataLayout().getTypeStoreSize(element);
      auto isElement = [&](const llvm::SCEV *step) {
        const auto *c = llvm::dyn_cast<llvm::SCEVConstant>(step);
        return c && c->getAPInt() == size;
      };
      const llvm::SCEV *acrossLanes = se.getMinusSCEV(
          llvm::SCEVParameterRewriter::rewrite(address, se, nextLane),
          address);
      if (llvm::isa<llvm::SCEVCouldNotCompute>(acrossLanes))
        continue;
      // Accesses outside loops run once per work-item: they decide
      // nothing.
      const llvm::Loop *innermost = loops.getLoopFor(&block);
      if (!innermost)
        continue;
      if (isElement(acrossLanes)) {
        steps.unitAcrossLanes = true;
        continue;
      }
      if (acrossLanes->isZero())
        continue; // the same for every lane
      const auto *recurrence = llvm::dyn_cast<llvm::SCEVAddRecExpr>(address);
      if (recurrence && recurrence->getLoop() == innermost &&
          isElement(recurrence->getStepRecurrence(se)))
        steps.rowPerLaneLoop = true;
    }
  return steps;
}

} // namespace

void hintScalarForRotatingLoops(llvm::Module &module) {
  llvm::MDNode *node = scalarHint(module.getContext());
  for (llvm::Function &function : module)
    if (isKernel(function) && reachesRotatingLoop(function))
      function.setMetadata("vec_type_hint", node);
}

void hintScalarForStridedLanes(llvm::Module &module) {
  llvm::MDNode *node = scalarHint(module.getContext());
  for (llvm::Function &function : module) {
    if (!isKernel(function) || function.getMetadata("vec_type_hint"))
      continue;
    LaneSteps steps = laneSteps(function);
    if (steps.rowPerLaneLoop && !steps.unitAcrossLanes)
      function.setMetadata("vec_type_hint", node);
  }
}

} // namespace spirjit
