// The constructs the frontend rejects (UnsupportedConstructs.h).
#include "frontend/UnsupportedConstructs.h"

namespace spirjit {

UserError unsupportedConstruct(const std::string &filename, int line,
                               const std::string &what, bool planned) {
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
  case PyOp::BUILD_LIST:
  case PyOp::LIST_APPEND:
  case PyOp::LIST_EXTEND:
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
  case PyOp::STORE_DEREF:
  case PyOp::LOAD_CLOSURE:
  case PyOp::LOAD_CLASSDEREF:
    return "nonlocal";
  case PyOp::MAKE_FUNCTION:
    return "nested function";
  case PyOp::CALL_FUNCTION_EX:
    return "*args or **kwargs";
  case PyOp::CONTAINS_OP:
    return "in";
  case PyOp::MATCH_CLASS:
  case PyOp::MATCH_KEYS:
  case PyOp::MATCH_MAPPING:
  case PyOp::MATCH_SEQUENCE:
  case PyOp::GET_LEN:
    return "match";
  case PyOp::UNPACK_EX:
    return "starred assignment";
  case PyOp::LOAD_FAST_AND_CLEAR:
    return "comprehension";
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

} // namespace spirjit
