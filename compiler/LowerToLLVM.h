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

struct Parfor;

struct LoweringOptions {
  bool fastmath = false;
  /// CompileOptions::reassociateFolds.
  bool reassociateFolds = false;
  /// Check indices; `debug` also integer division by zero and asserts.
  /// Either adds the hidden DebugRecord parameter to every function of the
  /// module, and appends the checks' sites to `sites` (DebugRecord.h).
  bool boundscheck = false;
  bool debug = false;
  /// Host code compiled with debug=True: a failed assert raises
  /// AssertionError at once (HostABI.h's spirjit_host_assert). Host code
  /// has no debug record; its indices are not checked.
  bool hostAsserts = false;
  /// Host code checks its indices (an IndexError at once: HostABI.h's
  /// spirjit_host_raise) and, with hostAsserts, integer division by zero
  /// (ZeroDivisionError): jit(boundscheck=True) or debug=True.
  bool hostIndexChecks = false;
  std::vector<DebugSite> *sites = nullptr;
  /// A host function's launches (the parfor stage's; Parfor.h).
  const std::vector<Parfor> *parfors = nullptr;
  /// A kernel's LocalAccessor extents, known when it is compiled: those of
  /// each local-array argument in order, flattened; empty when they are
  /// parameters. Constant extents let the device compiler see a tile's
  /// row stride (vector loads of local memory); the parameters are then
  /// unused and dropped.
  std::vector<int64_t> localExtents;
  /// A kernel's array parameters are `noalias`: the launch's arrays share
  /// no byte (the launcher checks each launch). Without it a CPU runtime
  /// cannot vectorise a loop that stores to one array and loads another
  /// (Intel's runtime: a row-per-work-item Jacobi sweep 2x slower).
  bool noaliasArrays = false;
  /// The device computes in double precision: float32 helpers that want
  /// a double's exactness (round(x, n)) may use it.
  bool fp64 = true;
};

/// The host ABI (FunctionKind::Host): the lowered function takes the
/// kernel-ABI parameters of its arguments, then the call's context (an
/// opaque pointer the helpers get) and the result buffer, and returns 0 or
/// a helper's failure code. The wrapper `<entry>_call(ctx, args, result)`
/// takes a pointer to each parameter's value instead, as the binding has
/// them. The result buffer holds the returned value in 8-byte slots: a
/// number in one (a complex number in two), an array as its data pointer,
/// extents and strides in elements, a tuple as its elements in order.
std::string hostWrapperName(const std::string &name);

/// The symbol name of the entry point lowered from a function called `name`.
std::string entryPointName(const std::string &name);

std::unique_ptr<llvm::Module> lowerToLLVM(const TypedFunction &function,
                                          const Target &target,
                                          llvm::LLVMContext &context,
                                          const LoweringOptions &options);

} // namespace spirjit
