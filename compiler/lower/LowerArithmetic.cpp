// NumPy scalars in LLVM: types, conversions, constants, and the unary,
// binary and comparison operators with Python's semantics.
#include "compiler/lower/Lowering.h"

namespace spirjit::lower {

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
  llvm::Type *type =
      llvm::StructType::get(context_, {re->getType(), re->getType()});
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
    llvm::Type *part =
        t->bits == 32 ? builder_.getFloatTy() : builder_.getDoubleTy();
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
  int64_t asInt = c.kind == ConstValue::Kind::Int ? c.intValue
                  : c.kind == ConstValue::Kind::Bool
                      ? c.boolValue
                      : static_cast<int64_t>(c.floatValue);
  if (t->kind == TypeKind::Float)
    return llvm::ConstantFP::get(type, asDouble);
  if (t->kind == TypeKind::Bool)
    return builder_.getInt1(
        c.kind == ConstValue::Kind::Float ? c.floatValue != 0 : asInt != 0);
  if (t->kind == TypeKind::Int)
    return llvm::ConstantInt::get(type, static_cast<uint64_t>(asInt),
                                  t->isSigned);
  SPIRJIT_INTERNAL_CHECK(false, "constant of type " + t->str());
  return nullptr;
}

llvm::Function *Lowering::integerHelper(
    const std::string &name, llvm::Type *type,
    const std::function<void(llvm::IRBuilder<> &, llvm::Function *)> &body) {
  if (llvm::Function *helper = module_->getFunction(name))
    return helper;
  auto *fnType = llvm::FunctionType::get(type, {type, type}, false);
  llvm::Function *helper = llvm::Function::Create(
      fnType, llvm::Function::InternalLinkage, name, module_);
  helper->setCallingConv(target_.functionCallingConvention());
  llvm::IRBuilder<> b(context_);
  b.SetInsertPoint(llvm::BasicBlock::Create(context_, "entry", helper));
  body(b, helper);
  return helper;
}

llvm::Value *Lowering::callHelper(llvm::Function *helper, llvm::Value *a,
                                  llvm::Value *b) {
  llvm::CallInst *call = builder_.CreateCall(helper, {a, b});
  call->setCallingConv(target_.functionCallingConvention());
  return call;
}

llvm::Value *Lowering::integerPower(llvm::Value *base, llvm::Value *exponent,
                                    const Type *t) {
  // Exponentiation by squaring in a helper function per integer width;
  // a negative exponent gives 0 (NumPy raises, a kernel cannot).
  llvm::Type *type = base->getType();
  llvm::Function *helper = integerHelper(
      "spirjit.ipow." + t->str(), type,
      [&](llvm::IRBuilder<> &b, llvm::Function *f) {
        llvm::BasicBlock *entry = b.GetInsertBlock();
        auto *loop = llvm::BasicBlock::Create(context_, "loop", f);
        auto *done = llvm::BasicBlock::Create(context_, "done", f);
        llvm::Value *x = f->getArg(0), *n = f->getArg(1);
        llvm::Value *zero = llvm::ConstantInt::get(type, 0);
        llvm::Value *one = llvm::ConstantInt::get(type, 1);
        llvm::Value *negative =
            t->isSigned ? b.CreateICmpSLT(n, zero) : b.getFalse();
        llvm::Value *early = b.CreateSelect(negative, zero, one);
        b.CreateCondBr(b.CreateOr(negative, b.CreateICmpEQ(n, zero)), done,
                       loop);
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
      });
  return callHelper(helper, base, exponent);
}

llvm::Value *Lowering::integerGcd(llvm::Value *a, llvm::Value *b,
                                  const Type *t, bool lcm) {
  // NumPy's npy_gcd and npy_lcm: Euclid's algorithm on the magnitudes as
  // unsigned numbers of the type's width (the most negative number's
  // magnitude is itself), in a helper function per width.
  llvm::Type *type = a->getType();
  llvm::Value *zero = llvm::ConstantInt::get(type, 0);
  if (t->isSigned) {
    a = builder_.CreateSelect(builder_.CreateICmpSLT(a, zero),
                              builder_.CreateNeg(a), a);
    b = builder_.CreateSelect(builder_.CreateICmpSLT(b, zero),
                              builder_.CreateNeg(b), b);
  }
  llvm::Function *helper = integerHelper(
      "spirjit.gcd.i" + std::to_string(type->getIntegerBitWidth()), type,
      [&](llvm::IRBuilder<> &h, llvm::Function *f) {
        llvm::BasicBlock *entry = h.GetInsertBlock();
        auto *loop = llvm::BasicBlock::Create(context_, "loop", f);
        auto *step = llvm::BasicBlock::Create(context_, "step", f);
        auto *done = llvm::BasicBlock::Create(context_, "done", f);
        h.CreateBr(loop);
        h.SetInsertPoint(loop);
        auto *x = h.CreatePHI(type, 2);
        auto *y = h.CreatePHI(type, 2);
        h.CreateCondBr(h.CreateICmpEQ(y, llvm::ConstantInt::get(type, 0)),
                       done, step);
        h.SetInsertPoint(step);
        llvm::Value *rest = h.CreateURem(x, y);
        x->addIncoming(f->getArg(0), entry);
        y->addIncoming(f->getArg(1), entry);
        x->addIncoming(y, step);
        y->addIncoming(rest, step);
        h.CreateBr(loop);
        h.SetInsertPoint(done);
        h.CreateRet(x);
      });
  llvm::Value *gcd = callHelper(helper, a, b);
  if (!lcm)
    return gcd;
  // a / gcd * b, and 0 where both are 0.
  llvm::Value *none = builder_.CreateICmpEQ(gcd, zero);
  llvm::Value *divisor =
      builder_.CreateSelect(none, llvm::ConstantInt::get(type, 1), gcd);
  return builder_.CreateSelect(
      none, zero, builder_.CreateMul(builder_.CreateUDiv(a, divisor), b));
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
        isSigned
            ? builder_.CreateOr(
                  builder_.CreateICmpSLT(b, zero),
                  builder_.CreateICmpSGE(b, llvm::ConstantInt::get(type, bits)))
            : builder_.CreateICmpUGE(b, llvm::ConstantInt::get(type, bits));
    llvm::Value *safe = builder_.CreateSelect(tooFar, zero, b);
    if (op == BinaryOperator::LShift)
      return builder_.CreateSelect(tooFar, zero, builder_.CreateShl(a, safe));
    llvm::Value *shifted =
        isSigned ? builder_.CreateAShr(a, safe) : builder_.CreateLShr(a, safe);
    llvm::Value *saturated =
        isSigned
            ? builder_.CreateAShr(a, llvm::ConstantInt::get(type, bits - 1))
            : zero;
    return builder_.CreateSelect(tooFar, saturated, shifted);
  }
  case BinaryOperator::FloorDiv:
  case BinaryOperator::Mod: {
    // Python semantics: the quotient rounds toward negative infinity and
    // the remainder has the divisor's sign. x // 0 and x % 0 give 0, and
    // INT_MIN // -1 wraps: nothing traps. Debug mode reports the zero.
    llvm::Value *isZero = builder_.CreateICmpEQ(b, zero);
    if (options_.debug)
      pend(isZero, addDebugSite(DebugSite::Kind::ZeroDivision, ""),
           builder_.getInt64(0), builder_.getInt64(0));
    if (isHost() && options_.hostAsserts)
      hostCheck(isZero, 1,
                filename() + ":" +
                    std::to_string(current_ ? current_->line : 0) +
                    ": integer division or modulo by zero",
                builder_.getInt64(0), builder_.getInt64(0));
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
      floored =
          builder_.CreateSelect(isMinusOne, builder_.CreateNeg(a), floored);
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

llvm::Value *Lowering::floatPower(llvm::Value *x, llvm::Value *y) {
  // x ** 2 is x * x: one rounding, as a correctly rounded pow gives, and
  // no call (the device's pow is opaque to LLVM and to vectorisers).
  if (auto *c = llvm::dyn_cast<llvm::ConstantFP>(y))
    if (c->isExactlyValue(2.0))
      return builder_.CreateFMul(x, x);
  return target_.emitMathCall(builder_, "pow", {x, y});
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
    return floatPower(a, b);
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
        roundUp,
        builder_.CreateFAdd(floorDiv, llvm::ConstantFP::get(type, 1.0)),
        floorDiv);
    llvm::Value *divZero = builder_.CreateFCmpOEQ(div, zero);
    llvm::Value *quotient = builder_.CreateFDiv(a, b);
    llvm::Value *signedZero =
        target_.emitMathCall(builder_, "copysign", {zero, quotient});
    // ArrayOps.def's rule for floor_divide (the Array API standard's
    // special cases): a zero divisor or an infinite operand gives a / b,
    // so inf // 2 is inf and -1 // inf is -0 (NumPy's npy_divmod: nan and
    // -1); ±inf for a zero divisor, nan for 0/0 and inf/inf, as NumPy.
    llvm::Value *inf = llvm::ConstantFP::getInfinity(type);
    llvm::Value *infinite = builder_.CreateOr(
        builder_.CreateFCmpOEQ(target_.emitMathCall(builder_, "fabs", {a}),
                               inf),
        builder_.CreateFCmpOEQ(target_.emitMathCall(builder_, "fabs", {b}),
                               inf));
    return builder_.CreateSelect(
        builder_.CreateOr(builder_.CreateFCmpOEQ(b, zero), infinite),
        quotient, builder_.CreateSelect(divZero, signedZero, floorDiv));
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
    return makeComplex(builder_.CreateFAdd(ar, br),
                       builder_.CreateFAdd(ai, bi));
  case BinaryOperator::Sub:
    return makeComplex(builder_.CreateFSub(ar, br),
                       builder_.CreateFSub(ai, bi));
  case BinaryOperator::Mul:
    return makeComplex(builder_.CreateFSub(builder_.CreateFMul(ar, br),
                                           builder_.CreateFMul(ai, bi)),
                       builder_.CreateFAdd(builder_.CreateFMul(ar, bi),
                                           builder_.CreateFMul(ai, br)));
  case BinaryOperator::TrueDiv: {
    // NumPy's complex divide loop exactly (Smith's method, scaled by a
    // reciprocal), so infinities and nans come out as NumPy's: the branch
    // on |br| >= |bi| (false with a nan), and a zero divisor's complex inf
    // or nan from dividing each part by |br|.
    llvm::Value *absBr = target_.emitMathCall(builder_, "fabs", {br});
    llvm::Value *absBi = target_.emitMathCall(builder_, "fabs", {bi});
    llvm::Value *one = llvm::ConstantFP::get(ar->getType(), 1.0);
    llvm::Value *realBigger = builder_.CreateFCmpOGE(absBr, absBi);
    // |br| >= |bi|: rat = bi/br, scl = 1/(br + bi*rat)
    llvm::Value *rat1 = builder_.CreateFDiv(bi, br);
    llvm::Value *scl1 = builder_.CreateFDiv(
        one, builder_.CreateFAdd(br, builder_.CreateFMul(bi, rat1)));
    llvm::Value *re1 = builder_.CreateFMul(
        builder_.CreateFAdd(ar, builder_.CreateFMul(ai, rat1)), scl1);
    llvm::Value *im1 = builder_.CreateFMul(
        builder_.CreateFSub(ai, builder_.CreateFMul(ar, rat1)), scl1);
    // otherwise: rat = br/bi, scl = 1/(bi + br*rat)
    llvm::Value *rat2 = builder_.CreateFDiv(br, bi);
    llvm::Value *scl2 = builder_.CreateFDiv(
        one, builder_.CreateFAdd(bi, builder_.CreateFMul(br, rat2)));
    llvm::Value *re2 = builder_.CreateFMul(
        builder_.CreateFAdd(builder_.CreateFMul(ar, rat2), ai), scl2);
    llvm::Value *im2 = builder_.CreateFMul(
        builder_.CreateFSub(builder_.CreateFMul(ai, rat2), ar), scl2);
    llvm::Value *zero = llvm::ConstantFP::get(ar->getType(), 0.0);
    llvm::Value *byZero = builder_.CreateAnd(
        builder_.CreateFCmpOEQ(br, zero), builder_.CreateFCmpOEQ(bi, zero));
    return makeComplex(
        builder_.CreateSelect(byZero, builder_.CreateFDiv(ar, absBr),
                              builder_.CreateSelect(realBigger, re1, re2)),
        builder_.CreateSelect(byZero, builder_.CreateFDiv(ai, absBr),
                              builder_.CreateSelect(realBigger, im1, im2)));
  }
  case BinaryOperator::Pow: {
    // a ** b = exp(b * log(a)). As NumPy's npy_cpow, 0 ** b is 0 for b of
    // a positive real part and nan+nanj for any other b but 0; an integer
    // b below 100 in magnitude multiplies (a itself for 1, a*a for 2,
    // a*(a*a) for 3, else by squaring, and 1/that for a negative b), so
    // (inf+0j) ** 1 stays inf+0j.
    llvm::Value *modulus = target_.emitMathCall(builder_, "hypot", {ar, ai});
    llvm::Value *angle = target_.emitMathCall(builder_, "atan2", {ai, ar});
    llvm::Value *logRe = target_.emitMathCall(builder_, "log", {modulus});
    llvm::Value *re = builder_.CreateFSub(builder_.CreateFMul(br, logRe),
                                          builder_.CreateFMul(bi, angle));
    llvm::Value *im = builder_.CreateFAdd(builder_.CreateFMul(br, angle),
                                          builder_.CreateFMul(bi, logRe));
    llvm::Value *exp = complexExp(re, im);
    llvm::Value *outRe = builder_.CreateExtractValue(exp, 0);
    llvm::Value *outIm = builder_.CreateExtractValue(exp, 1);
    llvm::Value *zero = llvm::ConstantFP::get(ar->getType(), 0.0);
    llvm::Value *one = llvm::ConstantFP::get(ar->getType(), 1.0);
    llvm::Value *realExponent = builder_.CreateFCmpOEQ(bi, zero);
    llvm::Value *integral = builder_.CreateFCmpOEQ(
        br, target_.emitMathCall(builder_, "trunc", {br}));
    llvm::Value *small = builder_.CreateFCmpOLT(
        target_.emitMathCall(builder_, "fabs", {br}),
        llvm::ConstantFP::get(ar->getType(), 100.0));
    llvm::Value *isInteger = builder_.CreateAnd(
        realExponent, builder_.CreateAnd(integral, small));
    llvm::Value *n = builder_.CreateFPToSI(
        builder_.CreateSelect(isInteger, br, zero), builder_.getInt32Ty());
    llvm::Value *negative = builder_.CreateICmpSLT(n, builder_.getInt32(0));
    llvm::Value *magnitude =
        builder_.CreateSelect(negative, builder_.CreateNeg(n), n);
    llvm::Value *unit = makeComplex(one, zero);
    llvm::Value *power = unit, *square = a;
    for (int bit = 0; bit < 7; ++bit) { // |n| < 100 < 2^7
      llvm::Value *set = builder_.CreateICmpNE(
          builder_.CreateAnd(magnitude, builder_.getInt32(1 << bit)),
          builder_.getInt32(0));
      power = builder_.CreateSelect(
          set, complexBinary(BinaryOperator::Mul, power, square), power);
      square = complexBinary(BinaryOperator::Mul, square, square);
    }
    power = builder_.CreateSelect(
        negative, complexBinary(BinaryOperator::TrueDiv, unit, power), power);
    llvm::Value *aa = complexBinary(BinaryOperator::Mul, a, a);
    llvm::Value *aaa = complexBinary(BinaryOperator::Mul, a, aa);
    power = builder_.CreateSelect(
        builder_.CreateICmpEQ(n, builder_.getInt32(3)), aaa, power);
    power = builder_.CreateSelect(
        builder_.CreateICmpEQ(n, builder_.getInt32(2)), aa, power);
    power = builder_.CreateSelect(
        builder_.CreateICmpEQ(n, builder_.getInt32(1)), a, power);
    outRe = builder_.CreateSelect(isInteger,
                                  builder_.CreateExtractValue(power, 0), outRe);
    outIm = builder_.CreateSelect(isInteger,
                                  builder_.CreateExtractValue(power, 1), outIm);
    llvm::Value *baseZero = builder_.CreateAnd(
        builder_.CreateFCmpOEQ(ar, zero), builder_.CreateFCmpOEQ(ai, zero));
    llvm::Value *expZero = builder_.CreateAnd(builder_.CreateFCmpOEQ(br, zero),
                                              builder_.CreateFCmpOEQ(bi, zero));
    llvm::Value *zeroPower = builder_.CreateSelect(
        builder_.CreateFCmpOGT(br, zero), zero,
        llvm::ConstantFP::getNaN(ar->getType()));
    outRe = builder_.CreateSelect(baseZero, zeroPower, outRe);
    outIm = builder_.CreateSelect(baseZero, zeroPower, outIm);
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

llvm::Value *Lowering::lowerUnary(const Instruction &inst) {
  auto op = static_cast<ir::UnaryOperator>(inst.index);
  const Type *t = types::materialize(inst.type);
  if (op == ir::UnaryOperator::Not)
    return builder_.CreateNot(
        truth(values_.at(inst.operands[0]).scalar, inst.operands[0]->type));
  llvm::Value *x = scalarOf(inst.operands[0], t);
  if (op == ir::UnaryOperator::Pos)
    return x;
  if (op == ir::UnaryOperator::Neg && t->kind == TypeKind::Complex)
    return makeComplex(builder_.CreateFNeg(builder_.CreateExtractValue(x, 0)),
                       builder_.CreateFNeg(builder_.CreateExtractValue(x, 1)));
  if (op == ir::UnaryOperator::Neg)
    return t->kind == TypeKind::Float ? builder_.CreateFNeg(x)
                                      : builder_.CreateNeg(x);
  return builder_.CreateNot(x);
}

llvm::Value *Lowering::lowerCompare(const Instruction &inst) {
  auto op = static_cast<CompareOperator>(inst.index);
  if (op == CompareOperator::In || op == CompareOperator::NotIn)
    return lowerMembership(inst);
  return compareNumbers(op, values_.at(inst.operands[0]).scalar,
                        inst.operands[0]->type,
                        values_.at(inst.operands[1]).scalar,
                        inst.operands[1]->type);
}

llvm::Value *Lowering::compareSignedWithUnsigned64(CompareOperator op,
                                                   llvm::Value *xValue,
                                                   const Type *a,
                                                   llvm::Value *yValue,
                                                   const Type *b) {
  auto isSigned = [](const Type *t) {
    return t->kind == TypeKind::WeakInt ||
           (t->kind == TypeKind::Int && t->isSigned);
  };
  auto isUnsigned64 = [](const Type *t) {
    return t->kind == TypeKind::Int && !t->isSigned && t->bits == 64;
  };
  bool signedFirst = isSigned(a) && isUnsigned64(b);
  if (!signedFirst && !(isUnsigned64(a) && isSigned(b)))
    return nullptr;
  switch (op) {
  case CompareOperator::Lt: case CompareOperator::Le:
  case CompareOperator::Eq: case CompareOperator::Ne:
  case CompareOperator::Gt: case CompareOperator::Ge:
    break;
  default:
    return nullptr;
  }
  // NumPy 2 compares int64 with uint64, and uint64 with a negative Python
  // int, by value (np.uint64(5) > -1 is True): a negative signed side is
  // below every unsigned value, and the others compare as unsigned. (The
  // common type, float64 or uint64, had rounded 2**62 + 1 to 2**62 and
  // wrapped -1 to 2**64 - 1.)
  // Both sides as 64 bits: the signed one sign-extended, the other as is.
  llvm::Value *x = signedFirst ? convert(xValue, a, types::int64()) : xValue;
  llvm::Value *y = signedFirst ? yValue : convert(yValue, b, types::int64());
  llvm::Value *negative = builder_.CreateICmpSLT(
      signedFirst ? x : y, llvm::ConstantInt::get(x->getType(), 0));
  // With a negative signed side s and any unsigned u: s < u.
  bool whenNegative;
  switch (op) {
  case CompareOperator::Lt: case CompareOperator::Le:
    whenNegative = signedFirst;
    break;
  case CompareOperator::Gt: case CompareOperator::Ge:
    whenNegative = !signedFirst;
    break;
  case CompareOperator::Eq:
    whenNegative = false;
    break;
  default: // Ne
    whenNegative = true;
    break;
  }
  llvm::Value *asUnsigned = nullptr;
  switch (op) {
  case CompareOperator::Lt: asUnsigned = builder_.CreateICmpULT(x, y); break;
  case CompareOperator::Le: asUnsigned = builder_.CreateICmpULE(x, y); break;
  case CompareOperator::Eq: asUnsigned = builder_.CreateICmpEQ(x, y); break;
  case CompareOperator::Ne: asUnsigned = builder_.CreateICmpNE(x, y); break;
  case CompareOperator::Gt: asUnsigned = builder_.CreateICmpUGT(x, y); break;
  default: asUnsigned = builder_.CreateICmpUGE(x, y); break;
  }
  return builder_.CreateSelect(negative, builder_.getInt1(whenNegative),
                               asUnsigned);
}

llvm::Value *Lowering::compareNumbers(CompareOperator op, llvm::Value *xValue,
                                      const Type *a, llvm::Value *yValue,
                                      const Type *b) {
  if (llvm::Value *exact = compareSignedWithUnsigned64(op, xValue, a, yValue,
                                                       b))
    return exact;
  const Type *common = types::materialize(types::promote(a, b));
  // NEP 50 compares a Python int with a typed integer by value: uint8 x >
  // -1 is true. Below 64 bits int64 holds both sides exactly.
  if (common->kind == TypeKind::Int && common->bits < 64 &&
      (a->kind == TypeKind::WeakInt || b->kind == TypeKind::WeakInt))
    common = types::int64();
  llvm::Value *x = convert(xValue, a, common);
  llvm::Value *y = convert(yValue, b, common);
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

} // namespace spirjit::lower
