// The debug record: how a kernel compiled with `boundscheck` or `debug`
// tells the launcher which check failed first.
//
// Such a kernel, and every device function it calls, takes one hidden
// parameter more (KernelParameter::Kind::DebugRecord, last): a small global
// buffer the launcher zeroes before the launch and reads after it. A
// failing check (an index outside its extent, an integer division by zero,
// a failed `assert`) claims the record with a compare-and-swap of its site
// number, so the first failure wins and later ones leave it alone, then
// writes the index and the extent. What never changes at run time (the
// file, the line, the array parameter, the assert's message) stays on the
// host, in the compiled kernel's table of sites; the device writes only the
// site's number.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace spirjit {

/// One check the compiler placed, by number (its index in the table + 1).
struct DebugSite {
  enum class Kind : unsigned char { Index, ZeroDivision, Assertion };
  Kind kind = Kind::Index;
  std::string filename;
  int line = 0;
  /// Index: the array (a parameter's name, or a description of the array);
  /// Assertion: the assert's message (empty without one).
  std::string detail;
  /// Index: the axis checked.
  int axis = 0;
};

/// The record's layout, in bytes. The site word is 32 bits so that devices
/// without 64-bit atomics take it. Out-of-bounds accesses to global memory
/// go to the sink instead, so a failing work-item never touches memory
/// outside its arrays.
struct DebugRecordLayout {
  static constexpr unsigned site = 0;    // i32: 0, or the failing site's number
  static constexpr unsigned index = 8;   // i64: the index as written
  static constexpr unsigned extent = 16; // i64: the extent it missed
  static constexpr unsigned sink = 32;   // 32 bytes any element fits in
  static constexpr unsigned size = 64;
};

/// Every index check of a checked kernel is `icmp ult wrapped, extent`
/// (the index after NumPy's wrap-around of negative ones) in a call of
/// this marker, `i1 (i1 inside, i64 index, i64 extent)`, which returns
/// `inside`; `index` is the index before the wrap-around, so an index in
/// [0, extent) is inside. LLVM's optimiser cannot see through the call,
/// so the checks reach the fast-path pass (BoundsCheckFastPath.h) as the
/// lowering made them; that pass removes every marker.
constexpr const char *inBoundsMarker = "spirjit.inbounds";

/// The message of the exception a failure at `site` raises, starting with
/// the user's file:line.
std::string describeDebugFailure(const DebugSite &site, int64_t index,
                                 int64_t extent);

/// The table as text and back (the disk cache keeps it beside the image);
/// parse returns false for text of another shape.
std::string serializeDebugSites(const std::vector<DebugSite> &sites);
bool parseDebugSites(const std::string &text, std::vector<DebugSite> &sites);

} // namespace spirjit
