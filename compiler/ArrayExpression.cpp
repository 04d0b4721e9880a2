// The array expression's own functions (ArrayKernel.h): its reductions'
// names, the text the dumps show and the kernel caches key on, equality
// and hash; and ElementFunction, a function an expression calls.
#include "compiler/ArrayKernel.h"

#include <string>

namespace spirjit {

namespace {

uint64_t textHash(const std::string &t) {
  uint64_t h = 1469598103934665603ull; // FNV-1a
  for (char c : t)
    h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

const char *const kReductionNames[] = {"sum", "prod",   "min",
                                       "max", "argmax", "argmin"};
} // namespace

const char *ArrayExpression::reductionName(Reduction reduction) {
  return kReductionNames[int(reduction)];
}

bool ArrayExpression::reductionNamed(const std::string &name,
                                     Reduction &reduction) {
  for (int r = 0; r < int(std::size(kReductionNames)); ++r)
    if (name == kReductionNames[r]) {
      reduction = Reduction(r);
      return true;
    }
  return false;
}

std::string ArrayExpression::text() const {
  std::string t;
  t.reserve(32 + 24 * values.size()); // (built at every evaluation: the key)
  auto flatText = [&t](const Value::Flat &flat) {
    t += " at";
    for (int s : flat.strides)
      t += s == kStride0   ? " 0"
           : s == kStride1 ? " 1"
                           : " *p" + std::to_string(s);
    if (flat.offset >= 0)
      t += " +p" + std::to_string(flat.offset);
  };
  if (form == Form::Map) {
    t += "map rank " + std::to_string(rank);
    if (flat) {
      t += " flat, out";
      flatText(outFlat);
    }
    t += "\n";
  }
  else
    t += std::string("reduce ") + reductionName(reduction) + " into " +
         accumulator + (output.empty() ? "" : " as " + output) +
         (indexParameter >= 0 ? " indices p" + std::to_string(indexParameter)
                              : "") +
         (chunked ? " chunked" : "") + (blockedArgFold ? " blocked" : "") +
         (singleItemGroups ? " single-item" : "") +
                  "\n";
  for (size_t v = 0; v < values.size(); ++v) {
    const Value &value = values[v];
    t += "  %" + std::to_string(v) + " = ";
    switch (value.kind) {
    case Value::Kind::Load:
      t += "load p" + std::to_string(value.parameter);
      if (flat)
        flatText(value.flat);
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
    case Value::Kind::Function:
      t += "function " + (functions.empty()
                              ? "p" + std::to_string(value.parameter)
                              : functions[size_t(value.parameter)]
                                    ->description->qualifiedName);
      break;
    }
    for (int o : value.operands)
      t += " %" + std::to_string(o);
    t += "\n";
  }
  t += "  result %" + std::to_string(result) + "\n";
  return t;
}

bool ArrayExpression::operator==(const ArrayExpression &o) const {
  if (values.size() != o.values.size() || result != o.result ||
      parameterCount != o.parameterCount || form != o.form || rank != o.rank ||
      reduction != o.reduction || accumulator != o.accumulator ||
      floatingAccumulator != o.floatingAccumulator || output != o.output ||
      indexParameter != o.indexParameter || flat != o.flat ||
      chunked != o.chunked || blockedArgFold != o.blockedArgFold ||
      singleItemGroups != o.singleItemGroups || !(outFlat == o.outFlat) ||
      functions.size() != o.functions.size())
    return false;
  for (size_t f = 0; f < functions.size(); ++f)
    if (functions[f] != o.functions[f] &&
        (functions[f]->hash != o.functions[f]->hash ||
         functions[f]->fingerprint != o.functions[f]->fingerprint))
      return false;
  for (size_t v = 0; v < values.size(); ++v) {
    const Value &a = values[v], &b = o.values[v];
    if (a.kind != b.kind || a.parameter != b.parameter ||
        a.function != b.function || a.operands != b.operands ||
        a.dtype != b.dtype || a.strides != b.strides || !(a.flat == b.flat))
      return false;
  }
  return true;
}

uint64_t ArrayExpression::hash() const {
  uint64_t h = 1469598103934665603ull; // FNV-1a over the fields == reads
  auto mix = [&h](uint64_t x) {
    h ^= x;
    h *= 1099511628211ull;
  };
  auto mixText = [&mix](const std::string &t) {
    for (char c : t)
      mix(static_cast<unsigned char>(c));
    mix(0xff);
  };
  mix(uint64_t(form));
  mix(uint64_t(rank));
  mix(uint64_t(reduction));
  mix(uint64_t(result));
  mix(uint64_t(parameterCount));
  mix(uint64_t(indexParameter + 1));
  mix(floatingAccumulator);
  mixText(accumulator);
  mixText(output);
  auto mixFlat = [&mix](const Value::Flat &f) {
    for (int s : f.strides)
      mix(uint64_t(int64_t(s)));
    mix(uint64_t(int64_t(f.offset)));
  };
  mix(flat);
  mix(chunked);
  mix(blockedArgFold);
  mix(singleItemGroups);
  mixFlat(outFlat);
  for (const auto &function : functions)
    mix(function->hash);
  for (const Value &v : values) {
    mix(uint64_t(v.kind));
    mix(uint64_t(v.parameter));
    mixText(v.function);
    mixText(v.dtype);
    for (int o : v.operands)
      mix(uint64_t(o));
    for (int64_t s : v.strides)
      mix(uint64_t(s));
    mixFlat(v.flat);
    mix(0xfe);
  }
  return h;
}

std::shared_ptr<const ElementFunction>
ElementFunction::make(FunctionDescription description, std::string name) {
  auto function = std::make_shared<ElementFunction>();
  function->callees = std::move(description.deviceFunctions);
  description.deviceFunctions.clear();
  function->description =
      std::make_shared<FunctionDescription>(std::move(description));
  function->name = std::move(name);
  function->fingerprint = function->description->fingerprint();
  for (const auto &[key, callee] : function->callees)
    function->fingerprint +=
        "\ndevice " + key + "{" + (callee ? callee->fingerprint() : "") + "}";
  function->hash = textHash(function->fingerprint);
  return function;
}

} // namespace spirjit
