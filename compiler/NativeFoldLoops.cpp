// The native device's fold loops (NativeFoldLoops.h states the contract
// and why).
#include "compiler/NativeFoldLoops.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Transforms/Scalar/LoopPassManager.h>
#include <llvm/Transforms/Scalar/LoopUnrollAndJamPass.h>
#include <llvm/Transforms/Utils/LoopUtils.h>

namespace spirjit {

const char *const nativeJamCountName = "llvm.loop.unroll_and_jam.count";

namespace {

/// Keeps the jam that addWorkItemLoops asks of an item loop only where the
/// loop inside it carries a floating-point value from one iteration to the
/// next (`s += a[base + k]`): a chain the vectoriser cannot split, which
/// runs four items' chains side by side once jammed, reading four streams.
/// An item loop around a loop that vectorises (a row of a Jacobi sweep per
/// item) runs faster alone: jammed, four rows a power of two apart in
/// memory were read at once, and the sweep of 4096^2 float32 went from 3.1
/// to 3.5-4.9 ms.
struct KeepJamsOnFolds : llvm::PassInfoMixin<KeepJamsOnFolds> {
  llvm::PreservedAnalyses run(llvm::Function &function,
                              llvm::FunctionAnalysisManager &analyses) {
    llvm::LoopInfo &loops = analyses.getResult<llvm::LoopAnalysis>(function);
    for (llvm::Loop *loop : loops.getLoopsInPreorder()) {
      if (!llvm::findOptionMDForLoop(loop, nativeJamCountName))
        continue;
      if (loop->getSubLoops().size() == 1 &&
          carriesFloatingPoint(*loop->getSubLoops()[0]))
        continue;
      loop->setLoopID(llvm::makePostTransformationMetadata(
          function.getContext(), loop->getLoopID(), {nativeJamCountName}, {}));
    }
    return llvm::PreservedAnalyses::all();
  }

  static bool carriesFloatingPoint(const llvm::Loop &loop) {
    for (const llvm::PHINode &phi : loop.getHeader()->phis())
      if (phi.getType()->getScalarType()->isFloatingPointTy())
        return true;
    return false;
  }
};

/// Keeps LLVM from unrolling, by a count it picks at run time, an
/// innermost loop that carries a floating-point value (a kernel's own
/// `s += a[base + k]`): its adds stay one chain, so unrolling gains it
/// nothing, and it costs the jam. Unrolled before addWorkItemLoops (the
/// first optimisation), the loop was two, the unrolled one and its
/// remainder, and KeepJamsOnFolds (above) wants one loop inside the item loop: a
/// CPU-style sum of 2^24 float64 on 2 cores ran its items one at a time,
/// 4.2 ms, where jammed it takes 1.9-2.8 (numba parallel=True: 4.2).
/// Loops of a constant trip count still unroll in full.
struct NoRuntimeUnrollOfFolds : llvm::PassInfoMixin<NoRuntimeUnrollOfFolds> {
  llvm::PreservedAnalyses run(llvm::Function &function,
                              llvm::FunctionAnalysisManager &analyses) {
    llvm::LoopInfo &loops = analyses.getResult<llvm::LoopAnalysis>(function);
    for (llvm::Loop *loop : loops.getLoopsInPreorder())
      if (loop->isInnermost() &&
          KeepJamsOnFolds::carriesFloatingPoint(*loop) &&
          !llvm::findOptionMDForLoop(loop, runtimeUnrollOffName))
        llvm::addStringMetadataToLoop(loop, runtimeUnrollOffName);
    return llvm::PreservedAnalyses::all();
  }
  static constexpr const char *runtimeUnrollOffName =
      "llvm.loop.unroll.runtime.disable";
};

} // namespace

void addFoldLoopPasses(llvm::FunctionPassManager &passes,
                       llvm::OptimizationLevel level) {
  passes.addPass(NoRuntimeUnrollOfFolds());
  passes.addPass(KeepJamsOnFolds());
  passes.addPass(llvm::createFunctionToLoopPassAdaptor(
      llvm::LoopUnrollAndJamPass(level.getSpeedupLevel())));
}

} // namespace spirjit
