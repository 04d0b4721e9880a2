// Streaming stores on the native CPU device (NativeStreaming.h states the
// contract and why).
#include "compiler/NativeStreaming.h"

#include "compiler/FunctionAnalyses.h"

#include "frontend/Diagnostics.h"
#include "runtime/NativeABI.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ScalarEvolutionExpander.h>

#include <vector>

namespace spirjit {

namespace {

/// Does the chunk talk to other threads through memory while it runs?
/// Non-temporal stores are weakly ordered: a flag published by an atomic
/// could become visible before the data it guards.
bool synchronises(const llvm::Function &chunk) {
  for (const llvm::BasicBlock &bb : chunk)
    for (const llvm::Instruction &inst : bb) {
      if (llvm::isa<llvm::AtomicRMWInst, llvm::AtomicCmpXchgInst,
                    llvm::FenceInst>(inst))
        return true;
      if (auto *load = llvm::dyn_cast<llvm::LoadInst>(&inst))
        if (!load->isSimple())
          return true;
      if (auto *store = llvm::dyn_cast<llvm::StoreInst>(&inst))
        if (!store->isSimple())
          return true;
    }
  return false;
}

/// The stores to make non-temporal: plain stores of whole vectors of 16,
/// 32 or 64 bytes (the vectoriser's, which write a line or a good part of
/// one) whose address is certainly not an alloca (an item's private
/// memory, which is read again soon).
std::vector<llvm::StoreInst *> vectorStores(llvm::Function &function) {
  const llvm::DataLayout &layout = function.getParent()->getDataLayout();
  std::vector<llvm::StoreInst *> stores;
  for (llvm::BasicBlock &bb : function)
    for (llvm::Instruction &inst : bb)
      if (auto *store = llvm::dyn_cast<llvm::StoreInst>(&inst)) {
        llvm::Type *type = store->getValueOperand()->getType();
        uint64_t bytes = layout.getTypeStoreSize(type);
        if (!type->isVectorTy() || !store->isSimple() ||
            (bytes != 16 && bytes != 32 && bytes != 64))
          continue;
        llvm::SmallVector<const llvm::Value *, 4> objects;
        llvm::getUnderlyingObjects(store->getPointerOperand(), objects);
        bool shared = true;
        for (const llvm::Value *object : objects)
          shared &= !llvm::isa<llvm::AllocaInst>(object);
        if (shared)
          stores.push_back(store);
      }
  return stores;
}

/// Makes `store` non-temporal where its address is aligned to its size at
/// run time, and leaves it a plain store elsewhere. x86 has non-temporal
/// vector stores only for aligned addresses; LLVM splits one it cannot
/// prove aligned into 8-byte or 4-byte ones, which made the Jacobi sweep
/// of 4096^2 float32 (rows written from their second element) 18 % slower
/// instead of faster. A loop's stores are all aligned or all not, so the
/// branch costs little.
void makeNonTemporal(llvm::StoreInst *store, llvm::MDNode *nontemporal) {
  const llvm::DataLayout &layout = store->getModule()->getDataLayout();
  uint64_t bytes = layout.getTypeStoreSize(store->getValueOperand()->getType());
  llvm::IRBuilder<> b(store);
  llvm::Value *address =
      b.CreatePtrToInt(store->getPointerOperand(), b.getInt64Ty());
  llvm::Value *aligned = b.CreateICmpEQ(
      b.CreateAnd(address, b.getInt64(bytes - 1)), b.getInt64(0), "aligned");
  llvm::Instruction *then = nullptr, *otherwise = nullptr;
  llvm::SplitBlockAndInsertIfThenElse(aligned, store, &then, &otherwise);
  auto *streamed = llvm::cast<llvm::StoreInst>(store->clone());
  streamed->insertBefore(then);
  streamed->setAlignment(llvm::Align(bytes));
  streamed->setMetadata(llvm::LLVMContext::MD_nontemporal, nontemporal);
  store->moveBefore(otherwise);
}

/// Can `expression` be computed where `segment` is? Its values must be
/// there, and it may divide only by a constant or by one of the launch's
/// extents, which the rows' own set-up divides by there (LLVM's
/// isSafeToExpandAt refuses any division it cannot prove by a non-zero).
bool expandableAt(const llvm::SCEV *expression, llvm::CallInst *segment,
                  llvm::DominatorTree &dominators) {
  const llvm::Argument *sizes = segment->getFunction()->getArg(3);
  struct Check {
    llvm::CallInst *segment;
    llvm::DominatorTree &dominators;
    const llvm::Argument *sizes;
    bool safe = true;
    bool extent(const llvm::SCEV *divisor) const {
      if (auto *constant = llvm::dyn_cast<llvm::SCEVConstant>(divisor))
        return !constant->getValue()->isZero();
      auto *unknown = llvm::dyn_cast<llvm::SCEVUnknown>(divisor);
      auto *load = unknown ? llvm::dyn_cast<llvm::LoadInst>(unknown->getValue())
                           : nullptr;
      return load &&
             llvm::getUnderlyingObject(load->getPointerOperand()) == sizes;
    }
    bool follow(const llvm::SCEV *s) {
      if (auto *division = llvm::dyn_cast<llvm::SCEVUDivExpr>(s))
        safe &= extent(division->getRHS());
      else if (auto *unknown = llvm::dyn_cast<llvm::SCEVUnknown>(s)) {
        if (auto *inst = llvm::dyn_cast<llvm::Instruction>(unknown->getValue()))
          safe &= dominators.dominates(inst, segment);
      } else if (llvm::isa<llvm::SCEVAddRecExpr>(s))
        safe = false;
      return safe;
    }
    bool isDone() const { return !safe; }
  } check{segment, dominators, sizes};
  llvm::visitAll(expression, check);
  return check.safe;
}

/// The units after which the streaming body's first vector store in a loop
/// that `segment` dominates is aligned, where it finds one it can place:
/// the store's address, an affine function of the loop's iterations whose
/// step is a whole number of vectors (consecutive items store consecutive
/// elements), known where the segment starts.
llvm::Value *alignedUnits(llvm::CallInst *segment,
                          const std::vector<llvm::StoreInst *> &stores,
                          llvm::ScalarEvolution &evolution,
                          llvm::DominatorTree &dominators) {
  const llvm::DataLayout &layout = segment->getModule()->getDataLayout();
  for (llvm::StoreInst *store : stores) {
    auto *address = llvm::dyn_cast<llvm::SCEVAddRecExpr>(
        evolution.getSCEV(store->getPointerOperand()));
    if (!address || !address->isAffine() ||
        !dominators.dominates(segment->getParent(),
                              address->getLoop()->getHeader()))
      continue;
    auto *type =
        llvm::cast<llvm::VectorType>(store->getValueOperand()->getType());
    uint64_t bytes = layout.getTypeStoreSize(type);
    uint64_t element = layout.getTypeStoreSize(type->getElementType());
    auto *step = llvm::dyn_cast<llvm::SCEVConstant>(
        address->getStepRecurrence(evolution));
    if (!step || step->getAPInt().isNonPositive() ||
        step->getAPInt().getZExtValue() % bytes != 0)
      continue;
    if (!expandableAt(address->getStart(), segment, dominators))
      continue;
    llvm::SCEVExpander expander(evolution, layout, "segment");
    llvm::Value *start =
        expander.expandCodeFor(address->getStart(), nullptr, segment);
    llvm::IRBuilder<> b(segment);
    llvm::Value *at = b.CreatePtrToInt(start, b.getInt64Ty());
    llvm::Value *short_ =
        b.CreateAnd(b.CreateSub(b.getInt64(0), at), b.getInt64(bytes - 1));
    llvm::Value *units = b.CreateUDiv(short_, b.getInt64(element));
    // An array not aligned to its elements never has aligned vectors.
    llvm::Value *whole =
        b.CreateICmpEQ(b.CreateAnd(at, b.getInt64(element - 1)), b.getInt64(0));
    return b.CreateSelect(whole, units, b.getInt64(0), "peel");
  }
  return nullptr;
}

} // namespace

llvm::Function *nativeSegmentPlaceholder(llvm::Module &module) {
  llvm::Type *i64 = llvm::Type::getInt64Ty(module.getContext());
  llvm::FunctionCallee callee = module.getOrInsertFunction(
      "spirjit.native.segment.end",
      llvm::FunctionType::get(i64, {i64, i64}, false));
  auto *function = llvm::cast<llvm::Function>(callee.getCallee());
  function->setDoesNotAccessMemory();
  function->setDoesNotThrow();
  function->setWillReturn();
  return function;
}

/// Every call of the segment placeholder in `function`.
static std::vector<llvm::CallInst *> segments(llvm::Function &function) {
  std::vector<llvm::CallInst *> calls;
  llvm::Function *placeholder =
      function.getParent()->getFunction("spirjit.native.segment.end");
  for (llvm::BasicBlock &bb : function)
    for (llvm::Instruction &inst : bb)
      if (auto *call = llvm::dyn_cast<llvm::CallInst>(&inst))
        if (placeholder && call->getCalledFunction() == placeholder)
          calls.push_back(call);
  return calls;
}

/// Replaces each placeholder call by the row's end.
static void endSegmentsAtRows(llvm::Function &function) {
  for (llvm::CallInst *call : segments(function)) {
    call->replaceAllUsesWith(call->getArgOperand(1));
    call->eraseFromParent();
  }
}

static std::string streamingName(const std::string &entryPoint) {
  return nativeChunkName(entryPoint) + ".streaming";
}

static void removeUnusedPlaceholder(llvm::Module &module) {
  if (llvm::Function *placeholder =
          module.getFunction("spirjit.native.segment.end"))
    if (placeholder->use_empty())
      placeholder->eraseFromParent();
}

void addStreamingCopy(llvm::Module &module, const std::string &entryPoint) {
  llvm::Function *chunk = module.getFunction(nativeChunkName(entryPoint));
  SPIRJIT_INTERNAL_CHECK(chunk, "no chunk function for " + entryPoint);
  if (llvm::Triple(module.getTargetTriple()).getArch() ==
          llvm::Triple::x86_64 &&
      chunk->hasFnAttribute(nativeIndependentItems) && !synchronises(*chunk)) {
    // External until addStreamingStores: nothing calls it yet, and LLVM
    // would neither drop it nor change its parameters.
    llvm::ValueToValueMapTy map;
    llvm::Function *streaming = llvm::CloneFunction(chunk, map);
    streaming->setName(streamingName(entryPoint));
    streaming->addFnAttr(llvm::Attribute::NoInline);
  }
  endSegmentsAtRows(*chunk);
  removeUnusedPlaceholder(module);
}

bool addStreamingStores(llvm::Module &module, const std::string &entryPoint) {
  llvm::Function *chunk = module.getFunction(nativeChunkName(entryPoint));
  SPIRJIT_INTERNAL_CHECK(chunk, "no chunk function for " + entryPoint);
  llvm::Function *streaming = module.getFunction(streamingName(entryPoint));
  if (!streaming)
    return false;
  // The stores to stream; placing the segments below adds none.
  std::vector<llvm::StoreInst *> stores = vectorStores(*streaming);
  if (stores.empty()) {
    streaming->eraseFromParent();
    removeUnusedPlaceholder(module);
    return false;
  }
  streaming->setLinkage(llvm::GlobalValue::InternalLinkage);
  llvm::LLVMContext &context = module.getContext();
  llvm::MDNode *nontemporal = llvm::MDNode::get(
      context, llvm::ConstantAsMetadata::get(
                   llvm::ConstantInt::get(llvm::Type::getInt32Ty(context), 1)));
  {
    // Rows in two segments where that aligns the stores (found before
    // the stores change).
    FunctionAnalyses analyses(*streaming);
    for (llvm::CallInst *segment : segments(*streaming)) {
      llvm::Value *unit = segment->getArgOperand(0),
                  *end = segment->getArgOperand(1);
      llvm::Value *ends = end;
      if (llvm::Value *peel =
              alignedUnits(segment, stores, analyses.evolution,
                           analyses.dominators)) {
        llvm::IRBuilder<> b(segment);
        llvm::Value *aligned = b.CreateAdd(unit, peel);
        ends = b.CreateSelect(b.CreateAnd(b.CreateICmpNE(peel, b.getInt64(0)),
                                          b.CreateICmpSLT(aligned, end)),
                              aligned, end, "segment.end");
      }
      segment->replaceAllUsesWith(ends);
      segment->eraseFromParent();
    }
  }
  for (llvm::StoreInst *store : stores)
    makeNonTemporal(store, nontemporal);
  llvm::Function *sfence =
      llvm::Intrinsic::getDeclaration(&module, llvm::Intrinsic::x86_sse_sfence);
  for (llvm::BasicBlock &bb : *streaming)
    if (auto *ret = llvm::dyn_cast<llvm::ReturnInst>(bb.getTerminator()))
      llvm::CallInst::Create(sfence, {}, "", ret);

  // The chunk now reads its sizes, which LLVM may have found it did not.
  chunk->removeParamAttr(3, llvm::Attribute::ReadNone);
  streaming->removeParamAttr(3, llvm::Attribute::ReadNone);

  // The chunk: after its allocas (which stay static), the choice.
  llvm::BasicBlock *entry = &chunk->getEntryBlock();
  llvm::BasicBlock::iterator at = entry->begin();
  while (llvm::isa<llvm::AllocaInst>(*at))
    ++at;
  llvm::DebugLoc location = at->getDebugLoc();
  llvm::BasicBlock *items = entry->splitBasicBlock(at, "items");
  auto *choose = llvm::BasicBlock::Create(context, "streaming", chunk, items);
  entry->getTerminator()->eraseFromParent();
  llvm::IRBuilder<> b(entry);
  llvm::Type *i64 = b.getInt64Ty();
  llvm::Value *flag =
      b.CreateLoad(i64,
                   b.CreateConstInBoundsGEP1_64(i64, chunk->getArg(3),
                                                NativeSizes::streaming),
                   "streaming.chosen");
  b.CreateCondBr(b.CreateICmpNE(flag, b.getInt64(0)), choose, items,
                 llvm::MDBuilder(context).createBranchWeights(1, 1));
  b.SetInsertPoint(choose);
  std::vector<llvm::Value *> arguments;
  for (llvm::Argument &argument : chunk->args())
    arguments.push_back(&argument);
  llvm::CallInst *call = b.CreateCall(streaming, arguments);
  if (!location && chunk->getSubprogram())
    location = llvm::DILocation::get(context, 0, 0, chunk->getSubprogram());
  call->setDebugLoc(location);
  b.CreateRetVoid();
  removeUnusedPlaceholder(module);
  std::string problems;
  llvm::raw_string_ostream os(problems);
  SPIRJIT_INTERNAL_CHECK(!llvm::verifyModule(module, &os),
                         "the streaming stores do not verify: " + os.str());
  return true;
}

} // namespace spirjit
