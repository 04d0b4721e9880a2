// Lists in jit host code (compiler/infer/InferLists.cpp types them): a
// list is a pointer to its spirjit_host_list (HostABI.h), which the call
// owns and frees when it ends (a list argument's, the binding); the
// helpers make one, grow it and sort it, the elements are read and written
// here, and sum, min, max and `in` are loops here. Python's wrap-around
// applies to a negative index; an index out of range is not checked.
#include "compiler/HostABI.h"
#include "compiler/lower/Lowering.h"

#include <algorithm>
#include <cstddef>

namespace spirjit::lower {

namespace {
bool isList(const Instruction *v) {
  return v->type && v->type->kind == TypeKind::List;
}

/// An item type as spirjit_host_list_sorted takes it: its size, plus 256
/// for a float, plus 512 for an unsigned integer or a bool.
int32_t itemCode(const Type *element, int64_t itemsize) {
  auto code = static_cast<int32_t>(itemsize);
  if (element->kind == TypeKind::Float)
    code += 256;
  if (element->kind == TypeKind::Bool ||
      (element->kind == TypeKind::Int && !element->isSigned))
    code += 512;
  return code;
}
} // namespace

llvm::Value *Lowering::listLength(llvm::Value *list) {
  llvm::Value *at = builder_.CreateConstInBoundsGEP1_64(
      builder_.getInt8Ty(), list, offsetof(spirjit_host_list, length));
  return builder_.CreateLoad(
      builder_.getInt64Ty(),
      builder_.CreatePointerCast(at, builder_.getInt64Ty()->getPointerTo()));
}

llvm::Value *Lowering::listItems(llvm::Value *list, const Type *element) {
  llvm::Value *data = builder_.CreateLoad(
      builder_.getInt8PtrTy(),
      builder_.CreatePointerCast(list,
                                 builder_.getInt8PtrTy()->getPointerTo()));
  return builder_.CreatePointerCast(data,
                                    memoryType(element)->getPointerTo());
}

void Lowering::storeListItem(llvm::Value *at, const Instruction *value,
                             const Type *element) {
  llvm::Value *v = scalarOf(value, element);
  if (element->kind == TypeKind::Bool)
    v = builder_.CreateZExt(v, builder_.getInt8Ty());
  builder_.CreateStore(v, at);
}

llvm::Value *Lowering::loadListItem(llvm::Value *list, const Type *element,
                                    llvm::Value *index) {
  llvm::Value *v = builder_.CreateLoad(
      memoryType(element),
      builder_.CreateInBoundsGEP(memoryType(element),
                                 listItems(list, element), index));
  if (element->kind == TypeKind::Bool)
    v = builder_.CreateICmpNE(v, builder_.getInt8(0));
  return v;
}

llvm::Value *Lowering::foldList(
    llvm::Value *list, const Type *element, llvm::Value *first,
    llvm::Value *initial,
    const std::function<llvm::Value *(llvm::Value *, llvm::Value *)> &step) {
  llvm::Value *length = listLength(list);
  llvm::BasicBlock *before = builder_.GetInsertBlock();
  auto *header = llvm::BasicBlock::Create(context_, "list.loop", function_);
  auto *body = llvm::BasicBlock::Create(context_, "list.item", function_);
  auto *after = llvm::BasicBlock::Create(context_, "list.done", function_);
  builder_.CreateBr(header);
  builder_.SetInsertPoint(header);
  llvm::PHINode *index = builder_.CreatePHI(builder_.getInt64Ty(), 2);
  llvm::PHINode *state = builder_.CreatePHI(initial->getType(), 2);
  index->addIncoming(first, before);
  state->addIncoming(initial, before);
  builder_.CreateCondBr(builder_.CreateICmpSLT(index, length), body, after);
  builder_.SetInsertPoint(body);
  llvm::Value *next = step(state, loadListItem(list, element, index));
  index->addIncoming(builder_.CreateAdd(index, builder_.getInt64(1)),
                     builder_.GetInsertBlock());
  state->addIncoming(next, builder_.GetInsertBlock());
  builder_.CreateBr(header);
  builder_.SetInsertPoint(after);
  return state;
}

llvm::Value *Lowering::lowerMembership(const Instruction &inst) {
  const Instruction *item = inst.operands[0];
  const Instruction *container = inst.operands[1];
  llvm::Value *x = values_.at(item).scalar;
  auto equal = [&](llvm::Value *found, llvm::Value *v, const Type *t) {
    return builder_.CreateOr(
        found, compareNumbers(CompareOperator::Eq, x, item->type, v, t));
  };
  llvm::Value *found = builder_.getFalse();
  if (isList(container)) {
    const Type *element = container->type->element;
    found = foldList(values_.at(container).data, element,
                     builder_.getInt64(0), found,
                     [&](llvm::Value *state, llvm::Value *v) {
                       return equal(state, v, element);
                     });
  } else {
    const Lowered &tuple = values_.at(container);
    for (size_t k = 0; k < container->type->elements.size(); ++k)
      found = equal(found, tuple.elements[k].scalar,
                    container->type->elements[k]);
  }
  if (static_cast<CompareOperator>(inst.index) == CompareOperator::NotIn)
    return builder_.CreateNot(found);
  return found;
}

Lowered Lowering::lowerListBuiltin(const Instruction &inst,
                                   const std::string &name) {
  const Type *element = inst.operands[1]->type->element;
  llvm::Value *list = values_.at(inst.operands[1]).data;
  auto *i8ptr = builder_.getInt8PtrTy();
  auto *i64 = builder_.getInt64Ty();
  auto *i32 = builder_.getInt32Ty();
  if (name == "sorted") {
    llvm::Value *reverse =
        inst.operands.size() == 3
            ? builder_.CreateZExt(truth(values_.at(inst.operands[2]).scalar,
                                        inst.operands[2]->type),
                                  i32)
            : builder_.getInt32(0);
    int64_t itemsize = static_cast<int64_t>(
        module_->getDataLayout().getTypeAllocSize(memoryType(element)));
    llvm::FunctionCallee sorted = hostHelper(
        "spirjit_host_list_sorted", i8ptr, {i8ptr, i8ptr, i64, i32, i32});
    llvm::Value *made = builder_.CreateCall(
        sorted, {hostContext_, list, builder_.getInt64(itemsize),
                 builder_.getInt32(itemCode(element, itemsize)), reverse});
    checkStatus(builder_.CreateZExt(builder_.CreateIsNull(made), i32));
    return {nullptr, made};
  }
  if (name == "sum") {
    // Python's order, from 0: a float sum rounds as numba's does (Python
    // 3.12's sum compensates its rounding).
    const Type *t = inst.type;
    auto add = [&](llvm::Value *total, llvm::Value *item) -> llvm::Value * {
      llvm::Value *v = convert(item, element, t);
      switch (t->kind) {
      case TypeKind::Float:
        return floatBinary(BinaryOperator::Add, total, v);
      case TypeKind::Complex:
        return complexBinary(BinaryOperator::Add, total, v);
      default:
        return integerBinary(BinaryOperator::Add, total, v, t);
      }
    };
    return {foldList(list, element, builder_.getInt64(0),
                     llvm::Constant::getNullValue(scalarType(t)), add)};
  }
  // min and max: Python's, the first item that no later one is below
  // (above); an empty list is its ValueError.
  auto *failed = llvm::BasicBlock::Create(context_, "list.empty", function_);
  auto *ok = llvm::BasicBlock::Create(context_, "list.items", function_);
  builder_.CreateCondBr(
      builder_.CreateICmpEQ(listLength(list), builder_.getInt64(0)), failed,
      ok);
  builder_.SetInsertPoint(failed);
  llvm::FunctionCallee fail =
      hostHelper("spirjit_host_fail", i32, {i8ptr, i8ptr, i64, i64});
  builder_.CreateRet(builder_.CreateCall(
      fail, {hostContext_,
             builder_.CreateGlobalStringPtr(filename() + ":" +
                                            std::to_string(inst.line) + ": " +
                                            name +
                                            "() arg is an empty sequence"),
             builder_.getInt64(0), builder_.getInt64(0)}));
  builder_.SetInsertPoint(ok);
  CompareOperator below =
      name == "min" ? CompareOperator::Lt : CompareOperator::Gt;
  return {foldList(list, element, builder_.getInt64(1),
                   loadListItem(list, element, builder_.getInt64(0)),
                   [&](llvm::Value *best, llvm::Value *item) {
                     return builder_.CreateSelect(
                         compareNumbers(below, item, element, best, element),
                         item, best);
                   })};
}

bool Lowering::lowerList(const Instruction &inst) {
  auto *i8ptr = builder_.getInt8PtrTy();
  auto *i64 = builder_.getInt64Ty();
  auto itemsize = [&](const Type *element) {
    return builder_.getInt64(static_cast<int64_t>(
        module_->getDataLayout().getTypeAllocSize(memoryType(element))));
  };
  auto checkNotNull = [&](llvm::Value *pointer) {
    checkStatus(builder_.CreateZExt(builder_.CreateIsNull(pointer),
                                    builder_.getInt32Ty()));
  };
  if (inst.isa(Opcode::BuildList)) {
    const Type *element = inst.type->element;
    llvm::FunctionCallee make =
        hostHelper("spirjit_host_list_new", i8ptr, {i8ptr, i64, i64});
    llvm::Value *list = builder_.CreateCall(
        make, {hostContext_, builder_.getInt64(inst.operands.size()),
               itemsize(element)});
    checkNotNull(list);
    llvm::Value *items = listItems(list, element);
    for (size_t i = 0; i < inst.operands.size(); ++i)
      storeListItem(builder_.CreateConstInBoundsGEP1_64(memoryType(element),
                                                        items, i),
                    inst.operands[i], element);
    values_[&inst] = {nullptr, list};
    return true;
  }
  if (inst.isa(Opcode::GetAttr) && isList(inst.operands[0])) {
    values_[&inst] = {}; // the method, called next
    return true;
  }
  if (inst.isa(Opcode::Call)) {
    const Type *callee = inst.operands[0]->type;
    if (callee->kind == TypeKind::Method &&
        callee->elements[0]->kind == TypeKind::List) { // append
      const Type *element = callee->elements[0]->element;
      llvm::Value *list = values_.at(inst.operands[0]->operands[0]).data;
      llvm::FunctionCallee append =
          hostHelper("spirjit_host_list_append", i8ptr, {i8ptr, i8ptr, i64});
      llvm::Value *slot =
          builder_.CreateCall(append, {hostContext_, list, itemsize(element)});
      checkNotNull(slot);
      storeListItem(
          builder_.CreatePointerCast(slot, memoryType(element)->getPointerTo()),
          inst.operands[1], element);
      values_[&inst] = {};
      return true;
    }
    if (callee->kind != TypeKind::Function || inst.operands.size() < 2 ||
        !isList(inst.operands[1]))
      return false;
    llvm::Value *list = values_.at(inst.operands[1]).data;
    const Type *element = inst.operands[1]->type->element;
    if (callee->name == "len") {
      values_[&inst] = {listLength(list)};
      return true;
    }
    const std::string &name = callee->name;
    if (name == "sum" || name == "min" || name == "max" || name == "sorted") {
      values_[&inst] = lowerListBuiltin(inst, name);
      return true;
    }
    if (name != "numpy.array" && name != "numpy.asarray")
      return false;
    // np.array(l), np.asarray(l): a new array of the items.
    llvm::Value *length = listLength(list);
    Lowered array = allocateArray(inst.type, {length}, 3,
                                  llvm::ConstantPointerNull::get(i8ptr),
                                  llvm::ConstantPointerNull::get(i8ptr));
    llvm::FunctionCallee write = hostHelper(
        "spirjit_host_write", builder_.getInt32Ty(), {i8ptr, i8ptr, i64, i8ptr});
    checkStatus(builder_.CreateCall(
        write, {hostContext_, builder_.CreatePointerCast(array.data, i8ptr),
                builder_.CreateMul(length, itemsize(element)),
                builder_.CreatePointerCast(listItems(list, element), i8ptr)}));
    values_[&inst] = array;
    return true;
  }
  if ((inst.isa(Opcode::GetItem) || inst.isa(Opcode::SetItem)) &&
      isList(inst.operands[0])) {
    const Type *element = inst.operands[0]->type->element;
    llvm::Value *list = values_.at(inst.operands[0]).data;
    llvm::Value *index = scalarOf(inst.operands[1], types::int64());
    llvm::Value *wrapped = builder_.CreateSelect(
        builder_.CreateICmpSLT(index, builder_.getInt64(0)),
        builder_.CreateAdd(index, listLength(list)), index);
    llvm::Value *at = builder_.CreateInBoundsGEP(
        memoryType(element), listItems(list, element), wrapped);
    if (inst.isa(Opcode::SetItem)) {
      storeListItem(at, inst.operands[2], element);
      builder_.CreateStore(
          builder_.getInt64(1),
          builder_.CreatePointerCast(
              builder_.CreateConstInBoundsGEP1_64(
                  builder_.getInt8Ty(), list,
                  offsetof(spirjit_host_list, changed)),
              i64->getPointerTo()));
      values_[&inst] = {};
      return true;
    }
    values_[&inst] = {loadListItem(list, element, wrapped)};
    return true;
  }
  return false;
}

void Lowering::refuseListInKernel(const Parfor &parfor, size_t k) {
  int line = parfor.line;
  const ir::Function *kernel =
      parfor.kernel ? parfor.kernel->prebuiltPyIR.get() : nullptr;
  for (size_t b = 0; kernel && b < kernel->blocks.size() && line == parfor.line;
       ++b)
    for (const auto &user : kernel->blocks[b]->instructions) {
      auto argument = [&](const Instruction *v) {
        return v->isa(Opcode::Arg) && v->index == static_cast<int64_t>(k) + 1;
      };
      if (std::any_of(user->operands.begin(), user->operands.end(),
                      argument)) {
        line = user->line; // the item is the kernel's first parameter
        break;
      }
    }
  throw UserError(UserErrorKind::UnsupportedFeature, filename(), line,
                  "a list is read inside a prange loop: copy it to an array "
                  "before the loop (a = np.array(xs)) and read the array "
                  "there");
}

} // namespace spirjit::lower
