#include "compiler/DropUnusedParameters.h"

#include "frontend/Diagnostics.h"

#include <llvm/IR/Attributes.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Verifier.h>

namespace spirjit {

std::vector<bool> dropUnusedParameters(llvm::Module &module,
                                       const std::string &entryPoint) {
  llvm::Function *old = module.getFunction(entryPoint);
  SPIRJIT_INTERNAL_CHECK(old && !old->isDeclaration(),
                         "no kernel " + entryPoint + " to trim");
  std::vector<bool> kept;
  std::vector<llvm::Type *> types;
  std::vector<llvm::AttributeSet> attributes;
  llvm::AttributeList oldAttributes = old->getAttributes();
  for (llvm::Argument &arg : old->args()) {
    kept.push_back(!arg.use_empty());
    if (kept.back()) {
      types.push_back(arg.getType());
      attributes.push_back(oldAttributes.getParamAttrs(arg.getArgNo()));
    }
  }
  if (types.size() == old->arg_size())
    return kept;

  auto *type = llvm::FunctionType::get(old->getReturnType(), types, false);
  llvm::Function *trimmed = llvm::Function::Create(
      type, old->getLinkage(), old->getAddressSpace(), "");
  module.getFunctionList().insert(old->getIterator(), trimmed); // same place
  trimmed->copyAttributesFrom(old);
  trimmed->setAttributes(llvm::AttributeList::get(
      module.getContext(), oldAttributes.getFnAttrs(),
      oldAttributes.getRetAttrs(), attributes));
  trimmed->copyMetadata(old, 0);
  trimmed->getBasicBlockList().splice(trimmed->begin(),
                                      old->getBasicBlockList());
  auto next = trimmed->arg_begin();
  for (llvm::Argument &arg : old->args()) {
    if (!kept[arg.getArgNo()])
      continue;
    next->takeName(&arg);
    arg.replaceAllUsesWith(&*next);
    ++next;
  }
  trimmed->takeName(old);
  SPIRJIT_INTERNAL_CHECK(old->use_empty(), "a kernel that is also called");
  old->eraseFromParent();
  SPIRJIT_INTERNAL_CHECK(!llvm::verifyFunction(*trimmed, &llvm::errs()),
                         "trimming " + entryPoint + " broke it");
  return kept;
}

} // namespace spirjit
