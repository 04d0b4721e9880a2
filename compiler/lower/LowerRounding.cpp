// Floats to Python ints (math.floor/ceil/trunc, round(x), int(x)) and
// round(x, ndigits): the answers CPython gives, or, where CPython would
// need an int beyond int64 or raise, the ones docs/user-guide.md states.
#include "compiler/lower/Lowering.h"

#include <cmath>

namespace spirjit::lower {

llvm::Value *Lowering::saturatingToInteger(llvm::Value *x, const Type *to) {
  // CPython makes a big int (or raises for inf and nan); a kernel's int is
  // int64, so these saturate as LLVM's fptosi.sat does: beyond the range
  // to its ends, nan to 0. The comparisons are exact: both limits are
  // powers of two, representable in every float type.
  to = types::materialize(to);
  SPIRJIT_INTERNAL_CHECK(to->kind == TypeKind::Int,
                         "saturating conversion to " + to->str());
  llvm::Type *type = scalarType(to);
  llvm::APInt highest = to->isSigned ? llvm::APInt::getSignedMaxValue(to->bits)
                                     : llvm::APInt::getMaxValue(to->bits);
  llvm::APInt lowest = to->isSigned ? llvm::APInt::getSignedMinValue(to->bits)
                                    : llvm::APInt::getMinValue(to->bits);
  // 2**(bits-1) for signed, 2**bits for unsigned: the first value above.
  double above = std::ldexp(1.0, to->isSigned ? to->bits - 1 : to->bits);
  double below = to->isSigned ? -above : -1.0;
  llvm::Value *converted = to->isSigned ? builder_.CreateFPToSI(x, type)
                                        : builder_.CreateFPToUI(x, type);
  llvm::Value *tooHigh = builder_.CreateFCmpOGE(
      x, llvm::ConstantFP::get(x->getType(), above));
  llvm::Value *tooLow = builder_.CreateFCmpOLE(
      x, llvm::ConstantFP::get(x->getType(), below));
  if (to->isSigned) // -2**(bits-1) itself is in range
    tooLow = builder_.CreateFCmpOLT(
        x, llvm::ConstantFP::get(x->getType(), below));
  llvm::Value *isNaN = builder_.CreateFCmpUNO(x, x);
  llvm::Value *result = builder_.CreateSelect(
      tooHigh, llvm::ConstantInt::get(type, highest), converted);
  result = builder_.CreateSelect(tooLow, llvm::ConstantInt::get(type, lowest),
                                 result);
  return builder_.CreateSelect(isNaN, llvm::ConstantInt::get(type, 0), result);
}

llvm::Value *Lowering::powerOfTen(llvm::IRBuilder<> &b, llvm::Type *type,
                                  llvm::Value *k, unsigned bits) {
  bool isDouble = type->isDoubleTy();
  llvm::Value *power = llvm::ConstantFP::get(type, 1.0);
  double base64 = 10.0;
  float base32 = 10.0f;
  for (unsigned i = 0; i < bits; ++i) {
    // The square in the type's own rounding, as a loop would make it.
    double base = isDouble ? base64 : double(base32);
    llvm::Value *set = b.CreateICmpNE(
        b.CreateAnd(k, llvm::ConstantInt::get(k->getType(), 1ull << i)),
        llvm::ConstantInt::get(k->getType(), 0));
    power = b.CreateFMul(
        power, b.CreateSelect(set, llvm::ConstantFP::get(type, base),
                              llvm::ConstantFP::get(type, 1.0)));
    base64 *= base64;
    base32 *= base32;
  }
  return power;
}

llvm::Function *Lowering::roundDigitsFunction(llvm::Type *type) {
  // CPython's round(x, n) is the double nearest to the decimal that x
  // rounds to at n places (half to even), from an exact decimal
  // conversion. Without big ints: for |n| <= 22 (10 in float32), p =
  // 10**|n| is exact, and so is the rounding error of x * p (fma(x, p, -y))
  // or the remainder of x / p (fma(-q, p, x)); they decide the ties that
  // the rounded product or quotient hides, and one last correctly rounded
  // r / p or r * p is the float nearest the decimal. Beyond, p is the
  // nearest float to 10**|n| and the answer may be an ulp off CPython's.
  bool isDouble = type->isDoubleTy();
  std::string name =
      std::string("spirjit.round.digits.") + (isDouble ? "f64" : "f32");
  if (llvm::Function *existing = module_->getFunction(name))
    return existing;
  // Where |x * 10**n| reaches `integral`, x's ulp exceeds 10**-n; below
  // `fewestDigits` places every finite float rounds to zero.
  double integral = isDouble ? 0x1p53 : 0x1p24;
  int64_t fewestDigits = isDouble ? -308 : -38;
  llvm::Type *i64 = builder_.getInt64Ty();
  auto *fnType = llvm::FunctionType::get(type, {type, i64}, false);
  auto *helper = llvm::Function::Create(
      fnType, llvm::Function::InternalLinkage, name, module_);
  helper->setCallingConv(target_.functionCallingConvention());
  llvm::IRBuilder<> b(context_);
  auto *entry = llvm::BasicBlock::Create(context_, "entry", helper);
  llvm::Value *x = helper->getArg(0), *n = helper->getArg(1);
  auto c = [&](double v) { return llvm::ConstantFP::get(type, v); };
  auto math = [&](const char *f, std::vector<llvm::Value *> args) {
    return target_.emitMathCall(b, f, args);
  };

  // p = 10**k, k = min(|n|, 400): past the largest float p is inf.
  b.SetInsertPoint(entry);
  llvm::Value *negative = b.CreateICmpSLT(n, b.getInt64(0));
  llvm::Value *k = b.CreateSelect(negative, b.CreateNeg(n), n);
  k = b.CreateSelect(b.CreateICmpUGT(k, b.getInt64(400)), b.getInt64(400), k);
  llvm::Value *p = powerOfTen(b, type, k, 9);

  // The scaled value s (x * p, or x / p) with the sign of its exact error
  // in `error`, and where a tie's hidden half sits: a tie of s itself
  // (|s - rint(s)| == 0.5) goes the error's way, and in the binade below
  // `integral`, where s is an integer, an error of exactly half a unit
  // (`half`) is a tie between s and s + 2 * error's sign.
  llvm::Value *product = b.CreateFMul(x, p);
  llvm::Value *productError = math("fma", {x, p, b.CreateFNeg(product)});
  llvm::Value *quotient = b.CreateFDiv(x, p);
  llvm::Value *remainder = math("fma", {b.CreateFNeg(quotient), p, x});
  llvm::Value *s = b.CreateSelect(negative, quotient, product);
  llvm::Value *error = b.CreateSelect(negative, remainder, productError);
  llvm::Value *half =
      b.CreateSelect(negative, b.CreateFMul(p, c(0.5)), c(0.5));
  llvm::Value *r = math("rint", {s});
  llvm::Value *fraction = b.CreateFSub(s, r);
  llvm::Value *towardError = math("copysign", {c(0.5), error});
  llvm::Value *errorNonZero = b.CreateFCmpONE(error, c(0.0));
  llvm::Value *tieOfS = b.CreateAnd(
      b.CreateFCmpOEQ(math("fabs", {fraction}), c(0.5)), errorNonZero);
  r = b.CreateSelect(tieOfS, b.CreateFAdd(s, towardError), r);
  llvm::Value *sOdd =
      b.CreateFCmpONE(b.CreateFMul(math("rint", {b.CreateFMul(s, c(0.5))}),
                                   c(2.0)),
                      s);
  llvm::Value *hiddenTie = b.CreateAnd(
      b.CreateFCmpOEQ(math("fabs", {error}), half), sOdd);
  r = b.CreateSelect(hiddenTie,
                     b.CreateFAdd(s, b.CreateFMul(towardError, c(2.0))), r);
  // -0.5 + 0.5 is +0: the decimal keeps x's sign, as CPython's -0.0.
  r = math("copysign", {r, s});
  llvm::Value *rounded =
      b.CreateSelect(negative, b.CreateFMul(r, p), b.CreateFDiv(r, p));
  // From `integral` (and for x * p beyond the range) the decimal is
  // nearer to x than to x's neighbours: x itself, as CPython.
  llvm::Value *scaledSmall = b.CreateFCmpOLT(math("fabs", {s}), c(integral));
  rounded = b.CreateSelect(scaledSmall, rounded, x);
  // CPython: below -308 digits (fewestDigits), 0.0 * x; but inf and nan
  // stay themselves.
  rounded = b.CreateSelect(b.CreateICmpSLT(n, b.getInt64(fewestDigits)),
                           b.CreateFMul(c(0.0), x), rounded);
  rounded = b.CreateSelect(
      b.CreateFCmpOLT(math("fabs", {x}), c(INFINITY)), rounded, x);
  b.CreateRet(rounded);
  return helper;
}

llvm::Value *Lowering::roundDigits(llvm::Value *x, llvm::Value *digits) {
  // CPython rounds a float32 as the double it is (exact); the answer is
  // that double narrowed. A device without fp64 rounds in float32: the
  // float32 nearest the decimal, which differs only where narrowing the
  // nearest double rounds twice.
  llvm::Type *type = x->getType();
  bool wide = type->isFloatTy() && options_.fp64;
  llvm::Type *computed = wide ? builder_.getDoubleTy() : type;
  llvm::CallInst *call = builder_.CreateCall(
      roundDigitsFunction(computed),
      {wide ? builder_.CreateFPExt(x, computed) : x, digits});
  call->setCallingConv(target_.functionCallingConvention());
  return wide ? builder_.CreateFPTrunc(call, type) : call;
}

} // namespace spirjit::lower
