// Builtins (abs, min, round, complex, ...), conversions to NumPy types, and
// the math, cmath and NumPy functions (MathFunctions.def, ArrayOps.def).
#include "compiler/lower/Lowering.h"

#include "compiler/ArrayOps.h"
#include "compiler/MathFunctions.h"

namespace spirjit::lower {

Lowered Lowering::lowerBuiltinCall(const Instruction &inst) {
  const Instruction *calleeInst = inst.operands[0];
  const Type *callee = calleeInst->type;
  const Type *result = inst.type;
  auto arg = [&](size_t i) { return inst.operands[i + 1]; };
  size_t argCount = inst.operands.size() - 1;

  if (callee->kind == TypeKind::DTypeClass)
    return {scalarOf(arg(0), callee->element)};
  if (callee->kind == TypeKind::Method && callee->name == "conjugate") {
    const Instruction *receiver = calleeInst->operands[0];
    const Type *t = types::materialize(receiver->type);
    return {conjugate(scalarOf(receiver, t), t)};
  }

  const std::string &name = callee->name;
  if (name == "range" || name == "spirjit.prange") {
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
  const ArrayOp *ufunc = findUfunc(name);
  bool absolute =
      name == "abs" || (ufunc && ufunc->scalar == ArrayOpScalar::Absolute);
  if (absolute &&
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
    return {
        makeComplex(builder_.CreateFSub(builder_.CreateExtractValue(a, 0),
                                        builder_.CreateExtractValue(b, 1)),
                    builder_.CreateFAdd(builder_.CreateExtractValue(a, 1),
                                        builder_.CreateExtractValue(b, 0)))};
  }
  if (name.compare(0, 6, "cmath.") == 0)
    return complexMath(name.substr(6), inst, r);
  if (absolute) {
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
  if (name == "int" && (arg(0)->type->kind == TypeKind::Float ||
                        arg(0)->type->kind == TypeKind::WeakFloat))
    return {saturatingToInteger(
        scalarOf(arg(0), types::materialize(arg(0)->type)), r)};
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
      return {saturatingToInteger(
          target_.emitMathCall(builder_, "rint", {x}), r)};
    return {convert(roundDigits(x, scalarOf(arg(1), types::int64())),
                    floatType, r)};
  }
  const Type *common =
      ufunc && ufunc->arity == 2
          ? types::materialize(types::promote(arg(0)->type, arg(1)->type))
          : nullptr;
  if (common && common->kind == TypeKind::Complex &&
      (ufunc->scalar == ArrayOpScalar::MaxMin ||
       (ufunc->scalar == ArrayOpScalar::Compare &&
        ufunc->id != ArrayOpId::Equal && ufunc->id != ArrayOpId::NotEqual)))
    return {complexOrder(*ufunc, scalarOf(arg(0), common),
                         scalarOf(arg(1), common))};
  if (ufunc && ufunc->scalar == ArrayOpScalar::MaxMin) {
    // NumPy's maximum/minimum: the first NaN wins (Python's max(x, nan)
    // would give x), and of equal numbers the second (-0.0 and 0.0).
    llvm::Value *a = scalarOf(arg(0), r), *b = scalarOf(arg(1), r);
    bool max = std::string(ufunc->scalarOp) == "max";
    if (r->kind == TypeKind::Float) {
      llvm::Value *wins =
          max ? builder_.CreateFCmpOGT(a, b) : builder_.CreateFCmpOLT(a, b);
      llvm::Value *isNaN = builder_.CreateFCmpUNO(a, a);
      return {builder_.CreateSelect(builder_.CreateOr(wins, isNaN), a, b)};
    }
    bool isSigned = r->kind == TypeKind::Int && r->isSigned;
    llvm::Value *wins =
        isSigned ? (max ? builder_.CreateICmpSGT(a, b) : builder_.CreateICmpSLT(a, b))
                 : (max ? builder_.CreateICmpUGT(a, b) : builder_.CreateICmpULT(a, b));
    return {builder_.CreateSelect(wins, a, b)};
  }
  if (std::optional<UfuncOperator> op = ufuncOperator(name)) {
    // np.add(x, y) is x + y on NumPy numbers.
    ir::Instruction probe = inst;
    probe.opcode = op->opcode;
    probe.index = op->op;
    probe.operands.erase(probe.operands.begin());
    switch (op->opcode) {
    case Opcode::BinaryOp:
      return {lowerBinary(probe)};
    case Opcode::Compare:
      return {lowerCompare(probe)};
    default:
      return {lowerUnary(probe)};
    }
  }
  if (const MathFunction *math = findMathFunction(name)) {
    const Type *a = arg(0)->type;
    bool isFloatArg =
        a->kind == TypeKind::Float || a->kind == TypeKind::WeakFloat;
    switch (math->kind) {
    case MathFunction::Kind::Predicate: {
      if (a->kind == TypeKind::Complex || a->kind == TypeKind::WeakComplex)
        return complexMath(math->name, inst, r);
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
    case MathFunction::Kind::SignBit: {
      const Type *t = types::materialize(a);
      llvm::Value *x = scalarOf(arg(0), t);
      if (t->kind == TypeKind::Float) // -0.0 and a NaN's sign too
        return {builder_.CreateICmpSLT(
            builder_.CreateBitCast(x, builder_.getIntNTy(t->bits)),
            builder_.getIntN(t->bits, 0))};
      if (t->kind == TypeKind::Int && t->isSigned)
        return {builder_.CreateICmpSLT(x, llvm::ConstantInt::get(x->getType(), 0))};
      return {builder_.getInt1(false)};
    }
    case MathFunction::Kind::LogAddExp: {
      // NumPy's npy_logaddexp(2): equal arguments (infinities too) give
      // x + log 2; else the larger plus log1p of the exponential of the
      // difference; a NaN difference itself.
      llvm::Value *x = scalarOf(arg(0), r), *y = scalarOf(arg(1), r);
      llvm::Type *t = x->getType();
      bool base2 = std::string(math->builtin) == "log2";
      llvm::Value *zero = llvm::ConstantFP::get(t, 0.0);
      llvm::Value *difference = builder_.CreateFSub(x, y);
      auto log1pExp = [&](llvm::Value *d) {
        llvm::Value *e =
            target_.emitMathCall(builder_, base2 ? "exp2" : "exp", {d});
        llvm::Value *l = target_.emitMathCall(builder_, "log1p", {e});
        return base2 ? builder_.CreateFMul(l, llvm::ConstantFP::get(t, M_LOG2E))
                     : l;
      };
      llvm::Value *fromX = builder_.CreateFAdd(
          x, log1pExp(builder_.CreateFNeg(difference)));
      llvm::Value *fromY = builder_.CreateFAdd(y, log1pExp(difference));
      llvm::Value *same = builder_.CreateFAdd(
          x, llvm::ConstantFP::get(t, base2 ? 1.0 : M_LN2));
      llvm::Value *v = builder_.CreateSelect(
          builder_.CreateFCmpOLE(difference, zero), fromY, difference);
      v = builder_.CreateSelect(builder_.CreateFCmpOGT(difference, zero),
                                fromX, v);
      return {builder_.CreateSelect(builder_.CreateFCmpOEQ(x, y), same, v)};
    }
    case MathFunction::Kind::Heaviside: {
      llvm::Value *x = scalarOf(arg(0), r), *h = scalarOf(arg(1), r);
      llvm::Type *t = x->getType();
      llvm::Value *zero = llvm::ConstantFP::get(t, 0.0);
      llvm::Value *v = builder_.CreateSelect(
          builder_.CreateFCmpOGT(x, zero), llvm::ConstantFP::get(t, 1.0), h);
      v = builder_.CreateSelect(builder_.CreateFCmpOLT(x, zero), zero, v);
      return {builder_.CreateSelect(builder_.CreateFCmpUNO(x, x), x, v)};
    }
    case MathFunction::Kind::Gcd:
      return {integerGcd(scalarOf(arg(0), r), scalarOf(arg(1), r), r,
                         std::string(math->builtin) == "lcm")};
    case MathFunction::Kind::BitCount: {
      const Type *t = types::materialize(a);
      if (t->kind == TypeKind::Bool)
        t = types::integer(8, true);
      llvm::Value *x = scalarOf(arg(0), t);
      if (t->isSigned) // the magnitude (the most negative number: itself)
        x = builder_.CreateSelect(
            builder_.CreateICmpSLT(x, llvm::ConstantInt::get(x->getType(), 0)),
            builder_.CreateNeg(x), x);
      llvm::Value *bits = builder_.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, x);
      return {builder_.CreateZExtOrTrunc(bits, builder_.getInt8Ty())};
    }
    case MathFunction::Kind::Rounding: {
      if (!isFloatArg)
        return {scalarOf(arg(0), r)}; // floor of an int is itself
      const Type *floatType = types::materialize(a);
      llvm::Value *y = target_.emitMathCall(builder_, math->builtin,
                                            {scalarOf(arg(0), floatType)});
      if (types::materialize(r)->kind == TypeKind::Int) // math's, not numpy's
        return {saturatingToInteger(y, r)};
      return {convert(y, floatType, r)};
    }
    case MathFunction::Kind::Square: {
      llvm::Value *x = scalarOf(arg(0), r);
      if (r->kind == TypeKind::Complex)
        return {complexBinary(BinaryOperator::Mul, x, x)};
      return {r->kind == TypeKind::Float ? builder_.CreateFMul(x, x)
                                         : builder_.CreateMul(x, x)};
    }
    case MathFunction::Kind::Conjugate:
      return {conjugate(scalarOf(arg(0), r), r)};
    case MathFunction::Kind::Sign: {
      if (r->kind == TypeKind::Complex)
        return complexMath("sign", inst, r);
      llvm::Value *x = scalarOf(arg(0), r);
      llvm::Type *t = x->getType();
      if (r->kind == TypeKind::Float) {
        auto *zero = llvm::ConstantFP::get(t, 0.0);
        llvm::Value *v = builder_.CreateSelect(
            builder_.CreateFCmpUNO(x, x), x, zero); // nan stays nan
        v = builder_.CreateSelect(builder_.CreateFCmpOLT(x, zero),
                                  llvm::ConstantFP::get(t, -1.0), v);
        return {builder_.CreateSelect(builder_.CreateFCmpOGT(x, zero),
                                      llvm::ConstantFP::get(t, 1.0), v)};
      }
      auto *zero = llvm::ConstantInt::get(t, 0);
      auto *one = llvm::ConstantInt::get(t, 1);
      if (!r->isSigned)
        return {builder_.CreateSelect(builder_.CreateICmpNE(x, zero), one,
                                      zero)};
      llvm::Value *v = builder_.CreateSelect(
          builder_.CreateICmpSLT(x, zero), llvm::ConstantInt::get(t, -1, true),
          zero);
      return {builder_.CreateSelect(builder_.CreateICmpSGT(x, zero), one, v)};
    }
    case MathFunction::Kind::NanMinMax: {
      llvm::Value *a = scalarOf(arg(0), r), *b = scalarOf(arg(1), r);
      if (r->kind == TypeKind::Complex)
        return {complexOrder(*ufunc, a, b)};
      bool max = std::string(math->builtin) == "max";
      if (r->kind == TypeKind::Float) { // a if it wins or b is nan
        llvm::Value *wins = max ? builder_.CreateFCmpOGE(a, b)
                                : builder_.CreateFCmpOLE(a, b);
        return {builder_.CreateSelect(
            builder_.CreateOr(wins, builder_.CreateFCmpUNO(b, b)), a, b)};
      }
      llvm::Value *wins =
          r->kind == TypeKind::Bool || !r->isSigned
              ? (max ? builder_.CreateICmpUGE(a, b) : builder_.CreateICmpULE(a, b))
              : (max ? builder_.CreateICmpSGE(a, b) : builder_.CreateICmpSLE(a, b));
      return {builder_.CreateSelect(wins, a, b)};
    }
    case MathFunction::Kind::Logical: {
      auto truthOf = [&](size_t i) { // a NaN is true, as bool(nan)
        const Type *t = types::materialize(arg(i)->type);
        return truth(scalarOf(arg(i), t), t);
      };
      std::string op = math->builtin;
      if (op == "not")
        return {builder_.CreateNot(truthOf(0))};
      llvm::Value *a = truthOf(0), *b = truthOf(1);
      return {op == "and"  ? builder_.CreateAnd(a, b)
              : op == "or" ? builder_.CreateOr(a, b)
                           : builder_.CreateXor(a, b)};
    }
    case MathFunction::Kind::Reciprocal: {
      llvm::Value *x = scalarOf(arg(0), r);
      if (r->kind == TypeKind::Complex) {
        // NumPy's own formula (Smith's, without C99's recovery of
        // infinities: 1/0j is nan+nanj here, inf+nanj from `/`).
        llvm::Value *re = builder_.CreateExtractValue(x, 0);
        llvm::Value *im = builder_.CreateExtractValue(x, 1);
        llvm::Value *one = llvm::ConstantFP::get(re->getType(), 1.0);
        llvm::Value *absIm = target_.emitMathCall(builder_, "fabs", {im});
        llvm::Value *absRe = target_.emitMathCall(builder_, "fabs", {re});
        llvm::Value *byReal = builder_.CreateFCmpOLE(absIm, absRe);
        llvm::Value *ratioR = builder_.CreateFDiv(im, re);
        llvm::Value *dR = builder_.CreateFAdd(re, builder_.CreateFMul(im, ratioR));
        llvm::Value *ratioI = builder_.CreateFDiv(re, im);
        llvm::Value *dI = builder_.CreateFAdd(builder_.CreateFMul(re, ratioI), im);
        llvm::Value *outRe = builder_.CreateSelect(
            byReal, builder_.CreateFDiv(one, dR), builder_.CreateFDiv(ratioI, dI));
        llvm::Value *outIm = builder_.CreateSelect(
            byReal, builder_.CreateFDiv(builder_.CreateFNeg(ratioR), dR),
            builder_.CreateFDiv(builder_.CreateFNeg(one), dI));
        return {makeComplex(outRe, outIm)};
      }
      llvm::Type *t = x->getType();
      if (r->kind == TypeKind::Float)
        return {builder_.CreateFDiv(llvm::ConstantFP::get(t, 1.0), x)};
      // An integer's 1 // x: 1 for 1, -1 for -1, else 0; for 0, where
      // NumPy warns, what NumPy gives (the minimum of a 32- or 64-bit
      // signed type, else 0). No division on the device.
      auto *one = llvm::ConstantInt::get(t, 1);
      llvm::Value *atZero =
          r->isSigned && r->bits >= 32
              ? llvm::ConstantInt::get(t, llvm::APInt::getSignedMinValue(r->bits))
              : llvm::ConstantInt::get(t, 0);
      llvm::Value *v = builder_.CreateSelect(
          builder_.CreateICmpEQ(x, one), one,
          builder_.CreateSelect(builder_.CreateICmpEQ(x, llvm::ConstantInt::get(t, 0)),
                                atZero, llvm::ConstantInt::get(t, 0)));
      if (r->isSigned)
        v = builder_.CreateSelect(
            builder_.CreateICmpEQ(x, llvm::ConstantInt::get(t, -1, true)), x, v);
      return {v};
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
      if (r->kind == TypeKind::Complex) // numpy's sqrt, exp, log: cmath's
        return complexMath(math->name, inst, r);
      if (r->kind == TypeKind::Int) {
        // numpy.fmod of integers: C's remainder, 0 for a divisor of 0 (as
        // NumPy gives, with a warning). Dividing by 1 instead of 0 or -1
        // gives that 0 and never traps on INT_MIN % -1.
        llvm::Value *x = scalarOf(arg(0), r), *y = scalarOf(arg(1), r);
        llvm::Type *t = x->getType();
        llvm::Value *trap = builder_.CreateICmpEQ(y, llvm::ConstantInt::get(t, 0));
        if (r->isSigned)
          trap = builder_.CreateOr(
              trap, builder_.CreateICmpEQ(y, llvm::ConstantInt::get(t, -1, true)));
        llvm::Value *divisor =
            builder_.CreateSelect(trap, llvm::ConstantInt::get(t, 1), y);
        return {r->isSigned ? builder_.CreateSRem(x, divisor)
                            : builder_.CreateURem(x, divisor)};
      }
      std::vector<llvm::Value *> xs;
      for (size_t i = 0; i < argCount; ++i)
        xs.push_back(scalarOf(arg(i), r));
      if (std::string(math->name) == "log" && xs.size() == 2) // log(x, base)
        return {builder_.CreateFDiv(
            target_.emitMathCall(builder_, "log", {xs[0]}),
            target_.emitMathCall(builder_, "log", {xs[1]}))};
      if (std::string(math->builtin) == "pow")
        return {floatPower(xs[0], xs[1])};
      if (std::string(math->builtin) == "log1p") {
        // log1p(x) is x below half an ulp of 1 squared; PoCL's flushes the
        // smallest subnormals to 0, CPython keeps them.
        llvm::Value *x = xs[0];
        double tiny = x->getType()->isDoubleTy() ? 0x1p-54 : 0x1p-25;
        llvm::Value *small = builder_.CreateFCmpOLT(
            target_.emitMathCall(builder_, "fabs", {x}),
            llvm::ConstantFP::get(x->getType(), tiny));
        return {builder_.CreateSelect(
            small, x, target_.emitMathCall(builder_, "log1p", {x}))};
      }
      return {target_.emitMathCall(builder_, math->builtin, xs)};
    }
    }
  }
  unsupported(inst, unsupportedCallMessage(name, isHost()));
}

} // namespace spirjit::lower
