#include "compiler/DebugRecord.h"

#include <sstream>

namespace spirjit {

std::string describeDebugFailure(const DebugSite &site, int64_t index,
                                 int64_t extent) {
  std::string where = site.filename + ":" + std::to_string(site.line) + ": ";
  switch (site.kind) {
  case DebugSite::Kind::Index:
    // NumPy's words, and which array.
    return where + "index " + std::to_string(index) +
           " is out of bounds for axis " + std::to_string(site.axis) +
           " with size " + std::to_string(extent) + " (" + site.detail + ")";
  case DebugSite::Kind::ZeroDivision:
    return where + "integer division or modulo by zero";
  case DebugSite::Kind::Assertion:
    return where + (site.detail.empty() ? "assertion failed" : site.detail);
  }
  return where;
}

// One site per line of numbers, then its two strings by their lengths, so
// any text survives.
std::string serializeDebugSites(const std::vector<DebugSite> &sites) {
  std::string out;
  for (const DebugSite &site : sites) {
    out += std::to_string(static_cast<int>(site.kind)) + " " +
           std::to_string(site.line) + " " + std::to_string(site.axis) + " " +
           std::to_string(site.filename.size()) + " " +
           std::to_string(site.detail.size()) + "\n" + site.filename +
           site.detail;
  }
  return out;
}

bool parseDebugSites(const std::string &text, std::vector<DebugSite> &sites) {
  sites.clear();
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos)
      return false;
    std::istringstream numbers(text.substr(at, end - at));
    int kind, line, axis;
    size_t nameSize, detailSize;
    if (!(numbers >> kind >> line >> axis >> nameSize >> detailSize) ||
        kind < 0 || kind > static_cast<int>(DebugSite::Kind::Assertion) ||
        nameSize > text.size() || detailSize > text.size() ||
        end + 1 + nameSize + detailSize > text.size())
      return false;
    DebugSite site;
    site.kind = static_cast<DebugSite::Kind>(kind);
    site.line = line;
    site.axis = axis;
    site.filename = text.substr(end + 1, nameSize);
    site.detail = text.substr(end + 1 + nameSize, detailSize);
    sites.push_back(std::move(site));
    at = end + 1 + nameSize + detailSize;
  }
  return true;
}

} // namespace spirjit
