// How the native CPU device (NativeCPU.h) runs a kernel the compiler made
// for it (compiler/NativeTarget.h): plain declarations both sides read, as
// DeviceImage.h is, so neither links the other.
//
// A HostObject image is a relocatable object file of this host that
// defines, for the kernel's entry point E, the function nativeChunkName(E):
//
//   void chunk(const uint64_t *arguments, int64_t begin, int64_t end,
//              const int64_t *sizes);
//
// It runs the work of units [begin, end) of the launch, work-items as
// loops. `arguments` holds one 8-byte slot per parameter the entry point
// kept (a value's bytes from the slot's first, a buffer's address plus
// offset, work-group local memory's address: the device points each
// chunk's copy of the slots at memory of its own, which the chunk's
// work-groups reuse one after another). `sizes` holds NativeSizes::count
// values: the global extents, then the work-group extents, each in OpenCL's
// order (dimension 0 fastest), 1 past the launch's rank, then whether the
// chunk should store with streaming stores (compiler/NativeStreaming.h:
// 1 when the launch's arrays exceed the host's last-level cache; a chunk
// without a streaming body ignores it). A unit is a
// work-group: for a Range launch a group of one work-item (so the loops over
// units are loops over work-items), for an NdRange launch one of the launch's
// work-groups, numbered with dimension 0 fastest.
#pragma once

#include <cstdint>
#include <string>

namespace spirjit {

/// The chunk function's name for the kernel entry point `entryPoint`.
inline std::string nativeChunkName(const std::string &entryPoint) {
  return entryPoint + ".chunk";
}

/// Where each extent is in the `sizes` a chunk function takes.
struct NativeSizes {
  static constexpr int global = 0, local = 3, streaming = 6, count = 7;
};

using NativeChunkFunction = void (*)(const uint64_t *arguments, int64_t begin,
                                     int64_t end, const int64_t *sizes);

} // namespace spirjit
