// Work-group barriers on the native CPU device (NativeTarget.h): a kernel
// cut at its barriers into regions, each run by every work-item of the
// group before the next (continuation-based synchronisation, as PoCL's
// work-item loops and AdaptiveCpp's CBS do it).
//
// Why: the device runs a group's work-items one after another in a loop,
// so a barrier cannot wait for the others; instead the loop runs each item
// up to the barrier, then every item from it. Group collectives need no
// more: the lowering builds them from barriers and local scratch
// (LowerKernelAPI.cpp), and local memory is the launch's, per thread of
// the device (runtime/NativeCPU.cpp).
//
// Contract of splitAtBarriers: requires the kernel with every device
// function inlined into it, its barriers calls of the placeholder
// nativeBarrierName (convergent: LLVM neither duplicates nor sinks them),
// every barrier reached by all items of a group or none (checkBarriers
// refuses the divergent ones the compiler can see; others are undefined,
// as on every device). Without barriers it changes nothing and answers 1
// region. Else, with K barriers:
//  - the function runs one region of one work-item: region 0 from the
//    kernel's entry, region k (1..K) from after barrier k, to the next
//    barrier k' or a return, and stores k' (or -1 after a return) as an
//    i32 at the start of the second half of the group's uniform area
//    (below), the same in every item;
//  - placeholder calls without arguments stand for what the caller
//    replaces once the function is inlined where it runs:
//    nativeRegionName (i32) the region to run, nativeContextName (i8*)
//    the group's contexts (64-byte aligned, contextBytes per item of the
//    group, their contents kept from one region to the next),
//    nativeItemName (i64) the item's linear local id and
//    nativeItemCountName (i64) the group's items, nativeUniformName (i8*)
//    the group's uniform area (below);
//  - a value live across a barrier (an SSA value defined in one region
//    and used in another, a phi joining regions) is computed again where
//    it is used when it is pure arithmetic on work-item queries and the
//    arguments (speculatable, no memory), else kept: stored where it is
//    live at a barrier, loaded at the start of the region after it. A kept
//    value that every item of the group computes alike (uniform: LLVM's
//    divergence analysis, the calls of `itemQueries` answering each item
//    its own value) has one slot per group, in the group's uniform area
//    (nativeUniformName, i8*, 64-byte aligned, 2 * uniformBytes long):
//    read from its first half, written to its second, which the caller
//    copies to the first after every item has run a region. The other kept
//    values and all of the kernel's allocas (private memory, which every
//    item has its own of) live in the contexts, so that a region resumes
//    where the item left it. Each has a slot, an array over the group's
//    items (PoCL's context arrays): an item's copies of one value are
//    contiguous, so that a loop over the items vectorises.
// The module passes the verifier after it.
#pragma once

#include "compiler/NativeItemBounds.h"

#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace spirjit {

/// The placeholder functions the contract names.
extern const char *const nativeBarrierName;
extern const char *const nativeRegionName;
extern const char *const nativeContextName;
extern const char *const nativeItemName;
extern const char *const nativeItemCountName;
extern const char *const nativeUniformName;

struct NativeRegions {
  int count = 1;             // regions: barriers + 1
  uint64_t contextBytes = 0; // per work-item; 0 without barriers
  uint64_t uniformBytes = 0; // per group, each half; a multiple of 64
  // [k]: the items of dimension 0 region k needs to run
  // (NativeItemBounds.h); none without barriers.
  std::vector<RegionItems> items;
};

/// A barrier placeholder call at `b`'s insertion point (convergent, an
/// unknown callee: LLVM moves no memory access across it).
llvm::CallInst *createNativeBarrier(llvm::IRBuilder<> &b);

/// The kernel's values that every work-item of a group computes alike
/// (LLVM's divergence analysis, seeded with what differs between items:
/// the calls of `itemQueries`, private memory, and, conservatively, every
/// value read from memory or a call that touches it), or none where the
/// control flow is irreducible (the analysis needs loops it can name).
/// A value counts only if each of its uses sees it uniform too: a value
/// computed in a loop that items leave at different iterations is not.
std::set<const llvm::Value *>
uniformValues(llvm::Function &kernel,
              const std::set<std::string> &itemQueries);

NativeRegions splitAtBarriers(llvm::Function &kernel,
                              const std::set<std::string> &itemQueries,
                              const std::string &localIdName,
                              const std::set<std::string> &groupQueries);

} // namespace spirjit
