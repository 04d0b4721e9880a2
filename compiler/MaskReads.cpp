// a[mask] reads become calls of the jit library (MaskReads.h states the
// contract).
#include "compiler/MaskReads.h"

#include "compiler/Parfor.h"
#include "frontend/Diagnostics.h"
#include "frontend/Dominators.h"

#include <algorithm>

namespace spirjit {

using ir::Block;
using ir::Instruction;
using ir::Opcode;

namespace {

bool isMaskRead(const Instruction &inst) {
  if (!inst.isa(Opcode::GetItem))
    return false;
  const Type *array = inst.operands[0]->type;
  const Type *index = inst.operands[1]->type;
  return array && index && array->kind == TypeKind::Array &&
         index->kind == TypeKind::Array &&
         index->element->kind == TypeKind::Bool;
}

/// Whether `block` is in the body of a prange or pndindex loop.
bool inParallelLoop(const ir::LoopTree &loops, const Block *block) {
  for (const ir::Loop *loop = loops.loopFor(block); loop; loop = loop->parent)
    if (parallelCallOf(*loop))
      return true;
  return false;
}

} // namespace

std::shared_ptr<FunctionDescription> lowerMaskReads(TypedFunction &host) {
  ir::Function &fn = *host.function;
  const FunctionDescription &described = *host.description;
  std::vector<Instruction *> reads;
  for (auto &block : fn.blocks)
    for (auto &inst : block->instructions)
      if (isMaskRead(*inst))
        reads.push_back(inst.get());
  if (reads.empty())
    return nullptr;
  ir::DominatorTree dominators(fn);
  ir::LoopTree loops(fn, dominators);
  for (Instruction *read : reads)
    if (inParallelLoop(loops, read->parent))
      throw UserError(UserErrorKind::UnsupportedFeature, described.filename,
                      read->line,
                      "a[mask] (a boolean mask) makes a new array, which a "
                      "prange loop's body cannot; index it before the loop, "
                      "or test the mask's element in the body");
  if (!described.library.count("spirjit.mask_index#2"))
    throw LibraryOperationsNeeded({"mask_index"});
  auto description = std::make_shared<FunctionDescription>(described);
  std::string name = generatedGlobalName("mask_index");
  description->globals[name] = {GlobalValue::Kind::Object,
                                "spirjit.mask_index", {}, ""};
  for (Instruction *read : reads) {
    // The callee goes right before the read, which becomes the call.
    Block *block = read->parent;
    Instruction *callee = fn.create(block, Opcode::Global, {}, read->line);
    callee->name = name;
    auto &list = block->instructions;
    auto at = std::find_if(list.begin(), list.end(),
                           [&](const auto &i) { return i.get() == read; });
    std::rotate(at, std::prev(list.end()), list.end());
    read->opcode = Opcode::Call;
    read->index = 0;
    read->operands.insert(read->operands.begin(), callee);
  }
  for (auto &block : fn.blocks)
    for (auto &inst : block->instructions)
      inst->type = nullptr;
  return description;
}

} // namespace spirjit
