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

// clang-format off
// `args` is the variant's parameter kinds in the vector ABI's mangling:
// "v" for a unary function, "vv" for a binary one.
#define SPIRJIT_AVX512(name, args)                                             \
  {#name, "_ZGVeN8" args "_" #name, llvm::ElementCount::getFixed(8)},          \
      {#name "f", "_ZGVeN16" args "_" #name "f",                               \
       llvm::ElementCount::getFixed(16)},
// The functions LLVM's table has AVX2 variants of, which calls reach as
// LLVM's intrinsics too.
#define SPIRJIT_AVX512_AND_INTRINSIC(name, args)                               \
  SPIRJIT_AVX512(name, args)                                                   \
  {"llvm." #name ".f64", "_ZGVeN8" args "_" #name,                             \
   llvm::ElementCount::getFixed(8)},                                           \
  {"llvm." #name ".f32", "_ZGVeN16" args "_" #name "f",                        \
   llvm::ElementCount::getFixed(16)},
#define SPIRJIT_AVX2_AND_AVX512(name, args)                                    \
  {#name, "_ZGVdN4" args "_" #name, llvm::ElementCount::getFixed(4)},          \
      {#name "f", "_ZGVdN8" args "_" #name "f",                                \
       llvm::ElementCount::getFixed(8)},                                       \
      SPIRJIT_AVX512(name, args)
/// libmvec's variants that LLVM 15's LIBMVEC_X86 table lacks: AVX2's
/// (_ZGVd: 4 doubles or 8 floats a call) of the functions glibc 2.35 added,
/// and AVX-512's (_ZGVe: 8 doubles or 16 floats) of every function, which
/// the table has none of. Each lane within 4 ulp, as the AVX2 variants.
/// Used where the target links the variant (Target::hasVectorFunction:
/// AVX-512's only on a host that runs it).
const llvm::VecDesc extraVectorMath[] = {
    SPIRJIT_AVX512_AND_INTRINSIC(sin, "v")
    SPIRJIT_AVX512_AND_INTRINSIC(cos, "v")
    SPIRJIT_AVX512_AND_INTRINSIC(exp, "v")
    SPIRJIT_AVX512_AND_INTRINSIC(log, "v")
    SPIRJIT_AVX512_AND_INTRINSIC(pow, "vv")
    SPIRJIT_AVX2_AND_AVX512(erf, "v")
    SPIRJIT_AVX2_AND_AVX512(erfc, "v")
    SPIRJIT_AVX2_AND_AVX512(tan, "v")
    SPIRJIT_AVX2_AND_AVX512(sinh, "v")
    SPIRJIT_AVX2_AND_AVX512(cosh, "v")
    SPIRJIT_AVX2_AND_AVX512(tanh, "v")
    SPIRJIT_AVX2_AND_AVX512(asin, "v")
    SPIRJIT_AVX2_AND_AVX512(acos, "v")
    SPIRJIT_AVX2_AND_AVX512(atan, "v")
    SPIRJIT_AVX2_AND_AVX512(asinh, "v")
    SPIRJIT_AVX2_AND_AVX512(acosh, "v")
    SPIRJIT_AVX2_AND_AVX512(atanh, "v")
    SPIRJIT_AVX2_AND_AVX512(cbrt, "v")
    SPIRJIT_AVX2_AND_AVX512(exp2, "v")
    SPIRJIT_AVX2_AND_AVX512(exp10, "v")
    SPIRJIT_AVX2_AND_AVX512(expm1, "v")
    SPIRJIT_AVX2_AND_AVX512(log2, "v")
    SPIRJIT_AVX2_AND_AVX512(log10, "v")
    SPIRJIT_AVX2_AND_AVX512(log1p, "v")
    SPIRJIT_AVX2_AND_AVX512(atan2, "vv")
    SPIRJIT_AVX2_AND_AVX512(hypot, "vv")
};
#undef SPIRJIT_AVX512
#undef SPIRJIT_AVX512_AND_INTRINSIC
#undef SPIRJIT_AVX2_AND_AVX512
// clang-format on

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
