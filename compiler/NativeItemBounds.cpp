// The items a region needs to run (NativeItemBounds.h states the contract).
#include "compiler/NativeItemBounds.h"

#include "compiler/NativeBarriers.h"

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>

#include <map>
#include <optional>

namespace spirjit {

namespace {

/// Blocks one region's walk may visit: past them, every item runs.
constexpr int walkBudget = 64;
/// Instructions a bound may take to compute.
constexpr int computeBudget = 64;

/// Is `value` the group's uniform area (through casts and offsets)?
bool inUniformArea(const llvm::Value *pointer) {
  const auto *call =
      llvm::dyn_cast<llvm::CallInst>(llvm::getUnderlyingObject(pointer));
  const llvm::Function *callee = call ? call->getCalledFunction() : nullptr;
  return callee && callee->getName() == nativeUniformName;
}

/// One region's walk, building its bound in `bound`'s only block.
class BoundWalk {
public:
  BoundWalk(llvm::Function &kernel, llvm::Function &bound,
            llvm::BasicBlock *leave, const std::string &localIdName,
            const std::set<std::string> &groupQueries)
      : kernel_(kernel), bound_(bound), leave_(leave),
        localIdName_(localIdName), groupQueries_(groupQueries),
        b_(llvm::BasicBlock::Create(kernel.getContext(), "entry", &bound)),
        all_(b_.getInt64(~0ull)) {}

  /// Values of the kernel's, as computed in the bound function on the path
  /// walked so far (a phi: the value it takes on the edge walked in); a
  /// null value: not computable there.
  using Values = std::map<const llvm::Value *, llvm::Value *>;

  llvm::Value *all() const { return all_; }
  llvm::IRBuilder<> &builder() { return b_; }

  /// What the items from `block` on need, entered from `from`: `items`,
  /// those whose local id in dimension 0 is below it; `below`: where
  /// every item that runs is below it, each guard walked holds in it.
  struct Need {
    llvm::Value *items;
    llvm::Value *below;
  };

  Need walk(llvm::BasicBlock *block, llvm::BasicBlock *from, Values values,
            std::set<llvm::BasicBlock *> path) {
    // Past a region's end no guard is reached; given up, any may be.
    Need everyItem = {all_, b_.getInt64(0)};
    if (block == leave_)
      return {leaveNeedsItem(from) ? all_ : b_.getInt64(0), all_};
    if (++visited_ > walkBudget || !path.insert(block).second)
      return everyItem; // too long, or a loop
    std::vector<std::pair<llvm::PHINode *, llvm::Value *>> phis;
    for (llvm::PHINode &phi : block->phis())
      phis.emplace_back(&phi,
                        compute(phi.getIncomingValueForBlock(from), values));
    for (auto &[phi, value] : phis)
      values[phi] = value;
    for (llvm::Instruction &inst : *block)
      if (!inst.isTerminator() && !llvm::isa<llvm::DbgInfoIntrinsic>(inst) &&
          !inst.isLifetimeStartOrEnd() && inst.mayHaveSideEffects())
        return everyItem;
    auto *branch = llvm::dyn_cast<llvm::BranchInst>(block->getTerminator());
    if (!branch)
      return everyItem;
    if (branch->isUnconditional())
      return walk(branch->getSuccessor(0), block, values, path);
    llvm::BasicBlock *yes = branch->getSuccessor(0);
    llvm::BasicBlock *no = branch->getSuccessor(1);
    llvm::Value *condition = branch->getCondition();
    // Every item goes the same way: the bound of that way.
    if (llvm::Value *uniform = compute(condition, values)) {
      if (auto *constant = llvm::dyn_cast<llvm::ConstantInt>(uniform))
        return walk(constant->isOne() ? yes : no, block, values, path);
      Need ifYes = walk(yes, block, values, path);
      Need ifNo = walk(no, block, values, path);
      return {select(uniform, ifYes.items, ifNo.items),
              select(uniform, ifYes.below, ifNo.below)};
    }
    // lid against a uniform value: the items below a bound take one side,
    // which needs no walk; the guard holds in the items below that bound
    // where the side is lid < x or lid <= x (not lid == x).
    if (auto guard = itemGuard(condition, values)) {
      llvm::BasicBlock *below = guard->belowTakesYes ? yes : no;
      belowSides_.push_back(below);
      Need rest = walk(below == yes ? no : yes, block, values, path);
      llvm::Value *holds = rest.below;
      if (guard->prefix) {
        guards_.push_back(llvm::cast<llvm::ICmpInst>(condition));
        holds = min(guard->items, rest.below);
      } else {
        notGuards_.insert(condition);
      }
      return {max(guard->items, rest.items), holds};
    }
    // Items go either way.
    notGuards_.insert(condition);
    Need ifYes = walk(yes, block, values, path);
    Need ifNo = walk(no, block, values, path);
    return {max(ifYes.items, ifNo.items), min(ifYes.below, ifNo.below)};
  }

  /// The guards (`lid < x`, `lid <= x` and their negations) that hold in
  /// every item below the walk's `below`: those it walked, less those an
  /// item reaches on a way it did not walk (a guard's side of the items
  /// below it, where x may differ) or where it did not take them for one.
  std::vector<llvm::ICmpInst *> guards() const {
    std::set<const llvm::BasicBlock *> unwalked;
    std::vector<const llvm::BasicBlock *> work(belowSides_.begin(),
                                               belowSides_.end());
    while (!work.empty()) {
      const llvm::BasicBlock *block = work.back();
      work.pop_back();
      if (block == leave_ || !unwalked.insert(block).second)
        continue;
      for (const llvm::BasicBlock *next : llvm::successors(block))
        work.push_back(next);
    }
    std::vector<llvm::ICmpInst *> holding;
    for (llvm::ICmpInst *guard : guards_)
      if (!notGuards_.count(guard) && !unwalked.count(guard->getParent()) &&
          llvm::none_of(guard->users(),
                        [&](const llvm::User *user) {
                          return unwalked.count(
                              llvm::cast<llvm::Instruction>(user)->getParent());
                        }) &&
          !llvm::is_contained(holding, guard))
        holding.push_back(guard);
    return holding;
  }

private:
  /// A branch on the local id: the items below `items` take the branch's
  /// first successor (`belowTakesYes`) or its second, and no other item.
  struct Guard {
    llvm::Value *items;
    bool belowTakesYes;
    bool prefix; // every item below `items` takes that side
  };

  std::optional<Guard> itemGuard(llvm::Value *condition, Values &values) {
    auto *compare = llvm::dyn_cast<llvm::ICmpInst>(condition);
    if (!compare)
      return std::nullopt;
    llvm::CmpInst::Predicate predicate = compare->getPredicate();
    llvm::Value *other = compare->getOperand(1);
    if (!isLocalId0(compare->getOperand(0))) {
      if (!isLocalId0(other))
        return std::nullopt;
      other = compare->getOperand(0);
      predicate = llvm::CmpInst::getSwappedPredicate(predicate);
    }
    llvm::Value *x = compute(other, values);
    if (!x)
      return std::nullopt;
    // The predicate that holds in the items below the bound: lid < x,
    // lid <= x or lid == x; its inverse, on the branch's other side.
    bool belowTakesYes = true;
    switch (predicate) {
    case llvm::CmpInst::ICMP_SGE:
    case llvm::CmpInst::ICMP_UGE:
    case llvm::CmpInst::ICMP_SGT:
    case llvm::CmpInst::ICMP_UGT:
    case llvm::CmpInst::ICMP_NE:
      predicate = llvm::CmpInst::getInversePredicate(predicate);
      belowTakesYes = false;
      break;
    default:
      break;
    }
    // The local id is below 2^62: a negative bound (signed) holds no item,
    // and x + 1 does not wrap where x is at least -1.
    llvm::Value *items = nullptr;
    switch (predicate) {
    case llvm::CmpInst::ICMP_SLT:
      items =
          b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, x, b_.getInt64(0));
      break;
    case llvm::CmpInst::ICMP_ULT:
      items = x;
      break;
    case llvm::CmpInst::ICMP_SLE:
    case llvm::CmpInst::ICMP_EQ:
      items = b_.CreateAdd(
          b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, x, b_.getInt64(-1)),
          b_.getInt64(1));
      break;
    case llvm::CmpInst::ICMP_ULE:
      items = b_.CreateBinaryIntrinsic(llvm::Intrinsic::uadd_sat, x,
                                       b_.getInt64(1));
      break;
    default:
      return std::nullopt;
    }
    return Guard{items, belowTakesYes, predicate != llvm::CmpInst::ICMP_EQ};
  }

  bool isLocalId0(const llvm::Value *value) const {
    const auto *call = llvm::dyn_cast<llvm::CallInst>(value);
    const llvm::Function *callee = call ? call->getCalledFunction() : nullptr;
    if (!callee || callee->getName() != localIdName_)
      return false;
    const auto *dim = llvm::dyn_cast<llvm::ConstantInt>(call->getArgOperand(0));
    return dim && dim->isZero() && call->getType()->isIntegerTy(64);
  }

  llvm::Value *select(llvm::Value *condition, llvm::Value *a, llvm::Value *b) {
    return a == b ? a : b_.CreateSelect(condition, a, b);
  }

  llvm::Value *min(llvm::Value *a, llvm::Value *b) {
    if (a == all_)
      return b;
    if (b == all_)
      return a;
    return b_.CreateBinaryIntrinsic(llvm::Intrinsic::umin, a, b);
  }

  llvm::Value *max(llvm::Value *a, llvm::Value *b) {
    if (a == all_ || b == all_)
      return all_;
    if (auto *zero = llvm::dyn_cast<llvm::ConstantInt>(b);
        zero && zero->isZero())
      return a;
    return b_.CreateBinaryIntrinsic(llvm::Intrinsic::umax, a, b);
  }

  /// Does an item that reaches `leave` from `from` store anything but what
  /// every item stores alike: the uniform values, and its kept values
  /// unchanged (what it loaded at the region's start) or not at all?
  bool leaveNeedsItem(llvm::BasicBlock *from) const {
    for (llvm::Instruction &inst : *leave_) {
      auto *store = llvm::dyn_cast<llvm::StoreInst>(&inst);
      if (!store) {
        if (!llvm::isa<llvm::PHINode>(inst) && !inst.isTerminator() &&
            inst.mayHaveSideEffects())
          return true;
        continue;
      }
      if (inUniformArea(store->getPointerOperand()))
        continue;
      llvm::Value *value = store->getValueOperand();
      if (auto *phi = llvm::dyn_cast<llvm::PHINode>(value);
          phi && phi->getParent() == leave_)
        value = phi->getIncomingValueForBlock(from);
      if (llvm::isa<llvm::UndefValue>(value))
        continue; // poison: not live at that barrier
      auto *load = llvm::dyn_cast<llvm::LoadInst>(value);
      if (!load || load->getPointerOperand() != store->getPointerOperand())
        return true;
    }
    return false;
  }

  /// `value` computed in the bound function from what every item has
  /// alike at the region's start, or null.
  llvm::Value *compute(llvm::Value *value, Values &values) {
    if (llvm::isa<llvm::Constant>(value))
      return value;
    if (auto *argument = llvm::dyn_cast<llvm::Argument>(value))
      return argument->getParent() == &kernel_
                 ? bound_.getArg(argument->getArgNo())
                 : nullptr;
    auto *inst = llvm::dyn_cast<llvm::Instruction>(value);
    if (!inst)
      return nullptr;
    if (auto found = values.find(inst); found != values.end())
      return found->second;
    values[inst] = nullptr; // until computed: a cycle is not computable
    if (--budget_ < 0 || llvm::isa<llvm::PHINode>(inst) || !computable(*inst))
      return nullptr;
    llvm::Instruction *copy = inst->clone();
    for (llvm::Use &operand : copy->operands()) {
      if (llvm::isa<llvm::Function>(operand.get()))
        continue; // a call's callee
      llvm::Value *computed = compute(operand.get(), values);
      if (!computed) {
        copy->deleteValue();
        return nullptr;
      }
      operand.set(computed);
    }
    b_.Insert(copy);
    values[inst] = copy;
    return copy;
  }

  /// May `inst` move to the region's start, computed once for the group?
  bool computable(const llvm::Instruction &inst) const {
    if (const auto *call = llvm::dyn_cast<llvm::CallInst>(&inst)) {
      const llvm::Function *callee = call->getCalledFunction();
      if (!callee)
        return false;
      if (callee->getName() == nativeUniformName)
        return true; // the area's address, the same in every item
      return (groupQueries_.count(callee->getName().str()) ||
              callee->isIntrinsic()) &&
             llvm::isSafeToSpeculativelyExecute(call);
    }
    if (const auto *load = llvm::dyn_cast<llvm::LoadInst>(&inst))
      // A uniform value as the region started with it: the region writes
      // the area's other half.
      return load->isSimple() && inUniformArea(load->getPointerOperand());
    return !inst.mayReadOrWriteMemory() &&
           llvm::isSafeToSpeculativelyExecute(&inst);
  }

  llvm::Function &kernel_;
  llvm::Function &bound_;
  llvm::BasicBlock *leave_;
  const std::string &localIdName_;
  const std::set<std::string> &groupQueries_;
  llvm::IRBuilder<> b_;
  llvm::Value *all_;
  std::vector<llvm::ICmpInst *> guards_;
  std::set<const llvm::Value *> notGuards_;
  std::vector<llvm::BasicBlock *> belowSides_;
  int visited_ = 0;
  int budget_ = computeBudget;
};

} // namespace

std::vector<RegionItems>
regionItemBounds(llvm::Function &kernel,
                 const std::vector<llvm::BasicBlock *> &entries,
                 llvm::BasicBlock *leave, const std::string &localIdName,
                 const std::set<std::string> &groupQueries) {
  llvm::Module &module = *kernel.getParent();
  std::vector<llvm::Type *> parameters;
  for (llvm::Argument &argument : kernel.args())
    parameters.push_back(argument.getType());
  llvm::Type *i64 = llvm::Type::getInt64Ty(module.getContext());
  auto *type = llvm::FunctionType::get(llvm::StructType::get(i64, i64),
                                       parameters, false);
  std::vector<RegionItems> regions;
  for (size_t k = 0; k < entries.size(); ++k) {
    llvm::Function *bound = llvm::Function::Create(
        type, llvm::GlobalValue::InternalLinkage,
        kernel.getName() + ".items" + std::to_string(k), module);
    BoundWalk walk(kernel, *bound, leave, localIdName, groupQueries);
    auto need = walk.walk(entries[k], &kernel.getEntryBlock(), {}, {});
    regions.emplace_back();
    if (need.items == walk.all()) {
      bound->eraseFromParent();
      continue;
    }
    llvm::IRBuilder<> &b = walk.builder();
    llvm::Value *answer = llvm::UndefValue::get(type->getReturnType());
    answer = b.CreateInsertValue(answer, need.items, 0);
    answer = b.CreateInsertValue(answer, need.below, 1);
    b.CreateRet(answer);
    regions.back().bound = bound;
    regions.back().guards = walk.guards();
  }
  return regions;
}

} // namespace spirjit
