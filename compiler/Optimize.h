// LLVM optimisation of a lowered module.
//
// Contract: requires a verified module; runs LLVM's standard per-module
// pipeline at `level` (0-3, O2 by default); keeps the ABI and the entry
// point; the result still passes the verifier and holds no `freeze`
// (which the SPIR-V translator of LLVM 15 cannot translate) and no
// llvm.abs (whose OpenCL form is unsigned, see expandIntegerAbs).
#pragma once

#include <llvm/IR/Module.h>

namespace spirjit {

void optimizeModule(llvm::Module &module, int level);

} // namespace spirjit
