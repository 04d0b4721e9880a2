// A jit function's host code: the launches the parfor stage left in place
// of prange loops, array constructors, returning values, and the wrapper
// the binding calls (the host ABI: LowerToLLVM.h, HostABI.h).
#include "compiler/lower/Lowering.h"
#include "frontend/CallArguments.h"

#include "compiler/Parfor.h"

namespace spirjit::lower {

namespace {

llvm::StructType *hostValueType(llvm::LLVMContext &context) {
  auto *i64 = llvm::Type::getInt64Ty(context);
  auto *i64ptr = i64->getPointerTo();
  return llvm::StructType::get(context,
                               {llvm::Type::getInt8PtrTy(context), i64ptr,
                                i64ptr, llvm::ArrayType::get(i64, 2)});
}

} // namespace

llvm::FunctionCallee Lowering::hostHelper(const char *name, llvm::Type *result,
                                          llvm::ArrayRef<llvm::Type *> params) {
  return module_->getOrInsertFunction(
      name, llvm::FunctionType::get(result, params, false));
}

void Lowering::checkStatus(llvm::Value *status) {
  auto *failed = llvm::BasicBlock::Create(context_, "failed", function_);
  auto *ok = llvm::BasicBlock::Create(context_, "ok", function_);
  builder_.CreateCondBr(builder_.CreateICmpNE(status, builder_.getInt32(0)),
                        failed, ok);
  builder_.SetInsertPoint(failed);
  builder_.CreateRet(status);
  builder_.SetInsertPoint(ok);
}

void Lowering::hostCheck(llvm::Value *failed, int kind,
                         const std::string &message, llvm::Value *got,
                         llvm::Value *expected) {
  auto *report = llvm::BasicBlock::Create(context_, "check.failed", function_);
  auto *ok = llvm::BasicBlock::Create(context_, "check.ok", function_);
  builder_.CreateCondBr(failed, report, ok);
  builder_.SetInsertPoint(report);
  auto *i8ptr = builder_.getInt8PtrTy();
  auto *i64 = builder_.getInt64Ty();
  llvm::FunctionCallee raise =
      hostHelper("spirjit_host_raise", builder_.getInt32Ty(),
                 {i8ptr, builder_.getInt32Ty(), i8ptr, i64, i64});
  builder_.CreateRet(builder_.CreateCall(
      raise, {hostContext_, builder_.getInt32(kind),
              builder_.CreateGlobalStringPtr(message), got, expected}));
  builder_.SetInsertPoint(ok);
}

namespace {

/// An alloca in the entry block, where LLVM's mem2reg and SROA look.
llvm::Value *entryAlloca(llvm::IRBuilder<> &allocaBuilder,
                         llvm::Function *function, llvm::Type *type,
                         const char *name) {
  llvm::BasicBlock &entry = function->getEntryBlock();
  allocaBuilder.SetInsertPoint(&entry, entry.getFirstInsertionPt());
  return allocaBuilder.CreateAlloca(type, nullptr, name);
}

} // namespace

Lowered Lowering::lowerLaunch(const Instruction &inst) {
  SPIRJIT_INTERNAL_CHECK(options_.parfors && isHost(),
                         "a parfor launch outside host code");
  int index = static_cast<int>(inst.index);
  const Parfor &parfor = options_.parfors->at(index);
  auto *i64 = builder_.getInt64Ty();
  auto *i8ptr = builder_.getInt8PtrTy();
  size_t count = parfor.arguments.size();
  size_t bounds = 3 * static_cast<size_t>(parfor.dims);
  SPIRJIT_INTERNAL_CHECK(inst.operands.size() == bounds + count,
                         "launch " + std::to_string(index) + " has " +
                             std::to_string(inst.operands.size()) +
                             " operands for " + std::to_string(parfor.dims) +
                             " dimensions and " + std::to_string(count) +
                             " arguments");

  // Start, stop and step of each dimension: the first operands.
  llvm::Value *ranges = entryAlloca(allocaBuilder_, function_,
                                    llvm::ArrayType::get(i64, 9), "ranges");
  for (size_t k = 0; k < bounds; ++k)
    builder_.CreateStore(
        scalarOf(inst.operands[k], types::int64()),
        builder_.CreateConstInBoundsGEP2_32(
            llvm::ArrayType::get(i64, 9), ranges, 0, static_cast<unsigned>(k)));

  // The kernel's values.
  llvm::StructType *valueType = hostValueType(context_);
  auto *argsType = llvm::ArrayType::get(valueType, std::max<size_t>(count, 1));
  llvm::Value *args = entryAlloca(allocaBuilder_, function_, argsType, "args");
  for (size_t k = 0; k < count; ++k) {
    const Instruction *operand = inst.operands[bounds + k];
    if (operand->type->kind == TypeKind::List)
      refuseListInKernel(parfor, k);
    const Type *t = parfor.kernelArgumentTypes[k];
    const Lowered &v = values_.at(operand);
    llvm::Value *slot = builder_.CreateConstInBoundsGEP2_32(
        argsType, args, 0, static_cast<unsigned>(k));
    if (t->kind == TypeKind::Array) {
      builder_.CreateStore(builder_.CreatePointerCast(v.data, i8ptr),
                           builder_.CreateStructGEP(valueType, slot, 0));
      // Extents then strides, in memory of the host code's frame.
      auto *dimsType = llvm::ArrayType::get(i64, 2 * std::max(t->ndim, 1));
      llvm::Value *dims =
          entryAlloca(allocaBuilder_, function_, dimsType, "dims");
      for (int d = 0; d < t->ndim; ++d) {
        builder_.CreateStore(v.shape[d], builder_.CreateConstInBoundsGEP2_32(
                                             dimsType, dims, 0, d));
        builder_.CreateStore(v.strides[d], builder_.CreateConstInBoundsGEP2_32(
                                               dimsType, dims, 0, t->ndim + d));
      }
      builder_.CreateStore(
          builder_.CreateConstInBoundsGEP2_32(dimsType, dims, 0, 0),
          builder_.CreateStructGEP(valueType, slot, 1));
      builder_.CreateStore(
          builder_.CreateConstInBoundsGEP2_32(dimsType, dims, 0, t->ndim),
          builder_.CreateStructGEP(valueType, slot, 2));
      continue;
    }
    llvm::Value *bytes = builder_.CreateStructGEP(valueType, slot, 3);
    llvm::Value *scalar = convert(v.scalar, operand->type, t);
    if (t->kind == TypeKind::Complex) {
      llvm::Type *part = scalarType(types::floating(t->bits));
      for (unsigned p = 0; p < 2; ++p)
        builder_.CreateStore(
            builder_.CreateExtractValue(scalar, p),
            builder_.CreatePointerCast(
                builder_.CreateConstInBoundsGEP2_32(
                    llvm::ArrayType::get(i64, 2), bytes, 0, p),
                part->getPointerTo()));
      continue;
    }
    if (t->kind == TypeKind::Bool)
      scalar = builder_.CreateZExt(scalar, builder_.getInt8Ty());
    builder_.CreateStore(scalar, builder_.CreatePointerCast(
                                     bytes, memoryType(t)->getPointerTo()));
  }

  // Reductions start from their values before the loop.
  size_t reductions = parfor.reductions.size();
  auto *slotsType = llvm::ArrayType::get(llvm::ArrayType::get(i64, 2),
                                         std::max<size_t>(reductions, 1));
  llvm::Value *results =
      entryAlloca(allocaBuilder_, function_, slotsType, "results");
  llvm::Value *initials =
      entryAlloca(allocaBuilder_, function_, slotsType, "initials");
  auto slotOf = [&](llvm::Value *slots, size_t j, const Type *t) {
    return builder_.CreatePointerCast(
        builder_.CreateConstInBoundsGEP2_32(slotsType, slots, 0,
                                            static_cast<unsigned>(j)),
        memoryType(t)->getPointerTo());
  };
  for (size_t j = 0; j < reductions; ++j) {
    const Parfor::Reduction &r = parfor.reductions[j];
    llvm::Value *initial = scalarOf(r.initial, r.type);
    if (r.type->kind == TypeKind::Bool)
      initial = builder_.CreateZExt(initial, builder_.getInt8Ty());
    builder_.CreateStore(initial, slotOf(initials, j, r.type));
  }
  llvm::FunctionCallee launch = hostHelper(
      "spirjit_host_parfor", builder_.getInt32Ty(),
      {i8ptr, builder_.getInt32Ty(), i64->getPointerTo(), i8ptr, i8ptr, i8ptr});
  llvm::Value *status = builder_.CreateCall(
      launch, {hostContext_, builder_.getInt32(index),
               builder_.CreatePointerCast(ranges, i64->getPointerTo()),
               builder_.CreatePointerCast(args, i8ptr),
               builder_.CreatePointerCast(results, i8ptr),
               builder_.CreatePointerCast(initials, i8ptr)});
  checkStatus(status);
  Lowered tuple;
  for (size_t j = 0; j < reductions; ++j) {
    const Type *t = parfor.reductions[j].type;
    llvm::Value *v = builder_.CreateLoad(memoryType(t), slotOf(results, j, t));
    if (t->kind == TypeKind::Bool)
      v = builder_.CreateICmpNE(v, builder_.getInt8(0));
    tuple.elements.push_back(Lowered{v});
  }
  return tuple;
}

Lowered Lowering::lowerArange(const Instruction &inst) {
  // InferHost.cpp: start and stop, or stop alone; a step needs both.
  const auto &args = typed_.callArguments.at(&inst);
  const Instruction *start = args[0] && args[1] ? args[0] : nullptr;
  const Instruction *stop = args[1] ? args[1] : args[0];
  const Instruction *step = args[2];
  if (inst.type->element->kind == TypeKind::Complex)
    return lowerComplexArange(inst, start, stop, step);
  bool floating = false;
  for (const Instruction *a : {start, stop, step})
    floating |= a && (a->type->kind == TypeKind::Float ||
                      a->type->kind == TypeKind::WeakFloat);
  // The helper computes in double or in int64 (HostABI.h); the other three
  // values are unused zeros.
  auto asDouble = [&](const Instruction *a, double otherwise) -> llvm::Value * {
    if (!floating)
      return llvm::ConstantFP::get(builder_.getDoubleTy(), 0.0);
    return a ? scalarOf(a, types::floating(64))
             : llvm::ConstantFP::get(builder_.getDoubleTy(), otherwise);
  };
  auto asInt = [&](const Instruction *a, int64_t otherwise) -> llvm::Value * {
    if (floating)
      return builder_.getInt64(0);
    return a ? scalarOf(a, types::int64()) : builder_.getInt64(otherwise);
  };
  const Type *element = inst.type->element;
  llvm::Type *memory = memoryType(element);
  int32_t code = static_cast<int32_t>(
      module_->getDataLayout().getTypeAllocSize(memory));
  if (element->kind == TypeKind::Float)
    code += 256;
  else if (!element->isSigned)
    code += 512;
  auto *i64 = builder_.getInt64Ty();
  auto *f64 = builder_.getDoubleTy();
  return callArange(inst, "spirjit_host_arange",
                    {builder_.getInt32(floating), asDouble(start, 0.0),
                     asDouble(stop, 0.0), asDouble(step, 1.0),
                     asInt(start, 0), asInt(stop, 0), asInt(step, 1),
                     builder_.getInt32(code)},
                    {builder_.getInt32Ty(), f64, f64, f64, i64, i64, i64,
                     builder_.getInt32Ty()});
}

/// A call of an arange helper of HostABI.h: (context, `arguments`...,
/// the length's slot, "file:line"), its null result a raised error; the
/// 1-D array it allocated.
Lowered Lowering::callArange(const Instruction &inst, const char *helper,
                             std::vector<llvm::Value *> arguments,
                             std::vector<llvm::Type *> types) {
  auto *i64 = builder_.getInt64Ty();
  auto *i8ptr = builder_.getInt8PtrTy();
  llvm::Value *length = entryAlloca(allocaBuilder_, function_, i64, "length");
  types.insert(types.begin(), i8ptr);
  types.push_back(i64->getPointerTo());
  types.push_back(i8ptr);
  llvm::FunctionCallee arange = hostHelper(helper, i8ptr, types);
  arguments.insert(arguments.begin(), hostContext_);
  arguments.push_back(length);
  arguments.push_back(builder_.CreateGlobalStringPtr(
      filename() + ":" + std::to_string(inst.line), "arange.where"));
  llvm::Value *data = builder_.CreateCall(arange, arguments);
  checkStatus(builder_.CreateZExt(builder_.CreateIsNull(data),
                                  builder_.getInt32Ty()));
  Lowered result;
  result.data = builder_.CreatePointerCast(data, pointerType(inst.type));
  result.shape = {builder_.CreateLoad(i64, length)};
  result.strides = {builder_.getInt64(1)};
  return result;
}

Lowered Lowering::lowerComplexArange(const Instruction &inst,
                                     const Instruction *start,
                                     const Instruction *stop,
                                     const Instruction *step) {
  bool complexBounds = false;
  for (const Instruction *a : {start, stop, step})
    complexBounds |= a && (a->type->kind == TypeKind::Complex ||
                           a->type->kind == TypeKind::WeakComplex);
  // Each value's real and imaginary parts in double (HostABI.h).
  std::vector<llvm::Value *> parts;
  for (auto [a, otherwise] : {std::pair{start, 0.0}, std::pair{stop, 0.0},
                              std::pair{step, 1.0}}) {
    llvm::Value *z = a ? scalarOf(a, types::complex(64)) : nullptr;
    for (unsigned p = 0; p < 2; ++p)
      parts.push_back(z ? builder_.CreateExtractValue(z, p)
                        : llvm::ConstantFP::get(builder_.getDoubleTy(),
                                                p ? 0.0 : otherwise));
  }
  auto *f64 = builder_.getDoubleTy();
  auto *i32 = builder_.getInt32Ty();
  std::vector<llvm::Value *> arguments = {builder_.getInt32(complexBounds)};
  arguments.insert(arguments.end(), parts.begin(), parts.end());
  arguments.push_back(builder_.getInt32(static_cast<int32_t>(
      module_->getDataLayout().getTypeAllocSize(
          memoryType(inst.type->element)))));
  return callArange(inst, "spirjit_host_arange_complex", arguments,
                    {i32, f64, f64, f64, f64, f64, f64, i32});
}

Lowered Lowering::lowerArrayConstructor(const Instruction &inst) {
  if (!isHost())
    return lowerPrivateConstructor(inst);
  const std::string &name = inst.operands[0]->type->name;
  std::string shortName = name.substr(name.find('.') + 1);
  if (shortName == "arange")
    return lowerArange(inst);
  bool like = shortName.size() > 5 &&
              shortName.compare(shortName.size() - 5, 5, "_like") == 0;
  const auto &args = typed_.callArguments.at(&inst);
  const Type *array = inst.type;
  const Type *element = array->element;
  auto *i64 = builder_.getInt64Ty();
  int n = array->ndim;

  std::vector<llvm::Value *> shape;
  const Instruction *shapeArg = args[0];
  const Lowered &shapeValue = values_.at(shapeArg);
  if (like)
    shape = shapeValue.shape;
  else if (shapeArg->type->kind == TypeKind::Tuple)
    for (int d = 0; d < n; ++d)
      shape.push_back(convert(shapeValue.elements[d].scalar,
                              shapeArg->type->elements[d], types::int64()));
  else
    shape.push_back(scalarOf(shapeArg, types::int64()));

  auto *i8ptr = builder_.getInt8PtrTy();
  llvm::Type *memory = memoryType(element);
  int64_t itemsize = static_cast<int64_t>(
      module_->getDataLayout().getTypeAllocSize(memory));
  // Where the array lives (spirjit's constructors: InferHost.cpp checked
  // the keywords): a USM kind asked for, a device filter string the call's
  // device must match; a Device argument is the call's device already.
  // usm: the kind (0 device, 1 shared, 2 host; 3: the like array's, else
  // the call's), plus 4 for device memory even in a call on NumPy arrays.
  int usm = 3;
  llvm::Value *device = llvm::ConstantPointerNull::get(i8ptr);
  bool ours = name.compare(0, 8, "spirjit.") == 0;
  size_t dtypeAt = shortName.compare(0, 4, "full") == 0 ? 2 : 1;
  if (ours) {
    // spirjit's constructors make DeviceArrays, in jit functions as out of
    // them: device memory, "device" unless asked or like another array.
    usm = like ? 3 | 4 : 0 | 4;
    const Instruction *where = args[dtypeAt + 1] ? args[dtypeAt + 1]
                                                  : args[dtypeAt + 3];
    if (where && where->type->name.compare(0, 3, "op:") == 0)
      device = builder_.CreateGlobalStringPtr(where->type->name.substr(3),
                                              "device.filter");
    if (const Instruction *kind = args[dtypeAt + 2]) {
      const std::string text = kind->type->name.substr(3);
      usm = (text == "device" ? 0 : text == "shared" ? 1 : 2) | 4;
    }
  }
  llvm::Value *likeData = like ? builder_.CreatePointerCast(shapeValue.data, i8ptr)
                               : llvm::ConstantPointerNull::get(i8ptr);
  Lowered result = allocateArray(array, shape, usm, likeData, device);
  llvm::Value *data = builder_.CreatePointerCast(result.data, i8ptr);

  llvm::Value *count = builder_.getInt64(1);
  for (llvm::Value *extent : shape)
    count = builder_.CreateMul(count, extent);
  llvm::Value *fill = nullptr;
  if (shortName.compare(0, 5, "zeros") == 0)
    fill = convert(builder_.getInt1(false), types::boolean(), element);
  else if (shortName.compare(0, 4, "ones") == 0)
    fill = convert(builder_.getInt1(true), types::boolean(), element);
  else if (shortName.compare(0, 4, "full") == 0)
    fill = scalarOf(args[1], element);
  if (fill) {
    if (element->kind == TypeKind::Bool)
      fill = builder_.CreateZExt(fill, builder_.getInt8Ty());
    llvm::Value *bytes = entryAlloca(allocaBuilder_, function_,
                                     llvm::ArrayType::get(i64, 2), "fill");
    builder_.CreateStore(fill,
                         builder_.CreatePointerCast(bytes, memory->getPointerTo()));
    llvm::FunctionCallee fillHelper =
        hostHelper("spirjit_host_fill", builder_.getInt32Ty(),
                   {i8ptr, i8ptr, i64, i64, i8ptr});
    checkStatus(builder_.CreateCall(
        fillHelper, {hostContext_, data, count, builder_.getInt64(itemsize),
                     builder_.CreatePointerCast(bytes, i8ptr)}));
  }
  return result;
}

Lowered Lowering::allocateArray(const Type *array,
                                const std::vector<llvm::Value *> &shape,
                                int usm, llvm::Value *like,
                                llvm::Value *device) {
  auto *i64 = builder_.getInt64Ty();
  auto *i8ptr = builder_.getInt8PtrTy();
  int n = array->ndim;
  auto *shapeType = llvm::ArrayType::get(i64, std::max(n, 1));
  llvm::Value *extents = entryAlloca(allocaBuilder_, function_, shapeType, "shape");
  for (int d = 0; d < n; ++d)
    builder_.CreateStore(shape[d], builder_.CreateConstInBoundsGEP2_32(
                                       shapeType, extents, 0, d));
  int64_t itemsize = static_cast<int64_t>(
      module_->getDataLayout().getTypeAllocSize(memoryType(array->element)));
  llvm::FunctionCallee alloc = hostHelper(
      "spirjit_host_alloc", i8ptr,
      {i8ptr, builder_.getInt32Ty(), i64->getPointerTo(), i64,
       builder_.getInt32Ty(), i8ptr, i8ptr});
  llvm::Value *data = builder_.CreateCall(
      alloc, {hostContext_, builder_.getInt32(n),
              builder_.CreatePointerCast(extents, i64->getPointerTo()),
              builder_.getInt64(itemsize), builder_.getInt32(usm), like,
              device});
  checkStatus(builder_.CreateZExt(builder_.CreateIsNull(data),
                                  builder_.getInt32Ty()));
  Lowered result;
  result.data = builder_.CreatePointerCast(data, pointerType(array));
  result.shape = shape;
  result.strides.assign(n, nullptr);
  llvm::Value *running = builder_.getInt64(1);
  for (int d = n - 1; d >= 0; --d) {
    result.strides[d] = running;
    running = builder_.CreateMul(running, shape[d]);
  }
  return result;
}

Lowered Lowering::lowerArrayLiteral(const Instruction &inst) {
  // np.array of nested tuples: the elements, converted, in a buffer of
  // the host's stack, copied into a new array (spirjit_host_write, which
  // reaches device memory too).
  const Type *array = inst.type;
  const Type *element = array->element;
  const Instruction *object = typed_.callArguments.at(&inst)[0];
  std::vector<int64_t> extents = literalArrayShape(object->type);
  std::vector<llvm::Value *> shape;
  int64_t count = 1;
  for (int64_t e : extents) {
    shape.push_back(builder_.getInt64(e));
    count *= e;
  }
  auto *i8ptr = builder_.getInt8PtrTy();
  Lowered result = allocateArray(array, shape, 3, llvm::ConstantPointerNull::get(i8ptr),
                                 llvm::ConstantPointerNull::get(i8ptr));
  if (count == 0)
    return result;
  llvm::Type *memory = memoryType(element);
  auto *bufferType = llvm::ArrayType::get(memory, count);
  llvm::Value *buffer =
      entryAlloca(allocaBuilder_, function_, bufferType, "literal");
  int64_t next = 0;
  std::function<void(const Lowered &, const Type *)> store =
      [&](const Lowered &value, const Type *type) {
        if (type->kind == TypeKind::Tuple) {
          for (size_t i = 0; i < value.elements.size(); ++i)
            store(value.elements[i], type->elements[i]);
          return;
        }
        llvm::Value *v = convert(value.scalar, type, element);
        if (element->kind == TypeKind::Bool)
          v = builder_.CreateZExt(v, builder_.getInt8Ty());
        builder_.CreateStore(v, builder_.CreateConstInBoundsGEP2_64(
                                    bufferType, buffer, 0, next++));
      };
  store(values_.at(object), object->type);
  int64_t bytes = count * static_cast<int64_t>(
      module_->getDataLayout().getTypeAllocSize(memory));
  llvm::FunctionCallee write =
      hostHelper("spirjit_host_write", builder_.getInt32Ty(),
                 {i8ptr, i8ptr, builder_.getInt64Ty(), i8ptr});
  checkStatus(builder_.CreateCall(
      write, {hostContext_, builder_.CreatePointerCast(result.data, i8ptr),
              builder_.getInt64(bytes),
              builder_.CreatePointerCast(buffer, i8ptr)}));
  return result;
}

void Lowering::storeHostResult(const Lowered &value, const Type *from,
                               const Type *to, size_t &slot) {
  auto slotPointer = [&](llvm::Type *type) {
    llvm::Value *p = builder_.CreateConstInBoundsGEP1_64(
        builder_.getInt8Ty(), hostResult_, slot * 8);
    ++slot;
    return builder_.CreatePointerCast(p, type->getPointerTo());
  };
  switch (to->kind) {
  case TypeKind::None:
    return;
  case TypeKind::Tuple:
    for (size_t i = 0; i < to->elements.size(); ++i)
      storeHostResult(value.elements[i], from->elements[i], to->elements[i],
                      slot);
    return;
  case TypeKind::Array:
    builder_.CreateStore(
        builder_.CreatePointerCast(value.data, builder_.getInt8PtrTy()),
        slotPointer(builder_.getInt8PtrTy()));
    for (int d = 0; d < to->ndim; ++d)
      builder_.CreateStore(value.shape[d], slotPointer(builder_.getInt64Ty()));
    for (int d = 0; d < to->ndim; ++d)
      builder_.CreateStore(value.strides[d], slotPointer(builder_.getInt64Ty()));
    return;
  case TypeKind::List: {
    // The binding reads the items into a Python list before the call
    // frees them.
    llvm::Value *length = listLength(value.data);
    builder_.CreateStore(
        builder_.CreatePointerCast(listItems(value.data, to->element),
                                   builder_.getInt8PtrTy()),
        slotPointer(builder_.getInt8PtrTy()));
    builder_.CreateStore(length, slotPointer(builder_.getInt64Ty()));
    return;
  }
  default:
    break;
  }
  SPIRJIT_INTERNAL_CHECK(to->isNumber(), "a host function returns a '" +
                                             to->str() + "'");
  llvm::Value *v = convert(value.scalar, from, to);
  if (to->kind == TypeKind::Complex) {
    llvm::Type *part = scalarType(types::floating(to->bits));
    for (unsigned p = 0; p < 2; ++p)
      builder_.CreateStore(builder_.CreateExtractValue(v, p), slotPointer(part));
    return;
  }
  if (to->kind == TypeKind::Bool)
    v = builder_.CreateZExt(v, builder_.getInt8Ty());
  builder_.CreateStore(v, slotPointer(memoryType(to)));
}

void Lowering::lowerHostReturn(const Instruction &inst) {
  const Type *returned = typed_.returnType;
  if (inst.name != "assert" && inst.name != "fail" &&
      returned->kind != TypeKind::None) {
    size_t slot = 0;
    storeHostResult(values_.at(inst.operands[0]), inst.operands[0]->type,
                    returned, slot);
  }
  builder_.CreateRet(builder_.getInt32(0));
}

Lowered Lowering::lowerView(const Instruction &inst) {
  const Instruction *baseArg = inst.operands[0];
  const Type *base = baseArg->type;
  const Lowered &from = values_.at(baseArg);
  size_t at = 1;
  llvm::Value *offset = builder_.getInt64(0);
  for (int b = 0; b < base->ndim; ++b)
    offset = builder_.CreateAdd(
        offset, builder_.CreateMul(scalarOf(inst.operands[at++], types::int64()),
                                   from.strides[b]));
  Lowered view;
  view.data = builder_.CreateInBoundsGEP(memoryType(base->element), from.data,
                                         offset);
  while (at < inst.operands.size()) {
    view.shape.push_back(scalarOf(inst.operands[at], types::int64()));
    int64_t baseDim = inst.operands[at + 1]->constant.intValue;
    // A step is a literal or, for a[::s], a value of the host.
    const Instruction *step = inst.operands[at + 2];
    llvm::Value *by = step->isa(Opcode::Const)
                          ? builder_.getInt64(step->constant.intValue)
                          : scalarOf(step, types::int64());
    // Base dimension -1: a new axis (np.newaxis), of extent 1.
    view.strides.push_back(baseDim < 0
                               ? builder_.getInt64(0)
                               : builder_.CreateMul(from.strides[baseDim], by));
    at += 3;
  }
  return view;
}

Lowered Lowering::lowerFrozenArray(const Instruction &inst) {
  const GlobalValue *frozen = valueOf(&inst, *typed_.description);
  SPIRJIT_INTERNAL_CHECK(frozen && frozen->kind == GlobalValue::Kind::Array,
                         "an array global without its values");
  const GlobalValue &g = *frozen;
  const Type *t = inst.type;
  std::string name = "spirjit.frozen." + inst.name;
  llvm::GlobalVariable *constant = module_->getNamedGlobal(name);
  if (!constant) {
    // The bytes as they are (complex elements too), aligned for any
    // element.
    llvm::Constant *bytes = llvm::ConstantDataArray::getRaw(
        g.data, g.data.size(), builder_.getInt8Ty());
    constant = new llvm::GlobalVariable(
        *module_, bytes->getType(), /*isConstant=*/true,
        llvm::GlobalValue::InternalLinkage, bytes, name, nullptr,
        llvm::GlobalValue::NotThreadLocal,
        target_.addressSpace(MemorySpace::Global));
    constant->setAlignment(llvm::Align(16));
  }
  Lowered array;
  array.data = builder_.CreatePointerCast(constant, pointerType(t));
  int64_t stride = 1; // in elements
  array.shape.resize(g.shape.size());
  array.strides.resize(g.shape.size());
  for (size_t k = g.shape.size(); k-- > 0;) {
    array.shape[k] = builder_.getInt64(g.shape[k]);
    array.strides[k] = builder_.getInt64(stride);
    stride *= g.shape[k];
  }
  return array;
}

Lowered Lowering::lowerReshape(const Instruction &inst) {
  // The array is C-contiguous (type inference) and its size the product of
  // the extents (the array-expression stage checked it): C strides.
  Lowered array;
  array.data = values_.at(inst.operands[0]).data;
  for (size_t i = 1; i < inst.operands.size(); ++i)
    array.shape.push_back(scalarOf(inst.operands[i], types::int64()));
  array.strides.assign(array.shape.size(), nullptr);
  llvm::Value *stride = builder_.getInt64(1);
  for (size_t d = array.shape.size(); d-- > 0;) {
    array.strides[d] = stride;
    stride = builder_.CreateMul(stride, array.shape[d]);
  }
  return array;
}

Lowered Lowering::lowerFail(const Instruction &inst) {
  if (!isHost())
    return lowerKernelFail(inst);
  auto *i64 = builder_.getInt64Ty();
  auto *i8ptr = builder_.getInt8PtrTy();
  llvm::FunctionCallee fail =
      hostHelper("spirjit_host_fail", builder_.getInt32Ty(),
                 {i8ptr, i8ptr, i64, i64});
  llvm::Value *status = builder_.CreateCall(
      fail, {hostContext_, builder_.CreateGlobalStringPtr(inst.name),
             scalarOf(inst.operands[0], types::int64()),
             scalarOf(inst.operands[1], types::int64())});
  checkStatus(status);
  return {};
}

/// `<entry>_call(context, parameters, result)`: loads each parameter of
/// `inner` from the pointer the binding passes and calls it.
void addHostWrapper(llvm::Module &module, llvm::Function *inner) {
  llvm::LLVMContext &context = module.getContext();
  llvm::IRBuilder<> builder(context);
  auto *i8ptr = builder.getInt8PtrTy();
  auto *type = llvm::FunctionType::get(
      builder.getInt32Ty(), {i8ptr, i8ptr->getPointerTo(), i8ptr}, false);
  auto *wrapper =
      llvm::Function::Create(type, llvm::Function::ExternalLinkage,
                             hostWrapperName(inner->getName().str()), module);
  builder.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", wrapper));
  auto arg = wrapper->arg_begin();
  llvm::Value *ctx = &*arg++;
  llvm::Value *params = &*arg++;
  llvm::Value *result = &*arg++;
  std::vector<llvm::Value *> values;
  unsigned n = inner->arg_size() - 2;
  for (unsigned k = 0; k < n; ++k) {
    llvm::Type *t = inner->getArg(k)->getType();
    llvm::Value *p = builder.CreateLoad(
        i8ptr, builder.CreateConstInBoundsGEP1_32(i8ptr, params, k));
    values.push_back(builder.CreateLoad(t, builder.CreatePointerCast(
                                               p, t->getPointerTo())));
  }
  values.push_back(ctx);
  values.push_back(result);
  builder.CreateRet(builder.CreateCall(inner, values));
}

} // namespace spirjit::lower

namespace spirjit {

std::string hostWrapperName(const std::string &name) { return name + "_call"; }

size_t hostResultSlots(const Type *t) {
  switch (t->kind) {
  case TypeKind::None:
    return 0;
  case TypeKind::Tuple: {
    size_t n = 0;
    for (const Type *e : t->elements)
      n += hostResultSlots(e);
    return n;
  }
  case TypeKind::Array:
    return 1 + 2 * static_cast<size_t>(t->ndim);
  case TypeKind::List: // its items and their count
  case TypeKind::Complex:
  case TypeKind::WeakComplex:
    return 2;
  default:
    return 1;
  }
}

} // namespace spirjit
