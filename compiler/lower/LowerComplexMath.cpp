// Complex numbers' math (NumPy's complex loops, cmath's functions): exp,
// log and its bases, sqrt, the trigonometric and hyperbolic functions and
// their inverses, with C99 Annex G's values at infinities, NaNs and signed
// zeros, as NumPy gives them; conjugates and NumPy's order of complex
// numbers. LowerMath.cpp's builtin and ufunc calls reach them.
#include "compiler/lower/Lowering.h"

#include "compiler/ArrayOps.h"

#include <cmath>

namespace spirjit::lower {

Lowered Lowering::complexMath(const std::string &name, const Instruction &inst,
                              const Type *result) {
  const Instruction *operand = inst.operands[1];
  const Type *in = types::materialize(operand->type);
  const Type *complexType = result->kind == TypeKind::Complex ? result
                            : in->kind == TypeKind::Complex   ? in
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
        builder_.CreateFCmpOLT(target_.emitMathCall(builder_, "fabs", {re}),
                               inf),
        builder_.CreateFCmpOLT(target_.emitMathCall(builder_, "fabs", {im}),
                               inf));
    return {finite};
  }
  if (name == "exp")
    return {complexExp(re, im)};
  llvm::Type *partType = re->getType();
  auto scaled = [&](llvm::Value *z, double factor) {
    llvm::Value *k = llvm::ConstantFP::get(partType, factor);
    llvm::Value *zr = builder_.CreateFMul(builder_.CreateExtractValue(z, 0), k);
    llvm::Value *zi = builder_.CreateFMul(builder_.CreateExtractValue(z, 1), k);
    return makeComplex(zr, zi);
  };
  auto logOf = [&](llvm::Value *x, llvm::Value *y) {
    llvm::Value *modulus = target_.emitMathCall(builder_, "hypot", {x, y});
    llvm::Value *logModulus = target_.emitMathCall(builder_, "log", {modulus});
    return makeComplex(logModulus,
                       target_.emitMathCall(builder_, "atan2", {y, x}));
  };
  // NumPy's complex loops (funcs.inc.src): log2 and log10 scale the log,
  // exp2 is exp(z ln 2), log1p the log of 1 + z, expm1 keeps the real
  // part's precision near 0.
  if (name == "log")
    return {logOf(re, im)};
  if (name == "log2")
    return {scaled(logOf(re, im), M_LOG2E)};
  if (name == "log10")
    return {scaled(logOf(re, im), M_LOG10E)};
  if (name == "log1p")
    return {logOf(builder_.CreateFAdd(re, llvm::ConstantFP::get(partType, 1.0)),
                  im)};
  if (name == "exp2") {
    llvm::Value *z = scaled(makeComplex(re, im), M_LN2);
    return {complexExp(builder_.CreateExtractValue(z, 0),
                       builder_.CreateExtractValue(z, 1))};
  }
  if (name == "expm1") {
    llvm::Value *half = builder_.CreateFMul(
        im, llvm::ConstantFP::get(partType, 0.5));
    llvm::Value *a = target_.emitMathCall(builder_, "sin", {half});
    llvm::Value *twoASquared = builder_.CreateFMul(
        llvm::ConstantFP::get(partType, 2.0), builder_.CreateFMul(a, a));
    llvm::Value *outRe = builder_.CreateFSub(
        builder_.CreateFMul(target_.emitMathCall(builder_, "expm1", {re}),
                            target_.emitMathCall(builder_, "cos", {im})),
        twoASquared);
    llvm::Value *outIm =
        builder_.CreateFMul(target_.emitMathCall(builder_, "exp", {re}),
                            target_.emitMathCall(builder_, "sin", {im}));
    // The Array API standard's special values (C99's cexp, less one): a
    // zero imaginary part gives expm1 of the real part and keeps the zero
    // (+0 for -0 + 0j); an infinite real part with an infinite or NaN
    // imaginary one gives inf + NaN j for +inf, -1 + 0j for -inf.
    llvm::Value *zero = llvm::ConstantFP::get(partType, 0.0);
    llvm::Value *inf = llvm::ConstantFP::getInfinity(partType);
    llvm::Value *imZero = builder_.CreateFCmpOEQ(im, zero);
    outRe = builder_.CreateSelect(
        imZero,
        builder_.CreateFAdd(target_.emitMathCall(builder_, "expm1", {re}),
                            zero),
        outRe);
    outIm = builder_.CreateSelect(imZero, im, outIm);
    llvm::Value *imWild = builder_.CreateNot(builder_.CreateFCmpOLT(
        target_.emitMathCall(builder_, "fabs", {im}), inf));
    llvm::Value *plusInf = builder_.CreateAnd(
        builder_.CreateFCmpOEQ(re, inf), imWild);
    llvm::Value *minusInf = builder_.CreateAnd(
        builder_.CreateFCmpOEQ(re, builder_.CreateFNeg(inf)), imWild);
    outRe = builder_.CreateSelect(plusInf, inf, outRe);
    outIm = builder_.CreateSelect(plusInf, llvm::ConstantFP::getNaN(partType),
                                  outIm);
    outRe = builder_.CreateSelect(
        minusInf, llvm::ConstantFP::get(partType, -1.0), outRe);
    outIm = builder_.CreateSelect(minusInf, zero, outIm);
    return {makeComplex(outRe, outIm)};
  }
  if (name == "sinh" || name == "cosh" || name == "sin" || name == "cos") {
    // C99 Annex G's csinh and ccosh, with sin z = -i sinh(iz) and
    // cos z = cosh(iz) as C99 defines them: a zero part keeps the other
    // part's real function (sinh(inf+0j) is inf+0j, not inf*0).
    bool trig = name == "sin" || name == "cos";
    llvm::Value *x = trig ? builder_.CreateFNeg(im) : re;
    llvm::Value *y = trig ? re : im;
    llvm::Value *zero = llvm::ConstantFP::get(partType, 0.0);
    llvm::Value *inf = llvm::ConstantFP::getInfinity(partType);
    llvm::Value *yZero = builder_.CreateFCmpOEQ(y, zero);
    llvm::Value *xZero = builder_.CreateFCmpOEQ(x, zero);
    llvm::Value *yFinite = builder_.CreateFCmpOLT(
        target_.emitMathCall(builder_, "fabs", {y}), inf);
    llvm::Value *sinhX = target_.emitMathCall(builder_, "sinh", {x});
    llvm::Value *coshX = target_.emitMathCall(builder_, "cosh", {x});
    llvm::Value *sinY = target_.emitMathCall(builder_, "sin", {y});
    llvm::Value *cosY = target_.emitMathCall(builder_, "cos", {y});
    llvm::Value *outRe, *outIm;
    if (name == "sinh" || name == "sin") {
      outRe = builder_.CreateFMul(sinhX, cosY);
      outIm = builder_.CreateFMul(coshX, sinY);
      outRe = builder_.CreateSelect(
          builder_.CreateAnd(xZero, builder_.CreateNot(yFinite)), x, outRe);
      outRe = builder_.CreateSelect(yZero, sinhX, outRe);
      outIm = builder_.CreateSelect(yZero, y, outIm);
    } else {
      outRe = builder_.CreateFMul(coshX, cosY);
      outIm = builder_.CreateFMul(sinhX, sinY);
      llvm::Value *one = llvm::ConstantFP::get(partType, 1.0);
      // A NaN x (cos's -im of a NaN) counts as positive, as NumPy's ccos.
      llvm::Value *signX = builder_.CreateSelect(
          builder_.CreateFCmpUNO(x, x), one,
          target_.emitMathCall(builder_, "copysign", {one, x}));
      outIm = builder_.CreateSelect(
          builder_.CreateAnd(xZero, builder_.CreateNot(yFinite)), zero, outIm);
      outRe = builder_.CreateSelect(yZero, coshX, outRe);
      outIm = builder_.CreateSelect(yZero, builder_.CreateFMul(signX, y),
                                    outIm);
    }
    // An infinite x with an infinite or NaN y: an infinite real part and
    // a NaN imaginary one (C99 leaves the infinity's sign to the library;
    // NumPy's sinh and cosh give +inf, its sin +inf j).
    llvm::Value *xInfinite = builder_.CreateFCmpOEQ(
        target_.emitMathCall(builder_, "fabs", {x}), inf);
    llvm::Value *wild = builder_.CreateAnd(xInfinite, builder_.CreateNot(yFinite));
    llvm::Value *wildRe = target_.emitMathCall(builder_, "fabs", {x});
    if (name == "sin") // sin's imaginary part (-outRe) comes out +inf
      wildRe = builder_.CreateFNeg(wildRe);
    outRe = builder_.CreateSelect(wild, wildRe, outRe);
    outIm = builder_.CreateSelect(wild, llvm::ConstantFP::getNaN(partType),
                                  outIm);
    if (name == "sin") // -i (a + bi) = b - ai
      return {makeComplex(outIm, builder_.CreateFNeg(outRe))};
    return {makeComplex(outRe, outIm)};
  }
  if (name == "tanh" || name == "tan") {
    // Kahan's ctanh (FreeBSD's, as C99 Annex G wants it) and tan z =
    // -i tanh(iz): no cancellation for large |x|, and the special values
    // of infinite and NaN parts.
    bool trig = name == "tan";
    llvm::Value *x = trig ? builder_.CreateFNeg(im) : re;
    llvm::Value *y = trig ? re : im;
    llvm::Value *zero = llvm::ConstantFP::get(partType, 0.0);
    llvm::Value *one = llvm::ConstantFP::get(partType, 1.0);
    llvm::Value *inf = llvm::ConstantFP::getInfinity(partType);
    llvm::Value *nan = llvm::ConstantFP::getNaN(partType);
    llvm::Value *absX = target_.emitMathCall(builder_, "fabs", {x});
    llvm::Value *absY = target_.emitMathCall(builder_, "fabs", {y});
    llvm::Value *sinY = target_.emitMathCall(builder_, "sin", {y});
    llvm::Value *cosY = target_.emitMathCall(builder_, "cos", {y});
    llvm::Value *t = target_.emitMathCall(builder_, "tan", {y});
    llvm::Value *beta = builder_.CreateFAdd(one, builder_.CreateFMul(t, t));
    llvm::Value *sh = target_.emitMathCall(builder_, "sinh", {x});
    llvm::Value *shSquared = builder_.CreateFMul(sh, sh);
    llvm::Value *rho = target_.emitMathCall(
        builder_, "sqrt", {builder_.CreateFAdd(one, shSquared)});
    llvm::Value *denom =
        builder_.CreateFAdd(one, builder_.CreateFMul(beta, shSquared));
    llvm::Value *outRe = builder_.CreateFDiv(
        builder_.CreateFMul(builder_.CreateFMul(beta, rho), sh), denom);
    llvm::Value *outIm = builder_.CreateFDiv(t, denom);
    // |x| >= 22: tanh x is +-1 in double precision.
    llvm::Value *signX = target_.emitMathCall(builder_, "copysign", {one, x});
    llvm::Value *big = builder_.CreateFCmpOGE(
        absX, llvm::ConstantFP::get(partType, 22.0));
    llvm::Value *expMinus = target_.emitMathCall(
        builder_, "exp", {builder_.CreateFNeg(absX)});
    llvm::Value *bigIm = builder_.CreateFMul(
        builder_.CreateFMul(llvm::ConstantFP::get(partType, 4.0),
                            builder_.CreateFMul(sinY, cosY)),
        builder_.CreateFMul(expMinus, expMinus));
    outRe = builder_.CreateSelect(big, signX, outRe);
    outIm = builder_.CreateSelect(big, bigIm, outIm);
    // An infinite or NaN y (x finite): NaN + NaN j, but x itself for x = 0.
    llvm::Value *yFinite = builder_.CreateFCmpOLT(absY, inf);
    llvm::Value *xZero = builder_.CreateFCmpOEQ(x, zero);
    outRe = builder_.CreateSelect(yFinite, outRe,
                                  builder_.CreateSelect(xZero, x, nan));
    outIm = builder_.CreateSelect(yFinite, outIm, nan);
    // An infinite x: +-1 + 0j, the zero signed as y (the Array API
    // standard's 1 + 0j for every positive finite y; C99 signs it as
    // sin 2y).
    llvm::Value *xInf = builder_.CreateFCmpOEQ(absX, inf);
    llvm::Value *infIm = target_.emitMathCall(builder_, "copysign", {zero, y});
    outRe = builder_.CreateSelect(xInf, signX, outRe);
    outIm = builder_.CreateSelect(xInf, infIm, outIm);
    // A NaN x: NaN, and y itself for y = 0.
    llvm::Value *xNaN = builder_.CreateFCmpUNO(x, x);
    llvm::Value *yZero = builder_.CreateFCmpOEQ(y, zero);
    outRe = builder_.CreateSelect(xNaN, nan, outRe);
    outIm = builder_.CreateSelect(xNaN, builder_.CreateSelect(yZero, y, nan),
                                  outIm);
    if (trig) // -i (a + bi) = b - ai
      return {makeComplex(outIm, builder_.CreateFNeg(outRe))};
    return {makeComplex(outRe, outIm)};
  }
  if (name == "rint") {
    llvm::Value *outRe = target_.emitMathCall(builder_, "rint", {re});
    return {makeComplex(outRe, target_.emitMathCall(builder_, "rint", {im}))};
  }
  if (name == "sign") {
    // NumPy 2: z / |z|, 0 for 0, NaN for a NaN part; an infinite part gives
    // its direction (NaN if both are infinite).
    llvm::Value *zero = llvm::ConstantFP::get(partType, 0.0);
    llvm::Value *one = llvm::ConstantFP::get(partType, 1.0);
    llvm::Value *nan = llvm::ConstantFP::getNaN(partType);
    llvm::Value *inf = llvm::ConstantFP::getInfinity(partType);
    llvm::Value *modulus = target_.emitMathCall(builder_, "hypot", {re, im});
    llvm::Value *outRe = builder_.CreateFDiv(re, modulus);
    llvm::Value *outIm = builder_.CreateFDiv(im, modulus);
    llvm::Value *reInf = builder_.CreateFCmpOEQ(
        target_.emitMathCall(builder_, "fabs", {re}), inf);
    llvm::Value *imInf = builder_.CreateFCmpOEQ(
        target_.emitMathCall(builder_, "fabs", {im}), inf);
    llvm::Value *reSign = target_.emitMathCall(builder_, "copysign", {one, re});
    llvm::Value *imSign = target_.emitMathCall(builder_, "copysign", {one, im});
    llvm::Value *onlyRe = builder_.CreateAnd(reInf, builder_.CreateNot(imInf));
    llvm::Value *onlyIm = builder_.CreateAnd(imInf, builder_.CreateNot(reInf));
    llvm::Value *bothInf = builder_.CreateAnd(reInf, imInf);
    outRe = builder_.CreateSelect(onlyRe, reSign, outRe);
    outIm = builder_.CreateSelect(onlyRe, zero, outIm);
    outRe = builder_.CreateSelect(onlyIm, zero, outRe);
    outIm = builder_.CreateSelect(onlyIm, imSign, outIm);
    outRe = builder_.CreateSelect(bothInf, nan, outRe);
    outIm = builder_.CreateSelect(bothInf, nan, outIm);
    llvm::Value *isZero = builder_.CreateFCmpOEQ(modulus, zero);
    outRe = builder_.CreateSelect(isZero, zero, outRe);
    outIm = builder_.CreateSelect(isZero, zero, outIm);
    return {makeComplex(outRe, outIm)};
  }
  if (name == "asinh" || name == "acosh" || name == "atanh" ||
      name == "asin" || name == "acos" || name == "atan")
    return {complexInverse(name, re, im)};
  return {complexSqrt(re, im)};
}

llvm::Value *Lowering::complexSqrt(llvm::Value *re, llvm::Value *im) {
  // sqrt: the principal root by CPython's cmath_sqrt_impl, which scales so
  // that no intermediate overflows (1e308+1e308j) or loses a subnormal.
  llvm::Type *type = re->getType();
  bool isDouble = type->isDoubleTy();
  auto constant = [&](double value) { return llvm::ConstantFP::get(type, value); };
  llvm::Value *absRe = target_.emitMathCall(builder_, "fabs", {re});
  llvm::Value *absIm = target_.emitMathCall(builder_, "fabs", {im});
  // Both parts below the smallest normal: scale up by 2^(2*(digits/2)+1).
  double smallest = isDouble ? 0x1p-1022 : 0x1p-126;
  double scaleUp = isDouble ? 0x1p53 : 0x1p25;
  double scaleDown = isDouble ? 0x1p-27 : 0x1p-13;
  llvm::Value *tiny = builder_.CreateAnd(
      builder_.CreateFCmpOLT(absRe, constant(smallest)),
      builder_.CreateFCmpOLT(absIm, constant(smallest)));
  llvm::Value *upRe = builder_.CreateFMul(absRe, constant(scaleUp));
  llvm::Value *tinyRoot = builder_.CreateFMul(
      target_.emitMathCall(
          builder_, "sqrt",
          {builder_.CreateFAdd(
              upRe, target_.emitMathCall(
                        builder_, "hypot",
                        {upRe, builder_.CreateFMul(absIm,
                                                   constant(scaleUp))}))}),
      constant(scaleDown));
  llvm::Value *eighthRe = builder_.CreateFMul(absRe, constant(0.125));
  llvm::Value *root = builder_.CreateFMul(
      constant(2.0),
      target_.emitMathCall(
          builder_, "sqrt",
          {builder_.CreateFAdd(
              eighthRe, target_.emitMathCall(
                            builder_, "hypot",
                            {eighthRe,
                             builder_.CreateFMul(absIm, constant(0.125))}))}));
  llvm::Value *s = builder_.CreateSelect(tiny, tinyRoot, root);
  llvm::Value *d =
      builder_.CreateFDiv(absIm, builder_.CreateFMul(constant(2.0), s));
  llvm::Value *nonNegative = builder_.CreateFCmpOGE(re, constant(0.0));
  llvm::Value *outRe = builder_.CreateSelect(nonNegative, s, d);
  llvm::Value *outIm = target_.emitMathCall(
      builder_, "copysign",
      {builder_.CreateSelect(nonNegative, d, s), im});
  // sqrt(±0 ± 0j) is (0, imag), where d would be 0/0.
  llvm::Value *isZero = builder_.CreateAnd(
      builder_.CreateFCmpOEQ(re, constant(0.0)),
      builder_.CreateFCmpOEQ(im, constant(0.0)));
  outRe = builder_.CreateSelect(isZero, constant(0.0), outRe);
  outIm = builder_.CreateSelect(isZero, im, outIm);
  // Infinite parts, as C99 Annex G and CPython's table: sqrt(±inf + yj) is
  // inf + 0j or 0 + inf j (nan for y = nan: nan + inf j from -inf), and an
  // infinite imaginary part gives inf + (that inf)j, even with a nan.
  llvm::Value *inf = constant(INFINITY);
  llvm::Value *nan = llvm::ConstantFP::getNaN(type);
  llvm::Value *imNaN = builder_.CreateFCmpUNO(im, im);
  llvm::Value *reMinusInf = builder_.CreateFCmpOEQ(re, constant(-INFINITY));
  llvm::Value *rePlusInf = builder_.CreateFCmpOEQ(re, inf);
  outRe = builder_.CreateSelect(
      reMinusInf, builder_.CreateSelect(imNaN, nan, constant(0.0)), outRe);
  outIm = builder_.CreateSelect(
      reMinusInf,
      builder_.CreateSelect(
          imNaN, inf, target_.emitMathCall(builder_, "copysign", {inf, im})),
      outIm);
  outRe = builder_.CreateSelect(rePlusInf, inf, outRe);
  outIm = builder_.CreateSelect(
      rePlusInf,
      builder_.CreateSelect(
          imNaN, im,
          target_.emitMathCall(builder_, "copysign", {constant(0.0), im})),
      outIm);
  llvm::Value *imInf = builder_.CreateFCmpOEQ(absIm, inf);
  outRe = builder_.CreateSelect(imInf, inf, outRe);
  outIm = builder_.CreateSelect(imInf, im, outIm);
  return makeComplex(outRe, outIm);
}

llvm::Value *Lowering::complexInverse(const std::string &name,
                                      llvm::Value *re, llvm::Value *im) {
  // The inverse trigonometric and hyperbolic functions by their logarithm
  // forms (as cmath defines them: Kahan's branch cuts), built from the
  // complex sqrt and log above:
  //   asinh z = log(z + sqrt(z^2 + 1)), on z or -z with a real part >= 0
  //             (no cancellation), negated back;
  //   acosh z = log(z + sqrt(z + 1) sqrt(z - 1));
  //   atanh z = (log(1 + z) - log(1 - z)) / 2;
  //   asin z = -i asinh(iz), atan z = -i atanh(iz), acos z = pi/2 - asin z.
  // Where |z| is so large that z^2 would overflow, asinh and acosh are
  // log(2z); where it is small, asinh and atanh are their Taylor series.
  llvm::Type *type = re->getType();
  bool isDouble = type->isDoubleTy();
  auto constant = [&](double v) { return llvm::ConstantFP::get(type, v); };
  auto cplx = [&](llvm::Value *r, llvm::Value *i) { return makeComplex(r, i); };
  auto part = [&](llvm::Value *z, unsigned k) {
    return builder_.CreateExtractValue(z, k);
  };
  auto logOf = [&](llvm::Value *z) {
    llvm::Value *x = part(z, 0), *y = part(z, 1);
    return cplx(target_.emitMathCall(
                    builder_, "log",
                    {target_.emitMathCall(builder_, "hypot", {x, y})}),
                target_.emitMathCall(builder_, "atan2", {y, x}));
  };
  auto add = [&](llvm::Value *a, llvm::Value *b) {
    return complexBinary(BinaryOperator::Add, a, b);
  };
  auto sub = [&](llvm::Value *a, llvm::Value *b) {
    return complexBinary(BinaryOperator::Sub, a, b);
  };
  auto mul = [&](llvm::Value *a, llvm::Value *b) {
    return complexBinary(BinaryOperator::Mul, a, b);
  };
  auto sqrtOf = [&](llvm::Value *z) { return complexSqrt(part(z, 0), part(z, 1)); };
  auto select = [&](llvm::Value *c, llvm::Value *a, llvm::Value *b) {
    return cplx(builder_.CreateSelect(c, part(a, 0), part(b, 0)),
                builder_.CreateSelect(c, part(a, 1), part(b, 1)));
  };
  // Adding a real number to a complex one adds to its real part only: a
  // complex 1 + 0j would turn the imaginary part's -0 into +0 and move a
  // result across its branch cut (asin(2 + 0j) would come out conjugated).
  auto plusReal = [&](llvm::Value *z, double v) {
    return cplx(builder_.CreateFAdd(part(z, 0), constant(v)), part(z, 1));
  };
  auto realMinus = [&](double v, llvm::Value *z) { // v - z
    return cplx(builder_.CreateFSub(constant(v), part(z, 0)),
                builder_.CreateFNeg(part(z, 1)));
  };
  llvm::Value *big = constant(isDouble ? 1e150 : 1e18);
  llvm::Value *small = constant(0.1);
  // max(|re|, |im|), within a factor 1.5 of |z|: fmax ignores a NaN part,
  // so an infinite part with a NaN one takes the far branch (log(2z) is
  // C99's inf + NaN i there); the series takes no NaN (isSmall).
  auto magnitude = [&](llvm::Value *z) {
    return target_.emitMathCall(
        builder_, "fmax",
        {target_.emitMathCall(builder_, "fabs", {part(z, 0)}),
         target_.emitMathCall(builder_, "fabs", {part(z, 1)})});
  };
  auto isSmall = [&](llvm::Value *z) {
    llvm::Value *x = part(z, 0), *y = part(z, 1);
    return builder_.CreateAnd(
        builder_.CreateFCmpOLE(magnitude(z), small),
        builder_.CreateAnd(builder_.CreateFCmpORD(x, x),
                           builder_.CreateFCmpORD(y, y)));
  };
  auto logTwice = [&](llvm::Value *z) { // log(2z) = log z + ln 2
    llvm::Value *l = logOf(z);
    return cplx(builder_.CreateFAdd(part(l, 0), constant(M_LN2)), part(l, 1));
  };
  // z (c0 + c1 z^2 + c2 z^4 + ...): the Taylor series where |z| <= 0.1,
  // which the logarithm forms would lose to cancellation (the first term
  // left out is below 1e-14 of the sum there).
  auto series = [&](llvm::Value *z, std::initializer_list<double> c) {
    std::vector<double> coefficients(c);
    llvm::Value *z2 = mul(z, z);
    llvm::Value *p = cplx(constant(coefficients.back()), constant(0.0));
    for (size_t k = coefficients.size() - 1; k-- > 0;)
      p = plusReal(mul(p, z2), coefficients[k]);
    return mul(z, p);
  };
  // Odd functions are computed where the real part's sign bit is clear
  // and negated back: the sign of a zero real part picks the side of the
  // branch cut, as C99 Annex G and NumPy (asin(inf + 0j) = pi/2 + inf j).
  auto signBit = [&](llvm::Value *v) {
    return builder_.CreateFCmpOLT(
        target_.emitMathCall(builder_, "copysign", {constant(1.0), v}),
        constant(0.0));
  };
  auto asinh = [&](llvm::Value *z) {
    llvm::Value *negative = signBit(part(z, 0));
    llvm::Value *w = select(
        negative, cplx(builder_.CreateFNeg(part(z, 0)),
                       builder_.CreateFNeg(part(z, 1))),
        z);
    llvm::Value *m = magnitude(w);
    llvm::Value *r = logOf(add(w, sqrtOf(plusReal(mul(w, w), 1.0))));
    r = select(builder_.CreateFCmpOGT(m, big), logTwice(w), r);
    r = select(isSmall(w),
               series(w, {1.0, -1.0 / 6, 3.0 / 40, -5.0 / 112, 35.0 / 1152,
                          -63.0 / 2816, 231.0 / 13312, -143.0 / 10240}),
               r);
    // asinh of a real number (a NaN one too) keeps the zero imaginary part.
    r = cplx(part(r, 0),
             builder_.CreateSelect(
                 builder_.CreateFCmpOEQ(part(w, 1), constant(0.0)), part(w, 1),
                 part(r, 1)));
    return select(negative,
                  cplx(builder_.CreateFNeg(part(r, 0)),
                       builder_.CreateFNeg(part(r, 1))),
                  r);
  };
  auto atanhRight = [&](llvm::Value *z) { // for Re z >= 0 (or NaN)
    // Re = log1p(4x / ((1 - x)^2 + y^2)) / 4 and Im = atan2(2y, (1 - x)
    // (1 + x) - y^2) / 2: the real part without the cancellation of a
    // difference of logarithms. C99 Annex G's values where a part is
    // infinite (+-0 + +-i pi/2, NaN for a NaN y); a zero x keeps its sign
    // (atanh(iy) = i atan y).
    llvm::Value *x = part(z, 0), *y = part(z, 1);
    llvm::Value *oneMinus = builder_.CreateFSub(constant(1.0), x);
    llvm::Value *denominator = builder_.CreateFAdd(
        builder_.CreateFMul(oneMinus, oneMinus), builder_.CreateFMul(y, y));
    llvm::Value *outRe = builder_.CreateFMul(
        constant(0.25),
        target_.emitMathCall(
            builder_, "log1p",
            {builder_.CreateFDiv(builder_.CreateFMul(constant(4.0), x),
                                 denominator)}));
    llvm::Value *outIm = builder_.CreateFMul(
        constant(0.5),
        target_.emitMathCall(
            builder_, "atan2",
            {builder_.CreateFMul(constant(2.0), y),
             builder_.CreateFSub(
                 builder_.CreateFMul(oneMinus,
                                     builder_.CreateFAdd(constant(1.0), x)),
                 builder_.CreateFMul(y, y))}));
    llvm::Value *inf = constant(INFINITY);
    llvm::Value *infinite = builder_.CreateOr(
        builder_.CreateFCmpOEQ(target_.emitMathCall(builder_, "fabs", {x}),
                               inf),
        builder_.CreateFCmpOEQ(target_.emitMathCall(builder_, "fabs", {y}),
                               inf));
    llvm::Value *yNaN = builder_.CreateFCmpUNO(y, y);
    llvm::Value *signedZero =
        target_.emitMathCall(builder_, "copysign", {constant(0.0), x});
    outRe = builder_.CreateSelect(infinite, signedZero, outRe);
    outIm = builder_.CreateSelect(
        infinite,
        builder_.CreateSelect(
            yNaN, y,
            target_.emitMathCall(builder_, "copysign",
                                 {constant(M_PI_2), y})),
        outIm);
    outRe = builder_.CreateSelect(builder_.CreateFCmpOEQ(x, constant(0.0)), x,
                                  outRe);
    return select(isSmall(z),
                  series(z, {1.0, 1.0 / 3, 1.0 / 5, 1.0 / 7, 1.0 / 9, 1.0 / 11,
                             1.0 / 13, 1.0 / 15}),
                  cplx(outRe, outIm));
  };
  // atanh is odd: computed where Re z >= 0, where log1p's argument 4x/d is
  // never near -1 (which would cost digits as x nears -1).
  auto atanh = [&](llvm::Value *z) {
    llvm::Value *negative = signBit(part(z, 0));
    auto neg = [&](llvm::Value *v) {
      return cplx(builder_.CreateFNeg(part(v, 0)),
                  builder_.CreateFNeg(part(v, 1)));
    };
    llvm::Value *r = atanhRight(select(negative, neg(z), z));
    return select(negative, neg(r), r);
  };
  auto timesI = [&](llvm::Value *z) { // i z
    return cplx(builder_.CreateFNeg(part(z, 1)), part(z, 0));
  };
  auto timesMinusI = [&](llvm::Value *z) { // -i z
    return cplx(part(z, 1), builder_.CreateFNeg(part(z, 0)));
  };
  llvm::Value *z = cplx(re, im);
  if (name == "asinh")
    return asinh(z);
  if (name == "atanh")
    return atanh(z);
  if (name == "asin")
    return timesMinusI(asinh(timesI(z)));
  if (name == "atan")
    return timesMinusI(atanh(timesI(z)));
  if (name == "acos") {
    llvm::Value *a = timesMinusI(asinh(timesI(z)));
    return cplx(builder_.CreateFSub(constant(M_PI_2), part(a, 0)),
                builder_.CreateFNeg(part(a, 1)));
  }
  // acosh
  llvm::Value *r = logOf(
      add(z, mul(sqrtOf(plusReal(z, 1.0)), sqrtOf(plusReal(z, -1.0)))));
  r = select(builder_.CreateFCmpOGT(magnitude(z), big), logTwice(z), r);
  // acosh(+-0 + i NaN) is NaN + i pi/2 (C99 Annex G, NumPy's).
  llvm::Value *zeroNaN =
      builder_.CreateAnd(builder_.CreateFCmpOEQ(re, constant(0.0)),
                         builder_.CreateFCmpUNO(im, im));
  return cplx(part(r, 0),
              builder_.CreateSelect(zeroNaN, constant(M_PI_2), part(r, 1)));
}

llvm::Value *Lowering::complexExp(llvm::Value *re, llvm::Value *im) {
  // e^re (cos im + i sin im), with C99 Annex G's special values (NumPy's
  // cexp, CPython's table): a zero imaginary part stays (exp(inf+0j) is
  // inf+0j, not inf*0); exp(-inf + iy) is 0 (the sign of y's zero) for an
  // infinite or NaN y; exp(inf + iy) is inf + NaN j for those.
  llvm::Value *scale = target_.emitMathCall(builder_, "exp", {re});
  llvm::Value *outRe =
      builder_.CreateFMul(scale, target_.emitMathCall(builder_, "cos", {im}));
  llvm::Value *outIm =
      builder_.CreateFMul(scale, target_.emitMathCall(builder_, "sin", {im}));
  llvm::Type *type = re->getType();
  llvm::Value *zero = llvm::ConstantFP::get(type, 0.0);
  llvm::Value *inf = llvm::ConstantFP::getInfinity(type);
  llvm::Value *absIm = target_.emitMathCall(builder_, "fabs", {im});
  llvm::Value *imInfinite = builder_.CreateNot(builder_.CreateFCmpOLT(absIm, inf));
  llvm::Value *reMinusInf =
      builder_.CreateFCmpOEQ(re, llvm::ConstantFP::getInfinity(type, true));
  llvm::Value *toZero = builder_.CreateAnd(reMinusInf, imInfinite);
  llvm::Value *signedZero =
      target_.emitMathCall(builder_, "copysign", {zero, im});
  outRe = builder_.CreateSelect(toZero, zero, outRe);
  outIm = builder_.CreateSelect(toZero, signedZero, outIm);
  llvm::Value *rePlusInf = builder_.CreateFCmpOEQ(re, inf);
  llvm::Value *toInf = builder_.CreateAnd(rePlusInf, imInfinite);
  outRe = builder_.CreateSelect(toInf, inf, outRe);
  outIm = builder_.CreateSelect(toInf, llvm::ConstantFP::getNaN(type), outIm);
  llvm::Value *real = builder_.CreateFCmpOEQ(im, zero);
  outRe = builder_.CreateSelect(real, scale, outRe);
  outIm = builder_.CreateSelect(real, im, outIm);
  return makeComplex(outRe, outIm);
}

llvm::Value *Lowering::conjugate(llvm::Value *z, const Type *t) {
  if (t->kind != TypeKind::Complex)
    return z;
  return makeComplex(builder_.CreateExtractValue(z, 0),
                     builder_.CreateFNeg(builder_.CreateExtractValue(z, 1)));
}

llvm::Value *Lowering::complexOrder(const ArrayOp &ufunc, llvm::Value *x,
                                    llvm::Value *y) {
  // NumPy's order of complex numbers (its CLT/CLE/CGT/CGE): by real part
  // when no imaginary part is NaN, else by imaginary part of equal real
  // parts.
  llvm::Value *xr = builder_.CreateExtractValue(x, 0);
  llvm::Value *xi = builder_.CreateExtractValue(x, 1);
  llvm::Value *yr = builder_.CreateExtractValue(y, 0);
  llvm::Value *yi = builder_.CreateExtractValue(y, 1);
  bool greater = ufunc.id == ArrayOpId::Greater ||
                 ufunc.id == ArrayOpId::GreaterEqual ||
                 ufunc.id == ArrayOpId::Maximum || ufunc.id == ArrayOpId::Fmax;
  bool orEqual = ufunc.id != ArrayOpId::Less && ufunc.id != ArrayOpId::Greater;
  llvm::Value *realOrder =
      greater ? builder_.CreateFCmpOGT(xr, yr) : builder_.CreateFCmpOLT(xr, yr);
  llvm::Value *byReal =
      builder_.CreateAnd(realOrder, builder_.CreateFCmpORD(xi, yi));
  llvm::Value *byImaginary =
      greater ? (orEqual ? builder_.CreateFCmpOGE(xi, yi)
                         : builder_.CreateFCmpOGT(xi, yi))
              : (orEqual ? builder_.CreateFCmpOLE(xi, yi)
                         : builder_.CreateFCmpOLT(xi, yi));
  llvm::Value *sameReal = builder_.CreateFCmpOEQ(xr, yr);
  llvm::Value *ordered =
      builder_.CreateOr(byReal, builder_.CreateAnd(sameReal, byImaginary));
  if (ufunc.scalar == ArrayOpScalar::Compare)
    return ordered;
  // maximum/minimum: x when it has a NaN part or wins, else y; fmax/fmin:
  // x when y has a NaN part or x wins.
  bool ignoreNaN = ufunc.id == ArrayOpId::Fmax || ufunc.id == ArrayOpId::Fmin;
  llvm::Value *z = ignoreNaN ? y : x;
  llvm::Value *realNaN =
      builder_.CreateFCmpUNO(builder_.CreateExtractValue(z, 0),
                             builder_.CreateExtractValue(z, 0));
  llvm::Value *hasNaN = builder_.CreateOr(
      realNaN, builder_.CreateFCmpUNO(builder_.CreateExtractValue(z, 1),
                                      builder_.CreateExtractValue(z, 1)));
  return builder_.CreateSelect(builder_.CreateOr(hasNaN, ordered), x, y);
}

} // namespace spirjit::lower
