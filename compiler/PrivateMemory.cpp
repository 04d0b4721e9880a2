#include "compiler/PrivateMemory.h"

#include <llvm/IR/Instructions.h>

namespace spirjit {

uint64_t privateMemoryBytes(const llvm::Module &module) {
  const llvm::DataLayout &layout = module.getDataLayout();
  uint64_t bytes = 0;
  for (const llvm::Function &function : module)
    for (const llvm::BasicBlock &block : function)
      for (const llvm::Instruction &inst : block)
        if (const auto *alloca = llvm::dyn_cast<llvm::AllocaInst>(&inst))
          if (llvm::Optional<llvm::TypeSize> size =
                  alloca->getAllocationSizeInBits(layout))
            bytes += size->getFixedSize() / 8;
  return bytes;
}

} // namespace spirjit
