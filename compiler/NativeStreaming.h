// Streaming stores on the native CPU device (NativeTarget.h): a second body
// of a kernel's chunk function whose stores bypass the caches, which the
// device runs when a launch's arrays are larger than the host's last-level
// cache.
//
// Why: a plain store first reads its cache line from memory (a "read for
// ownership"), so that a loop writing an array it does not read moves the
// array twice; a vector add of arrays larger than the caches moves 4 bytes
// for every 3 it needs. A non-temporal store writes whole lines without
// reading them (glibc's memcpy uses them for large copies; numba's loops
// and C compilers' by default do not). For arrays that fit the cache it is
// a loss (the next read of the result misses), so the device chooses the
// body by the launch's size (runtime/NativeCPU.cpp), never the compiler.
//
// Two steps, on either side of the optimisation that vectorises the
// chunk (Pipeline.cpp):
//
// Contract of addStreamingCopy: requires a module addWorkItemLoops just
// made. Where the host is x86-64 and the chunk function of `entryPoint`
// runs its work-items without barriers (nativeIndependentItems) and
// communicates with nothing by atomics, fences or volatile accesses, adds
// an external copy of it, nativeChunkName(entryPoint) + ".streaming",
// which keeps the segment placeholders (below). The chunk's own
// placeholders answer the row's end, so that the chunk optimises exactly
// as it would without a copy.
//
// Contract of addStreamingStores: requires that module, optimised since.
// Where the copy has plain vector stores of 16, 32 or 64 bytes outside the
// items' private memory, answers its placeholders, makes each such store
// non-temporal where its address is aligned at run time (LLVM's code
// generator splits one it cannot prove aligned into 8-byte pieces), puts a
// store fence (sfence) before each return, so that the launch's results
// are visible to every thread once a chunk returns as a plain store's are,
// makes the copy internal, and makes the chunk start by calling it, and
// returning, when sizes[NativeSizes::streaming] is not 0. Otherwise it
// removes the copy. No placeholder is left; the module still passes the
// verifier.
#pragma once

#include <llvm/IR/Module.h>

#include <string>

namespace spirjit {

/// The attribute addWorkItemLoops gives a chunk function whose work-items
/// run without barriers between them: nothing one item does is seen by
/// another during the launch.
inline constexpr const char *nativeIndependentItems =
    "spirjit-independent-items";

/// The placeholder addWorkItemLoops calls where a Range's loop over units
/// ends a row's segment: i64 (i64 unit, i64 end), answering `end`, the
/// end of the row's items in the chunk. Every call is replaced: by `end`
/// in the chunk (addStreamingCopy), and in the streaming copy
/// (addStreamingStores) by the first unit after `unit` at which the copy's
/// first vector store is aligned, when that is before `end`: the row then
/// runs as two segments, its first few items, then items whose vector
/// stores are all aligned, where the store's array is aligned to its
/// elements.
llvm::Function *nativeSegmentPlaceholder(llvm::Module &module);

/// The first step (above).
void addStreamingCopy(llvm::Module &module, const std::string &entryPoint);

/// Answers whether the chunk has a streaming body.
bool addStreamingStores(llvm::Module &module, const std::string &entryPoint);

} // namespace spirjit
