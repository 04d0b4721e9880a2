// Rewrites of optimised LLVM IR that the SPIR-V translator of LLVM 15
// cannot take. The SPIR target runs all of them as its legalisation hook
// (Target::legalize); each is also callable on its own, by name, so a test
// driver can run one at a time.
//
// Contract of each: requires a verified module; keeps its behaviour; the
// result still passes the verifier.
#pragma once

#include <llvm/IR/Module.h>

namespace spirjit {

/// Replaces each `freeze` by its operand: the translator has no freeze, and
/// our lowering never produces poison that reaches one.
void removeFreezes(llvm::Module &module);

/// Replaces llvm.abs on integers by a compare and a select: OpenCL's abs()
/// is unsigned, NumPy's abs(INT_MIN) is INT_MIN.
void expandIntegerAbs(llvm::Module &module);

/// Replaces llvm.vector.reduce.* (integer folds, and fadd/fmul) and
/// bitcasts of bool vectors to integers, which the loop vectoriser and
/// instcombine make, by their lanes extracted and folded: the translator
/// aborts on the first, and SPIR-V has no bitcast of bools.
void expandVectorReductions(llvm::Module &module);

/// Rewrites every integer of a width SPIR-V lacks (all but 1, 8, 16, 32
/// and 64 bits), which LLVM's optimiser makes when it narrows values, to
/// the next wider SPIR-V width, keeping the arithmetic of the narrow one.
/// Requires: no freeze of such a width, no function parameter or return
/// value of one (internal error otherwise).
void promoteIllegalIntegers(llvm::Module &module);

/// Splits a phi of a struct (a complex number) into one phi per field:
/// Intel's CPU runtime crashes on some struct phis (see the definition).
void splitAggregatePhis(llvm::Module &module);

/// Splits a select between structs (complex numbers) into one select per
/// field: SPIR-V 1.0's OpSelect takes scalars and vectors only.
void splitAggregateSelects(llvm::Module &module);

/// Gives each select between vectors on one bool a vector of that bool,
/// one lane per lane: SPIR-V before 1.4 takes no scalar condition there
/// (the loop vectoriser makes them in min and max reductions of narrow
/// integers, which spirv-val rejected).
void splatSelectConditions(llvm::Module &module);

/// Sends the second and later edges from one block to the same successor
/// with phis (a switch's cases) through a new block: SPIR-V's OpPhi names
/// each predecessor block once.
void separateRepeatedEdges(llvm::Module &module);

} // namespace spirjit
