// Rewrites of optimised LLVM IR that the SPIR-V translator of LLVM 15
// cannot take. The SPIR target runs all three as its legalisation hook
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

/// Splits a select between structs (complex numbers) into one select per
/// field: SPIR-V 1.0's OpSelect takes scalars and vectors only.
void splitAggregateSelects(llvm::Module &module);

} // namespace spirjit
