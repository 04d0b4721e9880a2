// Lists in jit host code (compiler/infer/InferLists.cpp types them): a
// list is a pointer to its spirjit_host_list (HostABI.h), which the call
// owns and frees when it ends; the helpers make one and grow it, the
// elements are read and written here. Python's wrap-around applies to a
// negative index; an index out of range is not checked.
#include "compiler/HostABI.h"
#include "compiler/lower/Lowering.h"

#include <algorithm>
#include <cstddef>

namespace spirjit::lower {

namespace {
bool isList(const Instruction *v) {
  return v->type && v->type->kind == TypeKind::List;
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
    if (callee->kind != TypeKind::Function || inst.operands.size() != 2 ||
        !isList(inst.operands[1]))
      return false;
    llvm::Value *list = values_.at(inst.operands[1]).data;
    const Type *element = inst.operands[1]->type->element;
    if (callee->name == "len") {
      values_[&inst] = {listLength(list)};
      return true;
    }
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
      values_[&inst] = {};
      return true;
    }
    llvm::Value *v = builder_.CreateLoad(memoryType(element), at);
    if (element->kind == TypeKind::Bool)
      v = builder_.CreateICmpNE(v, builder_.getInt8(0));
    values_[&inst] = {v};
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
