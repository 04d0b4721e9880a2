// Loops that fold a value, on the native CPU device: items that run such
// a loop of their own run four at a time, jammed (docs/native.md).
//
// Why: a loop that carries a floating-point value from one iteration to
// the next (a prange reduction's chunk, a CPU-style sum's
// `s += a[base + k]`) is one chain of adds that LLVM's vectoriser cannot
// split. Four items' chains side by side read four streams of memory,
// which a thread serves faster than one.
//
// Contract of addFoldLoopPasses: adds to `passes`, which run just before
// LLVM's loop vectoriser (Target::addPassesBeforeVectorizing), three
// function passes, in this order:
//   - NoRuntimeUnrollOfFolds marks each innermost loop that carries a
//     floating-point value `llvm.loop.unroll.runtime.disable` (loops of a
//     constant trip count still unroll in full);
//   - KeepJamsOnFolds drops the jam (nativeJamCountName) that
//     addWorkItemLoops asks of an item loop, except where the item loop
//     holds exactly one loop and that loop carries a floating-point value;
//   - LLVM's unroll-and-jam, which jams the item loops still asking.
// They change loop metadata and, through the jam, loops; each item's own
// loop keeps its order, so results do not change by a bit.
#pragma once

#include <llvm/IR/PassManager.h>
#include <llvm/Passes/OptimizationLevel.h>

namespace spirjit {

/// The loop metadata addWorkItemLoops puts on an item loop to ask for the
/// jam: llvm.loop.unroll_and_jam.count.
extern const char *const nativeJamCountName;

/// The passes above.
void addFoldLoopPasses(llvm::FunctionPassManager &passes,
                       llvm::OptimizationLevel level);

} // namespace spirjit
