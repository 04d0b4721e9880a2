// The compiler, one stage after another. See Pipeline.cpp.
#pragma once

#include "compiler/DebugRecord.h"
#include "compiler/FunctionKind.h"
#include "compiler/Parfor.h"
#include "compiler/Types.h"
#include "frontend/FunctionDescription.h"
#include "runtime/DeviceImage.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace spirjit {

enum class Stage {
#define STAGE(id, name, summary) id,
#include "compiler/Stages.def"
};

struct StageInfo {
  Stage stage;
  const char *name;
  const char *summary;
};
const std::vector<StageInfo> &allStages();
/// The stage called `name`, or throws std::invalid_argument listing them.
Stage stageByName(const std::string &name);


/// What every compilation takes, whatever it compiles.
struct CompileOptions {
  int optLevel = 2;
  bool fastmath = false;
  /// Lets LLVM reassociate each floating-point add or multiply that
  /// accumulates into a loop's phi (x = x + v), and take each min or max
  /// fold into a loop's phi (x = v > x ? v : x) as free of NaNs and signed
  /// zeros, and nothing else: an array reduction's fold (ArrayKernel.h,
  /// reassociatesFolds, whose writer keeps NaNs out of a min or max fold
  /// and counts them apart), which the loop vectoriser then folds as
  /// vectors. NaN and infinities still propagate; the rounding is that of
  /// another order of the same sum.
  bool reassociateFolds = false;
  /// Debug checks (DebugRecord.h): indices; `debug` adds integer division
  /// by zero and asserts, and implies boundscheck.
  bool boundscheck = false;
  bool debug = false;
  /// Which stages to print, and where each printed stage goes.
  std::function<bool(Stage)> wantsDump;
  std::function<void(Stage, const std::string &text)> dump;
};

/// What the target device can do: the compiler refuses what it cannot
/// (at the user's line) and emits an image format it takes.
struct DeviceCapabilities {
  /// The device's name, for messages.
  std::string name = "the device";
  bool fp64 = true;
  bool atomic64 = true;
  bool floatAtomics = false;
  int addressBits = 64;
  /// An NVIDIA GPU's compute capability, major*10+minor (0: none known);
  /// it picks the PTX processor.
  int computeCapability = 0;
  /// Formats the device builds, the preferred first; the compiler emits
  /// the first one it can produce.
  std::vector<ImageFormat> imageFormats = {ImageFormat::SPIRV};
};

struct KernelRequest {
  const FunctionDescription *function = nullptr;
  /// Types of the Python arguments after the item.
  std::vector<const Type *> argumentTypes;
  int itemDimensions = 1;
  /// An NdRange launch (NdItem kernels) rather than a Range launch.
  bool ndRange = false;
  /// The LocalAccessor arguments' extents, flattened in argument order,
  /// when the launch knows them; empty otherwise (LoweringOptions).
  std::vector<int64_t> localExtents;
  /// The launch's arrays share no byte: array parameters are noalias.
  bool disjointArrays = false;
  /// An NdRange launch's work-group extents, dimension 0 (the fastest)
  /// first, when the kernel is compiled for them (the native CPU device:
  /// addWorkItemLoops); empty: read at each launch.
  std::vector<int64_t> groupExtents;
};

struct CompiledKernel {
  std::string entryPoint;
  DeviceImage image;
  std::vector<const Type *> argumentTypes;
  /// Per Python argument after the item: may the kernel write it?
  std::vector<bool> writtenArguments;
  double compileSeconds = 0; // bytecode to validated device image
  /// The hidden GroupScratch parameter follows the arguments (KernelABI.h).
  bool usesGroupScratch = false;
  /// Per parameter of kernelParameters(argumentTypes, usesGroupScratch,
  /// usesDebugRecord):
  /// does the entry point still take it? Unused ones are dropped
  /// (DropUnusedParameters.h); the launcher binds the kept ones only.
  std::vector<bool> keptParameters;
  /// Compiled with checks: the hidden DebugRecord parameter follows
  /// (KernelABI.h), and these are its sites.
  bool usesDebugRecord = false;
  std::vector<DebugSite> debugSites;
  /// Private memory per work-item, at most (PrivateMemory.h).
  uint64_t privateBytes = 0;
};

/// A jit function's host code, for one argument signature.
struct HostRequest {
  const FunctionDescription *function = nullptr;
  std::vector<const Type *> argumentTypes;
  /// Can the host read and write the arrays' memory? If not (a GPU's
  /// memory), host code may pass arrays to loops and allocate them, but
  /// touching an element outside a prange loop is a UserError.
  bool hostAddressable = true;
  /// Map an independent inner range loop of a prange body onto a launch
  /// dimension of its own (Parfor.h)? For GPUs, whose loads then coalesce;
  /// the host code differs, so every key of compiled host code holds it.
  bool mapRows = false;
  /// The object file compiled for this same request before and the name
  /// of its entry (CompiledHost::object and entryName, from the disk
  /// cache: HostCall.cpp). compileHost links it instead of running LLVM,
  /// so the llir stages are not printed; an object that does not link is
  /// ignored. Empty: compiled.
  std::vector<char> cachedObject;
  std::string cachedEntryName;
};

struct CompiledHost {
  /// The host ABI's wrapper (LowerToLLVM.h): int32 (void *context,
  /// void **parameters, void *result), compiled into this process. The
  /// code stays linked while a copy of this pointer lives (HostJIT::load).
  std::shared_ptr<void> entry;
  /// The prange loops, each a kernel launched through the context.
  std::vector<Parfor> parfors;
  std::vector<const Type *> argumentTypes;
  /// As callers see it; the result buffer holds it materialised.
  const Type *returnType = nullptr;
  /// Per argument: may the function (its host code or a loop) write it?
  std::vector<bool> writtenArguments;
  /// Does the host code read or write an array element outside the prange
  /// loops? (Then the arrays a call on NumPy arrays makes must be memory the
  /// host can address.)
  bool touchesElements = false;
  double compileSeconds = 0;
  /// The object file compiled for the host code and the name of `entry`
  /// in it, for the caller to keep; empty when request.cachedObject was
  /// linked.
  std::vector<char> object;
  std::string entryName;
  /// The typed host function the parfors point into.
  std::shared_ptr<const void> keepAlive;
};

/// The 8-byte slots a host function's result buffer needs for a value of
/// type `t` (the host ABI: LowerToLLVM.h).
size_t hostResultSlots(const Type *t);

/// Compiles a jit function: bytecode -> pyir (the jit functions it calls
/// inlined: InlineJit.h) -> typed (host) -> array expressions made prange
/// loops (ArrayExpressions.h) and typed again -> parfor (each prange loop
/// outlined into a kernel's pyir) -> llir -> llir.opt, then machine code
/// through the in-process JIT (HostTarget.h). The kernels are compiled per
/// device when they are first launched.
CompiledHost compileHost(const HostRequest &request,
                         const CompileOptions &options = {});

/// The image format compileKernel emits for `device`: the first of its
/// formats the pipeline produces (SPIR-V, SPIR bitcode, PTX). A device that
/// takes neither gets SPIR bitcode, which its build refuses with the
/// device's own error.
ImageFormat imageFormatFor(const DeviceCapabilities &device);

/// Compiles a @kernel function for one argument signature into an image
/// `device` takes. Throws UserError for problems in the user's code
/// (including what the device cannot do), InternalError for spirjit bugs.
CompiledKernel compileKernel(const KernelRequest &request,
                             const DeviceCapabilities &device,
                             const CompileOptions &options = {});

/// The smallest launch rank (1 to 3) the kernel's item queries fit: one
/// more than the largest constant dimension passed to get_id, get_range
/// and their kin, in the kernel and the device functions it calls. Types
/// the kernel (at rank 3, ignoring request.itemDimensions) and stops there;
/// user errors of typing surface here.
int requiredItemRank(const KernelRequest &request,
                     const DeviceCapabilities &device);

} // namespace spirjit
