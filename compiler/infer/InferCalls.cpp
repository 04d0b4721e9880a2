// The entry point and the fixed point; which concern types a call; device
// functions, typed per call signature; keyword and compile-time arguments.
#include "compiler/infer/Inference.h"

#include <functional>
#include <mutex>

#include "frontend/BuildPyIR.h"
#include "frontend/CloneFunction.h"
#include "frontend/Bytecode.h"
#include "frontend/ControlFlowGraph.h"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace spirjit::infer {

void Inference::run() {
  ir::Function &function = *result_.function;
  if (result_.argumentTypes.size() != function.parameterNames.size())
    throw UserError(UserErrorKind::Typing, desc_.filename, desc_.firstLine,
                    "'" + function.name + "' takes " +
                        std::to_string(function.parameterNames.size()) +
                        " arguments but was given " +
                        std::to_string(result_.argumentTypes.size()));
  // Types only widen, so iterating to a fixed point terminates. Blocks
  // only a branch on a condition known at compile time leaves out
  // (`if a.ndim == 2:`) are not typed, as numba prunes dead branches:
  // code for other ranks or types may be wrong for these.
  std::set<const Block *> &live = live_;
  live = {function.blocks[0].get()};
  for (int round = 0;; ++round) {
    SPIRJIT_INTERNAL_CHECK(round < 100, "type inference does not converge");
    bool changed = false;
    std::set<const Block *> typed;
    for (auto &block : function.blocks) {
      if (!live.count(block.get()))
        continue;
      typed.insert(block.get());
      for (auto &inst : block->instructions) {
        const Type *t = infer(*inst);
        if (t != inst->type) {
          inst->type = t;
          changed = true;
        }
      }
      for (Block *next : liveSuccessors(*block))
        live.insert(next);
    }
    // A block reached only from one after it is typed next round.
    if (live.size() != typed.size())
      changed = true;
    if (!changed) {
      pruneDeadBranches(live);
      break;
    }
  }
  requireListItems();
  // A phi may merge a value with "not assigned on this path" (a variable
  // first assigned in a loop and read after it, as Python allows when the
  // loop runs); any other use of an unassigned variable is an error.
  for (auto &block : function.blocks)
    for (auto &inst : block->instructions)
      for (Instruction *operand : inst->operands)
        if (!operand->type &&
            !(inst->opcode == Opcode::Phi && operand->opcode == Opcode::Undef))
          throw UserError(UserErrorKind::Typing, desc_.filename, inst->line,
                          "a variable is used before it is assigned on "
                          "some path");
  result_.returnTypeAsWritten = returnType_ ? returnType_ : types::none();
  // Python's numbers in a returned tuple, nested ones too, become NumPy's.
  std::function<const Type *(const Type *)> materialized =
      [&](const Type *t) -> const Type * {
    if (t->kind != TypeKind::Tuple)
      return types::materialize(t);
    std::vector<const Type *> elements;
    for (const Type *e : t->elements)
      elements.push_back(materialized(e));
    return types::withElements(t, elements);
  };
  result_.returnType = materialized(result_.returnTypeAsWritten);
  markWrittenArguments();
}

/// Which array arguments are stored to: NumPy arguments are copied back
/// only when the kernel may write them.
void Inference::markWrittenArguments() {
  ir::Function &function = *result_.function;
  result_.writtenArguments.assign(result_.argumentTypes.size(), false);
  auto markWritten = [&](const Instruction *array) {
    while (array->opcode == Opcode::GetItem)
      array = array->operands[0];
    if (array->opcode == Opcode::Arg) {
      result_.writtenArguments[array->index] = true;
      return;
    }
    // Through a phi or a tuple: assume every array may be written.
    for (size_t i = 0; i < result_.argumentTypes.size(); ++i)
      if (result_.argumentTypes[i]->kind == TypeKind::Array)
        result_.writtenArguments[i] = true;
  };
  for (auto &block : function.blocks)
    for (auto &inst : block->instructions) {
      if (inst->opcode == Opcode::SetItem)
        markWritten(inst->operands[0]);
      // Atomics write their array; compare_exchange also its expected_ref.
      const auto *kapiCall = result_.callArguments.find(inst.get());
      if (kapiCall && !kapiCall->empty() && (*kapiCall)[0] &&
          (*kapiCall)[0]->type->kind == TypeKind::Array) {
        const KernelApiFunction *api = findKernelApi(inst->operands[0]->type);
        if (api && (api->id == KernelApi::AtomicRef ||
                    api->id == KernelApi::AtomicCompareExchange))
          markWritten((*kapiCall)[0]);
      }
      const TypedFunction *const *call = result_.calls.find(inst.get());
      if (!call)
        continue;
      // An array passed to a device function that writes its parameter.
      for (size_t i = 1; i < inst->operands.size(); ++i)
        if ((*call)->writtenArguments[i - 1] &&
            inst->operands[i]->type->kind == TypeKind::Array)
          markWritten(inst->operands[i]);
    }
}

void Inference::requireArity(const Instruction &inst,
                             const std::vector<const Type *> &args, size_t lo,
                             size_t hi, const std::string &name) {
  if (args.size() < lo || args.size() > hi)
    typingError(inst, name + "() takes " +
                          (lo == hi ? std::to_string(lo)
                                    : std::to_string(lo) + " to " +
                                          std::to_string(hi)) +
                          " arguments, got " + std::to_string(args.size()));
}

void Inference::requireNumbers(const Instruction &inst,
                               const std::vector<const Type *> &args,
                               const std::string &name) {
  for (const Type *t : args)
    if (!t->isNumber())
      typingError(inst, name + "() needs numbers, got '" + t->str() + "'");
}

const Type *Inference::inferCall(Instruction &inst) {
  const Type *callee = inst.operands[0]->type;
  if (result_.kind == FunctionKind::Host &&
      ((callee->kind == TypeKind::Function && isKernelApiName(callee->name)) ||
       (callee->kind == TypeKind::Method &&
        callee->elements[0]->kind == TypeKind::AtomicRef)))
    unsupported(inst, "'" + callee->str() +
                          "' is the kernel API, which only @spirjit.kernel "
                          "functions can call; in a jit function write the "
                          "parallel loop with prange, or launch a kernel");
  if (callee->isNamedTupleClass()) {
    // Its fields in order (BuildPyIR's orderNamedTupleArguments).
    SPIRJIT_INTERNAL_CHECK(
        inst.name.empty() && inst.operands.size() == callee->fields.size() + 1,
        "a namedtuple built with its arguments out of order");
    std::vector<const Type *> elements;
    for (size_t i = 1; i < inst.operands.size(); ++i)
      elements.push_back(inst.operands[i]->type);
    return types::namedTuple(callee->name.substr(11), callee->fields, elements);
  }
  if (callee->kind == TypeKind::Function && callee->name == "numpy.ndim" &&
      inst.name.empty() && inst.operands.size() == 2) {
    // A constant (0 for a number), so that code for arrays and for
    // numbers may branch on it and the other branch prunes.
    const Type *t = inst.operands[1]->type;
    if (t->kind == TypeKind::Array || t->isNumber()) {
      result_.constants[&inst] =
          ConstValue::ofInt(t->kind == TypeKind::Array ? t->ndim : 0);
      return types::weakInt();
    }
  }
  if (callee->kind == TypeKind::Function && isArrayConstructor(callee->name))
    return inferArrayConstructor(inst, callee->name);
  if (callee->kind == TypeKind::Function && isKernelApiName(callee->name))
    return inferKernelApiCall(inst, callee);
  if (callee->kind == TypeKind::Method &&
      callee->elements[0]->kind == TypeKind::AtomicRef)
    return inferAtomicMethod(inst, callee);
  if (callee->kind == TypeKind::Function && callee->name == "print")
    return inferPrint(inst);
  if (callee->kind == TypeKind::Function &&
      (callee->name == "numpy.array" || callee->name == "numpy.asarray"))
    return inferArrayLiteral(inst, callee->name);
  if (callee->kind == TypeKind::Function &&
      callee->name.compare(0, 13, "numpy.random.") == 0)
    return inferRandomCall(inst, callee->name);
  if (const Type *t = inferArrayCall(inst))
    return t;
  if (!inst.name.empty())
    unsupported(inst, "keyword arguments are supported for kapi functions "
                      "only; pass the arguments by position");
  std::vector<const Type *> args;
  for (size_t i = 1; i < inst.operands.size(); ++i)
    args.push_back(inst.operands[i]->type);
  if (callee->kind == TypeKind::Method &&
      (callee->elements[0]->kind == TypeKind::Item ||
       callee->elements[0]->kind == TypeKind::NdItem ||
       callee->elements[0]->kind == TypeKind::Group))
    return inferWorkItemMethod(inst, callee, args);
  if (callee->kind == TypeKind::Function &&
      callee->name.compare(0, 7, "device:") == 0)
    return inferDeviceCall(inst, callee->name.substr(7), args);
  return inferBuiltinCall(inst, args);
}

/// print(...) takes numbers and string literals, and `sep` and `end` as
/// string literals.
const Type *Inference::inferPrint(Instruction &inst) {
  auto isText = [](const Instruction *v) {
    return v->opcode == Opcode::Const &&
           v->constant.kind == ConstValue::Kind::Str;
  };
  std::vector<std::string> keywords;
  for (size_t at = 0; !inst.name.empty() && at != std::string::npos;) {
    size_t comma = inst.name.find(',', at);
    keywords.push_back(inst.name.substr(at, comma - at));
    at = comma == std::string::npos ? comma : comma + 1;
  }
  size_t positional = inst.operands.size() - 1 - keywords.size();
  const char *where =
      result_.kind == FunctionKind::Host ? "in a jit function" : "in a kernel";
  for (size_t k = 0; k < keywords.size(); ++k) {
    if (keywords[k] != "sep" && keywords[k] != "end")
      unsupported(inst, std::string("print() ") + where +
                            " takes the keywords sep and end only, not '" +
                            keywords[k] + "'");
    if (!isText(inst.operands[1 + positional + k]))
      unsupported(inst, "print()'s " + keywords[k] + " " + where +
                            " must be a string literal");
  }
  for (size_t i = 1; i <= positional; ++i) {
    const Instruction *v = inst.operands[i];
    const Type *t = v->type;
    bool numbers = t->kind == TypeKind::Tuple &&
                   std::all_of(t->elements.begin(), t->elements.end(),
                               [](const Type *e) { return e->isNumber(); });
    if (!isText(v) && !t->isNumber() && !numbers)
      typingError(inst, std::string("print() ") + where +
                            " prints numbers, tuples of numbers and string "
                            "literals, not '" +
                            v->type->str() + "'" +
                            (v->type->kind == TypeKind::Array
                                 ? ": print its elements (a[i]), or return "
                                   "the array and print it in Python"
                                 : ""));
  }
  return types::none();
}

std::vector<const Instruction *>
Inference::positionalArguments(Instruction &inst,
                               const std::vector<std::string> &params,
                               const std::string &function) {
  std::vector<std::string> keywords;
  for (size_t start = 0; !inst.name.empty() && start <= inst.name.size();) {
    size_t comma = inst.name.find(',', start);
    if (comma == std::string::npos)
      comma = inst.name.size();
    keywords.push_back(inst.name.substr(start, comma - start));
    start = comma + 1;
  }
  size_t given = inst.operands.size() - 1;
  size_t positional = given - keywords.size();
  if (positional > params.size())
    typingError(inst, function + "() takes at most " +
                          std::to_string(params.size()) + " arguments, got " +
                          std::to_string(given));
  std::vector<const Instruction *> out(params.size(), nullptr);
  for (size_t i = 0; i < positional; ++i)
    out[i] = inst.operands[i + 1];
  for (size_t k = 0; k < keywords.size(); ++k) {
    auto it = std::find(params.begin(), params.end(), keywords[k]);
    if (it == params.end())
      typingError(inst, function + "() got an unexpected keyword argument '" +
                            keywords[k] + "'");
    size_t index = static_cast<size_t>(it - params.begin());
    if (out[index])
      typingError(inst, function + "() got multiple values for '" +
                            keywords[k] + "'");
    out[index] = inst.operands[positional + k + 1];
  }
  return out;
}

std::optional<bool> Inference::knownCondition(const Instruction *v) const {
  if (v->isa(Opcode::Truth))
    return knownCondition(v->operands[0]);
  if (v->isa(Opcode::UnaryOp) &&
      static_cast<ir::UnaryOperator>(v->index) == ir::UnaryOperator::Not) {
    std::optional<bool> inner = knownCondition(v->operands[0]);
    return inner ? std::optional<bool>(!*inner) : std::nullopt;
  }
  if (v->isa(Opcode::Compare)) {
    auto op = static_cast<ir::CompareOperator>(v->index);
    const Type *a = v->operands[0]->type, *b = v->operands[1]->type;
    if (op == ir::CompareOperator::Is || op == ir::CompareOperator::IsNot) {
      // `x is None`: known from the types when either side is None.
      if (!a || !b ||
          (a->kind != TypeKind::None && b->kind != TypeKind::None))
        return std::nullopt;
      bool same = a->kind == b->kind;
      return op == ir::CompareOperator::Is ? same : !same;
    }
    if (a && b && a->kind == TypeKind::DTypeClass &&
        b->kind == TypeKind::DTypeClass &&
        (op == ir::CompareOperator::Eq || op == ir::CompareOperator::Ne))
      // `a.dtype == b.dtype`: the types say.
      return (a->element == b->element) == (op == ir::CompareOperator::Eq);
    const ConstValue *x = constantOf(v->operands[0]);
    const ConstValue *y = constantOf(v->operands[1]);
    auto integer = [](const ConstValue *c) {
      return c && (c->kind == ConstValue::Kind::Int ||
                   c->kind == ConstValue::Kind::Bool);
    };
    if (!integer(x) || !integer(y))
      return std::nullopt;
    int64_t l = x->kind == ConstValue::Kind::Bool ? x->boolValue : x->intValue;
    int64_t r = y->kind == ConstValue::Kind::Bool ? y->boolValue : y->intValue;
    switch (op) {
    case ir::CompareOperator::Lt: return l < r;
    case ir::CompareOperator::Le: return l <= r;
    case ir::CompareOperator::Eq: return l == r;
    case ir::CompareOperator::Ne: return l != r;
    case ir::CompareOperator::Gt: return l > r;
    case ir::CompareOperator::Ge: return l >= r;
    default: return std::nullopt;
    }
  }
  const ConstValue *c = constantOf(v);
  if (c && c->kind == ConstValue::Kind::Bool)
    return c->boolValue;
  return std::nullopt;
}

std::vector<Block *> Inference::liveSuccessors(const Block &block) const {
  const Instruction *end = block.terminator();
  if (end && end->isa(Opcode::CondBranch))
    if (std::optional<bool> known = knownCondition(end->operands[0]))
      return {end->targets[*known ? 0 : 1]};
  return block.successors();
}

void Inference::pruneDeadBranches(const std::set<const Block *> &live) {
  ir::Function &function = *result_.function;
  bool pruned = false;
  for (auto &block : function.blocks) {
    Instruction *end = block->terminator();
    if (!live.count(block.get()) || !end || !end->isa(Opcode::CondBranch))
      continue;
    std::optional<bool> known = knownCondition(end->operands[0]);
    if (!known)
      continue;
    // The branch becomes a jump; the target left out loses this edge.
    Block *taken = end->targets[*known ? 0 : 1];
    Block *dropped = end->targets[*known ? 1 : 0];
    end->opcode = Opcode::Branch;
    end->operands.clear();
    end->targets = {taken};
    if (dropped != taken)
      removeEdge(*block, *dropped);
    pruned = true;
  }
  if (!pruned)
    return;
  for (auto &block : function.blocks)
    if (!live.count(block.get()))
      for (Block *next : block->successors())
        if (live.count(next))
          removeEdge(*block, *next);
  auto &blocks = function.blocks;
  blocks.erase(std::remove_if(blocks.begin(), blocks.end(),
                              [&](const std::unique_ptr<Block> &b) {
                                return !live.count(b.get());
                              }),
               blocks.end());
}

void Inference::removeEdge(Block &from, Block &to) {
  for (size_t p = to.predecessors.size(); p-- > 0;) {
    if (to.predecessors[p] != &from)
      continue;
    to.predecessors.erase(to.predecessors.begin() + p);
    for (auto &inst : to.instructions)
      if (inst->isa(Opcode::Phi))
        inst->operands.erase(inst->operands.begin() + p);
  }
}

const ConstValue *Inference::constantOf(const Instruction *inst) const {
  return spirjit::constantOf(result_, inst);
}

int64_t Inference::constantInt(const Instruction &at, const Instruction *value,
                               const std::string &what, int64_t fallback) {
  if (!value)
    return fallback;
  const ConstValue *c = constantOf(value);
  if (!c ||
      (c->kind != ConstValue::Kind::Int && c->kind != ConstValue::Kind::Bool))
    typingError(at, what + " must be a compile-time constant integer");
  return c->kind == ConstValue::Kind::Bool ? c->boolValue : c->intValue;
}

namespace {
/// NumPy 2's loop search for a @spirjit.vectorize function, as
/// python/spirjit/_vectorize.py runs it for calls from Python: the first
/// signature every argument casts to safely, where Python numbers are weak
/// only beside typed arguments of their kind or a higher one (NumPy's
/// should_use_min_scalar_weak_literals) and otherwise their default types.
/// For NumPy's numbers a safe cast is one that promotion leaves alone.
const types::Signature *
numpyLoop(const std::vector<types::Signature> &signatures,
          const std::vector<const Type *> &args) {
  auto kindOrder = [](const Type *t) {
    return t->kind == TypeKind::Bool                                ? 0
           : t->kind == TypeKind::Int || t->kind == TypeKind::WeakInt ? 1
                                                                      : 2;
  };
  int typedKind = -1, weakKind = -1;
  for (const Type *t : args) {
    int &most = t->isWeak() ? weakKind : typedKind;
    most = std::max(most, kindOrder(t));
  }
  bool weak = typedKind >= 0 && typedKind >= weakKind;
  auto castsSafely = [&](const Type *from, const Type *to) {
    if (!from->isNumber() || !to->isNumber())
      return false;
    if (from->isWeak() && weak)
      return to->kind == TypeKind::Complex ||
             (to->kind == TypeKind::Float &&
              from->kind != TypeKind::WeakComplex) ||
             (to->kind == TypeKind::Int && from->kind == TypeKind::WeakInt);
    return types::promote(types::materialize(from), to) == to;
  };
  for (const types::Signature &sig : signatures) {
    if (sig.arguments.size() != args.size())
      continue;
    bool fits = true;
    for (size_t i = 0; i < args.size() && fits; ++i)
      fits = castsSafely(args[i], sig.arguments[i]);
    if (fits)
      return &sig;
  }
  return nullptr;
}

/// A copy of untyped pyir, ids included, for one specialisation to type.
std::unique_ptr<ir::Function> cloneUntyped(const ir::Function &function) {
  ir::ValueMap map;
  return ir::cloneFunction(function, map);
}
} // namespace

const Type *Inference::inferDeviceCall(Instruction &inst,
                                       const std::string &key,
                                       std::vector<const Type *> args) {
  const auto *table = specializations_.deviceFunctions;
  auto it = table ? table->find(key) : decltype(table->end()){};
  SPIRJIT_INTERNAL_CHECK(table && it != table->end() && it->second,
                         "device function " + key + " was not described");
  const FunctionDescription &callee = *it->second;
  for (const Type *&t : args) {
    if (!t->isNumber() && t->kind != TypeKind::Array &&
        t->kind != TypeKind::Item && t->kind != TypeKind::NdItem &&
        t->kind != TypeKind::Group)
      typingError(inst, "device function '" + callee.name +
                            "' cannot take a '" + t->str() +
                            "'; pass numbers, arrays or the item");
  }
  // A Python literal argument stays weak inside (NEP 50): scale(x, 3) with
  // x float32 computes in float32, as the same Python code would.
  const Type *declaredReturn = nullptr;
  if (!callee.signatures.empty()) {
    // The first declared signature the arguments convert to wins.
    const types::Signature *chosen = nullptr;
    std::vector<types::Signature> parsed;
    for (const std::string &text : callee.signatures) {
      try {
        parsed.push_back(types::parseSignature(text));
      } catch (const std::invalid_argument &e) {
        typingError(inst, e.what());
      }
    }
    if (callee.elementwise)
      chosen = numpyLoop(parsed, args);
    // An exact match first; otherwise the first the numbers convert to.
    for (int pass = 0; pass < 2 && !chosen && !callee.elementwise; ++pass)
      for (const types::Signature &sig : parsed) {
        if (sig.arguments.size() != args.size())
          continue;
        bool fits = true;
        for (size_t i = 0; i < args.size(); ++i) {
          bool exact = types::signatureTakes(sig.arguments[i],
                                             types::materialize(args[i]));
          bool argComplex = args[i]->kind == TypeKind::Complex ||
                            args[i]->kind == TypeKind::WeakComplex;
          bool converts =
              sig.arguments[i]->isNumber() && args[i]->isNumber() &&
              (!argComplex || sig.arguments[i]->kind == TypeKind::Complex);
          fits &= pass == 0 ? exact : exact || converts;
        }
        if (fits) {
          chosen = &sig;
          break;
        }
      }
    if (!chosen) {
      std::string list;
      for (const std::string &text : callee.signatures)
        list += "\n  " + text;
      typingError(inst, "no signature of device function '" + callee.name +
                            "' accepts " + types::formatArguments(args) +
                            "; it has:" + list);
    }
    // A "[:]" array of the signature is specialised on the argument's
    // own layout (numba's any layout takes C, F and strided arrays).
    for (size_t i = 0; i < args.size(); ++i)
      if (chosen->arguments[i] == args[i] ||
          !types::signatureTakes(chosen->arguments[i], args[i]))
        args[i] = chosen->arguments[i];
    declaredReturn = chosen->returnType;
  }
  std::string specialization =
      key + types::formatArguments(args) +
      (declaredReturn ? "->" + declaredReturn->str() : "");
  if (specializations_.inProgress.count(specialization))
    unsupported(inst, "recursion: '" + callee.name +
                          "' calls itself; rewrite it with a loop");
  auto found = specializations_.byKey.find(specialization);
  if (found == specializations_.byKey.end()) {
    specializations_.inProgress.insert(specialization);
    // The frontend runs once per device function; each specialisation
    // types a copy of its pyir.
    std::unique_ptr<ir::Function> &untyped =
        specializations_.untypedBodies[&callee];
    if (!untyped)
      untyped =
          buildPyIR(callee, buildControlFlowGraph(decodeBytecode(callee)));
    auto typed = std::make_unique<TypedFunction>(
        inferTypes(callee, cloneUntyped(*untyped), args,
                   FunctionKind::DeviceFunction, specializations_));
    specializations_.inProgress.erase(specialization);
    if (declaredReturn && declaredReturn->kind != TypeKind::None) {
      // The signature's return type is the function's: returns convert.
      if (!declaredReturn->isNumber())
        typingError(inst, "device function signatures return numbers");
      typed->returnType = typed->returnTypeAsWritten = declaredReturn;
    }
    found =
        specializations_.byKey.emplace(specialization, std::move(typed)).first;
  }
  result_.calls[&inst] = found->second.get();
  // The callee's group collectives need the kernel's scratch memory.
  result_.usesGroupScratch |= found->second->usesGroupScratch;
  const Type *returned = found->second->returnTypeAsWritten;
  bool numbers = returned->kind == TypeKind::Tuple;
  for (const Type *e : returned->elements)
    numbers &= e->isNumber();
  if (returned->kind != TypeKind::None && !returned->isNumber() && !numbers)
    typingError(inst, "device function '" + callee.name + "' returns a '" +
                          returned->str() +
                          "'; device functions return numbers, tuples of "
                          "numbers, or nothing");
  return returned;
}

} // namespace spirjit::infer

namespace spirjit {

namespace {
std::mutex countersMutex;
std::map<std::string, DeviceFunctionCounters> &counters() {
  static std::map<std::string, DeviceFunctionCounters> all;
  return all;
}
} // namespace

void countDeviceFunction(const std::string &key,
                         int DeviceFunctionCounters::*counter) {
  std::lock_guard<std::mutex> lock(countersMutex);
  ++(counters()[key].*counter);
}

DeviceFunctionCounters deviceFunctionCounters(const std::string &key) {
  std::lock_guard<std::mutex> lock(countersMutex);
  auto it = counters().find(key);
  return it == counters().end() ? DeviceFunctionCounters{} : it->second;
}

const ConstValue *constantOf(const TypedFunction &typed,
                             const ir::Instruction *inst) {
  if (!inst)
    return nullptr;
  if (inst->opcode == ir::Opcode::Const)
    return &inst->constant;
  return typed.constants.find(inst);
}

TypedFunction inferTypes(const FunctionDescription &description,
                         std::unique_ptr<ir::Function> function,
                         const std::vector<const Type *> &argumentTypes,
                         FunctionKind kind, Specializations &specializations) {
  TypedFunction result;
  result.description = &description;
  result.function = std::move(function);
  result.kind = kind;
  result.argumentTypes = argumentTypes;
  infer::Inference(description, result, specializations).run();
  return result;
}

} // namespace spirjit
