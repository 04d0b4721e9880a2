// The array-expression stage (ArrayExpressions.h states the contract):
// walk the typed host function block by block, copy what is not an array
// operation, and put a prange loop nest where each array statement was.
#include "compiler/ArrayExpressions.h"

#include "compiler/ArrayExpressionParts.h"
#include "compiler/ArrayValues.h"
#include "compiler/ArrayViews.h"
#include "compiler/Parfor.h"
#include "frontend/Dominators.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <set>

namespace spirjit {

using namespace arrays;

namespace {

class Rewriter : private ArrayViews {
public:
  explicit Rewriter(const TypedFunction &typed)
      : ArrayViews(typed.description->filename), typed_(typed),
        old_(*typed.function) {}

  bool hasArrayOperations() const {
    for (const auto &block : old_.blocks)
      for (const auto &inst : block->instructions)
        if (roleOf(inst.get()) != Role::Copied)
          return true;
    return false;
  }

  ArrayExpressionResult run() {
    description_ = std::make_shared<FunctionDescription>(*typed_.description);
    fn_ = std::make_unique<ir::Function>();
    fn_->name = old_.name;
    fn_->filename = old_.filename;
    fn_->firstLine = old_.firstLine;
    fn_->parameterNames = old_.parameterNames;
    for (const auto &block : old_.blocks)
      for (const auto &inst : block->instructions) {
        for (Instruction *operand : inst->operands)
          users_[operand].push_back(inst.get());
      }

    ir::DominatorTree dominators(old_);
    ir::LoopTree loops(old_, dominators);
    for (const auto &loop : loops.loops())
      if (parallelCallOf(*loop))
        inPrange_.insert(loop->blocks.begin(), loop->blocks.end());

    for (const auto &block : old_.blocks) {
      Block *copy = fn_->addBlock();
      block_ = block.get();
      map_.blocks[block.get()] = copy;
      cur_ = copy;
      for (const auto &inst : block->instructions)
        walk(inst.get());
      closeGroup();
      last_[block.get()] = cur_;
    }
    // Mend the edges: a block's predecessors are now the blocks its
    // original predecessors ended in; operands and targets are the copies.
    for (const auto &block : old_.blocks) {
      Block *copy = map_.blocks.at(block.get());
      copy->predecessors.clear();
      for (Block *pred : block->predecessors)
        copy->predecessors.push_back(last_.at(pred));
    }
    for (const auto &block : fn_->blocks)
      for (const auto &inst : block->instructions) {
        for (Instruction *&operand : inst->operands)
          operand = map_[operand];
        for (Block *&target : inst->targets)
          target = map_[target];
        inst->type = nullptr;
      }
    std::string problems = ir::verify(*fn_);
    SPIRJIT_INTERNAL_CHECK(problems.empty(),
                           "the array-expression stage broke the function: " +
                               problems);
    return {std::move(fn_), description_, graphs_};
  }

private:
  // --- statements and loops ------------------------------------------------

  /// One statement inside a loop nest: what it computes per element.
  struct LoopBody {
    std::vector<Instruction *> indices; // one per loop dimension
    /// Where the statement's code goes; the cursor follows it, so what a
    /// statement makes at the cursor (the extents accessOf reads) lands
    /// in the block being filled, after np.where's branch too.
    Block *block = nullptr;
    std::vector<Instruction *> accumulators; // the current value of each
    /// The loops' extent keys, and whether this copy of the loops reads
    /// element 0 along an operand's dimension whose extent is 1 (NumPy's
    /// stretching), or knows no extent is 1 where the space's is not.
    std::vector<std::string> keys;
    bool stretch = false;
  };
  struct Reduction {
    ReductionOp op;
    Instruction *initial;
    const Instruction *original; // the reduction call
    bool mean = false;
    Instruction *count = nullptr; // mean: the number of elements
    int line = 0;
  };
  struct Group {
    int line = 0;
    std::vector<Instruction *> extents;
    std::vector<std::string> extentKeys;
    std::vector<std::pair<Instruction *, Instruction *>> stretched; // Space's
    std::vector<std::function<void(LoopBody &)>> statements;
    std::vector<Reduction> reductions;
    std::vector<std::pair<std::string, std::string>> reads, writes; // base, key
  };
  std::optional<Group> group_;

  static bool conflicts(
      const std::vector<std::pair<std::string, std::string>> &a,
      const std::vector<std::pair<std::string, std::string>> &b) {
    for (const auto &x : a)
      for (const auto &y : b)
        if (x.first == y.first && x.second != y.second)
          return true;
    return false;
  }

  /// Starts a statement over `space`: joins the open loop when it may,
  /// else closes it and opens a new one.
  Group &openGroup(const Space &space,
                   const std::vector<std::pair<std::string, std::string>> &reads,
                   const std::vector<std::pair<std::string, std::string>> &writes,
                   int line) {
    if (group_ && (group_->extentKeys != space.keys ||
                   conflicts(group_->writes, reads) ||
                   conflicts(writes, group_->reads) ||
                   conflicts(writes, group_->writes)))
      closeGroup();
    if (!group_) {
      group_.emplace();
      group_->line = line;
      group_->extents = space.extents;
      group_->extentKeys = space.keys;
    }
    group_->stretched.insert(group_->stretched.end(), space.stretched.begin(),
                             space.stretched.end());
    group_->reads.insert(group_->reads.end(), reads.begin(), reads.end());
    group_->writes.insert(group_->writes.end(), writes.begin(), writes.end());
    return *group_;
  }

  /// Emits the open group's loops at the cursor. Where an operand may be
  /// stretched, two copies: the host picks the one that reads element 0
  /// along an extent of 1 only when some operand has such an extent, so
  /// the usual case keeps indices the device reads as contiguous vectors.
  void closeGroup() {
    if (!group_)
      return;
    Group g = std::move(*group_);
    group_.reset();
    if (g.stretched.empty()) {
      reductionResults(g, emitLoops(g, /*stretch=*/false));
      return;
    }
    int line = g.line;
    Instruction *none = nullptr;
    for (const auto &[operand, space] : g.stretched) {
      Instruction *same =
          compare(cur_, ir::CompareOperator::Eq, operand, space, line);
      none = none ? binary(cur_, ir::BinaryOperator::BitAnd, none, same, line)
                  : same;
    }
    Block *plain = fn_->addBlock(), *stretching = fn_->addBlock(),
          *join = fn_->addBlock();
    Instruction *br = make(Opcode::CondBranch, {none}, line);
    br->targets = {plain, stretching};
    plain->predecessors = {cur_};
    stretching->predecessors = {cur_};
    std::vector<std::vector<Instruction *>> results;
    for (Block *version : {plain, stretching}) {
      cur_ = version;
      results.push_back(emitLoops(g, version == stretching));
      make(Opcode::Branch, {}, line)->targets = {join};
      join->predecessors.push_back(cur_);
    }
    cur_ = join;
    std::vector<Instruction *> accumulators;
    for (size_t r = 0; r < g.reductions.size(); ++r)
      accumulators.push_back(
          make(Opcode::Phi, {results[0][r], results[1][r]}, line));
    reductionResults(g, accumulators);
  }

  /// Emits group g's loop nest at the cursor, which it leaves after the
  /// loops; returns the reductions' final values.
  std::vector<Instruction *> emitLoops(Group &g, bool stretch) {
    int line = g.line;
    size_t n = g.extents.size();
    if (n == 0) {
      // Over 0-D arrays: the statements run once, in the host.
      LoopBody body;
      body.block = cur_;
      for (const Reduction &red : g.reductions)
        body.accumulators.push_back(red.initial);
      for (auto &statement : g.statements)
        statement(body);
      cur_ = body.block;
      return body.accumulators;
    }
    bool reducing = !g.reductions.empty();
    // headers[d], with the accumulators' phis of each level
    std::vector<Block *> headers(n);
    std::vector<std::vector<Instruction *>> phis(n);
    std::vector<Instruction *> indices(n);

    for (size_t d = 0; d < n; ++d) {
      // The outer loop is a prange; a reduction's inner loops run in each
      // work-item (its share of rows), the others are pranges too.
      Instruction *range =
          d == 0 || !reducing
              ? global(cur_, "prange", GlobalValue::Kind::Object,
                       "spirjit.prange", line)
              : global(cur_, "range", GlobalValue::Kind::Builtin, "range",
                       line);
      Instruction *call = make(Opcode::Call, {range, g.extents[d]}, line);
      Instruction *iter = make(Opcode::GetIter, {call}, line);
      Block *header = fn_->addBlock();
      Instruction *br = make(Opcode::Branch, {}, line);
      br->targets = {header};
      header->predecessors = {cur_};
      for (size_t r = 0; r < g.reductions.size(); ++r) {
        Instruction *incoming = d == 0 ? g.reductions[r].initial : phis[d - 1][r];
        phis[d].push_back(make(header, Opcode::Phi, {incoming}, line));
      }
      Instruction *valid = make(header, Opcode::IterValid, {iter}, line);
      indices[d] = make(header, Opcode::IterNext, {iter}, line);
      Block *body = fn_->addBlock();
      body->predecessors = {header};
      Instruction *cond = make(header, Opcode::CondBranch, {valid}, line);
      cond->targets = {body, nullptr}; // the exits: set below
      headers[d] = header;
      cur_ = body;
    }
    LoopBody body;
    body.indices = indices;
    body.block = cur_;
    body.keys = g.extentKeys;
    body.stretch = stretch;
    for (size_t r = 0; r < g.reductions.size(); ++r)
      body.accumulators.push_back(phis[n - 1][r]);
    for (auto &statement : g.statements)
      statement(body);
    // Close the levels from the innermost out: the body's end branches back
    // to its header; an inner loop's exit is a block branching to the
    // header around it.
    Block *latch = body.block;
    std::vector<Instruction *> values = body.accumulators;
    for (size_t d = n; d-- > 0;) {
      Instruction *back = make(latch, Opcode::Branch, {}, line);
      back->targets = {headers[d]};
      headers[d]->predecessors.push_back(latch);
      for (size_t r = 0; r < phis[d].size(); ++r)
        phis[d][r]->operands.push_back(values[r]);
      if (d == 0)
        break;
      Block *innerExit = fn_->addBlock();
      innerExit->predecessors = {headers[d]};
      headers[d]->terminator()->targets[1] = innerExit;
      latch = innerExit;
      values = phis[d];
    }
    Block *exit = fn_->addBlock();
    exit->predecessors = {headers[0]};
    headers[0]->terminator()->targets[1] = exit;
    cur_ = exit;
    return phis[0];
  }

  /// The reductions' calls become their accumulators' final values.
  void reductionResults(const Group &g,
                        const std::vector<Instruction *> &accumulators) {
    for (size_t r = 0; r < g.reductions.size(); ++r) {
      const Reduction &red = g.reductions[r];
      Instruction *result = accumulators[r];
      if (red.mean)
        result = binary(cur_, ir::BinaryOperator::TrueDiv, result, red.count,
                        red.line);
      map_.values[red.original] = result;
    }
  }

  /// Is expression v computed in the loop being emitted (rather than read
  /// from an array)? `expand`: even if v is stored elsewhere (this is the
  /// statement that stores it).
  bool computedHere(const Instruction *v, bool expand) const {
    Role role = roleOf(v);
    return (expand || inlined_.count(v)) &&
           (role == Role::Elementwise || role == Role::InPlace);
  }

  /// The arrays expression v reads, each with its access.
  void leaves(Instruction *v, std::vector<std::pair<Instruction *, Access>> &out,
              int line, bool expand = false) {
    if (!isArray(v->type))
      return;
    if (computedHere(v, expand) && v->isa(Opcode::GetItem)) {
      // A gather reads its array anywhere: a number's access to
      // broadcasting, a key no position of the array has to the statements
      // that write it.
      leaves(v->operands[1], out, line);
      Access anywhere = accessOf(v->operands[0], line);
      anywhere.dims.clear();
      anywhere.baseKey += "?";
      out.push_back({v->operands[0], anywhere});
      return;
    }
    if (computedHere(v, expand)) {
      size_t first = v->isa(Opcode::Call) ? 1 : 0;
      for (size_t i = first; i < v->operands.size(); ++i)
        leaves(v->operands[i], out, line);
      if (v->isa(Opcode::Call) &&
          v->operands[0]->type->kind == TypeKind::Method)
        leaves(v->operands[0]->operands[0], out, line);
      return;
    }
    out.push_back({v, accessOf(v, line)});
  }

  /// The index of an access's element at the body's indices, in its block.
  Instruction *element(const Access &a, const LoopBody &body, int line) {
    const std::vector<Instruction *> &indices = body.indices;
    Block *block = body.block;
    size_t offset = indices.size() - a.dims.size();
    std::vector<Instruction *> at(a.fixed);
    // The view's dimensions in its order (a transpose's differs from the
    // base's), each at the base dimension it walks.
    for (size_t k = 0; k < a.dims.size(); ++k) {
      const Access::Dim &dim = a.dims[k];
      if (dim.baseDim < 0)
        continue; // a new axis: its one element is the base's
      Instruction *i = indices[offset + k];
      if (body.stretch && dim.extentKey != body.keys[offset + k])
        // The check let this extent be the loop's or 1: then element 0.
        i = builtin(block, "min",
                    {i, binary(block, ir::BinaryOperator::Sub, dim.length,
                               integer(1, line, block), line)},
                    line);
      if (dim.stepValue)
        i = binary(block, ir::BinaryOperator::Mul, i, dim.stepValue, line);
      else if (dim.step != 1)
        i = binary(block, ir::BinaryOperator::Mul, i,
                   integer(dim.step, line, block), line);
      if (dim.start)
        i = binary(block, ir::BinaryOperator::Add, i, dim.start, line);
      at[static_cast<size_t>(dim.baseDim)] = i;
    }
    if (at.size() == 1)
      return at[0];
    return make(block, Opcode::BuildTuple, at, line);
  }

  /// Emits the element of expression `v` at the body's indices.
  Instruction *emitElement(Instruction *v, LoopBody &body, int line,
                           bool expand = false) {
    if (!isArray(v->type))
      return v; // a number of the host: a kernel argument
    if (!computedHere(v, expand))
      return load(v, body, line);
    return emitGraph(v, body, line);
  }

  /// The element of array `v` at the body's indices, read from memory.
  Instruction *load(Instruction *v, LoopBody &body, int line) {
    cur_ = body.block; // the extents accessOf may read go there
    Access a = accessOf(v, line);
    Instruction *index = element(a, body, line);
    return make(body.block, Opcode::GetItem, {a.base, index}, line);
  }

  /// Emits `v`'s element as its statement's graph (StatementGraph), by
  /// the writer of DeviceArrays' kernels (ArrayValues.h); v itself is
  /// computed, whoever else reads it.
  Instruction *emitGraph(Instruction *v, LoopBody &body, int line) {
    StatementGraph g =
        statementGraph(v, int(body.indices.size()), [&](const Instruction *x) {
          return computedHere(x, false);
        });
    if (graphed_.insert(v).second)
      graphs_ += "; array statement at line " + std::to_string(line) +
                 ": the element of %" + std::to_string(v->id) + "\n" + g.text();
    ArrayValueWriter writer(
        *fn_, body.block, line, [&](const std::string &name) {
          return global(body.block, name, GlobalValue::Kind::Object, name,
                        line);
        });
    using Kind = StatementGraph::Parameter::Kind;
    Instruction *element = writer.value(
        g.expression, body.indices,
        [&](const ArrayExpression::Value &value,
            const std::vector<Instruction *> &at) {
          const StatementGraph::Parameter &p = g.parameters[value.parameter];
          if (p.kind == Kind::Array)
            return load(p.value, body, line);
          return make(body.block, Opcode::GetItem, {arrayValue(p.value), at[0]},
                      line);
        },
        [&](const ArrayExpression::Value &value,
            const std::vector<Instruction *> &) {
          return g.parameters[value.parameter].value;
        },
        [&](const ArrayExpression::Value &value,
            const std::vector<Instruction *> &) {
          // A function is called in the loop's kernel, not passed to it.
          return cloneChain(g.parameters[value.parameter].value, body.block);
        });
    cur_ = body.block;
    return element;
  }

  std::vector<std::pair<std::string, std::string>>
  keysOf(const std::vector<std::pair<Instruction *, Access>> &ls, size_t n) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto &l : ls)
      out.push_back({l.second.baseKey, l.second.key(n)});
    return out;
  }

  /// target[...] = value (a number or an array expression), one statement.
  /// The value broadcasts into the target, whose shape stays (NumPy's
  /// assignment, and its in-place operators' output operand).
  void assign(const Access &target, Instruction *value, int line,
              bool expand = false) {
    Space space;
    for (const Access::Dim &d : target.dims) {
      space.extents.push_back(d.length);
      space.keys.push_back(d.extentKey);
    }
    size_t n = space.extents.size();
    Leaves ls;
    leaves(value, ls, line, expand);
    for (const auto &l : ls)
      if (l.second.dims.size() > n)
        error(line, "cannot store a " + std::to_string(l.second.dims.size()) +
                        "-D array into " + std::to_string(n) +
                        " dimensions");
    checkBroadcastInto(space, broadcastSpace(ls, line),
                       roleOf(value) == Role::InPlace
                           ? "non-broadcastable output operand"
                           : "could not broadcast input array into the target",
                       line);
    Space into = space;
    stretchInto(into, ls);
    std::string targetKey = target.key(n);
    // a[...] = a[...] itself: nothing to do.
    if (ls.size() == 1 && !expand && !inlined_.count(value) &&
        ls[0].second.key(n) == targetKey)
      return;
    for (const auto &l : ls) {
      if (l.second.baseKey == target.baseKey &&
          l.second.key(n) != targetKey) {
        // The value reads what the statement writes, elsewhere: compute it
        // into a temporary first, as NumPy does.
        Instruction *temp = materialize(value, line);
        Leaves t = {{value, wholeArray(temp, value->type, line)}};
        Space fromTemp = space;
        stretchInto(fromTemp, t);
        assignFrom(target, fromTemp, t, [=](LoopBody &body) {
          Instruction *index = element(t[0].second, body, line);
          return make(body.block, Opcode::GetItem, {temp, index}, line);
        }, line);
        return;
      }
    }
    assignFrom(target, into, ls, [=](LoopBody &body) {
      return emitElement(value, body, line, expand);
    }, line);
  }

  /// One statement storing `value` into target over `space`, whose
  /// operands `ls` the caller has checked.
  void assignFrom(const Access &target, const Space &space, const Leaves &ls,
                  std::function<Instruction *(LoopBody &)> value, int line) {
    size_t n = space.extents.size();
    Group &g = openGroup(space, keysOf(ls, n),
                         {{target.baseKey, target.key(n)}}, line);
    g.statements.push_back([=](LoopBody &body) {
      Instruction *v = value(body);
      Instruction *index = element(target, body, line);
      make(body.block, Opcode::SetItem, {target.base, index, v}, line);
    });
  }

  /// a[idx] = value (a 1-D array, an array of indices: NumPy's scatter, one
  /// loop over idx; where idx repeats an index, which store lands is not
  /// defined, as on CuPy) and a[mask] = number (one loop over a, storing
  /// where the mask, of a's shape, is true).
  void scatter(Instruction *inst, int line) {
    Instruction *array = inst->operands[0], *index = inst->operands[1],
                *value = inst->operands[2];
    bool mask = index->type->element->kind == TypeKind::Bool;
    Access target = accessOf(array, line);
    Leaves ls;
    leaves(index, ls, line);
    Space indexSpace = broadcastSpace(ls, line);
    Space space;
    if (mask) {
      for (size_t d = 0; d < target.dims.size(); ++d) {
        Instruction *extent = indexSpace.extents[d];
        check(compare(cur_, ir::CompareOperator::Eq, extent,
                      target.dims[d].length, line),
              "boolean index did not match indexed array along dimension " +
                  std::to_string(d) +
                  "; dimension is {expected} but corresponding boolean "
                  "dimension is {got}",
              extent, target.dims[d].length, line);
        space.extents.push_back(target.dims[d].length);
        space.keys.push_back(target.dims[d].extentKey);
      }
    } else {
      space = indexSpace;
    }
    size_t n = space.extents.size();
    Leaves values;
    leaves(value, values, line);
    checkBroadcastInto(space, broadcastSpace(values, line),
                       "could not broadcast input array into the indices' "
                       "shape",
                       line);
    // NumPy computes the value before it stores: one that reads the array
    // is computed into a temporary first.
    std::function<Instruction *(LoopBody &)> valueAt =
        [=](LoopBody &body) { return emitElement(value, body, line); };
    for (const auto &l : values)
      if (!mask && isArray(value->type) &&
          (l.second.baseKey == target.baseKey ||
           l.second.baseKey == target.baseKey + "?")) {
        Instruction *temp = materialize(value, line);
        Access whole = wholeArray(temp, value->type, line);
        values = {{value, whole}};
        valueAt = [=](LoopBody &body) {
          return make(body.block, Opcode::GetItem,
                      {temp, element(whole, body, line)}, line);
        };
        break;
      }
    ls.insert(ls.end(), values.begin(), values.end());
    stretchInto(space, ls);
    std::string written =
        mask ? target.key(n) : "scatter " + std::to_string(inst->id);
    Group &g = openGroup(space, keysOf(ls, n), {{target.baseKey, written}},
                         line);
    Instruction *base = mask ? target.base : arrayValue(array, line);
    g.statements.push_back([=](LoopBody &body) {
      Instruction *v = valueAt(body);
      Instruction *at = emitElement(index, body, line);
      if (!mask) {
        make(body.block, Opcode::SetItem, {base, at, v}, line);
        return;
      }
      Block *from = body.block;
      Block *store = fn_->addBlock(), *join = fn_->addBlock();
      Instruction *br = make(from, Opcode::CondBranch, {at}, line);
      br->targets = {store, join};
      store->predecessors = {from};
      join->predecessors = {from, store};
      body.block = store;
      make(store, Opcode::SetItem, {base, element(target, body, line), v},
           line);
      make(store, Opcode::Branch, {}, line)->targets = {join};
      body.block = join;
      cur_ = join;
    });
  }

  /// A new array holding expression `v` (np.empty on the call's device,
  /// then a loop filling it); returns the array.
  Instruction *materialize(Instruction *v, int line) {
    if (inPrange_.count(block_))
      error(line,
            "this array expression in a prange loop needs an array of its "
            "own (it is stored in a variable used more than once, reduced "
            "after a method call, or passed on), which a kernel cannot "
            "allocate; use it once where it is written (b[i] = a[i] + 1.0, "
            "np.sum(a[i] * 2.0)), or compute its elements in an inner "
            "`for j in range(...)` loop");
    Leaves ls;
    leaves(v, ls, line, /*expand=*/true);
    Space space = broadcastSpace(ls, line);
    stretchInto(space, ls);
    Instruction *np = global(cur_, "np", GlobalValue::Kind::Module, "numpy", line);
    Instruction *empty = make(Opcode::GetAttr, {np}, line);
    empty->name = "empty";
    Instruction *shape = make(Opcode::BuildTuple, space.extents, line);
    std::string dtype = v->type->element->str();
    Instruction *dt = global(cur_, dtype, GlobalValue::Kind::Object,
                             "numpy." + dtype, line);
    Instruction *temp = make(Opcode::Call, {empty, shape, dt}, line);
    temporaryExtents_[temp] = {space.extents, space.keys};
    Access target = wholeArray(temp, v->type, line);
    assignFrom(target, space, ls, [=](LoopBody &body) {
      return emitElement(v, body, line, /*expand=*/true);
    }, line);
    return temp;
  }

  /// The identity a reduction starts from, typed as NumPy accumulates.
  /// The accumulator's first value: a weak literal where the elements are
  /// of the accumulator's own float type (it takes theirs), else a value of
  /// the accumulator's type (a mean of uint8 elements in float64: a weak
  /// 0 had made the sum uint8, which wrapped).
  Instruction *reductionStart(ReductionOp op, const Type *result,
                              const Type *element, int line) {
    ConstValue c;
    switch (op) {
    case ReductionOp::Add:
      c = ConstValue::ofInt(0);
      break;
    case ReductionOp::Mul:
      c = ConstValue::ofInt(1);
      break;
    default:
      c = reductionIdentity(op, result);
      break;
    }
    Instruction *value = constant(cur_, c, line);
    if ((result->kind == TypeKind::Float ||
         result->kind == TypeKind::Complex) &&
        element == result)
      return value;
    std::string dtype = result->str();
    return make(Opcode::Call,
                {global(cur_, dtype, GlobalValue::Kind::Object,
                        "numpy." + dtype, line),
                 value},
                line);
  }

  void reduce(Instruction *call) {
    int line = call->line;
    std::string name = calleeName(call);
    std::vector<Instruction *> args;
    if (call->operands[0]->type->kind == TypeKind::Method)
      args.push_back(call->operands[0]->operands[0]);
    for (size_t i = 1; i < call->operands.size(); ++i)
      args.push_back(call->operands[i]);
    bool dot = name == "numpy.dot";
    Leaves ls;
    std::vector<Space> spaces;
    for (Instruction *a : args) {
      Leaves of;
      leaves(a, of, line);
      spaces.push_back(broadcastSpace(of, line));
      ls.insert(ls.end(), of.begin(), of.end());
    }
    Space space = spaces[0];
    if (dot)
      // np.dot does not broadcast its two vectors into each other.
      for (size_t k = 0; k < space.keys.size(); ++k)
        if (spaces[1].keys[k] != space.keys[k])
          check(compare(cur_, ir::CompareOperator::Eq, spaces[1].extents[k],
                        space.extents[k], line),
                "shapes not aligned: an extent of {got} meets one of "
                "{expected}",
                spaces[1].extents[k], space.extents[k], line);
    stretchInto(space, ls);
    size_t n = space.extents.size();
    ReductionOp op = ReductionOp::Add;
    if (name == "numpy.prod")
      op = ReductionOp::Mul;
    else if (name == "numpy.min" || name == "numpy.amin")
      op = ReductionOp::Min;
    else if (name == "numpy.max" || name == "numpy.amax")
      op = ReductionOp::Max;
    Reduction red;
    red.op = op;
    red.original = call;
    red.line = line;
    Instruction *count = nullptr;
    if (op == ReductionOp::Min || op == ReductionOp::Max || name == "numpy.mean") {
      count = integer(1, line);
      for (Instruction *e : space.extents)
        count = binary(cur_, ir::BinaryOperator::Mul, count, e, line);
    }
    if (op == ReductionOp::Min || op == ReductionOp::Max)
      check(compare(cur_, ir::CompareOperator::Gt, count, integer(0, line),
                    line),
            std::string("zero-size array to reduction operation ") +
                (op == ReductionOp::Min ? "minimum" : "maximum") +
                " which has no identity",
            count, integer(1, line), line);
    const Type *accumulator = call->type;
    if (name == "numpy.mean") {
      red.mean = true;
      red.count = count;
      const Type *e = args[0]->type->element;
      accumulator = e->kind == TypeKind::Float || e->kind == TypeKind::Complex
                        ? e
                        : types::floating(64);
    }
    red.initial =
        reductionStart(op, accumulator, args[0]->type->element, line);
    Group &g = openGroup(space, keysOf(ls, n), {}, line);
    size_t slot = g.reductions.size();
    g.reductions.push_back(red);
    g.statements.push_back([=](LoopBody &body) {
      Instruction *x = emitElement(args[0], body, line);
      if (dot)
        x = binary(body.block, ir::BinaryOperator::Mul, x,
                   emitElement(args[1], body, line), line);
      Instruction *&acc = body.accumulators[slot];
      switch (op) {
      case ReductionOp::Min:
      case ReductionOp::Max: {
        // NumPy's a.min() is a reduction by np.minimum (ArrayOps.def): a
        // NaN wins, where Python's min would drop it.
        std::string ufunc = op == ReductionOp::Min ? "minimum" : "maximum";
        acc = make(body.block, Opcode::Call,
                   {global(body.block, ufunc, GlobalValue::Kind::Object,
                           "numpy." + ufunc, line),
                    acc, x},
                   line);
        break;
      }
      default:
        acc = binary(body.block,
                     op == ReductionOp::Mul ? ir::BinaryOperator::Mul
                                            : ir::BinaryOperator::Add,
                     acc, x, line);
        break;
      }
    });
    // The code after the call reads the result: the loop goes first.
    closeGroup();
  }

  // --- the walk ------------------------------------------------------------

  /// Is `v` computed inside its one user's loop rather than stored?
  bool inlinable(const Instruction *v) {
    const auto &users = users_[v];
    if (users.size() != 1 || users[0]->parent != v->parent)
      return false;
    const Instruction *user = users[0];
    // Nothing between may write what v reads: only views, other
    // expressions and pure host code.
    const auto &list = v->parent->instructions;
    auto at = std::find_if(list.begin(), list.end(),
                           [&](const auto &i) { return i.get() == v; });
    for (++at; at != list.end() && at->get() != user; ++at) {
      Role role = roleOf(at->get());
      if (!(role == Role::Index || role == Role::Callee ||
            role == Role::View || role == Role::Elementwise ||
            (role == Role::Copied && isPure(at->get()))))
        return false;
    }
    switch (roleOf(user)) {
    case Role::Elementwise:
    case Role::Reduction:
      return true;
    case Role::InPlace:
      // `c = a + 1.0; c *= 2.0`: the in-place operator writes into c, which
      // must exist; `k += a + 1.0` computes its operand in the loop.
      return user->operands[0] != v;
    case Role::Assign:
      return user->operands[2] == v;
    case Role::Scatter:
      return user->operands[0] != v;
    default:
      return false;
    }
  }

  void walk(Instruction *inst) {
    int line = inst->line;
    switch (roleOf(inst)) {
    case Role::Index:
    case Role::Callee:
      return; // read where it is used
    case Role::View:
      views_[inst] = inst->isa(Opcode::GetItem)
                         ? makeView(inst->operands[0], inst->operands[1], line)
                         : transposed(transposedArray(inst), line);
      // Made where the slice is, so a use inside a prange loop (outlined
      // later) finds it defined.
      for (const Instruction *user : users_[inst])
        if (roleOf(user) == Role::Copied && !viewValues_.count(inst))
          viewValues_[inst] = viewValue(inst, line);
      return;
    case Role::Scatter:
      scatter(inst, line);
      return;
    case Role::Elementwise:
      if (inst->isa(Opcode::GetItem))
        arrayValue(inst->operands[0], line); // a view's, made here
      if (inlinable(inst)) {
        inlined_.insert(inst);
        return;
      }
      aliases_[inst] = materialize(inst, line);
      map_.values[inst] = aliases_[inst];
      return;
    case Role::InPlace: {
      // a op= b: the elements of a get a op b; the name a keeps a (and a
      // slice's `a[1:] += b` stores the view onto itself: nothing).
      Instruction *lhs = inst->operands[0];
      assign(accessOf(lhs, line), inst, line, /*expand=*/true);
      aliases_[inst] = lhs;
      map_.values[inst] = map_[lhs];
      return;
    }
    case Role::Assign:
      assign(makeView(inst->operands[0], inst->operands[1], line),
             inst->operands[2], line);
      return;
    case Role::Reduction:
      reduce(inst);
      return;
    case Role::OnZeroD: {
      // NumPy's number: the operation on the elements, in the host, after
      // the statements before it.
      closeGroup();
      LoopBody body;
      body.block = cur_;
      map_.values[inst] = emitGraph(inst, body, line);
      cur_ = body.block;
      return;
    }
    case Role::Item:
      closeGroup();
      map_.values[inst] = item(inst, line);
      return;
    case Role::Copied:
      if (inst->isa(Opcode::Call) && calleeName(inst) == "numpy.reshape") {
        map_.values[inst] = reshape(inst, line);
        return;
      }
      break;
    }
    // A slice used as a value (returned, passed on, indexed in a loop,
    // its shape read): the view itself, made here.
    std::vector<std::pair<size_t, Instruction *>> viewOperands;
    for (size_t i = 0; i < inst->operands.size(); ++i)
      if (views_.count(inst->operands[i])) {
        auto made = viewValues_.find(inst->operands[i]);
        viewOperands.push_back(
            {i, made != viewValues_.end() ? made->second
                                          : viewValue(inst->operands[i], line)});
      }
    if (!isPure(inst))
      closeGroup();
    Instruction *copy = ir::cloneInstruction(*inst, *fn_, cur_);
    for (const auto &[i, view] : viewOperands)
      copy->operands[i] = view;
    map_.values[inst] = copy;
  }

  const TypedFunction &typed_;
  const ir::Function &old_;
  /// The blocks of prange loops, and the one being walked: an array
  /// expression there runs in the loop's kernel.
  std::set<const Block *> inPrange_;
  const Block *block_ = nullptr;
  ir::ValueMap map_;
  std::map<const Block *, Block *> last_;
  std::map<const Instruction *, std::vector<const Instruction *>> users_;
  std::set<const Instruction *> inlined_;
  /// Each statement's graph text (the parfor dump's), once per statement.
  std::set<const Instruction *> graphed_;
  std::string graphs_;
};

} // namespace

std::optional<ArrayExpressionResult>
lowerArrayExpressions(const TypedFunction &host) {
  Rewriter rewriter(host);
  if (!rewriter.hasArrayOperations())
    return std::nullopt;
  return rewriter.run();
}

} // namespace spirjit
