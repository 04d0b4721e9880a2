// Work-group barriers on the native CPU device (NativeBarriers.h states
// the contract).
#include "compiler/NativeBarriers.h"

#include "frontend/Diagnostics.h"

#include <llvm/ADT/SmallBitVector.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/Local.h>

#include <map>
#include <vector>

namespace spirjit {

const char *const nativeBarrierName = "spirjit.native.barrier";
const char *const nativeRegionName = "spirjit.native.region";
const char *const nativeContextName = "spirjit.native.context";
const char *const nativeItemName = "spirjit.native.item";
const char *const nativeItemCountName = "spirjit.native.items";

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

} // namespace

NativeRegions splitAtBarriers(llvm::Function &kernel) {
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
  // This item's copy in the slot at `offset` bytes per item, `bytes` long.
  auto slot = [&](uint64_t offset, uint64_t bytes) {
    return b.CreateInBoundsGEP(
        b.getInt8Ty(), contexts,
        b.CreateAdd(b.CreateMul(items, b.getInt64(offset)),
                    b.CreateMul(item, b.getInt64(bytes))));
  };
  llvm::Value *nextRegion =
      b.CreateBitCast(slot(0, 4), b.getInt32Ty()->getPointerTo(), "next");
  llvm::SwitchInst *dispatchSwitch = b.CreateSwitch(region, entry);
  dispatchSwitch->addCase(b.getInt32(0), entry);

  // A return leaves `done`; barrier k ends its block with a return that
  // leaves k, the rest of the block starting region k.
  for (llvm::BasicBlock &block : kernel)
    if (auto *ret = llvm::dyn_cast<llvm::ReturnInst>(block.getTerminator())) {
      b.SetInsertPoint(ret);
      b.CreateStore(b.getInt32(static_cast<uint32_t>(done)), nextRegion);
    }
  std::vector<llvm::BasicBlock *> entries = {entry};
  for (llvm::CallInst *call : barriers) {
    int k = static_cast<int>(entries.size());
    llvm::BasicBlock *resume = call->getParent()->splitBasicBlock(
        call->getNextNode(), "region" + std::to_string(k));
    llvm::Instruction *branch = call->getParent()->getTerminator();
    b.SetInsertPoint(branch);
    b.CreateStore(b.getInt32(k), nextRegion);
    b.CreateRetVoid();
    branch->eraseFromParent();
    call->eraseFromParent();
    dispatchSwitch->addCase(b.getInt32(k), resume);
    entries.push_back(resume);
  }
  if (barrier->use_empty())
    barrier->eraseFromParent();

  // Values that cross a cut are computed again where they are used, if
  // that is cheap (recomputable), else go to memory (allocas in dispatch,
  // which the contexts take below): phis first, whose demotion adds uses
  // of their incoming values.
  Regions regions = regionsOf(entries);
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<llvm::Instruction *> crossing;
    for (llvm::BasicBlock &block : kernel) {
      if (&block == dispatch)
        continue;
      for (llvm::Instruction &inst : block)
        if (!llvm::isa<llvm::AllocaInst>(inst) &&
            llvm::isa<llvm::PHINode>(inst) == (pass == 0) &&
            crossesRegions(inst, regions))
          crossing.push_back(&inst);
    }
    for (llvm::Instruction *inst : crossing) {
      if (auto *phi = llvm::dyn_cast<llvm::PHINode>(inst)) {
        llvm::DemotePHIToStack(phi, dispatch->getFirstNonPHI());
        continue;
      }
      int budget = 16;
      if (!recomputable(inst, dispatch, budget)) {
        llvm::DemoteRegToStack(*inst, false, dispatch->getFirstNonPHI());
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
  }

  // The contexts' slots: the next region's number, then every alloca.
  std::vector<llvm::AllocaInst *> allocas;
  for (llvm::BasicBlock &block : kernel)
    for (llvm::Instruction &inst : block)
      if (auto *alloca = llvm::dyn_cast<llvm::AllocaInst>(&inst))
        allocas.push_back(alloca);
  uint64_t offset = 4;
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
  result.contextBytes = offset;
  return result;
}

} // namespace spirjit
