// The array-expression stage's parts (ArrayExpressionParts.h).
#include "compiler/ArrayExpressionParts.h"

#include "compiler/ArrayOps.h"

namespace spirjit::arrays {

bool isArray(const Type *t) { return t && t->kind == TypeKind::Array; }

std::string calleeName(const Instruction *call) {
  const Type *callee = call->operands[0]->type;
  if (callee->kind == TypeKind::Method && isArray(callee->elements[0]))
    return "numpy." + callee->name;
  if (callee->kind == TypeKind::Function)
    return callee->name;
  return "";
}

namespace {
bool anyArrayOperand(const Instruction *inst, size_t first) {
  for (size_t i = first; i < inst->operands.size(); ++i)
    if (isArray(inst->operands[i]->type))
      return true;
  return false;
}

/// The functions type inference applies element by element whose result on
/// 0-D arrays is a number (InferArrays.cpp): the ufuncs of ArrayOps.def,
/// abs and np.where.
bool isElementwiseFunction(const std::string &name) {
  return findUfunc(name) || name == "numpy.where" || name == "abs";
}
} // namespace

Role roleOf(const Instruction *inst) {
  switch (inst->opcode) {
  case Opcode::Call: {
    std::string name = calleeName(inst);
    if (name == "numpy.item")
      return Role::Item;
    bool anyArray = anyArrayOperand(inst, 1);
    if (anyArray && !isArray(inst->type) && isElementwiseFunction(name))
      return Role::OnZeroD;
    if (isArrayReduction(name) &&
        (anyArray || inst->operands[0]->type->kind == TypeKind::Method))
      return Role::Reduction;
    if (isArray(inst->type) && !name.empty() && !isArrayConstructor(name))
      return Role::Elementwise; // device functions too, element-wise
    return Role::Copied;
  }
  case Opcode::Slice:
    return Role::Index;
  case Opcode::GetAttr:
    return inst->type->kind == TypeKind::Method &&
                   isArray(inst->type->elements[0])
               ? Role::Callee
               : Role::Copied;
  case Opcode::BuildTuple:
    return isSliceIndex(inst->type) ? Role::Index : Role::Copied;
  case Opcode::GetItem:
    return isArray(inst->operands[0]->type) &&
                   isSliceIndex(inst->operands[1]->type)
               ? Role::View
               : Role::Copied;
  case Opcode::SetItem:
    return isArray(inst->operands[0]->type) &&
                   (isSliceIndex(inst->operands[1]->type) ||
                    isRowIndex(inst->operands[0]->type,
                               inst->operands[1]->type))
               ? Role::Assign
               : Role::Copied;
  case Opcode::BinaryOp:
    if (!isArray(inst->type))
      return anyArrayOperand(inst, 0) ? Role::OnZeroD : Role::Copied;
    return inst->name == "inplace" && isArray(inst->operands[0]->type)
               ? Role::InPlace
               : Role::Elementwise;
  case Opcode::UnaryOp:
  case Opcode::Compare:
    if (isArray(inst->type))
      return Role::Elementwise;
    return anyArrayOperand(inst, 0) ? Role::OnZeroD : Role::Copied;
  default:
    return Role::Copied;
  }
}

bool isPure(const Instruction *inst) {
  switch (inst->opcode) {
  case Opcode::Const:
  case Opcode::Global:
  case Opcode::FreeVar:
  case Opcode::GetAttr:
  case Opcode::TupleGet:
  case Opcode::BuildTuple:
  case Opcode::BinaryOp:
  case Opcode::UnaryOp:
  case Opcode::Compare:
  case Opcode::Truth:
    return true;
  case Opcode::GetItem:
    return inst->operands[0]->type->kind == TypeKind::Tuple;
  default:
    return false;
  }
}

std::string keyOf(const Instruction *v) {
  if (v->isa(Opcode::Const))
    return v->constant.str();
  return "%" + std::to_string(v->id);
}

} // namespace spirjit::arrays
