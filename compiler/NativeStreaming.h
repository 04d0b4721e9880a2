// Streaming stores on the native CPU device (NativeTarget.h): a second body
// of a kernel's chunk function whose stores bypass the caches, which the
// device runs when a launch's arrays are larger than the host's last-level
// cache.
//
// Why: a plain store first reads its cache line from memory (a "read for
// ownership"), so that a loop writing an array it does not read moves the
// array twice; a vector add of arrays larger than the caches moves 4 bytes
// for every 3 it needs. A non-temporal store writes whole lines without
// reading them, as numba's and C compilers' code does not and as
// glibc's memcpy does for large copies. For arrays that fit the cache it is
// a loss (the next read of the result misses), so the device chooses the
// body by the launch's size (runtime/NativeCPU.cpp), never the compiler.
//
// Contract of addStreamingStores: requires a module that addWorkItemLoops
// made and that was optimised since. Where the host is x86-64 and the chunk
// function of `entryPoint` runs its work-items without barriers
// (nativeIndependentItems) and communicates with nothing by atomics,
// fences or volatile accesses, it adds the internal function
// nativeChunkName(entryPoint) + ".streaming": the chunk's body again, with
// every plain store outside the items' private memory marked !nontemporal
// (LLVM's code generator splits a vector store it cannot prove aligned
// into ones it can make non-temporal) and a store fence (sfence) before
// each return, so that the launch's results are visible to every thread
// once a chunk returns, as a plain store's are. The chunk function then
// starts by calling it, and returning, when sizes[NativeSizes::streaming]
// is not 0. Otherwise, or when the chunk stores no vector outside private
// memory, the module is left as it is but for the placeholders below. The
// module still passes the verifier.
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
/// end of the row's items in the chunk. addStreamingStores replaces every
/// call: by `end` in the chunk, and in the streaming body by the first
/// unit after `unit` at which the body's first vector store is aligned,
/// when that is before `end`: the row then runs as two segments, its
/// first few items, then items whose vector stores are all aligned, where
/// the store's array is aligned to its elements.
llvm::Function *nativeSegmentPlaceholder(llvm::Module &module);

/// Answers whether it added the streaming body. Always replaces the
/// placeholders above (a module with them is not runnable).
bool addStreamingStores(llvm::Module &module, const std::string &entryPoint);

} // namespace spirjit
