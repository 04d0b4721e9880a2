// Removing the entry point's parameters that the optimised code never
// reads.
//
// Contract: runs on an optimised, verified module after optimizeModule;
// replaces the kernel `entryPoint` by one with the same name, body and
// attributes but without the parameters that have no use (an extent the
// code never needs, say: LLVM drops the negative-index wrap-around for an
// index it knows is not negative, and with it the extent's only use).
// Returns, for each parameter of the original (KernelABI order), whether
// it is still there. The launcher binds only those: every bound argument
// costs the driver something at every launch.
#pragma once

#include <llvm/IR/Module.h>

#include <string>
#include <vector>

namespace spirjit {

std::vector<bool> dropUnusedParameters(llvm::Module &module,
                                       const std::string &entryPoint);

} // namespace spirjit
