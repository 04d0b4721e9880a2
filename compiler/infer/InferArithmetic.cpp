// NumPy's operators on scalars: what each gives, NEP 50 weak scalars
// included, and which operand types it rejects.
#include "compiler/infer/Inference.h"

namespace spirjit::infer {

const Type *Inference::inferBinary(Instruction &inst, const Type *a,
                                   const Type *b) {
  auto op = static_cast<ir::BinaryOperator>(inst.index);
  std::string opText = ir::binaryOperatorText(op);
  if (!a->isNumber() || !b->isNumber())
    typingError(inst, "unsupported operand types for " + opText + ": '" +
                          a->str() + "' and '" + b->str() + "'");
  if (op == ir::BinaryOperator::MatMul)
    unsupported(inst, "the '@' operator is not supported in kernels");
  const Type *common = types::promote(a, b);
  SPIRJIT_INTERNAL_CHECK(common, "no promotion of two numbers");
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
