#include "compiler/Optimize.h"

#include "frontend/Diagnostics.h"

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/ADT/Triple.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Transforms/Scalar/SimpleLoopUnswitch.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Transforms/Utils/LoopUtils.h>

#include <condition_variable>
#include <mutex>

namespace spirjit {

namespace {

/// libmvec's variants that LLVM 15's LIBMVEC_X86 table lacks: AVX2's
/// (_ZGVd: 4 doubles or 8 floats a call) of the functions glibc 2.35 added,
/// and AVX-512's (_ZGVe: 8 doubles or 16 floats) of every function, which
/// the table has none of. Each lane within 4 ulp, as the AVX2 variants.
/// Used where the target links the variant (Target::hasVectorFunction:
/// AVX-512's only on a host that runs it).
const llvm::VecDesc extraVectorMath[] = {
#define SPIRJIT_AVX512_UNARY(name)                                             \
  {#name, "_ZGVeN8v_" #name, llvm::ElementCount::getFixed(8)},                 \
      {#name "f", "_ZGVeN16v_" #name "f", llvm::ElementCount::getFixed(16)},   \
      {"llvm." #name ".f64", "_ZGVeN8v_" #name,                                \
       llvm::ElementCount::getFixed(8)},                                       \
      {"llvm." #name ".f32", "_ZGVeN16v_" #name "f",                           \
       llvm::ElementCount::getFixed(16)},
#define SPIRJIT_AVX512_BINARY(name)                                            \
  {#name, "_ZGVeN8vv_" #name, llvm::ElementCount::getFixed(8)},                \
      {#name "f", "_ZGVeN16vv_" #name "f", llvm::ElementCount::getFixed(16)},  \
      {"llvm." #name ".f64", "_ZGVeN8vv_" #name,                               \
       llvm::ElementCount::getFixed(8)},                                       \
      {"llvm." #name ".f32", "_ZGVeN16vv_" #name "f",                          \
       llvm::ElementCount::getFixed(16)},
#define SPIRJIT_UNARY(name)                                                    \
  {#name, "_ZGVdN4v_" #name, llvm::ElementCount::getFixed(4)},                 \
      {#name "f", "_ZGVdN8v_" #name "f", llvm::ElementCount::getFixed(8)},     \
      {#name, "_ZGVeN8v_" #name, llvm::ElementCount::getFixed(8)},             \
      {#name "f", "_ZGVeN16v_" #name "f", llvm::ElementCount::getFixed(16)},
#define SPIRJIT_BINARY(name)                                                   \
  {#name, "_ZGVdN4vv_" #name, llvm::ElementCount::getFixed(4)},                \
      {#name "f", "_ZGVdN8vv_" #name "f", llvm::ElementCount::getFixed(8)},    \
      {#name, "_ZGVeN8vv_" #name, llvm::ElementCount::getFixed(8)},            \
      {#name "f", "_ZGVeN16vv_" #name "f", llvm::ElementCount::getFixed(16)},
    SPIRJIT_AVX512_UNARY(sin) SPIRJIT_AVX512_UNARY(cos)
        SPIRJIT_AVX512_UNARY(exp) SPIRJIT_AVX512_UNARY(log)
            SPIRJIT_AVX512_BINARY(pow)
    SPIRJIT_UNARY(erf) SPIRJIT_UNARY(erfc) SPIRJIT_UNARY(tan)
        SPIRJIT_UNARY(sinh) SPIRJIT_UNARY(cosh) SPIRJIT_UNARY(tanh)
            SPIRJIT_UNARY(asin) SPIRJIT_UNARY(acos) SPIRJIT_UNARY(atan)
                SPIRJIT_UNARY(asinh) SPIRJIT_UNARY(acosh) SPIRJIT_UNARY(atanh)
                    SPIRJIT_UNARY(cbrt) SPIRJIT_UNARY(exp2) SPIRJIT_UNARY(exp10)
                        SPIRJIT_UNARY(expm1) SPIRJIT_UNARY(log2)
                            SPIRJIT_UNARY(log10) SPIRJIT_UNARY(log1p)
                                SPIRJIT_BINARY(atan2) SPIRJIT_BINARY(hypot)
#undef SPIRJIT_AVX512_UNARY
#undef SPIRJIT_AVX512_BINARY
#undef SPIRJIT_UNARY
#undef SPIRJIT_BINARY
};

/// Holds IndVarSimplify's exit-value strategy at what one optimisation's
/// target needs, for as long as the optimisation runs. LLVM 15 reads the
/// strategy from its `-replexitval` option only (IndVarSimplifyPass takes
/// no parameter for it), and undoing its i65 arithmetic afterwards would
/// mean emulating 65-bit multiplication, so the option is set here, never
/// for the whole process: optimisations that need the same strategy run
/// together; one that needs the other waits until they are done, so host
/// code never runs with exit values kept.
class LoopExitValueScope {
public:
  explicit LoopExitValueScope(bool keep) {
    State &state = shared();
    std::unique_lock<std::mutex> lock(state.mutex);
    state.idle.wait(lock,
                    [&] { return state.users == 0 || state.keep == keep; });
    if (state.users++ == 0) {
      state.keep = keep;
      option().setValue(keep ? llvm::NeverRepl : state.initial);
    }
  }
  ~LoopExitValueScope() {
    State &state = shared();
    std::lock_guard<std::mutex> lock(state.mutex);
    if (--state.users == 0) {
      option().setValue(state.initial);
      state.idle.notify_all();
    }
  }
  LoopExitValueScope(const LoopExitValueScope &) = delete;
  LoopExitValueScope &operator=(const LoopExitValueScope &) = delete;

private:
  struct State {
    std::mutex mutex;
    std::condition_variable idle;
    int users = 0;
    bool keep = false;
    /// The strategy before spirjit touched it: LLVM's default, or what
    /// the embedding program chose.
    llvm::ReplaceExitVal initial = option().getValue();
  };
  static State &shared() {
    static State state;
    return state;
  }
  /// IndVarSimplify.cpp declares it as cl::opt<ReplaceExitVal>.
  static llvm::cl::opt<llvm::ReplaceExitVal> &option() {
    llvm::cl::Option *option =
        llvm::cl::getRegisteredOptions().lookup("replexitval");
    SPIRJIT_INTERNAL_CHECK(option, "LLVM has no -replexitval option");
    return *static_cast<llvm::cl::opt<llvm::ReplaceExitVal> *>(option);
  }
};

} // namespace

void optimizeModule(llvm::Module &module, int level, const Target &target) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder(target.targetMachine());
  // Registered before the defaults, which then keep it: the library
  // functions as this target links them.
  llvm::TargetLibraryInfoImpl library{llvm::Triple(module.getTargetTriple())};
  if (target.vectorMath()) {
    library.addVectorizableFunctionsFromVecLib(
        llvm::TargetLibraryInfoImpl::LIBMVEC_X86);
    std::vector<llvm::VecDesc> extra;
    for (const llvm::VecDesc &function : extraVectorMath)
      if (target.hasVectorFunction(function.VectorFnName.str()))
        extra.push_back(function);
    library.addVectorizableFunctions(extra);
  }
  functions.registerPass([&] { return llvm::TargetLibraryAnalysis(library); });
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(cgscc);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, cgscc, modules);
  if (target.unswitchesLoops())
    builder.registerLateLoopOptimizationsEPCallback(
        [](llvm::LoopPassManager &loopPasses, llvm::OptimizationLevel) {
          loopPasses.addPass(llvm::SimpleLoopUnswitchPass(/*NonTrivial=*/true));
        });
  builder.registerVectorizerStartEPCallback(
      [&target](llvm::FunctionPassManager &passes,
                llvm::OptimizationLevel level) {
        target.addPassesBeforeVectorizing(passes, level);
      });
  llvm::OptimizationLevel optLevel = level <= 0   ? llvm::OptimizationLevel::O0
                                     : level == 1 ? llvm::OptimizationLevel::O1
                                     : level == 2 ? llvm::OptimizationLevel::O2
                                                  : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager passes =
      level <= 0 ? builder.buildO0DefaultPipeline(optLevel)
                 : builder.buildPerModuleDefaultPipeline(optLevel);
  {
    LoopExitValueScope exitValues(target.keepsLoopExitValues());
    passes.run(module, modules);
  }
  target.legalize(module);
}

} // namespace spirjit
