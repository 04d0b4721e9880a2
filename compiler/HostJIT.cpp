// LLVM's ORC LLJIT for host code (HostTarget.h): one per process.
//
// Host code reaches it as object files rather than IR modules: the object
// is what the disk cache keeps, and a second process links it instead of
// running LLVM's pipeline and code generator again (a small function's
// specialisation then takes ~1.5 ms with the front end and the disk read,
// against ~12 ms compiled); bitcode would still need the code generator,
// two thirds of LLVM's time. The objects come from the same
// target machine LLJIT's own IR layer would use.
#include "compiler/HostTarget.h"

#include "frontend/Diagnostics.h"

#include <llvm/ADT/Triple.h>
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/DynamicLibrary.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <optional>

namespace spirjit {

struct HostJIT::State {
  std::optional<llvm::orc::JITTargetMachineBuilder> builder;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  /// Target machines not lent: [0] generate code fast, [1] optimise it.
  std::vector<std::unique_ptr<llvm::TargetMachine>> idle[2];
};

namespace {

template <typename T> T check(llvm::Expected<T> value, const char *what) {
  if (!value) {
    std::string message;
    llvm::raw_string_ostream os(message);
    os << value.takeError();
    SPIRJIT_INTERNAL_CHECK(false, std::string(what) + ": " + os.str());
  }
  return std::move(*value);
}

void check(llvm::Error error, const char *what) {
  if (error) {
    std::string message;
    llvm::raw_string_ostream os(message);
    os << std::move(error);
    SPIRJIT_INTERNAL_CHECK(false, std::string(what) + ": " + os.str());
  }
}

/// LLJIT's IR layer, which nothing feeds: host code reaches the JIT as
/// object files. Without it LLJIT would make a target machine of its own.
class NoIRCompiler : public llvm::orc::IRCompileLayer::IRCompiler {
public:
  NoIRCompiler() : IRCompiler(llvm::orc::IRSymbolMapper::ManglingOptions()) {}
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
  operator()(llvm::Module &) override {
    return llvm::make_error<llvm::StringError>(
        "host code reaches the JIT as object files",
        llvm::inconvertibleErrorCode());
  }
};

} // namespace

HostJIT &HostJIT::instance() {
  // Never destroyed: code it linked may be let go of by other static
  // objects' destructors at exit (the native CPU device's kernels kept in
  // static caches), after a static JIT would be gone.
  static HostJIT *jit = new HostJIT;
  return *jit;
}

HostJIT::HostJIT() : state_(std::make_unique<State>()) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  auto machine = check(llvm::orc::JITTargetMachineBuilder::detectHost(),
                       "no JIT for this host");
  machine.setCodeGenOptLevel(llvm::CodeGenOpt::Default);
  machine_ = machine.getTargetTriple().str() + " " + machine.getCPU() + " " +
             machine.getFeatures().getString();
  state_->builder = machine;
  // The data layout from a machine of our own, which the first kernel then
  // borrows: LLJIT would make one for the layout alone.
  std::unique_ptr<llvm::TargetMachine> first =
      check(machine.createTargetMachine(), "no target machine for this host");
  state_->jit = check(
      llvm::orc::LLJITBuilder()
          .setJITTargetMachineBuilder(machine)
          .setDataLayout(first->createDataLayout())
          .setCompileFunctionCreator([](llvm::orc::JITTargetMachineBuilder)
                                         -> llvm::Expected<std::unique_ptr<
                                             llvm::orc::IRCompileLayer::
                                                 IRCompiler>> {
            return std::make_unique<NoIRCompiler>();
          })
          .create(),
      "cannot create the host JIT");
  state_->idle[1].push_back(std::move(first));
  llvm::orc::LLJIT &jit = *state_->jit;
  triple_ = jit.getTargetTriple().str();
  dataLayout_ = jit.getDataLayout().getStringRepresentation();
  char prefix = jit.getDataLayout().getGlobalPrefix();
  // The C library's math (sin, expf, ...): the process's symbols, and
  // libm's in case the interpreter did not load it globally.
  jit.getMainJITDylib().addGenerator(check(
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix),
      "cannot search the process's symbols"));
  auto libm = llvm::orc::DynamicLibrarySearchGenerator::Load("libm.so.6", prefix);
  if (libm)
    jit.getMainJITDylib().addGenerator(std::move(*libm));
  else
    llvm::consumeError(libm.takeError());
  // The vector variants LLVM's TargetLibraryInfo names for x86-64 (AVX2's
  // _ZGVd... and SSE's _ZGVb...): only where the CPU runs AVX2.
  if (jit.getTargetTriple().getArch() == llvm::Triple::x86_64 &&
      machine.getFeatures().getString().find("+avx2") != std::string::npos) {
    auto libmvec =
        llvm::orc::DynamicLibrarySearchGenerator::Load("libmvec.so.1", prefix);
    if (libmvec) {
      jit.getMainJITDylib().addGenerator(std::move(*libmvec));
      vectorMath_ = true;
    } else {
      llvm::consumeError(libmvec.takeError());
    }
  }
}

void HostJIT::defineHelpers(const std::map<std::string, void *> &helpers) {
  std::lock_guard<std::mutex> lock(mutex_);
  llvm::orc::LLJIT &jit = *state_->jit;
  llvm::orc::SymbolMap symbols;
  for (const auto &[name, address] : helpers)
    symbols[jit.mangleAndIntern(name)] = llvm::JITEvaluatedSymbol(
        llvm::pointerToJITTargetAddress(address),
        llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable);
  check(jit.getMainJITDylib().define(llvm::orc::absoluteSymbols(symbols)),
        "cannot define the host helpers");
}

bool HostJIT::hasSymbol(const std::string &symbol) const {
  return llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(symbol) !=
         nullptr;
}

HostJIT::TargetMachineLease HostJIT::leaseTargetMachine(bool optimising) {
  std::vector<std::unique_ptr<llvm::TargetMachine>> &idle =
      state_->idle[optimising];
  std::unique_ptr<llvm::TargetMachine> machine;
  {
    std::lock_guard<std::mutex> lock(machines_);
    if (!idle.empty()) {
      machine = std::move(idle.back());
      idle.pop_back();
    }
  }
  if (!machine) {
    llvm::orc::JITTargetMachineBuilder builder = *state_->builder;
    builder.setCodeGenOptLevel(optimising ? llvm::CodeGenOpt::Default
                                          : llvm::CodeGenOpt::None);
    machine = check(builder.createTargetMachine(),
                    "no target machine for this host");
  }
  // The JIT is never destroyed (instance()), so neither is `idle`.
  return TargetMachineLease(machine.release(),
                            [this, &idle](llvm::TargetMachine *given) {
                              std::lock_guard<std::mutex> lock(machines_);
                              idle.emplace_back(given);
                            });
}

std::vector<char> HostJIT::compile(llvm::Module &module, bool optimising) {
  TargetMachineLease machine = leaseTargetMachine(optimising);
  llvm::orc::SimpleCompiler compiler(*machine);
  std::unique_ptr<llvm::MemoryBuffer> object =
      check(compiler(module), "cannot compile host code");
  return std::vector<char>(object->getBufferStart(), object->getBufferEnd());
}

std::shared_ptr<void> HostJIT::load(const std::vector<char> &object,
                                    const std::string &symbol) {
  std::lock_guard<std::mutex> lock(mutex_);
  llvm::StringRef bytes(object.data(), object.size());
  // Checked before linking: the linker reports a malformed object through
  // the session's error reporter, which prints.
  auto parsed = llvm::object::ObjectFile::createObjectFile(
      llvm::MemoryBufferRef(bytes, "host code"));
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return nullptr;
  }
  bool defined = false;
  for (const llvm::object::SymbolRef &s : (*parsed)->symbols()) {
    llvm::Expected<llvm::StringRef> name = s.getName();
    if (!name) {
      llvm::consumeError(name.takeError());
      return nullptr;
    }
    defined |= *name == symbol;
  }
  if (!defined || (*parsed)->getArch() != llvm::Triple(triple_).getArch())
    return nullptr;
  llvm::orc::LLJIT &jit = *state_->jit;
  auto library = jit.createJITDylib("host" + std::to_string(loaded_++));
  if (!library)
    check(library.takeError(), "cannot create a JITDylib");
  library->addToLinkOrder(jit.getMainJITDylib());
  check(
      jit.addObjectFile(*library, llvm::MemoryBuffer::getMemBufferCopy(bytes)),
      "cannot add host code");
  auto address = jit.lookup(*library, symbol);
  if (!address) {
    llvm::consumeError(address.takeError());
    unlink(*library);
    return nullptr;
  }
  llvm::orc::JITDylib *owner = &*library;
  return std::shared_ptr<void>(address->toPtr<void *>(), [this, owner](void *) {
    std::lock_guard<std::mutex> lock(mutex_);
    unlink(*owner);
  });
}

void HostJIT::unlink(llvm::orc::JITDylib &library) {
  // Removing the JITDylib frees its code and symbol tables, and the names
  // it interned are dead entries of the pool then. It fails only for a
  // library another links against, which none does; a destructor calls
  // this, so a failure leaves the code rather than throwing.
  llvm::orc::ExecutionSession &session = state_->jit->getExecutionSession();
  llvm::consumeError(session.removeJITDylib(library));
  session.getSymbolStringPool()->clearDeadEntries();
}

} // namespace spirjit
