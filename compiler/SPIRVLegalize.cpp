#include "compiler/SPIRVLegalize.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>

#include <vector>

namespace spirjit {

/// The SPIR-V translator of LLVM 15 cannot translate `freeze`, which the
/// optimiser introduces around divisions. Our lowering never produces
/// poison that reaches a freeze (divisors are made safe first), so each
/// freeze is its operand.
void removeFreezes(llvm::Module &module) {
  for (llvm::Function &function : module)
    for (llvm::BasicBlock &block : function)
      for (auto it = block.begin(); it != block.end();) {
        llvm::Instruction &inst = *it++;
        if (auto *freeze = llvm::dyn_cast<llvm::FreezeInst>(&inst)) {
          freeze->replaceAllUsesWith(freeze->getOperand(0));
          freeze->eraseFromParent();
        }
      }
}

/// llvm.abs becomes OpenCL's abs(), whose result is unsigned: device
/// compilers may then assume it non-negative and turn a later sign
/// extension of abs(INT_MIN) into a zero extension. NumPy wraps abs(INT_MIN)
/// to INT_MIN, so keep the operation as plain IR.
void expandIntegerAbs(llvm::Module &module) {
  std::vector<llvm::IntrinsicInst *> calls;
  for (llvm::Function &function : module)
    for (llvm::BasicBlock &block : function)
      for (llvm::Instruction &inst : block)
        if (auto *call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst))
          if (call->getIntrinsicID() == llvm::Intrinsic::abs)
            calls.push_back(call);
  for (llvm::IntrinsicInst *call : calls) {
    llvm::IRBuilder<> builder(call);
    llvm::Value *x = call->getArgOperand(0);
    llvm::Value *zero = llvm::Constant::getNullValue(x->getType());
    llvm::Value *result = builder.CreateSelect(builder.CreateICmpSLT(x, zero),
                                               builder.CreateSub(zero, x), x);
    call->replaceAllUsesWith(result);
    call->eraseFromParent();
  }
}

/// SPIR-V 1.0's OpSelect takes scalars and vectors only; the optimiser may
/// select between two complex numbers (a struct). Select each field.
void splitAggregateSelects(llvm::Module &module) {
  std::vector<llvm::SelectInst *> selects;
  for (llvm::Function &function : module)
    for (llvm::BasicBlock &block : function)
      for (llvm::Instruction &inst : block)
        if (auto *select = llvm::dyn_cast<llvm::SelectInst>(&inst))
          if (select->getType()->isStructTy())
            selects.push_back(select);
  for (llvm::SelectInst *select : selects) {
    llvm::IRBuilder<> builder(select);
    auto *type = llvm::cast<llvm::StructType>(select->getType());
    llvm::Value *result = llvm::UndefValue::get(type);
    for (unsigned i = 0; i < type->getNumElements(); ++i)
      result = builder.CreateInsertValue(
          result,
          builder.CreateSelect(
              select->getCondition(),
              builder.CreateExtractValue(select->getTrueValue(), i),
              builder.CreateExtractValue(select->getFalseValue(), i)),
          i);
    select->replaceAllUsesWith(result);
    select->eraseFromParent();
  }
}
} // namespace spirjit
