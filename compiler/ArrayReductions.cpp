// Whole-array reductions of prange loops (ArrayReductions.h states the
// contract): each becomes a prange over private copies, each copy a range
// loop over its share of the iterations, then the copies' combination.
#include "compiler/ArrayReductions.h"

#include "compiler/Parfor.h"
#include "compiler/ParforReductions.h"

#include "frontend/Diagnostics.h"
#include "frontend/Dominators.h"

#include <algorithm>
#include <set>

namespace spirjit {

using ir::Block;
using ir::Instruction;
using ir::Opcode;

namespace {

/// At most this many private copies of the accumulators (numba has one per
/// thread), and no more than fit in this many elements together: each
/// copy's share of the iterations runs in one work-item, so more copies
/// are more parallelism and more memory.
constexpr int64_t kMostCopies = 64;
constexpr int64_t kCopiedElements = int64_t(1) << 22;

struct ArrayAccumulator {
  Instruction *phi;
  ReductionOp op; // Add (+=, -=) or Mul (*=, /=)
  std::set<const Instruction *> values;
  Instruction *initial = nullptr;
  Instruction *copies = nullptr; // P, in the preheader
};

class Rewriter {
public:
  Rewriter(TypedFunction &host, FunctionDescription &description)
      : host_(host), fn_(*host.function), description_(description) {}

  /// Rewrites one loop; false when no loop is left to rewrite.
  bool rewriteOne() {
    ir::DominatorTree dominators(fn_);
    ir::LoopTree loops(fn_, dominators);
    for (const auto &loop : loops.loops()) {
      if (!parallelCallOf(*loop) || outermostParallelAbove(*loop) ||
          rewritten_.count(loop->header))
        continue;
      std::vector<ArrayAccumulator> accumulators;
      for (Instruction *phi : headerPhis(*loop)) {
        ArrayAccumulator a{phi, ReductionOp::Add, {}};
        if (phi->type && phi->type->kind == TypeKind::Array &&
            isReduction(fn_, *loop, phi, a.op, &a.values))
          accumulators.push_back(std::move(a));
      }
      if (accumulators.empty())
        continue;
      rewrite(*loop, accumulators);
      std::string problems = ir::verify(fn_);
      SPIRJIT_INTERNAL_CHECK(problems.empty(),
                             "the array-reduction stage broke the host "
                             "function: " + problems);
      return true;
    }
    return false;
  }

private:
  /// Rewritten loops' new pranges are untyped: a loop inside one is found
  /// by its header, which stays.
  bool outermostParallelAbove(const ir::Loop &loop) const {
    for (const ir::Loop *p = loop.parent; p; p = p->parent)
      if (parallelCallOf(*p) || rewritten_.count(p->header))
        return true;
    return false;
  }

  Instruction *make(Block *block, Opcode op, std::vector<Instruction *> operands,
                    int line) {
    return fn_.create(block, op, std::move(operands), line);
  }
  Instruction *global(Block *block, const std::string &name,
                      GlobalValue::Kind kind, const std::string &value,
                      int line) {
    Instruction *inst = make(block, Opcode::Global, {}, line);
    inst->name = addGeneratedGlobal(description_, name, kind, value);
    return inst;
  }
  Instruction *call(Block *block, const std::string &builtin,
                    std::vector<Instruction *> args, int line) {
    args.insert(args.begin(), global(block, builtin, GlobalValue::Kind::Builtin,
                                     builtin, line));
    return make(block, Opcode::Call, std::move(args), line);
  }
  Instruction *integer(Block *block, int64_t v, int line) {
    Instruction *c = make(block, Opcode::Const, {}, line);
    c->constant = ConstValue::ofInt(v);
    return c;
  }
  Instruction *binary(Block *block, ir::BinaryOperator op, Instruction *a,
                      Instruction *b, int line) {
    Instruction *inst = make(block, Opcode::BinaryOp, {a, b}, line);
    inst->index = static_cast<int64_t>(op);
    return inst;
  }
  Instruction *branch(Block *from, Block *to, int line) {
    Instruction *br = make(from, Opcode::Branch, {}, line);
    br->targets = {to};
    return br;
  }
  /// `for v in range(count)`'s header: valid and next in `header`, the
  /// iterator made in `before`.
  std::pair<Instruction *, Instruction *>
  iterate(Block *before, Block *header, Instruction *rangeCall, int line) {
    Instruction *iter = make(before, Opcode::GetIter, {rangeCall}, line);
    Instruction *valid = make(header, Opcode::IterValid, {iter}, line);
    Instruction *next = make(header, Opcode::IterNext, {iter}, line);
    return {valid, next};
  }

  [[noreturn]] void error(int line, const std::string &message) {
    throw UserError(UserErrorKind::UnsupportedFeature, host_.description->filename,
                    line, message);
  }

  void rewrite(const ir::Loop &loop, std::vector<ArrayAccumulator> &accumulators) {
    Instruction *prange = parallelCallOf(loop);
    int line = prange->line;
    if (prange->operands[0]->type->name != "spirjit.prange")
      error(accumulators[0].phi->line,
            "an array updated in place across a pndindex loop's iterations "
            "(a whole-array reduction) is supported in prange loops only; "
            "loop over the extents with prange");
    Block *header = loop.header;
    Instruction *condbr = headerBranch(loop);
    Instruction *index = nullptr, *iterValid = nullptr;
    for (auto &inst : header->instructions) {
      if (inst->isa(Opcode::IterNext))
        index = inst.get();
      else if (inst->isa(Opcode::IterValid))
        iterValid = inst.get();
      else
        SPIRJIT_INTERNAL_CHECK(inst->isa(Opcode::Phi) ||
                                   inst.get() == condbr,
                               "a prange loop's header computes more than "
                               "its index");
    }
    SPIRJIT_INTERNAL_CHECK(condbr && index && iterValid,
                           "a prange loop's header without its index");
    Instruction *oldIter = iterValid->operands[0];
    std::vector<Block *> preheaders;
    for (Block *p : header->predecessors)
      if (!loop.contains(p))
        preheaders.push_back(p);
    SPIRJIT_INTERNAL_CHECK(preheaders.size() == 1 &&
                               preheaders[0]->terminator()->isa(Opcode::Branch),
                           "a prange loop with several entries");
    Block *preheader = preheaders[0];
    size_t entryIndex =
        std::find(header->predecessors.begin(), header->predecessors.end(),
                  preheader) -
        header->predecessors.begin();
    Block *exit = condbr->targets[1];
    Block *bodyEntry = condbr->targets[0];

    // The values of the blocks after the loop (the exit and what it
    // reaches) that read the loop's header: every block outside the loop.
    std::set<const Block *> inLoop(loop.blocks.begin(), loop.blocks.end());

    // --- the preheader: trip count, copies, the private copies ---
    fn_.erase(preheader->terminator());
    std::vector<Instruction *> bounds(prange->operands.begin() + 1,
                                      prange->operands.end());
    Instruction *start = bounds.size() >= 2 ? bounds[0] : nullptr;
    Instruction *stop = bounds.size() >= 2 ? bounds[1] : bounds[0];
    Instruction *step = bounds.size() == 3 ? bounds[2] : nullptr;
    Instruction *trips = start ? binary(preheader, ir::BinaryOperator::Sub,
                                        stop, start, line)
                               : stop;
    if (step) // ceil((stop - start) / step): prange's step is positive
      trips = binary(
          preheader, ir::BinaryOperator::FloorDiv,
          binary(preheader, ir::BinaryOperator::Sub,
                 binary(preheader, ir::BinaryOperator::Add, trips, step, line),
                 integer(preheader, 1, line), line),
          step, line);
    trips = call(preheader, "max", {trips, integer(preheader, 0, line)}, line);
    Instruction *elements = integer(preheader, 1, line);
    for (ArrayAccumulator &a : accumulators) {
      for (size_t i = 0; i < a.phi->operands.size(); ++i)
        if (i == entryIndex)
          a.initial = a.phi->operands[i];
      Instruction *size = make(preheader, Opcode::GetAttr, {a.initial}, line);
      size->name = "size";
      elements = binary(preheader, ir::BinaryOperator::Add, elements, size, line);
    }
    Instruction *most = call(
        preheader, "max",
        {binary(preheader, ir::BinaryOperator::FloorDiv,
                integer(preheader, kCopiedElements, line), elements, line),
         integer(preheader, 1, line)},
        line);
    most = call(preheader, "min", {most, integer(preheader, kMostCopies, line)},
                line);
    Instruction *count = call(preheader, "min", {trips, most}, line);
    for (ArrayAccumulator &a : accumulators) {
      Instruction *shape = make(preheader, Opcode::GetAttr, {a.initial}, line);
      shape->name = "shape";
      Instruction *copiesShape = binary(
          preheader, ir::BinaryOperator::Add,
          make(preheader, Opcode::BuildTuple, {count}, line), shape, line);
      Instruction *dtype = make(preheader, Opcode::GetAttr, {a.initial}, line);
      dtype->name = "dtype";
      Instruction *identity = integer(preheader, a.op == ReductionOp::Mul, line);
      a.copies = make(preheader, Opcode::Call,
                      {global(preheader, "full", GlobalValue::Kind::Object,
                              "numpy.full", line),
                       copiesShape, identity, dtype},
                      line);
    }
    Instruction *outerRange = make(
        preheader, Opcode::Call,
        {global(preheader, "prange", GlobalValue::Kind::Object,
                "spirjit.prange", line),
         count},
        line);

    // --- the outer loop over the copies ---
    Block *outerHeader = fn_.addBlock();
    Block *outerBody = fn_.addBlock();
    Block *innerExit = fn_.addBlock();
    Block *indexBlock = fn_.addBlock();
    Block *combinePreheader = fn_.addBlock();
    Block *combineHeader = fn_.addBlock();
    Block *combineBody = fn_.addBlock();
    rewritten_.insert({header, outerHeader});
    auto [outerValid, g] = iterate(preheader, outerHeader, outerRange, line);
    branch(preheader, outerHeader, line);
    outerHeader->predecessors = {preheader, innerExit};
    Instruction *outerBr = make(outerHeader, Opcode::CondBranch, {outerValid}, line);
    outerBr->targets = {outerBody, combinePreheader};

    // Its body: the copy's share of the iterations, then the inner loop.
    Instruction *lo = binary(
        outerBody, ir::BinaryOperator::FloorDiv,
        binary(outerBody, ir::BinaryOperator::Mul, g, trips, line), count, line);
    Instruction *hi = binary(
        outerBody, ir::BinaryOperator::FloorDiv,
        binary(outerBody, ir::BinaryOperator::Mul,
               binary(outerBody, ir::BinaryOperator::Add, g,
                      integer(outerBody, 1, line), line),
               trips, line),
        count, line);
    std::vector<Instruction *> rows;
    for (ArrayAccumulator &a : accumulators)
      rows.push_back(make(outerBody, Opcode::GetItem, {a.copies, g}, line));
    Instruction *innerRange = call(outerBody, "range", {lo, hi}, line);
    Instruction *innerIter = make(outerBody, Opcode::GetIter, {innerRange}, line);
    branch(outerBody, header, line);
    outerBody->predecessors = {outerHeader};
    branch(innerExit, outerHeader, line);
    innerExit->predecessors = {header};

    // The loop's header is the inner loop's: it iterates over the share,
    // and the body's index is start + k * step.
    iterValid->operands[0] = innerIter;
    index->operands[0] = innerIter;
    Instruction *i = index;
    if (step)
      i = binary(indexBlock, ir::BinaryOperator::Mul, i, step, line);
    if (start)
      i = binary(indexBlock, ir::BinaryOperator::Add, start, i, line);
    branch(indexBlock, bodyEntry, line);
    indexBlock->predecessors = {header};
    condbr->targets = {indexBlock, innerExit};
    std::replace(bodyEntry->predecessors.begin(), bodyEntry->predecessors.end(),
                 header, indexBlock);
    header->predecessors[entryIndex] = outerBody;

    // The body's accumulators are the copy's row; after the loop, the
    // accumulator is the array it started from, updated in place below.
    for (size_t k = 0; k < accumulators.size(); ++k)
      replaceInLoop(accumulators[k], rows[k], inLoop);
    if (i != index)
      for (Block *block : loop.blocks)
        for (auto &inst : block->instructions)
          if (inst.get() != i && inst->parent != header)
            std::replace(inst->operands.begin(), inst->operands.end(), index,
                         i);

    // The other carried values go on through the inner loop: the outer
    // header starts each share from the value the last share ended with.
    for (Instruction *phi : headerPhis(loop)) {
      Instruction *outer = make(outerHeader, Opcode::Phi, {}, phi->line);
      outer->operands = {phi->operands[entryIndex], phi};
      replaceOutside(phi, outer, inLoop, {outer});
      phi->operands[entryIndex] = outer;
    }

    // --- the combination: y op= P[g] for each copy, in order ---
    Instruction *combineRange = call(combinePreheader, "range", {count}, line);
    auto [combineValid, c] =
        iterate(combinePreheader, combineHeader, combineRange, line);
    branch(combinePreheader, combineHeader, line);
    combinePreheader->predecessors = {outerHeader};
    Instruction *combineBr =
        make(combineHeader, Opcode::CondBranch, {combineValid}, line);
    combineBr->targets = {combineBody, exit};
    combineHeader->predecessors = {combinePreheader, combineBody};
    combineBody->predecessors = {combineHeader};
    for (ArrayAccumulator &a : accumulators) {
      Instruction *row = make(combineBody, Opcode::GetItem, {a.copies, c}, line);
      Instruction *update =
          binary(combineBody,
                 a.op == ReductionOp::Mul ? ir::BinaryOperator::Mul
                                          : ir::BinaryOperator::Add,
                 a.initial, row, line);
      update->name = "inplace";
    }
    branch(combineBody, combineHeader, line);
    std::replace(exit->predecessors.begin(), exit->predecessors.end(), header,
                 combineHeader);

    // Lowering takes blocks in order, definitions first.
    moveBefore({outerHeader, outerBody}, header);
    moveBefore({indexBlock}, bodyEntry);
    moveBefore({innerExit, combinePreheader, combineHeader, combineBody},
               exit);

    oldIter->operands.clear();
    fn_.erase(oldIter);
    if (!isUsed(prange))
      fn_.erase(prange);
  }

  /// The accumulator's values in the loop become the copy's row `row`
  /// (in-place updates leave an array what it was); its phis go. After the
  /// loop, its header phi is the initial array.
  void replaceInLoop(ArrayAccumulator &a, Instruction *row,
                     const std::set<const Block *> &inLoop) {
    replaceOutside(a.phi, a.initial, inLoop, {});
    for (auto &block : fn_.blocks)
      for (auto &inst : block->instructions)
        for (Instruction *&operand : inst->operands)
          if (a.values.count(operand))
            operand = row;
    for (const Instruction *v : a.values)
      if (v->isa(Opcode::Phi)) {
        Instruction *phi = const_cast<Instruction *>(v);
        phi->operands.clear();
        fn_.erase(phi);
      }
  }

  /// Uses of `from` in blocks outside the loop, but in `except`, become `to`.
  void replaceOutside(Instruction *from, Instruction *to,
                      const std::set<const Block *> &inLoop,
                      const std::set<const Instruction *> &except) {
    for (auto &block : fn_.blocks)
      if (!inLoop.count(block.get()))
        for (auto &inst : block->instructions)
          if (!except.count(inst.get()))
            std::replace(inst->operands.begin(), inst->operands.end(), from,
                         to);
  }

  /// Puts `moved` (new blocks, at the end) in this order before `at`.
  void moveBefore(const std::vector<Block *> &moved, const Block *at) {
    auto &blocks = fn_.blocks;
    for (Block *block : moved) {
      auto from = std::find_if(blocks.begin(), blocks.end(),
                               [&](auto &b) { return b.get() == block; });
      std::unique_ptr<Block> owned = std::move(*from);
      blocks.erase(from);
      auto to = std::find_if(blocks.begin(), blocks.end(),
                             [&](auto &b) { return b.get() == at; });
      blocks.insert(to, std::move(owned));
    }
  }

  bool isUsed(const Instruction *v) const {
    for (auto &block : fn_.blocks)
      for (auto &inst : block->instructions)
        if (std::count(inst->operands.begin(), inst->operands.end(), v))
          return true;
    return false;
  }

  TypedFunction &host_;
  ir::Function &fn_;
  FunctionDescription &description_;
  /// The headers of the loops rewritten, and of the loops made around them.
  std::set<const Block *> rewritten_;
};

} // namespace

std::shared_ptr<FunctionDescription> lowerArrayReductions(TypedFunction &host) {
  auto description = std::make_shared<FunctionDescription>(*host.description);
  Rewriter rewriter(host, *description);
  bool changed = false;
  while (rewriter.rewriteOne())
    changed = true;
  if (!changed)
    return nullptr;
  for (auto &block : host.function->blocks)
    for (auto &inst : block->instructions)
      inst->type = nullptr;
  return description;
}

} // namespace spirjit
