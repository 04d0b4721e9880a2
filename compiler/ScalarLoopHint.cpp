#include "compiler/ScalarLoopHint.h"

#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/ADT/SmallVector.h>
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

} // namespace

void hintScalarForRotatingLoops(llvm::Module &module) {
  llvm::LLVMContext &context = module.getContext();
  // SPIR 1.2's form: the hinted type (as an undef of it) and whether its
  // elements are signed; the translator makes ExecutionMode VecTypeHint.
  llvm::Type *hint =
      llvm::FixedVectorType::get(llvm::Type::getInt32Ty(context), 4);
  llvm::MDNode *node = llvm::MDNode::get(
      context, {llvm::ConstantAsMetadata::get(llvm::UndefValue::get(hint)),
                llvm::ConstantAsMetadata::get(
                    llvm::ConstantInt::get(llvm::Type::getInt32Ty(context), 1))});
  for (llvm::Function &function : module)
    if (function.getCallingConv() == llvm::CallingConv::SPIR_KERNEL &&
        !function.isDeclaration() && reachesRotatingLoop(function))
      function.setMetadata("vec_type_hint", node);
}

} // namespace spirjit
