#include "compiler/ArrayOps.h"

#include <map>

namespace spirjit {

const std::vector<ArrayOp> &arrayOps() {
  static const std::vector<ArrayOp> table = {
#define ARRAY_OP(id, numpy, aliases, arrayApi, arity, kind, loops, result,     \
                 nan, identity, scalar, scalarOp)                              \
  {ArrayOpId::id,          numpy,       aliases,                               \
   arrayApi,               arity,       ArrayOpKind::kind,                     \
   loops,                  ArrayOpResult::result,                              \
   ArrayOpNaN::nan,        identity,    ArrayOpScalar::scalar,                 \
   scalarOp},
#include "compiler/ArrayOps.def"
  };
  return table;
}

const ArrayOp *findUfunc(const std::string &qualifiedName) {
  static const std::map<std::string, const ArrayOp *> byName = [] {
    std::map<std::string, const ArrayOp *> names;
    for (const ArrayOp &op : arrayOps()) {
      if (op.kind != ArrayOpKind::Elementwise)
        continue;
      names["numpy." + std::string(op.numpy)] = &op;
      if (*op.arrayApi)
        names["numpy." + std::string(op.arrayApi)] = &op;
      for (const std::string &alias : aliasesOf(op))
        names["numpy." + alias] = &op;
    }
    return names;
  }();
  auto it = byName.find(qualifiedName);
  return it == byName.end() ? nullptr : it->second;
}

std::vector<std::string> aliasesOf(const ArrayOp &op) {
  std::vector<std::string> out;
  std::string text = op.aliases;
  for (size_t at = 0; !text.empty() && at != std::string::npos;) {
    size_t comma = text.find(',', at);
    out.push_back(text.substr(at, comma - at));
    at = comma == std::string::npos ? comma : comma + 1;
  }
  return out;
}

const char *arrayOpKindName(ArrayOpKind kind) {
  return kind == ArrayOpKind::Elementwise ? "Elementwise" : "Reduction";
}

const char *arrayOpResultName(ArrayOpResult result) {
  static const char *names[] = {"Promote", "Same",       "Float", "Real",
                                "Bool",    "Accumulate", "Mean",  "Index",
                                "Count"};
  return names[static_cast<int>(result)];
}

const char *arrayOpNaNName(ArrayOpNaN nan) {
  static const char *names[] = {"Propagate", "FirstOperand",  "Unordered",
                                "Ignore",
                                "Truthy",    "Tests",         "NotApplicable",
                                "FirstIndex"};
  return names[static_cast<int>(nan)];
}

const char *arrayOpScalarName(ArrayOpScalar scalar) {
  static const char *names[] = {"Binary",   "Compare", "Unary", "Math",
                                "Absolute", "MaxMin",  "Reduce"};
  return names[static_cast<int>(scalar)];
}

} // namespace spirjit
