// The parfor stage (Parfor.h states the contract): find the prange loops,
// check their bodies, build each kernel's pyir, put a launch in the loop's
// place.
#include "compiler/Parfor.h"

#include "compiler/NonNegative.h"
#include "compiler/ParforNest.h"
#include "compiler/ParforReductions.h"
#include "compiler/ParforRows.h"

#include "frontend/CloneFunction.h"
#include "frontend/Diagnostics.h"
#include "frontend/Dominators.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>

namespace spirjit {

using ir::Block;
using ir::Instruction;
using ir::Opcode;

Instruction *loopCallOf(const ir::Loop &loop,
                        std::initializer_list<const char *> callees) {
  for (auto &inst : loop.header->instructions) {
    if (!inst->isa(Opcode::IterValid))
      continue;
    Instruction *iter = inst->operands[0];
    if (!iter->isa(Opcode::GetIter))
      return nullptr;
    Instruction *call = iter->operands[0];
    const Type *callee =
        call->isa(Opcode::Call) ? call->operands[0]->type : nullptr;
    if (callee && callee->kind == TypeKind::Function)
      for (const char *name : callees)
        if (callee->name == name)
          return call;
    return nullptr;
  }
  return nullptr;
}

Instruction *parallelCallOf(const ir::Loop &loop) {
  return loopCallOf(loop, {"spirjit.prange", "spirjit.pndindex"});
}

static bool isPndindex(const Instruction *call) {
  return call->operands[0]->type->name == "spirjit.pndindex";
}

Instruction *prangeOf(const ir::Loop &loop) {
  Instruction *call = parallelCallOf(loop);
  return call && !isPndindex(call) ? call : nullptr;
}

Instruction *headerBranch(const ir::Loop &loop) {
  Instruction *br = loop.header->terminator();
  return br && br->isa(Opcode::CondBranch) ? br : nullptr;
}

std::vector<Instruction *> headerPhis(const ir::Loop &loop) {
  std::vector<Instruction *> phis;
  for (auto &inst : loop.header->instructions)
    if (inst->isa(Opcode::Phi))
      phis.push_back(inst.get());
  return phis;
}

namespace {

/// The prange or range call a loop of a nest (perfectNest) iterates over.
Instruction *nestRangeOf(const ir::Loop &loop) {
  Instruction *call = prangeOf(loop);
  return call ? call : rangeCallOf(loop);
}

Instruction *findIn(const Block *block, Opcode opcode) {
  for (auto &inst : block->instructions)
    if (inst->isa(opcode))
      return inst.get();
  return nullptr;
}

bool isCompileTimeValue(const Instruction *inst) {
  return inst->isa(Opcode::Const) || inst->isa(Opcode::Global) ||
         inst->isa(Opcode::FreeVar) || inst->isa(Opcode::Undef);
}

class Outliner {
public:
  Outliner(TypedFunction &host, bool mapRows)
      : host_(host), fn_(*host.function), mapRows_(mapRows) {}

  std::vector<Parfor> run() {
    // One loop at a time, outermost first; the loop tree is rebuilt after
    // each rewrite, since the rewrite deletes blocks.
    for (;;) {
      ir::DominatorTree dominators(fn_);
      ir::LoopTree loops(fn_, dominators);
      const ir::Loop *found = nullptr;
      for (const auto &loop : loops.loops())
        if (parallelCallOf(*loop) && !outermostPrangeAbove(*loop)) {
          found = loop.get();
          break;
        }
      if (!found)
        break;
      // Anew for each loop: outlining deletes and creates instructions.
      nonNegative_ = findNonNegativeIntegers(host_);
      outline(*found);
    }
    std::string problems = ir::verify(fn_);
    SPIRJIT_INTERNAL_CHECK(problems.empty(),
                           "the parfor stage broke the host function: " +
                               problems);
    return std::move(parfors_);
  }

private:
  /// Every use of `from` becomes `to`: as an operand, and among a call's
  /// arguments in parameter order (np.empty(total) after a reduction).
  void replaceValue(Instruction *from, Instruction *to) {
    fn_.replaceAllUsesWith(from, to);
    for (const auto &block : fn_.blocks)
      for (const auto &inst : block->instructions)
        if (const auto *args = host_.callArguments.find(inst.get());
            args && std::count(args->begin(), args->end(), from)) {
          std::vector<const Instruction *> replaced = *args;
          std::replace(replaced.begin(), replaced.end(),
                       static_cast<const Instruction *>(from),
                       static_cast<const Instruction *>(to));
          host_.callArguments[inst.get()] = replaced;
        }
  }

  [[noreturn]] void error(int line, const std::string &message) {
    throw UserError(UserErrorKind::UnsupportedFeature,
                    host_.description->filename, line, message);
  }

  static bool outermostPrangeAbove(const ir::Loop &loop) {
    for (const ir::Loop *p = loop.parent; p; p = p->parent)
      if (parallelCallOf(*p))
        return true;
    return false;
  }

  /// Where the user sees a carried value: its first read in the loop, or
  /// else where the loop assigns it.
  int carriedLine(const ir::Loop &loop, const Instruction *phi) {
    for (Block *block : loop.blocks)
      for (auto &inst : block->instructions)
        if (!inst->isa(Opcode::Phi) &&
            std::count(inst->operands.begin(), inst->operands.end(), phi))
          return inst->line;
    for (size_t i = 0; i < phi->operands.size(); ++i)
      if (loop.contains(phi->parent->predecessors[i]))
        return phi->operands[i]->line;
    return phi->line;
  }

  // --- outlining ------------------------------------------------------------

  void outline(const ir::Loop &outer) {
    Parfor parfor;
    parfor.index = static_cast<int>(parfors_.size());
    Instruction *outerRange = parallelCallOf(outer);
    parfor.line = outerRange->line;
    // pndindex(...) is one loop over up to 3 extents (InferMath.cpp): a
    // launch of as many dimensions, or for a reduction a 1-D loop over
    // their product whose index is taken apart into the tuple.
    bool nd = isPndindex(outerRange);
    Instruction *outerBranch = headerBranch(outer);
    SPIRJIT_INTERNAL_CHECK(outerBranch, "a prange loop without a condbr");
    Block *exit = outerBranch->targets[1];

    // One way in, one way out: break and return leave from the body.
    std::vector<Block *> preheaders;
    for (Block *p : outer.header->predecessors)
      if (!outer.contains(p))
        preheaders.push_back(p);
    SPIRJIT_INTERNAL_CHECK(preheaders.size() == 1 &&
                               preheaders[0]->terminator()->isa(
                                   Opcode::Branch),
                           "a prange loop with several entries");
    Block *preheader = preheaders[0];
    // A failed assert's block (`ret assert`, entered from the loop only)
    // goes with the body: the kernel reports it (in debug mode) or never
    // takes it. So does a failed check of an array statement in the body
    // (`ret fail`, ArrayExpressions.h: b[i, :] = a[i, :] * 2.0), which
    // the kernel reports as a failed assert.
    std::set<Block *> asserts;
    std::vector<Block *> assertsInOrder; // the same in every process
    for (Block *block : outer.blocks)
      for (Block *succ : block->successors()) {
        Instruction *ret = succ->terminator();
        bool fromLoop = std::all_of(
            succ->predecessors.begin(), succ->predecessors.end(),
            [&](Block *p) { return outer.contains(p); });
        if (!outer.contains(succ) && ret && ret->isa(Opcode::Return) &&
            (ret->name == "assert" || ret->name == "fail") && fromLoop &&
            asserts.insert(succ).second)
          assertsInOrder.push_back(succ);
      }
    for (Block *block : outer.blocks)
      for (Block *succ : block->successors())
        if (!outer.contains(succ) && !asserts.count(succ) &&
            block != outer.header)
          error(block->terminator()->line,
                "a prange loop cannot be left early (break or return): its "
                "iterations run in parallel, in any order; compute a flag "
                "array in the loop and act on it after the loop");

    // Phis nothing reads (a variable the body assigns and never reads
    // afterwards) would look like values carried across iterations.
    removeDeadPhis();

    // Reductions and the other values carried across iterations.
    std::vector<Instruction *> reductionPhis;
    for (Instruction *phi : headerPhis(outer)) {
      ReductionOp op;
      // Read in the loop: by an instruction there, directly or through the
      // loop's phis (an `if`'s merge, an inner loop's header), which only
      // pass it on.
      std::set<const Instruction *> passed = {phi};
      for (size_t before = 0; before != passed.size();) {
        before = passed.size();
        for (Block *block : outer.blocks)
          for (auto &inst : block->instructions)
            if (inst->isa(Opcode::Phi))
              for (const Instruction *o : inst->operands)
                if (passed.count(o))
                  passed.insert(inst.get());
      }
      bool readInLoop = false;
      const Instruction *readAfter = nullptr;
      for (auto &block : fn_.blocks)
        for (auto &inst : block->instructions) {
          bool inLoop = outer.contains(block.get());
          if (inLoop && inst->isa(Opcode::Phi))
            continue;
          for (const Instruction *o : inst->operands)
            if (inLoop ? passed.count(o) > 0 : o == phi) {
              readInLoop |= inLoop;
              if (!inLoop && !readAfter)
                readAfter = inst.get();
            }
        }
      if (!readInLoop && !readAfter)
        continue;
      if (isLastValue(outer, phi))
        op = ReductionOp::Last;
      else if (!readInLoop)
        error(readAfter->line,
              "a variable a prange loop assigns is read after the loop: it "
              "has the last iteration's value (as in numba) only when it is "
              "a number assigned in every iteration, outside loops nested in "
              "the body; store what you need into an array element in the "
              "loop instead");
      else if (!isReduction(fn_, outer, phi, op))
        error(carriedLine(outer, phi),
              "a prange loop assigns a variable that the loop (or the code "
              "after it) also reads, and not as a reduction (s += x, s *= x, "
              "s = min(s, x), ...): iterations run in parallel, in any order, "
              "so the value would be a race; assign it in each iteration "
              "before reading it, or make it a reduction");
      Instruction *initial = nullptr;
      for (size_t i = 0; i < phi->operands.size(); ++i)
        if (!outer.contains(outer.header->predecessors[i]))
          initial = phi->operands[i];
      if (initial->isa(Opcode::Undef))
        error(phi->line, "a reduction variable must be assigned before the "
                         "prange loop");
      reductionPhis.push_back(phi);
      parfor.reductions.push_back(
          {op, types::materialize(phi->type), initial});
    }
    bool reduces = !reductionPhis.empty();
    bool lastValues = std::any_of(
        parfor.reductions.begin(), parfor.reductions.end(),
        [](const Parfor::Reduction &r) { return r.op == ReductionOp::Last; });
    // Per reduction, the inner loop's header phi that continues it, where
    // the row loop of a reducing loop is mapped.
    std::vector<Instruction *> carried;
    std::vector<const ir::Loop *> nest =
        nd || lastValues ? std::vector<const ir::Loop *>{&outer}
                         : perfectNest(outer, preheader, asserts, mapRows_,
                                       nonNegative_, parfor, reductionPhis,
                                       carried);
    if (nest.size() == 1)
      carried.clear();
    parfor.dims = static_cast<int>(
        nd ? findIn(outer.header, Opcode::IterNext)->type->elements.size()
           : nest.size());
    const ir::Loop &innermost = *nest.back();

    // The loop's index must not be read after it.
    for (const ir::Loop *loop : nest) {
      Instruction *index = findIn(loop->header, Opcode::IterNext);
      for (auto &block : fn_.blocks)
        if (!outer.contains(block.get()) && !asserts.count(block.get()))
          for (auto &inst : block->instructions)
            if (std::count(inst->operands.begin(), inst->operands.end(),
                           index))
              error(inst->line, "a prange loop's index is read after the "
                                "loop; iterations run in any order, so it "
                                "has no last value");
    }

    // The kernel's blocks: the innermost body, or for a reduction the
    // whole loop but its header.
    std::vector<Block *> body;
    for (Block *block : innermost.blocks)
      if (block != innermost.header)
        body.push_back(block);
    for (Block *block : assertsInOrder)
      body.push_back(block);
    std::set<const Block *> bodySet(body.begin(), body.end());

    // --- the kernel ---
    auto kernel = std::make_unique<ir::Function>();
    kernel->name = fn_.name + "_parfor" + std::to_string(parfor.index);
    kernel->filename = fn_.filename;
    kernel->firstLine = parfor.line;
    kernel->parameterNames.push_back("item");
    Block *entry = kernel->addBlock();
    int line = parfor.line;
    Instruction *item = kernel->create(entry, Opcode::Arg, {}, line);
    item->index = 0;
    item->name = "item";
    ir::ValueMap map;
    std::map<const Instruction *, Instruction *> &values = map.values;

    auto description = std::make_shared<FunctionDescription>(*host_.description);
    description->deviceFunctions = host_.description->deviceFunctions;
    auto addGlobal = [&](const std::string &name, GlobalValue::Kind kind,
                         const std::string &value) {
      std::string key = name;
      auto it = description->globals.find(key);
      if (it != description->globals.end() &&
          !(it->second.kind == kind && it->second.name == value))
        key = generatedGlobalName(name);
      GlobalValue g;
      g.kind = kind;
      g.name = value;
      description->globals[key] = g;
      Instruction *inst = kernel->create(entry, Opcode::Global, {}, line);
      inst->name = key;
      return inst;
    };
    auto constant = [&](ConstValue c) {
      Instruction *inst = kernel->create(entry, Opcode::Const, {}, line);
      inst->constant = std::move(c);
      return inst;
    };
    auto parameter = [&](const std::string &name) {
      Instruction *inst = kernel->create(entry, Opcode::Arg, {}, line);
      inst->index = static_cast<int64_t>(kernel->parameterNames.size());
      inst->name = name;
      kernel->parameterNames.push_back(name);
      return inst;
    };

    // Values from outside: compile-time values are copied in; others
    // become parameters, in the order of first use.
    std::vector<Instruction *> indices; // per dimension, in the host
    for (const ir::Loop *loop : nest)
      indices.push_back(findIn(loop->header, Opcode::IterNext));
    std::set<const Instruction *> special(indices.begin(), indices.end());
    // Arguments that are an element of a host tuple, by its index at each
    // level: (argument, (tuple, indices)).
    std::vector<
        std::pair<size_t, std::pair<Instruction *, std::vector<size_t>>>>
        tupleParts;
    special.insert(reductionPhis.begin(), reductionPhis.end());
    special.insert(carried.begin(), carried.end());
    // A tuple of numbers, arrays and tuples (a shape, a jit function's
    // tuple argument, a namedtuple): one parameter per number or array,
    // put together again in the kernel; the host passes each (TupleGets
    // made with the launch). A namedtuple is built again by its class, so
    // the kernel reads its fields by name.
    std::function<Instruction *(Instruction *, const Type *,
                                std::vector<size_t>)>
        importTuple = [&](Instruction *v, const Type *t,
                          std::vector<size_t> path) -> Instruction * {
      std::vector<Instruction *> parts;
      for (size_t k = 0; k < t->elements.size(); ++k) {
        const Type *e = t->elements[k];
        path.push_back(k);
        if (e->kind == TypeKind::Tuple) {
          parts.push_back(importTuple(v, e, path));
        } else {
          if (!e->isNumber() && e->kind != TypeKind::Array)
            error(v->line, "a tuple holding a '" + e->str() +
                               "' is used inside a prange loop, whose "
                               "kernel takes tuples of numbers and arrays; "
                               "take the element out before the loop");
          std::string name = "v" + std::to_string(v->id);
          for (size_t at : path)
            name += "_" + std::to_string(at);
          parts.push_back(parameter(name));
          parfor.arguments.push_back(nullptr);
          tupleParts.push_back({parfor.arguments.size() - 1, {v, path}});
          parfor.kernelArgumentTypes.push_back(types::materialize(e));
        }
        path.pop_back();
      }
      if (!t->isNamedTuple())
        return kernel->create(entry, Opcode::BuildTuple, parts, line);
      std::string key =
          generatedGlobalName("namedtuple" + std::to_string(v->id));
      for (size_t at : path)
        key += "_" + std::to_string(at);
      GlobalValue cls;
      cls.kind = GlobalValue::Kind::NamedTupleClass;
      cls.name = t->name;
      ConstValue fields, defaults;
      fields.kind = defaults.kind = ConstValue::Kind::Tuple;
      for (const std::string &field : t->fields)
        fields.items.push_back(
            ConstValue::ofText(ConstValue::Kind::Str, field));
      cls.value.kind = ConstValue::Kind::Tuple;
      cls.value.items = {fields, defaults};
      description->globals[key] = cls;
      Instruction *callee = kernel->create(entry, Opcode::Global, {}, line);
      callee->name = key;
      parts.insert(parts.begin(), callee);
      return kernel->create(entry, Opcode::Call, parts, line);
    };
    auto importValue = [&](Instruction *v) {
      if (values.count(v) || special.count(v))
        return;
      if (bodySet.count(v->parent))
        return;
      if (reduces && (v->parent == outer.header || v->parent == innermost.header))
        return;
      if (isCompileTimeValue(v)) {
        Instruction *copy = ir::cloneInstruction(*v, *kernel, entry);
        copy->type = nullptr;
        values[v] = copy;
        return;
      }
      if (v->type && v->type->kind == TypeKind::Tuple) {
        values[v] = importTuple(v, v->type, {});
        return;
      }
      std::string name = v->isa(Opcode::Arg) ? v->name
                                              : "v" + std::to_string(v->id);
      values[v] = parameter(name);
      if (nonNegative_.count(v))
        description->nonNegativeParameters.push_back(
            static_cast<int>(kernel->parameterNames.size()) - 1);
      parfor.arguments.push_back(v);
      parfor.kernelArgumentTypes.push_back(types::materialize(v->type));
    };
    for (Block *block : body)
      for (auto &inst : block->instructions)
        for (Instruction *operand : inst->operands)
          importValue(operand);
    // Each dimension's start and step, imported likewise; a pndindex's
    // extents, imported for a reduction's index.
    std::vector<Instruction *> extents;
    if (nd) {
      Instruction *tuple = outerRange->operands[1];
      bool ofTuple = tuple->type->kind == TypeKind::Tuple;
      for (int d = 0; d < parfor.dims; ++d) {
        Instruction *extent = ofTuple ? nullptr : outerRange->operands[1 + d];
        if (ofTuple) {
          extent = fn_.create(preheader, Opcode::TupleGet, {tuple}, line);
          extent->index = d;
          extent->type = tuple->type->elements[d];
        }
        extents.push_back(extent);
        parfor.ranges.push_back({extent});
        if (reduces)
          importValue(extent);
      }
    }
    for (const ir::Loop *loop : nd ? std::vector<const ir::Loop *>{} : nest) {
      Instruction *range = nestRangeOf(*loop);
      std::vector<const Instruction *> args(range->operands.begin() + 1,
                                            range->operands.end());
      for (const Instruction *a : args)
        if (a->type->kind != TypeKind::Int && a->type->kind != TypeKind::WeakInt &&
            a->type->kind != TypeKind::Bool)
          error(range->line, "prange() takes integers");
      parfor.ranges.push_back(args);
      if (args.size() >= 2)
        importValue(range->operands[1]);
      if (args.size() == 3)
        importValue(range->operands[3]);
      // A reduction over mapped rows takes its flat index apart by the
      // row loop's trip count, computed in the kernel from its stop.
      if (reduces && loop != nest.front())
        importValue(range->operands[args.size() == 1 ? 1 : 2]);
    }
    auto binary = [&](Block *block, ir::BinaryOperator op, Instruction *a,
                      Instruction *b) {
      Instruction *inst = kernel->create(block, Opcode::BinaryOp, {a, b}, line);
      inst->index = static_cast<int64_t>(op);
      return inst;
    };
    // The index of each dimension: start + id * step.
    auto indexValue = [&](size_t d, Instruction *id) -> Instruction * {
      Instruction *range = nestRangeOf(*nest[d]);
      size_t n = range->operands.size() - 1;
      Instruction *v = id;
      if (n == 3)
        v = binary(v->parent, ir::BinaryOperator::Mul, v,
                   values.at(range->operands[3]));
      if (n >= 2)
        v = binary(v->parent, ir::BinaryOperator::Add,
                   values.at(range->operands[1]), v);
      return v;
    };
    auto workItemQuery = [&](const char *method, int dim) {
      Instruction *get = kernel->create(entry, Opcode::GetAttr, {item}, line);
      get->name = method;
      return kernel->create(entry, Opcode::Call, {get, constant(ConstValue::ofInt(dim))},
                            line);
    };

    Block *done = nullptr;
    if (!reduces) {
      if (nd) {
        std::vector<Instruction *> ids;
        for (int d = 0; d < parfor.dims; ++d)
          ids.push_back(workItemQuery("get_id", d));
        values[indices[0]] =
            kernel->create(entry, Opcode::BuildTuple, ids, line);
      }
      for (size_t d = 0; !nd && d < nest.size(); ++d)
        values[indices[d]] = indexValue(d, workItemQuery("get_id", static_cast<int>(d)));
      ir::cloneBlocks(body, *kernel, map);
      Block *first = map[headerBranch(innermost)->targets[0]];
      Instruction *br = kernel->create(entry, Opcode::Branch, {}, line);
      br->targets = {first};
      first->predecessors = {entry};
      done = kernel->addBlock();
      for (Block *latch : innermost.latches) {
        Instruction *back = map[latch]->terminator();
        for (Block *&t : back->targets)
          if (t == innermost.header)
            t = done;
        done->predecessors.push_back(map[latch]);
      }
    } else {
      // Four int64s and the partial arrays come after the values. Work-item
      // g runs `trips` iterations, first + g * chunk + t * stride for t in
      // range(trips): contiguous chunks (chunk = trips, stride 1) suit CPUs,
      // interleaved ones (chunk 1, stride = items) GPUs; the host picks per
      // device (HostCall.cpp's reductionShare) and launches the iterations
      // that do not fill a share apart, one per work-item. The trip count
      // is the same for every work-item, so a CPU runtime's vectoriser
      // keeps one loop for its lanes: bounds that differ per work-item made
      // it mask every iteration (2.5x slower on Intel's runtime).
      Instruction *firstIteration = parameter("first");
      Instruction *chunk = parameter("chunk");
      Instruction *trips = parameter("trips");
      Instruction *stride = parameter("stride");
      // The host computes all four, never negative: indices built from
      // them need no wrap-around.
      for (Instruction *p : {firstIteration, chunk, trips, stride})
        description->nonNegativeParameters.push_back(
            static_cast<int>(p->index));
      for (int k = 0; k < 4; ++k)
        parfor.kernelArgumentTypes.push_back(types::int64());
      std::vector<Instruction *> partials;
      for (size_t j = 0; j < reductionPhis.size(); ++j) {
        partials.push_back(parameter("partial" + std::to_string(j)));
        parfor.kernelArgumentTypes.push_back(
            types::array(parfor.reductions[j].type, 1, 'C'));
      }
      Instruction *gid = workItemQuery("get_id", 0);
      Instruction *begin =
          binary(entry, ir::BinaryOperator::Add, firstIteration,
                 binary(entry, ir::BinaryOperator::Mul, gid, chunk));
      Instruction *rangeFn = addGlobal("range", GlobalValue::Kind::Builtin, "range");
      Instruction *range =
          kernel->create(entry, Opcode::Call, {rangeFn, trips}, line);
      Instruction *iter = kernel->create(entry, Opcode::GetIter, {range}, line);
      std::vector<Instruction *> identities;
      for (size_t j = 0; j < reductionPhis.size(); ++j) {
        const Type *t = parfor.reductions[j].type;
        Instruction *cast =
            addGlobal("dtype_" + t->str(), GlobalValue::Kind::Object,
                      "numpy." + t->str());
        identities.push_back(kernel->create(
            entry, Opcode::Call,
            {cast, constant(reductionIdentity(parfor.reductions[j].op, t))},
            line));
      }
      Instruction *one = constant(ConstValue::ofInt(1)); // for trip counts
      Block *header = kernel->addBlock();
      Block *indexBlock = kernel->addBlock();
      Instruction *toHeader = kernel->create(entry, Opcode::Branch, {}, line);
      toHeader->targets = {header};
      std::vector<Instruction *> accumulators;
      for (size_t j = 0; j < reductionPhis.size(); ++j) {
        Instruction *phi = kernel->create(header, Opcode::Phi, {}, line);
        values[reductionPhis[j]] = phi;
        accumulators.push_back(phi);
      }
      Instruction *valid = kernel->create(header, Opcode::IterValid, {iter}, line);
      Instruction *t = kernel->create(header, Opcode::IterNext, {iter}, line);
      size_t made = header->instructions.size();
      Instruction *k =
          binary(header, ir::BinaryOperator::Add, begin,
                 binary(header, ir::BinaryOperator::Mul, t, stride));
      if (nd) {
        // The flat index k, taken apart: the last extent varies fastest.
        std::vector<Instruction *> parts(parfor.dims);
        for (int d = parfor.dims - 1; d > 0; --d) {
          Instruction *e = values.at(extents[d]);
          parts[d] = binary(header, ir::BinaryOperator::Mod, k, e);
          k = binary(header, ir::BinaryOperator::FloorDiv, k, e);
        }
        parts[0] = k;
        values[indices[0]] =
            kernel->create(header, Opcode::BuildTuple, parts, line);
      } else if (nest.size() == 2) {
        // Mapped rows: the flat index k, taken apart by the row loop's
        // trip count (at least 1: the host launches nothing for an empty
        // iteration space), the column varying fastest.
        Instruction *range = nestRangeOf(*nest[1]);
        size_t n = range->operands.size() - 1;
        Instruction *stop = values.at(range->operands[n == 1 ? 1 : 2]);
        Instruction *trips = stop;
        if (n >= 2)
          trips = binary(header, ir::BinaryOperator::Sub, stop,
                         values.at(range->operands[1]));
        if (n == 3) {
          Instruction *step = values.at(range->operands[3]);
          trips = binary(header, ir::BinaryOperator::FloorDiv,
                         binary(header, ir::BinaryOperator::Sub,
                                binary(header, ir::BinaryOperator::Add, trips,
                                       step),
                                one),
                         step);
        }
        values[indices[0]] = indexValue(
            0, binary(header, ir::BinaryOperator::FloorDiv, k, trips));
        values[indices[1]] =
            indexValue(1, binary(header, ir::BinaryOperator::Mod, k, trips));
      } else {
        values[indices[0]] = indexValue(0, k);
      }
      // The header got the index's computation; it goes to indexBlock.
      auto &headerList = header->instructions;
      for (auto it = headerList.begin() + made; it != headerList.end();) {
        (*it)->parent = indexBlock;
        indexBlock->instructions.push_back(std::move(*it));
        it = headerList.erase(it);
      }
      // The accumulators stand for the reductions, and with mapped rows
      // for the inner loop's phis that continue them.
      for (size_t j = 0; j < carried.size(); ++j)
        values[carried[j]] = accumulators[j];
      map.blocks[innermost.header] = header;
      ir::cloneBlocks(body, *kernel, map);
      Block *first = map[headerBranch(innermost)->targets[0]];
      Instruction *toFirst = kernel->create(indexBlock, Opcode::Branch, {}, line);
      toFirst->targets = {first};
      indexBlock->predecessors = {header};
      first->predecessors = {indexBlock};
      done = kernel->addBlock();
      Instruction *cond =
          kernel->create(header, Opcode::CondBranch, {valid}, line);
      cond->targets = {indexBlock, done};
      done->predecessors = {header};
      header->predecessors = {entry};
      for (size_t j = 0; j < reductionPhis.size(); ++j)
        accumulators[j]->operands.push_back(identities[j]);
      const std::vector<Instruction *> &goOn =
          carried.empty() ? reductionPhis : carried;
      for (size_t p = 0; p < innermost.header->predecessors.size(); ++p) {
        Block *latch = innermost.header->predecessors[p];
        if (!innermost.contains(latch))
          continue;
        header->predecessors.push_back(map[latch]);
        for (size_t j = 0; j < goOn.size(); ++j)
          accumulators[j]->operands.push_back(map[goOn[j]->operands[p]]);
      }
      for (size_t j = 0; j < reductionPhis.size(); ++j) {
        kernel->create(done, Opcode::SetItem,
                       {partials[j], gid, accumulators[j]}, line);
      }
    }
    Instruction *none = kernel->create(done, Opcode::Const, {}, line);
    none->constant = ConstValue::none();
    kernel->create(done, Opcode::Return, {none}, line);
    // Copies keep the host's types; the kernel is typed afresh.
    for (auto &block : kernel->blocks)
      for (auto &inst : block->instructions)
        inst->type = nullptr;
    std::string problems = ir::verify(*kernel);
    SPIRJIT_INTERNAL_CHECK(problems.empty(),
                           "the outlined prange loop is malformed: " +
                               problems + "\n" + ir::print(*kernel));

    description->name = kernel->name;
    description->qualifiedName =
        host_.description->qualifiedName + ".<prange " +
        std::to_string(parfor.index) + ">";
    description->firstLine = parfor.line;
    description->argCount = static_cast<int>(kernel->parameterNames.size());
    description->varnames = kernel->parameterNames;
    description->annotations.clear();
    description->prebuiltPyIR = std::move(kernel);
    parfor.kernel = description;

    // --- the host: a launch in the loop's place ---
    // The preheader's branch goes last again.
    auto &list = preheader->instructions;
    auto brIt = std::find_if(list.begin(), list.end(), [](auto &i) {
      return i->isa(Opcode::Branch);
    });
    list.erase(brIt);
    for (const auto &[at, part] : tupleParts) {
      Instruction *get = part.first;
      for (size_t k : part.second) {
        const Type *tuple = get->type;
        get = fn_.create(preheader, Opcode::TupleGet, {get}, line);
        get->index = static_cast<int64_t>(k);
        get->type = tuple->elements[k];
      }
      parfor.arguments[at] = get;
    }
    auto bound = [&](int64_t value) {
      Instruction *c = fn_.create(preheader, Opcode::Const, {}, line);
      c->constant = ConstValue::ofInt(value);
      c->type = types::int64();
      return c;
    };
    std::vector<Instruction *> operands;
    for (const auto &args : parfor.ranges) {
      auto arg = [&](size_t k) { return const_cast<Instruction *>(args[k]); };
      size_t n = args.size();
      operands.push_back(n >= 2 ? arg(0) : bound(0));
      operands.push_back(n >= 2 ? arg(1) : arg(0));
      operands.push_back(n == 3 ? arg(2) : bound(1));
    }
    for (const Instruction *a : parfor.arguments)
      operands.push_back(const_cast<Instruction *>(a));
    Instruction *launch = fn_.create(preheader, Opcode::Launch, operands, line);
    launch->index = parfor.index;
    std::vector<const Type *> resultTypes;
    for (Instruction *phi : reductionPhis)
      resultTypes.push_back(phi->type);
    launch->type = types::tuple(resultTypes);
    for (size_t j = 0; j < reductionPhis.size(); ++j) {
      Instruction *get = fn_.create(preheader, Opcode::TupleGet, {launch}, line);
      get->index = static_cast<int64_t>(j);
      get->type = reductionPhis[j]->type;
      replaceValue(reductionPhis[j], get);
    }
    Instruction *br = fn_.create(preheader, Opcode::Branch, {}, line);
    br->targets = {exit};
    br->type = types::none();
    for (Block *&p : exit->predecessors)
      if (p == outer.header)
        p = preheader;
    // The loop's blocks go; so do the prange call and iterator when
    // nothing else reads them.
    std::set<const Block *> dead(outer.blocks.begin(), outer.blocks.end());
    dead.insert(asserts.begin(), asserts.end());
    for (auto &block : fn_.blocks)
      if (dead.count(block.get()))
        for (auto &inst : block->instructions)
          inst->operands.clear();
    fn_.blocks.erase(std::remove_if(fn_.blocks.begin(), fn_.blocks.end(),
                                    [&](auto &b) { return dead.count(b.get()); }),
                     fn_.blocks.end());
    eraseIfUnused(findIn(preheader, Opcode::GetIter));
    if (nd) // host code has no pndindex values
      eraseIfUnused(outerRange);
    parfors_.push_back(std::move(parfor));
  }

  void removeDeadPhis() {
    std::set<const Instruction *> live;
    std::vector<const Instruction *> work;
    // A reduction's value before its loop is no launch's operand, but the
    // launch reads it (LowerHost.cpp): a phi there must stay.
    for (const Parfor &made : parfors_)
      for (const Parfor::Reduction &r : made.reductions)
        work.push_back(r.initial);
    for (auto &block : fn_.blocks)
      for (auto &inst : block->instructions)
        if (!inst->isa(Opcode::Phi))
          for (const Instruction *o : inst->operands)
            work.push_back(o);
    while (!work.empty()) {
      const Instruction *v = work.back();
      work.pop_back();
      if (!live.insert(v).second || !v->isa(Opcode::Phi))
        continue;
      for (const Instruction *o : v->operands)
        work.push_back(o);
    }
    std::vector<Instruction *> dead;
    for (auto &block : fn_.blocks)
      for (auto &inst : block->instructions)
        if (inst->isa(Opcode::Phi) && !live.count(inst.get()))
          dead.push_back(inst.get());
    for (Instruction *phi : dead)
      phi->operands.clear();
    for (Instruction *phi : dead)
      fn_.erase(phi);
  }

  void eraseIfUnused(Instruction *inst) {
    if (!inst)
      return;
    for (auto &block : fn_.blocks)
      for (auto &other : block->instructions)
        if (std::count(other->operands.begin(), other->operands.end(), inst))
          return;
    fn_.erase(inst);
  }

  TypedFunction &host_;
  ir::Function &fn_;
  /// May an independent inner range loop become a launch dimension?
  bool mapRows_;
  /// Host values never negative: their parameters are marked so
  /// (FunctionDescription::nonNegativeParameters).
  std::unordered_set<const Instruction *> nonNegative_;
  std::vector<Parfor> parfors_;
};

} // namespace

std::vector<Parfor> outlineParfors(TypedFunction &host, bool mapRows) {
  return Outliner(host, mapRows).run();
}

} // namespace spirjit
