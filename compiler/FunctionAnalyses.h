// LLVM's ScalarEvolution for one function outside a pass manager, with the
// analyses it is built on: for passes of ours that run between LLVM's
// pipelines (BoundsCheckFastPath.cpp, NativeStreaming.cpp). Valid while the
// function's blocks and loops stay as they were when it was made.
#pragma once

#include <llvm/ADT/Triple.h>
#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

namespace spirjit {

struct FunctionAnalyses {
  explicit FunctionAnalyses(llvm::Function &function)
      : dominators(function), loops(dominators),
        libraryInfo(llvm::Triple(function.getParent()->getTargetTriple())),
        library(libraryInfo), assumptions(function),
        evolution(function, library, assumptions, dominators, loops) {}
  llvm::DominatorTree dominators;
  llvm::LoopInfo loops;
  llvm::TargetLibraryInfoImpl libraryInfo;
  llvm::TargetLibraryInfo library;
  llvm::AssumptionCache assumptions;
  llvm::ScalarEvolution evolution;
};

} // namespace spirjit
