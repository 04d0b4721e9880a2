// What a launch's host arrays (NumPy arrays, in place or copied) and
// device arrays occupy: the bytes of each, whether any written one shares
// bytes with another (the kernel's noalias), and which host arrays a device
// that copies them must copy as one (a view and its base, a[1:] and
// a[:-1]), so that a kernel sees one memory as it would in place.
#pragma once

#include "launch/Launcher.h"

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace spirjit::launch {

/// The bytes a host array's elements lie in: from `low` (0 or negative:
/// a negative stride reaches below element [0, ..., 0], where `data`
/// points) for `bytes`; 0 bytes for an empty array.
struct Extent {
  int64_t low = 0;
  size_t bytes = 0;
  bool operator==(const Extent &o) const {
    return low == o.low && bytes == o.bytes;
  }
};

Extent extentOf(const ArgumentValue &a);

/// Whether no array argument the kernel may write shares a byte with
/// another, so that the kernel may take its array parameters as noalias
/// (LLVM's noalias promises nothing of memory nobody modifies: the views
/// a fused Jacobi sweep reads overlap, and its loads may still take the
/// read-only path). SVM and host pointers are compared as addresses; other
/// device buffers by buffer and offset. Empty arrays share nothing.
bool arraysDisjoint(const ArgumentValue *args, size_t n);

/// For each non-empty host array among `args`, the union of the extents
/// of the host arrays it overlaps, directly or through others:
/// unionBegin[i] and unionBytes[i] (left as they are for other
/// arguments). `byStart` is scratch, kept by the caller so that a warm
/// launch allocates nothing.
void hostArrayUnions(const ArgumentValue *args, size_t n,
                     std::vector<std::pair<char *, size_t>> &byStart,
                     char **unionBegin, size_t *unionBytes);

} // namespace spirjit::launch
