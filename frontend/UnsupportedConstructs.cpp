// The constructs the frontend rejects (UnsupportedConstructs.h).
#include "frontend/UnsupportedConstructs.h"

#include <algorithm>
#include <set>

namespace spirjit {

UserError unsupportedConstruct(const std::string &filename, int line,
                               const std::string &what, bool planned) {
  if (what == "dict" || what == "dict comprehension")
    return UserError(UserErrorKind::UnsupportedFeature, filename, line,
                     "'" + what +
                         "' is not supported in jit code, kernels and "
                         "device functions (numba's typed dict is not "
                         "implemented); keep values in an array indexed by "
                         "integer keys, or in an array of keys and one of "
                         "values");
  if (what == "attribute assignment") // the object jit code may have
    return UserError(UserErrorKind::UnsupportedFeature, filename, line,
                     "attribute assignment is not supported in jit code and "
                     "kernels: a namedtuple is immutable (in Python and "
                     "numba too), so build a new one with the field "
                     "changed, Point(v, p.y); an array's attributes are "
                     "read-only here");
  return UserError(UserErrorKind::UnsupportedFeature, filename, line,
                   "'" + what +
                       "' is not supported in spirjit kernels and device "
                       "functions" +
                       (planned ? " yet"
                                : "; rewrite it with scalars, arrays, tuples "
                                  "and loops"));
}

const char *unsupportedConstruct(PyOp op) {
  switch (op) {
  case PyOp::LIST_TO_TUPLE:
    return "list";
  case PyOp::BUILD_MAP:
  case PyOp::BUILD_CONST_KEY_MAP:
  case PyOp::MAP_ADD:
  case PyOp::DICT_MERGE:
  case PyOp::DICT_UPDATE:
    return "dict";
  case PyOp::BUILD_SET:
  case PyOp::SET_ADD:
  case PyOp::SET_UPDATE:
    return "set";
  case PyOp::FORMAT_VALUE:
  case PyOp::BUILD_STRING:
    return "str";
  case PyOp::BEFORE_WITH:
  case PyOp::WITH_EXCEPT_START:
    return "with";
  case PyOp::BEFORE_ASYNC_WITH:
  case PyOp::GET_AWAITABLE:
  case PyOp::GET_AITER:
  case PyOp::GET_ANEXT:
  case PyOp::END_ASYNC_FOR:
  case PyOp::ASYNC_GEN_WRAP:
    return "async";
  case PyOp::PUSH_EXC_INFO:
  case PyOp::POP_EXCEPT:
  case PyOp::CHECK_EXC_MATCH:
  case PyOp::CHECK_EG_MATCH:
  case PyOp::RERAISE:
  case PyOp::PREP_RERAISE_STAR:
    return "try";
  case PyOp::YIELD_VALUE:
  case PyOp::RETURN_GENERATOR:
  case PyOp::SEND:
  case PyOp::GET_YIELD_FROM_ITER:
    return "yield";
  case PyOp::LOAD_BUILD_CLASS:
    return "class";
  case PyOp::IMPORT_NAME:
  case PyOp::IMPORT_FROM:
  case PyOp::IMPORT_STAR:
    return "import";
  case PyOp::STORE_ATTR:
  case PyOp::DELETE_ATTR:
    return "attribute assignment";
  case PyOp::DELETE_FAST:
  case PyOp::DELETE_SUBSCR:
  case PyOp::DELETE_NAME:
  case PyOp::DELETE_GLOBAL:
  case PyOp::DELETE_DEREF:
    return "del";
  case PyOp::STORE_GLOBAL:
    return "global";
  case PyOp::LOAD_CLASSDEREF:
    return "nonlocal";
  case PyOp::CALL_FUNCTION_EX:
    return "*args or **kwargs";
  case PyOp::MATCH_CLASS:
  case PyOp::MATCH_KEYS:
  case PyOp::MATCH_MAPPING:
  case PyOp::MATCH_SEQUENCE:
  case PyOp::GET_LEN:
    return "match";
  case PyOp::UNPACK_EX:
    return "starred assignment";
  case PyOp::END_SEND:
  case PyOp::CLEANUP_THROW:
    return "yield";
  case PyOp::LOAD_SUPER_ATTR:
    return "super";
  case PyOp::LOAD_LOCALS:
  case PyOp::LOAD_FROM_DICT_OR_GLOBALS:
  case PyOp::LOAD_FROM_DICT_OR_DEREF:
    return "class";
  case PyOp::CALL_INTRINSIC_2:
    return "generic type parameters";
  case PyOp::STORE_NAME:
  case PyOp::LOAD_NAME:
  case PyOp::SETUP_ANNOTATIONS:
  case PyOp::PRINT_EXPR:
    return "module-level code";
  default:
    return nullptr;
  }
}

const char *nestedCodeConstruct(const std::string &codeName) {
  if (codeName == "<listcomp>")
    return "list comprehension";
  if (codeName == "<dictcomp>")
    return "dict comprehension";
  if (codeName == "<setcomp>")
    return "set comprehension";
  if (codeName == "<genexpr>")
    return "generator expression";
  if (codeName == "<lambda>")
    return "lambda";
  return "nested function";
}

namespace {
// co_flags bits (CPython's Include/cpython/code.h, the same in 3.11 and
// 3.12).
constexpr int CO_GENERATOR = 0x20;
constexpr int CO_COROUTINE = 0x80;
constexpr int CO_ITERABLE_COROUTINE = 0x100;
constexpr int CO_ASYNC_GENERATOR = 0x200;

/// The comprehension whose result a BUILD_* instruction starts.
const char *comprehensionOf(PyOp build) {
  switch (build) {
  case PyOp::BUILD_LIST:
    return "list comprehension";
  case PyOp::BUILD_MAP:
    return "dict comprehension";
  case PyOp::BUILD_SET:
    return "set comprehension";
  default:
    return nullptr;
  }
}
} // namespace

void rejectGeneratorsAndComprehensions(
    const FunctionDescription &function,
    const std::vector<BytecodeInstruction> &code) {
  const std::string &file = function.filename;
  // The def line is where `async` is written.
  if (function.codeFlags &
      (CO_COROUTINE | CO_ITERABLE_COROUTINE | CO_ASYNC_GENERATOR))
    throw unsupportedConstruct(file, function.firstLine, "async def");
  // At the first yield's line; a generator whose yields the compiler
  // dropped as unreachable has only its def line.
  auto yield = std::find_if(code.begin(), code.end(), [](const auto &inst) {
    return inst.op == PyOp::YIELD_VALUE;
  });
  if (yield != code.end() || function.codeFlags & CO_GENERATOR)
    throw unsupportedConstruct(
        file, yield != code.end() ? yield->line : function.firstLine, "yield",
        /*planned=*/true);
  for (size_t k = 0; k < code.size(); ++k) {
    // 3.11: LOAD_CONST <listcomp> code; MAKE_FUNCTION.
    if (code[k].op == PyOp::MAKE_FUNCTION && k > 0 &&
        code[k - 1].op == PyOp::LOAD_CONST && code[k - 1].arg >= 0 &&
        code[k - 1].arg < static_cast<int>(function.consts.size())) {
      const ConstValue &c = function.consts[code[k - 1].arg];
      const char *what = c.kind == ConstValue::Kind::Code
                             ? nestedCodeConstruct(c.text)
                             : nullptr;
      // A list comprehension is a list built in a loop (an inlined nested
      // function); dicts and sets are no jit value.
      if (what && std::string(what).find("comprehension") != std::string::npos &&
          c.text != "<listcomp>")
        throw unsupportedConstruct(file, code[k].line, what);
      // Keyword-only defaults come as a dict, built before: name the
      // function's construct, not the dict.
      if (what && code[k].arg & 0x02)
        throw unsupportedConstruct(
            file, code[k].line,
            std::string("keyword-only arguments of a ") + what);
    }
    // 3.12 (PEP 709) inlines list, dict and set comprehensions: LOAD_FAST
    // AND_CLEAR saves each variable the comprehension binds (only inlined
    // comprehensions use it), SWAPs move the saved values under the
    // iterator, then BUILD_LIST / BUILD_MAP / BUILD_SET 0 starts the
    // result, which names the kind.
    // A list comprehension goes on (BuildPyIR translates it inline).
    if (code[k].op == PyOp::LOAD_FAST_AND_CLEAR) {
      for (size_t j = k + 1; j < code.size(); ++j)
        if (const char *what = comprehensionOf(code[j].op)) {
          if (code[j].op == PyOp::BUILD_LIST)
            break;
          throw unsupportedConstruct(file, code[k].line, what);
        }
    }
  }
}

void rejectCapturesAssignedBeforeCalls(const FunctionDescription &function,
                                       const std::vector<CellsAtCall> &calls) {
  using ir::Instruction;
  const std::vector<std::string> &cellvars = function.cellvars;
  for (const auto &[call, cells] : calls) {
    std::vector<Instruction *> pending(call->operands.begin(),
                                       call->operands.end());
    std::set<Instruction *> seen;
    while (!pending.empty()) {
      Instruction *made = pending.back();
      pending.pop_back();
      if (!made->isa(ir::Opcode::MakeFunction) || !seen.insert(made).second)
        continue;
      auto nested = function.nestedCode.find(made->name);
      if (nested == function.nestedCode.end() || !nested->second)
        continue;
      const std::vector<std::string> &free = nested->second->freevars;
      for (size_t k = 0; k < made->operands.size() && k < free.size(); ++k) {
        pending.push_back(made->operands[k]);
        auto cell = std::find(cellvars.begin(), cellvars.end(), free[k]);
        if (cell == cellvars.end() ||
            cells[cell - cellvars.begin()] == made->operands[k])
          continue;
        const char *what = nested->second->name == "<lambda>"
                               ? "lambda"
                               : "nested function";
        if (cells[cell - cellvars.begin()] == made)
          throw unsupportedConstruct(function.filename, call->line,
                                     std::string("recursive ") + what);
        throw UserError(
            UserErrorKind::UnsupportedFeature, function.filename, call->line,
            "'captured variable assigned after capture' is not supported: "
            "'" + free[k] + "', which the " + what + " of line " +
                std::to_string(made->line) +
                " reads, is assigned again before this call (spirjit "
                "inlines a nested function with the values its variables "
                "have where it is made); assign it before the " + what);
      }
    }
  }
}

} // namespace spirjit
