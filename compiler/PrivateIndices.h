// Private arrays indexed at run time are addressed as integers in the
// SPIR-V we emit, because Intel's CPU OpenCL runtime miscompiles them.
//
// Why: that runtime (2026.2) drops the loop-carried dependence of a loop
// that reads and writes a private array at an index masked to its size,
// `h[j & 3] += x` (what `h[j % 4] += x` becomes), as a histogram or a
// per-work-item array of partial sums does: every element ends with the
// value of the last iteration that wrote it alone ([4, 5, 6, 7] where
// [4, 6, 8, 10] is right). Its own OpenCL C compiler does the same to the
// same kernel written in C, with or without its vectoriser, so no choice
// of ours above LLVM IR avoids it; an address computed as an integer does
// (checked in OpenCL C and through spirjit). Only accesses whose index is
// not a constant change, and those already live in memory rather than in
// registers, so the cost is small; PoCL, which reads the same module as
// SPIR bitcode, computes the same addresses either way.
//
// Contract: requires a verified module of the SPIR target after LLVM's
// optimisation (it runs last: LLVM would fold the integers back into a
// getelementptr). Replaces each getelementptr into a private alloca with
// an index that is not a constant by the base address as an integer plus
// the byte offset, converted back to the pointer. Behaviour is unchanged;
// the result verifies.
#pragma once

#include <llvm/IR/Module.h>

namespace spirjit {

void addressPrivateArraysByInteger(llvm::Module &module);

} // namespace spirjit
