// Hints for the consumers of our SPIR-V, not legalisations: kernels that
// Intel's CPU OpenCL runtime must not vectorise across work-items are
// marked, for two reasons.
//
// 1. Rotating loops (`a, b = b, a + b`).
// Why: that runtime's vectoriser (2026.2, "VPlan" ScalVecAnalysis) recurses
// without end on a loop-header phi whose value from the latch is another
// phi of the same header, and the process dies of a stack overflow while
// building the program (OpenCL C from its own front end too). The pattern
// is what any two-variable swap in a loop becomes in SSA, so it cannot be
// avoided in the code we emit: the runtime's own optimiser would bring it
// back. OpenCL's vec_type_hint with a vector type tells the runtime that
// the kernel is vectorised by hand; it then compiles that kernel, and only
// that one, for one work-item at a time.
//
// 2. Work-items that each walk a row. The runtime puts neighbouring
// work-items (dimension 0) in the lanes of a vector; when every access
// that a loop in the kernel walks contiguously is a row apart from lane to
// lane (`for i in prange(n): for j in range(m): v[i, j] = ...`, numba's
// and numba-dpex's usual form), each vector load becomes a gather of one
// element per row: a Jacobi sweep on 4096^2 float32 took 77 ms against
// 6 ms for the same loops as a 2-D range. Compiled one work-item at a
// time, the runtime vectorises the inner loop instead (5.8 ms).
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

/// Adds the same hint to every kernel where some load or store in a loop
/// steps one element per iteration of its innermost loop and more than one
/// element per work-item of dimension 0 (get_global_id(0) or
/// get_local_id(0) plus one), and no access in a loop steps exactly one
/// element per such work-item (those vectorise across work-items as they
/// are; accesses outside loops, such as a reduction's partial, run once). Steps are ScalarEvolution's; an access it cannot describe
/// counts as neither.
/// Contract: requires a verified module; changes only kernel metadata.
void hintScalarForStridedLanes(llvm::Module &module);

} // namespace spirjit
