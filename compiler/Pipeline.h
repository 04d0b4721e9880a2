// The compiler, one stage after another. See Pipeline.cpp.
#pragma once

#include "compiler/Types.h"
#include "frontend/FunctionDescription.h"

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

struct CompileRequest {
  const FunctionDescription *function = nullptr;
  /// Types of the Python arguments after the item.
  std::vector<const Type *> argumentTypes;
  int itemDimensions = 1;
  /// An NdRange launch (NdItem kernels) rather than a Range launch.
  bool ndRange = false;
  bool hasAtomic64 = true;
  bool fastmath = false;
  int optLevel = 2;
  /// Which stages to print, and where each printed stage goes.
  std::function<bool(Stage)> wantsDump;
  std::function<void(Stage, const std::string &text)> dump;
};

struct CompiledKernel {
  std::string entryPoint;
  std::vector<uint32_t> spirv;
  std::vector<const Type *> argumentTypes;
  /// Per Python argument after the item: may the kernel write it?
  std::vector<bool> writtenArguments;
  double compileSeconds = 0; // bytecode to validated SPIR-V
  /// The hidden GroupScratch parameter follows the arguments (KernelABI.h).
  bool usesGroupScratch = false;
  /// Per parameter of kernelParameters(argumentTypes, usesGroupScratch):
  /// does the entry point still take it? Unused ones are dropped
  /// (DropUnusedParameters.h); the launcher binds the kept ones only.
  std::vector<bool> keptParameters;
};

/// Compiles a @kernel function for one argument signature. Throws UserError
/// for problems in the user's code, InternalError for spirjit bugs.
CompiledKernel compileKernel(const CompileRequest &request);

} // namespace spirjit
