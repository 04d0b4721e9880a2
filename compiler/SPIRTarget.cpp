#include "compiler/Target.h"

#include "compiler/PrivateIndices.h"
#include "compiler/SPIRVLegalize.h"
#include "compiler/ScalarLoopHint.h"
#include "frontend/Diagnostics.h"

#include <llvm/IR/MDBuilder.h>

namespace spirjit {
namespace {

/// Itanium mangling of a scalar OpenCL built-in parameter type.
char mangledScalar(llvm::Type *type) {
  if (type->isFloatTy())
    return 'f';
  if (type->isDoubleTy())
    return 'd';
  if (type->isIntegerTy(32))
    return 'i'; // ldexp's exponent; work-item queries name themselves
  if (type->isIntegerTy(64))
    return 'l';
  SPIRJIT_INTERNAL_CHECK(false, "no mangling for this built-in operand type");
  return '?';
}

class SPIRTarget : public DeviceTarget {
public:
  std::string name() const override { return "spir64"; }

  void configureModule(llvm::Module &module) const override {
    module.setTargetTriple("spir64-unknown-unknown");
    module.setDataLayout("e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-"
                         "v128:128-v192:256-v256:256-v512:512-v1024:1024");
    llvm::LLVMContext &context = module.getContext();
    auto version = [&](int major, int minor) {
      llvm::Type *i32 = llvm::Type::getInt32Ty(context);
      return llvm::MDNode::get(
          context,
          {llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(i32, major)),
           llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(i32, minor))});
    };
    module.getOrInsertNamedMetadata("opencl.spir.version")
        ->addOperand(version(1, 2));
    module.getOrInsertNamedMetadata("opencl.ocl.version")
        ->addOperand(version(1, 2));
  }

  /// OpenCL's numbering, which the SPIR-V translator reads.
  unsigned addressSpace(MemorySpace space) const override {
    switch (space) {
    case MemorySpace::Global:
      return 1;
    case MemorySpace::Local:
      return 3;
    case MemorySpace::Private:
      return 0;
    case MemorySpace::Generic:
      return 4;
    }
    SPIRJIT_INTERNAL_CHECK(false, "no address space for this memory space");
    return 0;
  }

  /// The SPIR-V translator of LLVM 15 cannot translate i65.
  bool keepsLoopExitValues() const override { return true; }

  void legalize(llvm::Module &module) const override {
    removeFreezes(module);
    expandIntegerAbs(module);
    expandVectorReductions(module); // before promotion: <2 x i1> to i2
    promoteIllegalIntegers(module); // after expandIntegerAbs: abs of an iN
    splitAggregatePhis(module);
    splitAggregateSelects(module);
    splatSelectConditions(module);
    separateRepeatedEdges(module);
    hintScalarForRotatingLoops(module); // Intel's CPU vectoriser: see there
    hintScalarForStridedLanes(module);  // likewise
    addressPrivateArraysByInteger(module); // Intel's CPU runtime: see there
  }

  /// OpenCL: local buffers are kernel arguments the launch sizes.
  bool localMemoryAsParameters() const override { return true; }

  /// OpenCL 1.2 has integer atomics only.
  bool hasFloatAtomicAdd() const override { return false; }

  void emitBarrier(llvm::IRBuilder<> &builder) const override {
    // OpenCL 1.2's barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE):
    // every device takes it; the translator makes OpControlBarrier of it.
    llvm::CallInst *call =
        callBuiltin(builder, "_Z7barrierj", builder.getVoidTy(),
                    {builder.getInt32(3)}, true);
    call->addFnAttr(llvm::Attribute::Convergent);
  }

  void emitMemoryFence(llvm::IRBuilder<> &builder) const override {
    // An LLVM fence: the translator makes OpMemoryBarrier of it, which
    // every OpenCL consumer takes (PoCL 3.1 has no mem_fence to link).
    builder.CreateFence(llvm::AtomicOrdering::SequentiallyConsistent);
  }

  void markKernel(llvm::Function &function) const override {
    function.setCallingConv(llvm::CallingConv::SPIR_KERNEL);
    function.addFnAttr(llvm::Attribute::NoUnwind);
  }

  llvm::CallingConv::ID functionCallingConvention() const override {
    return llvm::CallingConv::SPIR_FUNC;
  }

  bool emitPrintf(llvm::IRBuilder<> &builder, const std::string &format,
                  llvm::ArrayRef<llvm::Value *> args) const override {
    // OpenCL's printf takes its format in the constant address space (2);
    // the translator makes OpenCL.std's printf of the call.
    llvm::Module &module = *builder.GetInsertBlock()->getModule();
    unsigned constant = 2;
    auto *text = llvm::ConstantDataArray::getString(builder.getContext(),
                                                    format);
    auto *global = new llvm::GlobalVariable(
        module, text->getType(), true, llvm::GlobalValue::InternalLinkage,
        text, "printf.format", nullptr, llvm::GlobalValue::NotThreadLocal,
        constant);
    global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    auto *formatType = llvm::PointerType::get(builder.getInt8Ty(), constant);
    llvm::FunctionCallee printf = module.getOrInsertFunction(
        "printf",
        llvm::FunctionType::get(builder.getInt32Ty(), {formatType}, true));
    if (auto *declared = llvm::dyn_cast<llvm::Function>(printf.getCallee()))
      declared->setCallingConv(llvm::CallingConv::SPIR_FUNC);
    std::vector<llvm::Value *> operands = {
        builder.CreateConstInBoundsGEP2_32(text->getType(), global, 0, 0)};
    operands.insert(operands.end(), args.begin(), args.end());
    builder.CreateCall(printf, operands)
        ->setCallingConv(llvm::CallingConv::SPIR_FUNC);
    return true;
  }

  llvm::Value *emitWorkItemQuery(llvm::IRBuilder<> &builder,
                                 WorkItemQuery query,
                                 llvm::Value *dim) const override {
    const char *name = nullptr;
    switch (query) {
    case WorkItemQuery::GlobalId:
      name = "_Z13get_global_idj";
      break;
    case WorkItemQuery::GlobalSize:
      name = "_Z15get_global_sizej";
      break;
    case WorkItemQuery::LocalId:
      name = "_Z12get_local_idj";
      break;
    case WorkItemQuery::LocalSize:
      name = "_Z14get_local_sizej";
      break;
    case WorkItemQuery::GroupId:
      name = "_Z12get_group_idj";
      break;
    case WorkItemQuery::NumGroups:
      name = "_Z14get_num_groupsj";
      break;
    }
    llvm::CallInst *call =
        callBuiltin(builder, name, builder.getInt64Ty(), {dim});
    // Ids and sizes are non-negative and below 2^62: this lets LLVM drop
    // negative-index wrap-around checks on ids.
    llvm::MDBuilder md(builder.getContext());
    call->setMetadata(
        llvm::LLVMContext::MD_range,
        md.createRange(
            llvm::APInt(64, query == WorkItemQuery::GlobalSize ||
                                    query == WorkItemQuery::LocalSize ||
                                    query == WorkItemQuery::NumGroups
                                ? 1
                                : 0),
            llvm::APInt(64, 1ull << 62)));
    return call;
  }

  llvm::Value *emitMathCall(llvm::IRBuilder<> &builder, const std::string &name,
                            llvm::ArrayRef<llvm::Value *> args) const override {
    std::string mangled = "_Z" + std::to_string(name.size()) + name;
    for (llvm::Value *arg : args)
      mangled += mangledScalar(arg->getType());
    return callBuiltin(builder, mangled, args[0]->getType(), args);
  }

private:
  llvm::CallInst *callBuiltin(llvm::IRBuilder<> &builder,
                              const std::string &mangled, llvm::Type *result,
                              llvm::ArrayRef<llvm::Value *> args,
                              bool synchronizes = false) const {
    llvm::Module *module = builder.GetInsertBlock()->getModule();
    std::vector<llvm::Type *> params;
    for (llvm::Value *arg : args)
      params.push_back(arg->getType());
    auto *type = llvm::FunctionType::get(result, params, false);
    llvm::FunctionCallee callee = module->getOrInsertFunction(mangled, type);
    auto *function = llvm::cast<llvm::Function>(callee.getCallee());
    function->setCallingConv(llvm::CallingConv::SPIR_FUNC);
    function->addFnAttr(llvm::Attribute::NoUnwind);
    if (synchronizes) // barriers and fences: never moved, merged or cloned
      function->addFnAttr(llvm::Attribute::Convergent);
    else {
      function->addFnAttr(llvm::Attribute::ReadNone);
      function->addFnAttr(llvm::Attribute::WillReturn);
    }
    llvm::CallInst *call = builder.CreateCall(callee, args);
    call->setCallingConv(llvm::CallingConv::SPIR_FUNC);
    return call;
  }
};

} // namespace

std::unique_ptr<DeviceTarget> createSPIRTarget() {
  return std::make_unique<SPIRTarget>();
}

} // namespace spirjit
