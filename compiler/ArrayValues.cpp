// Element code of array expressions (ArrayValues.h states the contract).
#include "compiler/ArrayValues.h"

#include "compiler/ArrayOps.h"
#include "compiler/TypeInference.h"

namespace spirjit {

using ir::Instruction;
using ir::Opcode;

Instruction *ArrayValueWriter::make(Opcode op,
                                    std::vector<Instruction *> operands) {
  return fn_.create(cur_, op, std::move(operands), line_);
}

Instruction *ArrayValueWriter::cast(Instruction *v, const std::string &dtype) {
  if (dtype == "bool") {
    Instruction *zero = make(Opcode::Const, {});
    zero->constant = ConstValue::ofInt(0);
    Instruction *ne = make(Opcode::Compare, {v, zero});
    ne->index = static_cast<int64_t>(ir::CompareOperator::Ne);
    return ne;
  }
  return make(Opcode::Call, {object_("numpy." + dtype), v});
}

Instruction *
ArrayValueWriter::apply(const std::string &function,
                        const std::vector<Instruction *> &operands) {
  if (function == "copy")
    return operands[0];
  if (function == "where")
    return select(operands[0], operands[1], operands[2]);
  if (function == "real" || function == "imag") {
    Instruction *part = make(Opcode::GetAttr, {operands[0]});
    part->name = function;
    return part;
  }
  if (function == "call")
    return make(Opcode::Call, operands);
  std::vector<Instruction *> call = {object_("numpy." + function)};
  call.insert(call.end(), operands.begin(), operands.end());
  return make(Opcode::Call, std::move(call));
}

Instruction *ArrayValueWriter::select(Instruction *condition, Instruction *yes,
                                      Instruction *no) {
  ir::Block *from = cur_;
  ir::Block *taken = fn_.addBlock(), *other = fn_.addBlock(),
            *join = fn_.addBlock();
  taken->predecessors = {from};
  other->predecessors = {from};
  join->predecessors = {taken, other};
  make(Opcode::CondBranch, {condition})->targets = {taken, other};
  cur_ = taken;
  make(Opcode::Branch, {})->targets = {join};
  cur_ = other;
  make(Opcode::Branch, {})->targets = {join};
  cur_ = join;
  return make(Opcode::Phi, {yes, no});
}

Instruction *ArrayValueWriter::value(const ArrayExpression &e,
                                     const std::vector<Instruction *> &ids,
                                     const Read &load, const Read &scalar,
                                     const Read &function) {
  using Kind = ArrayExpression::Value::Kind;
  std::vector<Instruction *> at(e.values.size(), nullptr);
  for (size_t v = 0; v < e.values.size(); ++v) {
    const Value &value = e.values[v];
    std::vector<Instruction *> operands;
    for (int o : value.operands)
      operands.push_back(at[static_cast<size_t>(o)]);
    switch (value.kind) {
    case Kind::Load:
      at[v] = load(value, operands);
      break;
    case Kind::Scalar:
      at[v] = scalar(value, operands);
      break;
    case Kind::Apply:
      at[v] = apply(value.function, operands);
      break;
    case Kind::Cast:
      at[v] = cast(operands[0], value.dtype);
      break;
    case Kind::Function:
      at[v] = function(value, operands);
      break;
    case Kind::Index: {
      Instruction *sum = nullptr;
      for (size_t d = 0; d < value.strides.size() && d < ids.size(); ++d) {
        if (value.strides[d] == 0)
          continue;
        Instruction *term = ids[d];
        if (value.strides[d] != 1) {
          Instruction *stride = make(Opcode::Const, {});
          stride->constant = ConstValue::ofInt(value.strides[d]);
          term = make(Opcode::BinaryOp, {ids[d], stride});
          term->index = static_cast<int64_t>(ir::BinaryOperator::Mul);
        }
        if (sum) {
          sum = make(Opcode::BinaryOp, {sum, term});
          sum->index = static_cast<int64_t>(ir::BinaryOperator::Add);
        } else {
          sum = term;
        }
      }
      if (!sum) {
        sum = make(Opcode::Const, {});
        sum->constant = ConstValue::ofInt(0);
      }
      at[v] = cast(sum, "int64");
      break;
    }
    }
  }
  return at[static_cast<size_t>(e.result)];
}

const ArrayOp *ufuncOfOperator(Opcode opcode, int64_t op) {
  for (const ArrayOp &row : arrayOps()) {
    if (row.kind != ArrayOpKind::Elementwise)
      continue;
    std::optional<UfuncOperator> meant =
        ufuncOperator("numpy." + std::string(row.numpy));
    if (meant && meant->opcode == opcode && meant->op == op)
      return &row;
  }
  return nullptr;
}

} // namespace spirjit
