// NVIDIA GPUs through LLVM 15's NVPTX back end: the NVPTX target's hooks
// for the lowering (createNVPTXTarget) and the last step to PTX text
// (emitPTX, NVPTX.h). docs/architecture.md says why the module is
// retargeted here rather than SPIR-V translated back per device.
#include "compiler/NVPTX.h"
#include "compiler/Target.h"

#include "frontend/Diagnostics.h"

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/DebugInfo.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/IPO/AlwaysInliner.h>

#include <cstdlib>
#include <mutex>
#include <set>

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

namespace spirjit {
namespace {

constexpr const char *Triple = "nvptx64-nvidia-cuda";
/// What NVPTXTargetMachine64 computes without short pointers.
constexpr const char *DataLayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64";
/// Global-size queries until emitPTX knows the extents' parameters.
constexpr const char *GlobalSizeQuery = "spirjit.nvptx.global.size";
constexpr unsigned SharedSpace = 3;

/// One PTX special register per dimension: x, y, z.
struct SpecialRegister {
  llvm::Intrinsic::ID x, y, z;
};
constexpr SpecialRegister ThreadId = {
    llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x,
    llvm::Intrinsic::nvvm_read_ptx_sreg_tid_y,
    llvm::Intrinsic::nvvm_read_ptx_sreg_tid_z};
constexpr SpecialRegister BlockSize = {
    llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x,
    llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_y,
    llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_z};
constexpr SpecialRegister BlockId = {
    llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x,
    llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y,
    llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z};
constexpr SpecialRegister GridSize = {
    llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x,
    llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_y,
    llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_z};

/// The register of constant dimension `d`, zero-extended to i64.
llvm::Value *readRegister(llvm::IRBuilder<> &builder, SpecialRegister reg,
                          unsigned d) {
  llvm::Module *module = builder.GetInsertBlock()->getModule();
  llvm::Intrinsic::ID id = d == 0 ? reg.x : d == 1 ? reg.y : reg.z;
  return builder.CreateZExt(
      builder.CreateCall(llvm::Intrinsic::getDeclaration(module, id)),
      builder.getInt64Ty());
}

/// `perDimension(d)` for an OpenCL dimension that may be known only at run
/// time: a constant picks its value, else selects pick among the three.
template <typename PerDimension>
llvm::Value *byDimension(llvm::IRBuilder<> &builder, llvm::Value *dim,
                         PerDimension perDimension) {
  if (auto *constant = llvm::dyn_cast<llvm::ConstantInt>(dim))
    return perDimension(static_cast<unsigned>(constant->getZExtValue()));
  llvm::Value *x = perDimension(0), *y = perDimension(1), *z = perDimension(2);
  return builder.CreateSelect(
      builder.CreateICmpEQ(dim, builder.getInt32(0)), x,
      builder.CreateSelect(builder.CreateICmpEQ(dim, builder.getInt32(1)), y,
                           z));
}

class NVPTXTarget : public DeviceTarget {
public:
  std::string name() const override { return Triple; }

  void configureModule(llvm::Module &module) const override {
    module.setTargetTriple(Triple);
    module.setDataLayout(DataLayout);
  }

  /// NVVM's numbering: generic 0 (allocas stay there; the back end finds
  /// them local), global 1, shared 3.
  unsigned addressSpace(MemorySpace space) const override {
    switch (space) {
    case MemorySpace::Global:
      return 1;
    case MemorySpace::Local:
      return SharedSpace;
    case MemorySpace::Private:
    case MemorySpace::Generic:
      return 0;
    }
    SPIRJIT_INTERNAL_CHECK(false, "no address space for this memory space");
    return 0;
  }

  void markKernel(llvm::Function &function) const override {
    function.addFnAttr(llvm::Attribute::NoUnwind);
    // A function is a PTX .entry only through this annotation (or the
    // ptx_kernel convention); emitPTX renews it for the final entry point.
    llvm::LLVMContext &context = function.getContext();
    llvm::Metadata *operands[] = {
        llvm::ValueAsMetadata::get(&function),
        llvm::MDString::get(context, "kernel"),
        llvm::ConstantAsMetadata::get(
            llvm::ConstantInt::get(llvm::Type::getInt32Ty(context), 1))};
    function.getParent()
        ->getOrInsertNamedMetadata("nvvm.annotations")
        ->addOperand(llvm::MDNode::get(context, operands));
  }

  llvm::CallingConv::ID functionCallingConvention() const override {
    return llvm::CallingConv::C;
  }

  /// What the NVPTX back end selects natively stays an LLVM intrinsic;
  /// the rest (exp, sin, pow, ...) fails in LLVM 15's instruction
  /// selection and goes to libdevice, which emitPTX links.
  llvm::Value *emitMathCall(llvm::IRBuilder<> &builder, const std::string &name,
                            llvm::ArrayRef<llvm::Value *> args) const override {
    static const std::pair<const char *, llvm::Intrinsic::ID> native[] = {
        {"sqrt", llvm::Intrinsic::sqrt},   {"fabs", llvm::Intrinsic::fabs},
        {"floor", llvm::Intrinsic::floor}, {"ceil", llvm::Intrinsic::ceil},
        {"trunc", llvm::Intrinsic::trunc}, {"rint", llvm::Intrinsic::rint},
        {"fma", llvm::Intrinsic::fma}};
    llvm::Type *type = args[0]->getType();
    llvm::Module *module = builder.GetInsertBlock()->getModule();
    for (const auto &[intrinsic, id] : native)
      if (name == intrinsic)
        return builder.CreateCall(
            llvm::Intrinsic::getDeclaration(module, id, {type}), args);
    std::string callee = "__nv_" + name + (type->isFloatTy() ? "f" : "");
    std::vector<llvm::Type *> params;
    for (llvm::Value *arg : args)
      params.push_back(arg->getType());
    llvm::FunctionCallee declared = module->getOrInsertFunction(
        callee, llvm::FunctionType::get(type, params, false));
    auto *function = llvm::cast<llvm::Function>(declared.getCallee());
    function->addFnAttr(llvm::Attribute::NoUnwind);
    function->addFnAttr(llvm::Attribute::ReadNone);
    function->addFnAttr(llvm::Attribute::WillReturn);
    return builder.CreateCall(declared, args);
  }

  /// PTX has atom.add.f32/f64 but no subtraction: an atomic fsub adds the
  /// negated operand.
  void legalize(llvm::Module &module) const override {
    std::vector<llvm::AtomicRMWInst *> subtractions;
    for (llvm::Function &function : module)
      for (llvm::Instruction &inst : llvm::instructions(function))
        if (auto *rmw = llvm::dyn_cast<llvm::AtomicRMWInst>(&inst))
          if (rmw->getOperation() == llvm::AtomicRMWInst::FSub)
            subtractions.push_back(rmw);
    for (llvm::AtomicRMWInst *rmw : subtractions) {
      llvm::IRBuilder<> builder(rmw);
      rmw->setOperation(llvm::AtomicRMWInst::FAdd);
      rmw->setOperand(1, builder.CreateFNeg(rmw->getValOperand()));
    }
  }

  /// CUDA's device printf: vprintf(format, arguments), the arguments packed
  /// into one buffer at their natural alignment (8 bytes for the i64s and
  /// doubles the lowering passes). The driver prints the buffer's lines at
  /// the next synchronisation.
  bool emitPrintf(llvm::IRBuilder<> &builder, const std::string &format,
                  llvm::ArrayRef<llvm::Value *> args) const override {
    llvm::Module &module = *builder.GetInsertBlock()->getModule();
    llvm::PointerType *i8Pointer = builder.getInt8PtrTy();
    auto *text =
        llvm::ConstantDataArray::getString(builder.getContext(), format);
    auto *global = new llvm::GlobalVariable(
        module, text->getType(), true, llvm::GlobalValue::InternalLinkage, text,
        "printf.format", nullptr, llvm::GlobalValue::NotThreadLocal,
        /*AddressSpace=*/1);
    global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    llvm::Value *formatPointer = builder.CreateAddrSpaceCast(
        builder.CreateConstInBoundsGEP2_32(text->getType(), global, 0, 0),
        i8Pointer);
    llvm::Value *buffer = llvm::ConstantPointerNull::get(i8Pointer);
    if (!args.empty()) {
      std::vector<llvm::Type *> fields;
      for (llvm::Value *arg : args)
        fields.push_back(arg->getType());
      auto *packed = llvm::StructType::get(builder.getContext(), fields);
      // In the entry block, so a print in a loop reuses one buffer.
      llvm::BasicBlock &entry =
          builder.GetInsertBlock()->getParent()->getEntryBlock();
      llvm::IRBuilder<> atEntry(&entry, entry.getFirstInsertionPt());
      llvm::AllocaInst *storage =
          atEntry.CreateAlloca(packed, nullptr, "printf.args");
      for (unsigned k = 0; k < args.size(); ++k)
        builder.CreateStore(args[k],
                            builder.CreateStructGEP(packed, storage, k));
      buffer = builder.CreateBitCast(storage, i8Pointer);
    }
    llvm::FunctionCallee vprintf = module.getOrInsertFunction(
        "vprintf", llvm::FunctionType::get(builder.getInt32Ty(),
                                           {i8Pointer, i8Pointer}, false));
    builder.CreateCall(vprintf, {formatPointer, buffer});
    return true;
  }

  /// Local buffers reach the lowering as pointer parameters, as on OpenCL;
  /// emitPTX turns each into an offset into the dynamic shared segment.
  bool localMemoryAsParameters() const override { return true; }

  /// atom.add.f32 everywhere, atom.add.f64 from sm_60.
  bool hasFloatAtomicAdd() const override { return true; }

  /// NVPTX selects monotonic loads and stores as ld/st.volatile (relaxed,
  /// system scope: what atom.or and atom.exch without .sem give).
  bool hasAtomicLoadStore() const override { return true; }

  void emitBarrier(llvm::IRBuilder<> &builder) const override {
    // bar.sync 0 orders shared and global memory among the block's
    // threads; the intrinsic is convergent.
    builder.CreateCall(llvm::Intrinsic::getDeclaration(
        builder.GetInsertBlock()->getModule(), llvm::Intrinsic::nvvm_barrier0));
  }

  void emitMemoryFence(llvm::IRBuilder<> &builder) const override {
    builder.CreateCall(
        llvm::Intrinsic::getDeclaration(builder.GetInsertBlock()->getModule(),
                                        llvm::Intrinsic::nvvm_membar_gl));
  }

  int64_t subGroupSize() const override { return 32; } // a warp

  /// shfl.sync: a sub-group is a warp (32 consecutive linear ids, as
  /// CUDA numbers a block's threads, x fastest).
  bool hasShuffles() const override { return true; }
  llvm::Value *emitShuffle(llvm::IRBuilder<> &builder, Shuffle kind,
                           llvm::Value *mask, llvm::Value *value,
                           llvm::Value *lane) const override {
    llvm::Intrinsic::ID id = kind == Shuffle::Index
                                 ? llvm::Intrinsic::nvvm_shfl_sync_idx_i32
                             : kind == Shuffle::Up
                                 ? llvm::Intrinsic::nvvm_shfl_sync_up_i32
                             : kind == Shuffle::Down
                                 ? llvm::Intrinsic::nvvm_shfl_sync_down_i32
                                 : llvm::Intrinsic::nvvm_shfl_sync_bfly_i32;
    // The c operand: the lowest lane for Up, the highest for the others
    // (a whole warp, no segments).
    unsigned clamp = kind == Shuffle::Up ? 0 : 0x1f;
    return builder.CreateCall(
        llvm::Intrinsic::getDeclaration(builder.GetInsertBlock()->getModule(),
                                        id),
        {mask, value, lane, builder.getInt32(clamp)});
  }

  llvm::Value *emitBallot(llvm::IRBuilder<> &builder, llvm::Value *mask,
                          llvm::Value *truth) const override {
    return builder.CreateCall(
        llvm::Intrinsic::getDeclaration(builder.GetInsertBlock()->getModule(),
                                        llvm::Intrinsic::nvvm_vote_ballot_sync),
        {mask, truth});
  }

  llvm::Value *emitWorkItemQuery(llvm::IRBuilder<> &builder,
                                 WorkItemQuery query,
                                 llvm::Value *dim) const override {
    switch (query) {
    case WorkItemQuery::GlobalId:
      return byDimension(builder, dim, [&](unsigned d) {
        return builder.CreateAdd(
            builder.CreateMul(readRegister(builder, BlockId, d),
                              readRegister(builder, BlockSize, d), "", true,
                              true),
            readRegister(builder, ThreadId, d), "", true, true);
      });
    case WorkItemQuery::LocalId:
      return byDimension(builder, dim, [&](unsigned d) {
        return readRegister(builder, ThreadId, d);
      });
    case WorkItemQuery::LocalSize:
      return byDimension(builder, dim, [&](unsigned d) {
        return readRegister(builder, BlockSize, d);
      });
    case WorkItemQuery::GroupId:
      return byDimension(builder, dim, [&](unsigned d) {
        return readRegister(builder, BlockId, d);
      });
    case WorkItemQuery::NumGroups:
      return byDimension(builder, dim, [&](unsigned d) {
        return readRegister(builder, GridSize, d);
      });
    case WorkItemQuery::GlobalSize:
      break;
    }
    // A grid is whole blocks, so the global size is the launch's: a
    // parameter emitPTX adds.
    llvm::Module *module = builder.GetInsertBlock()->getModule();
    llvm::FunctionCallee declared = module->getOrInsertFunction(
        GlobalSizeQuery,
        llvm::FunctionType::get(builder.getInt64Ty(), {builder.getInt32Ty()},
                                false));
    auto *function = llvm::cast<llvm::Function>(declared.getCallee());
    function->addFnAttr(llvm::Attribute::NoUnwind);
    function->addFnAttr(llvm::Attribute::ReadNone);
    function->addFnAttr(llvm::Attribute::WillReturn);
    llvm::CallInst *call = builder.CreateCall(declared, {dim});
    llvm::MDBuilder md(builder.getContext());
    call->setMetadata(
        llvm::LLVMContext::MD_range,
        md.createRange(llvm::APInt(64, 1), llvm::APInt(64, 1ull << 62)));
    return call;
  }
};

void initializeNVPTX() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

std::unique_ptr<llvm::TargetMachine> createTargetMachine(int capability) {
  initializeNVPTX();
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(Triple, error);
  SPIRJIT_INTERNAL_CHECK(target, "LLVM has no NVPTX target: " + error);
  std::string processor = ptxProcessor(capability);
  std::string cpu = processor.substr(0, processor.find(' '));
  std::string features = processor.substr(processor.find(' ') + 1);
  // No fma contraction (nvcc's -fmad=true would contract): results stay
  // those of the other devices and of every optimisation level.
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      Triple, cpu, features, llvm::TargetOptions(), llvm::None, llvm::None,
      llvm::CodeGenOpt::Aggressive));
}

/// Runs the passes `build` adds, with the analyses of `machine`.
template <typename Build>
void runPasses(llvm::Module &module, llvm::TargetMachine &machine,
               Build build) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder(&machine);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(cgscc);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, cgscc, modules);
  llvm::ModulePassManager passes = build(builder);
  passes.run(module, modules);
}

/// Global-size queries answered by the entry point's extents parameters.
/// Device functions that ask are inlined first: only the entry point has
/// the parameters.
void answerGlobalSizeQueries(llvm::Module &module, llvm::Function &kernel,
                             llvm::ArrayRef<llvm::Value *> extents,
                             llvm::TargetMachine &machine) {
  llvm::Function *query = module.getFunction(GlobalSizeQuery);
  if (!query)
    return;
  bool elsewhere = false;
  for (llvm::User *user : query->users())
    elsewhere |= llvm::cast<llvm::Instruction>(user)->getFunction() != &kernel;
  if (elsewhere) {
    for (llvm::Function &function : module)
      if (&function != &kernel && !function.isDeclaration()) {
        function.removeFnAttr(llvm::Attribute::NoInline);
        function.addFnAttr(llvm::Attribute::AlwaysInline);
      }
    runPasses(module, machine, [](llvm::PassBuilder &) {
      llvm::ModulePassManager passes;
      passes.addPass(llvm::AlwaysInlinerPass());
      return passes;
    });
  }
  std::vector<llvm::CallInst *> calls;
  for (llvm::User *user : query->users())
    calls.push_back(llvm::cast<llvm::CallInst>(user));
  for (llvm::CallInst *call : calls) {
    SPIRJIT_INTERNAL_CHECK(call->getFunction() == &kernel,
                           "a global-size query outside the kernel was not "
                           "inlined");
    llvm::IRBuilder<> builder(call);
    call->replaceAllUsesWith(
        byDimension(builder, call->getArgOperand(0),
                    [&](unsigned d) { return extents[d < 3 ? d : 2]; }));
    call->eraseFromParent();
  }
  query->eraseFromParent();
}

/// The CUDA ABI of the entry point (see emitPTX in NVPTX.h).
llvm::Function *rewriteEntryPoint(llvm::Module &module,
                                  const PTXRequest &request,
                                  llvm::TargetMachine &machine) {
  const std::string &entryPoint = request.entryPoint;
  llvm::Function *old = module.getFunction(entryPoint);
  SPIRJIT_INTERNAL_CHECK(old && !old->isDeclaration(),
                         "no kernel " + entryPoint + " to emit");
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *i32 = llvm::Type::getInt32Ty(context);
  llvm::Type *i64 = llvm::Type::getInt64Ty(context);
  std::vector<llvm::Type *> params;
  std::vector<llvm::AttributeSet> attributes;
  llvm::AttributeList oldAttributes = old->getAttributes();
  bool usesShared = false;
  for (llvm::Argument &arg : old->args()) {
    auto *pointer = llvm::dyn_cast<llvm::PointerType>(arg.getType());
    bool shared = pointer && pointer->getAddressSpace() == SharedSpace;
    usesShared |= shared;
    params.push_back(shared ? i32 : arg.getType());
    attributes.push_back(shared ? llvm::AttributeSet()
                                : oldAttributes.getParamAttrs(arg.getArgNo()));
  }
  for (int d = 0; d < 3; ++d) {
    params.push_back(i64);
    attributes.push_back(llvm::AttributeSet());
  }
  auto *type = llvm::FunctionType::get(old->getReturnType(), params, false);
  llvm::Function *kernel = llvm::Function::Create(
      type, llvm::Function::ExternalLinkage, "", &module);
  kernel->setAttributes(
      llvm::AttributeList::get(context, oldAttributes.getFnAttrs(),
                               oldAttributes.getRetAttrs(), attributes));
  kernel->takeName(old);
  kernel->getBasicBlockList().splice(kernel->end(), old->getBasicBlockList());
  llvm::BasicBlock *body = &kernel->getEntryBlock();
  // Fixed-size allocas (PrivateArray) stay in the entry block, static. They
  // are found while their block is the entry: only there is an alloca
  // static.
  std::vector<llvm::AllocaInst *> allocas;
  for (llvm::Instruction &inst : *body)
    if (auto *alloca = llvm::dyn_cast<llvm::AllocaInst>(&inst))
      if (alloca->isStaticAlloca())
        allocas.push_back(alloca);
  llvm::BasicBlock *entry =
      llvm::BasicBlock::Create(context, "entry", kernel, body);
  llvm::IRBuilder<> builder(entry);

  llvm::GlobalVariable *segment = nullptr;
  llvm::Type *segmentType = llvm::ArrayType::get(builder.getInt8Ty(), 0);
  if (usesShared) {
    segment = new llvm::GlobalVariable(
        module, segmentType, false, llvm::GlobalValue::ExternalLinkage, nullptr,
        "spirjit_shared", nullptr, llvm::GlobalValue::NotThreadLocal,
        SharedSpace);
    segment->setAlignment(llvm::Align(16));
  }
  auto arg = kernel->arg_begin();
  for (llvm::Argument &oldArg : old->args()) {
    llvm::Argument *newArg = &*arg++;
    newArg->setName(oldArg.getName());
    if (newArg->getType() == oldArg.getType()) {
      oldArg.replaceAllUsesWith(newArg);
      continue;
    }
    newArg->setName(oldArg.getName() + ".offset");
    llvm::Value *base =
        builder.CreateConstInBoundsGEP2_32(segmentType, segment, 0, 0);
    llvm::Value *buffer =
        builder.CreateInBoundsGEP(builder.getInt8Ty(), base, newArg);
    // The runtime lays local buffers out 16-byte aligned (CudaKernel::
    // prepare): said so, neighbouring elements of a tile row load as one
    // vector (ld.shared.v4).
    builder.CreateAlignmentAssumption(module.getDataLayout(), buffer, 16);
    oldArg.replaceAllUsesWith(
        builder.CreateBitCast(buffer, oldArg.getType(), oldArg.getName()));
  }
  std::vector<llvm::Value *> extents;
  for (int d = 0; d < 3; ++d) {
    llvm::Argument *extent = &*arg++;
    extent->setName("global.size" + std::to_string(d));
    extents.push_back(extent);
  }

  // The grid is whole blocks: work-items past the extents return at once.
  // An NdRange's extents are whole groups (the runtime refuses others), so
  // it has no such items and no guard.
  llvm::Value *outside = builder.getFalse();
  unsigned guarded =
      request.wholeGroups ? 0 : static_cast<unsigned>(request.dimensions);
  for (unsigned d = 0; d < guarded; ++d) {
    llvm::Value *id = builder.CreateAdd(
        builder.CreateMul(readRegister(builder, BlockId, d),
                          readRegister(builder, BlockSize, d)),
        readRegister(builder, ThreadId, d));
    outside = builder.CreateOr(outside, builder.CreateICmpUGE(id, extents[d]));
  }
  llvm::BasicBlock *exit =
      llvm::BasicBlock::Create(context, "outside.range", kernel);
  llvm::ReturnInst::Create(context, exit);
  builder.CreateCondBr(outside, exit, body);
  for (llvm::AllocaInst *alloca : allocas)
    alloca->moveBefore(&*entry->getFirstInsertionPt());

  old->eraseFromParent();
  llvm::NamedMDNode *annotations =
      module.getOrInsertNamedMetadata("nvvm.annotations");
  annotations->clearOperands();
  llvm::Metadata *operands[] = {
      llvm::ValueAsMetadata::get(kernel),
      llvm::MDString::get(context, "kernel"),
      llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(i32, 1))};
  annotations->addOperand(llvm::MDNode::get(context, operands));

  answerGlobalSizeQueries(module, *kernel, extents, machine);
  return kernel;
}

/// The libdevice functions the module calls, by name.
std::vector<std::string> libdeviceCalls(const llvm::Module &module) {
  std::vector<std::string> names;
  for (const llvm::Function &function : module)
    if (function.isDeclaration() && !function.use_empty() &&
        function.getName().startswith("__nv_"))
      names.push_back(function.getName().str());
  return names;
}

/// libdevice rounds to the nearest even integer through llvm.nvvm.round.*
/// (its __nv_rintf is that call alone), but LLVM 15's NVPTX InstCombine
/// folds those calls into llvm.round, which rounds halves away from zero:
/// math.gamma's float32 reduction `x - rint(x)` then swapped the results
/// at +-0.5. llvm.rint is the same rounding and stays cvt.rni.
void replaceNVVMRound(llvm::Module &module) {
  const llvm::Intrinsic::ID rounds[] = {llvm::Intrinsic::nvvm_round_f,
                                        llvm::Intrinsic::nvvm_round_ftz_f,
                                        llvm::Intrinsic::nvvm_round_d};
  for (llvm::Intrinsic::ID id : rounds) {
    llvm::Function *round =
        module.getFunction(llvm::Intrinsic::getBaseName(id));
    if (!round)
      continue;
    llvm::Function *rint = llvm::Intrinsic::getDeclaration(
        &module, llvm::Intrinsic::rint, {round->getReturnType()});
    round->replaceAllUsesWith(rint);
    round->eraseFromParent();
  }
}

void linkLibdevice(llvm::Module &module, const PTXRequest &request,
                   const std::vector<std::string> &calls) {
  std::string path = libdevicePath();
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    std::string names;
    for (const std::string &call : calls)
      names += (names.empty() ? "" : ", ") + call.substr(5);
    throw UserError(
        UserErrorKind::Compile, request.filename, request.line,
        "'" + request.functionName + "' calls math functions (" + names +
            ") that CUDA devices compute through NVIDIA's libdevice, and " +
            path + " cannot be read (" + buffer.getError().message() +
            "); install the CUDA toolkit's nvvm component or set "
            "SPIRJIT_LIBDEVICE to libdevice.10.bc");
  }
  llvm::Expected<std::unique_ptr<llvm::Module>> library =
      llvm::parseBitcodeFile(buffer.get()->getMemBufferRef(),
                             module.getContext());
  if (!library)
    throw UserError(UserErrorKind::Compile, request.filename, request.line,
                    path + " is not LLVM bitcode that LLVM 15 reads (" +
                        llvm::toString(library.takeError()) +
                        "); point SPIRJIT_LIBDEVICE at CUDA's libdevice.10.bc");
  (*library)->setTargetTriple(module.getTargetTriple());
  (*library)->setDataLayout(module.getDataLayout());
  bool failed = llvm::Linker::linkModules(module, std::move(*library),
                                          llvm::Linker::LinkOnlyNeeded);
  SPIRJIT_INTERNAL_CHECK(!failed, "linking libdevice failed");
  replaceNVVMRound(module);
  // libdevice asks __nvvm_reflect whether denormals flush; the back end's
  // NVVMReflect answers from this flag.
  module.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz",
                       request.fastmath ? 1 : 0);
}

/// LLVM's O3 pipeline again, now with the NVPTX target's analyses and
/// passes, which the target-independent one before (optimizeModule) had
/// not: special-register ranges (NVVMIntrRange), NVVMReflect, address
/// spaces inferred from generic pointers, NVPTX's unrolling preferences.
/// Only the entry point stays visible, so device functions and libdevice
/// inline and the unused ones go; the entry point's extents guard,
/// added after the first pipeline, is optimised with the body.
void optimizeForNVPTX(llvm::Module &module, const PTXRequest &request,
                      llvm::TargetMachine &machine) {
  for (llvm::Function &function : module)
    if (!function.isDeclaration() && function.getName() != request.entryPoint)
      function.setLinkage(llvm::GlobalValue::InternalLinkage);
  for (llvm::GlobalVariable &global : module.globals())
    if (!global.isDeclaration())
      global.setLinkage(llvm::GlobalValue::InternalLinkage);
  runPasses(module, machine, [](llvm::PassBuilder &builder) {
    return builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  });
}

/// Which integers of `function` are never negative: constants, zero
/// extensions, special registers (ranges), and what sums, products and
/// quotients keep so; phis are assumed so until an incoming value is not
/// (a greatest fixed point, so loop counters halved each turn qualify).
class NonNegativeIntegers {
public:
  explicit NonNegativeIntegers(llvm::Function &function)
      : layout_(function.getParent()->getDataLayout()) {
    for (llvm::Instruction &inst : llvm::instructions(function))
      if (auto *phi = llvm::dyn_cast<llvm::PHINode>(&inst))
        if (phi->getType()->isIntegerTy())
          assumed_.insert(phi);
    for (bool changed = true; changed;) {
      changed = false;
      for (llvm::PHINode *phi :
           std::vector<llvm::PHINode *>(assumed_.begin(), assumed_.end()))
        for (llvm::Value *incoming : phi->incoming_values())
          if (!holds(incoming)) {
            assumed_.erase(phi);
            changed = true;
            break;
          }
    }
  }

  bool holds(llvm::Value *value, unsigned depth = 0) const {
    if (auto *constant = llvm::dyn_cast<llvm::ConstantInt>(value))
      return !constant->isNegative();
    if (auto *phi = llvm::dyn_cast<llvm::PHINode>(value))
      return assumed_.count(phi) != 0;
    auto *inst = llvm::dyn_cast<llvm::Instruction>(value);
    if (!inst || depth > 8)
      return llvm::isKnownNonNegative(value, layout_);
    auto operand = [&](unsigned k) {
      return holds(inst->getOperand(k), depth + 1);
    };
    auto positiveConstant = [&](unsigned k) {
      auto *c = llvm::dyn_cast<llvm::ConstantInt>(inst->getOperand(k));
      return c && c->getValue().isStrictlyPositive();
    };
    switch (inst->getOpcode()) {
    case llvm::Instruction::ZExt:
      return true;
    case llvm::Instruction::LShr:
      return positiveConstant(1) || operand(0);
    case llvm::Instruction::And:
      return operand(0) || operand(1);
    case llvm::Instruction::UDiv:
    case llvm::Instruction::URem:
    case llvm::Instruction::AShr:
      return operand(0);
    case llvm::Instruction::SDiv:
      return operand(0) && positiveConstant(1);
    case llvm::Instruction::Add:
    case llvm::Instruction::Mul:
      return inst->hasNoSignedWrap() && operand(0) && operand(1);
    case llvm::Instruction::Select:
      return operand(1) && operand(2);
    default:
      return llvm::isKnownNonNegative(value, layout_);
    }
  }

private:
  const llvm::DataLayout &layout_;
  std::set<llvm::PHINode *> assumed_;
};

/// Python's `//` and `%` by a positive constant are signed; on values that
/// are never negative they become unsigned, which the back end makes a
/// shift or mask. LLVM cannot see it for a loop counter halved each turn
/// (`s //= 2` in a tree reduction), and the signed 64-bit form costs four
/// instructions a turn instead of one.
void unsignedDivisions(llvm::Function &function) {
  NonNegativeIntegers nonNegative(function);
  std::vector<llvm::BinaryOperator *> divisions;
  for (llvm::Instruction &inst : llvm::instructions(function))
    if (auto *op = llvm::dyn_cast<llvm::BinaryOperator>(&inst))
      if (op->getOpcode() == llvm::Instruction::SDiv ||
          op->getOpcode() == llvm::Instruction::SRem)
        if (auto *c = llvm::dyn_cast<llvm::ConstantInt>(op->getOperand(1)))
          if (c->getValue().isStrictlyPositive() &&
              nonNegative.holds(op->getOperand(0)))
            divisions.push_back(op);
  for (llvm::BinaryOperator *op : divisions) {
    auto *unsignedOp = llvm::BinaryOperator::Create(
        op->getOpcode() == llvm::Instruction::SDiv ? llvm::Instruction::UDiv
                                                   : llvm::Instruction::URem,
        op->getOperand(0), op->getOperand(1), "", op);
    unsignedOp->takeName(op);
    if (op->getOpcode() == llvm::Instruction::SDiv)
      unsignedOp->setIsExact(op->isExact());
    op->replaceAllUsesWith(unsignedOp);
    op->eraseFromParent();
  }
}

/// Moves `inst` up its block to just after the latest of `floor` and its
/// operands, moving the pure instructions that compute them (the address
/// arithmetic) first.
void hoistAfter(llvm::Instruction *inst, llvm::Instruction *floor) {
  llvm::BasicBlock *block = inst->getParent();
  llvm::Instruction *after = floor;
  for (llvm::Value *operand : inst->operands()) {
    auto *def = llvm::dyn_cast<llvm::Instruction>(operand);
    if (!def || def->getParent() != block)
      continue;
    if (!llvm::isa<llvm::PHINode>(def) && !def->mayReadOrWriteMemory() &&
        !def->mayHaveSideEffects() && (!floor || floor->comesBefore(def)))
      hoistAfter(def, floor);
    if (!after || after->comesBefore(def))
      after = def;
  }
  if (!after)
    inst->moveBefore(&*block->getFirstInsertionPt());
  else if (inst->getPrevNode() != after)
    inst->moveAfter(after);
}

/// Global-memory loads move up their block, with their address
/// arithmetic, to just after the last instruction that may write memory
/// (or the block's phis). The GPU then has a thread's loads in flight
/// together: ptxas does not hoist them over sqrt.rn or div.rn, which
/// become branches in SASS, so a load written after a square root waited
/// for the one before it (Black-Scholes ran 14% slower than nvcc's code,
/// which NVVM had ordered so).
void hoistGlobalLoads(llvm::Function &function) {
  for (llvm::BasicBlock &block : function) {
    llvm::Instruction *floor = nullptr;
    for (llvm::Instruction &inst : llvm::make_early_inc_range(block)) {
      auto *load = llvm::dyn_cast<llvm::LoadInst>(&inst);
      if (load && load->isSimple() && load->getPointerAddressSpace() == 1)
        hoistAfter(load, floor);
      else if (inst.mayWriteToMemory() || inst.mayHaveSideEffects() ||
               llvm::isa<llvm::PHINode>(inst))
        floor = &inst;
    }
  }
}

} // namespace

std::unique_ptr<DeviceTarget> createNVPTXTarget() {
  return std::make_unique<NVPTXTarget>();
}

std::string libdevicePath() {
  const char *path = std::getenv("SPIRJIT_LIBDEVICE");
  return path && *path ? path
                       : "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc";
}

std::string ptxProcessor(int computeCapability) {
  // sm_86 is the newest processor LLVM 15 knows; unknown means sm_80.
  int sm = computeCapability <= 0   ? 80
           : computeCapability > 86 ? 86
                                    : computeCapability;
  return "sm_" + std::to_string(sm) + " +ptx75";
}

std::string emitPTX(llvm::Module &module, const PTXRequest &request) {
  std::unique_ptr<llvm::TargetMachine> machine =
      createTargetMachine(request.computeCapability);
  rewriteEntryPoint(module, request, *machine);
  std::vector<std::string> calls = libdeviceCalls(module);
  if (!calls.empty())
    linkLibdevice(module, request, calls);
  if (request.optLevel > 0 || !calls.empty())
    optimizeForNVPTX(module, request, *machine);
  if (request.optLevel > 0)
    for (llvm::Function &function : module) {
      unsignedDivisions(function);
      hoistGlobalLoads(function);
    }
  llvm::StripDebugInfo(module); // the back end's PTX breaks on it
  std::string problems;
  llvm::raw_string_ostream verifierOutput(problems);
  SPIRJIT_INTERNAL_CHECK(!llvm::verifyModule(module, &verifierOutput),
                         "the CUDA entry point is invalid IR: " +
                             verifierOutput.str());
  llvm::SmallString<0> ptx;
  llvm::raw_svector_ostream out(ptx);
  llvm::legacy::PassManager passes;
  SPIRJIT_INTERNAL_CHECK(!machine->addPassesToEmitFile(passes, out, nullptr,
                                                       llvm::CGFT_AssemblyFile),
                         "the NVPTX back end cannot emit PTX");
  passes.run(module);
  return std::string(ptx.str());
}

} // namespace spirjit
