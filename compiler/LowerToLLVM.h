// Lowering of typed pyir to LLVM IR.
//
// Contract: requires a TypedFunction (every instruction typed, verified);
// produces an LLVM module holding one entry point that follows the kernel
// ABI (KernelABI.h), then every device-function specialisation it calls in
// the order of first call (so the output is the same in every process),
// and passes the LLVM verifier. Target-specific choices (address spaces,
// built-in names) come from `Target`, and only kernel-API constructs need
// its device layer (DeviceTarget): the lowering itself is
// target-independent. compiler/lower/ holds it. Python semantics are kept:
// floor division and modulo round toward negative infinity, integer
// division by zero gives 0, negative indices wrap around once. With
// boundscheck or debug, the checks of DebugRecord.h are added; without
// them, an `assert` compiles to nothing and a `print` to an OpenCL printf
// either way.
#pragma once

#include "compiler/DebugRecord.h"
#include "compiler/Target.h"
#include "compiler/TypeInference.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <memory>
#include <string>

namespace spirjit {

struct LoweringOptions {
  bool fastmath = false;
  /// Check indices; `debug` also integer division by zero and asserts.
  /// Either adds the hidden DebugRecord parameter to every function of the
  /// module, and appends the checks' sites to `sites` (DebugRecord.h).
  bool boundscheck = false;
  bool debug = false;
  std::vector<DebugSite> *sites = nullptr;
};

/// The symbol name of the entry point lowered from a function called `name`.
std::string entryPointName(const std::string &name);

std::unique_ptr<llvm::Module> lowerToLLVM(const TypedFunction &function,
                                          const Target &target,
                                          llvm::LLVMContext &context,
                                          const LoweringOptions &options);

} // namespace spirjit
