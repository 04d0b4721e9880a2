// Inlining jit functions into their jit callers (InlineJit.h states the
// contract).
#include "compiler/InlineJit.h"

#include "frontend/BuildPyIR.h"
#include "frontend/CallArguments.h"
#include "frontend/Bytecode.h"
#include "frontend/CloneFunction.h"
#include "frontend/ControlFlowGraph.h"
#include "frontend/Diagnostics.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

namespace spirjit {

using ir::Block;
using ir::Instruction;
using ir::Opcode;

namespace {

/// Calls deeper than this are recursion; more inlined calls than
/// kMaxInlinedCalls in all, a runaway.
const int kMaxInlined = 100;
const int kMaxInlinedCalls = 5000;


/// The jit function `callee` names, or nullptr.
const FunctionDescription *jitCallee(const Instruction *callee,
                                     const FunctionDescription &description) {
  const GlobalValue *value = valueOf(callee, description);
  if (!value || value->kind != GlobalValue::Kind::DeviceFunction)
    return nullptr;
  auto it = description.deviceFunctions.find(value->name);
  if (it == description.deviceFunctions.end() || !it->second ||
      !it->second->jitFunction)
    return nullptr;
  return it->second.get();
}

/// A call of NumPy's that the jit library writes (FunctionDescription::
/// library): its name there without the arity ("numpy.std", "method:std"),
/// and for an array method the array, which becomes the first argument.
struct LibraryCall {
  std::string name;
  Instruction *self = nullptr;
};

/// Whether `v` is a module, or an attribute of one (np.random).
bool isModulePath(const Instruction *v, const FunctionDescription &d) {
  if (v->isa(Opcode::GetAttr))
    return isModulePath(v->operands[0], d);
  const GlobalValue *value = valueOf(v, d);
  return value && value->kind == GlobalValue::Kind::Module;
}

std::optional<LibraryCall> libraryCall(const Instruction *call,
                                       const FunctionDescription &d) {
  if (d.library.empty())
    return std::nullopt;
  Instruction *callee = call->operands[0];
  if (const GlobalValue *value = valueOf(callee, d)) {
    // `from numpy import std`: the global is NumPy's function itself;
    // "spirjit.mask_index" is an operation a stage made a call
    // (MaskReads.h).
    if (value->kind == GlobalValue::Kind::Object &&
        (value->name.rfind("numpy.", 0) == 0 ||
         value->name == "spirjit.mask_index"))
      return LibraryCall{value->name, nullptr};
    return std::nullopt;
  }
  if (!callee->isa(Opcode::GetAttr))
    return std::nullopt;
  Instruction *object = callee->operands[0];
  if (const GlobalValue *value = valueOf(object, d);
      value && value->kind == GlobalValue::Kind::Module) {
    if (value->name == "numpy" || value->name == "numpy.random")
      return LibraryCall{value->name + "." + callee->name, nullptr};
    return std::nullopt;
  }
  if (object->isa(Opcode::GetAttr) && object->name == "random")
    if (const GlobalValue *value = valueOf(object->operands[0], d);
        value && value->kind == GlobalValue::Kind::Module &&
        value->name == "numpy")
      return LibraryCall{"numpy.random." + callee->name, nullptr};
  if (isModulePath(object, d))
    return std::nullopt; // a module's function, not a method
  return LibraryCall{"method:" + callee->name, object};
}

/// How NumPy spells a library name in a message: "a.std()", "np.std()".
std::string spelled(const std::string &name) {
  if (name.rfind("method:", 0) == 0)
    return "a." + name.substr(7) + "()";
  return "np." + name.substr(6) + "()";
}


/// A library form written for a call with keywords ("numpy.eye#2:<form>",
/// np.eye(n, dtype=t)): one of `given` parameters whose first ones are
/// NumPy's positional parameters (those of the form taking the most
/// arguments by position) and whose others are the keywords; or end().
std::map<std::string, std::string>::const_iterator
keywordForm(const Instruction *call, const LibraryCall &found, size_t given,
            const FunctionDescription &d) {
  auto none = d.library.end();
  auto parameters = [&](const std::string &key)
      -> const std::vector<std::string> * {
    auto callee = d.deviceFunctions.find(key);
    if (callee == d.deviceFunctions.end() || !callee->second)
      return nullptr;
    return &callee->second->varnames;
  };
  const std::vector<std::string> *positional = nullptr;
  size_t most = 0;
  std::string prefix = found.name + "#";
  for (auto it = d.library.lower_bound(prefix);
       it != none && it->first.rfind(prefix, 0) == 0; ++it)
    if (it->first.find(':', prefix.size()) == std::string::npos &&
        !it->second.empty()) {
      size_t count = std::stoul(it->first.substr(prefix.size()));
      if (count > most && parameters(it->second)) {
        most = count;
        positional = parameters(it->second);
      }
    }
  std::vector<std::string> keywords = ir::callKeywords(*call);
  size_t byPosition = given - keywords.size();
  std::string forms = prefix + std::to_string(given) + ":";
  for (auto it = d.library.lower_bound(forms);
       it != none && it->first.rfind(forms, 0) == 0; ++it) {
    const std::vector<std::string> *names = parameters(it->second);
    if (!names || names->size() < given || !positional ||
        positional->size() < byPosition ||
        !std::equal(names->begin(), names->begin() + byPosition,
                    positional->begin()))
      continue;
    if (std::all_of(keywords.begin(), keywords.end(),
                    [&](const std::string &k) {
                      return std::find(names->begin() + byPosition,
                                       names->begin() + given,
                                       k) != names->begin() + given;
                    }))
      return it;
  }
  return none;
}

/// The library function `call` names, with its arguments put in order:
/// the array of a method first, keywords at their parameters' places.
const FunctionDescription *libraryCallee(Instruction *call,
                                         FunctionDescription &d) {
  std::optional<LibraryCall> found = libraryCall(call, d);
  if (!found)
    return nullptr;
  size_t given = call->operands.size() - 1 + (found->self ? 1 : 0);
  std::string key = found->name + "#" + std::to_string(given);
  auto entry = d.library.cend();
  if (!call->name.empty())
    entry = keywordForm(call, *found, given, d);
  if (entry == d.library.cend())
    entry = d.library.find(key);
  if (entry == d.library.cend()) {
    std::string counts;
    for (const auto &[name, key] : d.library)
      if (name.rfind(found->name + "#", 0) == 0 &&
          name.find(':', found->name.size()) == std::string::npos) {
        int n = std::stoi(name.substr(found->name.size() + 1)) -
                (found->self ? 1 : 0);
        counts += (counts.empty() ? "" : " or ") + std::to_string(n);
      }
    if (counts.empty())
      return nullptr; // another name: type inference says what it is
    throw UserError(UserErrorKind::UnsupportedFeature, d.filename, call->line,
                    spelled(found->name) + " takes " + counts +
                        " argument(s) in jit code, not " +
                        std::to_string(given - (found->self ? 1 : 0)));
  }
  if (entry->second.empty())
    return nullptr; // an arity the compiler computes itself: a.sum()
  auto callee = d.deviceFunctions.find(entry->second);
  SPIRJIT_INTERNAL_CHECK(callee != d.deviceFunctions.end() && callee->second,
                         "a jit library function without its description");
  // Where no form was written for the call's keywords, the library picks
  // a function by the number of arguments, so a keyword must name one of
  // that function's parameters; the error names NumPy's function, not
  // the library's.
  const FunctionDescription &picked = *callee->second;
  size_t count = std::min(static_cast<size_t>(picked.argCount),
                          picked.varnames.size());
  std::string parameters;
  for (size_t i = (found->self ? 1 : 0); i < count; ++i)
    parameters += (parameters.empty() ? "" : ", ") + picked.varnames[i];
  for (const std::string &keyword : ir::callKeywords(*call))
    if (std::find(picked.varnames.begin(), picked.varnames.begin() + count,
                  keyword) == picked.varnames.begin() + count)
      throw UserError(UserErrorKind::Typing, d.filename, call->line,
                      spelled(found->name) +
                          " got an unexpected value for argument '" +
                          keyword + "' (with " +
                          std::to_string(given - (found->self ? 1 : 0)) +
                          " arguments jit code takes " + parameters +
                          "; give the arguments before it by position)");
  if (found->self)
    call->operands.insert(call->operands.begin() + 1, found->self);
  return callee->second.get();
}

/// The description of the lambda or nested def that `made` makes.
const FunctionDescription &nestedCodeOf(const Instruction *made,
                                        const FunctionDescription &d) {
  auto it = d.nestedCode.find(made->name);
  SPIRJIT_INTERNAL_CHECK(it != d.nestedCode.end() && it->second,
                         "a nested function without its description");
  return *it->second;
}

/// What a user calls the function `made` makes.
std::string nestedKind(const Instruction *made, const FunctionDescription &d) {
  const std::string &name = nestedCodeOf(made, d).name;
  return name == "<lambda>" ? "lambda" : "nested function '" + name + "'";
}

/// Puts `call`'s callee in its place; `made`, for a lambda or nested def,
/// is the instruction that made it, whose operands are its closure.
void inlineCall(ir::Function &fn, FunctionDescription &description,
                Instruction *call, const FunctionDescription &callee,
                int serial, bool library, const Instruction *made) {
  int line = call->line;
  std::vector<Instruction *> defaults;
  if (made) // its operands: the closure's values, then the defaults
    defaults.assign(made->operands.end() - made->index, made->operands.end());
  else if (!callee.defaults.empty() &&
           call->operands.size() - 1 < static_cast<size_t>(callee.argCount))
    defaults = frozenDefaults(fn, call, callee, description);
  orderArguments(call, callee, description, defaults);
  size_t given = call->operands.size() - 1;
  if (given != static_cast<size_t>(callee.argCount))
    throw UserError(UserErrorKind::Typing, description.filename, line,
                    "'" + callee.name + "' takes " +
                        std::to_string(callee.argCount) +
                        " arguments but was given " + std::to_string(given));
  std::unique_ptr<ir::Function> body = buildPyIR(
      callee, buildControlFlowGraph(decodeBytecode(callee)));

  // Split the caller's block after the call.
  Block *before = call->parent;
  Block *after = fn.addBlock();
  auto &list = before->instructions;
  auto at = std::find_if(list.begin(), list.end(),
                         [&](const auto &i) { return i.get() == call; });
  for (auto it = std::next(at); it != list.end(); ++it) {
    (*it)->parent = after;
    after->instructions.push_back(std::move(*it));
  }
  list.erase(std::next(at), list.end());
  for (Block *successor : after->successors())
    for (Block *&pred : successor->predecessors)
      if (pred == before)
        pred = after;

  // The callee's blocks, its names renamed into the caller's description.
  std::vector<Block *> blocks;
  for (const auto &block : body->blocks)
    blocks.push_back(block.get());
  ir::ValueMap map;
  std::vector<Block *> copies = ir::cloneBlocks(blocks, fn, map);
  std::string prefix = "__jit" + std::to_string(serial) + "_";
  std::vector<Instruction *> parameters, captured;
  std::vector<std::pair<Block *, Instruction *>> returns;
  for (Block *block : copies)
    for (const auto &inst : block->instructions) {
      Instruction *i = inst.get();
      if (library)
        i->line = line; // the library's errors name the user's call
      if (i->isa(Opcode::Arg)) {
        parameters.push_back(i);
      } else if (i->isa(Opcode::Global)) {
        auto g = callee.globals.find(i->name);
        SPIRJIT_INTERNAL_CHECK(g != callee.globals.end(),
                               "an inlined global that does not resolve");
        description.globals[prefix + i->name] = g->second;
        i->name = prefix + i->name;
      } else if (i->isa(Opcode::FreeVar) && made) {
        captured.push_back(i);
      } else if (i->isa(Opcode::MakeFunction)) {
        description.nestedCode[prefix + i->name] =
            callee.nestedCode.at(i->name);
        i->name = prefix + i->name;
      } else if (i->isa(Opcode::FreeVar)) {
        std::string name = prefix + "closure" + std::to_string(i->index);
        description.globals[name] = callee.closure.at(i->index);
        i->opcode = Opcode::Global;
        i->name = name;
        i->index = 0;
      } else if (i->isa(Opcode::Return) && i->name.empty()) {
        returns.push_back({block, i});
      }
    }
  // What the callee's code may call of the library, the caller may now.
  description.library.insert(callee.library.begin(), callee.library.end());
  for (Instruction *p : parameters) {
    fn.replaceAllUsesWith(p, call->operands[p->index + 1]);
    fn.erase(p);
  }
  for (Instruction *v : captured) {
    SPIRJIT_INTERNAL_CHECK(v->index >= 0 && static_cast<size_t>(v->index) <
                                                made->operands.size(),
                           "a nested function reads a variable it did not "
                           "capture");
    fn.replaceAllUsesWith(v, made->operands[v->index]);
    fn.erase(v);
  }
  if (returns.empty())
    throw UserError(UserErrorKind::UnsupportedFeature, description.filename,
                    line,
                    (made ? nestedKind(made, description)
                          : "jit function '" + callee.name + "'") +
                        " never returns");
  for (auto &[block, ret] : returns) {
    Instruction *value = ret->operands[0];
    fn.erase(ret);
    fn.create(block, Opcode::Branch, {}, line)->targets = {after};
    after->predecessors.push_back(block);
    ret = value;
  }
  Instruction *result = returns[0].second;
  if (returns.size() > 1) {
    std::vector<Instruction *> values;
    for (auto &r : returns)
      values.push_back(r.second);
    result = fn.create(after, Opcode::Phi, values, line);
  }
  fn.replaceAllUsesWith(call, result);
  fn.erase(call);
  fn.create(before, Opcode::Branch, {}, line)->targets = {copies[0]};
  copies[0]->predecessors = {before};

  // Keep the blocks in order: the callee's right after the call's block,
  // then the code after the call.
  auto &all = fn.blocks;
  std::vector<std::unique_ptr<Block>> moved;
  auto isNew = [&](const std::unique_ptr<Block> &b) {
    return b.get() == after ||
           std::find(copies.begin(), copies.end(), b.get()) != copies.end();
  };
  for (auto &b : all)
    if (isNew(b))
      moved.push_back(std::move(b));
  all.erase(std::remove(all.begin(), all.end(), nullptr), all.end());
  std::stable_partition(moved.begin(), moved.end(),
                        [&](const auto &b) { return b.get() != after; });
  auto position = std::find_if(all.begin(), all.end(),
                               [&](const auto &b) { return b.get() == before; });
  all.insert(std::next(position), std::make_move_iterator(moved.begin()),
             std::make_move_iterator(moved.end()));
}

bool usedAnywhere(const ir::Function &fn, const Instruction *value) {
  for (const auto &block : fn.blocks)
    for (const auto &inst : block->instructions)
      for (const Instruction *operand : inst->operands)
        if (operand == value)
          return true;
  return false;
}

/// `a @ b` becomes `np.matmul(a, b)`, which the library writes.
void matmulAsCall(ir::Function &fn, FunctionDescription &d,
                  Instruction *product) {
  std::string name = generatedGlobalName("matmul");
  GlobalValue numpyMatmul;
  numpyMatmul.kind = GlobalValue::Kind::Object;
  numpyMatmul.name = "numpy.matmul";
  d.globals[name] = numpyMatmul;
  Block *block = product->parent;
  Instruction *callee = fn.create(block, Opcode::Global, {}, product->line);
  callee->name = name;
  // Created last in the block: moved before the product.
  auto &list = block->instructions;
  std::unique_ptr<Instruction> moved = std::move(list.back());
  list.pop_back();
  auto at = std::find_if(list.begin(), list.end(),
                         [&](const auto &i) { return i.get() == product; });
  list.insert(at, std::move(moved));
  product->opcode = Opcode::Call;
  product->index = 0;
  product->name.clear();
  product->operands.insert(product->operands.begin(), callee);
}

/// Whether `callee` is one of the jit library's functions or their helpers:
/// code of the library's file.
bool isLibraryFunction(const FunctionDescription &callee,
                       const FunctionDescription &d) {
  for (const auto &[name, key] : d.library) {
    auto it = d.deviceFunctions.find(key);
    if (it != d.deviceFunctions.end() && it->second &&
        it->second->filename == callee.filename)
      return true;
  }
  return false;
}

/// The library's `fail("message {got} ... {expected}", got, expected)`,
/// alone in an `if` body, becomes what the array-expression stage's checks
/// are: a `fail` (raising ValueError with the message, after the user's
/// file:line) and a return, so library code can refuse input as NumPy does.
void lowerLibraryFailures(ir::Function &fn, FunctionDescription &d) {
  for (const auto &block : fn.blocks) {
    Instruction *call = nullptr;
    for (const auto &inst : block->instructions) {
      const GlobalValue *value =
          inst->isa(Opcode::Call) ? valueOf(inst->operands[0], d) : nullptr;
      if (value && value->kind == GlobalValue::Kind::Object &&
          value->name == "spirjit._fail")
        call = inst.get();
    }
    if (!call)
      continue;
    Instruction *end = block->terminator();
    SPIRJIT_INTERNAL_CHECK(
        call->operands.size() == 4 && call->operands[1]->isa(Opcode::Const) &&
            end && end->isa(Opcode::Branch) && !usedAnywhere(fn, call),
        "the jit library's fail() is called as an if body's only statement, "
        "with a message and two integers");
    for (Block *next : block->successors())
      for (size_t p = next->predecessors.size(); p-- > 0;)
        if (next->predecessors[p] == block.get()) {
          next->predecessors.erase(next->predecessors.begin() + p);
          for (const auto &inst : next->instructions)
            if (inst->isa(Opcode::Phi))
              inst->operands.erase(inst->operands.begin() + p);
        }
    fn.erase(end);
    Instruction *fail = fn.create(
        block.get(), Opcode::Fail, {call->operands[2], call->operands[3]},
        call->line);
    fail->name = d.filename + ":" + std::to_string(call->line) + ": " +
                 call->operands[1]->constant.text;
    Instruction *none = fn.create(block.get(), Opcode::Const, {}, call->line);
    none->constant = ConstValue::none();
    fn.create(block.get(), Opcode::Return, {none}, call->line)->name = "fail";
    Instruction *callee = call->operands[0];
    fn.erase(call);
    if (!usedAnywhere(fn, callee))
      fn.erase(callee);
  }
}


/// A lambda or nested def that is left after inlining: unused ones go;
/// one used otherwise than called (returned, kept in a tuple, passed to a
/// function that is not inlined, one of several in a variable) would need
/// a function value at run time, which spirjit does not have.
void rejectEscapingFunctions(ir::Function &fn, const FunctionDescription &d) {
  for (bool erased = true; erased;) {
    erased = false;
    std::vector<Instruction *> made;
    for (const auto &block : fn.blocks)
      for (const auto &inst : block->instructions)
        if (inst->isa(Opcode::MakeFunction))
          made.push_back(inst.get());
    for (Instruction *function : made) {
      const Instruction *user = nullptr;
      for (const auto &block : fn.blocks)
        for (const auto &inst : block->instructions)
          if (!user && std::count(inst->operands.begin(),
                                  inst->operands.end(), function))
            user = inst.get();
      if (!user) {
        fn.erase(function);
        erased = true;
        continue;
      }
      std::string what = nestedKind(function, d);
      // list.append(f) stores f as a list literal does.
      bool appended = user->isa(Opcode::Call) &&
                      user->operands[0]->isa(Opcode::GetAttr) &&
                      user->operands[0]->name == "append";
      std::string construct =
          user->isa(Opcode::Return) ? "closure that escapes"
          : user->isa(Opcode::BuildTuple) || user->isa(Opcode::BuildList) ||
                  user->isa(Opcode::SetItem) || appended
              ? "lambda stored in a container"
          : user->isa(Opcode::Phi) ? "variable holding one of several functions"
          : user->isa(Opcode::Call) ? "function passed to a function that is "
                                      "not inlined"
                                    : "function used as a value";
      throw UserError(
          UserErrorKind::UnsupportedFeature, d.filename, user->line,
          "'" + construct + "' is not supported in jit functions: the " +
              what + " of line " + std::to_string(function->line) +
              " is used here as a value; spirjit inlines nested functions "
              "where they are called, so call it (or pass it to a jit "
              "function) in the function that makes it");
    }
  }
}

} // namespace

bool callsJitFunctions(const FunctionDescription &description) {
  for (const auto &[key, callee] : description.deviceFunctions)
    if (callee && callee->jitFunction)
      return true;
  return !description.library.empty() || !description.nestedCode.empty();
}

void inlineJitCalls(ir::Function &fn, FunctionDescription &description) {
  // How deep each call sits: the user's calls 0, an inlined body's one
  // more than the call it replaced.
  std::unordered_map<const Instruction *, int> depthOf;
  auto markNewCalls = [&](int depth) {
    for (const auto &block : fn.blocks)
      for (const auto &inst : block->instructions)
        if (inst->isa(Opcode::Call))
          depthOf.emplace(inst.get(), depth);
  };
  markNewCalls(0);
  for (int serial = 0;; ++serial) {
    if (description.library.count("numpy.matmul#2")) {
      std::vector<Instruction *> products;
      for (const auto &block : fn.blocks)
        for (const auto &inst : block->instructions)
          if (inst->isa(Opcode::BinaryOp) &&
              static_cast<ir::BinaryOperator>(inst->index) ==
                  ir::BinaryOperator::MatMul)
            products.push_back(inst.get());
      for (Instruction *product : products)
        matmulAsCall(fn, description, product);
    }
    Instruction *call = nullptr;
    const FunctionDescription *callee = nullptr;
    const Instruction *made = nullptr;
    bool library = false;
    for (const auto &block : fn.blocks) {
      for (const auto &inst : block->instructions) {
        if (!inst->isa(Opcode::Call))
          continue;
        if (inst->operands[0]->isa(Opcode::MakeFunction)) {
          made = inst->operands[0];
          callee = &nestedCodeOf(made, description);
        } else if ((callee = jitCallee(inst->operands[0], description))) {
          library = isLibraryFunction(*callee, description);
        } else if ((callee = libraryCallee(inst.get(), description))) {
          library = true;
        } else {
          continue;
        }
        call = inst.get();
        break;
      }
      if (call)
        break;
    }
    if (!call)
      break;
    int depth = depthOf.count(call) ? depthOf.at(call) : 0;
    if (depth == kMaxInlined || serial == kMaxInlinedCalls)
      throw UserError(UserErrorKind::UnsupportedFeature, description.filename,
                      call->line,
                      "jit functions call each other more than " +
                          std::to_string(kMaxInlined) +
                          " times deep here; recursion is not supported in "
                          "jit functions");
    Instruction *calleeValue = call->operands[0];
    inlineCall(fn, description, call, *callee, serial, library, made);
    depthOf.erase(call); // gone: its address may be a new call's
    markNewCalls(depth + 1);
    // A library call's `a.std` or `np.std` is read by nothing now, and
    // type inference would find no such attribute.
    if (!usedAnywhere(fn, calleeValue))
      fn.erase(calleeValue);
  }
  lowerLibraryFailures(fn, description);
  rejectEscapingFunctions(fn, description);
  std::string problems = ir::verify(fn);
  SPIRJIT_INTERNAL_CHECK(problems.empty(),
                         "inlining jit functions broke the function: " +
                             problems);
}

} // namespace spirjit
