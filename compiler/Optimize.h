// LLVM optimisation of a lowered module, for one target.
//
// Contract: requires a verified module; runs LLVM's standard per-module
// pipeline at `level` (0-3, O2 by default), configured as `target` needs
// (Target::keepsLoopExitValues), then the target's legalisation
// (Target::legalize: for SPIR-V, no `freeze`, no llvm.abs, no select of
// structs); keeps the ABI and the entry point; the result still passes the
// verifier. Nothing is configured process-wide beyond the call: modules of
// other targets may be optimised meanwhile on other threads.
#pragma once

#include "compiler/Target.h"

#include <llvm/IR/Module.h>

namespace spirjit {

void optimizeModule(llvm::Module &module, int level, const Target &target);

} // namespace spirjit
