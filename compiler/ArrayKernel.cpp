// Array expressions as kernels: see ArrayKernel.h for the contract.
#include "compiler/ArrayKernel.h"

#include "compiler/ArrayValues.h"

#include "frontend/Diagnostics.h"
#include "frontend/PyIR.h"

#include <functional>
#include <iterator>
#include <limits>
#include <tuple>
#include <map>

namespace spirjit {

const char *const kArrayExpressionFile = "<spirjit array expression>";

namespace {

using ir::Block;
using ir::Instruction;
using ir::Opcode;

/// Writes the kernel's pyir.
class KernelWriter {
public:
  KernelWriter(const ArrayExpression &e, const std::string &name)
      : e_(e), description_(std::make_shared<FunctionDescription>()) {
    description_->name = description_->qualifiedName = name;
    description_->filename = kArrayExpressionFile;
    description_->firstLine = 1;
    description_->argCount = e.parameterCount + (e.argReduction() ? 3 : 2);
    for (const auto &function : e.functions) {
      description_->deviceFunctions[function->name] = function->description;
      description_->deviceFunctions.insert(function->callees.begin(),
                                           function->callees.end());
    }
    fn_ = std::make_unique<ir::Function>();
    fn_->name = name;
    fn_->filename = description_->filename;
    fn_->firstLine = 1;
  }

  std::shared_ptr<FunctionDescription> write() {
    Block *entry = fn_->addBlock();
    cur_ = entry;
    fn_->parameterNames.push_back("item");
    for (int p = 0; p < e_.parameterCount; ++p)
      fn_->parameterNames.push_back("p" + std::to_string(p));
    fn_->parameterNames.push_back("out");
    if (e_.argReduction())
      fn_->parameterNames.push_back("out_index");
    for (size_t a = 0; a < fn_->parameterNames.size(); ++a) {
      Instruction *arg = make(Opcode::Arg, {});
      arg->index = static_cast<int64_t>(a);
      arg->name = fn_->parameterNames[a];
      args_.push_back(arg);
    }
    if (e_.form == ArrayExpression::Form::Map)
      writeMap();
    else if (e_.argReduction())
      writeArgReduce();
    else
      writeReduce();
    make(Opcode::Return, {none()});
    std::string problems = ir::verify(*fn_);
    SPIRJIT_INTERNAL_CHECK(problems.empty(),
                           "array kernel pyir: " + problems + "\n" +
                               ir::print(*fn_));
    description_->prebuiltPyIR = std::move(fn_);
    description_->prebuiltOrigin =
        "; " + description_->name +
        " computes an array expression (compiler/ArrayKernel): it has no "
        "bytecode of its own\n; graph\n" +
        e_.text();
    return description_;
  }

private:
  Instruction *make(Opcode op, std::vector<Instruction *> operands) {
    return fn_->create(cur_, op, std::move(operands), 1);
  }
  Instruction *constant(ConstValue c) {
    Instruction *inst = make(Opcode::Const, {});
    inst->constant = std::move(c);
    return inst;
  }
  Instruction *none() { return constant(ConstValue::none()); }
  Instruction *integer(int64_t v) { return constant(ConstValue::ofInt(v)); }
  Instruction *text(const std::string &t) {
    return constant(ConstValue::ofText(ConstValue::Kind::Str, t));
  }
  /// A library function by qualified name ("numpy.sqrt"), as a global the
  /// description freezes.
  Instruction *object(const std::string &qualified) {
    Instruction *inst = make(Opcode::Global, {});
    inst->name = addGeneratedGlobal(*description_, qualified,
                                    GlobalValue::Kind::Object, qualified);
    return inst;
  }
  Instruction *builtin(const std::string &name) {
    Instruction *inst = make(Opcode::Global, {});
    inst->name = addGeneratedGlobal(*description_, name,
                                    GlobalValue::Kind::Builtin, name);
    return inst;
  }
  Instruction *call(Instruction *callee, std::vector<Instruction *> args) {
    args.insert(args.begin(), callee);
    return make(Opcode::Call, std::move(args));
  }
  Instruction *method(Instruction *object, const std::string &name,
                      std::vector<Instruction *> args) {
    Instruction *attr = make(Opcode::GetAttr, {object});
    attr->name = name;
    return call(attr, std::move(args));
  }
  Instruction *binary(ir::BinaryOperator op, Instruction *a, Instruction *b) {
    Instruction *inst = make(Opcode::BinaryOp, {a, b});
    inst->index = static_cast<int64_t>(op);
    return inst;
  }
  Instruction *compare(ir::CompareOperator op, Instruction *a,
                       Instruction *b) {
    Instruction *inst = make(Opcode::Compare, {a, b});
    inst->index = static_cast<int64_t>(op);
    return inst;
  }
  Instruction *extent(Instruction *array, int d) {
    Instruction *shape = make(Opcode::GetAttr, {array});
    shape->name = "shape";
    Instruction *e = make(Opcode::TupleGet, {shape});
    e->index = d;
    return e;
  }
  Instruction *parameter(int p) { return args_[static_cast<size_t>(p) + 1]; }
  Instruction *item() { return args_[0]; }
  Instruction *out() { return args_[size_t(e_.parameterCount) + 1]; }
  Instruction *outIndex() { return args_.back(); }
  Instruction *np(const std::string &name, std::vector<Instruction *> args) {
    return call(object("numpy." + name), std::move(args));
  }

  /// Element code (casts, ufuncs, selects) comes from the writer the jit's
  /// array statements use too (ArrayValues.h).
  ArrayValueWriter values() {
    return ArrayValueWriter(*fn_, cur_, 1, [this](const std::string &name) {
      return object(name);
    });
  }
  Instruction *cast(Instruction *v, const std::string &dtype) {
    return values().cast(v, dtype);
  }
  Instruction *select(Instruction *condition, Instruction *yes,
                      Instruction *no) {
    return values().select(condition, yes, no);
  }

  /// The expression's value at `index` (each value written once).
  Instruction *valueAt(Instruction *index,
                       const std::vector<Instruction *> &ids) {
    return values().value(
        e_, ids,
        [&](const ArrayExpression::Value &value,
            const std::vector<Instruction *> &at) {
          return make(Opcode::GetItem, {parameter(value.parameter),
                                        !at.empty() ? at[0]
                                        : e_.flat   ? flatIndex(value.flat, ids)
                                                    : index});
        },
        [&](const ArrayExpression::Value &value,
            const std::vector<Instruction *> &) {
          return parameter(value.parameter);
        },
        [&](const ArrayExpression::Value &value,
            const std::vector<Instruction *> &) {
          return function(value.parameter);
        });
  }

  /// A function the expression calls, as a global naming the device
  /// function (the constructor put it in the description's table).
  Instruction *function(int f) {
    GlobalValue g;
    g.kind = GlobalValue::Kind::DeviceFunction;
    g.name = e_.functions[static_cast<size_t>(f)]->name;
    std::string key = generatedGlobalName("function" + std::to_string(f));
    description_->globals[key] = g;
    Instruction *inst = make(Opcode::Global, {});
    inst->name = key;
    return inst;
  }

  /// A flat Map's index: offset + sum(id[d] * stride[d]), uint64 where a
  /// parameter takes part (no wrap-around select: never negative), the
  /// same instructions for equal strides (LLVM shares them).
  Instruction *flatIndex(const ArrayExpression::Value::Flat &flat,
                         const std::vector<Instruction *> &ids) {
    using B = ir::BinaryOperator;
    Instruction *sum = nullptr;
    for (size_t d = 0; d < flat.strides.size(); ++d) {
      int stride = flat.strides[d];
      if (stride == ArrayExpression::kStride0)
        continue;
      Instruction *term = stride == ArrayExpression::kStride1
                              ? ids[d]
                              : binary(B::Mul, ids[d], parameter(stride));
      sum = sum ? binary(B::Add, sum, term) : term;
    }
    if (flat.offset >= 0)
      sum = sum ? binary(B::Add, sum, parameter(flat.offset))
                : parameter(flat.offset);
    return sum ? sum : integer(0);
  }

  void writeMap() {
    std::vector<Instruction *> ids;
    if (e_.rank <= 3) {
      for (int d = 0; d < e_.rank; ++d)
        ids.push_back(method(item(), "get_id", {integer(d)}));
    } else {
      // One launch dimension, unravelled over the output's extents.
      ids.resize(static_cast<size_t>(e_.rank));
      Instruction *rest = method(item(), "get_id", {integer(0)});
      for (int d = e_.rank; d-- > 0;) {
        Instruction *n = extent(out(), d);
        ids[static_cast<size_t>(d)] =
            binary(ir::BinaryOperator::Mod, rest, n);
        rest = binary(ir::BinaryOperator::FloorDiv, rest, n);
      }
    }
    Instruction *index =
        ids.size() == 1 ? ids[0] : make(Opcode::BuildTuple, ids);
    Instruction *value = valueAt(index, ids);
    make(Opcode::SetItem,
         {out(), e_.flat ? flatIndex(e_.outFlat, ids) : index, value});
  }

  Block *block(std::vector<Block *> predecessors) {
    Block *b = fn_->addBlock();
    b->predecessors = std::move(predecessors);
    return b;
  }
  void branch(Block *to) {
    Instruction *br = make(Opcode::Branch, {});
    br->targets = {to};
  }
  void branchIf(Instruction *condition, Block *yes, Block *no) {
    Instruction *br = make(Opcode::CondBranch, {condition});
    br->targets = {yes, no};
  }

  /// A Reduce kernel's work-item: its row m, its local id along the row,
  /// its group, its first k, the step between its k's, and the count its
  /// k's stay below: the row length (the last parameter), or, chunked, the
  /// group's chunk, whose start (chunkStart_) is added to each k it reads.
  std::tuple<Instruction *, Instruction *, Instruction *, Instruction *,
             Instruction *, Instruction *>
  rowItem() {
    using B = ir::BinaryOperator;
    Instruction *m = method(item(), "get_global_id", {integer(0)});
    Instruction *lid = method(item(), "get_local_id", {integer(1)});
    Instruction *group = method(item(), "get_group", {});
    Instruction *n = parameter(e_.parameterCount - 1);
    if (!e_.chunked)
      return {m, lid, group, method(item(), "get_global_id", {integer(1)}),
              method(item(), "get_global_range", {integer(1)}), n};
    // The chunk (whole rounds of the group's items) is the parameter
    // before n, uint64: the k's it starts are never negative, so loads
    // need no wrap-around select (which made Intel's vectoriser gather).
    Instruction *chunk = parameter(e_.parameterCount - 2);
    chunkStart_ = binary(
        B::Mul, method(group, "get_group_id", {integer(1)}), chunk);
    Instruction *left = binary(B::Sub, n, cast(chunkStart_, "int64"));
    Instruction *count = call(builtin("min"), {left, cast(chunk, "int64")});
    if (e_.singleItemGroups) // the item's k's: 0, 1, ... (see chainsFor)
      return {m, lid, group, integer(0), integer(1), count};
    return {m, lid, group, lid,
            method(item(), "get_local_range", {integer(1)}), count};
  }
  /// The row's k of a k counted from the work-item's chunk's start.
  Instruction *inRow(Instruction *k) {
    return chunkStart_ ? binary(ir::BinaryOperator::Add, chunkStart_, k) : k;
  }

  /// Folds a work-item's values at k = k0, k0 + step, ... (k < n) into
  /// `initial`, from here; returns the states after the last. The loops
  /// count a base common to every work-item (k = base + k0, k0 < step), so
  /// a CPU runtime vectorising across work-items sees consecutive k's and
  /// loads a vector where a per-item counter made it gather. The first
  /// loop folds `chains` independent states a round (k, k + step, ...),
  /// joined by `combine` after it, so that one fold's latency does not
  /// hold up the next; the second folds whole rounds of one; the last,
  /// partial round is one guarded fold. An item's k's still come in
  /// increasing order to each state, and to the second loop's after the
  /// join. (Intel's CPU runtime, 2^22 float32: max 1.9 -> 0.8 ms with the
  /// common base.)
  using States = std::vector<Instruction *>;
  using Fold = std::function<States(Instruction *, const States &)>;
  using Combine = std::function<States(const States &, const States &)>;
  States foldRow(Instruction *k0, Instruction *step, Instruction *n,
                 const States &initial, int chains, const Fold &fold,
                 const Combine &combine, Instruction *start = nullptr) {
    using B = ir::BinaryOperator;
    using C = ir::CompareOperator;
    // The base starts at `start`, a multiple of step (a block's), or 0.
    Instruction *base = start ? start : integer(0);
    States state = initial;
    // The k's the folds read are base + first: a chunked Reduce's chunk
    // start added once here, not to every k in the loop.
    Instruction *first = inRow(k0);
    if (chains > 1) {
      auto [end, parts] =
          foldRounds(base, std::vector<States>(size_t(chains), initial),
                     first, step, n, fold, roundsFor());
      base = end;
      state = joinTree(std::move(parts), combine);
    }
    auto [phiBase, phis] = foldRounds(base, {state}, first, step, n, fold);
    Block *tail = cur_;
    Block *last = block({tail});
    Block *exit = block({tail});
    branchIf(compare(C::Lt, binary(B::Add, phiBase, k0), n), last, exit);
    cur_ = last;
    States after = fold(kAt(phiBase, first), phis[0]);
    exit->predecessors.push_back(cur_);
    branch(exit);
    cur_ = exit;
    States result;
    for (size_t i = 0; i < after.size(); ++i)
      result.push_back(make(Opcode::Phi, {phis[0][i], after[i]}));
    return result;
  }

  /// A loop over a row's whole blocks of `width` from 0 while one fits
  /// below `n`: `body(base, end, state)` gives the state after the block
  /// [base, end). Returns the first base past them and the state there,
  /// the cursor at the loop's exit.
  template <typename Body>
  std::pair<Instruction *, States>
  overWholeBlocks(Instruction *width, Instruction *n, const States &initial,
                  const Body &body) {
    auto [header, phis] = loopHeader(integer(0), {initial});
    Instruction *base = header.first;
    Block *inside = block({cur_});
    Block *exit = block({cur_});
    Instruction *end = binary(ir::BinaryOperator::Add, base, width);
    branchIf(compare(ir::CompareOperator::Le, end, n), inside, exit);
    cur_ = inside;
    closeLoop(header.second, base, end, phis, {body(base, end, phis[0])});
    cur_ = exit;
    return {base, phis[0]};
  }

  /// The chains' states joined as a tree: (0 1) (2 3), then the two.
  template <typename Combine>
  States joinTree(std::vector<States> parts, const Combine &combine) {
    while (parts.size() > 1) {
      std::vector<States> joined;
      for (size_t i = 0; i + 1 < parts.size(); i += 2)
        joined.push_back(combine(parts[i], parts[i + 1]));
      if (parts.size() % 2)
        joined.push_back(parts.back());
      parts = std::move(joined);
    }
    return parts[0];
  }

  /// The fold of a whole block [blockBase, blockEnd) of an item's rounds
  /// (a count of them the chains divide: no test for the row's end), its
  /// chains each from `start`, joined.
  template <typename Fold, typename Combine>
  States foldWholeBlock(Instruction *blockBase, Instruction *blockEnd,
                        const States &start, Instruction *k0,
                        Instruction *step, const Fold &fold,
                        const Combine &join) {
    auto parts = foldRounds(blockBase,
                            std::vector<States>(size_t(chainsFor()), start),
                            inRow(k0), step, blockEnd, fold)
                     .second;
    return joinTree(std::move(parts), join);
  }

  Instruction *kAt(Instruction *base, Instruction *k0) {
    return binary(ir::BinaryOperator::Add, base, k0);
  }

  /// A loop from here while base + rounds*chains*step <= n (base from
  /// `base`), folding each chain's states `rounds` times an iteration, at
  /// k = base + first, k + step, ... (chain c's r-th at round
  /// r*chains + c); leaves the cursor at its exit and returns the base and
  /// the states there.
  std::pair<Instruction *, std::vector<States>>
  foldRounds(Instruction *base, const std::vector<States> &initial,
             Instruction *first, Instruction *step, Instruction *n,
             const Fold &fold, int rounds = 1) {
    using B = ir::BinaryOperator;
    size_t chains = initial.size();
    int64_t perIteration = int64_t(chains) * rounds;
    Instruction *wide = perIteration == 1
                            ? step
                            : binary(B::Mul, step, integer(perIteration));
    // One item a group steps by 1: the test is base < n - wide + 1, a
    // unit-stride `<` whose trip count LLVM computes (its adds carry no
    // no-wrap flags, and base + wide <= n could wrap for all it knows),
    // so that the loop vectoriser takes the loop.
    Instruction *limit =
        e_.singleItemGroups
            ? binary(B::Add, binary(B::Sub, n, wide), integer(1))
            : nullptr;
    auto [header, phis] = loopHeader(base, initial);
    Instruction *phiBase = header.first;
    Instruction *nextBase = binary(B::Add, phiBase, wide);
    Block *body = block({cur_});
    Block *after = block({cur_});
    branchIf(limit ? compare(ir::CompareOperator::Lt, phiBase, limit)
                   : compare(ir::CompareOperator::Le, nextBase, n),
             body, after);
    cur_ = body;
    std::vector<States> next = phis;
    Instruction *k = kAt(phiBase, first);
    for (int64_t i = 0; i < perIteration; ++i) {
      States &chain = next[size_t(i) % chains];
      chain = fold(k, chain);
      if (i + 1 < perIteration)
        k = binary(B::Add, k, step);
    }
    closeLoop(header.second, phiBase, nextBase, phis, next);
    cur_ = after;
    return {phiBase, phis};
  }

  /// A loop's header entered from here: a phi of the base and one per
  /// state of each chain, each with its value on entry. Returns (base phi,
  /// header) and the chains' phis; closeLoop() adds the back edge.
  std::pair<std::pair<Instruction *, Block *>, std::vector<States>>
  loopHeader(Instruction *base, const std::vector<States> &chains) {
    Block *header = block({cur_});
    branch(header);
    cur_ = header;
    Instruction *phiBase = make(Opcode::Phi, {base});
    std::vector<States> phis;
    for (const States &chain : chains) {
      phis.emplace_back();
      for (Instruction *v : chain)
        phis.back().push_back(make(Opcode::Phi, {v}));
    }
    return {{phiBase, header}, phis};
  }
  /// The back edge from here to `header`, giving its phis their values.
  void closeLoop(Block *header, Instruction *phiBase, Instruction *nextBase,
                 const std::vector<States> &phis,
                 const std::vector<States> &next) {
    header->predecessors.push_back(cur_); // the body may have grown blocks
    branch(header);
    phiBase->operands.push_back(nextBase);
    for (size_t c = 0; c < phis.size(); ++c)
      for (size_t i = 0; i < phis[c].size(); ++i)
        phis[c][i]->operands.push_back(next[c][i]);
  }

  /// Whether the fused expression is big enough that copies of it (more
  /// chains, more rounds) would cost more compile time than they save.
  bool bigExpression() const { return e_.values.size() > 16; }
  /// How many independent chains a reduction's first loop folds: four,
  /// unless the expression is big (bigExpression).
  /// One item a group walking its chunk element by element
  /// (singleItemGroups): a sum or product folds one chain, a loop LLVM's
  /// vectoriser turns into vector folds where it may reassociate them
  /// (reassociatesFolds), as it does not turn chains of scalars.
  /// On GPUs an arg reduction folds two: its states are (value, int64
  /// index) pairs, and four of them with sixteen loads took 40 registers,
  /// six groups of 256 a multiprocessor, so its eight a multiprocessor ran
  /// as 1.33 waves; two with eight loads take 32 (H200, argmax of float32
  /// against CuPy: 2^26 1.27x -> 0.95x, 2^28 1.45x -> 1.06x).
  int chainsFor() const {
    if (bigExpression() || reassociatesFolds(e_))
      return 1;
    return !e_.chunked && e_.argReduction() ? 2 : 4;
  }
  /// How many rounds of its chains an iteration of that first loop folds:
  /// on GPUs (interleaved rows, not chunked) four, so that each item has
  /// sixteen loads in flight (eight for an arg reduction's two chains),
  /// which the loop's independent loads let ptxas issue together. Four
  /// loads had left a reduction waiting on memory (H200, argmax of 2^26
  /// float32: 207 us, 27 % of DRAM's rate, where CUB's 16 loads an item
  /// took 78). CPU runtimes vectorise across items and keep one round.
  int roundsFor() const {
    return e_.chunked || bigExpression() ? 1 : 4;
  }

  void writeReduce() {
    using B = ir::BinaryOperator;
    using R = ArrayExpression::Reduction;
    const std::string &acc = e_.accumulator;
    bool nanFirst = e_.floatingAccumulator &&
                    (e_.reduction == R::Min || e_.reduction == R::Max);
    auto [m, lid, group, k0, step, n] = rowItem();
    // min and max start from the row's first value (every row has one):
    // no identity is needed, and repeating it changes nothing.
    // One chain LLVM vectorises (reassociatesFolds): a floating min or max
    // folds values whose NaNs were replaced by the worst value, counted
    // apart, and starts from that worst value; its fold may then ignore
    // NaNs (LoweringOptions::reassociateFolds), as the vectoriser asks.
    bool cleanNans = nanFirst && reassociatesFolds(e_);
    Instruction *start;
    if (e_.reduction == R::Sum || e_.reduction == R::Prod)
      start = cast(integer(e_.reduction == R::Sum ? 0 : 1), acc);
    else if (cleanNans)
      start = worstValue(e_.reduction == R::Max);
    else
      start = cast(valueAt(make(Opcode::BuildTuple, {m, integer(0)}),
                           {m, integer(0)}),
                   acc);
    // One fold: the state (the value so far) with another's. A floating
    // min or max keeps a second state, whether a NaN was met: the value
    // itself then folds with one compare and select, which LLVM makes one
    // maxps/minps (NaN in, the kept operand out), and the NaN test is off
    // its chain (NumPy's rule, a NaN wins, had made the value's chain a
    // compare, a NaN test, an or and a select an element).
    auto join = [&](const States &a, const States &b) -> States {
      switch (e_.reduction) {
      case R::Sum:
        return {binary(B::Add, a[0], b[0])};
      case R::Prod:
        return {binary(B::Mul, a[0], b[0])};
      default: {
        bool isMin = e_.reduction == R::Min;
        // Complex numbers in NumPy's order, the first NaN kept (a NaN
        // part in the state wins np.maximum).
        if (acc.rfind("complex", 0) == 0)
          return {np(isMin ? "minimum" : "maximum", {a[0], b[0]})};
        if (!e_.floatingAccumulator)
          return {call(builtin(isMin ? "min" : "max"), {a[0], b[0]})};
        // b replaces a only when better: a NaN on either side keeps a.
        Instruction *better = compare(isMin ? ir::CompareOperator::Lt
                                            : ir::CompareOperator::Gt,
                                      b[0], a[0]);
        return {select(better, b[0], a[0]), binary(B::BitOr, a[1], b[1])};
      }
      }
    };
    Instruction *row = m; // (C++17 lambdas capture no structured binding)
    // The NaN flag is an int32 of all ones or zero, the width of the
    // compare's own mask: a bool's vector was packed to 16 bits and ORed,
    // four instructions an element where this takes two (Intel's CPU
    // runtime, AVX2: max over sum of 2^20 float32, three runs of 150 in
    // one process each, 1.09-1.10x -> 1.03-1.06x).
    Instruction *noNan = cast(integer(0), "int32");
    States initial = {start};
    if (nanFirst)
      initial.push_back(noNan);
    auto fold = [&, row](Instruction *k, const States &state) -> States {
      Instruction *v =
          cast(valueAt(make(Opcode::BuildTuple, {row, k}), {row, k}), acc);
      if (!nanFirst)
        return join(state, {v});
      Instruction *isNan = np("isnan", {v});
      if (cleanNans)
        v = select(isNan, worstValue(e_.reduction == R::Max), v);
      return join(state, {v, binary(B::Sub, noNan, cast(isNan, "int32"))});
    };
    bool floatingSum = e_.reduction == R::Sum &&
                       (e_.floatingAccumulator || acc.rfind("complex", 0) == 0);
    States after = e_.chunked && floatingSum
                       ? foldSumBlocks(k0, step, n, initial, fold, join)
                       : foldRow(k0, step, n, initial, chainsFor(), fold, join);
    // The group's result is NaN if any item met one.
    Instruction *folded = after[0];
    Instruction *sawNan =
        nanFirst ? compare(ir::CompareOperator::Ne, after[1], noNan) : nullptr;

    static const char *ops[] = {"+", "*", "min", "max"};
    Instruction *reduce = object("spirjit.kernel_api.group_reduce");
    Instruction *total =
        call(reduce, {group, folded, text(ops[int(e_.reduction)])});
    Instruction *anyNan =
        nanFirst ? call(reduce, {group, cast(sawNan, "int32"), text("max")})
                 : nullptr;
    Instruction *slot =
        make(Opcode::BuildTuple, {m, method(group, "get_group_id", {integer(1)})});
    Block *store = block({cur_});
    Block *done = block({cur_});
    branchIf(compare(ir::CompareOperator::Eq, lid, integer(0)), store, done);
    cur_ = store;
    if (nanFirst) {
      Block *storeNan = block({store});
      Block *storeTotal = block({store});
      done->predecessors.push_back(storeNan);
      done->predecessors.push_back(storeTotal);
      branchIf(compare(ir::CompareOperator::Ne, anyNan, integer(0)), storeNan,
               storeTotal);
      cur_ = storeNan;
      make(Opcode::SetItem,
           {out(), slot,
            cast(constant(ConstValue::ofFloat(std::numeric_limits<double>::quiet_NaN())),
                 outputDType())});
      branch(done);
      cur_ = storeTotal;
    } else {
      done->predecessors.push_back(store);
    }
    make(Opcode::SetItem, {out(), slot, cast(total, outputDType())});
    branch(done);
    cur_ = done;
  }

  /// Rounds of a block of foldSumBlocks: each item's block sum adds up
  /// kSumBlockRounds values (in chainsFor() chains), and the item's total
  /// one block sum per block.
  static constexpr int64_t kSumBlockRounds = 512;
  static constexpr int64_t kSumBlockMin = 4096;

  /// A floating sum over an item's share of a CPU chunk (a chunked Reduce),
  /// in two levels: whole blocks of kSumBlockRounds rounds each summed
  /// from zero, each block's sum added to the item's total, then the
  /// row's last partial block. An item's one running sum over its whole
  /// share (156 thousand float32 values of a 10^7 sum on two cores) had
  /// lost up to 0.27 % (PoCL) and 0.04 % (Intel's runtime) to rounding,
  /// where NumPy's pairwise sum loses about 1e-7; blocked, the error
  /// grows with the block's length plus the number of blocks instead of
  /// their product.
  template <typename Fold, typename Combine>
  States foldSumBlocks(Instruction *k0, Instruction *step, Instruction *n,
                       const States &initial, const Fold &fold,
                       const Combine &join) {
    using B = ir::BinaryOperator;
    // At least kSumBlockMin values a group: a group of one item (PoCL's,
    // the native device's) would otherwise add up ten times the blocks.
    Instruction *width =
        call(builtin("max"), {binary(B::Mul, step, integer(kSumBlockRounds)),
                              integer(kSumBlockMin)});
    auto [blockBase, total] = overWholeBlocks(
        width, n, initial,
        [&](Instruction *base, Instruction *end, const States &sum) {
          return join(sum,
                      foldWholeBlock(base, end, initial, k0, step, fold, join));
        });
    // The row's last, partial block, from zero too.
    States last =
        foldRow(k0, step, n, initial, chainsFor(), fold, join, blockBase);
    return join(total, last);
  }

  /// Per work-item, the first extreme of its values and its index, then
  /// per group: the extreme (NaN if any item saw one), and the least index
  /// holding it.
  void writeArgReduce() {
    using C = ir::CompareOperator;
    const std::string &acc = e_.accumulator;
    bool isMax = e_.reduction == ArrayExpression::Reduction::ArgMax;
    bool floating = e_.floatingAccumulator;
    auto [m, lid, group, k0, step, n] = rowItem();
    Instruction *row = m; // (C++17 lambdas capture no structured binding)
    auto at = [this, row](Instruction *k) {
      return make(Opcode::BuildTuple, {row, k});
    };
    auto indexAt = [&](Instruction *k) {
      if (e_.indexParameter < 0)
        return cast(k, "int64");
      return cast(make(Opcode::GetItem, {parameter(e_.indexParameter), at(k)}),
                  "int64");
    };
    // Each item starts from the row's first element: the least index.
    Instruction *zero = integer(0);
    Instruction *best0 = cast(valueAt(at(zero), {m, zero}), acc);
    Instruction *index0 = indexAt(zero);
    // The state (best, its index) after meeting (v, its index). Over the
    // elements themselves each state meets indices in increasing order,
    // so only a strictly better value (or a first NaN) replaces the best;
    // over partials, and joining two states, the indices come in any
    // order and the earlier of equals wins.
    auto step1 = [&](const States &state, Instruction *v, Instruction *vIndex,
                     bool ordered) -> States {
      Instruction *best = state[0], *bestIndex = state[1];
      if (ordered && floating) {
        // Over the elements, in order: v replaces a best that is no NaN
        // when not (v <= best) for max (>= for min), which holds for a
        // greater v and for a NaN. Two compares an element (fcmp ule/uge
        // and ord) where the general rule below takes four.
        Instruction *notWorse =
            compare(isMax ? C::Le : C::Ge, v, best);
        Instruction *better =
            np("logical_and", {np("logical_not", {notWorse}),
                               compare(C::Eq, best, best)});
        return {select(better, v, best), select(better, vIndex, bestIndex)};
      }
      Instruction *earlier =
          ordered ? nullptr : compare(C::Lt, vIndex, bestIndex);
      Instruction *better = compare(isMax ? C::Gt : C::Lt, v, best);
      if (!ordered)
        better = np("logical_or",
                    {better,
                     np("logical_and", {compare(C::Eq, v, best), earlier})});
      if (floating) { // a NaN wins, the earlier of two
        Instruction *vNan = np("isnan", {v});
        Instruction *bestNan = np("isnan", {best});
        Instruction *nanWins =
            np("logical_and", {vNan, np("logical_not", {bestNan})});
        if (!ordered)
          nanWins = np("logical_or",
                       {nanWins, np("logical_and",
                                    {vNan, np("logical_and",
                                              {bestNan, earlier})})});
        // A comparison with a NaN is false: `better` needs no guard.
        better = np("logical_or", {nanWins, better});
      }
      return {select(better, v, best), select(better, vIndex, bestIndex)};
    };
    bool ordered = e_.indexParameter < 0;
    bool real = acc.rfind("float", 0) == 0 || acc.rfind("int", 0) == 0 ||
                acc.rfind("uint", 0) == 0;
    States after =
        ordered && real && (e_.blockedArgFold || reassociatesFolds(e_))
            ? argFoldBlocks(row, k0, step, n, best0, index0, isMax)
            : foldRow(
        k0, step, n, {best0, index0}, chainsFor(),
        [&, row](Instruction *k, const States &state) -> States {
          return step1(state, cast(valueAt(at(k), {row, k}), acc), indexAt(k),
                       ordered);
        },
        [&](const States &a, const States &b) -> States {
          return step1(a, b[0], b[1], false);
        });
    Instruction *best = after[0], *bestIndex = after[1];

    Instruction *reduce = object("spirjit.kernel_api.group_reduce");
    Instruction *hit, *value;
    if (floating) {
      Instruction *bestNan = np("isnan", {best});
      Instruction *anyNan = compare(
          C::Ne, call(reduce, {group, cast(bestNan, "int32"), text("max")}),
          integer(0));
      double worst = isMax ? -std::numeric_limits<double>::infinity()
                           : std::numeric_limits<double>::infinity();
      Instruction *clean =
          select(bestNan, cast(constant(ConstValue::ofFloat(worst)), acc), best);
      Instruction *top =
          call(reduce, {group, clean, text(isMax ? "max" : "min")});
      hit = select(anyNan, bestNan, compare(C::Eq, best, top));
      value = select(
          anyNan,
          cast(constant(ConstValue::ofFloat(
                   std::numeric_limits<double>::quiet_NaN())),
               acc),
          top);
    } else {
      value = call(reduce, {group, best, text(isMax ? "max" : "min")});
      hit = compare(C::Eq, best, value);
    }
    Instruction *none = cast(constant(ConstValue::ofInt(
                                 std::numeric_limits<int64_t>::max())),
                             "int64");
    Instruction *first =
        call(reduce, {group, select(hit, bestIndex, none), text("min")});
    Instruction *slot = make(
        Opcode::BuildTuple, {m, method(group, "get_group_id", {integer(1)})});
    Block *store = block({cur_});
    Block *done = block({cur_, store});
    branchIf(compare(C::Eq, lid, integer(0)), store, done);
    cur_ = store;
    make(Opcode::SetItem, {out(), slot, cast(value, outputDType())});
    make(Opcode::SetItem, {outIndex(), slot, first});
    branch(done);
    cur_ = done;
  }

  /// Rounds of a block of argFoldBlocks (Intel's CPU runtime, argmax over
  /// max of 2^20 float32 in one process, three runs of 150 each: 8 rounds
  /// 1.21-1.30x, 16 1.13-1.16x, 32 1.01-1.14x, 64 1.02-1.05x, 128
  /// 1.06-1.13x, once whole blocks had no end test); elements of a block where
  /// an item is its group (singleItemGroups): its fold is a vector loop, and
  /// 256 or 1024 elements cost alike (native device, argmax of 2^18 and
  /// 2^20 float32 on 2 threads: 15 and 80 us), 4096 more in the second
  /// read (2^18: 56 us).
  static constexpr int64_t kArgBlockRounds = 64;
  static constexpr int64_t kSingleItemArgBlock = 1024;

  /// The accumulator's value no other beats in a max (isMax) or a min:
  /// -inf or +inf.
  Instruction *worstValue(bool isMax) {
    return cast(constant(ConstValue::ofFloat(
                    isMax ? -std::numeric_limits<double>::infinity()
                          : std::numeric_limits<double>::infinity())),
                e_.accumulator);
  }

  /// A blocked first pass of a real or integer arg reduction, per item:
  /// (best, its index) over the item's elements. Each block of
  /// kArgBlockRounds rounds folds values only, as max and min do (a
  /// compare and a select an element, and a NaN flag); a block whose
  /// extreme beats the state's becomes the state's, with the block's
  /// start. After the last block the item reads its best block again for
  /// the first index holding the best (the first NaN, if the best is one).
  /// The general fold selects a value and an index at every element.
  /// (Intel's CPU runtime, argmax of float32 beside NumPy's in one
  /// process, medians: 2^20 1.4-1.7x -> 0.9-1.1x NumPy's time, 2^22
  /// 1.1-1.3x -> 0.7-0.8x. PoCL, whose items are no vector lanes, was
  /// 2.5x slower this way.)
  States argFoldBlocks(Instruction *row, Instruction *k0, Instruction *step,
                       Instruction *n, Instruction *best0,
                       Instruction *index0, bool isMax) {
    using B = ir::BinaryOperator;
    using C = ir::CompareOperator;
    const std::string &acc = e_.accumulator;
    bool floating = e_.floatingAccumulator;
    auto at = [this, row](Instruction *k) {
      return make(Opcode::BuildTuple, {row, k});
    };
    auto valueOf = [&, row](Instruction *k) {
      return cast(valueAt(at(k), {row, k}), acc);
    };
    // The state: best, its block's base, whether best is in a block (not
    // the row's first element, index0), and for floats whether best is a
    // NaN.
    States initial = {best0, integer(0), constant(ConstValue::ofBool(false))};
    if (floating)
      initial.push_back(np("isnan", {best0}));
    // One item a group (the native device) folds a block as one chain
    // LLVM vectorises (reassociatesFolds), from the worst value and with
    // NaNs replaced by it and counted apart; its blocks are long, as a
    // vector fold is cheap and the second read of a block is not.
    bool single = reassociatesFolds(e_);
    Instruction *width = binary(
        B::Mul, step, integer(single ? kSingleItemArgBlock : kArgBlockRounds));
    // The block's extreme, from the state's best: a NaN in the state stays
    // (no compare with it holds), a NaN met sets the flag. The flag is an
    // int32 of all ones or zero, the width of the compare's own mask: a
    // bool's vector was packed to 16 bits and ORed, four instructions an
    // element where this takes two (Intel's CPU runtime, AVX2).
    auto join = [&](const States &a, const States &b) -> States {
      if (!floating)
        return {call(builtin(isMax ? "max" : "min"), {a[0], b[0]})};
      Instruction *better = compare(isMax ? C::Gt : C::Lt, b[0], a[0]);
      return {select(better, b[0], a[0]), binary(B::BitOr, a[1], b[1])};
    };
    auto fold = [&](Instruction *k, const States &s) -> States {
      Instruction *v = valueOf(k);
      if (!floating)
        return join(s, {v});
      Instruction *isNan = np("isnan", {v});
      if (single)
        v = select(isNan, worstValue(isMax), v);
      return join(s, {v, binary(B::Sub, cast(integer(0), "int32"),
                                cast(isNan, "int32"))});
    };
    auto blockStart = [&](const States &state) {
      States start = {single && floating ? worstValue(isMax) : state[0]};
      if (floating)
        start.push_back(cast(integer(0), "int32"));
      return start;
    };
    // The state after a block starting at blockBase whose fold gave
    // `folded`: the block's extreme replaces a best it beats.
    auto update = [&](const States &state, const States &folded,
                      Instruction *blockBase) -> States {
      Instruction *extreme = folded[0];
      Instruction *need = compare(isMax ? C::Gt : C::Lt, extreme, state[0]);
      if (!floating)
        return {select(need, extreme, state[0]),
                select(need, blockBase, state[1]),
                np("logical_or", {state[2], need})};
      Instruction *sawNan =
          compare(C::Ne, folded[1], cast(integer(0), "int32"));
      need = np("logical_and", {np("logical_not", {state[3]}),
                                np("logical_or", {sawNan, need})});
      Instruction *nan = cast(constant(ConstValue::ofFloat(
                                  std::numeric_limits<double>::quiet_NaN())),
                              acc);
      return {select(need, select(sawNan, nan, extreme), state[0]),
              select(need, blockBase, state[1]),
              np("logical_or", {state[2], need}),
              np("logical_or", {state[3], sawNan})};
    };
    // Whole blocks first: a fixed count of rounds, with no test for the
    // row's end inside (a block that might end early had folded a last,
    // masked element after each block's rounds, and its joins took a
    // third of the loop; Intel's CPU runtime, argmax of 2^20 float32).
    auto [blockBase, after] = overWholeBlocks(
        width, n, initial,
        [&](Instruction *base, Instruction *end, const States &state) {
          return update(state,
                        foldWholeBlock(base, end, blockStart(state), k0, step,
                                       fold, join),
                        base);
        });
    // Then the row's last, partial block, if any, folded with its tests.
    Block *partial = block({cur_});
    Block *merged = block({cur_});
    branchIf(compare(C::Lt, blockBase, n), partial, merged);
    cur_ = partial;
    States last = update(after,
                         foldRow(k0, step, n, blockStart(after), chainsFor(),
                                 fold, join, blockBase),
                         blockBase);
    merged->predecessors.push_back(cur_);
    branch(merged);
    cur_ = merged;
    States state;
    for (size_t i = 0; i < last.size(); ++i)
      state.push_back(make(Opcode::Phi, {after[i], last[i]}));
    // The best block again (none if the best is the row's first element).
    Instruction *best = state[0], *scanBase = state[1], *inBlock = state[2];
    Instruction *scanEnd = select(
        inBlock, call(builtin("min"), {binary(B::Add, scanBase, width), n}),
        integer(0));
    Instruction *none = cast(
        constant(ConstValue::ofInt(std::numeric_limits<int64_t>::max())),
        "int64");
    Instruction *bestNan = floating ? state[3] : nullptr;
    States found = foldRow(
        k0, step, scanEnd, {none}, 1,
        [&](Instruction *k, const States &s) -> States {
          Instruction *v = valueOf(k);
          Instruction *match = compare(C::Eq, v, best);
          if (floating)
            match = select(bestNan, np("isnan", {v}), match);
          Instruction *first =
              np("logical_and", {match, compare(C::Eq, s[0], none)});
          return {select(first, cast(k, "int64"), s[0])};
        },
        [](const States &a, const States &) { return a; }, scanBase);
    return {best, select(inBlock, found[0], index0)};
  }

  const std::string &outputDType() const {
    return e_.output.empty() ? e_.accumulator : e_.output;
  }

  const ArrayExpression &e_;
  std::shared_ptr<FunctionDescription> description_;
  std::unique_ptr<ir::Function> fn_;
  Block *cur_ = nullptr;
  std::vector<Instruction *> args_;
  /// A chunked Reduce's first k of its group's chunk (rowItem).
  Instruction *chunkStart_ = nullptr;
};

} // namespace

bool reassociatesFolds(const ArrayExpression &e) {
  // A complex accumulator is two floats LLVM's vectoriser does not fold:
  // it keeps its four chains. A pass over partials (indexParameter) is
  // short and keeps the general arg fold.
  return e.form == ArrayExpression::Form::Reduce && e.singleItemGroups &&
         e.accumulator.rfind("complex", 0) != 0 &&
         e.accumulator != "bool" && e.indexParameter < 0;
}

std::shared_ptr<FunctionDescription>
arrayKernel(const ArrayExpression &expression, const std::string &name) {
  return KernelWriter(expression, name).write();
}

} // namespace spirjit
