// A hint for the consumers of our SPIR-V, not a legalisation: kernels with
// a loop whose values rotate (`a, b = b, a + b`) are marked so that Intel's
// CPU OpenCL runtime does not vectorise them across work-items.
//
// Why: that runtime's vectoriser (2026.2, "VPlan" ScalVecAnalysis) recurses
// without end on a loop-header phi whose value from the latch is another
// phi of the same header, and the process dies of a stack overflow while
// building the program (OpenCL C from its own front end too). The pattern
// is what any two-variable swap in a loop becomes in SSA, so it cannot be
// avoided in the code we emit: the runtime's own optimiser would bring it
// back. OpenCL's vec_type_hint with a vector type tells the runtime that
// the kernel is vectorised by hand; it then compiles that kernel, and only
// that one, for one work-item at a time.
#pragma once

#include <llvm/IR/Module.h>

namespace spirjit {

/// Adds `!vec_type_hint <4 x i32>` to every kernel that has, itself or in
/// a function it calls, a block with a phi P taking another phi Q of the same
/// block from the latch, where Q's next value is computed from P (values
/// rotated around a loop, as in a swap). Leaves modules without that
/// pattern as they are: a counter's previous value is not it.
/// Contract: requires a verified module; changes only kernel metadata.
void hintScalarForRotatingLoops(llvm::Module &module);

/// Whether some block of the function itself has the pattern above.
bool hasRotatingLoop(const llvm::Function &function);

} // namespace spirjit
