// NumPy's operators on scalars: what each gives, NEP 50 weak scalars
// included, and which operand types it rejects.
#include "compiler/infer/Inference.h"

namespace spirjit::infer {

void Inference::requireLiteralsFit(Instruction &inst,
                                   const std::vector<Instruction *> &operands,
                                   const Type *common) {
  if (common->kind != TypeKind::Int)
    return;
  for (const Instruction *operand : operands) {
    if (operand->type != types::weakInt())
      continue;
    std::optional<int64_t> v = literalValue(operand);
    if (!v)
      continue;
    bool fits;
    if (common->isSigned)
      fits = common->bits >= 64 || (*v >= -(int64_t(1) << (common->bits - 1)) &&
                                    *v < (int64_t(1) << (common->bits - 1)));
    else
      fits = *v >= 0 &&
             (common->bits >= 64 || *v < (int64_t(1) << common->bits));
    if (!fits)
      typingError(inst, "Python integer " + std::to_string(*v) +
                            " out of bounds for " + common->str() +
                            " (NumPy 2 raises OverflowError here: widen the "
                            "typed operand first, e.g. np.int64(x))");
  }
}

const Type *Inference::inferBinary(Instruction &inst, const Type *a,
                                   const Type *b) {
  auto op = static_cast<ir::BinaryOperator>(inst.index);
  std::string opText = ir::binaryOperatorText(op);
  if (a->kind == TypeKind::Tuple && b->kind == TypeKind::Tuple &&
      op == ir::BinaryOperator::Add) {
    // t1 + t2: a tuple of both's elements.
    std::vector<const Type *> elements = a->elements;
    elements.insert(elements.end(), b->elements.begin(), b->elements.end());
    return types::tuple(elements);
  }
  if (op == ir::BinaryOperator::Mul &&
      ((a->kind == TypeKind::Tuple && b->isNumber()) ||
       (b->kind == TypeKind::Tuple && a->isNumber())))
    unsupported(inst, "repeating a list or a tuple ([0.0] * n) is not "
                      "supported here; write np.zeros(n) or np.full(n, v) "
                      "for an array, or [v for _ in range(n)] for a list");
  if (!a->isNumber() || !b->isNumber())
    typingError(inst, "unsupported operand types for " + opText + ": '" +
                          a->str() + "' and '" + b->str() + "'");
  if (op == ir::BinaryOperator::MatMul)
    unsupported(inst, "the '@' operator is not supported in kernels");
  const Type *common = types::promote(a, b);
  SPIRJIT_INTERNAL_CHECK(common, "no promotion of two numbers");
  if (common->kind == TypeKind::WeakInt)
    literalValue(&inst); // reports a literal expression beyond int64
  if (inst.isa(Opcode::BinaryOp) && inst.operands.size() == 2)
    requireLiteralsFit(inst, inst.operands, common);
  // Python's int ** negative int is a float (2 ** -1 is 0.5), as in numba
  // where the exponent is a literal; other exponents keep the integers'
  // type (their sign is known only when the kernel runs).
  if (op == ir::BinaryOperator::Pow &&
      (common->kind == TypeKind::Int || common->kind == TypeKind::WeakInt ||
       common->kind == TypeKind::Bool) &&
      literalValue(inst.operands[1]).value_or(0) < 0)
    return common->kind == TypeKind::WeakInt ? types::weakFloat()
                                             : types::floating(64);
  switch (op) {
  case ir::BinaryOperator::TrueDiv:
    if (common->kind == TypeKind::WeakInt)
      return types::weakFloat();
    if (common->kind == TypeKind::Int || common->kind == TypeKind::Bool)
      return types::floating(64);
    return common;
  case ir::BinaryOperator::LShift:
  case ir::BinaryOperator::RShift:
  case ir::BinaryOperator::BitAnd:
  case ir::BinaryOperator::BitOr:
  case ir::BinaryOperator::BitXor: {
    bool shift =
        op == ir::BinaryOperator::LShift || op == ir::BinaryOperator::RShift;
    bool integral = common->kind == TypeKind::Int ||
                    common->kind == TypeKind::WeakInt ||
                    (common->kind == TypeKind::Bool && !shift);
    if (!integral)
      typingError(inst, "unsupported operand types for " + opText + ": '" +
                            a->str() + "' and '" + b->str() +
                            "' (bitwise operators need integers)");
    if (common->kind == TypeKind::Bool && shift)
      return types::int64();
    return common;
  }
  default:
    if ((common->kind == TypeKind::Complex ||
         common->kind == TypeKind::WeakComplex) &&
        (op == ir::BinaryOperator::FloorDiv || op == ir::BinaryOperator::Mod))
      typingError(inst, "unsupported operand types for " + opText + ": '" +
                            a->str() + "' and '" + b->str() +
                            "' (complex numbers have no floor division)");
    if (common->kind == TypeKind::Bool) {
      // NumPy: bool + bool is logical or, bool * bool logical and; a bool
      // minus a bool is an error; the rest compute in int8.
      if (op == ir::BinaryOperator::Add || op == ir::BinaryOperator::Mul)
        return types::boolean();
      if (op == ir::BinaryOperator::Sub)
        typingError(inst, "subtracting booleans is not supported (NumPy "
                          "forbids it); use the ^ operator or logical_xor");
      return types::integer(8, true);
    }
    return common;
  }
}

std::optional<int64_t> Inference::literalValue(const Instruction *inst) {
  auto known = literalValues_.find(inst);
  if (known != literalValues_.end())
    return known->second;
  std::optional<int64_t> value;
  if (const ConstValue *c = constantOf(inst)) {
    if (c->kind == ConstValue::Kind::Int)
      value = c->intValue;
  } else if (inst->opcode == Opcode::UnaryOp &&
             static_cast<ir::UnaryOperator>(inst->index) ==
                 ir::UnaryOperator::Neg) {
    if (std::optional<int64_t> x = literalValue(inst->operands[0]))
      value = -static_cast<__int128>(*x) > INT64_MAX ? std::nullopt
                                                     : std::optional(-*x);
  } else if (inst->opcode == Opcode::BinaryOp) {
    std::optional<int64_t> x = literalValue(inst->operands[0]);
    std::optional<int64_t> y = literalValue(inst->operands[1]);
    if (x && y) {
      // Python ints do not wrap: compute wide, then see if int64 holds it.
      std::optional<__int128> exact;
      auto op = static_cast<ir::BinaryOperator>(inst->index);
      switch (op) {
      case ir::BinaryOperator::Add:
        exact = static_cast<__int128>(*x) + *y;
        break;
      case ir::BinaryOperator::Sub:
        exact = static_cast<__int128>(*x) - *y;
        break;
      case ir::BinaryOperator::Mul:
        exact = static_cast<__int128>(*x) * *y;
        break;
      case ir::BinaryOperator::LShift:
        if (*y >= 0)
          exact = *x == 0 ? 0 : *y >= 64 ? static_cast<__int128>(1) << 100
                                       : static_cast<__int128>(*x) << *y;
        break;
      case ir::BinaryOperator::Pow:
        if (*y < 0)
          break;
        if (*x == 0 || *x == 1 || *x == -1) {
          exact = *y == 0 ? 1 : *x == -1 && *y % 2 == 0 ? 1 : *x;
          break;
        }
        // |x| >= 2: at most 64 steps before the power leaves int64.
        exact = 1;
        for (int64_t k = 0; k < *y && *exact <= INT64_MAX &&
                            *exact >= INT64_MIN;
             ++k)
          *exact *= *x;
        break;
      case ir::BinaryOperator::FloorDiv:
        if (*x == INT64_MIN && *y == -1)
          exact = -static_cast<__int128>(INT64_MIN);
        break;
      default:
        break;
      }
      if (exact && (*exact > INT64_MAX || *exact < INT64_MIN))
        typingError(*inst, "the integer " + std::to_string(*x) + " " +
                               ir::binaryOperatorText(op) + " " +
                               std::to_string(*y) +
                               " does not fit int64 (NumPy raises "
                               "OverflowError for such a Python int)");
      if (exact)
        value = static_cast<int64_t>(*exact);
    }
  }
  literalValues_[inst] = value;
  return value;
}

const Type *Inference::inferUnary(Instruction &inst, const Type *a) {
  auto op = static_cast<ir::UnaryOperator>(inst.index);
  if (op == ir::UnaryOperator::Not) {
    if (!a->isNumber())
      typingError(inst, "'not' needs a number, got '" + a->str() + "'");
    return types::boolean();
  }
  if (!a->isNumber())
    typingError(inst, std::string("bad operand type for unary ") +
                          ir::unaryOperatorText(op) + ": '" + a->str() + "'");
  if (op == ir::UnaryOperator::Invert) {
    if (a->kind == TypeKind::Float || a->kind == TypeKind::WeakFloat ||
        a->kind == TypeKind::Complex || a->kind == TypeKind::WeakComplex)
      typingError(inst, "bad operand type for unary ~: '" + a->str() + "'");
    return a;
  }
  if (a->kind == TypeKind::Bool)
    return types::integer(8, true);
  return a;
}

const Type *Inference::inferCompare(Instruction &inst, const Type *a,
                                    const Type *b) {
  auto op = static_cast<ir::CompareOperator>(inst.index);
  if (op == ir::CompareOperator::Is || op == ir::CompareOperator::IsNot) {
    if (a->kind == TypeKind::None || b->kind == TypeKind::None) {
      bool same = a == b;
      result_.constants[&inst] =
          ConstValue::ofBool(op == ir::CompareOperator::Is ? same : !same);
      return types::boolean();
    }
    unsupported(inst, "'is' is only supported for comparisons with None");
  }
  if (a->kind == TypeKind::DTypeClass && b->kind == TypeKind::DTypeClass &&
      (op == ir::CompareOperator::Eq || op == ir::CompareOperator::Ne)) {
    // a.dtype == b.dtype: known when the function compiles.
    bool same = a->element == b->element;
    result_.constants[&inst] =
        ConstValue::ofBool(op == ir::CompareOperator::Eq ? same : !same);
    return types::boolean();
  }
  if (!a->isNumber() || !b->isNumber())
    typingError(inst, std::string("cannot compare '") + a->str() + "' and '" +
                          b->str() + "' with " + ir::compareOperatorText(op));
  bool isComplex = [&](const Type *t) {
    return t->kind == TypeKind::Complex || t->kind == TypeKind::WeakComplex;
  }(types::promote(a, b));
  if (isComplex && op != ir::CompareOperator::Eq &&
      op != ir::CompareOperator::Ne)
    typingError(inst, std::string("complex numbers cannot be ordered ('") +
                          ir::compareOperatorText(op) + "' on '" + a->str() +
                          "' and '" + b->str() + "')");
  return types::boolean();
}

} // namespace spirjit::infer
