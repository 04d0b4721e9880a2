#include "frontend/FunctionDescription.h"

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

} // namespace spirjit
