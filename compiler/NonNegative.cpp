#include "compiler/NonNegative.h"

#include <algorithm>
#include <string>

namespace spirjit {
namespace {

using ir::BinaryOperator;
using ir::Instruction;
using ir::Opcode;
using Set = std::unordered_set<const Instruction *>;

bool isIntegral(const Type *type) {
  return type && (type->kind == TypeKind::Int || type->kind == TypeKind::Bool ||
                  type->kind == TypeKind::WeakInt);
}

bool isWorkItemQuery(const Instruction *callee) {
  static const char *const names[] = {
      "get_id",          "get_global_id",    "get_local_id",
      "get_range",       "get_global_range", "get_local_range",
      "get_group_id",    "get_group_range",  "get_linear_id",
      "get_global_linear_id", "get_local_linear_id", "get_group_linear_id",
      "get_broadcast_id"};
  if (!callee->isa(Opcode::GetAttr) || callee->operands.empty())
    return false;
  TypeKind receiver = callee->operands[0]->type->kind;
  if (receiver != TypeKind::Item && receiver != TypeKind::NdItem &&
      receiver != TypeKind::Group)
    return false;
  for (const char *name : names)
    if (callee->name == name)
      return true;
  return false;
}

bool isShape(const Instruction *inst) {
  return inst->isa(Opcode::GetAttr) && inst->name == "shape" &&
         inst->operands[0]->type->kind == TypeKind::Array;
}

/// Whether `inst` is non-negative if every member of `set` is.
bool holds(const TypedFunction &typed, const Instruction *inst,
           const Set &set) {
  auto in = [&](const Instruction *operand) { return set.count(operand) > 0; };
  if (const ConstValue *c = constantOf(typed, inst))
    return c->kind == ConstValue::Kind::Bool ||
           (c->kind == ConstValue::Kind::Int && c->intValue >= 0);
  if (inst->type->kind == TypeKind::Bool ||
      (inst->type->kind == TypeKind::Int && !inst->type->isSigned))
    return true;
  switch (inst->opcode) {
  case Opcode::Arg: {
    const std::vector<int> &known = typed.description->nonNegativeParameters;
    return std::find(known.begin(), known.end(), inst->index) != known.end();
  }
  case Opcode::Phi:
    for (const Instruction *operand : inst->operands)
      if (!in(operand))
        return false;
    return true;
  case Opcode::BinaryOp: {
    const Instruction *a = inst->operands[0], *b = inst->operands[1];
    switch (static_cast<BinaryOperator>(inst->index)) {
    case BinaryOperator::Add:
    case BinaryOperator::Mul:
    case BinaryOperator::FloorDiv:
    case BinaryOperator::BitOr:
    case BinaryOperator::BitXor:
      return in(a) && in(b);
    case BinaryOperator::Mod: // Python: the sign of the divisor
      return in(b);
    case BinaryOperator::BitAnd:
      return in(a) || in(b);
    case BinaryOperator::RShift:
    case BinaryOperator::LShift:
      return in(a) && in(b);
    default:
      return false;
    }
  }
  case Opcode::UnaryOp:
    return static_cast<ir::UnaryOperator>(inst->index) ==
               ir::UnaryOperator::Pos &&
           in(inst->operands[0]);
  case Opcode::GetAttr: // an array's (a namedtuple's field may be named so)
    return inst->operands[0]->type->kind == TypeKind::Array &&
           (inst->name == "size" || inst->name == "ndim" ||
            inst->name == "itemsize" || inst->name == "nbytes");
  case Opcode::GetItem:
    return isShape(inst->operands[0]);
  case Opcode::TupleGet: {
    const Instruction *tuple = inst->operands[0];
    if (isShape(tuple))
      return true;
    return tuple->isa(Opcode::BuildTuple) &&
           static_cast<size_t>(inst->index) < tuple->operands.size() &&
           in(tuple->operands[inst->index]);
  }
  case Opcode::Call: {
    const Instruction *callee = inst->operands[0];
    if (isWorkItemQuery(callee))
      return true;
    if (!callee->isa(Opcode::Global) ||
        callee->type->kind != TypeKind::Function)
      return false;
    const std::string &name = callee->type->name;
    if (name == "len")
      return true;
    if (inst->operands.size() < 2)
      return false;
    if (name == "min") { // all of them, or max: any of them
      for (size_t i = 1; i < inst->operands.size(); ++i)
        if (!in(inst->operands[i]))
          return false;
      return true;
    }
    if (name == "max") {
      for (size_t i = 1; i < inst->operands.size(); ++i)
        if (in(inst->operands[i]))
          return true;
      return false;
    }
    return false;
  }
  case Opcode::IterNext: {
    // The counter of range(stop), range(start, stop) or
    // range(start, stop, step): never below a non-negative start while
    // the step is not negative.
    const Instruction *iter = inst->operands[0];
    if (!iter->isa(Opcode::GetIter))
      return false;
    const Instruction *range = iter->operands[0];
    if (!range->isa(Opcode::Call) || !range->operands[0]->isa(Opcode::Global) ||
        range->operands[0]->type->kind != TypeKind::Function ||
        range->operands[0]->type->name != "range")
      return false;
    size_t n = range->operands.size() - 1;
    if (n == 1)
      return true;
    if (n == 2)
      return in(range->operands[1]);
    return n == 3 && in(range->operands[1]) && in(range->operands[3]);
  }
  default:
    return false;
  }
}

} // namespace

Set findNonNegativeIntegers(const TypedFunction &typed) {
  // Start from every integer and remove what fails its rule until nothing
  // changes: the greatest fixed point, which keeps loop counters that are
  // only ever incremented from non-negative values.
  Set set;
  for (const auto &block : typed.function->blocks)
    for (const auto &inst : block->instructions)
      if (isIntegral(inst->type))
        set.insert(inst.get());
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = set.begin(); it != set.end();) {
      if (holds(typed, *it, set)) {
        ++it;
        continue;
      }
      it = set.erase(it);
      changed = true;
    }
  }
  return set;
}

} // namespace spirjit
