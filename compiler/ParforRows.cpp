// May a prange body's inner range loop become a launch dimension? (the
// contract: ParforRows.h)
#include "compiler/ParforRows.h"

#include "compiler/Parfor.h"

#include "compiler/Types.h"

#include <algorithm>
#include <map>

namespace spirjit {

using ir::Block;
using ir::Instruction;
using ir::Opcode;

Instruction *rangeCallOf(const ir::Loop &loop) {
  return loopCallOf(loop, {"range"});
}

namespace {

Instruction *indexOf(const ir::Loop &loop) {
  for (auto &inst : loop.header->instructions)
    if (inst->isa(Opcode::IterNext))
      return inst.get();
  return nullptr;
}

bool isIntConstant(const Instruction *inst) {
  return inst->isa(Opcode::Const) &&
         inst->constant.kind == ConstValue::Kind::Int;
}

/// Do two index tuples name the same element in every iteration: the same
/// values, or equal integer constants, component for component?
bool sameIndex(const Instruction *a, const Instruction *b) {
  if (a == b)
    return true;
  if (!a->isa(Opcode::BuildTuple) || !b->isa(Opcode::BuildTuple) ||
      a->operands.size() != b->operands.size())
    return false;
  for (size_t k = 0; k < a->operands.size(); ++k) {
    const Instruction *x = a->operands[k], *y = b->operands[k];
    if (x != y && !(isIntConstant(x) && isIntConstant(y) &&
                    x->constant.intValue == y->constant.intValue))
      return false;
  }
  return true;
}

bool isArray(const Instruction *inst) {
  return inst->type && inst->type->kind == TypeKind::Array;
}

} // namespace

std::string
rowDependence(const std::vector<const ir::Loop *> &nest, const ir::Loop &inner,
              const std::set<Block *> &asserts,
              const std::unordered_set<const Instruction *> &nonNegative,
              const std::set<const Instruction *> &carried) {
  const ir::Loop &outer = *nest.front();
  for (auto &inst : inner.header->instructions)
    if (inst->isa(Opcode::Phi) && !carried.count(inst.get()))
      return "the inner loop carries a value from one iteration to the "
             "next (a reduction over the row?)";
  for (Block *block : inner.blocks)
    if (block != inner.header)
      for (Block *succ : block->successors())
        if (!inner.contains(succ) && !asserts.count(succ))
          return "the inner loop can be left early (break)";
  // A launch dimension counts up from its start: range(start, stop, step)
  // with a step only known at run time could count down.
  Instruction *range = rangeCallOf(inner);
  if (range->operands.size() == 4 &&
      !(isIntConstant(range->operands[3]) &&
        range->operands[3]->constant.intValue > 0))
    return "the inner range's step is not a positive constant";
  Instruction *column = indexOf(inner);
  if (!nonNegative.count(column))
    return "the inner range may start below 0 (a negative index counts "
           "from the end, so two columns could name one element)";

  std::vector<const Instruction *> indices;
  for (const ir::Loop *loop : nest)
    indices.push_back(indexOf(*loop));
  indices.push_back(column);
  // Each array the loop writes, and the index tuple of its writes.
  std::map<const Instruction *, const Instruction *> written;
  for (Block *block : inner.blocks)
    for (auto &inst : block->instructions) {
      if (!inst->isa(Opcode::SetItem))
        continue;
      const Instruction *array = inst->operands[0];
      const Instruction *index = inst->operands[1];
      if (!isArray(array) || outer.contains(array->parent))
        return "it writes an array chosen inside the prange loop";
      bool holdsAll = index->isa(Opcode::BuildTuple) &&
                      std::all_of(indices.begin(), indices.end(), [&](auto *i) {
                        return std::count(index->operands.begin(),
                                          index->operands.end(), i) > 0;
                      });
      if (!holdsAll)
        return "a write's index does not hold the prange index and the "
               "inner index unchanged";
      auto [at, first] = written.emplace(array, index);
      if (!first && !sameIndex(at->second, index))
        return "it writes one array at two different indices";
    }
  // Everything else: pure, or a read that cannot see another column's
  // write.
  for (Block *block : inner.blocks)
    for (auto &inst : block->instructions) {
      const Instruction *i = inst.get();
      switch (i->opcode) {
      case Opcode::Const:
      case Opcode::Global:
      case Opcode::FreeVar:
      case Opcode::Undef:
      case Opcode::Phi:
      case Opcode::BinaryOp:
      case Opcode::UnaryOp:
      case Opcode::Compare:
      case Opcode::Truth:
      case Opcode::GetAttr:
      case Opcode::BuildTuple:
      case Opcode::TupleGet:
      case Opcode::GetIter:
      case Opcode::IterValid:
      case Opcode::IterNext:
      case Opcode::Assert:
      case Opcode::Fail:
      case Opcode::Branch:
      case Opcode::CondBranch:
      case Opcode::SetItem:
        break;
      case Opcode::GetItem: {
        const Instruction *array = i->operands[0];
        if (!isArray(array))
          break;
        if (outer.contains(array->parent))
          return "it reads an array chosen or viewed inside the prange loop";
        auto at = written.find(array);
        if (at != written.end() && !sameIndex(at->second, i->operands[1]))
          return "it reads an array it writes at another index";
        break;
      }
      case Opcode::Call: {
        const Instruction *callee = i->operands[0];
        bool method =
            callee->isa(Opcode::GetAttr) && isArray(callee->operands[0]);
        if (method ||
            std::any_of(i->operands.begin() + 1, i->operands.end(), isArray))
          return "a call takes an array (and could write it)";
        break;
      }
      default:
        return std::string("it holds a '") + ir::opcodeName(i->opcode) +
               "' instruction";
      }
    }
  return "";
}

std::string
reductionContinuations(const ir::Loop &outer, const ir::Loop &inner,
                       const std::vector<Instruction *> &reductions,
                       std::vector<Instruction *> &carried) {
  carried.clear();
  std::vector<Instruction *> phis;
  for (auto &inst : inner.header->instructions)
    if (inst->isa(Opcode::Phi))
      phis.push_back(inst.get());
  if (phis.size() != reductions.size())
    return "the inner loop carries a value that is not the prange loop's "
           "reduction";
  for (Instruction *reduction : reductions) {
    Instruction *continued = nullptr;
    for (Instruction *phi : phis)
      for (size_t p = 0; p < phi->operands.size(); ++p)
        if (!inner.contains(inner.header->predecessors[p]) &&
            phi->operands[p] == reduction)
          continued = phi;
    bool backFromIt = continued != nullptr;
    for (size_t p = 0; backFromIt && p < reduction->operands.size(); ++p)
      if (outer.contains(outer.header->predecessors[p]) &&
          reduction->operands[p] != continued)
        backFromIt = false;
    if (!backFromIt)
      return "the prange loop's reduction is updated outside the inner loop";
    carried.push_back(continued);
  }
  return "";
}

} // namespace spirjit
