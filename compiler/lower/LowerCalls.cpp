// The entry point (lowerToLLVM), the kernel ABI on both sides of a call
// (KernelABI.h), device functions, and which concern lowers a call.
#include "compiler/lower/Lowering.h"

#include "compiler/KernelABI.h"

#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <functional>
#include <set>

namespace spirjit::lower {

void Lowering::lowerEntry(llvm::Function *function) {
  // Rebuild each argument from its parameters (KernelABI.h).
  const auto &types = typed_.argumentTypes;
  arguments_.assign(types.size(), Lowered{});
  // Where each local-array argument's known extents start, if known.
  std::vector<int> localExtentAt(types.size(), -1);
  if (typed_.kind == FunctionKind::Kernel && !options_.localExtents.empty()) {
    int at = 0;
    for (size_t i = 0; i < types.size(); ++i)
      if (types[i]->kind == TypeKind::Array &&
          types[i]->memorySpace == MemorySpace::Local) {
        localExtentAt[i] = at;
        at += types[i]->ndim;
      }
    SPIRJIT_INTERNAL_CHECK(at == static_cast<int>(options_.localExtents.size()),
                           "LocalAccessor extents for " +
                               std::to_string(at) + " dimensions, " +
                               std::to_string(options_.localExtents.size()) +
                               " given");
  }
  auto arg = function->arg_begin();
  for (const KernelParameter &p :
       kernelParameters(types, typed_.usesGroupScratch, checksIndices())) {
    llvm::Value *v = &*arg++;
    if (p.kind == KernelParameter::Kind::GroupScratch) {
      v->setName("group.scratch");
      groupScratch_ = v;
      continue;
    }
    if (p.kind == KernelParameter::Kind::DebugRecord) {
      v->setName("debug.record");
      debugRecord_ = v;
      continue;
    }
    // A tuple argument's element: the value at its place in the tuple.
    Lowered *at = &arguments_[p.argument];
    const Type *t = types[p.argument];
    std::string name = typed_.function->parameterNames[p.argument];
    for (int k : p.element) {
      SPIRJIT_INTERNAL_CHECK(isHost(), "a tuple parameter outside host code");
      at->elements.resize(t->elements.size());
      at = &at->elements[k];
      t = t->elements[k];
      name += "." + std::to_string(k);
    }
    Lowered &value = *at;
    switch (p.kind) {
    case KernelParameter::Kind::GroupScratch:
    case KernelParameter::Kind::DebugRecord:
      break;
    case KernelParameter::Kind::ArrayData:
    case KernelParameter::Kind::LocalData:
      v->setName(name);
      value.data = v;
      break;
    case KernelParameter::Kind::ArrayShape:
      v->setName(name + ".shape" + std::to_string(p.dim));
      if (int at = localExtentAt[p.argument]; at >= 0)
        value.shape.push_back(
            builder_.getInt64(options_.localExtents[at + p.dim]));
      else
        value.shape.push_back(v);
      break;
    case KernelParameter::Kind::ArrayStride:
      v->setName(name + ".stride" + std::to_string(p.dim));
      value.strides.push_back(v);
      break;
    case KernelParameter::Kind::Scalar:
      if (t->kind == TypeKind::Complex) { // two parameters: re, then im
        v->setName(name + (p.dim == 0 ? ".real" : ".imag"));
        value.scalar = p.dim == 0 ? v : makeComplex(value.scalar, v);
        break;
      }
      v->setName(name);
      value.scalar = t->kind == TypeKind::Bool
                         ? builder_.CreateICmpNE(v, builder_.getInt8(0))
                         : v;
      break;
    }
  }
  if (isHost()) {
    hostContext_ = &*arg++;
    hostContext_->setName("context");
    hostResult_ = &*arg++;
    hostResult_->setName("result");
  }
  // Contiguous layouts: strides follow from the shape, so LLVM sees the
  // unit stride and the device compiler can vectorise.
  std::function<void(const Type *, Lowered &)> contiguousStrides =
      [&](const Type *t, Lowered &value) {
        if (t->kind == TypeKind::Tuple)
          for (size_t k = 0; k < t->elements.size(); ++k)
            contiguousStrides(t->elements[k], value.elements[k]);
        if (t->kind != TypeKind::Array || t->layout == 'A')
          return;
        int n = t->ndim;
        std::vector<llvm::Value *> strides(n);
        llvm::Value *running = builder_.getInt64(1);
        if (t->layout == 'C')
          for (int d = n - 1; d >= 0; --d) {
            strides[d] = running;
            running = builder_.CreateMul(running, value.shape[d]);
          }
        else
          for (int d = 0; d < n; ++d) {
            strides[d] = running;
            running = builder_.CreateMul(running, value.shape[d]);
          }
        value.strides = strides;
      };
  for (size_t i = 0; i < types.size(); ++i)
    contiguousStrides(types[i], arguments_[i]);
}

llvm::Function *Lowering::declare() {
  std::vector<llvm::Type *> params;
  for (const KernelParameter &p :
       kernelParameters(typed_.argumentTypes, typed_.usesGroupScratch,
                        checksIndices())) {
    const Type *t =
        p.argument >= 0 ? parameterType(p, typed_.argumentTypes) : nullptr;
    if (p.kind == KernelParameter::Kind::LocalData ||
        p.kind == KernelParameter::Kind::GroupScratch)
      SPIRJIT_INTERNAL_CHECK(device().localMemoryAsParameters(),
                             "local memory reached '" + typed_.function->name +
                                 "' as parameters, which " + target_.name() +
                                 " does not take");
    switch (p.kind) {
    case KernelParameter::Kind::ArrayData:
    case KernelParameter::Kind::LocalData:
      params.push_back(t->kind == TypeKind::List ? builder_.getInt8PtrTy()
                                                  : pointerType(t));
      break;
    case KernelParameter::Kind::GroupScratch:
      params.push_back(llvm::PointerType::get(
          builder_.getInt8Ty(), target_.addressSpace(MemorySpace::Local)));
      break;
    case KernelParameter::Kind::DebugRecord:
      params.push_back(llvm::PointerType::get(
          builder_.getInt8Ty(), target_.addressSpace(MemorySpace::Global)));
      break;
    case KernelParameter::Kind::ArrayShape:
    case KernelParameter::Kind::ArrayStride:
      params.push_back(builder_.getInt64Ty());
      break;
    case KernelParameter::Kind::Scalar:
      params.push_back(t->kind == TypeKind::Complex
                           ? scalarType(types::floating(t->bits))
                           : memoryType(t));
      break;
    }
  }
  const Type *returned = typed_.returnType;
  llvm::Type *result = nullptr;
  if (isHost()) { // context, result buffer; a status back
    params.push_back(builder_.getInt8PtrTy());
    params.push_back(builder_.getInt8PtrTy());
    result = builder_.getInt32Ty();
  } else {
    result = typed_.kind == FunctionKind::Kernel ||
                     returned->kind == TypeKind::None
                 ? builder_.getVoidTy()
                 : returnValueType(returned);
  }
  auto *type = llvm::FunctionType::get(result, params, false);
  const std::string &name = typed_.function->name;
  if (isHost()) {
    function_ = llvm::Function::Create(type, llvm::Function::ExternalLinkage,
                                       entryPointName(name), module_);
  } else if (typed_.kind == FunctionKind::Kernel) {
    function_ = llvm::Function::Create(type, llvm::Function::ExternalLinkage,
                                       entryPointName(name), module_);
    target_.markKernel(*function_);
    if (options_.noaliasArrays) {
      unsigned index = 0;
      for (const KernelParameter &p :
           kernelParameters(typed_.argumentTypes, typed_.usesGroupScratch,
                            checksIndices())) {
        if (p.kind == KernelParameter::Kind::ArrayData)
          function_->addParamAttr(index, llvm::Attribute::NoAlias);
        ++index;
      }
    }
  } else {
    // One internal function per specialisation; LLVM makes names unique.
    function_ =
        llvm::Function::Create(type, llvm::Function::InternalLinkage,
                               entryPointName(name) + ".device", module_);
    function_->setCallingConv(target_.functionCallingConvention());
    function_->addFnAttr(llvm::Attribute::NoUnwind);
  }
  functions_[&typed_] = function_;
  return function_;
}

Lowered Lowering::lowerCall(const Instruction &inst) {
  const Type *calleeType = inst.operands[0]->type;
  if (calleeType->isNamedTupleClass()) { // a tuple of its fields, in order
    Lowered tuple;
    for (size_t i = 1; i < inst.operands.size(); ++i)
      tuple.elements.push_back(values_.at(inst.operands[i]));
    return tuple;
  }
  if (calleeType->kind == TypeKind::Function &&
      isArrayConstructor(calleeType->name))
    return lowerArrayConstructor(inst);
  if (calleeType->kind == TypeKind::Function &&
      (calleeType->name == "numpy.array" ||
       calleeType->name == "numpy.asarray"))
    return lowerArrayLiteral(inst);
  if (const TypedFunction *const *device = typed_.calls.find(&inst))
    return lowerDeviceCall(inst, **device);
  if (const KernelApiFunction *api = findKernelApi(inst.operands[0]->type))
    return lowerKernelApiCall(inst, *api);
  const Type *callee = inst.operands[0]->type;
  if (callee->kind == TypeKind::Function && callee->name == "print")
    return lowerPrint(inst);
  return lowerBuiltinCall(inst);
}

llvm::Type *Lowering::returnValueType(const Type *t) {
  if (t->kind != TypeKind::Tuple)
    return scalarType(t);
  std::vector<llvm::Type *> elements;
  for (const Type *e : t->elements)
    elements.push_back(scalarType(e));
  return llvm::StructType::get(context_, elements);
}

Lowered Lowering::lowerDeviceCall(const Instruction &inst,
                                  const TypedFunction &callee) {
  // A device function: its arguments go by the same ABI as a kernel's.
  std::vector<llvm::Value *> args;
  for (const KernelParameter &p :
       kernelParameters(callee.argumentTypes, callee.usesGroupScratch,
                        checksIndices())) {
    if (p.kind == KernelParameter::Kind::GroupScratch) {
      args.push_back(groupScratch_);
      continue;
    }
    if (p.kind == KernelParameter::Kind::DebugRecord) {
      args.push_back(debugRecord_);
      continue;
    }
    const Instruction *operand = inst.operands[p.argument + 1];
    const Lowered &value = values_.at(operand);
    const Type *t = callee.argumentTypes[p.argument];
    switch (p.kind) {
    case KernelParameter::Kind::GroupScratch:
    case KernelParameter::Kind::DebugRecord:
      break;
    case KernelParameter::Kind::ArrayData:
    case KernelParameter::Kind::LocalData:
      args.push_back(value.data);
      break;
    case KernelParameter::Kind::ArrayShape:
      args.push_back(value.shape[p.dim]);
      break;
    case KernelParameter::Kind::ArrayStride:
      args.push_back(value.strides[p.dim]);
      break;
    case KernelParameter::Kind::Scalar: {
      llvm::Value *v = scalarOf(operand, t);
      if (t->kind == TypeKind::Bool)
        v = builder_.CreateZExt(v, builder_.getInt8Ty());
      if (t->kind == TypeKind::Complex)
        v = builder_.CreateExtractValue(v, p.dim);
      args.push_back(v);
      break;
    }
    }
  }
  llvm::CallInst *call = builder_.CreateCall(functions_.at(&callee), args);
  call->setCallingConv(target_.functionCallingConvention());
  if (callee.returnType->kind == TypeKind::None)
    return {};
  if (callee.returnType->kind == TypeKind::Tuple) { // a struct of numbers
    Lowered tuple;
    for (unsigned k = 0; k < callee.returnType->elements.size(); ++k)
      tuple.elements.push_back({builder_.CreateExtractValue(call, k)});
    return tuple;
  }
  return {call};
}

namespace {

/// The kernel and every device-function specialisation it reaches, in the
/// order of first call in the code: the module, and so the dumps and the
/// disk-cache keys, are the same in every process (`calls` is keyed by
/// address).
void collectReachable(const TypedFunction &typed,
                      std::vector<const TypedFunction *> &order,
                      std::set<const TypedFunction *> &seen) {
  if (!seen.insert(&typed).second)
    return;
  order.push_back(&typed);
  for (const auto &block : typed.function->blocks)
    for (const auto &inst : block->instructions) {
      if (const TypedFunction *const *call = typed.calls.find(inst.get()))
        collectReachable(**call, order, seen);
    }
}

} // namespace
} // namespace spirjit::lower

namespace spirjit {

std::string entryPointName(const std::string &name) {
  std::string out = "spirjit_";
  for (char c : name)
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

/// Is `join` a two-way choice between the fold's phi and another value
/// v, made by a branch on a compare of the two (a min or max fold)?
static bool minMaxJoin(const llvm::PHINode &join, const llvm::PHINode &phi) {
  if (join.getNumIncomingValues() != 2)
    return false;
  const llvm::Value *a = join.getIncomingValue(0);
  const llvm::Value *b = join.getIncomingValue(1);
  const llvm::Value *other = a == &phi ? b : b == &phi ? a : nullptr;
  if (!other)
    return false;
  // The branch that chooses ends an incoming block or the block before
  // it (the diamond's head).
  for (unsigned i = 0; i < 2; ++i) {
    const llvm::BasicBlock *from = join.getIncomingBlock(i);
    for (const llvm::BasicBlock *head : {from, from->getSinglePredecessor()}) {
      if (!head)
        continue;
      auto *branch = llvm::dyn_cast<llvm::BranchInst>(head->getTerminator());
      if (!branch || !branch->isConditional())
        continue;
      auto *test = llvm::dyn_cast<llvm::FCmpInst>(branch->getCondition());
      if (test && ((test->getOperand(0) == &phi &&
                    test->getOperand(1) == other) ||
                   (test->getOperand(1) == &phi &&
                    test->getOperand(0) == other)))
        return true;
    }
  }
  return false;
}

/// LoweringOptions::reassociateFolds: a floating-point add or multiply
/// that a phi takes back and that reads the phi (x = x + v in a loop) may
/// be reassociated; a floating min or max fold, a choice of the phi or v
/// by a compare of the two (x = v > x ? v : x), may ignore NaNs and the
/// sign of zero, which the array kernel writer makes true (its v's have
/// no NaN: ArrayKernel.cpp, worstValue); no other instruction changes.
/// The loop vectoriser folds such chains as vectors only so.
static void reassociateFolds(llvm::Function &function) {
  for (llvm::BasicBlock &block : function)
    for (llvm::PHINode &phi : block.phis()) {
      if (!phi.getType()->isFloatingPointTy())
        continue;
      for (llvm::Value *incoming : phi.incoming_values()) {
        // pyir's select lowers to a branch and a phi, which SimplifyCFG
        // makes a select with the phi's flags.
        if (auto *join = llvm::dyn_cast<llvm::PHINode>(incoming);
            join && join != &phi && minMaxJoin(*join, phi)) {
          join->setHasNoNaNs(true);
          join->setHasNoSignedZeros(true);
          continue;
        }
        auto *fold = llvm::dyn_cast<llvm::BinaryOperator>(incoming);
        if (!fold || (fold->getOpcode() != llvm::Instruction::FAdd &&
                      fold->getOpcode() != llvm::Instruction::FMul))
          continue;
        if (fold->getOperand(0) == &phi || fold->getOperand(1) == &phi)
          fold->setHasAllowReassoc(true);
      }
    }
}

std::unique_ptr<llvm::Module> lowerToLLVM(const TypedFunction &kernel,
                                          const Target &target,
                                          llvm::LLVMContext &context,
                                          const LoweringOptions &options) {
  auto module = std::make_unique<llvm::Module>(kernel.function->name, context);
  target.configureModule(*module);
  std::vector<const TypedFunction *> order;
  std::set<const TypedFunction *> seen;
  lower::collectReachable(kernel, order, seen);
  lower::Lowering::FunctionMap functions;
  std::vector<std::unique_ptr<lower::Lowering>> lowerings;
  for (const TypedFunction *typed : order) {
    lowerings.push_back(std::make_unique<lower::Lowering>(
        *typed, target, context, options, module.get(), functions));
    lowerings.back()->declare();
  }
  for (auto &lowering : lowerings)
    lowering->lowerBody();
  // The kernel's own folds only, not those of functions it calls (a
  // user's element function keeps its order).
  if (options.reassociateFolds)
    if (llvm::Function *own =
            module->getFunction(entryPointName(kernel.function->name)))
      reassociateFolds(*own);
  if (kernel.kind == FunctionKind::Host)
    lower::addHostWrapper(*module,
                          module->getFunction(entryPointName(kernel.function->name)));
  std::string problems;
  llvm::raw_string_ostream os(problems);
  SPIRJIT_INTERNAL_CHECK(!llvm::verifyModule(*module, &os),
                         "the LLVM verifier rejected the lowered module: " +
                             os.str());
  return module;
}

} // namespace spirjit
