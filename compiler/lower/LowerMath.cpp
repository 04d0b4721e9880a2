// Builtins (abs, min, round, complex, ...), conversions to NumPy types, and
// the math, cmath and NumPy functions (MathFunctions.def, ArrayOps.def).
#include "compiler/lower/Lowering.h"

#include "compiler/ArrayOps.h"
#include "compiler/MathFunctions.h"

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
    // An infinite x: +-1 + 0j, the zero signed as sin y cos y (as y if y
    // is infinite).
    llvm::Value *xInf = builder_.CreateFCmpOEQ(absX, inf);
    llvm::Value *yInf = builder_.CreateFCmpOEQ(absY, inf);
    llvm::Value *infIm = target_.emitMathCall(
        builder_, "copysign",
        {zero, builder_.CreateSelect(yInf, y, builder_.CreateFMul(sinY, cosY))});
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
