// The native CPU device's target (NativeTarget.h states the contracts).
#include "compiler/NativeTarget.h"

#include "compiler/HostTarget.h"
#include "compiler/KernelAPI.h"
#include "frontend/Diagnostics.h"
#include "runtime/NativeABI.h"

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <array>
#include <set>

namespace spirjit {

namespace {

constexpr WorkItemQuery allQueries[] = {
    WorkItemQuery::GlobalId, WorkItemQuery::GlobalSize,
    WorkItemQuery::LocalId,  WorkItemQuery::LocalSize,
    WorkItemQuery::GroupId,  WorkItemQuery::NumGroups};

/// The placeholder a query is until addWorkItemLoops replaces it.
std::string queryName(WorkItemQuery query) {
  static const char *names[] = {"global_id",  "global_size", "local_id",
                                "local_size", "group_id",    "num_groups"};
  return std::string("spirjit.native.") + names[static_cast<int>(query)];
}

/// What a query answers past the launch's rank, as OpenCL's built-ins.
bool isSizeQuery(WorkItemQuery query) {
  return query == WorkItemQuery::GlobalSize ||
         query == WorkItemQuery::LocalSize || query == WorkItemQuery::NumGroups;
}

const char *useAnotherDevice =
    " yet; use an OpenCL device (SPIRJIT_DEVICE=opencl:cpu:0)";

class NativeTarget : public DeviceTarget {
public:
  NativeTarget()
      : host_(createHostTarget(HostJIT::instance().triple(),
                               HostJIT::instance().dataLayout())),
        machine_(HostJIT::instance().createTargetMachine()) {}

  std::string name() const override { return "the native CPU device"; }
  void configureModule(llvm::Module &module) const override {
    host_->configureModule(module);
  }
  unsigned addressSpace(MemorySpace) const override { return 0; }
  void markKernel(llvm::Function &function) const override {
    function.addFnAttr(llvm::Attribute::NoUnwind);
  }
  llvm::CallingConv::ID functionCallingConvention() const override {
    return llvm::CallingConv::C;
  }
  llvm::Value *emitMathCall(llvm::IRBuilder<> &builder, const std::string &name,
                            llvm::ArrayRef<llvm::Value *> args) const override {
    return host_->emitMathCall(builder, name, args);
  }
  llvm::TargetMachine *targetMachine() const override { return machine_.get(); }

  void emitBarrier(llvm::IRBuilder<> &) const override {
    SPIRJIT_INTERNAL_CHECK(false, "a barrier reached the native CPU "
                                  "device's lowering past checkNativeKernel");
  }
  void emitMemoryFence(llvm::IRBuilder<> &builder) const override {
    builder.CreateFence(llvm::AtomicOrdering::SequentiallyConsistent);
  }
  llvm::Value *emitWorkItemQuery(llvm::IRBuilder<> &builder,
                                 WorkItemQuery query,
                                 llvm::Value *dim) const override {
    llvm::Module *module = builder.GetInsertBlock()->getModule();
    llvm::FunctionCallee callee = module->getOrInsertFunction(
        queryName(query),
        llvm::FunctionType::get(builder.getInt64Ty(), {builder.getInt32Ty()},
                                false));
    auto *function = llvm::cast<llvm::Function>(callee.getCallee());
    // Constant for the work-item: LLVM may merge and hoist the calls within
    // the kernel; addWorkItemLoops replaces them before the kernel is in a
    // loop over work-items.
    function->addFnAttr(llvm::Attribute::NoUnwind);
    function->addFnAttr(llvm::Attribute::ReadNone);
    function->addFnAttr(llvm::Attribute::WillReturn);
    llvm::CallInst *call = builder.CreateCall(callee, {dim});
    llvm::MDBuilder md(builder.getContext());
    call->setMetadata(llvm::LLVMContext::MD_range,
                      md.createRange(llvm::APInt(64, isSizeQuery(query)),
                                     llvm::APInt(64, 1ull << 62)));
    return call;
  }
  /// Never used: checkNativeKernel refuses local memory.
  bool localMemoryAsParameters() const override { return true; }
  /// x86-64 and AArch64 code generators take atomicrmw fadd (as a
  /// compare-and-swap loop where the CPU has no instruction).
  bool hasFloatAtomicAdd() const override { return true; }
  bool emitPrintf(llvm::IRBuilder<> &builder, const std::string &format,
                  llvm::ArrayRef<llvm::Value *> args) const override {
    llvm::Module &module = *builder.GetInsertBlock()->getModule();
    auto *i8ptr = builder.getInt8PtrTy();
    llvm::FunctionCallee printf = module.getOrInsertFunction(
        "printf", llvm::FunctionType::get(builder.getInt32Ty(), {i8ptr}, true));
    std::vector<llvm::Value *> operands = {
        builder.CreateGlobalStringPtr(format, "printf.format")};
    // C's default argument promotions, which OpenCL's printf does not need.
    for (llvm::Value *arg : args) {
      llvm::Type *type = arg->getType();
      if (type->isFloatTy())
        arg = builder.CreateFPExt(arg, builder.getDoubleTy());
      else if (type->isIntegerTy() && type->getIntegerBitWidth() < 32)
        arg = builder.CreateZExt(arg, builder.getInt32Ty());
      operands.push_back(arg);
    }
    builder.CreateCall(printf, operands);
    // Python reads the process's output through its own buffers: the line
    // must leave C's before the launch is seen to end.
    llvm::FunctionCallee flush = module.getOrInsertFunction(
        "fflush",
        llvm::FunctionType::get(builder.getInt32Ty(), {i8ptr}, false));
    builder.CreateCall(flush, {llvm::ConstantPointerNull::get(i8ptr)});
    return true;
  }

private:
  std::unique_ptr<Target> host_;
  std::unique_ptr<llvm::TargetMachine> machine_;
};

/// Refuses what of one function the device cannot run, at its line.
void checkFunction(const TypedFunction &function) {
  const FunctionDescription &description = *function.description;
  for (const auto &block : function.function->blocks)
    for (const auto &inst : block->instructions) {
      std::string what;
      // Local memory where it is used, not where the kernel takes it.
      bool local = false;
      for (const ir::Instruction *operand : inst->operands)
        local |= operand->type && operand->type->kind == TypeKind::Array &&
                 operand->type->memorySpace == MemorySpace::Local;
      if (local)
        what = "local memory (kapi.LocalAccessor)";
      else if (inst->isa(ir::Opcode::Call) && inst->operands[0]->type)
        if (const KernelApiFunction *api =
                findKernelApi(inst->operands[0]->type)) {
          if (api->id == KernelApi::GroupBarrier)
            what = "barriers";
          else if (api->id == KernelApi::GroupReduce ||
                   api->id == KernelApi::GroupBroadcast)
            what = "group collectives (kapi." + api->name + ")";
        }
      if (!what.empty())
        throw UserError(UserErrorKind::UnsupportedFeature, description.filename,
                        inst->line > 0 ? inst->line : description.firstLine,
                        "the native CPU device does not run kernels with " +
                            what + useAnotherDevice);
    }
}

/// The loops' indices, per query and OpenCL dimension.
using QueryValues = std::array<std::array<llvm::Value *, 3>, 6>;

/// Inlines every function `kernel` calls (device functions, which cannot
/// recurse), so that its queries are all in its body, and removes them; at
/// opt=0 LLVM left them calls.
void inlineCallees(llvm::Function &kernel) {
  for (bool again = true; again;) {
    again = false;
    for (llvm::BasicBlock &bb : kernel)
      for (llvm::Instruction &inst : bb)
        if (auto *call = llvm::dyn_cast<llvm::CallInst>(&inst))
          if (llvm::Function *callee = call->getCalledFunction();
              callee && !callee->isDeclaration()) {
            llvm::InlineFunctionInfo inlining;
            llvm::InlineResult inlined = llvm::InlineFunction(*call, inlining);
            SPIRJIT_INTERNAL_CHECK(inlined.isSuccess(),
                                   std::string("cannot inline ") +
                                       callee->getName().str() + ": " +
                                       inlined.getFailureReason());
            again = true;
            break;
          }
  }
  llvm::Module &module = *kernel.getParent();
  for (bool again = true; again;) {
    again = false;
    for (llvm::Function &function : module)
      if (&function != &kernel && !function.isDeclaration() &&
          function.hasLocalLinkage() && function.use_empty()) {
        function.eraseFromParent();
        again = true;
        break;
      }
  }
}

/// Replaces each query call (all in `chunk`) by its value.
void replaceQueries(llvm::Module &module, const llvm::Function &chunk,
                    const QueryValues &values) {
  for (WorkItemQuery query : allQueries) {
    llvm::Function *placeholder = module.getFunction(queryName(query));
    if (!placeholder)
      continue;
    const auto &perDim = values[static_cast<int>(query)];
    while (!placeholder->use_empty()) {
      auto *call = llvm::cast<llvm::CallInst>(placeholder->user_back());
      SPIRJIT_INTERNAL_CHECK(call->getFunction() == &chunk,
                             "a work-item query outside the kernel");
      llvm::IRBuilder<> builder(call);
      llvm::Value *dim = call->getArgOperand(0);
      llvm::Value *outside = builder.getInt64(isSizeQuery(query));
      llvm::Value *value = outside;
      if (auto *constant = llvm::dyn_cast<llvm::ConstantInt>(dim)) {
        if (constant->getZExtValue() < 3)
          value = perDim[constant->getZExtValue()];
      } else {
        for (unsigned d = 0; d < 3; ++d)
          value = builder.CreateSelect(
              builder.CreateICmpEQ(dim,
                                   llvm::ConstantInt::get(dim->getType(), d)),
              perDim[d], value);
      }
      call->replaceAllUsesWith(value);
      call->eraseFromParent();
    }
    placeholder->eraseFromParent();
  }
}

/// LLVM's diagnostics about the native device's module, which would
/// otherwise go to stderr: the library never prints. The vectoriser reports
/// each loop it was asked to vectorise and could not as a warning, no news
/// for the user (the loop runs as written); an error is kept for
/// emitHostObject to raise as a bug.
struct QuietDiagnostics : llvm::DiagnosticHandler {
  std::string error;
  bool handleDiagnostics(const llvm::DiagnosticInfo &info) override {
    if (info.getSeverity() == llvm::DS_Error && error.empty()) {
      llvm::raw_string_ostream os(error);
      llvm::DiagnosticPrinterRawOStream printer(os);
      info.print(printer);
      os.flush();
    }
    return true;
  }
};

/// Does `pointer` certainly not point into an alloca? Inlined, a
/// work-item's private memory is one alloca shared by every iteration of
/// the loops, so its accesses are not independent between work-items.
bool outsidePrivateMemory(const llvm::Value *pointer) {
  llvm::SmallVector<const llvm::Value *, 4> objects;
  llvm::getUnderlyingObjects(pointer, objects);
  for (const llvm::Value *object : objects)
    if (llvm::isa<llvm::AllocaInst>(object))
      return false;
  return true;
}

} // namespace

std::unique_ptr<DeviceTarget> createNativeTarget() {
  return std::make_unique<NativeTarget>();
}

void checkNativeKernel(const TypedFunction &kernel,
                       const Specializations &specializations) {
  checkFunction(kernel);
  for (const auto &[key, callee] : specializations.byKey)
    checkFunction(*callee);
}

void addWorkItemLoops(llvm::Module &module, const std::string &entryPoint,
                      int dimensions, bool ndRange) {
  llvm::Function *kernel = module.getFunction(entryPoint);
  SPIRJIT_INTERNAL_CHECK(kernel, "no kernel " + entryPoint + " to wrap");
  inlineCallees(*kernel);
  llvm::LLVMContext &context = module.getContext();
  context.setDiagnosticHandler(std::make_unique<QuietDiagnostics>());
  llvm::IRBuilder<> b(context);
  llvm::Type *i64 = b.getInt64Ty();
  auto *type = llvm::FunctionType::get(
      b.getVoidTy(), {i64->getPointerTo(), i64, i64, i64->getPointerTo()},
      false);
  llvm::Function *chunk =
      llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage,
                             nativeChunkName(entryPoint), module);
  chunk->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::Argument *slots = chunk->getArg(0), *begin = chunk->getArg(1),
                 *end = chunk->getArg(2), *sizes = chunk->getArg(3);
  slots->setName("arguments");
  begin->setName("begin");
  end->setName("end");
  sizes->setName("sizes");
  // Blocks of the loops themselves, not of the kernel inlined into them.
  std::set<llvm::BasicBlock *> scaffolding;
  auto block = [&](const char *name) {
    auto *bb = llvm::BasicBlock::Create(context, name, chunk);
    scaffolding.insert(bb);
    return bb;
  };

  // entry: the kernel's parameters from their slots; the extents.
  b.SetInsertPoint(block("entry"));
  std::vector<llvm::Value *> parameters;
  for (llvm::Argument &parameter : kernel->args()) {
    llvm::Value *slot =
        b.CreateConstInBoundsGEP1_64(i64, slots, parameter.getArgNo());
    parameters.push_back(b.CreateLoad(
        parameter.getType(),
        b.CreateBitCast(slot, parameter.getType()->getPointerTo())));
  }
  llvm::Value *global[3], *local[3];
  for (int d = 0; d < 3; ++d) {
    auto extent = [&](int at) -> llvm::Value * {
      if (d >= dimensions)
        return b.getInt64(1);
      return b.CreateLoad(i64,
                          b.CreateConstInBoundsGEP1_64(i64, sizes, at + d));
    };
    global[d] = extent(NativeSizes::global);
    local[d] = ndRange ? extent(NativeSizes::local) : b.getInt64(1);
  }

  // The loop over the chunk's units: work-items of a Range (a row of
  // dimension 0 at a time, so that the innermost loop is a plain counted
  // loop), or work-groups of an NdRange.
  llvm::BasicBlock *entry = b.GetInsertBlock();
  llvm::BasicBlock *outer = block("units");
  llvm::BasicBlock *setup = block(ndRange ? "group" : "row");
  llvm::BasicBlock *exit = block("exit");
  b.CreateBr(outer);
  b.SetInsertPoint(outer);
  llvm::PHINode *unit = b.CreatePHI(i64, 2, "unit");
  unit->addIncoming(begin, entry);
  b.CreateCondBr(b.CreateICmpSLT(unit, end), setup, exit);
  b.SetInsertPoint(exit);
  b.CreateRetVoid();

  QueryValues values;
  llvm::BasicBlock *innermost; // holds the kernel's call
  llvm::BranchInst *latch;     // the innermost loop's back edge
  b.SetInsertPoint(setup);
  if (!ndRange) {
    // Dimension 0's range [first, last) within row (i1, i2), up to the
    // chunk's end or the row's.
    llvm::Value *first = unit, *rowEnd = end, *i1 = b.getInt64(0),
                *i2 = b.getInt64(0);
    if (dimensions > 1) {
      first = b.CreateURem(unit, global[0]);
      llvm::Value *row = b.CreateUDiv(unit, global[0]);
      i1 = dimensions > 2 ? b.CreateURem(row, global[1]) : row;
      i2 = dimensions > 2 ? b.CreateUDiv(row, global[1]) : b.getInt64(0);
      llvm::Value *rowLimit = b.CreateAdd(b.CreateSub(unit, first), global[0]);
      rowEnd = b.CreateSelect(b.CreateICmpSLT(rowLimit, end), rowLimit, end);
    }
    llvm::Value *last = b.CreateAdd(first, b.CreateSub(rowEnd, unit));
    innermost = llvm::BasicBlock::Create(context, "items", chunk);
    llvm::BasicBlock *rowDone = block("row.done");
    b.CreateBr(innermost);
    b.SetInsertPoint(innermost);
    llvm::PHINode *i0 = b.CreatePHI(i64, 2, "i0");
    i0->addIncoming(first, setup);
    llvm::Value *id[3] = {i0, i1, i2};
    for (int d = 0; d < 3; ++d) {
      // A Range's work-groups are single work-items.
      values[static_cast<int>(WorkItemQuery::GlobalId)][d] = id[d];
      values[static_cast<int>(WorkItemQuery::GlobalSize)][d] = global[d];
      values[static_cast<int>(WorkItemQuery::LocalId)][d] = b.getInt64(0);
      values[static_cast<int>(WorkItemQuery::LocalSize)][d] = b.getInt64(1);
      values[static_cast<int>(WorkItemQuery::GroupId)][d] = id[d];
      values[static_cast<int>(WorkItemQuery::NumGroups)][d] = global[d];
    }
    b.CreateCall(kernel, parameters);
    llvm::Value *next = b.CreateAdd(i0, b.getInt64(1), "i0.next");
    i0->addIncoming(next, innermost);
    latch = b.CreateCondBr(b.CreateICmpSLT(next, last), innermost, rowDone);
    b.SetInsertPoint(rowDone);
    unit->addIncoming(rowEnd, rowDone);
    b.CreateBr(outer);
  } else {
    llvm::Value *groups[3], *group[3];
    for (int d = 0; d < 3; ++d)
      groups[d] =
          d < dimensions ? b.CreateUDiv(global[d], local[d]) : b.getInt64(1);
    group[0] = dimensions > 1 ? b.CreateURem(unit, groups[0]) : unit;
    llvm::Value *rest =
        dimensions > 1 ? b.CreateUDiv(unit, groups[0]) : b.getInt64(0);
    group[1] = dimensions > 2 ? b.CreateURem(rest, groups[1]) : rest;
    group[2] = dimensions > 2 ? b.CreateUDiv(rest, groups[1]) : b.getInt64(0);
    // for l2, for l1, for l0: the group's items, dimension 0 innermost.
    llvm::PHINode *l[3];
    llvm::BasicBlock *headers[3];
    llvm::BasicBlock *preheader = setup;
    for (int d = 2; d >= 0; --d) {
      headers[d] = d == 0 ? llvm::BasicBlock::Create(context, "items", chunk)
                          : block(d == 2 ? "items.2" : "items.1");
      b.CreateBr(headers[d]);
      b.SetInsertPoint(headers[d]);
      l[d] = b.CreatePHI(i64, 2, "l" + std::to_string(d));
      l[d]->addIncoming(b.getInt64(0), preheader);
      preheader = headers[d];
    }
    innermost = headers[0];
    for (int d = 0; d < 3; ++d) {
      values[static_cast<int>(WorkItemQuery::GlobalId)][d] =
          b.CreateAdd(b.CreateMul(group[d], local[d]), l[d]);
      values[static_cast<int>(WorkItemQuery::GlobalSize)][d] = global[d];
      values[static_cast<int>(WorkItemQuery::LocalId)][d] = l[d];
      values[static_cast<int>(WorkItemQuery::LocalSize)][d] = local[d];
      values[static_cast<int>(WorkItemQuery::GroupId)][d] = group[d];
      values[static_cast<int>(WorkItemQuery::NumGroups)][d] = groups[d];
    }
    b.CreateCall(kernel, parameters);
    // The latches, innermost first; each loop runs at least once.
    for (int d = 0; d < 3; ++d) {
      llvm::BasicBlock *current = b.GetInsertBlock();
      llvm::Value *next = b.CreateAdd(l[d], b.getInt64(1));
      l[d]->addIncoming(next, current);
      llvm::BasicBlock *after = block(d == 2 ? "group.done" : "items.next");
      llvm::BranchInst *branch =
          b.CreateCondBr(b.CreateICmpSLT(next, local[d]), headers[d], after);
      if (d == 0)
        latch = branch;
      b.SetInsertPoint(after);
    }
    unit->addIncoming(b.CreateAdd(unit, b.getInt64(1)), b.GetInsertBlock());
    b.CreateBr(outer);
  }

  // The kernel in the innermost loop, its queries answered by the loops.
  llvm::CallInst *call = nullptr;
  for (llvm::Instruction &inst : *innermost)
    if (auto *c = llvm::dyn_cast<llvm::CallInst>(&inst))
      if (c->getCalledFunction() == kernel)
        call = c;
  llvm::InlineFunctionInfo inlining;
  llvm::InlineResult inlined = llvm::InlineFunction(*call, inlining);
  SPIRJIT_INTERNAL_CHECK(inlined.isSuccess(),
                         std::string("cannot inline the kernel into its "
                                     "work-item loops: ") +
                             inlined.getFailureReason());
  kernel->eraseFromParent();
  replaceQueries(module, *chunk, values);

  // Work-items are independent (without barriers, which the device
  // refuses): the innermost loop's memory accesses carry no dependence
  // between iterations, except through private memory (an alloca the
  // iterations share once inlined).
  llvm::MDNode *accesses = llvm::MDNode::getDistinct(context, {});
  for (llvm::BasicBlock &bb : *chunk) {
    if (scaffolding.count(&bb))
      continue;
    for (llvm::Instruction &inst : bb) {
      llvm::Value *pointer = nullptr;
      if (auto *load = llvm::dyn_cast<llvm::LoadInst>(&inst))
        pointer = load->isSimple() ? load->getPointerOperand() : nullptr;
      else if (auto *store = llvm::dyn_cast<llvm::StoreInst>(&inst))
        pointer = store->isSimple() ? store->getPointerOperand() : nullptr;
      if (pointer && outsidePrivateMemory(pointer))
        inst.setMetadata(llvm::LLVMContext::MD_access_group, accesses);
    }
  }
  llvm::Metadata *parallel[] = {
      llvm::MDString::get(context, "llvm.loop.parallel_accesses"), accesses};
  llvm::Metadata *vectorize[] = {
      llvm::MDString::get(context, "llvm.loop.vectorize.enable"),
      llvm::ConstantAsMetadata::get(b.getTrue())};
  llvm::Metadata *loop[] = {nullptr, llvm::MDNode::get(context, parallel),
                            llvm::MDNode::get(context, vectorize)};
  llvm::MDNode *id = llvm::MDNode::getDistinct(context, loop);
  id->replaceOperandWith(0, id);
  latch->setMetadata(llvm::LLVMContext::MD_loop, id);
  std::string problems;
  llvm::raw_string_ostream os(problems);
  SPIRJIT_INTERNAL_CHECK(!llvm::verifyModule(module, &os),
                         "the work-item loops do not verify: " + os.str());
}

std::vector<char> emitHostObject(llvm::Module &module, const Target &target) {
  llvm::TargetMachine *machine = target.targetMachine();
  SPIRJIT_INTERNAL_CHECK(machine, "a host object for a target without a "
                                  "code generator");
  llvm::orc::SimpleCompiler compiler(*machine);
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> object = compiler(module);
  if (!object) {
    std::string message = llvm::toString(object.takeError());
    SPIRJIT_INTERNAL_CHECK(false, "cannot compile the native CPU device's "
                                  "kernel: " +
                                      message);
  }
  // addWorkItemLoops installed the handler.
  const auto *diagnostics = static_cast<const QuietDiagnostics *>(
      module.getContext().getDiagHandlerPtr());
  SPIRJIT_INTERNAL_CHECK(diagnostics->error.empty(),
                         "LLVM reported an error compiling the native CPU "
                         "device's kernel: " +
                             diagnostics->error);
  return std::vector<char>((*object)->getBufferStart(),
                           (*object)->getBufferEnd());
}

} // namespace spirjit
