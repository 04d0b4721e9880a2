// Array expressions as kernels: see ArrayKernel.h for the contract.
#include "compiler/ArrayKernel.h"

#include "frontend/Diagnostics.h"
#include "frontend/PyIR.h"

#include <limits>
#include <tuple>
#include <map>

namespace spirjit {

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
    description_->filename = "<spirjit array expression>";
    description_->firstLine = 1;
    description_->argCount = e.parameterCount + (e.argReduction() ? 3 : 2);
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
    std::string key = generatedGlobalName(qualified);
    GlobalValue g;
    g.kind = GlobalValue::Kind::Object;
    g.name = qualified;
    description_->globals[key] = g;
    Instruction *inst = make(Opcode::Global, {});
    inst->name = key;
    return inst;
  }
  Instruction *builtin(const std::string &name) {
    GlobalValue g;
    g.kind = GlobalValue::Kind::Builtin;
    g.name = name;
    std::string key = generatedGlobalName(name);
    description_->globals[key] = g;
    Instruction *inst = make(Opcode::Global, {});
    inst->name = key;
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

  Instruction *cast(Instruction *v, const std::string &dtype) {
    if (dtype == "bool")
      return compare(ir::CompareOperator::Ne, v, integer(0));
    return call(object("numpy." + dtype), {v});
  }

  /// A ufunc of compiler/ArrayOps.def applied as a kernel applies it,
  /// `np.<name>(...)`; `copy` and `where` are the graph's own.
  Instruction *apply(const std::string &function,
                     const std::vector<Instruction *> &operands) {
    if (function == "copy")
      return operands[0];
    if (function == "where")
      return select(operands[0], operands[1], operands[2]);
    return call(object("numpy." + function), operands);
  }

  /// `yes if condition else no`, both computed already.
  Instruction *select(Instruction *condition, Instruction *yes,
                      Instruction *no) {
    Block *from = cur_;
    Block *taken = block({from});
    Block *other = block({from});
    Block *join = block({taken, other});
    branchIf(condition, taken, other);
    cur_ = taken;
    branch(join);
    cur_ = other;
    branch(join);
    cur_ = join;
    return make(Opcode::Phi, {yes, no});
  }

  /// The expression's values at `index` (one per value; each written once).
  Instruction *valueAt(Instruction *index,
                       const std::vector<Instruction *> &ids) {
    std::vector<Instruction *> at(e_.values.size(), nullptr);
    for (size_t v = 0; v < e_.values.size(); ++v) {
      const ArrayExpression::Value &value = e_.values[v];
      std::vector<Instruction *> operands;
      for (int o : value.operands)
        operands.push_back(at[static_cast<size_t>(o)]);
      switch (value.kind) {
      case ArrayExpression::Value::Kind::Load:
        at[v] = make(Opcode::GetItem, {parameter(value.parameter), index});
        break;
      case ArrayExpression::Value::Kind::Scalar:
        at[v] = parameter(value.parameter);
        break;
      case ArrayExpression::Value::Kind::Apply:
        at[v] = apply(value.function, operands);
        break;
      case ArrayExpression::Value::Kind::Cast:
        at[v] = cast(operands[0], value.dtype);
        break;
      case ArrayExpression::Value::Kind::Index: {
        Instruction *sum = nullptr;
        for (size_t d = 0; d < value.strides.size() && d < ids.size(); ++d) {
          if (value.strides[d] == 0)
            continue;
          Instruction *term =
              value.strides[d] == 1
                  ? ids[d]
                  : binary(ir::BinaryOperator::Mul, ids[d],
                           integer(value.strides[d]));
          sum = sum ? binary(ir::BinaryOperator::Add, sum, term) : term;
        }
        at[v] = cast(sum ? sum : integer(0), "int64");
        break;
      }
      }
    }
    return at[static_cast<size_t>(e_.result)];
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
    make(Opcode::SetItem, {out(), index, value});
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
  /// its group, its first k, the step between its k's, and the row length
  /// (the last parameter).
  std::tuple<Instruction *, Instruction *, Instruction *, Instruction *,
             Instruction *, Instruction *>
  rowItem() {
    Instruction *m = method(item(), "get_global_id", {integer(0)});
    Instruction *lid = method(item(), "get_local_id", {integer(1)});
    Instruction *group = method(item(), "get_group", {});
    Instruction *k0 = method(item(), "get_global_id", {integer(1)});
    Instruction *step = method(item(), "get_global_range", {integer(1)});
    return {m, lid, group, k0, step, parameter(e_.parameterCount - 1)};
  }

  /// The loop over a work-item's k's, entered from here: its header (for
  /// the phis; the caller fills their second operands and the back edge),
  /// body and exit.
  std::tuple<Block *, Block *, Block *> rowLoop() {
    Block *entry = cur_;
    Block *header = block({entry});
    Block *body = block({header});
    header->predecessors.push_back(body);
    Block *exit = block({header});
    branch(header);
    return {header, body, exit};
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
    Instruction *start;
    if (e_.reduction == R::Sum || e_.reduction == R::Prod)
      start = cast(integer(e_.reduction == R::Sum ? 0 : 1), acc);
    else
      start = cast(valueAt(make(Opcode::BuildTuple, {m, integer(0)}),
                           {m, integer(0)}),
                   acc);
    Instruction *noNan = constant(ConstValue::ofBool(false));
    auto [header, body, exit] = rowLoop();
    cur_ = header;
    Instruction *k = make(Opcode::Phi, {k0});
    Instruction *folded = make(Opcode::Phi, {start});
    Instruction *sawNan = make(Opcode::Phi, {noNan});
    branchIf(compare(ir::CompareOperator::Lt, k, n), body, exit);

    cur_ = body;
    Instruction *v =
        cast(valueAt(make(Opcode::BuildTuple, {m, k}), {m, k}), acc);
    Instruction *next = nullptr;
    switch (e_.reduction) {
    case R::Sum:
      next = binary(B::Add, folded, v);
      break;
    case R::Prod:
      next = binary(B::Mul, folded, v);
      break;
    case R::Min:
    case R::Max: {
      bool isMin = e_.reduction == R::Min;
      next = e_.floatingAccumulator
                 ? call(object(isMin ? "numpy.fmin" : "numpy.fmax"),
                        {folded, v})
                 : call(builtin(isMin ? "min" : "max"), {folded, v});
      break;
    }
    }
    Instruction *nanNext =
        nanFirst ? call(object("numpy.logical_or"),
                        {sawNan, call(object("numpy.isnan"), {v})})
                 : sawNan;
    Instruction *kNext = binary(B::Add, k, step);
    header->predecessors[1] = cur_; // the body may have grown blocks
    branch(header);
    k->operands.push_back(kNext);
    folded->operands.push_back(next);
    sawNan->operands.push_back(nanNext);

    cur_ = exit;
    static const char *ops[] = {"+", "*", "min", "max"};
    Instruction *reduce = object("spirjit.kernel_api.group_reduce");
    Instruction *total =
        call(reduce, {group, folded, text(ops[int(e_.reduction)])});
    Instruction *anyNan =
        nanFirst ? call(reduce, {group, cast(sawNan, "int32"), text("max")})
                 : nullptr;
    Instruction *slot =
        make(Opcode::BuildTuple, {m, method(group, "get_group_id", {integer(1)})});
    Block *store = block({exit});
    Block *done = block({exit});
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
    auto [header, body, exit] = rowLoop();
    cur_ = header;
    Instruction *k = make(Opcode::Phi, {k0});
    Instruction *best = make(Opcode::Phi, {best0});
    Instruction *bestIndex = make(Opcode::Phi, {index0});
    branchIf(compare(C::Lt, k, n), body, exit);

    cur_ = body;
    Instruction *v = cast(valueAt(at(k), {m, k}), acc);
    Instruction *vIndex = indexAt(k);
    // Over the elements themselves an item meets indices in increasing
    // order, so only a strictly better value (or a first NaN) replaces the
    // best; over partials the indices come in any order.
    bool ordered = e_.indexParameter < 0;
    Instruction *earlier = ordered ? nullptr : compare(C::Lt, vIndex, bestIndex);
    Instruction *better = compare(isMax ? C::Gt : C::Lt, v, best);
    if (!ordered)
      better = np("logical_or",
                  {better, np("logical_and", {compare(C::Eq, v, best),
                                              earlier})});
    if (floating) { // a NaN wins, the earlier of two
      Instruction *vNan = np("isnan", {v});
      Instruction *bestNan = np("isnan", {best});
      Instruction *nanWins = np("logical_and", {vNan, np("logical_not",
                                                         {bestNan})});
      if (!ordered)
        nanWins = np("logical_or",
                     {nanWins, np("logical_and", {vNan, np("logical_and",
                                                           {bestNan,
                                                            earlier})})});
      // A comparison with a NaN is false: `better` needs no guard.
      better = np("logical_or", {nanWins, better});
    }
    Instruction *nextBest = select(better, v, best);
    Instruction *nextIndex = select(better, vIndex, bestIndex);
    Instruction *kNext = binary(ir::BinaryOperator::Add, k, step);
    header->predecessors[1] = cur_;
    branch(header);
    k->operands.push_back(kNext);
    best->operands.push_back(nextBest);
    bestIndex->operands.push_back(nextIndex);

    cur_ = exit;
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

  const std::string &outputDType() const {
    return e_.output.empty() ? e_.accumulator : e_.output;
  }

  const ArrayExpression &e_;
  std::shared_ptr<FunctionDescription> description_;
  std::unique_ptr<ir::Function> fn_;
  Block *cur_ = nullptr;
  std::vector<Instruction *> args_;
};

} // namespace

std::string ArrayExpression::text() const {
  std::string t;
  static const char *reductions[] = {"sum",    "prod",   "min",
                                     "max",    "argmax", "argmin"};
  if (form == Form::Map)
    t += "map rank " + std::to_string(rank) + "\n";
  else
    t += std::string("reduce ") + reductions[int(reduction)] + " into " +
         accumulator + (output.empty() ? "" : " as " + output) +
         (indexParameter >= 0 ? " indices p" + std::to_string(indexParameter)
                              : "") +
         "\n";
  for (size_t v = 0; v < values.size(); ++v) {
    const Value &value = values[v];
    t += "  %" + std::to_string(v) + " = ";
    switch (value.kind) {
    case Value::Kind::Load:
      t += "load p" + std::to_string(value.parameter);
      break;
    case Value::Kind::Scalar:
      t += "scalar p" + std::to_string(value.parameter);
      break;
    case Value::Kind::Apply:
      t += value.function;
      break;
    case Value::Kind::Cast:
      t += "cast " + value.dtype;
      break;
    case Value::Kind::Index:
      t += "index";
      for (int64_t st : value.strides)
        t += " " + std::to_string(st);
      break;
    }
    for (int o : value.operands)
      t += " %" + std::to_string(o);
    t += "\n";
  }
  t += "  result %" + std::to_string(result) + "\n";
  return t;
}

std::shared_ptr<FunctionDescription>
arrayKernel(const ArrayExpression &expression, const std::string &name) {
  return KernelWriter(expression, name).write();
}

} // namespace spirjit
