// Builtins (abs, min, round, complex, ...), NumPy type classes as casts,
// and the math, cmath and NumPy functions (MathFunctions.def, ArrayOps.def).
#include "compiler/infer/Inference.h"

#include "compiler/ArrayOps.h"
#include "compiler/MathFunctions.h"

#include <algorithm>
#include <cstring>

namespace spirjit::infer {

/// The type of the real or imaginary part of a number of type `t`.
const Type *complexPart(const Type *t) {
  switch (t->kind) {
  case TypeKind::Complex:
    return types::floating(t->bits);
  case TypeKind::WeakComplex:
    return types::weakFloat();
  default:
    return t;
  }
}

namespace {

/// The result type of a float math function of an argument of type `a`:
/// float32 stays float32; Python numbers give Python floats from `math` and
/// float64 from NumPy; NumPy's float16 of bools and small integers is
/// float32 here.
const Type *mathResultType(bool isMath, const Type *a) {
  switch (a->kind) {
  case TypeKind::Float:
    return a;
  case TypeKind::WeakFloat:
  case TypeKind::WeakInt:
    return isMath ? types::weakFloat() : types::floating(64);
  default:
    return !isMath && (a->kind == TypeKind::Bool ||
                       (a->bits > 0 && a->bits <= 16))
               ? types::floating(32)
               : types::floating(64);
  }
}

} // namespace

const Type *Inference::inferBuiltinCall(Instruction &inst,
                                        const std::vector<const Type *> &given) {
  const Type *callee = inst.operands[0]->type;
  const ArrayOp *ufunc =
      callee->kind == TypeKind::Function ? findUfunc(callee->name) : nullptr;
  const std::vector<const Type *> args =
      ufunc ? ufuncOperands(inst, *ufunc, given) : given;
  auto arity = [&](size_t lo, size_t hi, const std::string &name) {
    requireArity(inst, args, lo, hi, name);
  };
  auto requireNumbers = [&](const std::string &name) {
    Inference::requireNumbers(inst, args, name);
  };
  if (callee->kind == TypeKind::Method && callee->name == "conjugate") {
    arity(0, 0, "conjugate");
    return callee->elements[0];
  }
  if (callee->kind == TypeKind::DTypeClass) {
    arity(1, 1, callee->element->str());
    requireNumbers(callee->element->str());
    return callee->element;
  }
  if (callee->kind != TypeKind::Function)
    typingError(inst, "'" + callee->str() + "' is not callable in a kernel");

  const std::string &name = callee->name;
  if (name == "range" || name == "spirjit.prange") {
    arity(1, 3, name == "range" ? "range" : "prange");
    for (const Type *t : args)
      requireInteger(inst, t, "a range() argument");
    return types::range();
  }
  if ((name == "enumerate" || name == "zip") &&
      result_.kind == FunctionKind::Host) {
    // Only as what a for loop iterates (compiler/SequenceLoops.h).
    arity(1, name == "enumerate" ? 1 : 8, name);
    for (const Type *t : args)
      if ((t->kind != TypeKind::Array || t->ndim < 1) &&
          t->kind != TypeKind::List)
        unsupported(inst, name + "() in jit functions takes arrays and "
                                 "lists, not a '" +
                              t->str() + "'");
    return types::sequences(name, args);
  }
  if (name == "spirjit.pndindex") {
    // pndindex(n, m) or pndindex(a.shape), as numpy.ndindex takes them.
    std::vector<const Type *> extents = args;
    if (args.size() == 1 && args[0]->kind == TypeKind::Tuple)
      extents = args[0]->elements;
    if (extents.empty())
      typingError(inst, "pndindex() needs the extents to iterate over");
    for (const Type *t : extents)
      requireInteger(inst, t, "a pndindex() extent");
    if (extents.size() > 3)
      unsupported(inst, "pndindex() over " + std::to_string(extents.size()) +
                            " dimensions: a launch has at most 3; nest a "
                            "range loop over the others inside the loop");
    return types::range(static_cast<int>(extents.size()));
  }
  if (name == "abs") {
    arity(1, 1, name);
    requireNumbers(name);
    if (args[0]->kind == TypeKind::Complex ||
        args[0]->kind == TypeKind::WeakComplex)
      return complexPart(args[0]); // |z|
    return args[0]->kind == TypeKind::Bool ? types::weakInt() : args[0];
  }
  if (name == "min" || name == "max") {
    if (args.size() < 2)
      typingError(inst, name + "() needs at least two numbers in a kernel");
    requireNumbers(name);
    for (const Type *t : args)
      if (t->kind == TypeKind::Complex || t->kind == TypeKind::WeakComplex)
        typingError(inst, name + "() cannot order complex numbers");
    const Type *t = args[0];
    for (const Type *a : args)
      t = types::promote(t, a);
    if (inst.isa(Opcode::Call) && inst.operands.size() == args.size() + 1)
      requireLiteralsFit(inst,
                         std::vector<Instruction *>(inst.operands.begin() + 1,
                                                    inst.operands.end()),
                         t);
    return t;
  }
  if (name == "int" || name == "float" || name == "bool") {
    arity(1, 1, name);
    requireNumbers(name);
    return name == "int"     ? types::weakInt()
           : name == "float" ? types::weakFloat()
                             : types::boolean();
  }
  if (name == "len") {
    arity(1, 1, name);
    if (args[0]->kind == TypeKind::Tuple) {
      // Known when it compiles, as a.ndim is: code may branch on it.
      result_.constants[&inst] =
          ConstValue::ofInt(static_cast<int64_t>(args[0]->elements.size()));
      return types::weakInt();
    }
    if (args[0]->kind == TypeKind::Array)
      return types::weakInt();
    typingError(inst, "len() needs an array or a tuple, got '" +
                          args[0]->str() + "'");
  }
  if (name == "complex") {
    arity(1, 2, name);
    requireNumbers(name);
    const Type *t = types::weakComplex(); // a Python complex
    for (const Type *a : args) // complex(z) keeps a typed z's precision
      if (a->kind == TypeKind::Complex)
        t = types::promote(t, a);
    return t;
  }
  if (name.compare(0, 6, "cmath.") == 0)
    return inferComplexMath(inst, name.substr(6), args);
  if (name == "round") {
    arity(1, 2, name);
    requireNumbers(name);
    if (args.size() == 2) {
      requireInteger(inst, args[1], "round()'s number of digits");
      return args[0]->kind == TypeKind::Float ? args[0] : types::weakFloat();
    }
    return types::weakInt(); // round(x) is a Python int
  }
  if (ufunc && ufunc->scalar == ArrayOpScalar::Absolute) {
    arity(1, 1, name);
    requireNumbers(name);
    return types::materialize(args[0]->kind == TypeKind::Bool
                                  ? types::boolean()
                                  : complexPart(args[0]));
  }
  if (ufunc && ufunc->scalar != ArrayOpScalar::Math)
    return inferUfuncCall(inst, *ufunc, args);
  if (const MathFunction *math = findMathFunction(name)) {
    bool isMath = name.compare(0, 5, "math.") == 0;
    bool logWithBase = isMath && std::string(math->name) == "log";
    arity(math->arity, logWithBase ? 2 : math->arity, name);
    requireNumbers(name);
    bool complexArgument = false;
    for (const Type *a : args)
      complexArgument |=
          a->kind == TypeKind::Complex || a->kind == TypeKind::WeakComplex;
    // NumPy's complex loops that kernels have (LowerMath.cpp's
    // complexMath).
    static const std::set<std::string> complexRows = {
        "sqrt", "exp",  "log",  "log2",  "log10", "log1p", "exp2",
        "expm1", "rint", "sin",  "cos",   "tan",   "sinh",  "cosh",
        "tanh", "asin", "acos", "atan", "asinh", "acosh", "atanh"};
    bool complexLoop = math->kind == MathFunction::Kind::Conjugate ||
                       math->kind == MathFunction::Kind::Predicate ||
                       math->kind == MathFunction::Kind::Logical ||
                       math->kind == MathFunction::Kind::Square ||
                       math->kind == MathFunction::Kind::Reciprocal ||
                       math->kind == MathFunction::Kind::Sign ||
                       math->kind == MathFunction::Kind::NanMinMax ||
                       (!isMath && complexRows.count(math->name));
    if (complexArgument && !complexLoop)
      unsupported(inst, name + "() of a complex number is not supported" +
                            (isMath ? "; use cmath" : " in kernels"));
    switch (math->kind) {
    case MathFunction::Kind::Predicate:
    case MathFunction::Kind::SignBit:
      return types::boolean();
    case MathFunction::Kind::Rounding:
      if (isMath)
        return types::weakInt();
      if (args[0]->kind != TypeKind::Float &&
          args[0]->kind != TypeKind::WeakFloat)
        return types::materialize(args[0]); // NumPy 2: an integer itself
      break;
    case MathFunction::Kind::Square:
    case MathFunction::Kind::Reciprocal:
    case MathFunction::Kind::Conjugate:
      return types::materialize(args[0]);
    case MathFunction::Kind::Sign: // a bool's refused by ufuncOperands
      return types::materialize(args[0]);
    case MathFunction::Kind::NanMinMax:
      return types::materialize(types::promote(args[0], args[1]));
    case MathFunction::Kind::Logical:
      return types::boolean();
    case MathFunction::Kind::Gcd:
    case MathFunction::Kind::BitCount: {
      for (const Type *a : args)
        if (a->kind != TypeKind::Int && a->kind != TypeKind::WeakInt &&
            a->kind != TypeKind::Bool)
          typingError(inst, name + "() takes integers (NumPy has no loop "
                                   "for '" + a->str() + "')");
      if (math->kind == MathFunction::Kind::BitCount)
        return types::integer(8, false);
      const Type *common = types::materialize(
          args.size() == 1 ? args[0] : types::promote(args[0], args[1]));
      return common->kind == TypeKind::Bool ? types::integer(8, true)
                                            : common;
    }
    case MathFunction::Kind::LdExp:
      requireInteger(inst, args[1], name + "()'s exponent");
      return mathResultType(isMath, args[0]);
    default:
      break;
    }
    const Type *common = args[0];
    for (const Type *a : args)
      common = types::promote(common, a);
    if (complexArgument)
      return types::materialize(common);
    if (!isMath && std::string(math->name) == "fmod" &&
        common->kind != TypeKind::Float && common->kind != TypeKind::WeakFloat)
      // NumPy's integer loops: C's remainder, in the integers' type (a
      // bool's in int8).
      return common->kind == TypeKind::Bool ? types::integer(8, true)
                                            : types::materialize(common);
    return mathResultType(isMath, common);
  }
  unsupported(inst, unsupportedCallMessage(
                        name, result_.kind == FunctionKind::Host));
}

std::vector<const Type *>
Inference::ufuncOperands(Instruction &inst, const ArrayOp &ufunc,
                         const std::vector<const Type *> &args) {
  std::string name = "numpy." + std::string(ufunc.numpy);
  requireArity(inst, args, ufunc.arity, ufunc.arity, name);
  requireNumbers(inst, args, name);
  std::vector<const Type *> operands = args;
  // With no typed operand NumPy takes its default types for Python numbers
  // (np.add(1, 2) is an int64); with one, they are weak (NEP 50).
  if (std::all_of(args.begin(), args.end(),
                  [](const Type *t) { return t->isWeak(); }))
    for (const Type *&t : operands)
      t = types::materialize(t);
  bool allBool = std::all_of(operands.begin(), operands.end(), [](const Type *t) {
    return t->kind == TypeKind::Bool;
  });
  if (!allBool || std::strchr(ufunc.loops, 'b'))
    return operands;
  if (ufunc.id == ArrayOpId::Negative || ufunc.id == ArrayOpId::Positive ||
      ufunc.id == ArrayOpId::Subtract || ufunc.id == ArrayOpId::Sign)
    typingError(inst, name + "() of a bool is not defined (NumPy has no "
                             "such loop); use ^, ~ or np.logical_not");
  // NumPy's first loop that holds a bool: int8's (np.square(True) is an
  // int8), or a float's for the float functions, which take int8 too.
  for (const Type *&t : operands)
    t = types::integer(8, true);
  return operands;
}

const Type *Inference::inferUfuncCall(Instruction &inst, const ArrayOp &ufunc,
                                      const std::vector<const Type *> &args) {
  // NumPy orders complex numbers too (by real part, then imaginary part),
  // which Python's operators refuse to do.
  if (ufunc.scalar == ArrayOpScalar::MaxMin)
    return types::materialize(types::promote(args[0], args[1]));
  if (ufunc.scalar == ArrayOpScalar::Compare)
    return types::boolean();
  std::string name = "numpy." + std::string(ufunc.numpy);
  std::optional<UfuncOperator> op = ufuncOperator(name);
  SPIRJIT_INTERNAL_CHECK(op, name + " is neither an operator nor a function");
  // The operator's rules, as `a + b` has them on NumPy numbers.
  Instruction probe = inst;
  probe.opcode = op->opcode;
  probe.index = op->op;
  probe.name.clear();
  return types::materialize(op->opcode == Opcode::UnaryOp
                                ? inferUnary(probe, args[0])
                                : inferBinary(probe, args[0], args[1]));
}

const Type *Inference::inferComplexMath(Instruction &inst,
                                        const std::string &name,
                                        const std::vector<const Type *> &args) {
  for (const Type *t : args)
    if (!t->isNumber())
      typingError(inst,
                  "cmath." + name + "() needs numbers, got '" + t->str() + "'");
  auto complexOf = [](const Type *t) {
    switch (t->kind) {
    case TypeKind::Complex:
      return t;
    case TypeKind::Float:
      return types::complex(t->bits);
    default: // Python numbers and integers give Python complex numbers
      return t->isWeak() ? types::weakComplex() : types::complex(64);
    }
  };
  auto expect = [&](size_t n) {
    if (args.size() != n)
      typingError(inst, "cmath." + name + "() takes " + std::to_string(n) +
                            " arguments, got " + std::to_string(args.size()));
  };
  if (name == "sqrt" || name == "exp" || name == "log") {
    expect(1);
    return complexOf(args[0]);
  }
  if (name == "phase") {
    expect(1);
    return complexPart(complexOf(args[0]));
  }
  if (name == "isnan" || name == "isinf" || name == "isfinite") {
    expect(1);
    return types::boolean();
  }
  if (name == "rect") {
    expect(2);
    return complexOf(types::promote(args[0], args[1]));
  }
  unsupported(inst, "cmath." + name +
                        "() is not supported in kernels (there "
                        "are cmath.sqrt, exp, log, phase, rect, isnan, isinf, "
                        "isfinite)");
}

} // namespace spirjit::infer
