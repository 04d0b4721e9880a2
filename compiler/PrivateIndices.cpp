// Private arrays indexed at run time, addressed as integers (the contract
// and the reason are in PrivateIndices.h).
#include "compiler/PrivateIndices.h"

#include <llvm/Analysis/Utils/Local.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>

#include <vector>

namespace spirjit {

namespace {

bool indexedAtRunTime(const llvm::GetElementPtrInst &gep) {
  for (const llvm::Use &index : gep.indices())
    if (!llvm::isa<llvm::ConstantInt>(index.get()))
      return true;
  return false;
}

} // namespace

void addressPrivateArraysByInteger(llvm::Module &module) {
  const llvm::DataLayout &layout = module.getDataLayout();
  for (llvm::Function &function : module) {
    std::vector<llvm::GetElementPtrInst *> rewrite;
    for (llvm::BasicBlock &block : function)
      for (llvm::Instruction &inst : block)
        if (auto *gep = llvm::dyn_cast<llvm::GetElementPtrInst>(&inst))
          if (gep->getAddressSpace() == 0 && indexedAtRunTime(*gep) &&
              llvm::isa<llvm::AllocaInst>(
                  llvm::getUnderlyingObject(gep->getPointerOperand())))
            rewrite.push_back(gep);
    for (llvm::GetElementPtrInst *gep : rewrite) {
      llvm::IRBuilder<> builder(gep);
      llvm::Type *intPtr = layout.getIntPtrType(gep->getType());
      llvm::Value *offset = llvm::EmitGEPOffset(&builder, layout, gep);
      llvm::Value *base =
          builder.CreatePtrToInt(gep->getPointerOperand(), intPtr);
      llvm::Value *address = builder.CreateAdd(
          base, builder.CreateSExtOrTrunc(offset, intPtr));
      llvm::Value *pointer = builder.CreateIntToPtr(address, gep->getType());
      pointer->takeName(gep);
      gep->replaceAllUsesWith(pointer);
      gep->eraseFromParent();
    }
  }
}

} // namespace spirjit
