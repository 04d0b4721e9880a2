#include "compiler/ItemRank.h"

#include "compiler/KernelAPI.h"

#include <algorithm>
#include <string>

namespace spirjit {
namespace {

/// A query of the item, its group or its range along one dimension: a
/// method of Item, NdItem or Group whose one parameter is the dimension.
bool isPerDimensionQuery(const Type *callee) {
  const KernelApiFunction *function = findKernelApi(callee);
  return function && function->receiver != KernelApiReceiver::Module &&
         function->receiver != KernelApiReceiver::AtomicRef &&
         function->parameters == std::vector<std::string>{"dim"};
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
