// Group and sub-group collectives on devices whose sub-groups exchange
// registers (DeviceTarget::emitShuffle: CUDA's shfl.sync).
//
// Contract: the same answers as the scratch-and-barrier forms in
// LowerKernelAPI.cpp (groupScan, groupCollective, groupShuffle), for every
// work-item of a group reaching the collective together. A sub-group is a
// warp: its scans and shuffles need no barrier. A group's scan or
// reduction scans each warp in registers, puts each warp's total in the
// group scratch, lets the first warp scan those, and reads its warp's
// prefix back: two barriers, where the scratch forms took two a step (16
// for 256 items; the H100's tiled scans were bound by them, at 73 % of
// the SMs' issue and 33 % of memory bandwidth).
#include "compiler/lower/Lowering.h"

#include <functional>
#include <string>

namespace spirjit::lower {

using Shuffle = DeviceTarget::Shuffle;

bool Lowering::shufflesValues(const Type *type) {
  if (!device().hasShuffles() || type->kind == TypeKind::Complex)
    return false;
  llvm::Type *element = memoryType(type);
  return (element->isIntegerTy() || element->isFloatingPointTy()) &&
         element->getPrimitiveSizeInBits() <= 64;
}

Lowering::Warp Lowering::warpOf(llvm::Value *me, llvm::Value *size) {
  int64_t width = device().subGroupSize();
  Warp w;
  w.lane = builder_.CreateURem(me, builder_.getInt64(width));
  w.warp = builder_.CreateUDiv(me, builder_.getInt64(width));
  llvm::Value *left = builder_.CreateSub(size, builder_.CreateSub(me, w.lane));
  llvm::Value *full = builder_.CreateICmpUGE(left, builder_.getInt64(width));
  w.count = builder_.CreateSelect(full, builder_.getInt64(width), left);
  // The lanes present: all 32, or the low `count` of a last, partial warp.
  llvm::Value *partial = builder_.CreateTrunc(
      builder_.CreateSub(
          builder_.CreateShl(
              builder_.getInt64(1),
              builder_.CreateSelect(full, builder_.getInt64(0), w.count)),
          builder_.getInt64(1)),
      builder_.getInt32Ty());
  w.mask = builder_.CreateSelect(full, builder_.getInt32(0xFFFFFFFFu), partial);
  return w;
}

llvm::Value *Lowering::shuffleValue(Shuffle kind, llvm::Value *mask,
                                    llvm::Value *value, llvm::Value *lane) {
  llvm::Type *type = value->getType();
  unsigned bits = type->getPrimitiveSizeInBits();
  llvm::Type *i32 = builder_.getInt32Ty();
  llvm::Type *asInt = builder_.getIntNTy(bits);
  llvm::Value *word =
      type->isIntegerTy() ? value : builder_.CreateBitCast(value, asInt);
  auto exchange = [&](llvm::Value *part) {
    return device().emitShuffle(builder_, kind, mask, part, lane);
  };
  llvm::Value *back;
  if (bits <= 32) {
    back =
        builder_.CreateTrunc(exchange(builder_.CreateZExt(word, i32)), asInt);
  } else { // two halves
    llvm::Value *low = exchange(builder_.CreateTrunc(word, i32));
    llvm::Value *high = exchange(builder_.CreateTrunc(
        builder_.CreateLShr(word, builder_.getIntN(bits, 32)), i32));
    back =
        builder_.CreateOr(builder_.CreateShl(builder_.CreateZExt(high, asInt),
                                             builder_.getIntN(bits, 32)),
                          builder_.CreateZExt(low, asInt));
  }
  return type->isIntegerTy() ? back : builder_.CreateBitCast(back, type);
}

llvm::Value *Lowering::warpInclusiveScan(GroupOperation op, const Type *type,
                                         llvm::Value *x, const Warp &w) {
  // Kogge-Stone over the warp's registers: at distance d each lane at or
  // above d takes in the value d lanes below.
  for (int64_t d = 1; d < device().subGroupSize(); d *= 2) {
    llvm::Value *theirs =
        shuffleValue(Shuffle::Up, w.mask, x, builder_.getInt32(d));
    x = builder_.CreateSelect(
        builder_.CreateICmpUGE(w.lane, builder_.getInt64(d)),
        combineGroup(op, type, theirs, x), x);
  }
  return x;
}

llvm::Value *Lowering::warpScan(int rank, bool subGroup, llvm::Value *value,
                                const Type *type, GroupOperation op,
                                GroupScan kind) {
  llvm::Value *me =
      linearQuery(WorkItemQuery::LocalId, WorkItemQuery::LocalSize, rank);
  llvm::Value *size = rangeProduct(WorkItemQuery::LocalSize, rank);
  Warp w = warpOf(me, size);
  llvm::Value *identity = groupIdentity(op, type);
  llvm::Value *inclusive = warpInclusiveScan(op, type, toSlot(value, type), w);
  llvm::Value *first = builder_.CreateICmpEQ(w.lane, builder_.getInt64(0));
  // Within the warp: the lane below's inclusive value, the identity at 0.
  auto exclusiveInWarp = [&]() {
    llvm::Value *below =
        shuffleValue(Shuffle::Up, w.mask, inclusive, builder_.getInt32(1));
    return builder_.CreateSelect(first, identity, below);
  };
  if (subGroup) {
    if (kind == GroupScan::Inclusive)
      return inclusive;
    if (kind == GroupScan::Exclusive)
      return exclusiveInWarp();
    llvm::Value *last =
        builder_.CreateTrunc(builder_.CreateSub(w.count, builder_.getInt64(1)),
                             builder_.getInt32Ty());
    return shuffleValue(Shuffle::Index, w.mask, inclusive, last);
  }
  llvm::Type *element = memoryType(type);
  llvm::Value *slots = groupSlots(element);
  auto slot = [&](llvm::Value *i) {
    return builder_.CreateInBoundsGEP(element, slots, i);
  };
  int64_t width = device().subGroupSize();
  // Code that only the items where `when` holds run: `then` emits it, and
  // the items meet again after it.
  auto onlyWhere = [&](llvm::Value *when, const char *name,
                       const std::function<void()> &then) {
    llvm::BasicBlock *body = llvm::BasicBlock::Create(
        context_, std::string("warps.") + name, function_);
    llvm::BasicBlock *after = llvm::BasicBlock::Create(
        context_, std::string("warps.") + name + ".done", function_);
    builder_.CreateCondBr(when, body, after);
    builder_.SetInsertPoint(body);
    then();
    builder_.CreateBr(after);
    builder_.SetInsertPoint(after);
  };
  // Each warp's total, from its last lane.
  onlyWhere(builder_.CreateICmpEQ(
                w.lane, builder_.CreateSub(w.count, builder_.getInt64(1))),
            "total", [&] { builder_.CreateStore(inclusive, slot(w.warp)); });
  device().emitBarrier(builder_);
  // The first warp scans the totals in place (at most 32 warps a group).
  llvm::Value *warps = builder_.CreateUDiv(
      builder_.CreateAdd(size, builder_.getInt64(width - 1)),
      builder_.getInt64(width));
  onlyWhere(builder_.CreateICmpEQ(w.warp, builder_.getInt64(0)), "scan", [&] {
    llvm::Value *holds = builder_.CreateICmpULT(w.lane, warps);
    llvm::Value *total = builder_.CreateLoad(
        element,
        slot(builder_.CreateSelect(holds, w.lane, builder_.getInt64(0))));
    llvm::Value *totals = warpInclusiveScan(
        op, type, builder_.CreateSelect(holds, total, identity), w);
    onlyWhere(holds, "write",
              [&] { builder_.CreateStore(totals, slot(w.lane)); });
  });
  device().emitBarrier(builder_);
  llvm::Value *result;
  if (kind == GroupScan::Total) {
    result = builder_.CreateLoad(
        element, slot(builder_.CreateSub(warps, builder_.getInt64(1))));
  } else {
    // The warps below this one, combined: slot warp - 1 (none for warp 0).
    llvm::Value *later = builder_.CreateICmpUGT(w.warp, builder_.getInt64(0));
    llvm::Value *prefix = builder_.CreateLoad(
        element, slot(builder_.CreateSelect(
                     later, builder_.CreateSub(w.warp, builder_.getInt64(1)),
                     builder_.getInt64(0))));
    llvm::Value *own =
        kind == GroupScan::Inclusive ? inclusive : exclusiveInWarp();
    llvm::Value *joined = combineGroup(op, type, prefix, own);
    if (kind == GroupScan::Exclusive) // lane 0: the prefix alone
      joined = builder_.CreateSelect(first, prefix, joined);
    result = builder_.CreateSelect(later, joined, own);
  }
  device().emitBarrier(builder_); // the scratch may be reused right after
  return result;
}

llvm::Value *Lowering::warpShuffle(int rank, llvm::Value *value,
                                   const Type *type, llvm::Value *lane) {
  GroupSegment seg = groupSegment(rank, true);
  llvm::Value *me =
      linearQuery(WorkItemQuery::LocalId, WorkItemQuery::LocalSize, rank);
  Warp w = warpOf(me, rangeProduct(WorkItemQuery::LocalSize, rank));
  // A lane outside the sub-group (CUDA's __shfl_* answer): the item's own.
  llvm::Value *inside =
      builder_.CreateAnd(builder_.CreateICmpSGE(lane, builder_.getInt64(0)),
                         builder_.CreateICmpSLT(lane, seg.count));
  llvm::Value *from = builder_.CreateTrunc(
      builder_.CreateSelect(inside, lane, seg.lane), builder_.getInt32Ty());
  llvm::Value *stored = toSlot(value, type);
  llvm::Value *theirs = shuffleValue(Shuffle::Index, w.mask, stored, from);
  return type->kind == TypeKind::Bool
             ? builder_.CreateICmpNE(
                   theirs, llvm::ConstantInt::get(theirs->getType(), 0))
             : theirs;
}

llvm::Value *Lowering::subGroupBallot(int rank, llvm::Value *truth) {
  if (device().hasShuffles()) {
    llvm::Value *me =
        linearQuery(WorkItemQuery::LocalId, WorkItemQuery::LocalSize, rank);
    Warp w = warpOf(me, rangeProduct(WorkItemQuery::LocalSize, rank));
    if (llvm::Value *lanes = device().emitBallot(builder_, w.mask, truth))
      return lanes;
  }
  GroupSegment seg = groupSegment(rank, true);
  llvm::Value *bit = builder_.CreateShl(
      builder_.CreateZExt(truth, builder_.getInt32Ty()),
      builder_.CreateTrunc(seg.lane, builder_.getInt32Ty()));
  return groupScan(rank, true, bit, types::integer(32, false),
                   GroupOperation::Or, GroupScan::Total);
}

} // namespace spirjit::lower
