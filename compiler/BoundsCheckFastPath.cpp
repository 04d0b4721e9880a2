#include "compiler/BoundsCheckFastPath.h"

#include "compiler/DebugRecord.h"
#include "compiler/FunctionAnalyses.h"

#include <llvm/ADT/Triple.h>
#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/PatternMatch.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include <cmath>
#include <map>
#include <optional>

namespace spirjit {

namespace {

using namespace llvm::PatternMatch;

/// Each value the test starts from is checked at run time to lie within
/// +-2^40, and the test's arithmetic is bounded statically below 2^62
/// from that: no step of it can wrap.
constexpr int64_t leafLimit = int64_t(1) << 40;
constexpr double magnitudeLimit = 4611686018427387904.0; // 2^62

/// A work-item id of the SPIR builtins and the size that bounds it:
/// 0 <= id < size.
const char *sizeQueryFor(llvm::StringRef id) {
  if (id == "_Z13get_global_idj")
    return "_Z15get_global_sizej";
  if (id == "_Z12get_local_idj")
    return "_Z14get_local_sizej";
  if (id == "_Z12get_group_idj")
    return "_Z14get_num_groupsj";
  return nullptr;
}

/// The launch's sizes: the same for every work-item of a work-group.
const char *const sizeQueries[] = {
    "_Z15get_global_sizej", "_Z14get_local_sizej", "_Z14get_num_groupsj"};

bool isSizeQuery(llvm::StringRef name) {
  return llvm::is_contained(sizeQueries, name);
}

/// Where an i64 expression lies over the whole launch: min <= x <= max
/// when `ok` holds at run time; |min|, |max| and every step computing them
/// stay below `magnitude`.
struct Bound {
  llvm::Value *min, *max, *ok;
  double magnitude;
};

/// Builds the launch-wide test in a block of its own, from the SCEVs of
/// the checks' indices and extents.
class TestBuilder {
public:
  TestBuilder(llvm::ScalarEvolution &se, llvm::LoopInfo &loops,
              llvm::BasicBlock *block)
      : se_(se), loops_(loops), b_(block) {}

  /// The condition under which index <u extent holds wherever the check
  /// runs, or nullptr when it cannot be bounded so.
  llvm::Value *inBounds(llvm::Value *index, llvm::Value *extent) {
    std::optional<Bound> i = bound(se_.getSCEV(index));
    std::optional<Bound> n = bound(se_.getSCEV(extent));
    if (!i || !n)
      return nullptr;
    return all({i->ok, n->ok, b_.CreateICmpSGE(i->min, b_.getInt64(0)),
                b_.CreateICmpSLT(i->max, n->min)});
  }

private:
  llvm::Value *all(std::initializer_list<llvm::Value *> conditions) {
    llvm::Value *result = b_.getTrue();
    for (llvm::Value *c : conditions)
      result = b_.CreateAnd(result, c);
    return result;
  }

  llvm::Value *constant(int64_t value) { return b_.getInt64(value); }

  std::optional<Bound> bound(const llvm::SCEV *s) {
    auto known = bounds_.find(s);
    if (known != bounds_.end())
      return known->second;
    bounds_[s] = std::nullopt; // a phi that SCEV leaves reaches itself
    std::optional<Bound> result;
    if (s->getType()->isIntegerTy(64))
      result = compute(s);
    if (result && result->magnitude >= magnitudeLimit)
      result.reset();
    bounds_[s] = result;
    return result;
  }

  std::optional<Bound> compute(const llvm::SCEV *s) {
    using namespace llvm;
    if (auto *c = dyn_cast<SCEVConstant>(s)) {
      int64_t v = c->getAPInt().getSExtValue();
      return Bound{constant(v), constant(v), b_.getTrue(),
                   std::fabs(static_cast<double>(v))};
    }
    if (auto *unknown = dyn_cast<SCEVUnknown>(s)) {
      if (const SCEV *rec = laggingCounter(unknown->getValue()))
        return bound(rec);
      if (std::optional<Bound> counter = rangeCounter(unknown->getValue()))
        return counter;
      return leafOrId(unknown->getValue());
    }
    if (auto *add = dyn_cast<SCEVAddExpr>(s)) {
      Bound sum{constant(0), constant(0), b_.getTrue(), 0};
      for (const SCEV *operand : add->operands()) {
        std::optional<Bound> o = bound(operand);
        if (!o)
          return std::nullopt;
        sum = {b_.CreateAdd(sum.min, o->min), b_.CreateAdd(sum.max, o->max),
               b_.CreateAnd(sum.ok, o->ok), sum.magnitude + o->magnitude};
      }
      return sum;
    }
    if (auto *mul = dyn_cast<SCEVMulExpr>(s)) {
      // A constant times one expression: SCEV puts the constant first.
      auto *c = mul->getNumOperands() == 2
                    ? dyn_cast<SCEVConstant>(mul->getOperand(0))
                    : nullptr;
      if (!c)
        return std::nullopt;
      std::optional<Bound> o = bound(mul->getOperand(1));
      if (!o)
        return std::nullopt;
      return scaled(*o, c->getAPInt().getSExtValue());
    }
    if (auto *rec = dyn_cast<SCEVAddRecExpr>(s))
      return addRec(rec);
    if (auto *div = dyn_cast<SCEVUDivExpr>(s)) {
      auto *c = dyn_cast<SCEVConstant>(div->getRHS());
      std::optional<Bound> o = bound(div->getLHS());
      if (!c || !o || !c->getAPInt().isStrictlyPositive())
        return std::nullopt;
      // Unsigned division is monotone where the dividend is not negative.
      llvm::Value *by = constant(c->getAPInt().getSExtValue());
      return Bound{b_.CreateUDiv(o->min, by), b_.CreateUDiv(o->max, by),
                   all({o->ok, b_.CreateICmpSGE(o->min, constant(0))}),
                   o->magnitude};
    }
    if (auto *minmax = dyn_cast<SCEVMinMaxExpr>(s))
      return minMax(minmax);
    if (isa<SCEVSignExtendExpr>(s) || isa<SCEVZeroExtendExpr>(s)) {
      // A narrow value widened (a Python floor division's correction is
      // a sign-extended i1): the range of its width.
      unsigned bits = cast<SCEVIntegralCastExpr>(s)
                          ->getOperand()
                          ->getType()
                          ->getIntegerBitWidth();
      if (bits > 32)
        return std::nullopt;
      bool sign = isa<SCEVSignExtendExpr>(s);
      int64_t low = sign ? -(int64_t(1) << (bits - 1)) : 0;
      int64_t high =
          sign ? (int64_t(1) << (bits - 1)) - 1 : (int64_t(1) << bits) - 1;
      return Bound{constant(low), constant(high), b_.getTrue(),
                   std::ldexp(1.0, bits)};
    }
    return std::nullopt;
  }

  Bound scaled(const Bound &o, int64_t by) {
    llvm::Value *low = b_.CreateMul(o.min, constant(by));
    llvm::Value *high = b_.CreateMul(o.max, constant(by));
    if (by < 0)
      std::swap(low, high);
    return {low, high, o.ok, o.magnitude * std::fabs(static_cast<double>(by))};
  }

  /// {start,+,step} over iterations 0 to the loop's most backedges taken.
  std::optional<Bound> addRec(const llvm::SCEVAddRecExpr *rec) {
    using namespace llvm;
    auto *step = rec->isAffine()
                     ? dyn_cast<SCEVConstant>(rec->getStepRecurrence(se_))
                     : nullptr;
    if (!step)
      return std::nullopt;
    const SCEV *taken = se_.getSymbolicMaxBackedgeTakenCount(rec->getLoop());
    if (isa<SCEVCouldNotCompute>(taken))
      return std::nullopt;
    std::optional<Bound> start = bound(rec->getStart());
    std::optional<Bound> count = bound(taken);
    if (!start || !count)
      return std::nullopt;
    // A count below 0 is one the loop is never entered with, or a huge
    // unsigned one: either way the test fails and the checks stay.
    Bound travel =
        scaled({constant(0), count->max, b_.getTrue(), count->magnitude},
               step->getAPInt().getSExtValue());
    return Bound{
        b_.CreateAdd(start->min, travel.min),
        b_.CreateAdd(start->max, travel.max),
        all({start->ok, count->ok, b_.CreateICmpSGE(count->min, constant(0))}),
        start->magnitude + travel.magnitude};
  }

  /// A loop counter one iteration behind another, as the lowering of
  /// `for i in range(...)` leaves it: a header phi of `start` and of a
  /// recurrence {start + step,+,step} is {start,+,step}, which SCEV does
  /// not see by itself.
  const llvm::SCEV *laggingCounter(llvm::Value *v) {
    using namespace llvm;
    auto *phi = dyn_cast<PHINode>(v);
    Loop *loop = phi ? loops_.getLoopFor(phi->getParent()) : nullptr;
    if (!loop || loop->getHeader() != phi->getParent() ||
        phi->getNumIncomingValues() != 2)
      return nullptr;
    unsigned inside = loop->contains(phi->getIncomingBlock(0)) ? 0 : 1;
    if (loop->contains(phi->getIncomingBlock(1 - inside)))
      return nullptr;
    auto *next =
        dyn_cast<SCEVAddRecExpr>(se_.getSCEV(phi->getIncomingValue(inside)));
    const SCEV *start = se_.getSCEV(phi->getIncomingValue(1 - inside));
    if (!next || next->getLoop() != loop || !next->isAffine())
      return nullptr;
    const SCEV *step = next->getStepRecurrence(se_);
    if (se_.getAddExpr(start, step) != next->getStart())
      return nullptr;
    return se_.getAddRecExpr(start, step, loop, SCEV::FlagAnyWrap);
  }

  /// The counters of `for i in range(start, stop, step)` with a step
  /// other than +-1 as the lowering makes them (LowerInstructions.cpp,
  /// IterNext; unit steps are a plain add, which SCEV follows), which SCEV
  /// cannot follow: `next` starts at start + step, goes on while `next <s
  /// stop` and steps by select(next + step would wrap, stop, next + step),
  /// so it never wraps and lies in [its start, max(its start, stop)]; `i` is a header
  /// phi of a first value and of `next`, so it lies between the first
  /// value, next's start and stop - 1.
  std::optional<Bound> rangeCounter(llvm::Value *v) {
    using namespace llvm;
    auto *phi = dyn_cast<PHINode>(v);
    Value *start, *next, *stop;
    if (!phi || !headerPhi(phi, start, next))
      return std::nullopt;
    if (auto *nextPhi = dyn_cast<PHINode>(next)) {
      Value *nextStart, *unused;
      if (nextPhi->getParent() != phi->getParent() ||
          !headerPhi(nextPhi, nextStart, unused) ||
          !(stop = counterStop(nextPhi)))
        return std::nullopt;
      std::optional<Bound> first = bound(se_.getSCEV(start));
      std::optional<Bound> second = bound(se_.getSCEV(nextStart));
      std::optional<Bound> last = bound(se_.getSCEV(stop));
      if (!first || !second || !last)
        return std::nullopt;
      return Bound{
          smin(first->min, second->min),
          smax(first->max, b_.CreateSub(last->max, constant(1))),
          all({first->ok, second->ok, last->ok}),
          std::max({first->magnitude, second->magnitude, last->magnitude + 1})};
    }
    if (!(stop = counterStop(phi)))
      return std::nullopt;
    std::optional<Bound> first = bound(se_.getSCEV(start));
    std::optional<Bound> last = bound(se_.getSCEV(stop));
    if (!first || !last)
      return std::nullopt;
    return Bound{first->min, smax(first->max, last->max),
                 all({first->ok, last->ok}),
                 std::max(first->magnitude, last->magnitude)};
  }

  /// A phi of a loop's header with one value from outside the loop and
  /// one from its latch.
  bool headerPhi(llvm::PHINode *phi, llvm::Value *&start, llvm::Value *&next) {
    llvm::Loop *loop = loops_.getLoopFor(phi->getParent());
    if (!loop || loop->getHeader() != phi->getParent() ||
        phi->getNumIncomingValues() != 2 || !loop->getLoopLatch())
      return false;
    int latch = phi->getBasicBlockIndex(loop->getLoopLatch());
    if (latch < 0 || loop->contains(phi->getIncomingBlock(1 - latch)))
      return false;
    start = phi->getIncomingValue(1 - latch);
    next = phi->getIncomingValue(latch);
    return true;
  }

  /// `stop` when `counter` is a range's `next` (see rangeCounter).
  llvm::Value *counterStop(llvm::PHINode *counter) {
    using namespace llvm;
    Loop *loop = loops_.getLoopFor(counter->getParent());
    Value *start, *step;
    headerPhi(counter, start, step);
    auto *branch = dyn_cast<BranchInst>(loop->getLoopLatch()->getTerminator());
    ICmpInst::Predicate goesOn;
    Value *stop;
    if (!branch || !branch->isConditional() ||
        !match(branch->getCondition(),
               m_ICmp(goesOn, m_Specific(counter), m_Value(stop))))
      return nullptr;
    if (branch->getSuccessor(1) == loop->getHeader())
      goesOn = ICmpInst::getInversePredicate(goesOn);
    else if (branch->getSuccessor(0) != loop->getHeader())
      return nullptr;
    ICmpInst::Predicate last;
    if (goesOn != ICmpInst::ICMP_SLT ||
        !match(step,
               m_Select(
                   m_ICmp(last, m_Specific(counter), m_SpecificInt(INT64_MAX)),
                   m_Value(), m_Add(m_Specific(counter), m_One()))) ||
        last != ICmpInst::ICMP_EQ)
      return nullptr;
    return stop;
  }

  llvm::Value *smin(llvm::Value *x, llvm::Value *y) {
    return b_.CreateSelect(b_.CreateICmpSLT(x, y), x, y);
  }
  llvm::Value *smax(llvm::Value *x, llvm::Value *y) {
    return b_.CreateSelect(b_.CreateICmpSGT(x, y), x, y);
  }

  /// Min and max are monotone in each operand; the unsigned ones agree
  /// with the signed ones where no operand is negative.
  std::optional<Bound> minMax(const llvm::SCEVMinMaxExpr *s) {
    using namespace llvm;
    bool isMax = isa<SCEVSMaxExpr>(s) || isa<SCEVUMaxExpr>(s);
    bool isUnsigned = isa<SCEVUMaxExpr>(s) || isa<SCEVUMinExpr>(s);
    std::optional<Bound> result;
    for (const SCEV *operand : s->operands()) {
      std::optional<Bound> o = bound(operand);
      if (!o)
        return std::nullopt;
      if (isUnsigned)
        o->ok = all({o->ok, b_.CreateICmpSGE(o->min, constant(0))});
      if (!result) {
        result = o;
        continue;
      }
      auto pick = [&](llvm::Value *x, llvm::Value *y) {
        return b_.CreateSelect(
            isMax ? b_.CreateICmpSGT(x, y) : b_.CreateICmpSLT(x, y), x, y);
      };
      result = Bound{pick(result->min, o->min), pick(result->max, o->max),
                     b_.CreateAnd(result->ok, o->ok),
                     std::max(result->magnitude, o->magnitude)};
    }
    return result;
  }

  /// A work-item id ranges over [0, size); anything else must be known
  /// at entry, the same for every work-item.
  std::optional<Bound> leafOrId(llvm::Value *v) {
    if (auto *call = llvm::dyn_cast<llvm::CallInst>(v))
      if (llvm::Function *callee = call->getCalledFunction())
        if (const char *size = sizeQueryFor(callee->getName())) {
          llvm::FunctionCallee query = callee->getParent()->getOrInsertFunction(
              size, callee->getFunctionType(), callee->getAttributes());
          auto *sizeCall = b_.CreateCall(query, {call->getArgOperand(0)});
          sizeCall->setCallingConv(callee->getCallingConv());
          llvm::Value *n = sizeCall;
          return Bound{constant(0), b_.CreateSub(n, constant(1)), limited(n),
                       static_cast<double>(leafLimit)};
        }
    llvm::Value *m = materialize(v, 0);
    if (!m)
      return std::nullopt;
    return Bound{m, m, limited(m), static_cast<double>(leafLimit)};
  }

  llvm::Value *limited(llvm::Value *x) {
    return b_.CreateICmpULT(b_.CreateAdd(x, constant(leafLimit)),
                            constant(2 * leafLimit));
  }

  /// `v` recomputed in the test's block from the arguments, constants and
  /// the launch's sizes, or nullptr when it depends on anything else (a
  /// work-item's position, memory, a loop) or cannot be computed early
  /// safely (a division by what may be zero).
  llvm::Value *materialize(llvm::Value *v, int depth) {
    if (llvm::isa<llvm::Argument>(v) || llvm::isa<llvm::Constant>(v))
      return v;
    auto *inst = llvm::dyn_cast<llvm::Instruction>(v);
    if (!inst || depth > 32)
      return nullptr;
    auto known = materialized_.find(inst);
    if (known != materialized_.end())
      return known->second;
    llvm::Value *result = nullptr;
    auto *call = llvm::dyn_cast<llvm::CallInst>(inst);
    bool sizeQuery = call && call->getCalledFunction() &&
                     isSizeQuery(call->getCalledFunction()->getName());
    if (sizeQuery || (!call && !llvm::isa<llvm::PHINode>(inst) &&
                      !inst->mayReadOrWriteMemory() &&
                      llvm::isSafeToSpeculativelyExecute(inst))) {
      std::vector<llvm::Value *> operands;
      for (llvm::Value *operand : inst->operands()) {
        llvm::Value *early = llvm::isa<llvm::Function>(operand)
                                 ? operand
                                 : materialize(operand, depth + 1);
        if (!early)
          break;
        operands.push_back(early);
      }
      if (operands.size() == inst->getNumOperands()) {
        llvm::Instruction *copy = inst->clone();
        for (unsigned k = 0; k < operands.size(); ++k)
          copy->setOperand(k, operands[k]);
        b_.Insert(copy);
        result = copy;
      }
    }
    materialized_[inst] = result;
    return result;
  }

  llvm::ScalarEvolution &se_;
  llvm::LoopInfo &loops_;
  llvm::IRBuilder<> b_;
  std::map<const llvm::SCEV *, std::optional<Bound>> bounds_;
  std::map<llvm::Instruction *, llvm::Value *> materialized_;
};

/// The calls of the in-bounds marker in `function`.
std::vector<llvm::CallInst *> markersIn(llvm::Function &function) {
  std::vector<llvm::CallInst *> markers;
  for (llvm::BasicBlock &block : function)
    for (llvm::Instruction &inst : block)
      if (auto *call = llvm::dyn_cast<llvm::CallInst>(&inst))
        if (llvm::Function *callee = call->getCalledFunction())
          if (callee->getName() == inBoundsMarker)
            markers.push_back(call);
  return markers;
}

/// Every marker left becomes the comparison it carries.
void removeMarkers(llvm::Module &module) {
  llvm::Function *marker = module.getFunction(inBoundsMarker);
  if (!marker)
    return;
  while (!marker->use_empty()) {
    auto *call = llvm::cast<llvm::CallInst>(marker->user_back());
    call->replaceAllUsesWith(call->getArgOperand(0));
    call->eraseFromParent();
  }
  marker->eraseFromParent();
}

} // namespace

bool addBoundsCheckFastPath(llvm::Module &module,
                            const std::string &entryPoint) {
  // Without a copy, the comparisons the markers hid may still fold (an
  // index under `if i < n:`), so any marker means optimising again.
  llvm::Function *marker = module.getFunction(inBoundsMarker);
  bool checked = marker && !marker->use_empty();
  llvm::Function *kernel = module.getFunction(entryPoint);
  std::vector<llvm::CallInst *> markers;
  if (kernel && !kernel->isDeclaration())
    markers = markersIn(*kernel);
  if (markers.empty()) {
    removeMarkers(module);
    return checked;
  }

  // The test is built in a block outside the function while SCEV looks at
  // the function as it is.
  llvm::LLVMContext &context = module.getContext();
  auto *test = llvm::BasicBlock::Create(context, "checks.test");
  std::vector<std::pair<llvm::CallInst *, llvm::Value *>> proved;
  {
    FunctionAnalyses analyses(*kernel);
    TestBuilder builder(analyses.evolution, analyses.loops, test);
    for (llvm::CallInst *marker : markers)
      if (llvm::Value *holds = builder.inBounds(marker->getArgOperand(1),
                                                marker->getArgOperand(2)))
        proved.push_back({marker, holds});
  }
  if (proved.empty()) {
    test->dropAllReferences();
    delete test;
    // Nor the size queries declared for it.
    for (const char *size : sizeQueries)
      if (llvm::Function *query = module.getFunction(size))
        if (query->isDeclaration() && query->use_empty())
          query->eraseFromParent();
    removeMarkers(module);
    return true;
  }

  // The test becomes the entry; the variables stay first in it, as SPIR-V
  // wants, shared by both copies. They are found while their block is the
  // entry: only there is an alloca static.
  llvm::BasicBlock *body = &kernel->getEntryBlock();
  std::vector<llvm::AllocaInst *> variables;
  for (llvm::Instruction &inst : *body)
    if (auto *alloca = llvm::dyn_cast<llvm::AllocaInst>(&inst))
      if (alloca->isStaticAlloca())
        variables.push_back(alloca);
  test->insertInto(kernel, body);
  for (auto it = variables.rbegin(); it != variables.rend(); ++it)
    (*it)->moveBefore(&*test->getFirstInsertionPt());

  std::vector<llvm::BasicBlock *> original;
  for (llvm::BasicBlock &block : *kernel)
    if (&block != test)
      original.push_back(&block);
  llvm::ValueToValueMapTy map;
  llvm::SmallVector<llvm::BasicBlock *, 16> copies;
  for (llvm::BasicBlock *block : original) {
    llvm::BasicBlock *copy = llvm::CloneBasicBlock(block, map, ".fast", kernel);
    map[block] = copy;
    copies.push_back(copy);
  }
  llvm::remapInstructionsInBlocks(copies, map);

  llvm::IRBuilder<> b(test);
  llvm::Value *all = b.getTrue();
  for (auto &[marker, holds] : proved) {
    all = b.CreateAnd(all, holds);
    auto *copy = llvm::cast<llvm::CallInst>(map[marker]);
    copy->replaceAllUsesWith(b.getTrue());
    copy->eraseFromParent();
  }
  b.CreateCondBr(all, llvm::cast<llvm::BasicBlock>(map[body]), body);
  removeMarkers(module);
  return true;
}

} // namespace spirjit
