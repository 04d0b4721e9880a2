// The array-expression stage's parts (ArrayExpressionParts.h).
#include "compiler/ArrayExpressionParts.h"

#include "compiler/ArrayOps.h"
#include "compiler/ArrayValues.h"

#include <algorithm>
#include <map>

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

Instruction *transposedArray(const Instruction *inst) {
  if (inst->isa(Opcode::GetAttr))
    return inst->operands[0];
  const Instruction *callee = inst->operands[0];
  return callee->type->kind == TypeKind::Method ? callee->operands[0]
                                                : inst->operands[1];
}

bool isArrayIndexed(const Instruction *inst) {
  return (inst->isa(Opcode::GetItem) || inst->isa(Opcode::SetItem)) &&
         isArray(inst->operands[0]->type) && isArray(inst->operands[1]->type);
}

Role roleOf(const Instruction *inst) {
  switch (inst->opcode) {
  case Opcode::Call: {
    std::string name = calleeName(inst);
    if (name == "numpy.item")
      return Role::Item;
    if (name == "numpy.transpose" && isArray(inst->type))
      return Role::View;
    if (name == "numpy.array" || name == "numpy.asarray")
      return Role::Copied; // a literal's array, which the host fills
    if (name == "numpy.reshape")
      return Role::Copied; // the same memory: the array-expression stage
                           // makes it (ArrayExpressions.cpp, reshape)
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
    if (inst->name == "T" && isArray(inst->type))
      return Role::View;
    if ((inst->name == "real" || inst->name == "imag") &&
        isArray(inst->type))
      return Role::Elementwise; // z.real of each element
    return inst->type->kind == TypeKind::Method &&
                   isArray(inst->type->elements[0])
               ? Role::Callee
               : Role::Copied;
  case Opcode::BuildTuple:
    return isViewIndex(inst->type) ? Role::Index : Role::Copied;
  case Opcode::GetItem:
    if (isArrayIndexed(inst))
      return Role::Elementwise; // a gather, element by element over idx
    return isArray(inst->operands[0]->type) &&
                   isViewIndex(inst->operands[1]->type)
               ? Role::View
               : Role::Copied;
  case Opcode::SetItem:
    if (isArrayIndexed(inst))
      return Role::Scatter;
    return isArray(inst->operands[0]->type) &&
                   (isViewIndex(inst->operands[1]->type) ||
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
    if (inst->isa(Opcode::Compare) &&
        (static_cast<ir::CompareOperator>(inst->index) ==
             ir::CompareOperator::Is ||
         static_cast<ir::CompareOperator>(inst->index) ==
             ir::CompareOperator::IsNot))
      return Role::Copied; // `a is None`: identity, a bool of the host
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

Instruction *PyIRBuilder::sliceBound(Instruction *bound, Instruction *n,
                                     int line) {
  if (bound->isa(Opcode::Const) &&
      bound->constant.kind == ConstValue::Kind::Int) {
    int64_t c = bound->constant.intValue;
    if (c >= 0)
      return builtin(cur_, "min", {integer(c, line), n}, line);
    return builtin(
        cur_, "max",
        {binary(cur_, ir::BinaryOperator::Add, n, integer(c, line), line),
         integer(0, line)},
        line);
  }
  Instruction *negative =
      compare(cur_, ir::CompareOperator::Lt, bound, integer(0, line), line);
  Instruction *shift = binary(cur_, ir::BinaryOperator::Mul,
                              builtin(cur_, "int", {negative}, line), n, line);
  Instruction *b = binary(cur_, ir::BinaryOperator::Add, bound, shift, line);
  return builtin(cur_, "min",
                 {builtin(cur_, "max", {b, integer(0, line)}, line), n}, line);
}

Instruction *PyIRBuilder::sliceBoundBack(Instruction *bound, Instruction *n,
                                         int line) {
  Instruction *minusOne = integer(-1, line);
  Instruction *last = binary(cur_, ir::BinaryOperator::Sub, n,
                             integer(1, line), line);
  Instruction *b = bound;
  if (!(bound->isa(Opcode::Const) &&
        bound->constant.kind == ConstValue::Kind::Int &&
        bound->constant.intValue >= 0)) {
    Instruction *negative =
        compare(cur_, ir::CompareOperator::Lt, bound, integer(0, line), line);
    Instruction *shift = binary(cur_, ir::BinaryOperator::Mul,
                                builtin(cur_, "int", {negative}, line), n, line);
    b = binary(cur_, ir::BinaryOperator::Add, bound, shift, line);
  }
  return builtin(cur_, "min", {builtin(cur_, "max", {b, minusOne}, line), last},
                 line);
}

Instruction *PyIRBuilder::fixedIndex(Instruction *index, Instruction *n,
                                     int line) {
  if (index->isa(Opcode::Const) &&
      index->constant.kind == ConstValue::Kind::Int &&
      index->constant.intValue >= 0)
    return index;
  Instruction *negative =
      compare(cur_, ir::CompareOperator::Lt, index, integer(0, line), line);
  Instruction *shift = binary(cur_, ir::BinaryOperator::Mul,
                              builtin(cur_, "int", {negative}, line), n, line);
  return binary(cur_, ir::BinaryOperator::Add, index, shift, line);
}

namespace {
/// The text of a failed broadcast; LowerDebug.cpp shortens its numbers for
/// a kernel's assertion.
std::string broadcastMessage(const std::string &what) {
  return what + ": an extent of {got} meets one of {expected}";
}
} // namespace

Space PyIRBuilder::broadcastSpace(const Leaves &ls, int line) {
  size_t n = 0;
  for (const auto &l : ls)
    n = std::max(n, l.second.dims.size());
  Space s;
  s.extents.assign(n, nullptr);
  s.keys.assign(n, "");
  for (const auto &l : ls) {
    size_t offset = n - l.second.dims.size();
    for (size_t k = 0; k < l.second.dims.size(); ++k) {
      const Access::Dim &dim = l.second.dims[k];
      Instruction *&extent = s.extents[offset + k];
      std::string &key = s.keys[offset + k];
      if (!extent) {
        extent = dim.length;
        key = dim.extentKey;
        continue;
      }
      if (key == dim.extentKey)
        continue;
      Instruction *e = dim.length;
      auto equal = [&](Instruction *a, Instruction *b) {
        return compare(cur_, ir::CompareOperator::Eq, a, b, line);
      };
      Instruction *ok = binary(
          cur_, ir::BinaryOperator::BitOr,
          binary(cur_, ir::BinaryOperator::BitOr, equal(e, extent),
                 equal(e, integer(1, line)), line),
          equal(extent, integer(1, line)), line);
      check(ok, broadcastMessage("operands could not be broadcast together"),
            e, extent, line);
      // extent if e is 1, else e (which the check made extent, or extent 1)
      Instruction *eIsOne = builtin(cur_, "int", {equal(e, integer(1, line))},
                                    line);
      extent = binary(cur_, ir::BinaryOperator::Add, e,
                      binary(cur_, ir::BinaryOperator::Mul,
                             binary(cur_, ir::BinaryOperator::Sub, extent, e,
                                    line),
                             eIsOne, line),
                      line);
      key = "broadcast(" + key + "," + dim.extentKey + ")";
    }
  }
  return s;
}

void PyIRBuilder::checkBroadcastInto(const Space &into, const Space &from,
                                     const std::string &what, int line) {
  size_t offset = into.extents.size() - from.extents.size();
  for (size_t k = 0; k < from.extents.size(); ++k) {
    if (from.keys[k] == into.keys[offset + k])
      continue;
    Instruction *e = from.extents[k], *target = into.extents[offset + k];
    Instruction *ok = binary(
        cur_, ir::BinaryOperator::BitOr,
        compare(cur_, ir::CompareOperator::Eq, e, target, line),
        compare(cur_, ir::CompareOperator::Eq, e, integer(1, line), line),
        line);
    check(ok, broadcastMessage(what), e, target, line);
  }
}

void PyIRBuilder::stretchInto(Space &space, Leaves &ls) {
  size_t n = space.extents.size();
  for (auto &l : ls) {
    size_t offset = n - l.second.dims.size();
    for (size_t k = 0; k < l.second.dims.size(); ++k) {
      Access::Dim &dim = l.second.dims[k];
      if (dim.extentKey == space.keys[offset + k])
        continue;
      space.stretched.push_back({dim.length, space.extents[offset + k]});
      dim.startKey += "~";
    }
  }
}

namespace {
/// Builds a StatementGraph depth first: operands before their users, in
/// the order the statement's code computed them.
class GraphBuilder {
public:
  GraphBuilder(StatementGraph &g,
               const std::function<bool(const Instruction *)> &computed)
      : g_(g), computed_(computed) {}

  int value(Instruction *v, bool root = false) {
    auto seen = values_.find(v);
    if (seen != values_.end())
      return seen->second;
    ArrayExpression::Value value;
    if (!root && !isArray(v->type)) {
      value.kind = ArrayExpression::Value::Kind::Scalar;
      value.parameter = parameter(Parameter::Kind::Host, v);
    } else if (!root && !computed_(v)) {
      value.parameter = parameter(Parameter::Kind::Array, v);
    } else {
      operation(v, value);
    }
    return add(v, std::move(value));
  }

private:
  using Parameter = StatementGraph::Parameter;

  int add(Instruction *v, ArrayExpression::Value value) {
    g_.expression.values.push_back(std::move(value));
    int at = int(g_.expression.values.size()) - 1;
    values_[v] = at;
    return at;
  }

  int parameter(Parameter::Kind kind, Instruction *v) {
    g_.parameters.push_back({kind, v});
    return int(g_.parameters.size()) - 1;
  }

  /// v, an element-wise operation, as a value of its operands' values.
  void operation(Instruction *v, ArrayExpression::Value &value) {
    using Kind = ArrayExpression::Value::Kind;
    std::vector<Instruction *> operands;
    value.kind = Kind::Apply;
    switch (v->opcode) {
    case Opcode::BinaryOp:
    case Opcode::Compare:
    case Opcode::UnaryOp: {
      const ArrayOp *ufunc = ufuncOfOperator(v->opcode, v->index);
      SPIRJIT_INTERNAL_CHECK(ufunc, "an array operator with no ufunc in "
                                    "ArrayOps.def");
      value.function = ufunc->numpy;
      operands = v->operands;
      break;
    }
    case Opcode::GetAttr: // z.real, z.imag (roleOf)
      value.function = v->name;
      operands = {v->operands[0]};
      break;
    case Opcode::GetItem: // a gather: a at the element of idx
      value.kind = Kind::Load;
      operands = {v->operands[1]};
      break;
    case Opcode::Call: {
      std::string name = calleeName(v);
      const ArrayOp *ufunc = findUfunc(name);
      if (name == "numpy.astype") {
        value.kind = Kind::Cast;
        value.dtype = v->type->element->str(); // the dtype is the result's
        bool method = v->operands[0]->type->kind == TypeKind::Method;
        operands = {method ? v->operands[0]->operands[0] : v->operands[1]};
        break;
      }
      if (name == "numpy.copy" || name == "numpy.where" || ufunc ||
          name == "abs") {
        value.function = name == "abs" ? "absolute"
                         : ufunc       ? ufunc->numpy
                                       : name.substr(6);
        if (v->operands[0]->type->kind == TypeKind::Method)
          operands.push_back(v->operands[0]->operands[0]);
        operands.insert(operands.end(), v->operands.begin() + 1,
                        v->operands.end());
        break;
      }
      // Any other function, called on the elements as the user wrote it.
      value.function = "call";
      ArrayExpression::Value callee;
      callee.kind = Kind::Function;
      callee.parameter = parameter(Parameter::Kind::Callee, v->operands[0]);
      value.operands.push_back(add(v->operands[0], std::move(callee)));
      operands.assign(v->operands.begin() + 1, v->operands.end());
      break;
    }
    default:
      SPIRJIT_INTERNAL_CHECK(false, "an array value of an unknown kind");
    }
    for (Instruction *operand : operands)
      value.operands.push_back(this->value(operand));
    if (value.kind == Kind::Load) // numbered after its index's
      value.parameter = parameter(Parameter::Kind::Gathered, v->operands[0]);
  }

  StatementGraph &g_;
  const std::function<bool(const Instruction *)> &computed_;
  std::map<const Instruction *, int> values_;
};
} // namespace

StatementGraph
statementGraph(Instruction *root, int rank,
               const std::function<bool(const Instruction *)> &computed) {
  StatementGraph g;
  g.expression.rank = rank;
  g.expression.result = GraphBuilder(g, computed).value(root, true);
  g.expression.parameterCount = int(g.parameters.size());
  return g;
}

std::string StatementGraph::text() const {
  static const char *const kinds[] = {"array", "array gathered", "host value",
                                      "function"};
  std::string t = expression.text();
  for (size_t p = 0; p < parameters.size(); ++p) {
    const Instruction *v = parameters[p].value;
    t += "  p" + std::to_string(p) + ": " + kinds[int(parameters[p].kind)] +
         " %" + std::to_string(v->id) + " : " + v->type->str() + "\n";
  }
  return t;
}

} // namespace spirjit::arrays
