// The whole compiler, top to bottom:
//
//   bytecode -> pyir -> typed -> parfor -> llir -> llir.opt -> spv | ptx
//                                                             | native
//
// Each step is one call into its own file; each is printable by name
// (Stages.def), and the IR is verified after every step that changes it.
// The last step emits the device image in the first format the device
// takes that the pipeline produces: SPIR-V, or SPIR 1.2 bitcode lowered
// from it; or, for CUDA devices, PTX from a module lowered for NVPTX; or,
// for the native CPU device, host machine code from a module lowered for
// the host.
#include "compiler/Pipeline.h"

#include "compiler/BoundsCheckFastPath.h"
#include "compiler/CheckBarriers.h"
#include "compiler/CheckDeviceCapabilities.h"
#include "compiler/DropUnusedParameters.h"
#include "compiler/PrivateMemory.h"
#include "compiler/HostTarget.h"
#include "compiler/ArrayExpressions.h"
#include "compiler/SequenceLoops.h"
#include "compiler/ArrayReductions.h"
#include "compiler/MaskReads.h"
#include "compiler/RandomDraws.h"
#include "compiler/InlineJit.h"
#include "compiler/Parfor.h"
#include "compiler/ItemRank.h"
#include "compiler/KernelABI.h"
#include "compiler/LowerToLLVM.h"
#include "compiler/NVPTX.h"
#include "compiler/NativeBarriers.h"
#include "compiler/NativeStreaming.h"
#include "compiler/NativeTarget.h"
#include "compiler/Optimize.h"
#include "compiler/SPIRV.h"
#include "compiler/Target.h"
#include "compiler/TypeInference.h"
#include "frontend/BuildPyIR.h"
#include "frontend/CloneFunction.h"
#include "frontend/Bytecode.h"
#include "frontend/ControlFlowGraph.h"
#include "frontend/Diagnostics.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>

namespace spirjit {

const std::vector<StageInfo> &allStages() {
  static const std::vector<StageInfo> stages = {
#define STAGE(id, name, summary) {Stage::id, name, summary},
#include "compiler/Stages.def"
  };
  return stages;
}

Stage stageByName(const std::string &name) {
  std::string known;
  for (const StageInfo &info : allStages()) {
    if (name == info.name)
      return info.stage;
    known += std::string(known.empty() ? "" : ", ") + info.name;
  }
  throw std::invalid_argument("unknown stage '" + name + "'; the stages are " +
                              known);
}

namespace {

/// Does a kernel for the native device need only O1 before its work-item
/// loops? Without barriers it is inlined into them and the whole module
/// optimised again at the full level (the `native` stage), which does what
/// O2's loop and vector passes would do here, in its loops; a first O1
/// still simplifies it (inlining, SROA, dead code) for the parameters
/// dropped and the private memory counted after it. A kernel with
/// barriers is cut at them first, which wants it fully optimised (fewer
/// values kept across them).
bool lightFirstOptimisation(ImageFormat format, const llvm::Module &module) {
  return format == ImageFormat::HostObject &&
         !module.getFunction(nativeBarrierName);
}

/// SPIR-V's limit on a function's parameters (OpTypeFunction).
constexpr size_t maxParameters = 255;

/// A function of more parameters than SPIR-V takes is the user's error, at
/// its def: arrays count one parameter each plus their extents (and
/// strides), complex numbers two.
void checkParameterCount(const FunctionDescription &function,
                         const std::string &what, size_t count) {
  if (count <= maxParameters)
    return;
  throw UserError(UserErrorKind::Compile, function.filename,
                  function.firstLine,
                  what + " '" + function.name + "' needs " +
                      std::to_string(count) +
                      " device parameters (an array takes one for its data "
                      "and one per extent, and a strided one one per "
                      "stride; a complex number two), more than the " +
                      std::to_string(maxParameters) +
                      " SPIR-V allows; pass fewer arguments, or pack "
                      "scalars into an array");
}

/// The kernel's item type, from the annotation of its first parameter,
/// checked against the launch: Item kernels take a Range, NdItem kernels
/// an NdRange. Without an annotation the launch decides, as in numba-dpex.
const Type *itemType(const FunctionDescription &function,
                     const KernelRequest &request) {
  if (function.argCount < 1)
    throw UserError(UserErrorKind::Typing, function.filename,
                    function.firstLine,
                    "a kernel's first parameter must be the work item "
                    "(kapi.Item or kapi.NdItem); '" + function.name +
                        "' has none");
  bool ndItem = request.ndRange;
  auto it = function.annotations.find(function.varnames[0]);
  if (it != function.annotations.end()) {
    const std::string &name = it->second.name;
    ndItem = name == "spirjit.kernel_api.NdItem";
    if (!ndItem && name != "spirjit.kernel_api.Item")
      throw UserError(UserErrorKind::Typing, function.filename,
                      function.firstLine,
                      "the first parameter of a kernel is its work item; "
                      "annotate it with kapi.Item or kapi.NdItem, not " +
                          name);
  }
  if (ndItem && !request.ndRange)
    throw UserError(UserErrorKind::Typing, function.filename,
                    function.firstLine,
                    "'" + function.name + "' takes a kapi.NdItem, so it must "
                    "be launched over a kapi.NdRange(global, local), not a "
                    "Range");
  if (!ndItem && request.ndRange)
    throw UserError(UserErrorKind::Typing, function.filename,
                    function.firstLine,
                    "'" + function.name + "' takes a kapi.Item, so it must be "
                    "launched over a kapi.Range; annotate its first parameter "
                    "with kapi.NdItem to launch it over an NdRange");
  for (const Type *t : request.argumentTypes)
    if (t->kind == TypeKind::Array && t->memorySpace == MemorySpace::Local &&
        !request.ndRange)
      throw UserError(UserErrorKind::Typing, function.filename,
                      function.firstLine,
                      "a kapi.LocalAccessor needs an NdRange launch (local "
                      "memory belongs to work-groups); launch '" +
                          function.name + "' with kapi.NdRange");
  return ndItem ? types::ndItem(request.itemDimensions)
                : types::item(request.itemDimensions);
}

/// A launch must pass one argument per parameter after the item. Counted
/// as the user counts them: the item is the launch's, not an argument.
void checkArity(const FunctionDescription &function,
                const KernelRequest &request) {
  size_t expected = static_cast<size_t>(function.argCount - 1);
  size_t given = request.argumentTypes.size();
  if (given == expected)
    return;
  std::string names;
  for (size_t i = 1; i <= expected; ++i)
    names += (i > 1 ? ", " : "") + function.varnames[i];
  std::string takes = expected == 0
                          ? std::string("no arguments")
                          : std::to_string(expected) +
                                (expected == 1 ? " argument" : " arguments");
  throw UserError(UserErrorKind::Typing, function.filename, function.firstLine,
                  "'" + function.name + "' takes " + takes +
                      " after its work item" +
                      (expected ? " (" + names + ")" : std::string()) +
                      ", but the launch passed " + std::to_string(given) +
                      " (its first parameter, '" + function.varnames[0] +
                      "', is the work item the launch provides)");
}

class StagePrinter {
public:
  explicit StagePrinter(const CompileOptions &options) : options_(options) {}
  /// Prints the stage only when asked: printing LLVM IR is not free.
  template <typename MakeText> void operator()(Stage stage, MakeText text) {
    if (options_.dump && (!options_.wantsDump || options_.wantsDump(stage)))
      options_.dump(stage, text());
  }

private:
  const CompileOptions &options_;
};

/// bytecode -> pyir; a kernel the parfor stage made has its pyir already.
std::unique_ptr<ir::Function> buildPyIRStages(const FunctionDescription &function,
                                              StagePrinter &dump) {
  if (function.prebuiltPyIR) {
    dump(Stage::Bytecode, [&] {
      if (!function.prebuiltOrigin.empty())
        return function.prebuiltOrigin;
      return "; " + function.name + " is a prange loop of a jit function, "
             "outlined by the parfor stage: it has no bytecode of its own\n";
    });
    ir::ValueMap map;
    std::unique_ptr<ir::Function> pyir =
        ir::cloneFunction(*function.prebuiltPyIR, map);
    dump(Stage::PyIR, [&] { return ir::print(*pyir); });
    return pyir;
  }
  // bytecode: version-specific decoding ends here.
  std::vector<BytecodeInstruction> code = decodeBytecode(function);
  dump(Stage::Bytecode, [&] { return printBytecode(function, code); });

  // pyir: the control-flow graph, then stack and locals into SSA values.
  ControlFlowGraph cfg = buildControlFlowGraph(std::move(code));
  std::unique_ptr<ir::Function> pyir = buildPyIR(function, cfg);
  dump(Stage::PyIR, [&] { return ir::print(*pyir); });
  return pyir;
}

/// The kernel's typed code and the device functions typed for it.
struct TypedKernel {
  TypedFunction typed;
  Specializations specializations;
};

/// bytecode -> pyir -> typed, shared by compileKernel and requiredItemRank.
std::unique_ptr<TypedKernel> typeKernel(const KernelRequest &request,
                                        const DeviceCapabilities &device,
                                        StagePrinter &dump) {
  const FunctionDescription &function = *request.function;

  std::unique_ptr<ir::Function> pyir = buildPyIRStages(function, dump);

  // typed: every value gets a NumPy type; user type errors surface here.
  std::vector<const Type *> argumentTypes = {itemType(function, request)};
  checkArity(function, request);
  argumentTypes.insert(argumentTypes.end(), request.argumentTypes.begin(),
                       request.argumentTypes.end());
  // Device functions are typed per call signature as the kernel is.
  auto kernel = std::make_unique<TypedKernel>();
  kernel->specializations.deviceFunctions = &function.deviceFunctions;
  kernel->specializations.hasAtomic64 = device.atomic64;
  kernel->typed = inferTypes(function, std::move(pyir), argumentTypes,
                             FunctionKind::Kernel, kernel->specializations);
  return kernel;
}

/// pyir with each instruction's type: the `typed` stage.
std::string printTypedFunction(const TypedFunction &typed) {
  return ir::print(*typed.function, [](const ir::Instruction &inst) {
    return inst.type ? inst.type->str() : std::string();
  });
}

std::string printModule(const llvm::Module &module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  return os.str();
}

} // namespace

ImageFormat imageFormatFor(const DeviceCapabilities &device) {
  for (ImageFormat format : device.imageFormats)
    if (format == ImageFormat::SPIRV || format == ImageFormat::SPIRBitcode ||
        format == ImageFormat::PTX || format == ImageFormat::HostObject)
      return format;
  return ImageFormat::SPIRBitcode;
}

CompiledKernel compileKernel(const KernelRequest &request,
                             const DeviceCapabilities &device,
                             const CompileOptions &options) {
  auto start = std::chrono::steady_clock::now();
  const FunctionDescription &function = *request.function;
  StagePrinter dump(options);
  ImageFormat format = imageFormatFor(device);
  // What the device cannot take is refused before any work, at the
  // function's line.
  std::string problem = argumentCapabilityProblem(
      request.argumentTypes, device.fp64, device.name);
  if (!problem.empty())
    throw UserError(UserErrorKind::Typing, function.filename,
                    function.firstLine, problem);

  // bytecode -> pyir -> typed.
  std::unique_ptr<TypedKernel> kernelCode = typeKernel(request, device, dump);
  const TypedFunction &typed = kernelCode->typed;
  const Specializations &specializations = kernelCode->specializations;
  // What every image format's kernel carries besides the image.
  auto finish = [&](CompiledKernel &kernel) -> CompiledKernel {
    kernel.usesGroupScratch = typed.usesGroupScratch;
    kernel.argumentTypes = request.argumentTypes;
    kernel.writtenArguments.assign(typed.writtenArguments.begin() + 1,
                                   typed.writtenArguments.end());
    kernel.compileSeconds = std::chrono::duration<double>(
                                std::chrono::steady_clock::now() - start)
                                .count();
    return std::move(kernel);
  };
  auto printTyped = [&] {
    std::string text = printTypedFunction(typed);
    for (const auto &[key, callee] : specializations.byKey)
      text += "\n; device function " + key + "\n" +
              printTypedFunction(*callee);
    return text;
  };
  dump(Stage::Typed, printTyped);
  // Double precision on a device without it fails here, at the user's
  // line, not in the driver's build.
  checkDeviceCapabilities(typed, specializations, device.fp64, device.name);
  // A collective that only some work-items reach, at its line.
  checkBarriers(typed);
  for (const auto &[key, callee] : specializations.byKey)
    checkBarriers(*callee);
  bool checked = options.boundscheck || options.debug;
  for (const auto &[key, callee] : specializations.byKey)
    checkParameterCount(*callee->description, "device function",
                        kernelParameters(callee->argumentTypes,
                                         callee->usesGroupScratch, checked)
                            .size());

  // parfor: prange lowering applies to jit functions; a kernel is unchanged.
  dump(Stage::Parfor, printTyped);

  // llir: target-independent lowering against the target's hooks (SPIR,
  // NVPTX for a PTX image, the host for the native CPU device). Typed pointers: the SPIR-V translator of
  // LLVM 15 is most reliable so, and libdevice is typed-pointer bitcode.
  llvm::LLVMContext context;
  context.setOpaquePointers(false);
  std::unique_ptr<Target> target =
      format == ImageFormat::PTX          ? createNVPTXTarget()
      : format == ImageFormat::HostObject ? createNativeTarget()
                                          : createSPIRTarget();
  LoweringOptions lowering;
  lowering.fastmath = options.fastmath;
  lowering.reassociateFolds = options.reassociateFolds;
  lowering.boundscheck = options.boundscheck || options.debug;
  lowering.debug = options.debug;
  lowering.localExtents = request.localExtents;
  // Disjoint arrays are noalias parameters, unless a barrier orders other
  // work-items' accesses to them (CheckBarriers.h, hasCollectives).
  bool collectives = hasCollectives(typed);
  for (const auto &[key, callee] : specializations.byKey)
    collectives |= hasCollectives(*callee);
  lowering.noaliasArrays = request.disjointArrays && !collectives;
  lowering.fp64 = device.fp64;
  CompiledKernel kernel;
  lowering.sites = &kernel.debugSites;
  kernel.usesDebugRecord = lowering.boundscheck;
  std::unique_ptr<llvm::Module> module =
      lowerToLLVM(typed, *target, context, lowering);
  dump(Stage::LLIR, [&] { return printModule(*module); });

  // llir.opt: LLVM's standard pipeline; then the parameters the optimised
  // code never reads are dropped, so launches do not pass them.
  optimizeModule(*module, lightFirstOptimisation(format, *module)
                              ? std::min(options.optLevel, 1)
                              : options.optLevel, *target);
  kernel.entryPoint = entryPointName(typed.function->name);
  // Checks a test at entry proves for the whole launch leave a copy of the
  // body (BoundsCheckFastPath.h); optimising again folds them away there,
  // and the others where LLVM can. O1 is enough: the code was optimised
  // once already.
  if (addBoundsCheckFastPath(*module, kernel.entryPoint))
    optimizeModule(*module, std::min(options.optLevel, 1), *target);
  kernel.keptParameters = dropUnusedParameters(*module, kernel.entryPoint);
  kernel.privateBytes = privateMemoryBytes(*module);
  // Counted once unused ones are gone: those the device sees.
  checkParameterCount(function, "kernel",
                      std::count(kernel.keptParameters.begin(),
                                 kernel.keptParameters.end(), true));
  dump(Stage::LLIROpt, [&] { return printModule(*module); });

  kernel.image.format = format;
  if (format == ImageFormat::PTX) {
    // ptx: the CUDA entry-point ABI, libdevice, NVPTX code generation.
    PTXRequest ptx;
    ptx.entryPoint = kernel.entryPoint;
    ptx.computeCapability = device.computeCapability;
    ptx.dimensions = request.itemDimensions;
    ptx.wholeGroups = request.ndRange;
    ptx.fastmath = options.fastmath;
    ptx.optLevel = options.optLevel;
    ptx.functionName = function.name;
    ptx.filename = function.filename;
    ptx.line = function.firstLine;
    std::string text = emitPTX(*module, ptx);
    dump(Stage::PTX, [&] { return text; });
    kernel.image.bytes.assign(text.begin(), text.end());
    return finish(kernel);
  }

  if (format == ImageFormat::HostObject) {
    // native: the kernel inlined into loops over a chunk's work-items and
    // a copy of them for launches larger than the caches, optimised again
    // so that LLVM vectorises them, the copy's stores made streaming ones,
    // then machine code.
    addWorkItemLoops(*module, kernel.entryPoint, request.itemDimensions,
                     request.ndRange, request.groupExtents);
    addStreamingCopy(*module, kernel.entryPoint);
    optimizeModule(*module, options.optLevel, *target);
    addStreamingStores(*module, kernel.entryPoint);
    dump(Stage::Native, [&] { return printModule(*module); });
    kernel.image.bytes = emitHostObject(*module, *target);
    return finish(kernel);
  }

  // spv: translate, then validate every module we produce.
  std::vector<uint32_t> spirv = emitSPIRV(*module);
  std::string problems = validateSPIRV(spirv);
  SPIRJIT_INTERNAL_CHECK(problems.empty(),
                         "spirv-val rejected the module: " + problems);
  dump(Stage::SPV, [&] { return disassembleSPIRV(spirv); });

  // The device image: SPIR-V as it is, or lowered to SPIR 1.2 bitcode for
  // an OpenCL device that takes only cl_khr_spir.
  if (format == ImageFormat::SPIRBitcode) {
    kernel.image.bytes = lowerSPIRVToSPIRBitcode(spirv);
    dump(Stage::SPIR, [&] { return disassembleSPIRBitcode(kernel.image.bytes); });
  } else {
    auto bytes = reinterpret_cast<const char *>(spirv.data());
    kernel.image.bytes.assign(bytes, bytes + spirv.size() * 4);
  }

  return finish(kernel);
}

CompiledHost compileHost(const HostRequest &request,
                         const CompileOptions &options) {
  auto start = std::chrono::steady_clock::now();
  const FunctionDescription &function = *request.function;
  StagePrinter dump(options);
  std::unique_ptr<ir::Function> pyir = buildPyIRStages(function, dump);
  if (static_cast<size_t>(function.argCount) != request.argumentTypes.size())
    throw UserError(UserErrorKind::Typing, function.filename,
                    function.firstLine,
                    "'" + function.name + "' takes " +
                        std::to_string(function.argCount) +
                        " arguments but was given " +
                        std::to_string(request.argumentTypes.size()));

  struct Typed {
    TypedFunction typed;
    Specializations specializations;
    /// The descriptions the inliner, the mask-read, the sequence-loop, the
    /// array-reduction and the array-expression stages made, which the
    /// typed function points to when they changed it.
    std::shared_ptr<FunctionDescription> inlined, masked, sequenced, reduced,
        rewritten;
  };
  auto host = std::make_shared<Typed>();

  // Jit functions it calls become part of its pyir (InlineJit.h).
  const FunctionDescription *described = &function;
  if (callsJitFunctions(function)) {
    host->inlined = std::make_shared<FunctionDescription>(function);
    inlineJitCalls(*pyir, *host->inlined);
    described = host->inlined.get();
  }

  // typed: as for kernels, with host code's rules (FunctionKind::Host).
  host->specializations.deviceFunctions = &described->deviceFunctions;
  host->typed = inferTypes(*described, std::move(pyir), request.argumentTypes,
                           FunctionKind::Host, host->specializations);
  TypedFunction &typed = host->typed;

  // a[mask] reads: calls of the jit library, inlined and typed again.
  if (std::shared_ptr<FunctionDescription> masked = lowerMaskReads(typed)) {
    host->masked = masked;
    std::unique_ptr<ir::Function> rewritten = std::move(typed.function);
    inlineJitCalls(*rewritten, *masked);
    host->specializations = Specializations();
    host->specializations.deviceFunctions = &masked->deviceFunctions;
    typed = inferTypes(*masked, std::move(rewritten), request.argumentTypes,
                       FunctionKind::Host, host->specializations);
  }

  // `for x in a`: a loop over range(len(a)), typed again.
  if (std::shared_ptr<FunctionDescription> sequenced =
          lowerSequenceLoops(typed)) {
    host->sequenced = sequenced;
    std::unique_ptr<ir::Function> rewritten = std::move(typed.function);
    host->specializations = Specializations();
    host->specializations.deviceFunctions = &sequenced->deviceFunctions;
    typed = inferTypes(*sequenced, std::move(rewritten),
                       request.argumentTypes, FunctionKind::Host,
                       host->specializations);
  }
  // Whole-array reductions in prange loops: a prange over private copies,
  // combined after it, typed again.
  if (std::shared_ptr<FunctionDescription> reduced =
          lowerArrayReductions(typed)) {
    host->reduced = reduced;
    std::unique_ptr<ir::Function> rewritten = std::move(typed.function);
    host->specializations = Specializations();
    host->specializations.deviceFunctions = &reduced->deviceFunctions;
    typed = inferTypes(*reduced, std::move(rewritten), request.argumentTypes,
                       FunctionKind::Host, host->specializations);
  }
  // np.random's calls: draws of the host's generator, or, in prange
  // bodies, of their loop's stream.
  lowerRandomDraws(typed);
  dump(Stage::Typed, [&] { return printTypedFunction(typed); });

  // Array expressions become prange loops, typed again (the parfor stage
  // below shows the result).
  std::string arrayGraphs;
  if (std::optional<ArrayExpressionResult> loops =
          lowerArrayExpressions(typed)) {
    arrayGraphs = std::move(loops->graphs);
    host->rewritten = loops->description;
    host->specializations = Specializations();
    host->specializations.deviceFunctions = &host->rewritten->deviceFunctions;
    typed = inferTypes(*host->rewritten, std::move(loops->function),
                       request.argumentTypes, FunctionKind::Host,
                       host->specializations);
  }

  // parfor: each prange loop nest becomes a kernel and a launch.
  CompiledHost compiled;
  compiled.parfors = outlineParfors(typed, request.mapRows);
  for (const auto &block : typed.function->blocks)
    for (const auto &inst : block->instructions)
      // An element read or a store (a getitem giving an array, a[0] of a
      // matrix or a[None][0], is a view: no element is touched).
      if (((inst->isa(ir::Opcode::GetItem) &&
            inst->type->kind != TypeKind::Array) ||
           inst->isa(ir::Opcode::SetItem)) &&
          inst->operands[0]->type->kind == TypeKind::Array) {
        compiled.touchesElements = true;
        if (!request.hostAddressable)
          throw UserError(UserErrorKind::UnsupportedFeature, function.filename,
                          inst->line,
                          "this jit function runs on a device whose memory "
                          "the host cannot address, and its host code "
                          "touches an array element outside a prange loop; "
                          "move the access into a prange loop");
      }
  dump(Stage::Parfor, [&] {
    std::string text = printTypedFunction(typed);
    if (!arrayGraphs.empty())
      text += "\n; array statements, each element a graph (compiler/"
              "ArrayValues writes it, as for DeviceArrays)\n" +
              arrayGraphs;
    for (const Parfor &parfor : compiled.parfors) {
      text += "\n; parfor " + std::to_string(parfor.index) + ": a " +
              std::to_string(parfor.launchDims()) + "-D launch of kernel " +
              parfor.kernel->name + (parfor.reductions.empty()
                                         ? std::string()
                                         : " (" +
                                               std::to_string(
                                                   parfor.reductions.size()) +
                                               " reduction(s))") +
              ", argument types " +
              types::formatArguments(parfor.kernelArgumentTypes) + "\n";
      if (!parfor.rows.empty())
        text += "; parfor " + std::to_string(parfor.index) + ": " +
                parfor.rows + "\n";
      text += ir::print(*parfor.kernel->prebuiltPyIR);
    }
    return text;
  });

  // llir: the host target; llir.opt: LLVM's pipeline; then machine code,
  // an object file linked into the process (HostTarget.h). An object
  // compiled before for the same request (the disk cache's) skips them.
  HostJIT &jit = HostJIT::instance();
  if (!request.cachedObject.empty())
    compiled.entry = jit.load(request.cachedObject, request.cachedEntryName);
  if (!compiled.entry) {
    auto context = std::make_unique<llvm::LLVMContext>();
    context->setOpaquePointers(false);
    std::unique_ptr<Target> target =
        createHostTarget(jit.triple(), jit.dataLayout());
    LoweringOptions lowering;
    lowering.fastmath = options.fastmath;
    lowering.hostAsserts = options.debug;
    lowering.hostIndexChecks = options.debug || options.boundscheck;
    lowering.parfors = &compiled.parfors;
    std::unique_ptr<llvm::Module> module =
        lowerToLLVM(typed, *target, *context, lowering);
    // One name per compiled specialisation in the process, so dumps tell
    // them apart; linking does not need it (HostJIT::load).
    static std::atomic<int> counter{0};
    std::string entry = entryPointName(typed.function->name) + "_" +
                        std::to_string(counter++);
    module->getFunction(entryPointName(typed.function->name))->setName(entry);
    module->getFunction(hostWrapperName(entryPointName(typed.function->name)))
        ->setName(hostWrapperName(entry));
    dump(Stage::LLIR, [&] { return printModule(*module); });
    // Unless it loops, host code runs once a call: compiled fast, not
    // optimised (hostOptimisationLevel says why).
    int level = hostOptimisationLevel(*module, options.optLevel);
    optimizeModule(*module, level, *target);
    dump(Stage::LLIROpt, [&] { return printModule(*module); });
    compiled.object = jit.compile(*module, level > 0);
    compiled.entryName = hostWrapperName(entry);
    compiled.entry = jit.load(compiled.object, compiled.entryName);
    SPIRJIT_INTERNAL_CHECK(compiled.entry != nullptr,
                           "compiled host code does not link");
  }

  compiled.argumentTypes = request.argumentTypes;
  compiled.returnType = typed.returnType;
  compiled.writtenArguments = typed.writtenArguments;
  // A loop's kernel may write what it is given.
  for (const Parfor &parfor : compiled.parfors)
    for (const ir::Instruction *a : parfor.arguments)
      if (a->isa(ir::Opcode::Arg) && a->type->kind == TypeKind::Array)
        compiled.writtenArguments[a->index] = true;
  compiled.keepAlive = host;
  compiled.compileSeconds = std::chrono::duration<double>(
                                std::chrono::steady_clock::now() - start)
                                .count();
  return compiled;
}

int requiredItemRank(const KernelRequest &request,
                     const DeviceCapabilities &device) {
  // Rank 3 fits every query a kernel can make; the queries then say which
  // rank they need.
  KernelRequest widest = request;
  widest.itemDimensions = 3;
  CompileOptions quiet;
  StagePrinter dump(quiet);
  std::unique_ptr<TypedKernel> kernel = typeKernel(widest, device, dump);
  return requiredItemRank(kernel->typed, kernel->specializations);
}

} // namespace spirjit
