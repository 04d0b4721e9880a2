// Work-group barriers on the native CPU device (NativeBarriers.h states
// the contract).
#include "compiler/NativeBarriers.h"

#include "frontend/Diagnostics.h"

#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/ADT/SmallBitVector.h>
#include <llvm/Analysis/CFG.h>
#include <llvm/Analysis/DivergenceAnalysis.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/PostDominators.h>
#include <llvm/Analysis/SyncDependenceAnalysis.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/SSAUpdater.h>

#include <algorithm>
#include <functional>
#include <map>
#include <vector>

namespace spirjit {

const char *const nativeBarrierName = "spirjit.native.barrier";
const char *const nativeRegionName = "spirjit.native.region";
const char *const nativeContextName = "spirjit.native.context";
const char *const nativeItemName = "spirjit.native.item";
const char *const nativeItemCountName = "spirjit.native.items";
const char *const nativeUniformName = "spirjit.native.uniform";

namespace {

/// The state a finished work-item leaves.
constexpr int64_t done = -1;

/// A call of a placeholder without arguments that LLVM may treat as a
/// constant of the call site.
llvm::CallInst *placeholder(llvm::IRBuilder<> &b, const char *name,
                            llvm::Type *type, const char *valueName) {
  llvm::Module &module = *b.GetInsertBlock()->getModule();
  llvm::FunctionCallee callee =
      module.getOrInsertFunction(name, llvm::FunctionType::get(type, false));
  auto *function = llvm::cast<llvm::Function>(callee.getCallee());
  function->addFnAttr(llvm::Attribute::NoUnwind);
  function->addFnAttr(llvm::Attribute::ReadNone);
  function->addFnAttr(llvm::Attribute::WillReturn);
  return b.CreateCall(callee, {}, valueName);
}

/// The regions (bits) that reach each block without crossing a barrier.
using Regions = std::map<const llvm::BasicBlock *, llvm::SmallBitVector>;

Regions regionsOf(const std::vector<llvm::BasicBlock *> &entries) {
  Regions regions;
  for (size_t r = 0; r < entries.size(); ++r) {
    std::vector<llvm::BasicBlock *> work = {entries[r]};
    while (!work.empty()) {
      llvm::BasicBlock *block = work.back();
      work.pop_back();
      llvm::SmallBitVector &bits = regions[block];
      bits.resize(entries.size());
      if (bits.test(r))
        continue;
      bits.set(r);
      for (llvm::BasicBlock *next : llvm::successors(block))
        work.push_back(next);
    }
  }
  return regions;
}

/// Does the value of `inst` travel between regions (or between runs of
/// one region that a barrier separates)? It stays an SSA value only where
/// its definition and every use are in blocks that one region alone
/// reaches: a path to the use from that region's start then passes the
/// definition (else the definition would not dominate the use in the
/// kernel as it was). The use of a phi is at the end of its incoming
/// block; a phi is its own use where its block is. A value used in its
/// block alone never crosses: a region starts at a block's start.
bool crossesRegions(const llvm::Instruction &inst, const Regions &regions) {
  if (!llvm::isa<llvm::PHINode>(inst) &&
      llvm::all_of(inst.users(), [&](const llvm::User *user) {
        return !llvm::isa<llvm::PHINode>(user) &&
               llvm::cast<llvm::Instruction>(user)->getParent() ==
                   inst.getParent();
      }))
    return false; // used after it in its block, if at all
  llvm::SmallBitVector seen;
  auto add = [&](const llvm::BasicBlock *block) {
    auto found = regions.find(block);
    if (found == regions.end())
      return; // unreachable: never runs
    seen.resize(found->second.size());
    seen |= found->second;
  };
  add(inst.getParent());
  if (auto *phi = llvm::dyn_cast<llvm::PHINode>(&inst))
    for (const llvm::BasicBlock *incoming : phi->blocks())
      add(incoming);
  for (const llvm::Use &use : inst.uses()) {
    auto *user = llvm::cast<llvm::Instruction>(use.getUser());
    if (auto *phi = llvm::dyn_cast<llvm::PHINode>(user))
      add(phi->getIncomingBlock(use));
    else
      add(user->getParent());
  }
  return seen.count() > 1;
}

/// Can `value` be computed again wherever it is used, from what every
/// region has (constants, the kernel's arguments, `dispatch`'s values), in
/// at most `budget` instructions? Work-item queries (speculatable
/// placeholders) and the index and address arithmetic on them and on the
/// arguments can: cheaper than a slot, and a region's loop over the items
/// then indexes the arrays contiguously rather than through pointers it
/// loads.
bool recomputable(const llvm::Value *value, const llvm::BasicBlock *dispatch,
                  int &budget) {
  const auto *inst = llvm::dyn_cast<llvm::Instruction>(value);
  if (!inst || inst->getParent() == dispatch)
    return true;
  if (--budget < 0 || llvm::isa<llvm::PHINode, llvm::AllocaInst>(inst) ||
      inst->mayReadOrWriteMemory() || !llvm::isSafeToSpeculativelyExecute(inst))
    return false;
  for (const llvm::Value *operand : inst->operands())
    if (!recomputable(operand, dispatch, budget))
      return false;
  return true;
}

/// A copy of recomputable `value`, computed before `before`.
llvm::Value *recompute(llvm::Value *value, llvm::Instruction *before,
                       const llvm::BasicBlock *dispatch) {
  auto *inst = llvm::dyn_cast<llvm::Instruction>(value);
  if (!inst || inst->getParent() == dispatch)
    return value;
  llvm::Instruction *copy = inst->clone();
  for (llvm::Use &operand : copy->operands())
    operand.set(recompute(operand.get(), before, dispatch));
  copy->insertBefore(before);
  return copy;
}

/// Removes the lifetime markers of `pointer` (through casts and GEPs): a
/// slot of the context lives as long as the work-item.
void dropLifetimes(llvm::Value *pointer) {
  std::vector<llvm::Instruction *> dead;
  std::vector<llvm::Value *> work = {pointer};
  while (!work.empty()) {
    llvm::Value *value = work.back();
    work.pop_back();
    for (llvm::User *user : value->users())
      if (auto *intrinsic = llvm::dyn_cast<llvm::IntrinsicInst>(user)) {
        if (intrinsic->isLifetimeStartOrEnd())
          dead.push_back(intrinsic);
      } else if (llvm::isa<llvm::BitCastInst, llvm::GetElementPtrInst>(user)) {
        work.push_back(user);
      }
  }
  for (llvm::Instruction *inst : dead)
    inst->eraseFromParent();
}

/// The cut kernel's blocks as they were joined before the cut: barrier
/// k's block went on to region k's entry.
struct Cut {
  std::vector<llvm::BasicBlock *> entries;  // region k's first block
  std::vector<llvm::BasicBlock *> barriers; // [k]: barrier k's (k >= 1)
  llvm::BasicBlock *leave = nullptr;
};

/// Is `inst`'s value needed from region k's start (k >= 1): does a path
/// of the kernel as it was lead from there to a use without passing
/// `inst`'s block (which defines it again)?
bool liveAtEntry(const llvm::Instruction &inst, const Cut &cut, size_t k) {
  const llvm::BasicBlock *home = inst.getParent();
  std::set<const llvm::BasicBlock *> seen;
  std::vector<const llvm::BasicBlock *> work = {cut.entries[k]};
  while (!work.empty()) {
    const llvm::BasicBlock *block = work.back();
    work.pop_back();
    if (block == home || block == cut.leave || !seen.insert(block).second)
      continue;
    auto at = std::find(cut.barriers.begin(), cut.barriers.end(), block);
    if (at != cut.barriers.end())
      work.push_back(cut.entries[at - cut.barriers.begin()]);
    else
      for (const llvm::BasicBlock *next : llvm::successors(block))
        work.push_back(next);
  }
  return llvm::any_of(inst.uses(), [&](const llvm::Use &use) {
    const auto *user = llvm::cast<llvm::Instruction>(use.getUser());
    const auto *phi = llvm::dyn_cast<llvm::PHINode>(user);
    return seen.count(phi ? phi->getIncomingBlock(use) : user->getParent());
  });
}

/// Keeps `inst`'s value across the barriers it lives across: loaded at
/// region k's start from `slot(false)`, stored to `slot(true)` where the
/// item leaves a region (`leave`, whatever the way out: one store a loop
/// over the items does every time, unconditionally, which LLVM vectorises
/// or, for a uniform value, moves out of the loop), and each use reads the
/// value that reaches it (LLVM's SSAUpdater puts the phis).
void keepAcrossBarriers(llvm::Instruction &inst, const Cut &cut,
                        const std::function<llvm::Value *(bool)> &slot) {
  std::vector<size_t> live;
  for (size_t k = 1; k < cut.entries.size(); ++k)
    if (liveAtEntry(inst, cut, k))
      live.push_back(k);
  if (live.empty())
    return; // each use is reached from the definition within one region
  std::vector<llvm::Use *> uses;
  for (llvm::Use &use : inst.uses()) {
    auto *user = llvm::cast<llvm::Instruction>(use.getUser());
    if (llvm::isa<llvm::PHINode>(user) || user->getParent() != inst.getParent())
      uses.push_back(&use); // else after the definition in its block
  }
  llvm::SSAUpdater updater;
  updater.Initialize(inst.getType(), inst.getName());
  updater.AddAvailableValue(inst.getParent(), &inst);
  llvm::Type *type = inst.getType();
  std::map<const llvm::BasicBlock *, llvm::Value *> restored;
  for (size_t k : live) {
    llvm::IRBuilder<> b(&*cut.entries[k]->getFirstInsertionPt());
    llvm::Value *load =
        b.CreateLoad(type, slot(false), inst.getName() + ".restored");
    updater.AddAvailableValue(cut.entries[k], load);
    restored[cut.entries[k]] = load;
  }
  // The value at barrier k where the next region needs it, else none.
  llvm::BasicBlock *leave = cut.leave;
  llvm::IRBuilder<> b(leave->getTerminator());
  llvm::PHINode *saved = llvm::PHINode::Create(
      type, cut.entries.size(), inst.getName() + ".saved", &leave->front());
  for (llvm::BasicBlock *from : llvm::predecessors(leave)) {
    auto at = std::find(cut.barriers.begin(), cut.barriers.end(), from);
    bool needed =
        at != cut.barriers.end() &&
        std::count(live.begin(), live.end(), at - cut.barriers.begin());
    saved->addIncoming(needed ? updater.GetValueAtEndOfBlock(from)
                              : llvm::PoisonValue::get(type),
                       from);
  }
  b.CreateStore(saved, slot(true));
  // A use in a region's first block reads the value loaded at its start
  // (the updater answers for the start of a block from its predecessors).
  for (llvm::Use *use : uses) {
    auto *user = llvm::cast<llvm::Instruction>(use->getUser());
    auto at = restored.find(user->getParent());
    if (!llvm::isa<llvm::PHINode>(user) && at != restored.end())
      use->set(at->second);
    else
      updater.RewriteUse(*use);
  }
}

} // namespace

std::set<const llvm::Value *>
uniformValues(llvm::Function &kernel,
              const std::set<std::string> &itemQueries) {
  llvm::DominatorTree dominators(kernel);
  llvm::PostDominatorTree postDominators(kernel);
  llvm::LoopInfo loops(dominators);
  llvm::ReversePostOrderTraversal<const llvm::Function *> order(&kernel);
  if (llvm::containsIrreducibleCFG<const llvm::BasicBlock *>(order, loops))
    return {};
  llvm::SyncDependenceAnalysis sync(dominators, postDominators, loops);
  llvm::DivergenceAnalysisImpl divergence(kernel, nullptr, dominators, loops,
                                          sync, false);
  for (llvm::BasicBlock &block : kernel)
    for (llvm::Instruction &inst : block) {
      auto *call = llvm::dyn_cast<llvm::CallInst>(&inst);
      llvm::Function *callee = call ? call->getCalledFunction() : nullptr;
      if (llvm::isa<llvm::AllocaInst>(inst) || inst.mayReadOrWriteMemory() ||
          (call && (!callee || itemQueries.count(callee->getName().str()))))
        divergence.markDivergent(inst);
    }
  divergence.compute();
  std::set<const llvm::Value *> uniform;
  for (llvm::BasicBlock &block : kernel)
    for (llvm::Instruction &inst : block)
      if (!inst.getType()->isVoidTy() && !divergence.isDivergent(inst) &&
          llvm::none_of(inst.uses(), [&](const llvm::Use &use) {
            return divergence.isDivergentUse(use);
          }))
        uniform.insert(&inst);
  return uniform;
}

llvm::CallInst *createNativeBarrier(llvm::IRBuilder<> &b) {
  // Convergent: LLVM neither duplicates it nor makes it depend on more
  // branches; an unknown callee: no memory access moves across it.
  llvm::Module *module = b.GetInsertBlock()->getModule();
  llvm::FunctionCallee callee = module->getOrInsertFunction(
      nativeBarrierName, llvm::FunctionType::get(b.getVoidTy(), false));
  auto *function = llvm::cast<llvm::Function>(callee.getCallee());
  function->addFnAttr(llvm::Attribute::NoUnwind);
  function->addFnAttr(llvm::Attribute::Convergent);
  llvm::CallInst *call = b.CreateCall(callee);
  call->addFnAttr(llvm::Attribute::Convergent);
  return call;
}

NativeRegions splitAtBarriers(llvm::Function &kernel,
                              const std::set<std::string> &itemQueries,
                              const std::string &localIdName,
                              const std::set<std::string> &groupQueries) {
  llvm::Module &module = *kernel.getParent();
  llvm::Function *barrier = module.getFunction(nativeBarrierName);
  std::vector<llvm::CallInst *> barriers;
  if (barrier)
    for (llvm::User *user : barrier->users()) {
      auto *call = llvm::cast<llvm::CallInst>(user);
      if (call->getFunction() == &kernel)
        barriers.push_back(call);
    }
  NativeRegions result;
  if (barriers.empty())
    return result;
  // Asked of the kernel as written: the cut below leaves loops through
  // barriers no loops.
  std::set<const llvm::Value *> uniform = uniformValues(kernel, itemQueries);
  llvm::LLVMContext &context = module.getContext();
  const llvm::DataLayout &layout = module.getDataLayout();
  llvm::IRBuilder<> b(context);

  // dispatch, the new entry: the item's slots and the region to run.
  llvm::BasicBlock *entry = &kernel.getEntryBlock();
  llvm::BasicBlock *dispatch =
      llvm::BasicBlock::Create(context, "dispatch", &kernel, entry);
  b.SetInsertPoint(dispatch);
  llvm::Value *contexts =
      placeholder(b, nativeContextName, b.getInt8PtrTy(), "contexts");
  llvm::Value *item = placeholder(b, nativeItemName, b.getInt64Ty(), "item");
  llvm::Value *items =
      placeholder(b, nativeItemCountName, b.getInt64Ty(), "items");
  llvm::Value *region =
      placeholder(b, nativeRegionName, b.getInt32Ty(), "region");
  llvm::Value *uniformArea =
      placeholder(b, nativeUniformName, b.getInt8PtrTy(), "uniform");
  // This item's copy in the slot at `offset` bytes per item, `bytes` long.
  auto slot = [&](uint64_t offset, uint64_t bytes) {
    return b.CreateInBoundsGEP(
        b.getInt8Ty(), contexts,
        b.CreateAdd(b.CreateMul(items, b.getInt64(offset)),
                    b.CreateMul(item, b.getInt64(bytes))));
  };
  llvm::SwitchInst *dispatchSwitch = b.CreateSwitch(region, entry);
  dispatchSwitch->addCase(b.getInt32(0), entry);

  // Every way out of a region goes to one block, `leave`, that stores the
  // next region's number (`done` after a return, k at barrier k, the rest
  // of whose block starts region k), the same in every item (the barriers
  // are convergent): one store to the uniform area (its address is set
  // below, once the area's size is known), which a loop over the items
  // moves out of the loop where every way out goes to one barrier. One
  // store also keeps its parallel-access metadata: a store per exit would
  // be merged into one by InstCombine, which drops the metadata, and the
  // region's loop over the items would then no longer be parallel.
  llvm::BasicBlock *leave = llvm::BasicBlock::Create(context, "leave", &kernel);
  b.SetInsertPoint(leave);
  llvm::PHINode *next = b.CreatePHI(b.getInt32Ty(), 4, "next.region");
  llvm::StoreInst *nextStore = b.CreateStore(
      next, llvm::UndefValue::get(b.getInt32Ty()->getPointerTo()));
  b.CreateRetVoid();
  std::vector<llvm::ReturnInst *> returns;
  for (llvm::BasicBlock &block : kernel)
    if (auto *ret = llvm::dyn_cast<llvm::ReturnInst>(block.getTerminator());
        ret && &block != leave)
      returns.push_back(ret);
  for (llvm::ReturnInst *ret : returns) {
    next->addIncoming(b.getInt32(static_cast<uint32_t>(done)),
                      ret->getParent());
    llvm::BranchInst::Create(leave, ret);
    ret->eraseFromParent();
  }
  Cut cut;
  cut.leave = leave;
  std::vector<llvm::BasicBlock *> &entries = cut.entries;
  entries.push_back(entry);
  for (llvm::CallInst *call : barriers) {
    int k = static_cast<int>(entries.size());
    llvm::BasicBlock *cutBlock = call->getParent();
    llvm::BasicBlock *resume = cutBlock->splitBasicBlock(
        call->getNextNode(), "region" + std::to_string(k));
    llvm::Instruction *branch = cutBlock->getTerminator();
    next->addIncoming(b.getInt32(k), cutBlock);
    llvm::BranchInst::Create(leave, branch);
    branch->eraseFromParent();
    call->eraseFromParent();
    dispatchSwitch->addCase(b.getInt32(k), resume);
    entries.push_back(resume);
  }
  // The block that ends at barrier k: known once every cut is made (a
  // later cut of the same block moves its end).
  cut.barriers.resize(entries.size());
  for (unsigned i = 0; i < next->getNumIncomingValues(); ++i) {
    int64_t k = llvm::cast<llvm::ConstantInt>(next->getIncomingValue(i))
                    ->getSExtValue();
    if (k != done)
      cut.barriers[k] = next->getIncomingBlock(i);
  }
  if (barrier->use_empty())
    barrier->eraseFromParent();

  // Values that cross a cut are computed again where they are used, if
  // that is cheap (recomputable), else kept in a slot across the barriers
  // they live across (keepAcrossBarriers): one per group where the value
  // is uniform, else one per item (an alloca in dispatch, which the
  // contexts take below).
  Regions regions = regionsOf(entries);
  std::vector<llvm::Instruction *> crossing;
  for (llvm::BasicBlock &block : kernel) {
    if (&block == dispatch || &block == leave)
      continue; // the items' state, not the kernel's values
    for (llvm::Instruction &inst : block)
      if (!llvm::isa<llvm::AllocaInst>(inst) && crossesRegions(inst, regions))
        crossing.push_back(&inst);
  }
  std::vector<llvm::Instruction *> kept;
  for (llvm::Instruction *inst : crossing) {
    int budget = 16;
    if (llvm::isa<llvm::PHINode>(inst) ||
        !recomputable(inst, dispatch, budget)) {
      kept.push_back(inst);
      continue;
    }
    // Each use outside the block gets its own copy (a phi's, at the end
    // of the incoming block).
    std::vector<llvm::Use *> uses;
    for (llvm::Use &use : inst->uses()) {
      auto *user = llvm::cast<llvm::Instruction>(use.getUser());
      if (llvm::isa<llvm::PHINode>(user) ||
          user->getParent() != inst->getParent())
        uses.push_back(&use);
    }
    for (llvm::Use *use : uses) {
      auto *user = llvm::cast<llvm::Instruction>(use->getUser());
      llvm::Instruction *before = user;
      if (auto *phi = llvm::dyn_cast<llvm::PHINode>(user))
        before = phi->getIncomingBlock(*use)->getTerminator();
      use->set(recompute(inst, before, dispatch));
    }
  }
  // A uniform value's slot is one per group, read at a region's start
  // from the group's `uniform` area and written at its end to the copy
  // after it, which the chunk copies back after each region: every item
  // reads the value the region started with, and a loop over the items
  // loads it once (uniform, so its accesses vectorise as such).
  uint64_t uniformBytes = 4; // the next region's number first
  std::vector<uint64_t> uniformOffsets;
  for (llvm::Instruction *inst : kept)
    if (uniform.count(inst)) {
      llvm::Type *type = inst->getType();
      uniformBytes = llvm::alignTo(uniformBytes, layout.getABITypeAlign(type));
      uniformOffsets.push_back(uniformBytes);
      uniformBytes += layout.getTypeAllocSize(type);
    }
  uniformBytes = llvm::alignTo(uniformBytes, 64);
  {
    llvm::IRBuilder<> at(dispatchSwitch);
    nextStore->setOperand(
        1, at.CreateBitCast(at.CreateConstInBoundsGEP1_64(
                                at.getInt8Ty(), uniformArea, uniformBytes),
                            at.getInt32Ty()->getPointerTo(), "next"));
  }
  size_t nextUniform = 0;
  for (llvm::Instruction *inst : kept) {
    llvm::Type *pointerType = inst->getType()->getPointerTo();
    if (uniform.count(inst)) {
      uint64_t offset = uniformOffsets[nextUniform++];
      keepAcrossBarriers(*inst, cut, [&](bool save) {
        llvm::IRBuilder<> at(dispatchSwitch);
        return at.CreateBitCast(
            at.CreateConstInBoundsGEP1_64(at.getInt8Ty(), uniformArea,
                                          offset + (save ? uniformBytes : 0)),
            pointerType);
      });
    } else {
      llvm::IRBuilder<> at(dispatch->getFirstNonPHI());
      llvm::AllocaInst *alloca = at.CreateAlloca(
          inst->getType(), nullptr, inst->getName() + ".kept");
      keepAcrossBarriers(*inst, cut,
                         [&](bool) -> llvm::Value * { return alloca; });
    }
  }

  // The contexts' slots: every alloca.
  std::vector<llvm::AllocaInst *> allocas;
  for (llvm::BasicBlock &block : kernel)
    for (llvm::Instruction &inst : block)
      if (auto *alloca = llvm::dyn_cast<llvm::AllocaInst>(&inst))
        allocas.push_back(alloca);
  uint64_t offset = 0;
  b.SetInsertPoint(dispatchSwitch);
  for (llvm::AllocaInst *alloca : allocas) {
    auto size = alloca->getAllocationSizeInBits(layout);
    SPIRJIT_INTERNAL_CHECK(size && !size->isScalable(),
                           "an alloca of no fixed size in a kernel with "
                           "barriers (the native CPU device)");
    // Every item's copy aligned: the slot starts aligned (the contexts are
    // 64-byte aligned) and its size per item is a multiple.
    uint64_t align = alloca->getAlign().value();
    SPIRJIT_INTERNAL_CHECK(align <= 64,
                           "an alloca aligned past 64 bytes in a kernel "
                           "with barriers (the native CPU device)");
    uint64_t bytes = llvm::alignTo((size->getFixedSize() + 7) / 8, align);
    offset = llvm::alignTo(offset, align);
    dropLifetimes(alloca);
    llvm::Value *pointer =
        b.CreateBitCast(slot(offset, bytes), alloca->getType());
    pointer->takeName(alloca);
    alloca->replaceAllUsesWith(pointer);
    alloca->eraseFromParent();
    offset += bytes;
  }
  result.count = static_cast<int>(entries.size());
  result.items =
      regionItemBounds(kernel, entries, leave, localIdName, groupQueries);
  result.contextBytes = offset;
  result.uniformBytes = uniformBytes;
  return result;
}

} // namespace spirjit
