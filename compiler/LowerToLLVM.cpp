#include "compiler/LowerToLLVM.h"

#include "compiler/KernelABI.h"
#include "compiler/MathFunctions.h"
#include "frontend/Diagnostics.h"

#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <functional>
#include <map>
#include <set>

namespace spirjit {
namespace {

using ir::BinaryOperator;
using ir::CompareOperator;
using ir::Instruction;
using ir::Opcode;

/// The LLVM form of a pyir value.
struct Lowered {
  llvm::Value *scalar = nullptr; // numbers (bool as i1); iterator: cursor
  llvm::Value *data = nullptr;   // arrays: pointer to element [0, ...]
  std::vector<llvm::Value *> shape, strides; // arrays, int64, in elements
  std::vector<Lowered> elements; // tuples; range: start, stop, step;
                                 // iterator: stop, step
};

class Lowering {
public:
  using FunctionMap = std::map<const TypedFunction *, llvm::Function *>;

  Lowering(const TypedFunction &typed, const Target &target,
           llvm::LLVMContext &context, const LoweringOptions &options,
           llvm::Module *module, FunctionMap &functions)
      : typed_(typed), target_(target), context_(context), options_(options),
        builder_(context), allocaBuilder_(context), module_(module),
        functions_(functions) {}

  /// Creates the LLVM function (the kernel ABI for parameters).
  llvm::Function *declare();
  void lowerBody();

private:
  const std::string &filename() const { return typed_.description->filename; }
  [[noreturn]] void unsupported(const Instruction &inst,
                                const std::string &what) {
    throw UserError(UserErrorKind::UnsupportedFeature, filename(), inst.line,
                    what);
  }

  llvm::Type *scalarType(const Type *t);
  llvm::Type *memoryType(const Type *t); // bool is a byte in memory
  /// Pointer to an array's elements, in the array's address space.
  llvm::PointerType *pointerType(const Type *array) {
    unsigned space = array->addressSpace == 3   ? target_.localAddressSpace()
                     : array->addressSpace == 0 ? 0
                                                : target_.globalAddressSpace();
    return llvm::PointerType::get(memoryType(array->element), space);
  }
  llvm::Value *convert(llvm::Value *v, const Type *from, const Type *to);
  llvm::Value *truth(llvm::Value *v, const Type *t);
  llvm::Value *makeComplex(llvm::Value *re, llvm::Value *im);
  llvm::Value *complexBinary(BinaryOperator op, llvm::Value *a, llvm::Value *b);
  Lowered complexMath(const std::string &name, const Instruction &inst,
                      const Type *result);
  Lowered lowerWorkItemMethod(const Instruction &inst, const Type *receiver,
                              const std::string &name);
  Lowered lowerKernelApiCall(const Instruction &inst, const std::string &name);
  Lowered lowerAtomicMethod(const Instruction &inst, const Type *atomic,
                            const std::string &name);
  /// group_reduce (op) or group_broadcast (source) over a group of `rank`
  /// dimensions.
  llvm::Value *groupCollective(int rank, llvm::Value *value, const Type *type,
                               const std::string &op, llvm::Value *source);
  llvm::Value *atomicCompareExchangeLoop(
      llvm::Value *pointer, const Type *element,
      const std::function<llvm::Value *(llvm::Value *)> &update);
  /// Row-major linear id over `ndim` dimensions, and the product of sizes.
  llvm::Value *linearQuery(WorkItemQuery id, WorkItemQuery size, int ndim);
  llvm::Value *rangeProduct(WorkItemQuery size, int ndim);
  /// The argument for parameter `i` of a kapi call (nullptr: default).
  const Instruction *callArgument(const Instruction &inst, size_t i) const {
    auto it = typed_.callArguments.find(&inst);
    if (it != typed_.callArguments.end())
      return i < it->second.size() ? it->second[i] : nullptr;
    return i + 1 < inst.operands.size() ? inst.operands[i + 1] : nullptr;
  }
  int64_t constantArgument(const Instruction *value, int64_t fallback) const {
    const ConstValue *c = constantOf(typed_, value);
    if (!c)
      return fallback;
    return c->kind == ConstValue::Kind::Bool ? c->boolValue : c->intValue;
  }
  llvm::Value *constant(const ConstValue &c, const Type *t);
  llvm::Value *scalarOf(const Instruction *inst, const Type *to) {
    return convert(values_.at(inst).scalar, inst->type, to);
  }

  void lowerEntry(llvm::Function *function);
  void lowerInstruction(const Instruction &inst);
  Lowered createPhi(const Type *t);
  void addIncoming(Lowered &phi, const Lowered &value, const Type *phiType,
                   const Type *valueType, llvm::BasicBlock *from);
  llvm::Value *lowerBinary(const Instruction &inst);
  llvm::Value *integerBinary(BinaryOperator op, llvm::Value *a, llvm::Value *b,
                             const Type *t);
  llvm::Value *floatBinary(BinaryOperator op, llvm::Value *a, llvm::Value *b);
  llvm::Value *lowerCompare(const Instruction &inst);
  Lowered lowerCall(const Instruction &inst);
  Lowered lowerGetAttr(const Instruction &inst);
  /// Element pointer of a[index...] or, with fewer indices, a view.
  Lowered index(const Lowered &array,
                const Type *arrayType, const Instruction *indexInst);
  llvm::Value *integerPower(llvm::Value *base, llvm::Value *exponent,
                            const Type *t);

  const TypedFunction &typed_;
  const Target &target_;
  llvm::LLVMContext &context_;
  LoweringOptions options_;
  llvm::IRBuilder<> builder_;
  llvm::IRBuilder<> allocaBuilder_;
  llvm::Module *module_ = nullptr;
  FunctionMap &functions_;
  llvm::Function *function_ = nullptr;
  std::map<const Instruction *, Lowered> values_;
  std::map<const ir::Block *, llvm::BasicBlock *> startBlocks_, endBlocks_;
  std::vector<Lowered> arguments_;
  llvm::Value *groupScratch_ = nullptr; // i8 addrspace(3)*, if used
};

llvm::Type *Lowering::scalarType(const Type *t) {
  t = types::materialize(t);
  switch (t->kind) {
  case TypeKind::Bool:
    return builder_.getInt1Ty();
  case TypeKind::Int:
    return builder_.getIntNTy(t->bits);
  case TypeKind::Float:
    return t->bits == 32 ? builder_.getFloatTy() : builder_.getDoubleTy();
  case TypeKind::Complex: {
    llvm::Type *part =
        t->bits == 32 ? builder_.getFloatTy() : builder_.getDoubleTy();
    return llvm::StructType::get(context_, {part, part});
  }
  default:
    SPIRJIT_INTERNAL_CHECK(false, "no scalar LLVM type for " + t->str());
  }
  return nullptr;
}

llvm::Type *Lowering::memoryType(const Type *t) {
  return t->kind == TypeKind::Bool ? builder_.getInt8Ty() : scalarType(t);
}

llvm::Value *Lowering::convert(llvm::Value *v, const Type *from,
                               const Type *to) {
  from = types::materialize(from);
  to = types::materialize(to);
  if (from == to)
    return v;
  if (to->kind == TypeKind::Bool)
    return truth(v, from);
  if (to->kind == TypeKind::Complex) {
    const Type *part = types::floating(to->bits);
    llvm::Value *re, *im;
    if (from->kind == TypeKind::Complex) {
      const Type *fromPart = types::floating(from->bits);
      re = convert(builder_.CreateExtractValue(v, 0), fromPart, part);
      im = convert(builder_.CreateExtractValue(v, 1), fromPart, part);
    } else {
      re = convert(v, from, part);
      im = llvm::ConstantFP::get(scalarType(part), 0.0);
    }
    return makeComplex(re, im);
  }
  SPIRJIT_INTERNAL_CHECK(from->kind != TypeKind::Complex,
                         "complex to " + to->str() + " reached the lowering");
  llvm::Type *target = scalarType(to);
  if (from->kind == TypeKind::Bool)
    return to->kind == TypeKind::Float ? builder_.CreateUIToFP(v, target)
                                       : builder_.CreateZExt(v, target);
  if (from->kind == TypeKind::Int) {
    if (to->kind == TypeKind::Int)
      return from->isSigned ? builder_.CreateSExtOrTrunc(v, target)
                            : builder_.CreateZExtOrTrunc(v, target);
    return from->isSigned ? builder_.CreateSIToFP(v, target)
                          : builder_.CreateUIToFP(v, target);
  }
  if (from->kind == TypeKind::Float) {
    if (to->kind == TypeKind::Float)
      return to->bits > from->bits ? builder_.CreateFPExt(v, target)
                                   : builder_.CreateFPTrunc(v, target);
    return to->isSigned ? builder_.CreateFPToSI(v, target)
                        : builder_.CreateFPToUI(v, target);
  }
  SPIRJIT_INTERNAL_CHECK(false, "no conversion from " + from->str() + " to " +
                                    to->str());
  return nullptr;
}

llvm::Value *Lowering::makeComplex(llvm::Value *re, llvm::Value *im) {
  llvm::Type *type = llvm::StructType::get(context_, {re->getType(), re->getType()});
  llvm::Value *z = llvm::UndefValue::get(type);
  z = builder_.CreateInsertValue(z, re, 0);
  return builder_.CreateInsertValue(z, im, 1);
}

llvm::Value *Lowering::truth(llvm::Value *v, const Type *t) {
  t = types::materialize(t);
  if (t->kind == TypeKind::Bool)
    return v;
  if (t->kind == TypeKind::Complex) {
    const Type *part = types::floating(t->bits);
    return builder_.CreateOr(truth(builder_.CreateExtractValue(v, 0), part),
                             truth(builder_.CreateExtractValue(v, 1), part));
  }
  if (t->kind == TypeKind::Float)
    return builder_.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0));
  return builder_.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
}

llvm::Value *Lowering::constant(const ConstValue &c, const Type *t) {
  t = types::materialize(t);
  if (t->kind == TypeKind::Complex) {
    llvm::Type *part = t->bits == 32 ? builder_.getFloatTy()
                                     : builder_.getDoubleTy();
    double re = c.kind == ConstValue::Kind::Complex ? c.floatValue
                : c.kind == ConstValue::Kind::Float ? c.floatValue
                : c.kind == ConstValue::Kind::Bool
                    ? static_cast<double>(c.boolValue)
                    : static_cast<double>(c.intValue);
    double im = c.kind == ConstValue::Kind::Complex ? c.imagValue : 0.0;
    return llvm::ConstantStruct::getAnon(
        {llvm::ConstantFP::get(part, re), llvm::ConstantFP::get(part, im)});
  }
  llvm::Type *type = scalarType(t);
  double asDouble = c.kind == ConstValue::Kind::Float ? c.floatValue
                    : c.kind == ConstValue::Kind::Bool
                        ? static_cast<double>(c.boolValue)
                        : static_cast<double>(c.intValue);
  int64_t asInt = c.kind == ConstValue::Kind::Int    ? c.intValue
                  : c.kind == ConstValue::Kind::Bool ? c.boolValue
                                                     : static_cast<int64_t>(
                                                           c.floatValue);
  if (t->kind == TypeKind::Float)
    return llvm::ConstantFP::get(type, asDouble);
  if (t->kind == TypeKind::Bool)
    return builder_.getInt1(c.kind == ConstValue::Kind::Float
                                ? c.floatValue != 0
                                : asInt != 0);
  if (t->kind == TypeKind::Int)
    return llvm::ConstantInt::get(type, static_cast<uint64_t>(asInt),
                                  t->isSigned);
  SPIRJIT_INTERNAL_CHECK(false, "constant of type " + t->str());
  return nullptr;
}

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

void Lowering::lowerEntry(llvm::Function *function) {
  // Rebuild each argument from its parameters (KernelABI.h).
  const auto &types = typed_.argumentTypes;
  arguments_.assign(types.size(), Lowered{});
  auto arg = function->arg_begin();
  for (const KernelParameter &p :
       kernelParameters(types, typed_.usesGroupScratch)) {
    llvm::Value *v = &*arg++;
    if (p.kind == KernelParameter::Kind::GroupScratch) {
      v->setName("group.scratch");
      groupScratch_ = v;
      continue;
    }
    Lowered &value = arguments_[p.argument];
    const Type *t = types[p.argument];
    const std::string &name = typed_.function->parameterNames[p.argument];
    switch (p.kind) {
    case KernelParameter::Kind::GroupScratch:
      break;
    case KernelParameter::Kind::ArrayData:
    case KernelParameter::Kind::LocalData:
      v->setName(name);
      value.data = v;
      break;
    case KernelParameter::Kind::ArrayShape:
      v->setName(name + ".shape" + std::to_string(p.dim));
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
  // Contiguous layouts: strides follow from the shape, so LLVM sees the
  // unit stride and the device compiler can vectorise.
  for (size_t i = 0; i < types.size(); ++i) {
    const Type *t = types[i];
    if (t->kind != TypeKind::Array || t->layout == 'A')
      continue;
    Lowered &value = arguments_[i];
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
  }
}

llvm::Value *Lowering::integerPower(llvm::Value *base, llvm::Value *exponent,
                                    const Type *t) {
  // Exponentiation by squaring in a helper function per integer width;
  // a negative exponent gives 0 (NumPy raises, a kernel cannot).
  llvm::Type *type = base->getType();
  std::string name = "spirjit.ipow." + t->str();
  llvm::Function *helper = module_->getFunction(name);
  if (!helper) {
    auto *fnType = llvm::FunctionType::get(type, {type, type}, false);
    helper = llvm::Function::Create(fnType, llvm::Function::InternalLinkage,
                                    name, module_);
    helper->setCallingConv(target_.functionCallingConvention());
    llvm::IRBuilder<> b(context_);
    auto *entry = llvm::BasicBlock::Create(context_, "entry", helper);
    auto *loop = llvm::BasicBlock::Create(context_, "loop", helper);
    auto *done = llvm::BasicBlock::Create(context_, "done", helper);
    llvm::Value *x = helper->getArg(0), *n = helper->getArg(1);
    b.SetInsertPoint(entry);
    llvm::Value *zero = llvm::ConstantInt::get(type, 0);
    llvm::Value *one = llvm::ConstantInt::get(type, 1);
    llvm::Value *negative =
        t->isSigned ? b.CreateICmpSLT(n, zero) : b.getFalse();
    llvm::Value *early = b.CreateSelect(negative, zero, one);
    b.CreateCondBr(b.CreateOr(negative, b.CreateICmpEQ(n, zero)), done, loop);
    b.SetInsertPoint(loop);
    auto *result = b.CreatePHI(type, 2);
    auto *power = b.CreatePHI(type, 2);
    auto *exp = b.CreatePHI(type, 2);
    llvm::Value *odd = b.CreateICmpNE(b.CreateAnd(exp, one), zero);
    llvm::Value *nextResult =
        b.CreateSelect(odd, b.CreateMul(result, power), result);
    llvm::Value *nextExp = b.CreateLShr(exp, one);
    llvm::Value *nextPower = b.CreateMul(power, power);
    result->addIncoming(one, entry);
    power->addIncoming(x, entry);
    exp->addIncoming(n, entry);
    result->addIncoming(nextResult, loop);
    power->addIncoming(nextPower, loop);
    exp->addIncoming(nextExp, loop);
    b.CreateCondBr(b.CreateICmpEQ(nextExp, zero), done, loop);
    b.SetInsertPoint(done);
    auto *out = b.CreatePHI(type, 2);
    out->addIncoming(early, entry);
    out->addIncoming(nextResult, loop);
    b.CreateRet(out);
  }
  llvm::CallInst *call = builder_.CreateCall(helper, {base, exponent});
  call->setCallingConv(target_.functionCallingConvention());
  return call;
}

llvm::Value *Lowering::integerBinary(BinaryOperator op, llvm::Value *a,
                                     llvm::Value *b, const Type *t) {
  llvm::Type *type = a->getType();
  bool isSigned = t->isSigned;
  llvm::Value *zero = llvm::ConstantInt::get(type, 0);
  llvm::Value *one = llvm::ConstantInt::get(type, 1);
  switch (op) {
  case BinaryOperator::Add:
    return builder_.CreateAdd(a, b);
  case BinaryOperator::Sub:
    return builder_.CreateSub(a, b);
  case BinaryOperator::Mul:
    return builder_.CreateMul(a, b);
  case BinaryOperator::BitAnd:
    return builder_.CreateAnd(a, b);
  case BinaryOperator::BitOr:
    return builder_.CreateOr(a, b);
  case BinaryOperator::BitXor:
    return builder_.CreateXor(a, b);
  case BinaryOperator::LShift:
  case BinaryOperator::RShift: {
    // Shifting by the width or more gives 0 (or -1 for a negative value
    // shifted right), never LLVM's poison.
    unsigned bits = type->getIntegerBitWidth();
    llvm::Value *tooFar =
        isSigned ? builder_.CreateOr(
                       builder_.CreateICmpSLT(b, zero),
                       builder_.CreateICmpSGE(b, llvm::ConstantInt::get(type, bits)))
                 : builder_.CreateICmpUGE(b, llvm::ConstantInt::get(type, bits));
    llvm::Value *safe = builder_.CreateSelect(tooFar, zero, b);
    if (op == BinaryOperator::LShift)
      return builder_.CreateSelect(tooFar, zero, builder_.CreateShl(a, safe));
    llvm::Value *shifted = isSigned ? builder_.CreateAShr(a, safe)
                                    : builder_.CreateLShr(a, safe);
    llvm::Value *saturated =
        isSigned ? builder_.CreateAShr(
                       a, llvm::ConstantInt::get(type, bits - 1))
                 : zero;
    return builder_.CreateSelect(tooFar, saturated, shifted);
  }
  case BinaryOperator::FloorDiv:
  case BinaryOperator::Mod: {
    // Python semantics: the quotient rounds toward negative infinity and
    // the remainder has the divisor's sign. x // 0 and x % 0 give 0, and
    // INT_MIN // -1 wraps: nothing traps.
    llvm::Value *isZero = builder_.CreateICmpEQ(b, zero);
    if (!isSigned) {
      llvm::Value *safe = builder_.CreateSelect(isZero, one, b);
      llvm::Value *r = op == BinaryOperator::FloorDiv
                           ? builder_.CreateUDiv(a, safe)
                           : builder_.CreateURem(a, safe);
      return builder_.CreateSelect(isZero, zero, r);
    }
    llvm::Value *minusOne = llvm::ConstantInt::get(type, -1, true);
    llvm::Value *isMinusOne = builder_.CreateICmpEQ(b, minusOne);
    llvm::Value *safe =
        builder_.CreateSelect(builder_.CreateOr(isZero, isMinusOne), one, b);
    llvm::Value *q = builder_.CreateSDiv(a, safe);
    llvm::Value *r = builder_.CreateSRem(a, safe);
    // Truncated -> floored: adjust when the remainder and divisor differ
    // in sign.
    llvm::Value *adjust = builder_.CreateAnd(
        builder_.CreateICmpNE(r, zero),
        builder_.CreateICmpSLT(builder_.CreateXor(r, safe), zero));
    if (op == BinaryOperator::FloorDiv) {
      llvm::Value *floored =
          builder_.CreateSelect(adjust, builder_.CreateSub(q, one), q);
      floored = builder_.CreateSelect(isMinusOne, builder_.CreateNeg(a),
                                      floored);
      return builder_.CreateSelect(isZero, zero, floored);
    }
    llvm::Value *floored =
        builder_.CreateSelect(adjust, builder_.CreateAdd(r, safe), r);
    return builder_.CreateSelect(builder_.CreateOr(isZero, isMinusOne), zero,
                                 floored);
  }
  case BinaryOperator::Pow:
    return integerPower(a, b, t);
  default:
    SPIRJIT_INTERNAL_CHECK(false, "integer operator not lowered");
  }
  return nullptr;
}

llvm::Value *Lowering::floatBinary(BinaryOperator op, llvm::Value *a,
                                   llvm::Value *b) {
  switch (op) {
  case BinaryOperator::Add:
    return builder_.CreateFAdd(a, b);
  case BinaryOperator::Sub:
    return builder_.CreateFSub(a, b);
  case BinaryOperator::Mul:
    return builder_.CreateFMul(a, b);
  case BinaryOperator::TrueDiv:
    return builder_.CreateFDiv(a, b);
  case BinaryOperator::Pow:
    return target_.emitMathCall(builder_, "pow", {a, b});
  case BinaryOperator::Mod:
  case BinaryOperator::FloorDiv: {
    // CPython's float_divmod: exact remainder from fmod, then corrected to
    // carry the divisor's sign.
    llvm::Type *type = a->getType();
    llvm::Value *zero = llvm::ConstantFP::get(type, 0.0);
    llvm::Value *mod = target_.emitMathCall(builder_, "fmod", {a, b});
    llvm::Value *modNonZero = builder_.CreateFCmpUNE(mod, zero);
    llvm::Value *signsDiffer = builder_.CreateXor(
        builder_.CreateFCmpOLT(b, zero), builder_.CreateFCmpOLT(mod, zero));
    llvm::Value *fix = builder_.CreateAnd(modNonZero, signsDiffer);
    llvm::Value *fixedMod =
        builder_.CreateSelect(fix, builder_.CreateFAdd(mod, b), mod);
    if (op == BinaryOperator::Mod) {
      llvm::Value *signedZero =
          target_.emitMathCall(builder_, "copysign", {zero, b});
      return builder_.CreateSelect(modNonZero, fixedMod, signedZero);
    }
    llvm::Value *div = builder_.CreateFDiv(builder_.CreateFSub(a, mod), b);
    div = builder_.CreateSelect(
        fix, builder_.CreateFSub(div, llvm::ConstantFP::get(type, 1.0)), div);
    llvm::Value *floorDiv = target_.emitMathCall(builder_, "floor", {div});
    llvm::Value *roundUp = builder_.CreateFCmpOGT(
        builder_.CreateFSub(div, floorDiv), llvm::ConstantFP::get(type, 0.5));
    floorDiv = builder_.CreateSelect(
        roundUp, builder_.CreateFAdd(floorDiv, llvm::ConstantFP::get(type, 1.0)),
        floorDiv);
    llvm::Value *divZero = builder_.CreateFCmpOEQ(div, zero);
    llvm::Value *signedZero = target_.emitMathCall(
        builder_, "copysign", {zero, builder_.CreateFDiv(a, b)});
    return builder_.CreateSelect(divZero, signedZero, floorDiv);
  }
  default:
    SPIRJIT_INTERNAL_CHECK(false, "float operator not lowered");
  }
  return nullptr;
}

llvm::Value *Lowering::complexBinary(BinaryOperator op, llvm::Value *a,
                                     llvm::Value *b) {
  llvm::Value *ar = builder_.CreateExtractValue(a, 0);
  llvm::Value *ai = builder_.CreateExtractValue(a, 1);
  llvm::Value *br = builder_.CreateExtractValue(b, 0);
  llvm::Value *bi = builder_.CreateExtractValue(b, 1);
  switch (op) {
  case BinaryOperator::Add:
    return makeComplex(builder_.CreateFAdd(ar, br), builder_.CreateFAdd(ai, bi));
  case BinaryOperator::Sub:
    return makeComplex(builder_.CreateFSub(ar, br), builder_.CreateFSub(ai, bi));
  case BinaryOperator::Mul:
    return makeComplex(
        builder_.CreateFSub(builder_.CreateFMul(ar, br),
                            builder_.CreateFMul(ai, bi)),
        builder_.CreateFAdd(builder_.CreateFMul(ar, bi),
                            builder_.CreateFMul(ai, br)));
  case BinaryOperator::TrueDiv: {
    // Smith's algorithm, as NumPy: no overflow from squaring the divisor.
    llvm::Value *absBr = target_.emitMathCall(builder_, "fabs", {br});
    llvm::Value *absBi = target_.emitMathCall(builder_, "fabs", {bi});
    llvm::Value *realBigger = builder_.CreateFCmpOGE(absBr, absBi);
    // |br| >= |bi|: r = bi/br, d = br + bi*r
    llvm::Value *r1 = builder_.CreateFDiv(bi, br);
    llvm::Value *d1 = builder_.CreateFAdd(br, builder_.CreateFMul(bi, r1));
    llvm::Value *re1 = builder_.CreateFDiv(
        builder_.CreateFAdd(ar, builder_.CreateFMul(ai, r1)), d1);
    llvm::Value *im1 = builder_.CreateFDiv(
        builder_.CreateFSub(ai, builder_.CreateFMul(ar, r1)), d1);
    // otherwise: r = br/bi, d = bi + br*r
    llvm::Value *r2 = builder_.CreateFDiv(br, bi);
    llvm::Value *d2 = builder_.CreateFAdd(bi, builder_.CreateFMul(br, r2));
    llvm::Value *re2 = builder_.CreateFDiv(
        builder_.CreateFAdd(builder_.CreateFMul(ar, r2), ai), d2);
    llvm::Value *im2 = builder_.CreateFDiv(
        builder_.CreateFSub(builder_.CreateFMul(ai, r2), ar), d2);
    return makeComplex(builder_.CreateSelect(realBigger, re1, re2),
                       builder_.CreateSelect(realBigger, im1, im2));
  }
  case BinaryOperator::Pow: {
    // a ** b = exp(b * log(a)); 0 ** b is 0 for b != 0, as in Python.
    llvm::Value *modulus = target_.emitMathCall(builder_, "hypot", {ar, ai});
    llvm::Value *angle = target_.emitMathCall(builder_, "atan2", {ai, ar});
    llvm::Value *logRe = target_.emitMathCall(builder_, "log", {modulus});
    llvm::Value *re = builder_.CreateFSub(builder_.CreateFMul(br, logRe),
                                          builder_.CreateFMul(bi, angle));
    llvm::Value *im = builder_.CreateFAdd(builder_.CreateFMul(br, angle),
                                          builder_.CreateFMul(bi, logRe));
    llvm::Value *scale = target_.emitMathCall(builder_, "exp", {re});
    llvm::Value *outRe = builder_.CreateFMul(
        scale, target_.emitMathCall(builder_, "cos", {im}));
    llvm::Value *outIm = builder_.CreateFMul(
        scale, target_.emitMathCall(builder_, "sin", {im}));
    llvm::Value *zero = llvm::ConstantFP::get(ar->getType(), 0.0);
    llvm::Value *baseZero = builder_.CreateAnd(builder_.CreateFCmpOEQ(ar, zero),
                                               builder_.CreateFCmpOEQ(ai, zero));
    llvm::Value *expZero = builder_.CreateAnd(builder_.CreateFCmpOEQ(br, zero),
                                              builder_.CreateFCmpOEQ(bi, zero));
    llvm::Value *one = llvm::ConstantFP::get(ar->getType(), 1.0);
    outRe = builder_.CreateSelect(baseZero, zero, outRe);
    outIm = builder_.CreateSelect(baseZero, zero, outIm);
    outRe = builder_.CreateSelect(expZero, one, outRe);
    outIm = builder_.CreateSelect(expZero, zero, outIm);
    return makeComplex(outRe, outIm);
  }
  default:
    SPIRJIT_INTERNAL_CHECK(false, "complex operator not lowered");
  }
  return nullptr;
}

llvm::Value *Lowering::lowerBinary(const Instruction &inst) {
  auto op = static_cast<BinaryOperator>(inst.index);
  const Type *result = types::materialize(inst.type);
  // The operation runs in the result type; on bools it is logical.
  if (result->kind == TypeKind::Bool) {
    llvm::Value *x = scalarOf(inst.operands[0], result);
    llvm::Value *y = scalarOf(inst.operands[1], result);
    switch (op) {
    case BinaryOperator::BitAnd:
    case BinaryOperator::Mul: // NumPy: logical and
      return builder_.CreateAnd(x, y);
    case BinaryOperator::BitOr:
    case BinaryOperator::Add: // NumPy: logical or
      return builder_.CreateOr(x, y);
    default:
      return builder_.CreateXor(x, y);
    }
  }
  llvm::Value *x = scalarOf(inst.operands[0], result);
  llvm::Value *y = scalarOf(inst.operands[1], result);
  if (result->kind == TypeKind::Complex)
    return complexBinary(op, x, y);
  if (result->kind == TypeKind::Float)
    return floatBinary(op, x, y);
  return integerBinary(op, x, y, result);
}

llvm::Value *Lowering::lowerCompare(const Instruction &inst) {
  auto op = static_cast<CompareOperator>(inst.index);
  const Type *a = inst.operands[0]->type, *b = inst.operands[1]->type;
  const Type *common = types::materialize(types::promote(a, b));
  // NEP 50 compares a Python int with a typed integer by value: uint8 x >
  // -1 is true. Below 64 bits int64 holds both sides exactly.
  if (common->kind == TypeKind::Int && common->bits < 64 &&
      (a->kind == TypeKind::WeakInt || b->kind == TypeKind::WeakInt))
    common = types::int64();
  llvm::Value *x = scalarOf(inst.operands[0], common);
  llvm::Value *y = scalarOf(inst.operands[1], common);
  if (common->kind == TypeKind::Complex) {
    llvm::Value *same = builder_.CreateAnd(
        builder_.CreateFCmpOEQ(builder_.CreateExtractValue(x, 0),
                               builder_.CreateExtractValue(y, 0)),
        builder_.CreateFCmpOEQ(builder_.CreateExtractValue(x, 1),
                               builder_.CreateExtractValue(y, 1)));
    return op == CompareOperator::Eq ? same : builder_.CreateNot(same);
  }
  if (common->kind == TypeKind::Float) {
    switch (op) {
    case CompareOperator::Lt:
      return builder_.CreateFCmpOLT(x, y);
    case CompareOperator::Le:
      return builder_.CreateFCmpOLE(x, y);
    case CompareOperator::Eq:
      return builder_.CreateFCmpOEQ(x, y);
    case CompareOperator::Ne:
      return builder_.CreateFCmpUNE(x, y);
    case CompareOperator::Gt:
      return builder_.CreateFCmpOGT(x, y);
    case CompareOperator::Ge:
      return builder_.CreateFCmpOGE(x, y);
    default:
      break;
    }
  } else {
    bool s = common->kind == TypeKind::Int && common->isSigned;
    switch (op) {
    case CompareOperator::Lt:
      return s ? builder_.CreateICmpSLT(x, y) : builder_.CreateICmpULT(x, y);
    case CompareOperator::Le:
      return s ? builder_.CreateICmpSLE(x, y) : builder_.CreateICmpULE(x, y);
    case CompareOperator::Eq:
      return builder_.CreateICmpEQ(x, y);
    case CompareOperator::Ne:
      return builder_.CreateICmpNE(x, y);
    case CompareOperator::Gt:
      return s ? builder_.CreateICmpSGT(x, y) : builder_.CreateICmpUGT(x, y);
    case CompareOperator::Ge:
      return s ? builder_.CreateICmpSGE(x, y) : builder_.CreateICmpUGE(x, y);
    default:
      break;
    }
  }
  SPIRJIT_INTERNAL_CHECK(false, "comparison not lowered");
  return nullptr;
}

Lowered Lowering::index(const Lowered &array,
                        const Type *arrayType, const Instruction *indexInst) {
  std::vector<llvm::Value *> indices;
  std::vector<const Type *> indexTypes;
  const Lowered &idx = values_.at(indexInst);
  if (indexInst->type->kind == TypeKind::Tuple) {
    for (size_t i = 0; i < idx.elements.size(); ++i) {
      indices.push_back(idx.elements[i].scalar);
      indexTypes.push_back(indexInst->type->elements[i]);
    }
  } else {
    indices.push_back(idx.scalar);
    indexTypes.push_back(indexInst->type);
  }
  llvm::Value *offset = builder_.getInt64(0);
  for (size_t d = 0; d < indices.size(); ++d) {
    llvm::Value *i = convert(indices[d], indexTypes[d], types::int64());
    // NumPy wrap-around: a negative index counts from the end.
    llvm::Value *wrapped = builder_.CreateSelect(
        builder_.CreateICmpSLT(i, builder_.getInt64(0)),
        builder_.CreateAdd(i, array.shape[d]), i);
    offset = builder_.CreateAdd(offset,
                                builder_.CreateMul(wrapped, array.strides[d]));
  }
  llvm::Type *element = memoryType(arrayType->element);
  Lowered result;
  result.data = builder_.CreateInBoundsGEP(element, array.data, offset);
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
      llvm::Value *z = convert(value.scalar, object, types::materialize(object));
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
    } else if (inst.name == "size") {
      llvm::Value *size = builder_.getInt64(1);
      for (llvm::Value *extent : value.shape)
        size = builder_.CreateMul(size, extent);
      result.scalar = size;
    }
  }
  return result; // modules, functions, methods: compile-time only
}

Lowered Lowering::complexMath(const std::string &name, const Instruction &inst,
                              const Type *result) {
  const Instruction *operand = inst.operands[1];
  const Type *in = types::materialize(operand->type);
  const Type *complexType = result->kind == TypeKind::Complex ? result
                            : in->kind == TypeKind::Complex  ? in
                            : in->kind == TypeKind::Float
                                ? types::complex(in->bits)
                                : types::complex(64);
  if (name == "rect") { // r * (cos(phi) + i sin(phi))
    const Type *part = types::floating(result->bits);
    llvm::Value *r = scalarOf(inst.operands[1], part);
    llvm::Value *phi = scalarOf(inst.operands[2], part);
    return {makeComplex(
        builder_.CreateFMul(r, target_.emitMathCall(builder_, "cos", {phi})),
        builder_.CreateFMul(r, target_.emitMathCall(builder_, "sin", {phi})))};
  }
  llvm::Value *z = scalarOf(operand, complexType);
  llvm::Value *re = builder_.CreateExtractValue(z, 0);
  llvm::Value *im = builder_.CreateExtractValue(z, 1);
  if (name == "phase")
    return {target_.emitMathCall(builder_, "atan2", {im, re})};
  if (name == "isnan")
    return {builder_.CreateOr(builder_.CreateFCmpUNO(re, re),
                              builder_.CreateFCmpUNO(im, im))};
  if (name == "isinf" || name == "isfinite") {
    llvm::Value *inf = llvm::ConstantFP::getInfinity(re->getType());
    llvm::Value *reInf = builder_.CreateFCmpOEQ(
        target_.emitMathCall(builder_, "fabs", {re}), inf);
    llvm::Value *imInf = builder_.CreateFCmpOEQ(
        target_.emitMathCall(builder_, "fabs", {im}), inf);
    if (name == "isinf")
      return {builder_.CreateOr(reInf, imInf)};
    llvm::Value *finite = builder_.CreateAnd(
        builder_.CreateFCmpOLT(target_.emitMathCall(builder_, "fabs", {re}), inf),
        builder_.CreateFCmpOLT(target_.emitMathCall(builder_, "fabs", {im}), inf));
    return {finite};
  }
  if (name == "exp") { // e^re (cos im + i sin im)
    llvm::Value *scale = target_.emitMathCall(builder_, "exp", {re});
    return {makeComplex(
        builder_.CreateFMul(scale, target_.emitMathCall(builder_, "cos", {im})),
        builder_.CreateFMul(scale, target_.emitMathCall(builder_, "sin", {im})))};
  }
  if (name == "log")
    return {makeComplex(
        target_.emitMathCall(builder_, "log",
                             {target_.emitMathCall(builder_, "hypot", {re, im})}),
        target_.emitMathCall(builder_, "atan2", {im, re}))};
  // sqrt: the principal root, as cmath.
  llvm::Value *half = llvm::ConstantFP::get(re->getType(), 0.5);
  llvm::Value *modulus = target_.emitMathCall(builder_, "hypot", {re, im});
  llvm::Value *outRe = target_.emitMathCall(
      builder_, "sqrt", {builder_.CreateFMul(builder_.CreateFAdd(modulus, re), half)});
  llvm::Value *outIm = target_.emitMathCall(
      builder_, "sqrt", {builder_.CreateFMul(builder_.CreateFSub(modulus, re), half)});
  outIm = target_.emitMathCall(builder_, "copysign", {outIm, im});
  return {makeComplex(outRe, outIm)};
}


llvm::Value *Lowering::linearQuery(WorkItemQuery id, WorkItemQuery size,
                                   int ndim) {
  // Row-major, dimension 0 slowest: OpenCL's dimension 0 is our last, so
  // it is the fastest-varying term.
  llvm::Value *linear =
      target_.emitWorkItemQuery(builder_, id, builder_.getInt32(0));
  llvm::Value *scale = builder_.getInt64(1);
  for (int d = 1; d < ndim; ++d) {
    scale = builder_.CreateMul(
        scale, target_.emitWorkItemQuery(builder_, size,
                                         builder_.getInt32(d - 1)));
    linear = builder_.CreateAdd(
        linear, builder_.CreateMul(target_.emitWorkItemQuery(
                                       builder_, id, builder_.getInt32(d)),
                                   scale));
  }
  return linear;
}

llvm::Value *Lowering::rangeProduct(WorkItemQuery size, int ndim) {
  llvm::Value *product = builder_.getInt64(1);
  for (int d = 0; d < ndim; ++d)
    product = builder_.CreateMul(
        product, target_.emitWorkItemQuery(builder_, size, builder_.getInt32(d)));
  return product;
}

Lowered Lowering::lowerWorkItemMethod(const Instruction &inst,
                                      const Type *receiver,
                                      const std::string &name) {
  int ndim = receiver->ndim;
  auto openclDim = [&](llvm::Value *d) {
    return builder_.CreateTrunc(
        builder_.CreateSub(builder_.getInt64(ndim - 1), d),
        builder_.getInt32Ty());
  };
  auto perDimension = [&](WorkItemQuery q) -> Lowered {
    llvm::Value *d = scalarOf(inst.operands[1], types::int64());
    return {target_.emitWorkItemQuery(builder_, q, openclDim(d))};
  };
  auto linear = [&](WorkItemQuery id, WorkItemQuery size) -> Lowered {
    return {linearQuery(id, size, ndim)};
  };
  auto total = [&](WorkItemQuery size) -> Lowered {
    return {rangeProduct(size, ndim)};
  };
  if (name == "get_global_id")
    return perDimension(WorkItemQuery::GlobalId);
  if (name == "get_local_id")
    return perDimension(WorkItemQuery::LocalId);
  if (name == "get_global_range")
    return perDimension(WorkItemQuery::GlobalSize);
  if (name == "get_local_range")
    return perDimension(WorkItemQuery::LocalSize);
  if (name == "get_group_id")
    return perDimension(WorkItemQuery::GroupId);
  if (name == "get_group_range")
    return perDimension(WorkItemQuery::NumGroups);
  if (name == "get_global_linear_id")
    return linear(WorkItemQuery::GlobalId, WorkItemQuery::GlobalSize);
  if (name == "get_local_linear_id")
    return linear(WorkItemQuery::LocalId, WorkItemQuery::LocalSize);
  if (name == "get_group_linear_id")
    return linear(WorkItemQuery::GroupId, WorkItemQuery::NumGroups);
  if (name == "get_global_linear_range")
    return total(WorkItemQuery::GlobalSize);
  if (name == "get_local_linear_range")
    return total(WorkItemQuery::LocalSize);
  if (name == "get_group_linear_range")
    return total(WorkItemQuery::NumGroups);
  return {}; // get_group: compile-time only
}

llvm::Value *Lowering::groupCollective(int rank, llvm::Value *value,
                                       const Type *type,
                                       const std::string &op,
                                       llvm::Value *source) {
  // Built from the hidden local scratch and barriers, so it works on any
  // device: every work-item stores its value, a tree combines them.
  SPIRJIT_INTERNAL_CHECK(groupScratch_, "group collective without scratch");
  llvm::Type *element = memoryType(type);
  llvm::Value *slots = builder_.CreateBitCast(
      groupScratch_,
      llvm::PointerType::get(element, target_.localAddressSpace()));
  llvm::Value *me =
      linearQuery(WorkItemQuery::LocalId, WorkItemQuery::LocalSize, rank);
  llvm::Value *stored = type->kind == TypeKind::Bool
                            ? builder_.CreateZExt(value, element)
                            : value;
  if (op == "broadcast") {
    llvm::BasicBlock *write = llvm::BasicBlock::Create(context_, "bcast.write",
                                                       function_);
    llvm::BasicBlock *join = llvm::BasicBlock::Create(context_, "bcast.join",
                                                      function_);
    builder_.CreateCondBr(builder_.CreateICmpEQ(me, source), write, join);
    builder_.SetInsertPoint(write);
    builder_.CreateStore(stored, slots);
    builder_.CreateBr(join);
    builder_.SetInsertPoint(join);
    target_.emitBarrier(builder_);
    llvm::Value *result = builder_.CreateLoad(element, slots);
    target_.emitBarrier(builder_);
    return type->kind == TypeKind::Bool
               ? builder_.CreateICmpNE(result, llvm::ConstantInt::get(element, 0))
               : result;
  }
  llvm::Value *size = rangeProduct(WorkItemQuery::LocalSize, rank);
  builder_.CreateStore(stored, builder_.CreateInBoundsGEP(element, slots, me));
  target_.emitBarrier(builder_);
  // Halve the active range each step: slot i combines slot i + half while
  // i + half < n; every work-item reaches every barrier.
  llvm::BasicBlock *before = builder_.GetInsertBlock();
  llvm::BasicBlock *loop = llvm::BasicBlock::Create(context_, "reduce.loop",
                                                    function_);
  llvm::BasicBlock *combine =
      llvm::BasicBlock::Create(context_, "reduce.combine", function_);
  llvm::BasicBlock *next = llvm::BasicBlock::Create(context_, "reduce.next",
                                                    function_);
  llvm::BasicBlock *done = llvm::BasicBlock::Create(context_, "reduce.done",
                                                    function_);
  builder_.CreateBr(loop);
  builder_.SetInsertPoint(loop);
  llvm::PHINode *active = builder_.CreatePHI(builder_.getInt64Ty(), 2);
  active->addIncoming(size, before);
  llvm::Value *half = builder_.CreateLShr(
      builder_.CreateAdd(active, builder_.getInt64(1)), builder_.getInt64(1));
  llvm::Value *partner = builder_.CreateAdd(me, half);
  llvm::Value *works = builder_.CreateAnd(
      builder_.CreateICmpULT(me, half),
      builder_.CreateICmpULT(partner, active));
  builder_.CreateCondBr(works, combine, next);
  builder_.SetInsertPoint(combine);
  llvm::Value *mine = builder_.CreateLoad(
      element, builder_.CreateInBoundsGEP(element, slots, me));
  llvm::Value *theirs = builder_.CreateLoad(
      element, builder_.CreateInBoundsGEP(element, slots, partner));
  llvm::Value *combined;
  bool isFloat = type->kind == TypeKind::Float;
  bool isSigned = type->kind == TypeKind::Int && type->isSigned;
  if (op == "operator.add")
    combined = isFloat ? builder_.CreateFAdd(mine, theirs)
                       : builder_.CreateAdd(mine, theirs);
  else if (op == "operator.mul")
    combined = isFloat ? builder_.CreateFMul(mine, theirs)
                       : builder_.CreateMul(mine, theirs);
  else {
    bool min = op == "min";
    llvm::Value *better =
        isFloat ? (min ? builder_.CreateFCmpOLT(theirs, mine)
                       : builder_.CreateFCmpOGT(theirs, mine))
        : isSigned ? (min ? builder_.CreateICmpSLT(theirs, mine)
                          : builder_.CreateICmpSGT(theirs, mine))
                   : (min ? builder_.CreateICmpULT(theirs, mine)
                          : builder_.CreateICmpUGT(theirs, mine));
    combined = builder_.CreateSelect(better, theirs, mine);
  }
  builder_.CreateStore(combined,
                       builder_.CreateInBoundsGEP(element, slots, me));
  builder_.CreateBr(next);
  builder_.SetInsertPoint(next);
  target_.emitBarrier(builder_);
  active->addIncoming(half, next);
  builder_.CreateCondBr(builder_.CreateICmpUGT(half, builder_.getInt64(1)),
                        loop, done);
  builder_.SetInsertPoint(done);
  llvm::Value *result = builder_.CreateLoad(element, slots);
  target_.emitBarrier(builder_); // the scratch may be reused right after
  return result;
}

llvm::Value *Lowering::atomicCompareExchangeLoop(
    llvm::Value *pointer, const Type *element,
    const std::function<llvm::Value *(llvm::Value *)> &update) {
  // For float atomics without native support: compare-and-swap the bits.
  llvm::Type *floatType = scalarType(element);
  llvm::Type *bitsType = builder_.getIntNTy(element->bits);
  unsigned space = pointer->getType()->getPointerAddressSpace();
  llvm::Value *bitsPointer = builder_.CreateBitCast(
      pointer, llvm::PointerType::get(bitsType, space));
  llvm::BasicBlock *before = builder_.GetInsertBlock();
  llvm::Value *initial = builder_.CreateLoad(bitsType, bitsPointer);
  llvm::BasicBlock *loop = llvm::BasicBlock::Create(context_, "cas.loop",
                                                    function_);
  llvm::BasicBlock *done = llvm::BasicBlock::Create(context_, "cas.done",
                                                    function_);
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

Lowered Lowering::lowerKernelApiCall(const Instruction &inst,
                                     const std::string &name) {
  std::string fn = name.substr(name.rfind('.') + 1);
  if (fn == "group_barrier") {
    target_.emitBarrier(builder_);
    return {};
  }
  if (fn == "atomic_fence") {
    target_.emitMemoryFence(builder_);
    return {};
  }
  if (fn == "group_reduce" || fn == "group_broadcast") {
    int rank = callArgument(inst, 0)->type->ndim; // the group's
    const Instruction *valueInst = callArgument(inst, 1);
    const Type *type = types::materialize(valueInst->type);
    llvm::Value *value = scalarOf(valueInst, type);
    if (fn == "group_broadcast") {
      const Instruction *source = callArgument(inst, 2);
      llvm::Value *from = source ? scalarOf(source, types::int64())
                                 : builder_.getInt64(0);
      return {groupCollective(rank, value, type, "broadcast", from)};
    }
    std::string op = callArgument(inst, 2)->type->name;
    if (op == "op:+")
      op = "operator.add";
    else if (op == "op:*")
      op = "operator.mul";
    else if (op.compare(0, 3, "op:") == 0)
      op = op.substr(3); // min, max
    return {groupCollective(rank, value, type, op, nullptr)};
  }
  if (fn == "PrivateArray") {
    // A fixed-size array in the entry block: private to each work-item.
    const Type *t = inst.type;
    std::vector<int64_t> shape;
    const Instruction *shapeInst = callArgument(inst, 0);
    if (shapeInst->type->kind == TypeKind::Tuple)
      for (const Instruction *e : shapeInst->operands)
        shape.push_back(constantArgument(e, 1));
    else
      shape.push_back(constantArgument(shapeInst, 1));
    int64_t count = 1;
    for (int64_t extent : shape)
      count *= extent;
    llvm::Type *element = memoryType(t->element);
    llvm::BasicBlock &entry = function_->getEntryBlock();
    allocaBuilder_.SetInsertPoint(&entry, entry.getFirstInsertionPt());
    llvm::Type *storageType =
        llvm::ArrayType::get(element, static_cast<uint64_t>(count));
    llvm::Value *storage = allocaBuilder_.CreateAlloca(storageType);
    Lowered array;
    array.data =
        builder_.CreateConstInBoundsGEP2_64(storageType, storage, 0, 0);
    llvm::Value *stride = builder_.getInt64(1);
    array.strides.assign(shape.size(), nullptr);
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      array.strides[d] = stride;
      stride = builder_.CreateMul(stride, builder_.getInt64(shape[d]));
    }
    for (int64_t extent : shape)
      array.shape.push_back(builder_.getInt64(extent));
    if (constantArgument(callArgument(inst, 2), 0)) {
      // fill_zeros: a loop, which LLVM turns into whatever suits.
      llvm::BasicBlock *before = builder_.GetInsertBlock();
      llvm::BasicBlock *loop = llvm::BasicBlock::Create(context_, "zero.loop",
                                                        function_);
      llvm::BasicBlock *done = llvm::BasicBlock::Create(context_, "zero.done",
                                                        function_);
      builder_.CreateBr(loop);
      builder_.SetInsertPoint(loop);
      llvm::PHINode *i = builder_.CreatePHI(builder_.getInt64Ty(), 2);
      i->addIncoming(builder_.getInt64(0), before);
      builder_.CreateStore(llvm::Constant::getNullValue(element),
                           builder_.CreateInBoundsGEP(element, array.data, i));
      llvm::Value *next = builder_.CreateAdd(i, builder_.getInt64(1));
      i->addIncoming(next, loop);
      builder_.CreateCondBr(builder_.CreateICmpULT(next, builder_.getInt64(count)),
                            loop, done);
      builder_.SetInsertPoint(done);
    }
    return array;
  }
  // AtomicRef: a pointer to the referenced element.
  const Instruction *ref = callArgument(inst, 0);
  const Instruction *position = callArgument(inst, 1);
  if (!position) {
    Lowered atomic;
    atomic.data = values_.at(ref).data;
    return atomic;
  }
  return index(values_.at(ref), ref->type, position);
}

Lowered Lowering::lowerAtomicMethod(const Instruction &inst,
                                    const Type *atomic,
                                    const std::string &name) {
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
  auto argument = [&](size_t i) { return scalarOf(callArgument(inst, i), element); };
  auto rmw = [&](llvm::AtomicRMWInst::BinOp op, llvm::Value *v) {
    return builder_.CreateAtomicRMW(op, pointer, v, llvm::MaybeAlign(),
                                    ordering);
  };
  if (name == "load") {
    llvm::Value *bits = builder_.CreateAtomicRMW(
        llvm::AtomicRMWInst::Or, bitsPointer,
        llvm::ConstantInt::get(bitsType, 0), llvm::MaybeAlign(), ordering);
    return {isFloat ? builder_.CreateBitCast(bits, scalarType(element)) : bits};
  }
  if (name == "store" || name == "exchange") {
    llvm::Value *v = argument(0);
    llvm::Value *bits = isFloat ? builder_.CreateBitCast(v, bitsType) : v;
    llvm::Value *old = builder_.CreateAtomicRMW(
        llvm::AtomicRMWInst::Xchg, bitsPointer, bits, llvm::MaybeAlign(),
        ordering);
    if (name == "store")
      return {};
    return {isFloat ? builder_.CreateBitCast(old, scalarType(element)) : old};
  }
  if (name == "compare_exchange") {
    const Instruction *expectedRef = callArgument(inst, 0);
    const Instruction *expectedIndex = callArgument(inst, 2);
    llvm::Value *expectedPointer =
        expectedIndex
            ? index(values_.at(expectedRef), expectedRef->type,
                    expectedIndex)
                  .data
            : values_.at(expectedRef).data;
    llvm::Value *expected = builder_.CreateLoad(
        memoryType(element), expectedPointer);
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
    llvm::Value *update = isFloat ? builder_.CreateBitCast(seen, scalarType(element)) : seen;
    llvm::Value *previous = builder_.CreateLoad(memoryType(element), expectedPointer);
    builder_.CreateStore(builder_.CreateSelect(success, previous, update),
                         expectedPointer);
    return {success};
  }
  llvm::Value *v = argument(0);
  if (isFloat) {
    std::function<llvm::Value *(llvm::Value *)> update;
    if (name == "fetch_add")
      update = [&](llvm::Value *old) { return builder_.CreateFAdd(old, v); };
    else if (name == "fetch_sub")
      update = [&](llvm::Value *old) { return builder_.CreateFSub(old, v); };
    else if (name == "fetch_min")
      update = [&](llvm::Value *old) {
        return builder_.CreateSelect(builder_.CreateFCmpOLT(v, old), v, old);
      };
    else // fetch_max
      update = [&](llvm::Value *old) {
        return builder_.CreateSelect(builder_.CreateFCmpOGT(v, old), v, old);
      };
    return {atomicCompareExchangeLoop(pointer, element, update)};
  }
  bool isSigned = element->isSigned;
  if (name == "fetch_add")
    return {rmw(llvm::AtomicRMWInst::Add, v)};
  if (name == "fetch_sub")
    return {rmw(llvm::AtomicRMWInst::Sub, v)};
  if (name == "fetch_and")
    return {rmw(llvm::AtomicRMWInst::And, v)};
  if (name == "fetch_or")
    return {rmw(llvm::AtomicRMWInst::Or, v)};
  if (name == "fetch_xor")
    return {rmw(llvm::AtomicRMWInst::Xor, v)};
  if (name == "fetch_min")
    return {rmw(isSigned ? llvm::AtomicRMWInst::Min : llvm::AtomicRMWInst::UMin, v)};
  return {rmw(isSigned ? llvm::AtomicRMWInst::Max : llvm::AtomicRMWInst::UMax, v)};
}

Lowered Lowering::lowerCall(const Instruction &inst) {
  auto device = typed_.calls.find(&inst);
  if (device != typed_.calls.end()) {
    // A device function: its arguments go by the same ABI as a kernel's.
    const TypedFunction &callee = *device->second;
    std::vector<llvm::Value *> args;
    for (const KernelParameter &p :
         kernelParameters(callee.argumentTypes, callee.usesGroupScratch)) {
      if (p.kind == KernelParameter::Kind::GroupScratch) {
        args.push_back(groupScratch_);
        continue;
      }
      const Instruction *operand = inst.operands[p.argument + 1];
      const Lowered &value = values_.at(operand);
      const Type *t = callee.argumentTypes[p.argument];
      switch (p.kind) {
      case KernelParameter::Kind::GroupScratch:
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
    return {call};
  }
  const Instruction *calleeInst = inst.operands[0];
  const Type *callee = calleeInst->type;
  const Type *result = inst.type;
  if (callee->kind == TypeKind::Function &&
      callee->name.compare(0, 19, "spirjit.kernel_api.") == 0)
    return lowerKernelApiCall(inst, callee->name);
  if (callee->kind == TypeKind::Method &&
      (callee->elements[0]->kind == TypeKind::NdItem ||
       callee->elements[0]->kind == TypeKind::Group))
    return lowerWorkItemMethod(inst, callee->elements[0], callee->name);
  if (callee->kind == TypeKind::Method &&
      callee->elements[0]->kind == TypeKind::Item) {
    // An Item's queries are an NdItem's global ones.
    const std::string &name = callee->name;
    std::string global = name == "get_id"          ? "get_global_id"
                         : name == "get_range"     ? "get_global_range"
                         : name == "get_linear_id" ? "get_global_linear_id"
                                                   : "get_global_linear_range";
    return lowerWorkItemMethod(inst, callee->elements[0], global);
  }
  if (callee->kind == TypeKind::Method &&
      callee->elements[0]->kind == TypeKind::AtomicRef)
    return lowerAtomicMethod(inst, callee->elements[0], callee->name);
  auto arg = [&](size_t i) { return inst.operands[i + 1]; };
  size_t argCount = inst.operands.size() - 1;

  if (callee->kind == TypeKind::DTypeClass)
    return {scalarOf(arg(0), callee->element)};
  if (callee->kind == TypeKind::Method && callee->name == "conjugate") {
    const Instruction *receiver = calleeInst->operands[0];
    const Type *t = types::materialize(receiver->type);
    llvm::Value *z = scalarOf(receiver, t);
    if (t->kind != TypeKind::Complex)
      return {z};
    return {makeComplex(builder_.CreateExtractValue(z, 0),
                        builder_.CreateFNeg(builder_.CreateExtractValue(z, 1)))};
  }

  const std::string &name = callee->name;
  if (name == "range") {
    Lowered range;
    std::vector<llvm::Value *> v;
    for (size_t i = 0; i < argCount; ++i)
      v.push_back(scalarOf(arg(i), types::int64()));
    llvm::Value *start = argCount >= 2 ? v[0] : builder_.getInt64(0);
    llvm::Value *stop = argCount >= 2 ? v[1] : v[0];
    llvm::Value *step = argCount == 3 ? v[2] : builder_.getInt64(1);
    range.elements = {Lowered{start}, Lowered{stop}, Lowered{step}};
    return range;
  }
  const Type *r = types::materialize(result);
  if ((name == "abs" || name == "numpy.abs" || name == "numpy.absolute") &&
      (arg(0)->type->kind == TypeKind::Complex ||
       arg(0)->type->kind == TypeKind::WeakComplex)) {
    llvm::Value *z = scalarOf(arg(0), types::materialize(arg(0)->type));
    return {convert(target_.emitMathCall(builder_, "hypot",
                                         {builder_.CreateExtractValue(z, 0),
                                          builder_.CreateExtractValue(z, 1)}),
                    types::floating(types::materialize(arg(0)->type)->bits),
                    r)};
  }
  if (name == "complex") {
    // complex(a, b) = a + b*1j, where a and b may themselves be complex.
    llvm::Value *a = scalarOf(arg(0), r);
    if (argCount == 1)
      return {a};
    llvm::Value *b = scalarOf(arg(1), r);
    return {makeComplex(
        builder_.CreateFSub(builder_.CreateExtractValue(a, 0),
                            builder_.CreateExtractValue(b, 1)),
        builder_.CreateFAdd(builder_.CreateExtractValue(a, 1),
                            builder_.CreateExtractValue(b, 0)))};
  }
  if (name.compare(0, 6, "cmath.") == 0)
    return complexMath(name.substr(6), inst, r);
  if (name == "abs" || name == "numpy.abs" || name == "numpy.absolute") {
    llvm::Value *x = scalarOf(arg(0), r);
    if (r->kind == TypeKind::Float)
      return {target_.emitMathCall(builder_, "fabs", {x})};
    if (r->kind == TypeKind::Bool || !r->isSigned)
      return {x};
    return {builder_.CreateSelect(
        builder_.CreateICmpSLT(x, llvm::ConstantInt::get(x->getType(), 0)),
        builder_.CreateNeg(x), x)};
  }
  if (name == "min" || name == "max") {
    llvm::Value *best = scalarOf(arg(0), r);
    for (size_t i = 1; i < argCount; ++i) {
      llvm::Value *x = scalarOf(arg(i), r);
      llvm::Value *better;
      if (r->kind == TypeKind::Float)
        better = name == "min" ? builder_.CreateFCmpOLT(x, best)
                               : builder_.CreateFCmpOGT(x, best);
      else if (r->kind == TypeKind::Int && r->isSigned)
        better = name == "min" ? builder_.CreateICmpSLT(x, best)
                               : builder_.CreateICmpSGT(x, best);
      else
        better = name == "min" ? builder_.CreateICmpULT(x, best)
                               : builder_.CreateICmpUGT(x, best);
      best = builder_.CreateSelect(better, x, best);
    }
    return {best};
  }
  if (name == "int" || name == "float" || name == "bool")
    return {scalarOf(arg(0), r)};
  if (name == "len") {
    const Type *t = arg(0)->type;
    if (t->kind == TypeKind::Array)
      return {values_.at(arg(0)).shape[0]};
    return {builder_.getInt64(t->elements.size())};
  }
  if (name == "round") {
    const Type *a = arg(0)->type;
    if (a->kind != TypeKind::Float && a->kind != TypeKind::WeakFloat)
      return {scalarOf(arg(0), r)}; // rounding an integer keeps it
    const Type *floatType = types::materialize(a);
    llvm::Value *x = scalarOf(arg(0), floatType);
    if (argCount == 1) // half to even, as Python's round
      return {convert(target_.emitMathCall(builder_, "rint", {x}),
                      floatType, r)};
    // round(x, n): scale by 10**n, round half to even, scale back.
    llvm::Value *digits = scalarOf(arg(1), floatType);
    llvm::Value *ten = llvm::ConstantFP::get(x->getType(), 10.0);
    llvm::Value *scale = target_.emitMathCall(builder_, "pow", {ten, digits});
    llvm::Value *y = target_.emitMathCall(
        builder_, "rint", {builder_.CreateFMul(x, scale)});
    return {convert(builder_.CreateFDiv(y, scale), floatType, r)};
  }
  if (const MathFunction *math = findMathFunction(name)) {
    const Type *a = arg(0)->type;
    bool isFloatArg = a->kind == TypeKind::Float || a->kind == TypeKind::WeakFloat;
    switch (math->kind) {
    case MathFunction::Kind::Predicate: {
      if (!isFloatArg) // an integer is never nan or inf
        return {builder_.getInt1(std::string(math->name) == "isfinite")};
      llvm::Value *x = scalarOf(arg(0), types::materialize(a));
      if (std::string(math->name) == "isnan")
        return {builder_.CreateFCmpUNO(x, x)};
      llvm::Value *magnitude = target_.emitMathCall(builder_, "fabs", {x});
      llvm::Value *inf = llvm::ConstantFP::getInfinity(x->getType());
      if (std::string(math->name) == "isinf")
        return {builder_.CreateFCmpOEQ(magnitude, inf)};
      return {builder_.CreateFCmpOLT(magnitude, inf)};
    }
    case MathFunction::Kind::Rounding: {
      if (!isFloatArg)
        return {scalarOf(arg(0), r)}; // floor of an int is itself
      const Type *floatType = types::materialize(a);
      llvm::Value *y = target_.emitMathCall(builder_, math->builtin,
                                            {scalarOf(arg(0), floatType)});
      return {convert(y, floatType, r)};
    }
    case MathFunction::Kind::Square: {
      llvm::Value *x = scalarOf(arg(0), r);
      return {r->kind == TypeKind::Float ? builder_.CreateFMul(x, x)
                                         : builder_.CreateMul(x, x)};
    }
    case MathFunction::Kind::Scale: {
      llvm::Value *x = scalarOf(arg(0), r);
      return {builder_.CreateFMul(
          x, llvm::ConstantFP::get(x->getType(), std::stod(math->builtin)))};
    }
    case MathFunction::Kind::LdExp: {
      llvm::Value *x = scalarOf(arg(0), r);
      llvm::Value *e = scalarOf(arg(1), types::integer(32, true));
      return {target_.emitMathCall(builder_, "ldexp", {x, e})};
    }
    case MathFunction::Kind::Float: {
      std::vector<llvm::Value *> xs;
      for (size_t i = 0; i < argCount; ++i)
        xs.push_back(scalarOf(arg(i), r));
      if (std::string(math->name) == "log" && xs.size() == 2) // log(x, base)
        return {builder_.CreateFDiv(
            target_.emitMathCall(builder_, "log", {xs[0]}),
            target_.emitMathCall(builder_, "log", {xs[1]}))};
      return {target_.emitMathCall(builder_, math->builtin, xs)};
    }
    }
  }
  unsupported(inst, "calling '" + name + "' is not supported in kernels");
}

void Lowering::lowerInstruction(const Instruction &inst) {
  auto c = typed_.constants.find(&inst);
  if (c != typed_.constants.end() && inst.type && inst.type->isNumber()) {
    values_[&inst] = {constant(c->second, inst.type)};
    return;
  }
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
  case Opcode::Undef:
    values_[&inst] = {};
    return;
  case Opcode::Phi:
    return; // created when the block was entered
  case Opcode::BinaryOp:
    values_[&inst] = {lowerBinary(inst)};
    return;
  case Opcode::UnaryOp: {
    auto op = static_cast<ir::UnaryOperator>(inst.index);
    const Type *t = types::materialize(inst.type);
    if (op == ir::UnaryOperator::Not) {
      llvm::Value *v = truth(values_.at(inst.operands[0]).scalar,
                             inst.operands[0]->type);
      values_[&inst] = {builder_.CreateNot(v)};
      return;
    }
    llvm::Value *x = scalarOf(inst.operands[0], t);
    if (op == ir::UnaryOperator::Pos)
      values_[&inst] = {x};
    else if (op == ir::UnaryOperator::Neg && t->kind == TypeKind::Complex)
      values_[&inst] = {makeComplex(
          builder_.CreateFNeg(builder_.CreateExtractValue(x, 0)),
          builder_.CreateFNeg(builder_.CreateExtractValue(x, 1)))};
    else if (op == ir::UnaryOperator::Neg)
      values_[&inst] = {t->kind == TypeKind::Float ? builder_.CreateFNeg(x)
                                                   : builder_.CreateNeg(x)};
    else
      values_[&inst] = {builder_.CreateNot(x)};
    return;
  }
  case Opcode::Compare:
    values_[&inst] = {lowerCompare(inst)};
    return;
  case Opcode::Truth:
    values_[&inst] = {truth(values_.at(inst.operands[0]).scalar,
                            inst.operands[0]->type)};
    return;
  case Opcode::GetAttr:
    values_[&inst] = lowerGetAttr(inst);
    return;
  case Opcode::Call:
    values_[&inst] = lowerCall(inst);
    return;
  case Opcode::GetItem: {
    const Type *object = inst.operands[0]->type;
    const Lowered &value = values_.at(inst.operands[0]);
    if (object->kind == TypeKind::Tuple) {
      int64_t i = inst.operands[1]->constant.intValue;
      int64_t n = static_cast<int64_t>(value.elements.size());
      values_[&inst] = value.elements.at(i < 0 ? i + n : i);
      return;
    }
    Lowered element = index(value, object, inst.operands[1]);
    if (inst.type->kind == TypeKind::Array) {
      values_[&inst] = element;
      return;
    }
    llvm::Value *loaded =
        builder_.CreateLoad(memoryType(inst.type), element.data);
    if (inst.type->kind == TypeKind::Bool)
      loaded = builder_.CreateICmpNE(loaded, builder_.getInt8(0));
    values_[&inst] = {loaded};
    return;
  }
  case Opcode::SetItem: {
    const Type *object = inst.operands[0]->type;
    Lowered element =
        index(values_.at(inst.operands[0]), object, inst.operands[1]);
    llvm::Value *v = scalarOf(inst.operands[2], object->element);
    if (object->element->kind == TypeKind::Bool)
      v = builder_.CreateZExt(v, builder_.getInt8Ty());
    builder_.CreateStore(v, element.data);
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
    llvm::Value *cursor = builder_.CreateLoad(builder_.getInt64Ty(), iter.scalar);
    llvm::Value *stop = iter.elements[0].scalar;
    llvm::Value *step = iter.elements[1].scalar;
    llvm::Value *up = builder_.CreateICmpSGT(step, builder_.getInt64(0));
    values_[&inst] = {builder_.CreateSelect(up,
                                            builder_.CreateICmpSLT(cursor, stop),
                                            builder_.CreateICmpSGT(cursor, stop))};
    return;
  }
  case Opcode::IterNext: {
    const Lowered &iter = values_.at(inst.operands[0]);
    llvm::Value *cursor = builder_.CreateLoad(builder_.getInt64Ty(), iter.scalar);
    builder_.CreateStore(builder_.CreateAdd(cursor, iter.elements[1].scalar),
                         iter.scalar);
    values_[&inst] = {cursor};
    return;
  }
  case Opcode::Branch:
    builder_.CreateBr(startBlocks_.at(inst.targets[0]));
    return;
  case Opcode::CondBranch:
    builder_.CreateCondBr(values_.at(inst.operands[0]).scalar,
                          startBlocks_.at(inst.targets[0]),
                          startBlocks_.at(inst.targets[1]));
    return;
  case Opcode::Return: {
    const Type *returned = typed_.returnType;
    if (typed_.isKernel || returned->kind == TypeKind::None)
      builder_.CreateRetVoid();
    else
      builder_.CreateRet(scalarOf(inst.operands[0], returned));
    return;
  }
  }
}

llvm::Function *Lowering::declare() {
  std::vector<llvm::Type *> params;
  for (const KernelParameter &p :
       kernelParameters(typed_.argumentTypes, typed_.usesGroupScratch)) {
    const Type *t =
        p.argument >= 0 ? typed_.argumentTypes[p.argument] : nullptr;
    switch (p.kind) {
    case KernelParameter::Kind::ArrayData:
    case KernelParameter::Kind::LocalData:
      params.push_back(pointerType(t));
      break;
    case KernelParameter::Kind::GroupScratch:
      params.push_back(llvm::PointerType::get(builder_.getInt8Ty(),
                                              target_.localAddressSpace()));
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
  llvm::Type *result = typed_.isKernel || returned->kind == TypeKind::None
                           ? builder_.getVoidTy()
                           : scalarType(returned);
  auto *type = llvm::FunctionType::get(result, params, false);
  const std::string &name = typed_.function->name;
  if (typed_.isKernel) {
    function_ = llvm::Function::Create(type, llvm::Function::ExternalLinkage,
                                       entryPointName(name), module_);
    target_.markKernel(*function_);
  } else {
    // One internal function per specialisation; LLVM makes names unique.
    function_ = llvm::Function::Create(type, llvm::Function::InternalLinkage,
                                       entryPointName(name) + ".device",
                                       module_);
    function_->setCallingConv(target_.functionCallingConvention());
    function_->addFnAttr(llvm::Attribute::NoUnwind);
  }
  functions_[&typed_] = function_;
  return function_;
}

void Lowering::lowerBody() {
  const ir::Function &pyir = *typed_.function;
  if (options_.fastmath) {
    llvm::FastMathFlags flags;
    flags.setFast();
    builder_.setFastMathFlags(flags);
  }

  for (const auto &block : pyir.blocks) {
    auto *bb = llvm::BasicBlock::Create(context_,
                                        "bb" + std::to_string(block->id),
                                        function_);
    startBlocks_[block.get()] = bb;
  }
  llvm::BasicBlock *entry = startBlocks_.at(pyir.blocks[0].get());
  builder_.SetInsertPoint(entry);
  lowerEntry(function_);
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

}

/// The kernel and every device-function specialisation it reaches.
void collectReachable(const TypedFunction &typed,
                      std::vector<const TypedFunction *> &order,
                      std::set<const TypedFunction *> &seen) {
  if (!seen.insert(&typed).second)
    return;
  order.push_back(&typed);
  for (const auto &[inst, callee] : typed.calls)
    collectReachable(*callee, order, seen);
}

} // namespace

std::string entryPointName(const std::string &name) {
  std::string out = "spirjit_";
  for (char c : name)
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

std::unique_ptr<llvm::Module> lowerToLLVM(const TypedFunction &kernel,
                                          const Target &target,
                                          llvm::LLVMContext &context,
                                          const LoweringOptions &options) {
  auto module = std::make_unique<llvm::Module>(kernel.function->name, context);
  target.configureModule(*module);
  std::vector<const TypedFunction *> order;
  std::set<const TypedFunction *> seen;
  collectReachable(kernel, order, seen);
  Lowering::FunctionMap functions;
  std::vector<std::unique_ptr<Lowering>> lowerings;
  for (const TypedFunction *typed : order) {
    lowerings.push_back(std::make_unique<Lowering>(
        *typed, target, context, options, module.get(), functions));
    lowerings.back()->declare();
  }
  for (auto &lowering : lowerings)
    lowering->lowerBody();
  std::string problems;
  llvm::raw_string_ostream os(problems);
  SPIRJIT_INTERNAL_CHECK(!llvm::verifyModule(*module, &os),
                         "the LLVM verifier rejected the lowered module: " +
                             os.str());
  return module;
}

} // namespace spirjit
