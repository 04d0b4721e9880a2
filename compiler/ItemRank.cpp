#include "compiler/ItemRank.h"

#include <algorithm>
#include <set>
#include <string>

namespace spirjit {
namespace {

bool isPerDimensionQuery(const Type *callee) {
  static const std::set<std::string> queries = {
      "get_id",       "get_range",        "get_global_id",
      "get_local_id", "get_global_range", "get_local_range",
      "get_group_id", "get_group_range"};
  if (!callee || callee->kind != TypeKind::Method || callee->elements.empty())
    return false;
  TypeKind receiver = callee->elements[0]->kind;
  return (receiver == TypeKind::Item || receiver == TypeKind::NdItem ||
          receiver == TypeKind::Group) &&
         queries.count(callee->name);
}

int rankOf(const TypedFunction &typed) {
  int rank = 1;
  for (const auto &block : typed.function->blocks)
    for (const auto &inst : block->instructions) {
      if (!inst->isa(ir::Opcode::Call) || inst->operands.size() != 2 ||
          !isPerDimensionQuery(inst->operands[0]->type))
        continue;
      const ConstValue *dim = constantOf(typed, inst->operands[1]);
      if (dim && dim->kind == ConstValue::Kind::Int && dim->intValue >= 0)
        rank = std::max<int64_t>(rank, dim->intValue + 1);
    }
  return rank;
}

} // namespace

int requiredItemRank(const TypedFunction &kernel,
                     const Specializations &specializations) {
  int rank = rankOf(kernel);
  for (const auto &[key, callee] : specializations.byKey)
    rank = std::max(rank, rankOf(*callee));
  return rank;
}

} // namespace spirjit
