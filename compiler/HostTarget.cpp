// The host: the machine spirjit runs on, for a jit function's driver code.
// One flat address space, the C calling convention, math from the C
// library (or LLVM's intrinsics where the code generator has them). No
// device layer: kernel-API constructs never reach host code (type
// inference refuses them at the user's line).
#include "compiler/HostTarget.h"

#include <llvm/Analysis/CFG.h>
#include <llvm/IR/Intrinsics.h>

namespace spirjit {

namespace {

class HostTarget : public Target {
public:
  HostTarget(std::string triple, std::string dataLayout)
      : triple_(std::move(triple)), dataLayout_(std::move(dataLayout)) {}

  std::string name() const override { return "the host"; }

  void configureModule(llvm::Module &module) const override {
    module.setTargetTriple(triple_);
    module.setDataLayout(dataLayout_);
  }

  unsigned addressSpace(MemorySpace) const override { return 0; }

  void markKernel(llvm::Function &) const override {}

  llvm::CallingConv::ID functionCallingConvention() const override {
    return llvm::CallingConv::C;
  }

  llvm::Value *emitMathCall(llvm::IRBuilder<> &builder, const std::string &name,
                            llvm::ArrayRef<llvm::Value *> args) const override {
    static const std::pair<const char *, llvm::Intrinsic::ID> native[] = {
        {"sqrt", llvm::Intrinsic::sqrt},   {"fabs", llvm::Intrinsic::fabs},
        {"floor", llvm::Intrinsic::floor}, {"ceil", llvm::Intrinsic::ceil},
        {"trunc", llvm::Intrinsic::trunc}, {"rint", llvm::Intrinsic::rint},
        {"fma", llvm::Intrinsic::fma},     {"copysign", llvm::Intrinsic::copysign}};
    llvm::Type *type = args[0]->getType();
    llvm::Module *module = builder.GetInsertBlock()->getModule();
    for (const auto &[intrinsic, id] : native)
      if (name == intrinsic)
        return builder.CreateCall(
            llvm::Intrinsic::getDeclaration(module, id, {type}), args);
    // libm: sinf for float, sin for double; ldexp takes an int exponent.
    std::string callee = name + (type->isFloatTy() ? "f" : "");
    std::vector<llvm::Type *> params;
    std::vector<llvm::Value *> values(args.begin(), args.end());
    for (llvm::Value *&arg : values) {
      if (arg->getType()->isIntegerTy() && name == "ldexp")
        arg = builder.CreateSExtOrTrunc(arg, builder.getInt32Ty());
      params.push_back(arg->getType());
    }
    llvm::FunctionCallee declared = module->getOrInsertFunction(
        callee, llvm::FunctionType::get(type, params, false));
    if (auto *function = llvm::dyn_cast<llvm::Function>(declared.getCallee())) {
      function->addFnAttr(llvm::Attribute::NoUnwind);
      function->addFnAttr(llvm::Attribute::WillReturn);
      // Python's math never reads errno, the only memory libm writes: a
      // call without memory is one LLVM may vectorise (Target::vectorMath).
      function->setDoesNotAccessMemory();
    }
    return builder.CreateCall(declared, values);
  }

private:
  std::string triple_, dataLayout_;
};

} // namespace

std::unique_ptr<Target> createHostTarget(const std::string &triple,
                                         const std::string &dataLayout) {
  return std::make_unique<HostTarget>(triple, dataLayout);
}

int hostOptimisationLevel(const llvm::Module &module, int requested) {
  for (const llvm::Function &function : module) {
    if (function.isDeclaration())
      continue;
    llvm::SmallVector<
        std::pair<const llvm::BasicBlock *, const llvm::BasicBlock *>, 4>
        backEdges;
    llvm::FindFunctionBackedges(function, backEdges);
    if (!backEdges.empty())
      return requested;
  }
  return 0;
}

} // namespace spirjit
