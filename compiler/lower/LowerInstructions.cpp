// One pyir instruction at a time, and the blocks and phis around them;
// calls go to LowerCalls.cpp.
#include "compiler/lower/Lowering.h"

#include <llvm/Transforms/Utils/BasicBlockUtils.h>

namespace spirjit::lower {

Lowered Lowering::createPhi(const Type *t) {
  Lowered phi;
  switch (t->kind) {
  case TypeKind::Array:
    phi.data = builder_.CreatePHI(pointerType(t), 2);
    for (int d = 0; d < t->ndim; ++d)
      phi.shape.push_back(builder_.CreatePHI(builder_.getInt64Ty(), 2));
    for (int d = 0; d < t->ndim; ++d)
      phi.strides.push_back(builder_.CreatePHI(builder_.getInt64Ty(), 2));
    return phi;
  case TypeKind::Tuple:
    for (const Type *e : t->elements)
      phi.elements.push_back(createPhi(e));
    return phi;
  case TypeKind::List:
    phi.data = builder_.CreatePHI(builder_.getInt8PtrTy(), 2);
    return phi;
  case TypeKind::Range:
    for (int i = 0; i < 3; ++i)
      phi.elements.push_back({builder_.CreatePHI(builder_.getInt64Ty(), 2)});
    return phi;
  case TypeKind::RangeIterator:
  case TypeKind::Module:
  case TypeKind::Function:
  case TypeKind::Method:
  case TypeKind::DTypeClass:
  case TypeKind::Item:
  case TypeKind::None:
    return phi; // compile-time only, or one cursor that is never merged
  default:
    phi.scalar = builder_.CreatePHI(scalarType(t), 2);
    return phi;
  }
}

void Lowering::addIncoming(Lowered &phi, const Lowered &value,
                           const Type *phiType, const Type *valueType,
                           llvm::BasicBlock *from) {
  if (phi.scalar) {
    llvm::IRBuilder<>::InsertPointGuard guard(builder_);
    builder_.SetInsertPoint(from->getTerminator());
    llvm::Value *v = value.scalar
                         ? convert(value.scalar, valueType, phiType)
                         : llvm::UndefValue::get(phi.scalar->getType());
    llvm::cast<llvm::PHINode>(phi.scalar)->addIncoming(v, from);
    return;
  }
  auto add = [&](llvm::Value *p, llvm::Value *v) {
    auto *node = llvm::cast<llvm::PHINode>(p);
    node->addIncoming(v ? v : llvm::UndefValue::get(node->getType()), from);
  };
  if (phi.data) {
    add(phi.data, value.data);
    for (size_t d = 0; d < phi.shape.size(); ++d) {
      add(phi.shape[d], d < value.shape.size() ? value.shape[d] : nullptr);
      add(phi.strides[d],
          d < value.strides.size() ? value.strides[d] : nullptr);
    }
  }
  for (size_t i = 0; i < phi.elements.size(); ++i) {
    const Type *pt = phiType->kind == TypeKind::Tuple ? phiType->elements[i]
                                                      : types::int64();
    const Type *vt = valueType && valueType->kind == TypeKind::Tuple
                         ? valueType->elements[i]
                         : types::int64();
    Lowered empty;
    addIncoming(phi.elements[i],
                i < value.elements.size() ? value.elements[i] : empty, pt, vt,
                from);
  }
}

Lowered Lowering::index(const Lowered &array, const Type *arrayType,
                        const Instruction *indexInst,
                        const Instruction *arrayInst, llvm::Value **guard) {
  std::vector<llvm::Value *> indices;
  std::vector<const Type *> indexTypes;
  std::vector<bool> nonNegative;
  const Lowered &idx = values_.at(indexInst);
  if (indexInst->type->kind == TypeKind::Tuple) {
    for (size_t i = 0; i < idx.elements.size(); ++i) {
      indices.push_back(idx.elements[i].scalar);
      indexTypes.push_back(indexInst->type->elements[i]);
      nonNegative.push_back(indexInst->isa(Opcode::BuildTuple) &&
                            nonNegative_.count(indexInst->operands[i]));
    }
  } else {
    indices.push_back(idx.scalar);
    indexTypes.push_back(indexInst->type);
    nonNegative.push_back(nonNegative_.count(indexInst) > 0);
  }
  llvm::Value *offset = builder_.getInt64(0);
  bool checked = checksIndices();
  // An element load or store the caller guards needs no safe address.
  bool guarded = checked && guard &&
                 static_cast<int>(indices.size()) == arrayType->ndim;
  std::vector<llvm::Value *> outside, written;
  for (size_t d = 0; d < indices.size(); ++d) {
    llvm::Value *i = convert(indices[d], indexTypes[d], types::int64());
    // NumPy wrap-around: a negative index counts from the end. Indices
    // known not to be negative skip it, which lets CPU vectorisers see
    // consecutive accesses.
    llvm::Value *wrapped =
        nonNegative[d]
            ? i
            : builder_.CreateSelect(
                  builder_.CreateICmpSLT(i, builder_.getInt64(0)),
                  builder_.CreateAdd(i, array.shape[d]), i);
    if (isHost() && options_.hostIndexChecks) {
      // jit(boundscheck=True): NumPy's IndexError at once, in place of a
      // read or write past the array (an out-of-bounds store had
      // corrupted the process's heap).
      hostCheck(builder_.CreateNot(builder_.CreateICmpULT(wrapped,
                                                         array.shape[d])),
                0,
                filename() + ":" + std::to_string(indexInst->line) +
                    ": index {got} is out of bounds for axis " +
                    std::to_string(d) + " with size {expected}",
                i, array.shape[d]);
    }
    if (checked) {
      // One unsigned comparison catches both ends (a non-negative index
      // that overflowed too); a failing index reads as 0 so the address
      // stays inside a non-empty array.
      llvm::Value *inside = inBounds(wrapped, i, array.shape[d]);
      outside.push_back(builder_.CreateNot(inside));
      written.push_back(i);
      if (!guarded)
        wrapped =
            builder_.CreateSelect(inside, wrapped, builder_.getInt64(0));
    }
    offset = builder_.CreateAdd(offset,
                                builder_.CreateMul(wrapped, array.strides[d]));
  }
  llvm::Value *failed = nullptr;
  if (checked && !indices.empty()) {
    // The first failing axis is reported.
    int firstAxis;
    std::string what = describeArray(arrayInst, firstAxis);
    size_t last = indices.size() - 1;
    auto siteOf = [&](size_t d) {
      return builder_.getInt64(addDebugSite(DebugSite::Kind::Index, what,
                                            firstAxis + static_cast<int>(d)));
    };
    llvm::Value *site = siteOf(last), *index = written[last],
                *extent = array.shape[last];
    failed = outside[last];
    for (size_t d = last; d-- > 0;) {
      site = builder_.CreateSelect(outside[d], siteOf(d), site);
      index = builder_.CreateSelect(outside[d], written[d], index);
      extent = builder_.CreateSelect(outside[d], array.shape[d], extent);
      failed = builder_.CreateOr(outside[d], failed);
    }
    pend(failed, site, index, extent);
  }
  llvm::Type *element = memoryType(arrayType->element);
  Lowered result;
  result.data = builder_.CreateInBoundsGEP(element, array.data, offset);
  // An element access that failed goes to a sink, so that even an empty
  // array's is harmless.
  if (guarded)
    *guard = failed;
  else if (failed && static_cast<int>(indices.size()) == arrayType->ndim)
    if (llvm::Value *sink = sinkFor(arrayType))
      result.data = builder_.CreateSelect(failed, sink, result.data);
  result.shape.assign(array.shape.begin() + indices.size(), array.shape.end());
  result.strides.assign(array.strides.begin() + indices.size(),
                        array.strides.end());
  return result;
}

Lowered Lowering::lowerGetAttr(const Instruction &inst) {
  const Type *object = inst.operands[0]->type;
  const Lowered &value = values_.at(inst.operands[0]);
  Lowered result;
  if (object->isNumber() && (inst.name == "real" || inst.name == "imag")) {
    if (object->kind == TypeKind::Complex ||
        object->kind == TypeKind::WeakComplex) {
      llvm::Value *z =
          convert(value.scalar, object, types::materialize(object));
      return {builder_.CreateExtractValue(z, inst.name == "real" ? 0 : 1)};
    }
    if (inst.name == "real")
      return {value.scalar};
    return {convert(builder_.getInt1(false), types::boolean(), inst.type)};
  }
  if (object->kind == TypeKind::Array) {
    if (inst.name == "shape") {
      for (llvm::Value *extent : value.shape)
        result.elements.push_back(Lowered{extent});
    } else if (inst.name == "size" || inst.name == "nbytes") {
      llvm::Value *size = builder_.getInt64(1);
      for (llvm::Value *extent : value.shape)
        size = builder_.CreateMul(size, extent);
      if (inst.name == "nbytes") // itemsize times size, as NumPy's
        size = builder_.CreateMul(
            size, builder_.getInt64(types::itemsize(object->element)));
      result.scalar = size;
    }
  }
  if (object->isNamedTuple()) // a field: the element at its place
    for (size_t i = 0; i < object->fields.size(); ++i)
      if (object->fields[i] == inst.name)
        return value.elements.at(i);
  return result; // modules, functions, methods: compile-time only
}

void Lowering::lowerInstruction(const Instruction &inst) {
  current_ = &inst;
  const ConstValue *c = typed_.constants.find(&inst);
  if (c && inst.type && inst.type->isNumber()) {
    values_[&inst] = {constant(*c, inst.type)};
    return;
  }
  if (isHost() && lowerList(inst))
    return;
  switch (inst.opcode) {
  case Opcode::Arg:
    values_[&inst] = arguments_.at(inst.index);
    return;
  case Opcode::Const:
    if (inst.type->isNumber())
      values_[&inst] = {constant(inst.constant, inst.type)};
    else
      values_[&inst] = {};
    return;
  case Opcode::Global:
  case Opcode::FreeVar:
    values_[&inst] = inst.type && inst.type->kind == TypeKind::Array
                         ? lowerFrozenArray(inst)
                         : Lowered{};
    return;
  case Opcode::Undef:
    values_[&inst] = {};
    return;
  case Opcode::Phi:
    return; // created when the block was entered
  case Opcode::BinaryOp:
    if (inst.type->kind == TypeKind::Tuple) { // t1 + t2
      Lowered joined = values_.at(inst.operands[0]);
      const Lowered &tail = values_.at(inst.operands[1]);
      joined.elements.insert(joined.elements.end(), tail.elements.begin(),
                             tail.elements.end());
      values_[&inst] = joined;
      return;
    }
    values_[&inst] = {lowerBinary(inst)};
    return;
  case Opcode::UnaryOp:
    values_[&inst] = {lowerUnary(inst)};
    return;
  case Opcode::Compare:
    values_[&inst] = {lowerCompare(inst)};
    return;
  case Opcode::Truth:
    values_[&inst] = {
        truth(values_.at(inst.operands[0]).scalar, inst.operands[0]->type)};
    return;
  case Opcode::GetAttr:
    values_[&inst] = lowerGetAttr(inst);
    return;
  case Opcode::Call:
    values_[&inst] = lowerCall(inst);
    return;
  case Opcode::Assert:
    values_[&inst] = lowerAssert(inst);
    return;
  case Opcode::Slice:
    SPIRJIT_INTERNAL_CHECK(false, "a slice outlived the array-expression "
                                  "stage");
    return;
  case Opcode::View:
    values_[&inst] = lowerView(inst);
    return;
  case Opcode::Reshape:
    values_[&inst] = lowerReshape(inst);
    return;
  case Opcode::Fail:
    values_[&inst] = lowerFail(inst);
    return;
  case Opcode::Launch:
    values_[&inst] = lowerLaunch(inst);
    return;
  case Opcode::Random:
    values_[&inst] = lowerRandom(inst);
    return;
  case Opcode::GetItem: {
    const Type *object = inst.operands[0]->type;
    const Lowered &value = values_.at(inst.operands[0]);
    if (object->kind == TypeKind::Tuple &&
        !inst.operands[1]->isa(Opcode::Const)) {
      // An index in range by construction (a loop over the tuple), or a
      // variable index of a tuple of one type, negative ones counting from
      // the end (InferInstructions.cpp): the element it names, chosen by
      // compares.
      llvm::Value *i = scalarOf(inst.operands[1], types::int64());
      if (inst.index != 1)
        i = builder_.CreateSelect(
            builder_.CreateICmpSLT(i, builder_.getInt64(0)),
            builder_.CreateAdd(
                i, builder_.getInt64(static_cast<int64_t>(
                       value.elements.size()))),
            i);
      auto pick = [&](size_t k) -> Lowered {
        const Lowered &e = value.elements[k];
        if (inst.type->kind == TypeKind::Array)
          return e;
        return {convert(e.scalar, object->elements[k], inst.type)};
      };
      Lowered chosen = pick(0);
      for (size_t k = 1; k < value.elements.size(); ++k) {
        llvm::Value *is = builder_.CreateICmpEQ(i, builder_.getInt64(k));
        Lowered e = pick(k);
        auto select = [&](llvm::Value *a, llvm::Value *b) {
          return a ? builder_.CreateSelect(is, a, b) : nullptr;
        };
        chosen.scalar = select(e.scalar, chosen.scalar);
        chosen.data = select(e.data, chosen.data);
        for (size_t d = 0; d < e.shape.size(); ++d) {
          chosen.shape[d] = select(e.shape[d], chosen.shape[d]);
          chosen.strides[d] = select(e.strides[d], chosen.strides[d]);
        }
      }
      values_[&inst] = chosen;
      return;
    }
    if (object->kind == TypeKind::Tuple) {
      int64_t i = inst.operands[1]->constant.intValue;
      int64_t n = static_cast<int64_t>(value.elements.size());
      values_[&inst] = value.elements.at(i < 0 ? i + n : i);
      return;
    }
    llvm::Value *guard = nullptr;
    Lowered element =
        index(value, object, inst.operands[1], inst.operands[0], &guard);
    if (inst.type->kind == TypeKind::Array) {
      values_[&inst] = element;
      return;
    }
    llvm::Value *loaded = guardedAccess(guard, [&] {
      return builder_.CreateLoad(memoryType(inst.type), element.data);
    });
    if (inst.type->kind == TypeKind::Bool)
      loaded = builder_.CreateICmpNE(loaded, builder_.getInt8(0));
    values_[&inst] = {loaded};
    return;
  }
  case Opcode::SetItem: {
    const Type *object = inst.operands[0]->type;
    llvm::Value *guard = nullptr;
    Lowered element = index(values_.at(inst.operands[0]), object,
                            inst.operands[1], inst.operands[0], &guard);
    llvm::Value *v = scalarOf(inst.operands[2], object->element);
    if (object->element->kind == TypeKind::Bool)
      v = builder_.CreateZExt(v, builder_.getInt8Ty());
    guardedAccess(guard, [&] { return builder_.CreateStore(v, element.data); });
    return;
  }
  case Opcode::BuildTuple: {
    Lowered tuple;
    for (Instruction *operand : inst.operands)
      tuple.elements.push_back(values_.at(operand));
    values_[&inst] = tuple;
    return;
  }
  case Opcode::TupleGet:
    values_[&inst] = values_.at(inst.operands[0]).elements.at(inst.index);
    return;
  case Opcode::GetIter: {
    const Lowered &range = values_.at(inst.operands[0]);
    Lowered iter;
    // SPIR-V wants every variable first in the entry block.
    llvm::BasicBlock &entry = function_->getEntryBlock();
    allocaBuilder_.SetInsertPoint(&entry, entry.getFirstInsertionPt());
    iter.scalar = allocaBuilder_.CreateAlloca(builder_.getInt64Ty());
    builder_.CreateStore(range.elements[0].scalar, iter.scalar);
    iter.elements = {range.elements[1], range.elements[2]};
    values_[&inst] = iter;
    return;
  }
  case Opcode::IterValid: {
    const Lowered &iter = values_.at(inst.operands[0]);
    llvm::Value *cursor =
        builder_.CreateLoad(builder_.getInt64Ty(), iter.scalar);
    llvm::Value *stop = iter.elements[0].scalar;
    llvm::Value *step = iter.elements[1].scalar;
    llvm::Value *up = builder_.CreateICmpSGT(step, builder_.getInt64(0));
    values_[&inst] = {
        builder_.CreateSelect(up, builder_.CreateICmpSLT(cursor, stop),
                              builder_.CreateICmpSGT(cursor, stop))};
    return;
  }
  case Opcode::IterNext: {
    const Lowered &iter = values_.at(inst.operands[0]);
    llvm::Value *cursor =
        builder_.CreateLoad(builder_.getInt64Ty(), iter.scalar);
    // Python's range ends where its counter would pass INT64_MAX (INT64_MIN
    // going down); a wrapped counter would start the loop over. The cursor
    // then becomes `stop`, which IterValid reads as the end.
    llvm::Value *stop = iter.elements[0].scalar;
    llvm::Value *step = iter.elements[1].scalar;
    // A step of +-1 cannot pass INT64_MAX (INT64_MIN): IterValid found the
    // cursor before `stop`. The plain add lets LLVM count the trips (and
    // unroll, vectorize, narrow) as in C.
    if (auto *unit = llvm::dyn_cast<llvm::ConstantInt>(step);
        unit && (unit->isOne() || unit->isMinusOne())) {
      builder_.CreateStore(
          builder_.CreateAdd(cursor, step, "", /*HasNUW=*/false,
                             /*HasNSW=*/true),
          iter.scalar);
      values_[&inst] = {cursor};
      return;
    }
    llvm::Value *overflows = builder_.CreateSelect(
        builder_.CreateICmpSGT(step, builder_.getInt64(0)),
        builder_.CreateICmpSGT(
            cursor, builder_.CreateSub(builder_.getInt64(INT64_MAX), step)),
        builder_.CreateICmpSLT(
            cursor, builder_.CreateSub(builder_.getInt64(INT64_MIN), step)));
    builder_.CreateStore(
        builder_.CreateSelect(overflows, stop,
                              builder_.CreateAdd(cursor, step)),
        iter.scalar);
    values_[&inst] = {cursor};
    return;
  }
  case Opcode::Branch:
    builder_.CreateBr(startBlocks_.at(inst.targets[0]));
    return;
  case Opcode::CondBranch:
    // Without debug an assert never fails: its branch is not taken.
    for (int k = 0;
         k < 2 && !options_.debug && !(isHost() && options_.hostAsserts); ++k)
      if (isFailedAssert(inst.targets[k])) {
        builder_.CreateBr(startBlocks_.at(inst.targets[1 - k]));
        skippedAsserts_ = true;
        return;
      }
    builder_.CreateCondBr(values_.at(inst.operands[0]).scalar,
                          startBlocks_.at(inst.targets[0]),
                          startBlocks_.at(inst.targets[1]));
    return;
  case Opcode::Return: {
    if (checksIndices())
      flushPending();
    if (isHost()) {
      lowerHostReturn(inst);
      return;
    }
    const Type *returned = typed_.returnType;
    if (typed_.kind == FunctionKind::Kernel || returned->kind == TypeKind::None)
      builder_.CreateRetVoid();
    else if (inst.name == "assert") // the caller goes on; the launch fails
      builder_.CreateRet(
          llvm::Constant::getNullValue(function_->getReturnType()));
    else if (returned->kind == TypeKind::Tuple) {
      // A tuple of numbers: one struct, each element as the caller reads it.
      const Lowered &value = values_.at(inst.operands[0]);
      const Type *from = inst.operands[0]->type;
      llvm::Value *result = llvm::UndefValue::get(function_->getReturnType());
      for (unsigned k = 0; k < returned->elements.size(); ++k)
        result = builder_.CreateInsertValue(
            result,
            convert(value.elements[k].scalar, from->elements[k],
                    returned->elements[k]),
            k);
      builder_.CreateRet(result);
    } else
      builder_.CreateRet(scalarOf(inst.operands[0], returned));
    return;
  }
  }
}

void Lowering::lowerBody() {
  const ir::Function &pyir = *typed_.function;
  if (options_.fastmath) {
    llvm::FastMathFlags flags;
    flags.setFast();
    builder_.setFastMathFlags(flags);
  }

  for (const auto &block : pyir.blocks) {
    auto *bb = llvm::BasicBlock::Create(
        context_, "bb" + std::to_string(block->id), function_);
    startBlocks_[block.get()] = bb;
  }
  llvm::BasicBlock *entry = startBlocks_.at(pyir.blocks[0].get());
  builder_.SetInsertPoint(entry);
  lowerEntry(function_);
  // Every return of a checked function reports what is pending, wherever
  // the checks sit in the block order.
  if (checksIndices())
    pendingSlot(0);
  for (const auto &block : pyir.blocks) {
    llvm::BasicBlock *bb = startBlocks_.at(block.get());
    if (bb != entry)
      builder_.SetInsertPoint(bb);
    for (const auto &inst : block->instructions)
      if (inst->opcode == Opcode::Phi && inst->type)
        values_[inst.get()] = createPhi(inst->type);
    for (const auto &inst : block->instructions)
      lowerInstruction(*inst);
    endBlocks_[block.get()] = builder_.GetInsertBlock();
  }
  for (const auto &block : pyir.blocks)
    for (const auto &inst : block->instructions) {
      if (inst->opcode != Opcode::Phi || !inst->type)
        continue;
      Lowered &phi = values_.at(inst.get());
      for (size_t i = 0; i < inst->operands.size(); ++i) {
        const Instruction *incoming = inst->operands[i];
        Lowered empty;
        auto it = values_.find(incoming);
        addIncoming(phi, it == values_.end() ? empty : it->second, inst->type,
                    incoming->type, endBlocks_.at(block->predecessors[i]));
      }
    }
  if (skippedAsserts_)
    llvm::EliminateUnreachableBlocks(*function_);
}

} // namespace spirjit::lower
