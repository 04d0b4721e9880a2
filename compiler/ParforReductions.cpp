// Which header phis of a prange loop are reductions, or last values
// (ParforReductions.h), and where reductions start.
#include "compiler/ParforReductions.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <set>

namespace spirjit {

using ir::Block;
using ir::Instruction;
using ir::Opcode;

namespace {

/// The reduction class of an update `inst` of accumulator value `acc`:
/// the other operand goes into `other`.
/// As numba's parfor reductions take them, `s -= x` is a sum (each
/// work-item's partial starts at 0 and subtracts, the partials are added to
/// s) and `s /= x` a product (partials start at 1 and divide, then multiply
/// s). An array accumulator (`y += a[i]`) is updated in place only, by
/// +=, -=, *= or /=, as numba's whole-array reductions.
std::optional<ReductionOp> updateOp(const Instruction *inst,
                                    const Instruction *acc,
                                    const Instruction *&other) {
  bool array = acc->type && acc->type->kind == TypeKind::Array;
  if (inst->isa(Opcode::BinaryOp)) {
    auto op = static_cast<ir::BinaryOperator>(inst->index);
    bool first = inst->operands[0] == acc, second = inst->operands[1] == acc;
    if (first == second || (array && (!first || inst->name != "inplace")))
      return std::nullopt;
    other = first ? inst->operands[1] : inst->operands[0];
    switch (op) {
    case ir::BinaryOperator::Add:
      return ReductionOp::Add;
    case ir::BinaryOperator::Sub:
      return first ? std::optional(ReductionOp::Add) : std::nullopt;
    case ir::BinaryOperator::Mul:
      return ReductionOp::Mul;
    case ir::BinaryOperator::TrueDiv:
      return first ? std::optional(ReductionOp::Mul) : std::nullopt;
    default:
      break;
    }
    if (array)
      return std::nullopt;
    switch (op) {
    case ir::BinaryOperator::BitOr:
      return ReductionOp::Or;
    case ir::BinaryOperator::BitAnd:
      return ReductionOp::And;
    case ir::BinaryOperator::BitXor:
      return ReductionOp::Xor;
    default:
      return std::nullopt;
    }
  }
  if (!array && inst->isa(Opcode::Call) && inst->operands.size() == 3 &&
      inst->name.empty() && inst->operands[0]->type &&
      inst->operands[0]->type->kind == TypeKind::Function) {
    const std::string &name = inst->operands[0]->type->name;
    bool first = inst->operands[1] == acc, second = inst->operands[2] == acc;
    if (first == second)
      return std::nullopt;
    other = first ? inst->operands[2] : inst->operands[1];
    // Python's min/max and NumPy's minimum/maximum (the array-expression
    // stage's a.min()): the partials' combination keeps a NaN for both.
    if (name == "min" || name == "numpy.minimum")
      return ReductionOp::Min;
    if (name == "max" || name == "numpy.maximum")
      return ReductionOp::Max;
  }
  return std::nullopt;
}

} // namespace

bool isReduction(const ir::Function &fn, const ir::Loop &loop,
                 const Instruction *phi, ReductionOp &op,
                 std::set<const Instruction *> *values) {
  bool array = phi->type && phi->type->kind == TypeKind::Array;
  if (!phi->type || (!array && !phi->type->isNumber()))
    return false;
  // Complex numbers have sums and products (s += z, s *= z), no order.
  bool complex = phi->type->kind == TypeKind::Complex ||
                 phi->type->kind == TypeKind::WeakComplex;
  // The values of the chain: the phi, its updates, and body phis that
  // merge them.
  std::set<const Instruction *> chain = {phi};
  std::optional<ReductionOp> kind;
  std::vector<const Instruction *> others;
  std::function<bool(const Instruction *)> walk =
      [&](const Instruction *v) -> bool {
    if (chain.count(v)) // the accumulator, or an update already seen
      return true;
    if (!loop.contains(v->parent) || v->parent == loop.header)
      return false;
    if (v->isa(Opcode::Phi)) {
      chain.insert(v);
      for (const Instruction *in : v->operands)
        if (!walk(in))
          return false;
      return true;
    }
    const Instruction *other = nullptr;
    // Either operand may be the accumulator (s + a[i], max(a[i], s)): the
    // one whose walk leads back to the phi, the other's state undone.
    for (size_t i = 0; i < v->operands.size(); ++i) {
      const Instruction *acc = v->operands[i];
      if (!loop.contains(acc->parent) && acc != phi)
        continue;
      auto o = updateOp(v, acc, other);
      if (!o)
        continue;
      if (kind && *kind != *o)
        return false;
      auto savedChain = chain;
      auto savedKind = kind;
      size_t savedOthers = others.size();
      kind = o;
      chain.insert(v);
      others.push_back(other);
      if (walk(acc))
        return true;
      chain = std::move(savedChain);
      kind = savedKind;
      others.resize(savedOthers);
    }
    return false;
  };
  size_t fromLatch = 0;
  for (size_t i = 0; i < phi->operands.size(); ++i)
    if (loop.contains(phi->parent->predecessors[i])) {
      ++fromLatch;
      if (!walk(phi->operands[i]))
        return false;
    }
  if (!kind || fromLatch == 0)
    return false;
  if (complex && *kind != ReductionOp::Add && *kind != ReductionOp::Mul)
    return false;
  if (((*kind == ReductionOp::Or || *kind == ReductionOp::And ||
        *kind == ReductionOp::Xor) &&
       phi->type->kind != TypeKind::Int &&
       phi->type->kind != TypeKind::WeakInt &&
       phi->type->kind != TypeKind::Bool))
    return false;
  // Chain values are used only by the chain (and, for the phi, after the
  // loop), and no update's other operand depends on the chain.
  for (auto &block : fn.blocks) {
    if (!loop.contains(block.get()))
      continue;
    for (auto &inst : block->instructions) {
      if (chain.count(inst.get()))
        continue;
      for (const Instruction *operand : inst->operands)
        if (chain.count(operand))
          return false;
    }
  }
  std::set<const Instruction *> seen;
  std::function<bool(const Instruction *)> dependsOnChain =
      [&](const Instruction *v) -> bool {
    if (chain.count(v))
      return true;
    if (!loop.contains(v->parent) || !seen.insert(v).second)
      return false;
    for (const Instruction *o : v->operands)
      if (dependsOnChain(o))
        return true;
    return false;
  };
  for (const Instruction *o : others)
    if (dependsOnChain(o))
      return false;
  op = *kind;
  if (values)
    *values = std::move(chain);
  return true;
}

bool isLastValue(const ir::Loop &loop, const Instruction *phi) {
  if (!phi->type || !phi->type->isNumber() ||
      phi->type->kind == TypeKind::Complex ||
      phi->type->kind == TypeKind::WeakComplex)
    return false;
  for (Block *block : loop.blocks)
    for (auto &inst : block->instructions)
      if (inst.get() != phi &&
          std::count(inst->operands.begin(), inst->operands.end(), phi))
        return false;
  for (size_t i = 0; i < phi->operands.size(); ++i)
    if (loop.contains(phi->parent->predecessors[i])) {
      // Computed in the body, or the index itself (`last = i`).
      const Instruction *value = phi->operands[i];
      if (!loop.contains(value->parent) ||
          (value->parent == loop.header && !value->isa(Opcode::IterNext)))
        return false;
    }
  return true;
}

ConstValue reductionIdentity(ReductionOp op, const Type *type) {
  bool isFloat = type->kind == TypeKind::Float;
  switch (op) {
  case ReductionOp::Add:
  case ReductionOp::Or:
  case ReductionOp::Xor:
    return isFloat ? ConstValue::ofFloat(0) : ConstValue::ofInt(0);
  case ReductionOp::Mul:
    return isFloat ? ConstValue::ofFloat(1) : ConstValue::ofInt(1);
  case ReductionOp::And:
    return type->kind == TypeKind::Bool ? ConstValue::ofBool(true)
                                        : ConstValue::ofInt(-1);
  case ReductionOp::Last: // any value: the last iteration replaces it
    return isFloat                        ? ConstValue::ofFloat(0)
           : type->kind == TypeKind::Bool ? ConstValue::ofBool(false)
                                          : ConstValue::ofInt(0);
  case ReductionOp::Min:
  case ReductionOp::Max: {
    bool min = op == ReductionOp::Min;
    if (isFloat)
      return ConstValue::ofFloat(min ? INFINITY : -INFINITY);
    if (type->kind == TypeKind::Bool)
      return ConstValue::ofBool(min);
    int bits = type->bits;
    if (type->isSigned)
      return ConstValue::ofInt(
          min ? (bits == 64 ? INT64_MAX : (int64_t(1) << (bits - 1)) - 1)
              : (bits == 64 ? INT64_MIN : -(int64_t(1) << (bits - 1))));
    // Unsigned: the largest value is all ones (np.uint64(-1) wraps so).
    return ConstValue::ofInt(min ? (bits == 64 ? -1 : (int64_t(1) << bits) - 1)
                                 : 0);
  }
  }
  return ConstValue::ofInt(0);
}

} // namespace spirjit
