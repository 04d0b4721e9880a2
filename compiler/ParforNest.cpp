// A prange loop's perfect nest (ParforNest.h states the contract).
#include "compiler/ParforNest.h"

#include "compiler/ParforRows.h"

namespace spirjit {

using ir::Block;
using ir::Instruction;
using ir::Opcode;

namespace {

/// Pure, cheap, and safe to evaluate once before the loop even if it
/// never runs: what an inner prange's bounds are computed with.
bool isHoistable(const Instruction *inst) {
  switch (inst->opcode) {
  case Opcode::Const:
  case Opcode::Global:
  case Opcode::FreeVar:
  case Opcode::BinaryOp:
  case Opcode::UnaryOp:
  case Opcode::Compare:
  case Opcode::GetAttr:
  case Opcode::TupleGet:
    return true;
  case Opcode::GetItem:
    return inst->operands[0]->type &&
           inst->operands[0]->type->kind == TypeKind::Tuple;
  default:
    return false;
  }
}

} // namespace

std::vector<const ir::Loop *>
perfectNest(const ir::Loop &outer, Block *preheader,
            const std::set<Block *> &asserts, bool mapRows,
            const std::unordered_set<const Instruction *> &nonNegative,
            Parfor &parfor, const std::vector<Instruction *> &reductions,
            std::vector<Instruction *> &carried) {
  std::string &rows = parfor.rows;
  std::vector<const ir::Loop *> nest = {&outer};
  while (nest.size() < 3 && !rangeCallOf(*nest.back())) {
    const ir::Loop &loop = *nest.back();
    // A range loop in the body, and why it stays a loop per work-item.
    auto keepRows = [&](const std::string &why) {
      for (const ir::Loop *child : loop.children)
        if (rangeCallOf(*child))
          rows = "rows kept: " + why;
    };
    bool reduces = !reductions.empty();
    if (loop.children.size() != 1 ||
        (!reduces && !headerPhis(loop).empty())) {
      keepRows("the body holds more than the inner range loop");
      break;
    }
    const ir::Loop &inner = *loop.children[0];
    bool isRange = rangeCallOf(inner) != nullptr;
    Instruction *innerRange = isRange ? rangeCallOf(inner) : prangeOf(inner);
    if (!innerRange || (reduces && !isRange))
      break;
    if (reduces) {
      std::string why =
          reductionContinuations(outer, inner, reductions, carried);
      if (!why.empty()) {
        keepRows(why);
        break;
      }
    }
    if (isRange) {
      std::set<const Instruction *> allowed(carried.begin(), carried.end());
      std::string why =
          rowDependence(nest, inner, asserts, nonNegative, allowed);
      if (!why.empty()) {
        keepRows(why);
        break;
      }
    } else if (!headerPhis(inner).empty()) {
      break;
    }
    // The outer body's first block only starts the inner loop...
    Block *start = headerBranch(loop)->targets[0];
    if (start->predecessors.size() != 1 || start->terminator() == nullptr ||
        !start->terminator()->isa(Opcode::Branch) ||
        start->terminator()->targets[0] != inner.header) {
      keepRows("the body does more before the inner loop");
      break;
    }
    // ... from values that do not depend on the outer loops.
    std::set<const Instruction *> hoisted;
    bool onlyStart = true;
    for (auto &inst : start->instructions) {
      Instruction *i = inst.get();
      if (i->isa(Opcode::Branch) || i == innerRange ||
          (i->isa(Opcode::GetIter) && i->operands[0] == innerRange))
        continue;
      bool invariant = isHoistable(i);
      for (const Instruction *o : i->operands)
        if (outer.contains(o->parent) && !hoisted.count(o))
          invariant = false;
      if (invariant)
        hoisted.insert(i);
      else
        onlyStart = false;
    }
    bool rangeVaries = false;
    for (size_t k = 0; k < innerRange->operands.size(); ++k) {
      Instruction *arg = innerRange->operands[k];
      if (outer.contains(arg->parent) && !hoisted.count(arg))
        rangeVaries = true;
    }
    if (rangeVaries) {
      keepRows("the inner range's bounds vary with the prange index (a "
               "launch is a rectangle), or are more than arithmetic on "
               "values from before the loop");
      break;
    }
    if (!onlyStart) {
      keepRows("the body computes more before the inner loop than its "
               "range's bounds");
      break;
    }
    // ... and the inner loop's exit goes straight back.
    Instruction *innerBranch = headerBranch(inner);
    Block *exit = innerBranch ? innerBranch->targets[1] : nullptr;
    if (!exit || exit->instructions.size() != 1 ||
        !exit->terminator()->isa(Opcode::Branch) ||
        exit->terminator()->targets[0] != loop.header ||
        inner.latches.empty()) {
      keepRows("the body does more after the inner loop");
      break;
    }
    if (isRange) {
      if (!mapRows) {
        keepRows("the device runs a row per work-item well (the inner "
                 "range loop is independent)");
        parfor.rowsMappable = true;
        break;
      }
      rows = reduces
                 ? "rows mapped: the reduction runs over (row, column) "
                   "pairs, neighbouring work-items on neighbouring "
                   "columns (inner range loop independent)"
                 : "rows mapped onto a " + std::to_string(nest.size() + 1) +
                       "-D launch (inner range loop independent)";
    }
    // Hoist, keeping the preheader's branch last.
    auto &list = start->instructions;
    auto &into = preheader->instructions;
    for (auto it = list.begin(); it != list.end();) {
      if (!hoisted.count(it->get())) {
        ++it;
        continue;
      }
      (*it)->parent = preheader;
      into.insert(into.end() - 1, std::move(*it));
      it = list.erase(it);
    }
    nest.push_back(&inner);
  }
  return nest;
}

} // namespace spirjit
