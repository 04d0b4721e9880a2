#include "frontend/FunctionDescription.h"

#include "frontend/PyIR.h"

#include <cstdio>

namespace spirjit {

std::string ConstValue::str() const {
  switch (kind) {
  case Kind::None:
    return "None";
  case Kind::Bool:
    return boolValue ? "True" : "False";
  case Kind::Int:
    return std::to_string(intValue);
  case Kind::Float: {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.17g", floatValue);
    std::string s = buffer;
    if (s.find_first_of(".eEn") == std::string::npos)
      s += ".0";
    return s;
  }
  case Kind::Complex: {
    char buffer[96];
    std::snprintf(buffer, sizeof buffer, "(%.17g%+.17gj)", floatValue,
                  imagValue);
    return buffer;
  }
  case Kind::Str:
    return "'" + text + "'";
  case Kind::Tuple: {
    std::string s = "(";
    for (size_t i = 0; i < items.size(); ++i)
      s += (i ? ", " : "") + items[i].str();
    return s + (items.size() == 1 ? ",)" : ")");
  }
  case Kind::Code:
    return "<code " + text + ">";
  case Kind::Other:
    return "<" + text + ">";
  }
  return "?";
}

int FunctionDescription::lineAt(int offset) const {
  int line = firstLine;
  for (const LineRange &range : lines)
    if (offset >= range.start && offset < range.end && range.line > 0)
      return range.line;
  return line;
}

namespace {
std::string describe(const GlobalValue &g) {
  std::string out = std::to_string(static_cast<int>(g.kind)) + ":" + g.name +
                    ":" + g.value.str() + ":" + g.dtype;
  if (g.kind == GlobalValue::Kind::Array) {
    // A frozen array's values decide the code: its extents and a 64-bit
    // FNV-1a of its bytes.
    for (int64_t e : g.shape)
      out += ":" + std::to_string(e);
    uint64_t h = 14695981039346656037ull;
    for (unsigned char byte : g.data)
      h = (h ^ byte) * 1099511628211ull;
    out += ":" + std::to_string(g.data.size()) + "#" + std::to_string(h);
  }
  return out;
}
} // namespace

std::string FunctionDescription::fingerprint() const {
  std::string out = "py" + std::to_string(pythonMajor) + "." +
                    std::to_string(pythonMinor) + "\n" + qualifiedName +
                    "\nargs " + std::to_string(argCount) + "\ncode ";
  static const char hex[] = "0123456789abcdef";
  for (uint8_t byte : code) {
    out += hex[byte >> 4];
    out += hex[byte & 15];
  }
  out += "\nconsts";
  for (const ConstValue &c : consts)
    out += " " + std::to_string(static_cast<int>(c.kind)) + c.str();
  auto list = [&](const char *what, const std::vector<std::string> &items) {
    out += std::string("\n") + what;
    for (const std::string &item : items)
      out += " " + item;
  };
  list("names", names);
  list("varnames", varnames);
  list("cellvars", cellvars);
  list("freevars", freevars);
  list("signatures", signatures);
  out += "\ntry " + std::to_string(hasExceptionTable);
  // Python defaults are not in the code object: an edited default must
  // not find the old one's kernel on disk.
  for (const ConstValue &c : defaults)
    out += "\ndefault " + std::to_string(static_cast<int>(c.kind)) + c.str();
  for (const auto &[name, value] : globals)
    out += "\nglobal " + name + "=" + describe(value);
  for (const GlobalValue &value : closure)
    out += "\nclosure " + describe(value);
  for (const auto &[name, value] : moduleMembers)
    out += "\nmember " + name + "=" + describe(value);
  for (const auto &[name, key] : library)
    out += "\nlibrary " + name + "=" + key;
  for (const auto &[name, value] : annotations)
    out += "\nannotation " + name + "=" + describe(value);
  for (const auto &[key, callee] : deviceFunctions)
    out += "\ndevice " + key + "{" + (callee ? callee->fingerprint() : "") +
           "}";
  for (const auto &[key, nested] : nestedCode)
    out += "\nnested " + key + "{" + (nested ? nested->fingerprint() : "") +
           "}";
  if (prebuiltPyIR)
    out += "\npyir\n" + ir::print(*prebuiltPyIR);
  if (jitFunction)
    out += "\njit";
  if (elementwise)
    out += "\nelementwise";
  for (int p : nonNegativeParameters)
    out += "\nnon-negative " + std::to_string(p);
  return out;
}

} // namespace spirjit
