// Implicit barriers in a kernel's own loops, on the native CPU device
// (PoCL's implicit loop barriers).
//
// Why: the device runs a work-group's items in a loop (NativeTarget.h), and
// LLVM vectorises only innermost loops. A work-item that runs a loop of its
// own (`for k in range(K): acc += a[i, k] * b[k, j]`) puts the item loop
// outside it, and the k loop, strided in memory, runs scalar. Where every
// item runs that loop the same number of times, a barrier in it changes
// nothing the kernel can see, and the cut at barriers (NativeBarriers.h)
// then runs each iteration as a region: a loop over the items inside the k
// loop, which vectorises across items (acc kept per item in its context).
//
// Contract of addLoopBarriers: requires the kernel with every device
// function inlined into it and `itemQueries` naming the work-item queries
// whose answers differ between the items of a group (as for
// splitAtBarriers); `itemIdNames` the queries whose answer in dimension 0
// (the item loop runs along it) steps by one from an item to the next. Puts a barrier placeholder
// (createNativeBarrier) at the top of the header, after its phis, of each
// innermost loop that:
//  - holds no barrier, call with side effects (printing) or atomic access
//    (their order between items would change);
//  - every item reaches alike and leaves alike: the header and every way
//    out of the loop (branches) depend only on uniform values (uniformValues: the
//    arguments, constants, no per-item load or id), so a barrier there is
//    reached by all items of a group or none, the same number of times;
//  - pays: it reads memory at an address one element apart between
//    neighbouring items of dimension 0 (`b[k, j]`, j the item's id), and
//    reads or writes nothing that varies between items one element apart
//    between iterations (`a[i, k]` with i the item's id: the loop itself
//    vectorises there, or would along a row, and a loop over the items
//    would gather).
// Answers whether it put any. A barrier at the header is one at the top of
// the body and at its latch alike: every iteration is one region; the
// barriers on the way out keep what follows the loop out of that region
// (else its loop over the items would run it masked in every iteration).
#pragma once

#include <llvm/IR/Function.h>

#include <set>
#include <string>

namespace spirjit {

bool addLoopBarriers(llvm::Function &kernel,
                     const std::set<std::string> &itemQueries,
                     const std::set<std::string> &itemIdNames);

} // namespace spirjit
