// The kernel API (KernelAPI.def): work-item queries, barriers and fences,
// group collectives, PrivateArray and atomics. Only here does the lowering
// need the target's device layer.
#include "compiler/lower/Lowering.h"

namespace spirjit::lower {

const DeviceTarget &Lowering::device() const {
  const DeviceTarget *device = target_.asDevice();
  SPIRJIT_INTERNAL_CHECK(device, "a kernel-API construct reached the "
                                 "lowering for " +
                                     target_.name() +
                                     ", which is no device target");
  return *device;
}

llvm::Value *Lowering::linearQuery(WorkItemQuery id, WorkItemQuery size,
                                   int ndim) {
  // Row-major, dimension 0 slowest: OpenCL's dimension 0 is our last, so
  // it is the fastest-varying term.
  llvm::Value *linear =
      device().emitWorkItemQuery(builder_, id, builder_.getInt32(0));
  llvm::Value *scale = builder_.getInt64(1);
  for (int d = 1; d < ndim; ++d) {
    scale = builder_.CreateMul(
        scale,
        device().emitWorkItemQuery(builder_, size, builder_.getInt32(d - 1)));
    linear = builder_.CreateAdd(
        linear, builder_.CreateMul(device().emitWorkItemQuery(
                                       builder_, id, builder_.getInt32(d)),
                                   scale));
  }
  return linear;
}

llvm::Value *Lowering::rangeProduct(WorkItemQuery size, int ndim) {
  llvm::Value *product = builder_.getInt64(1);
  for (int d = 0; d < ndim; ++d)
    product = builder_.CreateMul(
        product,
        device().emitWorkItemQuery(builder_, size, builder_.getInt32(d)));
  return product;
}

Lowered Lowering::lowerWorkItemMethod(const Instruction &inst,
                                      const Type *receiver, KernelApi method) {
  int ndim = receiver->ndim;
  auto openclDim = [&](llvm::Value *d) {
    return builder_.CreateTrunc(
        builder_.CreateSub(builder_.getInt64(ndim - 1), d),
        builder_.getInt32Ty());
  };
  auto perDimension = [&](WorkItemQuery q) -> Lowered {
    llvm::Value *d = scalarOf(inst.operands[1], types::int64());
    return {device().emitWorkItemQuery(builder_, q, openclDim(d))};
  };
  auto linear = [&](WorkItemQuery id, WorkItemQuery size) -> Lowered {
    return {linearQuery(id, size, ndim)};
  };
  auto total = [&](WorkItemQuery size) -> Lowered {
    return {rangeProduct(size, ndim)};
  };
  // An Item's queries are an NdItem's global ones.
  switch (method) {
  case KernelApi::ItemGetId:
  case KernelApi::NdItemGetGlobalId:
    return perDimension(WorkItemQuery::GlobalId);
  case KernelApi::NdItemGetLocalId:
    return perDimension(WorkItemQuery::LocalId);
  case KernelApi::ItemGetRange:
  case KernelApi::NdItemGetGlobalRange:
    return perDimension(WorkItemQuery::GlobalSize);
  case KernelApi::NdItemGetLocalRange:
  case KernelApi::GroupGetLocalRange:
    return perDimension(WorkItemQuery::LocalSize);
  case KernelApi::GroupGetGroupId:
    return perDimension(WorkItemQuery::GroupId);
  case KernelApi::GroupGetGroupRange:
    return perDimension(WorkItemQuery::NumGroups);
  case KernelApi::ItemGetLinearId:
  case KernelApi::NdItemGetGlobalLinearId:
    return linear(WorkItemQuery::GlobalId, WorkItemQuery::GlobalSize);
  case KernelApi::NdItemGetLocalLinearId:
    return linear(WorkItemQuery::LocalId, WorkItemQuery::LocalSize);
  case KernelApi::GroupGetGroupLinearId:
    return linear(WorkItemQuery::GroupId, WorkItemQuery::NumGroups);
  case KernelApi::ItemGetLinearRange:
  case KernelApi::NdItemGetGlobalLinearRange:
    return total(WorkItemQuery::GlobalSize);
  case KernelApi::NdItemGetLocalLinearRange:
  case KernelApi::GroupGetLocalLinearRange:
    return total(WorkItemQuery::LocalSize);
  case KernelApi::GroupGetGroupLinearRange:
    return total(WorkItemQuery::NumGroups);
  case KernelApi::NdItemGetGroup:
  case KernelApi::NdItemGetSubGroup:
    return {}; // compile-time only
  default:
    SPIRJIT_INTERNAL_CHECK(false, "not a work-item query");
  }
  return {};
}

llvm::Value *Lowering::groupSlots(llvm::Type *element) {
  SPIRJIT_INTERNAL_CHECK(groupScratch_, "a group algorithm without scratch");
  return builder_.CreateBitCast(
      groupScratch_,
      llvm::PointerType::get(element,
                             target_.addressSpace(MemorySpace::Local)));
}

llvm::Value *Lowering::toSlot(llvm::Value *value, const Type *type) {
  return type->kind == TypeKind::Bool
             ? builder_.CreateZExt(value, memoryType(type))
             : value;
}

llvm::Value *Lowering::groupCollective(int rank, llvm::Value *value,
                                       const Type *type, GroupOperation op,
                                       llvm::Value *source) {
  // Built from the hidden local scratch and barriers, so it works on any
  // device: every work-item stores its value, a tree combines them.
  llvm::Type *element = memoryType(type);
  llvm::Value *slots = groupSlots(element);
  llvm::Value *me =
      linearQuery(WorkItemQuery::LocalId, WorkItemQuery::LocalSize, rank);
  llvm::Value *stored = toSlot(value, type);
  if (op == GroupOperation::Broadcast) {
    llvm::BasicBlock *write =
        llvm::BasicBlock::Create(context_, "bcast.write", function_);
    llvm::BasicBlock *join =
        llvm::BasicBlock::Create(context_, "bcast.join", function_);
    builder_.CreateCondBr(builder_.CreateICmpEQ(me, source), write, join);
    builder_.SetInsertPoint(write);
    builder_.CreateStore(stored, slots);
    builder_.CreateBr(join);
    builder_.SetInsertPoint(join);
    device().emitBarrier(builder_);
    llvm::Value *result = builder_.CreateLoad(element, slots);
    device().emitBarrier(builder_);
    return type->kind == TypeKind::Bool
               ? builder_.CreateICmpNE(result,
                                       llvm::ConstantInt::get(element, 0))
               : result;
  }
  if (shufflesValues(type)) // by warps (LowerWarpCollectives.cpp)
    return warpScan(rank, false, value, type, op, GroupScan::Total);
  llvm::Value *size = rangeProduct(WorkItemQuery::LocalSize, rank);
  builder_.CreateStore(stored, builder_.CreateInBoundsGEP(element, slots, me));
  device().emitBarrier(builder_);
  // Halve the active range each step: slot i combines slot i + half while
  // i + half < n; every work-item reaches every barrier.
  llvm::BasicBlock *before = builder_.GetInsertBlock();
  llvm::BasicBlock *loop =
      llvm::BasicBlock::Create(context_, "reduce.loop", function_);
  llvm::BasicBlock *combine =
      llvm::BasicBlock::Create(context_, "reduce.combine", function_);
  llvm::BasicBlock *next =
      llvm::BasicBlock::Create(context_, "reduce.next", function_);
  llvm::BasicBlock *done =
      llvm::BasicBlock::Create(context_, "reduce.done", function_);
  builder_.CreateBr(loop);
  builder_.SetInsertPoint(loop);
  llvm::PHINode *active = builder_.CreatePHI(builder_.getInt64Ty(), 2);
  active->addIncoming(size, before);
  llvm::Value *half = builder_.CreateLShr(
      builder_.CreateAdd(active, builder_.getInt64(1)), builder_.getInt64(1));
  llvm::Value *partner = builder_.CreateAdd(me, half);
  llvm::Value *works =
      builder_.CreateAnd(builder_.CreateICmpULT(me, half),
                         builder_.CreateICmpULT(partner, active));
  builder_.CreateCondBr(works, combine, next);
  builder_.SetInsertPoint(combine);
  llvm::Value *mine = builder_.CreateLoad(
      element, builder_.CreateInBoundsGEP(element, slots, me));
  llvm::Value *theirs = builder_.CreateLoad(
      element, builder_.CreateInBoundsGEP(element, slots, partner));
  llvm::Value *combined = combineGroup(op, type, mine, theirs);
  builder_.CreateStore(combined,
                       builder_.CreateInBoundsGEP(element, slots, me));
  builder_.CreateBr(next);
  builder_.SetInsertPoint(next);
  device().emitBarrier(builder_);
  active->addIncoming(half, next);
  builder_.CreateCondBr(builder_.CreateICmpUGT(half, builder_.getInt64(1)),
                        loop, done);
  builder_.SetInsertPoint(done);
  llvm::Value *result = builder_.CreateLoad(element, slots);
  device().emitBarrier(builder_); // the scratch may be reused right after
  return result;
}

llvm::Value *Lowering::combineGroup(GroupOperation op, const Type *type,
                                    llvm::Value *mine, llvm::Value *theirs) {
  llvm::Value *combined;
  if (op == GroupOperation::And)
    return builder_.CreateAnd(mine, theirs);
  if (op == GroupOperation::Or)
    return builder_.CreateOr(mine, theirs);
  if (op == GroupOperation::Xor)
    return builder_.CreateXor(mine, theirs);
  bool isFloat = type->kind == TypeKind::Float;
  bool isSigned = type->kind == TypeKind::Int && type->isSigned;
  if (type->kind == TypeKind::Complex && (op == GroupOperation::Min ||
                                          op == GroupOperation::Max))
    // NumPy's order of complex numbers, a NaN part winning (np.maximum).
    combined = complexOrder(
        *findUfunc(op == GroupOperation::Max ? "numpy.maximum"
                                             : "numpy.minimum"),
        mine, theirs);
  else if (type->kind == TypeKind::Complex)
    combined = complexBinary(op == GroupOperation::Add ? BinaryOperator::Add
                                                       : BinaryOperator::Mul,
                             mine, theirs);
  else if (op == GroupOperation::Add)
    combined = isFloat ? builder_.CreateFAdd(mine, theirs)
                       : builder_.CreateAdd(mine, theirs);
  else if (op == GroupOperation::Mul)
    combined = isFloat ? builder_.CreateFMul(mine, theirs)
                       : builder_.CreateMul(mine, theirs);
  else {
    bool min = op == GroupOperation::Min;
    llvm::Value *better = isFloat ? (min ? builder_.CreateFCmpOLT(theirs, mine)
                                         : builder_.CreateFCmpOGT(theirs, mine))
                          : isSigned
                              ? (min ? builder_.CreateICmpSLT(theirs, mine)
                                     : builder_.CreateICmpSGT(theirs, mine))
                              : (min ? builder_.CreateICmpULT(theirs, mine)
                                     : builder_.CreateICmpUGT(theirs, mine));
    combined = builder_.CreateSelect(better, theirs, mine);
  }
  return combined;
}

llvm::Value *Lowering::groupIdentity(GroupOperation op, const Type *type) {
  llvm::Type *element = memoryType(type);
  switch (op) {
  case GroupOperation::Add:
  case GroupOperation::Or:
  case GroupOperation::Xor:
    return llvm::Constant::getNullValue(element);
  case GroupOperation::And:
    return type->kind == TypeKind::Bool ? builder_.getInt8(1)
                                        : llvm::Constant::getAllOnesValue(
                                              element);
  case GroupOperation::Mul:
    if (type->kind == TypeKind::Complex)
      return convert(llvm::ConstantFP::get(builder_.getDoubleTy(), 1.0),
                     types::floating(64), type);
    return type->kind == TypeKind::Float ? llvm::ConstantFP::get(element, 1.0)
                                         : llvm::ConstantInt::get(element, 1);
  case GroupOperation::Min:
  case GroupOperation::Max: {
    bool min = op == GroupOperation::Min;
    if (type->kind == TypeKind::Float)
      return llvm::ConstantFP::getInfinity(element, !min);
    unsigned bits = element->getIntegerBitWidth();
    bool isSigned = type->kind == TypeKind::Int && type->isSigned;
    llvm::APInt v = isSigned ? (min ? llvm::APInt::getSignedMaxValue(bits)
                                    : llvm::APInt::getSignedMinValue(bits))
                             : (min ? llvm::APInt::getMaxValue(bits)
                                    : llvm::APInt::getMinValue(bits));
    if (type->kind == TypeKind::Bool)
      v = llvm::APInt(bits, min ? 1 : 0);
    return llvm::ConstantInt::get(element, v);
  }
  default:
    SPIRJIT_INTERNAL_CHECK(false, "a broadcast has no identity");
  }
  return nullptr;
}

Lowering::GroupSegment Lowering::groupSegment(int rank, bool subGroup) {
  GroupSegment s;
  s.me = linearQuery(WorkItemQuery::LocalId, WorkItemQuery::LocalSize, rank);
  llvm::Value *size = rangeProduct(WorkItemQuery::LocalSize, rank);
  if (!subGroup) {
    s.lane = s.me;
    s.base = builder_.getInt64(0);
    s.count = size;
    s.bound = size;
    return s;
  }
  llvm::Value *width = builder_.getInt64(device().subGroupSize());
  s.lane = builder_.CreateURem(s.me, width);
  s.base = builder_.CreateSub(s.me, s.lane);
  llvm::Value *left = builder_.CreateSub(size, s.base);
  s.count = builder_.CreateSelect(builder_.CreateICmpULT(left, width), left,
                                  width);
  s.bound = width;
  return s;
}

llvm::Value *Lowering::groupScan(int rank, bool subGroup, llvm::Value *value,
                                 const Type *type, GroupOperation op,
                                 GroupScan kind) {
  // Hillis and Steele's scan over the scratch, one slot per work-item:
  // step k, each item whose lane is at least 2^k adds the value 2^k lanes
  // before its own. Every item of the group runs every step (a uniform
  // bound), so every barrier is reached by all.
  llvm::Type *element = memoryType(type);
  if (shufflesValues(type)) { // by warps (LowerWarpCollectives.cpp)
    llvm::Value *result = warpScan(rank, subGroup, value, type, op, kind);
    return type->kind == TypeKind::Bool
               ? builder_.CreateICmpNE(result,
                                       llvm::ConstantInt::get(element, 0))
               : result;
  }
  llvm::Value *slots = groupSlots(element);
  GroupSegment seg = groupSegment(rank, subGroup);
  auto slot = [&](llvm::Value *i) {
    return builder_.CreateInBoundsGEP(element, slots, i);
  };
  llvm::Value *stored = toSlot(value, type);
  builder_.CreateStore(stored, slot(seg.me));
  device().emitBarrier(builder_);
  llvm::BasicBlock *before = builder_.GetInsertBlock();
  llvm::BasicBlock *loop =
      llvm::BasicBlock::Create(context_, "scan.loop", function_);
  llvm::BasicBlock *add =
      llvm::BasicBlock::Create(context_, "scan.add", function_);
  llvm::BasicBlock *join =
      llvm::BasicBlock::Create(context_, "scan.join", function_);
  llvm::BasicBlock *done =
      llvm::BasicBlock::Create(context_, "scan.done", function_);
  builder_.CreateCondBr(
      builder_.CreateICmpULT(builder_.getInt64(1), seg.bound), loop, done);
  builder_.SetInsertPoint(loop);
  llvm::PHINode *offset = builder_.CreatePHI(builder_.getInt64Ty(), 2);
  llvm::PHINode *acc = builder_.CreatePHI(element, 2);
  offset->addIncoming(builder_.getInt64(1), before);
  acc->addIncoming(stored, before);
  builder_.CreateCondBr(builder_.CreateICmpUGE(seg.lane, offset), add, join);
  builder_.SetInsertPoint(add);
  llvm::Value *theirs = builder_.CreateLoad(
      element, slot(builder_.CreateSub(seg.me, offset)));
  llvm::Value *sum = combineGroup(op, type, theirs, acc);
  builder_.CreateBr(join);
  builder_.SetInsertPoint(join);
  llvm::PHINode *next = builder_.CreatePHI(element, 2);
  next->addIncoming(acc, loop);
  next->addIncoming(sum, add);
  device().emitBarrier(builder_); // every read of this step is done
  builder_.CreateStore(next, slot(seg.me));
  device().emitBarrier(builder_);
  llvm::Value *doubled = builder_.CreateShl(offset, 1);
  offset->addIncoming(doubled, builder_.GetInsertBlock());
  acc->addIncoming(next, builder_.GetInsertBlock());
  builder_.CreateCondBr(builder_.CreateICmpULT(doubled, seg.bound), loop,
                        done);
  builder_.SetInsertPoint(done);
  llvm::Value *result;
  if (kind == GroupScan::Inclusive) {
    result = builder_.CreateLoad(element, slot(seg.me));
  } else if (kind == GroupScan::Total) {
    llvm::Value *last = builder_.CreateSub(
        builder_.CreateAdd(seg.base, seg.count), builder_.getInt64(1));
    result = builder_.CreateLoad(element, slot(last));
  } else {
    llvm::BasicBlock *from = builder_.GetInsertBlock();
    llvm::BasicBlock *read =
        llvm::BasicBlock::Create(context_, "scan.previous", function_);
    llvm::BasicBlock *joined =
        llvm::BasicBlock::Create(context_, "scan.exclusive", function_);
    builder_.CreateCondBr(builder_.CreateICmpEQ(seg.lane, builder_.getInt64(0)),
                          joined, read);
    builder_.SetInsertPoint(read);
    llvm::Value *previous = builder_.CreateLoad(
        element, slot(builder_.CreateSub(seg.me, builder_.getInt64(1))));
    builder_.CreateBr(joined);
    builder_.SetInsertPoint(joined);
    llvm::PHINode *phi = builder_.CreatePHI(element, 2);
    phi->addIncoming(groupIdentity(op, type), from);
    phi->addIncoming(previous, read);
    result = phi;
  }
  device().emitBarrier(builder_); // the scratch may be reused right after
  return type->kind == TypeKind::Bool
             ? builder_.CreateICmpNE(result, llvm::ConstantInt::get(element, 0))
             : result;
}

llvm::Value *Lowering::groupShuffle(int rank, llvm::Value *value,
                                    const Type *type, llvm::Value *lane) {
  if (shufflesValues(type)) // one exchange (LowerWarpCollectives.cpp)
    return warpShuffle(rank, value, type, lane);
  llvm::Type *element = memoryType(type);
  llvm::Value *slots = groupSlots(element);
  GroupSegment seg = groupSegment(rank, true);
  llvm::Value *stored = toSlot(value, type);
  builder_.CreateStore(stored, builder_.CreateInBoundsGEP(element, slots,
                                                          seg.me));
  device().emitBarrier(builder_);
  // A lane outside the sub-group (CUDA's __shfl_* answer): the item's own.
  llvm::Value *inside = builder_.CreateAnd(
      builder_.CreateICmpSGE(lane, builder_.getInt64(0)),
      builder_.CreateICmpSLT(lane, seg.count));
  llvm::BasicBlock *from = builder_.GetInsertBlock();
  llvm::BasicBlock *read =
      llvm::BasicBlock::Create(context_, "shuffle.read", function_);
  llvm::BasicBlock *join =
      llvm::BasicBlock::Create(context_, "shuffle.join", function_);
  builder_.CreateCondBr(inside, read, join);
  builder_.SetInsertPoint(read);
  llvm::Value *theirs = builder_.CreateLoad(
      element, builder_.CreateInBoundsGEP(element, slots,
                                          builder_.CreateAdd(seg.base, lane)));
  builder_.CreateBr(join);
  builder_.SetInsertPoint(join);
  llvm::PHINode *result = builder_.CreatePHI(element, 2);
  result->addIncoming(stored, from);
  result->addIncoming(theirs, read);
  device().emitBarrier(builder_);
  return type->kind == TypeKind::Bool
             ? builder_.CreateICmpNE(result, llvm::ConstantInt::get(element, 0))
             : static_cast<llvm::Value *>(result);
}

llvm::Value *Lowering::atomicCompareExchangeLoop(
    llvm::Value *pointer, const Type *element,
    const std::function<llvm::Value *(llvm::Value *)> &update) {
  // For float atomics without native support: compare-and-swap the bits.
  llvm::Type *floatType = scalarType(element);
  llvm::Type *bitsType = builder_.getIntNTy(element->bits);
  unsigned space = pointer->getType()->getPointerAddressSpace();
  llvm::Value *bitsPointer =
      builder_.CreateBitCast(pointer, llvm::PointerType::get(bitsType, space));
  llvm::BasicBlock *before = builder_.GetInsertBlock();
  llvm::Value *initial = builder_.CreateLoad(bitsType, bitsPointer);
  llvm::BasicBlock *loop =
      llvm::BasicBlock::Create(context_, "cas.loop", function_);
  llvm::BasicBlock *done =
      llvm::BasicBlock::Create(context_, "cas.done", function_);
  builder_.CreateBr(loop);
  builder_.SetInsertPoint(loop);
  llvm::PHINode *expected = builder_.CreatePHI(bitsType, 2);
  expected->addIncoming(initial, before);
  llvm::Value *old = builder_.CreateBitCast(expected, floatType);
  llvm::Value *desired = builder_.CreateBitCast(update(old), bitsType);
  llvm::Value *pair = builder_.CreateAtomicCmpXchg(
      bitsPointer, expected, desired, llvm::MaybeAlign(),
      llvm::AtomicOrdering::SequentiallyConsistent,
      llvm::AtomicOrdering::SequentiallyConsistent);
  llvm::Value *seen = builder_.CreateExtractValue(pair, 0);
  expected->addIncoming(seen, builder_.GetInsertBlock());
  builder_.CreateCondBr(builder_.CreateExtractValue(pair, 1), done, loop);
  builder_.SetInsertPoint(done);
  return old;
}

Lowered Lowering::lowerPrivateArray(const Instruction &inst) {
  std::vector<int64_t> shape;
  const Instruction *shapeInst = callArgument(inst, 0);
  if (shapeInst->type->kind == TypeKind::Tuple)
    for (const Instruction *e : shapeInst->operands)
      shape.push_back(constantArgument(e, 1));
  else
    shape.push_back(constantArgument(shapeInst, 1));
  llvm::Value *fill = nullptr;
  if (constantArgument(callArgument(inst, 2), 0)) // fill_zeros
    fill = llvm::Constant::getNullValue(memoryType(inst.type->element));
  return privateArray(inst.type->element, shape, fill);
}

Lowered Lowering::lowerPrivateConstructor(const Instruction &inst) {
  const auto &args = typed_.callArguments.at(&inst);
  std::vector<int64_t> shape;
  if (args[0]->type->kind == TypeKind::Tuple)
    for (const Instruction *e : args[0]->operands)
      shape.push_back(constantArgument(e, 1));
  else
    shape.push_back(constantArgument(args[0], 1));
  const Type *element = inst.type->element;
  const std::string &name = inst.operands[0]->type->name;
  llvm::Value *fill = nullptr;
  if (name == "numpy.zeros")
    fill = llvm::Constant::getNullValue(memoryType(element));
  else if (name == "numpy.ones")
    fill = constant(ConstValue::ofInt(1), element);
  else if (name == "numpy.full")
    fill = scalarOf(args[1], element);
  if (fill && element->kind == TypeKind::Bool)
    fill = builder_.CreateZExt(fill, memoryType(element));
  return privateArray(element, shape, fill);
}

Lowered Lowering::privateArray(const Type *elementType,
                               const std::vector<int64_t> &shape,
                               llvm::Value *fill) {
  // A fixed-size array in the entry block: private to each work-item.
  int64_t count = 1;
  for (int64_t extent : shape)
    count *= extent;
  llvm::Type *element = memoryType(elementType);
  llvm::BasicBlock &entry = function_->getEntryBlock();
  allocaBuilder_.SetInsertPoint(&entry, entry.getFirstInsertionPt());
  llvm::Type *storageType =
      llvm::ArrayType::get(element, static_cast<uint64_t>(count));
  llvm::Value *storage = allocaBuilder_.CreateAlloca(storageType);
  Lowered array;
  array.data = builder_.CreateConstInBoundsGEP2_64(storageType, storage, 0, 0);
  llvm::Value *stride = builder_.getInt64(1);
  array.strides.assign(shape.size(), nullptr);
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    array.strides[d] = stride;
    stride = builder_.CreateMul(stride, builder_.getInt64(shape[d]));
  }
  for (int64_t extent : shape)
    array.shape.push_back(builder_.getInt64(extent));
  if (fill) {
    // Where the array is made (each iteration of a loop around it gets a
    // new one): a loop, which LLVM turns into whatever suits.
    llvm::BasicBlock *before = builder_.GetInsertBlock();
    llvm::BasicBlock *loop =
        llvm::BasicBlock::Create(context_, "fill.loop", function_);
    llvm::BasicBlock *done =
        llvm::BasicBlock::Create(context_, "fill.done", function_);
    builder_.CreateBr(loop);
    builder_.SetInsertPoint(loop);
    llvm::PHINode *i = builder_.CreatePHI(builder_.getInt64Ty(), 2);
    i->addIncoming(builder_.getInt64(0), before);
    builder_.CreateStore(fill,
                         builder_.CreateInBoundsGEP(element, array.data, i));
    llvm::Value *next = builder_.CreateAdd(i, builder_.getInt64(1));
    i->addIncoming(next, loop);
    builder_.CreateCondBr(
        builder_.CreateICmpULT(next, builder_.getInt64(count)), loop, done);
    builder_.SetInsertPoint(done);
  }
  return array;
}

namespace {

/// The combining operation group_reduce's op names: an operator or a
/// builtin, or a string literal (BuildPyIR gives those the names "op:+").
GroupOperation reduction(const std::string &op) {
  if (op == "operator.and_" || op == "op:&")
    return GroupOperation::And;
  if (op == "operator.or_" || op == "op:|")
    return GroupOperation::Or;
  if (op == "operator.xor" || op == "op:^")
    return GroupOperation::Xor;
  if (op == "operator.add" || op == "op:+")
    return GroupOperation::Add;
  if (op == "operator.mul" || op == "op:*")
    return GroupOperation::Mul;
  if (op == "min" || op == "op:min")
    return GroupOperation::Min;
  SPIRJIT_INTERNAL_CHECK(op == "max" || op == "op:max",
                         "group_reduce's op " + op + " passed type inference");
  return GroupOperation::Max;
}

} // namespace

Lowered Lowering::lowerKernelApiCall(const Instruction &inst,
                                     const KernelApiFunction &api) {
  switch (api.receiver) {
  case KernelApiReceiver::Item:
  case KernelApiReceiver::NdItem:
  case KernelApiReceiver::Group:
    return lowerWorkItemMethod(inst, inst.operands[0]->type->elements[0],
                               api.id);
  case KernelApiReceiver::SubGroup: {
    GroupSegment seg =
        groupSegment(inst.operands[0]->type->elements[0]->ndim, true);
    llvm::Value *width = builder_.getInt64(device().subGroupSize());
    switch (api.id) {
    case KernelApi::SubGroupGetLocalId:
      return {seg.lane};
    case KernelApi::SubGroupGetLocalRange:
      return {seg.count};
    case KernelApi::SubGroupGetMaxLocalRange:
      return {width};
    case KernelApi::SubGroupGetGroupId:
      return {builder_.CreateUDiv(seg.me, width)};
    case KernelApi::SubGroupGetGroupRange: {
      llvm::Value *size = rangeProduct(
          WorkItemQuery::LocalSize,
          inst.operands[0]->type->elements[0]->ndim);
      return {builder_.CreateUDiv(
          builder_.CreateAdd(size, builder_.getInt64(
                                       device().subGroupSize() - 1)),
          width)};
    }
    default:
      SPIRJIT_INTERNAL_CHECK(false, "not a sub-group method");
    }
    return {};
  }
  case KernelApiReceiver::AtomicRef:
    return lowerAtomicMethod(inst, inst.operands[0]->type->elements[0], api.id);
  case KernelApiReceiver::Module:
    break;
  }
  if (isGroupAlgorithm(api.id))
    return lowerGroupAlgorithm(inst, api);
  switch (api.id) {
  case KernelApi::GroupBarrier:
    device().emitBarrier(builder_);
    return {};
  case KernelApi::AtomicFence:
    device().emitMemoryFence(builder_);
    return {};
  case KernelApi::GroupReduce:
  case KernelApi::GroupBroadcast: {
    int rank = callArgument(inst, 0)->type->ndim; // the group's
    const Instruction *valueInst = callArgument(inst, 1);
    const Type *type = types::materialize(valueInst->type);
    llvm::Value *value = scalarOf(valueInst, type);
    if (api.id == KernelApi::GroupBroadcast) {
      const Instruction *source = callArgument(inst, 2);
      llvm::Value *from =
          source ? scalarOf(source, types::int64()) : builder_.getInt64(0);
      return {
          groupCollective(rank, value, type, GroupOperation::Broadcast, from)};
    }
    return {groupCollective(rank, value, type,
                            reduction(callArgument(inst, 2)->type->name),
                            nullptr)};
  }
  case KernelApi::PrivateArray:
    return lowerPrivateArray(inst);
  case KernelApi::AtomicRef: {
    // AtomicRef: a pointer to the referenced element.
    const Instruction *ref = callArgument(inst, 0);
    const Instruction *position = callArgument(inst, 1);
    if (!position) {
      Lowered atomic;
      atomic.data = values_.at(ref).data;
      return atomic;
    }
    return index(values_.at(ref), ref->type, position, ref);
  }
  default:
    SPIRJIT_INTERNAL_CHECK(false, "kapi." + api.name + " is no function");
  }
  return {};
}

Lowered Lowering::lowerAtomicMethod(const Instruction &inst, const Type *atomic,
                                    KernelApi method) {
  const Instruction *receiver = inst.operands[0]->operands[0];
  llvm::Value *pointer = values_.at(receiver).data;
  const Type *element = atomic->element;
  bool isFloat = element->kind == TypeKind::Float;
  llvm::Type *bitsType = builder_.getIntNTy(element->bits);
  unsigned space = pointer->getType()->getPointerAddressSpace();
  llvm::Value *bitsPointer =
      isFloat ? builder_.CreateBitCast(pointer,
                                       llvm::PointerType::get(bitsType, space))
              : pointer;
  auto ordering = llvm::AtomicOrdering::SequentiallyConsistent;
  auto argument = [&](size_t i) {
    return scalarOf(callArgument(inst, i), element);
  };
  auto rmw = [&](llvm::AtomicRMWInst::BinOp op, llvm::Value *v) {
    return builder_.CreateAtomicRMW(op, pointer, v, llvm::MaybeAlign(),
                                    ordering);
  };
  if (method == KernelApi::AtomicLoad && device().hasAtomicLoadStore()) {
    llvm::LoadInst *bits = builder_.CreateLoad(bitsType, bitsPointer);
    bits->setAtomic(llvm::AtomicOrdering::Monotonic);
    bits->setAlignment(llvm::Align(element->bits / 8));
    return {isFloat ? builder_.CreateBitCast(bits, scalarType(element)) : bits};
  }
  if (method == KernelApi::AtomicStore && device().hasAtomicLoadStore()) {
    llvm::Value *v = argument(0);
    llvm::StoreInst *store = builder_.CreateStore(
        isFloat ? builder_.CreateBitCast(v, bitsType) : v, bitsPointer);
    store->setAtomic(llvm::AtomicOrdering::Monotonic);
    store->setAlignment(llvm::Align(element->bits / 8));
    return {};
  }
  if (method == KernelApi::AtomicLoad) {
    llvm::Value *bits = builder_.CreateAtomicRMW(
        llvm::AtomicRMWInst::Or, bitsPointer,
        llvm::ConstantInt::get(bitsType, 0), llvm::MaybeAlign(), ordering);
    return {isFloat ? builder_.CreateBitCast(bits, scalarType(element)) : bits};
  }
  if (method == KernelApi::AtomicStore || method == KernelApi::AtomicExchange) {
    llvm::Value *v = argument(0);
    llvm::Value *bits = isFloat ? builder_.CreateBitCast(v, bitsType) : v;
    llvm::Value *old =
        builder_.CreateAtomicRMW(llvm::AtomicRMWInst::Xchg, bitsPointer, bits,
                                 llvm::MaybeAlign(), ordering);
    if (method == KernelApi::AtomicStore)
      return {};
    return {isFloat ? builder_.CreateBitCast(old, scalarType(element)) : old};
  }
  if (method == KernelApi::AtomicCompareExchange) {
    const Instruction *expectedRef = callArgument(inst, 0);
    const Instruction *expectedIndex = callArgument(inst, 2);
    llvm::Value *expectedPointer =
        expectedIndex
            ? index(values_.at(expectedRef), expectedRef->type, expectedIndex,
                    expectedRef)
                  .data
            : values_.at(expectedRef).data;
    llvm::Value *expected =
        builder_.CreateLoad(memoryType(element), expectedPointer);
    llvm::Value *desired = argument(1);
    if (isFloat) {
      expected = builder_.CreateBitCast(expected, bitsType);
      desired = builder_.CreateBitCast(desired, bitsType);
    }
    llvm::Value *pair = builder_.CreateAtomicCmpXchg(
        bitsPointer, expected, desired, llvm::MaybeAlign(), ordering, ordering);
    llvm::Value *seen = builder_.CreateExtractValue(pair, 0);
    llvm::Value *success = builder_.CreateExtractValue(pair, 1);
    // On failure the current value goes back into expected_ref.
    llvm::Value *update =
        isFloat ? builder_.CreateBitCast(seen, scalarType(element)) : seen;
    llvm::Value *previous =
        builder_.CreateLoad(memoryType(element), expectedPointer);
    builder_.CreateStore(builder_.CreateSelect(success, previous, update),
                         expectedPointer);
    return {success};
  }
  llvm::Value *v = argument(0);
  if (isFloat && device().hasFloatAtomicAdd() &&
      (method == KernelApi::AtomicFetchAdd ||
       method == KernelApi::AtomicFetchSub))
    return {rmw(method == KernelApi::AtomicFetchAdd ? llvm::AtomicRMWInst::FAdd
                                                    : llvm::AtomicRMWInst::FSub,
                v)};
  if (isFloat) {
    std::function<llvm::Value *(llvm::Value *)> update;
    switch (method) {
    case KernelApi::AtomicFetchAdd:
      update = [&](llvm::Value *old) { return builder_.CreateFAdd(old, v); };
      break;
    case KernelApi::AtomicFetchSub:
      update = [&](llvm::Value *old) { return builder_.CreateFSub(old, v); };
      break;
    case KernelApi::AtomicFetchMin:
      update = [&](llvm::Value *old) {
        return builder_.CreateSelect(builder_.CreateFCmpOLT(v, old), v, old);
      };
      break;
    case KernelApi::AtomicFetchMax:
      update = [&](llvm::Value *old) {
        return builder_.CreateSelect(builder_.CreateFCmpOGT(v, old), v, old);
      };
      break;
    default:
      SPIRJIT_INTERNAL_CHECK(false, "a bitwise atomic on floats was typed");
    }
    return {atomicCompareExchangeLoop(pointer, element, update)};
  }
  bool isSigned = element->isSigned;
  switch (method) {
  case KernelApi::AtomicFetchAdd:
    return {rmw(llvm::AtomicRMWInst::Add, v)};
  case KernelApi::AtomicFetchSub:
    return {rmw(llvm::AtomicRMWInst::Sub, v)};
  case KernelApi::AtomicFetchAnd:
    return {rmw(llvm::AtomicRMWInst::And, v)};
  case KernelApi::AtomicFetchOr:
    return {rmw(llvm::AtomicRMWInst::Or, v)};
  case KernelApi::AtomicFetchXor:
    return {rmw(llvm::AtomicRMWInst::Xor, v)};
  case KernelApi::AtomicFetchMin:
    return {rmw(isSigned ? llvm::AtomicRMWInst::Min : llvm::AtomicRMWInst::UMin,
                v)};
  case KernelApi::AtomicFetchMax:
    return {rmw(isSigned ? llvm::AtomicRMWInst::Max : llvm::AtomicRMWInst::UMax,
                v)};
  default:
    SPIRJIT_INTERNAL_CHECK(false, "not an atomic read-modify-write");
  }
  return {};
}


Lowered Lowering::lowerGroupAlgorithm(const Instruction &inst,
                                      const KernelApiFunction &api) {
  const Type *groupType = callArgument(inst, 0)->type;
  int rank = groupType->ndim;
  bool subGroup = types::isSubGroup(groupType);
  if (api.id == KernelApi::SubGroupBarrier) {
    device().emitBarrier(builder_); // sub-groups lie inside the work-group
    return {};
  }
  const Instruction *valueInst = callArgument(inst, 1);
  if (api.id == KernelApi::AnyOf || api.id == KernelApi::AllOf) {
    llvm::Value *truth =
        convert(scalarOf(valueInst, types::materialize(valueInst->type)),
                valueInst->type, types::boolean());
    return {groupScan(rank, subGroup, truth, types::boolean(),
                      api.id == KernelApi::AnyOf ? GroupOperation::Or
                                                 : GroupOperation::And,
                      GroupScan::Total)};
  }
  if (api.id == KernelApi::SubGroupBallot) {
    llvm::Value *truth =
        convert(scalarOf(valueInst, types::materialize(valueInst->type)),
                valueInst->type, types::boolean());
    return {subGroupBallot(rank, truth)};
  }
  const Type *type = types::materialize(valueInst->type);
  llvm::Value *value = scalarOf(valueInst, type);
  auto laneArgument = [&](size_t i) -> llvm::Value * {
    const Instruction *a = callArgument(inst, i);
    return a ? scalarOf(a, types::int64()) : builder_.getInt64(0);
  };
  switch (api.id) {
  case KernelApi::Shuffle:
  case KernelApi::SubGroupBroadcast:
    return {groupShuffle(rank, value, type, laneArgument(2))};
  case KernelApi::ShuffleXor:
  case KernelApi::ShuffleDown:
  case KernelApi::ShuffleUp: {
    GroupSegment seg = groupSegment(rank, true);
    llvm::Value *by = laneArgument(2);
    llvm::Value *lane =
        api.id == KernelApi::ShuffleXor  ? builder_.CreateXor(seg.lane, by)
        : api.id == KernelApi::ShuffleDown ? builder_.CreateAdd(seg.lane, by)
                                           : builder_.CreateSub(seg.lane, by);
    return {groupShuffle(rank, value, type, lane)};
  }
  default:
    break;
  }
  GroupOperation op = reduction(callArgument(inst, 2)->type->name);
  GroupScan kind = api.id == KernelApi::SubGroupReduce ? GroupScan::Total
                   : (api.id == KernelApi::GroupExclusiveScan ||
                      api.id == KernelApi::SubGroupExclusiveScan)
                       ? GroupScan::Exclusive
                       : GroupScan::Inclusive;
  return {groupScan(rank, subGroup, value, type, op, kind)};
}

} // namespace spirjit::lower
