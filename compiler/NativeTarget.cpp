// The native CPU device's target (NativeTarget.h states the contracts).
#include "compiler/NativeTarget.h"

#include "compiler/HostTarget.h"
#include "compiler/NativeBarriers.h"
#include "compiler/NativeFoldLoops.h"
#include "compiler/NativeLoopBarriers.h"
#include "compiler/NativeStreaming.h"
#include "frontend/Diagnostics.h"
#include "runtime/NativeABI.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <array>
#include <functional>
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

class NativeTarget : public DeviceTarget {
public:
  NativeTarget()
      : host_(createHostTarget(HostJIT::instance().triple(),
                               HostJIT::instance().dataLayout())),
        machine_(HostJIT::instance().leaseTargetMachine()) {}

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

  void emitBarrier(llvm::IRBuilder<> &builder) const override {
    // A placeholder that splitAtBarriers cuts the kernel at.
    createNativeBarrier(builder);
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
    // A value of the work-item: computed again where a region after a
    // barrier needs it, rather than kept (NativeBarriers.h).
    function->addFnAttr(llvm::Attribute::Speculatable);
    llvm::CallInst *call = builder.CreateCall(callee, {dim});
    llvm::MDBuilder md(builder.getContext());
    call->setMetadata(llvm::LLVMContext::MD_range,
                      md.createRange(llvm::APInt(64, isSizeQuery(query)),
                                     llvm::APInt(64, 1ull << 62)));
    return call;
  }
  /// Local memory is a parameter whose slot the device points at the
  /// running thread's own (runtime/NativeCPU.cpp).
  bool localMemoryAsParameters() const override { return true; }
  /// x86-64 and AArch64 code generators take atomicrmw fadd (as a
  /// compare-and-swap loop where the CPU has no instruction).
  bool hasFloatAtomicAdd() const override { return true; }
  /// A region's loop over the items tests the group's uniform values.
  bool unswitchesLoops() const override { return true; }
  void addPassesBeforeVectorizing(llvm::FunctionPassManager &passes,
                                  llvm::OptimizationLevel level) const override {
    addFoldLoopPasses(passes, level);
  }
  /// libmvec, where the host JIT found it (HostJIT::vectorMath).
  bool vectorMath() const override { return HostJIT::instance().vectorMath(); }
  /// AVX-512's variants (_ZGVe...) take and return zmm registers: only
  /// on a host whose code generator may use them.
  bool hasVectorFunction(const std::string &symbol) const override {
    if (symbol.rfind("_ZGVe", 0) == 0 &&
        targetMachine()->getTargetFeatureString().find("+avx512f") ==
            llvm::StringRef::npos)
      return false;
    return vectorMath() && HostJIT::instance().hasSymbol(symbol);
  }
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
  HostJIT::TargetMachineLease machine_;
};

/// The items of a Range's row that run as one group where the kernel is
/// cut at barriers (its loops', NativeLoopBarriers.h): enough that a
/// region's loop over them, many vectors long, outweighs the region's own
/// cost (the CPU-style matmul ran faster at 256 than at 64 or 128, 5 to
/// 50x slower at 1024), few enough that their contexts stay in the cache.
constexpr int64_t rangeGroupItems = 256;

/// Marks, while the kernel is inlined into a nest, the guards that are
/// true there (NativeItemBounds.h).
const char *const guardMarkName = "spirjit.native.guard.holds";

/// The loops' indices, per query and OpenCL dimension.
using QueryValues = std::array<std::array<llvm::Value *, 3>, 6>;

/// One nest of loops over work-items, with the kernel's call in it: a
/// Range's, or an NdRange's for one region of a group (NativeBarriers.h).
struct Nest {
  QueryValues values;
  int region = 0;
  llvm::Value *item = nullptr;       // linear local id, with barriers
  llvm::CallInst *call = nullptr;    // the kernel's
  llvm::CallInst *bound = nullptr;   // the region's item bound's, if any
  std::vector<llvm::ICmpInst *> trueGuards; // the kernel's, true here
  llvm::BranchInst *latch = nullptr; // the innermost loop's back edge
};

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

/// Replaces each placeholder call in `chunk` (those of the kernel just
/// inlined into `nest`) by its value there; `contexts`, `uniform` and
/// `groupItems`: the group's contexts, uniform area and items
/// (NativeBarriers.h), with barriers.
void replacePlaceholders(llvm::Module &module, const llvm::Function &chunk,
                         const Nest &nest, llvm::Value *contexts,
                         llvm::Value *uniform, llvm::Value *groupItems) {
  auto replace = [&](const std::string &name, auto value) {
    llvm::Function *placeholder = module.getFunction(name);
    if (!placeholder)
      return;
    std::vector<llvm::CallInst *> calls;
    for (llvm::User *user : placeholder->users())
      if (auto *call = llvm::dyn_cast<llvm::CallInst>(user);
          call && call->getFunction() == &chunk)
        calls.push_back(call);
    for (llvm::CallInst *call : calls) {
      llvm::IRBuilder<> builder(call);
      call->replaceAllUsesWith(value(builder, call));
      call->eraseFromParent();
    }
  };
  for (WorkItemQuery query : allQueries)
    replace(
        queryName(query),
        [&](llvm::IRBuilder<> &builder, llvm::CallInst *call) -> llvm::Value * {
          const auto &perDim = nest.values[static_cast<int>(query)];
          llvm::Value *dim = call->getArgOperand(0);
          llvm::Value *value = builder.getInt64(isSizeQuery(query));
          if (auto *constant = llvm::dyn_cast<llvm::ConstantInt>(dim)) {
            if (constant->getZExtValue() < 3)
              value = perDim[constant->getZExtValue()];
          } else {
            for (unsigned d = 0; d < 3; ++d)
              value = builder.CreateSelect(
                  builder.CreateICmpEQ(
                      dim, llvm::ConstantInt::get(dim->getType(), d)),
                  perDim[d], value);
          }
          return value;
        });
  replace(nativeRegionName, [&](llvm::IRBuilder<> &builder, llvm::CallInst *) {
    return builder.getInt32(nest.region);
  });
  replace(nativeItemName,
          [&](llvm::IRBuilder<> &, llvm::CallInst *) { return nest.item; });
  replace(nativeItemCountName,
          [&](llvm::IRBuilder<> &, llvm::CallInst *) { return groupItems; });
  replace(nativeContextName,
          [&](llvm::IRBuilder<> &, llvm::CallInst *) { return contexts; });
  replace(nativeUniformName,
          [&](llvm::IRBuilder<> &, llvm::CallInst *) { return uniform; });
}

/// Removes the placeholders once the kernel is gone; a use left is a bug.
void removePlaceholders(llvm::Module &module) {
  std::vector<std::string> names = {nativeRegionName, nativeContextName,
                                    nativeItemName, nativeItemCountName,
                                    nativeUniformName};
  for (WorkItemQuery query : allQueries)
    names.push_back(queryName(query));
  for (const std::string &name : names)
    if (llvm::Function *placeholder = module.getFunction(name)) {
      SPIRJIT_INTERNAL_CHECK(placeholder->use_empty(),
                             name + " used outside the kernel");
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

/// Removes the noalias scope declarations that inlining the kernel into its
/// item loops put in every iteration. They declare the scopes of the
/// kernel's noalias parameters (LowerCalls.cpp: the arrays of a launch
/// whose arrays do not overlap, the only noalias parameters spirjit
/// gives), which hold for every item of the launch alike, so that, without
/// them, what LLVM assumes within one item is still true across items.
/// LLVM's unroll-and-jam refuses a loop with any call that touches memory,
/// and these count as such.
static void dropNoAliasScopeDeclarations(llvm::Function &chunk) {
  std::vector<llvm::Instruction *> declarations;
  for (llvm::BasicBlock &bb : chunk)
    for (llvm::Instruction &inst : bb)
      if (auto *intrinsic = llvm::dyn_cast<llvm::IntrinsicInst>(&inst))
        if (intrinsic->getIntrinsicID() ==
            llvm::Intrinsic::experimental_noalias_scope_decl)
          declarations.push_back(&inst);
  for (llvm::Instruction *declaration : declarations)
    declaration->eraseFromParent();
}

void addWorkItemLoops(llvm::Module &module, const std::string &entryPoint,
                      int dimensions, bool ndRange,
                      const std::vector<int64_t> &groupExtents) {
  llvm::Function *kernel = module.getFunction(entryPoint);
  SPIRJIT_INTERNAL_CHECK(kernel, "no kernel " + entryPoint + " to wrap");
  inlineCallees(*kernel);
  // What differs between the items of a group: their ids (in a Range, whose
  // groups are single items, the group's id too).
  std::set<std::string> itemQueries = {queryName(WorkItemQuery::GlobalId),
                                       queryName(WorkItemQuery::LocalId)};
  if (!ndRange)
    itemQueries.insert(queryName(WorkItemQuery::GroupId));
  // The kernel's own loops that every item runs alike get barriers, so that
  // the loops over the items are innermost (NativeLoopBarriers.h).
  bool loopBarriers =
      addLoopBarriers(*kernel, itemQueries,
                      {queryName(WorkItemQuery::GlobalId),
                       queryName(WorkItemQuery::LocalId)});
  NativeRegions regions =
      splitAtBarriers(*kernel, itemQueries, queryName(WorkItemQuery::LocalId),
                      {queryName(WorkItemQuery::GlobalSize),
                       queryName(WorkItemQuery::LocalSize),
                       queryName(WorkItemQuery::GroupId),
                       queryName(WorkItemQuery::NumGroups)});
  SPIRJIT_INTERNAL_CHECK(regions.count == 1 || ndRange || loopBarriers,
                         "a barrier in a kernel launched over a Range");
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
  auto block = [&](const std::string &name) {
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
    local[d] = !ndRange ? b.getInt64(1)
               : d < static_cast<int>(groupExtents.size())
                   ? b.getInt64(groupExtents[d])
                   : extent(NativeSizes::local);
  }
  // With barriers, the contexts of a group's work-items, reused by every
  // group of the chunk (a work-group's local memory is the slots'), where
  // they have any. Allocated, not on the stack: private arrays make them
  // large. The group's uniform area (the next region's number and the
  // uniform values) is on the stack: memory of its own, which LLVM sees
  // nothing else write while a region's items run, so that it loads a
  // uniform value once per region, not once per item.
  llvm::Value *contexts = nullptr, *uniform = nullptr;
  llvm::Value *groupItems =
      ndRange ? b.CreateMul(b.CreateMul(local[0], local[1]), local[2],
                            "group.items")
              : b.getInt64(regions.count > 1 ? rangeGroupItems : 1);
  if (regions.count > 1) {
    if (regions.contextBytes) {
      llvm::Value *bytes =
          b.CreateMul(groupItems, b.getInt64(regions.contextBytes));
      bytes =
          b.CreateAnd(b.CreateAdd(bytes, b.getInt64(63)), b.getInt64(~63ull));
      llvm::FunctionCallee allocate = module.getOrInsertFunction(
          "aligned_alloc",
          llvm::FunctionType::get(b.getInt8PtrTy(), {i64, i64}, false));
      contexts = b.CreateCall(allocate, {b.getInt64(64), bytes}, "contexts");
    } else {
      contexts = llvm::ConstantPointerNull::get(b.getInt8PtrTy());
    }
    llvm::AllocaInst *area = b.CreateAlloca(
        llvm::ArrayType::get(b.getInt8Ty(), 2 * regions.uniformBytes), nullptr,
        "uniform");
    area->setAlignment(llvm::Align(64));
    uniform = b.CreateBitCast(area, b.getInt8PtrTy());
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
  if (regions.contextBytes)
    b.CreateCall(module.getOrInsertFunction(
                     "free", llvm::FunctionType::get(
                                 b.getVoidTy(), {b.getInt8PtrTy()}, false)),
                 {contexts});
  b.CreateRetVoid();

  std::vector<Nest> nests;
  // The items' queries in a nest, from its loops' indices l (local ids).
  using Fill = std::function<void(QueryValues &, llvm::Value *const *)>;
  // One region's nest of loops over a group's items (for l2, for l1, for
  // l0: dimension 0 innermost, up to `limit0`), from the block the builder
  // is at; the builder is left after it, or at `join`, which it branches
  // to.
  auto itemNest = [&](int r, const Fill &fill, llvm::Value *limit0,
                      std::vector<llvm::ICmpInst *> trueGuards,
                      llvm::BasicBlock *join) {
    Nest nest;
    nest.region = r;
    nest.trueGuards = std::move(trueGuards);
    llvm::BasicBlock *preheader = b.GetInsertBlock();
    llvm::PHINode *l[3];
    llvm::BasicBlock *headers[3];
    for (int d = 2; d >= 0; --d) {
      headers[d] = d == 0 ? llvm::BasicBlock::Create(context, "items", chunk)
                          : block(d == 2 ? "items.2" : "items.1");
      b.CreateBr(headers[d]);
      b.SetInsertPoint(headers[d]);
      l[d] = b.CreatePHI(i64, 2, "l" + std::to_string(d));
      l[d]->addIncoming(b.getInt64(0), preheader);
      preheader = headers[d];
    }
    llvm::Value *const indices[3] = {l[0], l[1], l[2]};
    fill(nest.values, indices);
    if (contexts)
      nest.item = b.CreateAdd(
          l[0],
          b.CreateMul(local[0], b.CreateAdd(l[1], b.CreateMul(local[1], l[2]))),
          "item");
    nest.call = b.CreateCall(kernel, parameters);
    // The latches, innermost first; each loop runs at least once.
    for (int d = 0; d < 3; ++d) {
      llvm::BasicBlock *current = b.GetInsertBlock();
      llvm::Value *next = b.CreateAdd(l[d], b.getInt64(1));
      l[d]->addIncoming(next, current);
      llvm::BasicBlock *after = block(d == 2 ? "region.done" : "items.next");
      llvm::BranchInst *branch = b.CreateCondBr(
          b.CreateICmpSLT(next, d == 0 ? limit0 : local[d]), headers[d], after);
      if (d == 0)
        nest.latch = branch;
      b.SetInsertPoint(after);
    }
    if (join)
      b.CreateBr(join);
    return nest;
  };
  // A group of `extent0` items along dimension 0 (and local[1] by
  // local[2]): one nest, or with barriers its regions in the order its
  // work-items leave them: every item runs region r, then item 0's context
  // says which region comes next (all items agree: the barriers are
  // convergent), until they have returned. `bounded`: the regions' item
  // bounds apply (NativeItemBounds.h: on the local ids of an NdRange).
  // The builder is left at `groupDone`.
  auto groupRegions = [&](const Fill &fill, llvm::Value *extent0,
                          bool bounded, llvm::BasicBlock *groupDone) {
    llvm::SwitchInst *dispatch = nullptr;
    llvm::PHINode *region = nullptr;
    llvm::BasicBlock *from = b.GetInsertBlock();
    if (regions.count > 1) {
      llvm::BasicBlock *head = block("regions");
      b.CreateBr(head);
      b.SetInsertPoint(head);
      region = b.CreatePHI(b.getInt32Ty(), regions.count + 1, "region");
      region->addIncoming(b.getInt32(0), from);
      dispatch = b.CreateSwitch(region, groupDone, regions.count);
    }
    for (int r = 0; r < regions.count; ++r) {
      if (dispatch) {
        llvm::BasicBlock *preheader = block("region" + std::to_string(r));
        dispatch->addCase(b.getInt32(r), preheader);
        b.SetInsertPoint(preheader);
      }
      // Items of dimension 0 from which on the region does nothing but
      // what the items before them do alike (NativeItemBounds.h): the
      // loop stops there, after one item at least; and where its guards
      // hold in every item it runs, a copy of it takes them as true.
      const RegionItems *needs =
          !bounded || regions.items.empty() ? nullptr : &regions.items[r];
      llvm::Value *limit0 = extent0;
      llvm::CallInst *boundCall = nullptr;
      llvm::BasicBlock *join = nullptr;
      if (needs && needs->bound) {
        boundCall = b.CreateCall(needs->bound, parameters);
        limit0 = b.CreateBinaryIntrinsic(
            llvm::Intrinsic::umax,
            b.CreateBinaryIntrinsic(llvm::Intrinsic::umin,
                                    b.CreateExtractValue(boundCall, 0),
                                    extent0),
            b.getInt64(1), nullptr, "items.needed");
        if (!needs->guards.empty()) {
          llvm::Value *guardsHold = b.CreateICmpULE(
              limit0, b.CreateExtractValue(boundCall, 1), "guards.hold");
          llvm::BasicBlock *held = block("guards.held");
          llvm::BasicBlock *tested = block("guards.tested");
          join = block("region.joined");
          b.CreateCondBr(guardsHold, held, tested);
          b.SetInsertPoint(held);
          nests.push_back(itemNest(r, fill, limit0, needs->guards, join));
          nests.back().bound = boundCall;
          boundCall = nullptr;
          b.SetInsertPoint(tested);
        }
      }
      nests.push_back(itemNest(r, fill, limit0, {}, join));
      nests.back().bound = boundCall;
      if (join)
        b.SetInsertPoint(join);
      if (!dispatch) {
        b.CreateBr(groupDone);
        break;
      }
      // The uniform values the region ended with are those the next
      // starts with (NativeBarriers.h), the next region's number first.
      b.CreateMemCpy(uniform, llvm::Align(64),
                     b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), uniform,
                                                  regions.uniformBytes),
                     llvm::Align(64), regions.uniformBytes);
      region->addIncoming(
          b.CreateLoad(b.getInt32Ty(),
                       b.CreateBitCast(uniform, b.getInt32Ty()->getPointerTo()),
                       "next.region"),
          b.GetInsertBlock());
      b.CreateBr(region->getParent());
    }
    b.SetInsertPoint(groupDone);
  };

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
    // Where this row's segment ends: the row's end, or, in the chunk's
    // streaming body, where its stores become aligned
    // (NativeStreaming.h, which answers the placeholder).
    if (regions.count == 1)
      rowEnd = b.CreateCall(nativeSegmentPlaceholder(module), {unit, rowEnd},
                            "segment.end");
    llvm::Value *last = b.CreateAdd(first, b.CreateSub(rowEnd, unit));
    llvm::BasicBlock *rowDone = block("row.done");
    // A Range's work-groups are single work-items; cut at barriers (its
    // loops', NativeLoopBarriers.h), the row runs in groups of
    // rangeGroupItems along dimension 0 (the last one shorter), whose
    // local ids are the loops' alone.
    auto rangeFill = [&](llvm::Value *start) {
      return [&, start](QueryValues &values, llvm::Value *const *l) {
        llvm::Value *id[3] = {start, i1, i2};
        if (l)
          id[0] = b.CreateAdd(start, l[0]);
        for (int d = 0; d < 3; ++d) {
          values[static_cast<int>(WorkItemQuery::GlobalId)][d] = id[d];
          values[static_cast<int>(WorkItemQuery::GlobalSize)][d] = global[d];
          values[static_cast<int>(WorkItemQuery::LocalId)][d] = b.getInt64(0);
          values[static_cast<int>(WorkItemQuery::LocalSize)][d] =
              b.getInt64(1);
          values[static_cast<int>(WorkItemQuery::GroupId)][d] = id[d];
          values[static_cast<int>(WorkItemQuery::NumGroups)][d] = global[d];
        }
      };
    };
    if (regions.count == 1) {
      llvm::BasicBlock *items =
          llvm::BasicBlock::Create(context, "items", chunk);
      b.CreateBr(items);
      b.SetInsertPoint(items);
      llvm::PHINode *i0 = b.CreatePHI(i64, 2, "i0");
      i0->addIncoming(first, setup);
      Nest nest;
      rangeFill(i0)(nest.values, nullptr);
      nest.call = b.CreateCall(kernel, parameters);
      llvm::Value *next = b.CreateAdd(i0, b.getInt64(1), "i0.next");
      i0->addIncoming(next, b.GetInsertBlock());
      nest.latch = b.CreateCondBr(b.CreateICmpSLT(next, last), items, rowDone);
      nests.push_back(nest);
    } else {
      llvm::BasicBlock *head = block("range.group");
      llvm::BasicBlock *groupDone = block("group.done");
      b.CreateBr(head);
      b.SetInsertPoint(head);
      llvm::PHINode *start = b.CreatePHI(i64, 2, "group.first");
      start->addIncoming(first, setup);
      llvm::Value *extent0 = b.CreateBinaryIntrinsic(
          llvm::Intrinsic::umin, b.CreateSub(last, start),
          b.getInt64(rangeGroupItems), nullptr, "group.extent");
      groupRegions(rangeFill(start), extent0, false, groupDone);
      llvm::Value *next = b.CreateAdd(start, b.getInt64(rangeGroupItems));
      start->addIncoming(next, groupDone);
      b.CreateCondBr(b.CreateICmpSLT(next, last), head, rowDone);
    }
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
    auto fill = [&](QueryValues &values, llvm::Value *const *l) {
      for (int d = 0; d < 3; ++d) {
        values[static_cast<int>(WorkItemQuery::GlobalId)][d] =
            b.CreateAdd(b.CreateMul(group[d], local[d]), l[d]);
        values[static_cast<int>(WorkItemQuery::GlobalSize)][d] = global[d];
        values[static_cast<int>(WorkItemQuery::LocalId)][d] = l[d];
        values[static_cast<int>(WorkItemQuery::LocalSize)][d] = local[d];
        values[static_cast<int>(WorkItemQuery::GroupId)][d] = group[d];
        values[static_cast<int>(WorkItemQuery::NumGroups)][d] = groups[d];
      }
    };
    llvm::BasicBlock *groupDone = block("group.done");
    groupRegions(fill, local[0], true, groupDone);
    unit->addIncoming(b.CreateAdd(unit, b.getInt64(1)), groupDone);
    b.CreateBr(outer);
  }

  // The kernel in each nest, its placeholders answered there.
  for (const Nest &nest : nests) {
    // The guards true in this nest are marked in the kernel while it is
    // inlined: their copies here are the marked ones.
    for (llvm::ICmpInst *guard : nest.trueGuards)
      guard->setMetadata(guardMarkName, llvm::MDNode::get(context, {}));
    for (llvm::CallInst *call : {nest.bound, nest.call}) {
      if (!call)
        continue;
      llvm::InlineFunctionInfo inlining;
      llvm::InlineResult inlined = llvm::InlineFunction(*call, inlining);
      SPIRJIT_INTERNAL_CHECK(inlined.isSuccess(),
                             std::string("cannot inline the kernel into its "
                                         "work-item loops: ") +
                                 inlined.getFailureReason());
    }
    for (llvm::ICmpInst *guard : nest.trueGuards)
      guard->setMetadata(guardMarkName, nullptr);
    std::vector<llvm::Instruction *> marked;
    for (llvm::BasicBlock &bb : *chunk)
      for (llvm::Instruction &inst : bb)
        if (inst.getMetadata(guardMarkName))
          marked.push_back(&inst);
    for (llvm::Instruction *guard : marked) {
      guard->replaceAllUsesWith(b.getTrue());
      guard->eraseFromParent();
    }
    replacePlaceholders(module, *chunk, nest, contexts, uniform, groupItems);
  }
  kernel->eraseFromParent();
  if (regions.count == 1) {
    dropNoAliasScopeDeclarations(*chunk);
    chunk->addFnAttr(nativeIndependentItems);
  }
  for (const RegionItems &needs : regions.items)
    if (needs.bound)
      needs.bound->eraseFromParent();
  removePlaceholders(module);

  // Work-items are independent between barriers: an innermost loop's
  // memory accesses carry no dependence between iterations, except
  // through private memory (an alloca the iterations share once inlined;
  // an item's context is its own).
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
  // Between barriers an item loop runs a work-group's items, a few hundred
  // at most, once per region: vectors of the target's width, not four of
  // them side by side, so that a region of 16 or 8 items (a tree
  // reduction's last halving steps) still runs as vectors. The tree
  // reduction of 2^24 float64 in groups of 256 (bench_kernel_api.py) went
  // from 4.4 to 3.8 ms on 2 cores (AMD EPYC VM, 2026-11-27).
  llvm::Metadata *interleave[] = {
      llvm::MDString::get(context, "llvm.loop.interleave.count"),
      llvm::ConstantAsMetadata::get(b.getInt32(1))};
  std::vector<llvm::Metadata *> loop = {
      nullptr, llvm::MDNode::get(context, parallel),
      llvm::MDNode::get(context, vectorize)};
  if (regions.count > 1) {
    loop.push_back(llvm::MDNode::get(context, interleave));
    // Nor unrolled once vectorised: with the group's extents known
    // (groupExtents), LLVM unrolled a tree reduction's 256-item loops
    // completely and hoisted their 32 addresses out of the loop over
    // regions, which then spilled them (2^24 float64 in groups of 256: 6.4
    // ms instead of 4.4; loops kept: 3.5-4.0).
    llvm::Metadata *noUnroll[] = {
        llvm::MDString::get(context, "llvm.loop.unroll.disable")};
    llvm::Metadata *followup[] = {
        llvm::MDString::get(context, "llvm.loop.vectorize.followup_all"),
        llvm::MDNode::get(context, noUnroll)};
    loop.push_back(llvm::MDNode::get(context, followup));
  }
  // Without barriers, items that run a loop of their own (a prange
  // reduction's chunk, a CPU-style sum's) run it four at a time, jammed
  // (LLVM's unroll-and-jam, NativeFoldLoops.h): one thread then reads
  // four streams of memory, not one, and a sum of 2^24 float64 on 2 cores
  // took 1.9-3.6 ms instead of 4.1-4.2 (numba parallel=True: 4.1-4.3; AMD
  // EPYC VM, 2026-11-27). Each item's own loop keeps its order, so its
  // results do not change. LLVM jams only where its dependence analysis
  // finds it safe, and only loops with one loop inside.
  if (regions.count == 1) {
    llvm::Metadata *jam[] = {
        llvm::MDString::get(context, nativeJamCountName),
        llvm::ConstantAsMetadata::get(b.getInt32(4))};
    loop.push_back(llvm::MDNode::get(context, jam));
  }
  llvm::MDNode *id = llvm::MDNode::getDistinct(context, loop);
  id->replaceOperandWith(0, id);
  for (const Nest &nest : nests)
    nest.latch->setMetadata(llvm::LLVMContext::MD_loop, id);
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
