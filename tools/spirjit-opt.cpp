// spirjit-opt: runs spirjit's LLVM-level passes, one by one, on textual
// LLVM IR, so that a lit test can check one pass alone.
//
//   spirjit-opt FILE.ll -p drop-unused-parameters,remove-freezes
//               [--entry NAME] [--emit llvm|spirv]
//
// Reads FILE.ll ("-": standard input) with typed pointers, as the
// compiler's own modules have them; verifies it; runs the named passes in
// order, verifying after each, and names the pass whose output does not
// verify or that failed; prints the module, or with `--emit spirv` the
// validated SPIR-V, disassembled. Exit status 1 on any error.
#include "compiler/BoundsCheckFastPath.h"
#include "compiler/DropUnusedParameters.h"
#include "compiler/Optimize.h"
#include "compiler/SPIRV.h"
#include "compiler/SPIRVLegalize.h"
#include "compiler/ScalarLoopHint.h"
#include "compiler/Target.h"

#include <llvm/IR/CallingConv.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include <cstdlib>
#include <exception>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct Options {
  std::string input;
  std::vector<std::string> passes;
  std::string entry;
  std::string emit = "llvm";
};

struct Pass {
  const char *name;
  const char *summary;
  std::function<void(llvm::Module &, const Options &)> run;
};

/// The kernel a pass that works on one entry point works on: --entry, or
/// the module's only spir_kernel.
std::string entryPoint(llvm::Module &module, const Options &options) {
  if (!options.entry.empty())
    return options.entry;
  std::vector<std::string> kernels;
  for (llvm::Function &function : module)
    if (!function.isDeclaration() &&
        function.getCallingConv() == llvm::CallingConv::SPIR_KERNEL)
      kernels.push_back(function.getName().str());
  if (kernels.size() != 1)
    throw std::runtime_error("the module has " +
                             std::to_string(kernels.size()) +
                             " spir_kernel functions: name one with --entry");
  return kernels.front();
}

/// Every pass the tool knows, in the order --help lists them.
const std::vector<Pass> &passTable() {
  static const std::vector<Pass> table = {
      {"optimize",
       "LLVM's per-module O2 pipeline for the SPIR target, then its "
       "legalisations (optimizeModule)",
       [](llvm::Module &module, const Options &) {
         spirjit::optimizeModule(module, 2, *spirjit::createSPIRTarget());
       }},
      {"bounds-check-fast-path",
       "prove index checks for the whole launch at entry and run a copy of "
       "the body without them when the proof holds (--entry)",
       [](llvm::Module &module, const Options &options) {
         spirjit::addBoundsCheckFastPath(module, entryPoint(module, options));
       }},
      {"drop-unused-parameters",
       "remove the entry point's parameters that nothing reads (--entry)",
       [](llvm::Module &module, const Options &options) {
         spirjit::dropUnusedParameters(module, entryPoint(module, options));
       }},
      {"remove-freezes", "replace each freeze by its operand",
       [](llvm::Module &module, const Options &) {
         spirjit::removeFreezes(module);
       }},
      {"expand-integer-abs",
       "turn integer llvm.abs into compare, negate and select",
       [](llvm::Module &module, const Options &) {
         spirjit::expandIntegerAbs(module);
       }},
      {"expand-vector-reductions",
       "fold llvm.vector.reduce.* and bool-vector bitcasts lane by lane",
       [](llvm::Module &module, const Options &) {
         spirjit::expandVectorReductions(module);
       }},
      {"promote-illegal-integers",
       "widen integers of widths SPIR-V lacks (i62, i3, ...) to the next "
       "SPIR-V width",
       [](llvm::Module &module, const Options &) {
         spirjit::promoteIllegalIntegers(module);
       }},
      {"split-aggregate-phis",
       "one phi per field of a struct-typed phi",
       [](llvm::Module &module, const Options &) {
         spirjit::splitAggregatePhis(module);
       }},
      {"split-aggregate-selects",
       "select each field of a struct-typed select on its own",
       [](llvm::Module &module, const Options &) {
         spirjit::splitAggregateSelects(module);
       }},
      {"separate-repeated-edges",
       "route repeated edges to a block with phis through a new block",
       [](llvm::Module &module, const Options &) {
         spirjit::separateRepeatedEdges(module);
       }},
      {"hint-scalar-rotating-loops",
       "mark kernels with rotating loop values not to be vectorised",
       [](llvm::Module &module, const Options &) {
         spirjit::hintScalarForRotatingLoops(module);
       }},
      {"hint-scalar-strided-lanes",
       "mark kernels whose loops walk rows a work-item apart not to be "
       "vectorised across work-items",
       [](llvm::Module &module, const Options &) {
         spirjit::hintScalarForStridedLanes(module);
       }},
  };
  return table;
}

void printHelp() {
  llvm::outs()
      << "usage: spirjit-opt FILE.ll [-p PASS[,PASS...]] [--entry NAME] "
         "[--emit llvm|spirv]\n\n"
         "Runs spirjit's LLVM-level passes in the order given, verifying "
         "the module after each,\nand prints the result.\n\n"
         "  -p PASS,...    the passes to run (may be repeated)\n"
         "  --entry NAME   the kernel for passes that take one (default: "
         "the only spir_kernel)\n"
         "  --emit spirv   print the validated SPIR-V, disassembled, "
         "instead of LLVM IR\n\npasses:\n";
  for (const Pass &pass : passTable()) {
    std::string name = pass.name;
    llvm::outs() << "  " << name << std::string(28 - name.size(), ' ')
                 << pass.summary << "\n";
  }
}

/// Parses the command line; nullopt after printing why it cannot.
std::optional<Options> parseArguments(int argc, char **argv) {
  Options options;
  auto split = [&](const std::string &list) {
    for (size_t start = 0; start <= list.size();) {
      size_t comma = list.find(',', start);
      if (comma == std::string::npos)
        comma = list.size();
      if (comma > start)
        options.passes.push_back(list.substr(start, comma - start));
      start = comma + 1;
    }
  };
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    bool hasValue = i + 1 < argc;
    if (arg == "-h" || arg == "--help") {
      printHelp();
      std::exit(0);
    } else if ((arg == "-p" || arg == "--passes") && hasValue) {
      split(argv[++i]);
    } else if (arg.rfind("--passes=", 0) == 0) {
      split(arg.substr(9));
    } else if (arg == "--entry" && hasValue) {
      options.entry = argv[++i];
    } else if (arg == "--emit" && hasValue) {
      options.emit = argv[++i];
    } else if (arg != "-" && arg.rfind('-', 0) == 0) {
      llvm::errs() << "spirjit-opt: error: unknown or incomplete option '"
                   << arg << "' (see --help)\n";
      return std::nullopt;
    } else if (options.input.empty()) {
      options.input = arg;
    } else {
      llvm::errs() << "spirjit-opt: error: more than one input file\n";
      return std::nullopt;
    }
  }
  if (options.input.empty()) {
    llvm::errs() << "spirjit-opt: error: no input file (see --help)\n";
    return std::nullopt;
  }
  if (options.emit != "llvm" && options.emit != "spirv") {
    llvm::errs() << "spirjit-opt: error: --emit takes llvm or spirv, not '"
                 << options.emit << "'\n";
    return std::nullopt;
  }
  for (const std::string &name : options.passes) {
    bool known = false;
    for (const Pass &pass : passTable())
      known |= name == pass.name;
    if (!known) {
      llvm::errs() << "spirjit-opt: error: unknown pass '" << name
                   << "' (see --help)\n";
      return std::nullopt;
    }
  }
  return options;
}

/// Prints the verifier's findings under `heading`; false when there are.
bool verifies(llvm::Module &module, const std::string &heading) {
  std::string problems;
  llvm::raw_string_ostream stream(problems);
  if (!llvm::verifyModule(module, &stream))
    return true;
  llvm::errs() << "spirjit-opt: error: " << heading << ":\n" << stream.str();
  return false;
}

} // namespace

int main(int argc, char **argv) {
  std::optional<Options> options = parseArguments(argc, argv);
  if (!options)
    return 1;

  llvm::LLVMContext context;
  context.setOpaquePointers(false); // the SPIR-V translator of LLVM 15
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> module =
      llvm::parseIRFile(options->input, diagnostic, context);
  if (!module) {
    diagnostic.print("spirjit-opt", llvm::errs());
    return 1;
  }
  // A broken input is the input's fault: say so before any pass is blamed.
  std::string firstPass =
      options->passes.empty() ? "" : " (before '" + options->passes[0] + "')";
  if (!verifies(*module,
                options->input + " does not verify as read" + firstPass))
    return 1;

  for (const std::string &name : options->passes) {
    for (const Pass &pass : passTable()) {
      if (name != pass.name)
        continue;
      try {
        pass.run(*module, *options);
      } catch (const std::exception &error) {
        llvm::errs() << "spirjit-opt: error: pass '" << name
                     << "' failed: " << error.what() << "\n";
        return 1;
      }
      if (!verifies(*module,
                    "the module does not verify after pass '" + name + "'"))
        return 1;
    }
  }

  if (options->emit == "llvm") {
    module->print(llvm::outs(), nullptr);
    return 0;
  }
  try {
    std::vector<uint32_t> words = spirjit::emitSPIRV(*module);
    std::string problems = spirjit::validateSPIRV(words);
    if (!problems.empty()) {
      llvm::errs() << "spirjit-opt: error: spirv-val rejects the module:\n"
                   << problems << "\n";
      return 1;
    }
    llvm::outs() << spirjit::disassembleSPIRV(words);
  } catch (const std::exception &error) {
    llvm::errs() << "spirjit-opt: error: SPIR-V emission failed: "
                 << error.what() << "\n";
    return 1;
  }
  return 0;
}
