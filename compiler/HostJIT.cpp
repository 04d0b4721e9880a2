// LLVM's ORC LLJIT for host code (HostTarget.h): one per process.
#include "compiler/HostTarget.h"

#include "frontend/Diagnostics.h"

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>

namespace spirjit {

struct HostJIT::State {
  std::unique_ptr<llvm::orc::LLJIT> jit;
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

} // namespace

HostJIT &HostJIT::instance() {
  static HostJIT jit;
  return jit;
}

HostJIT::HostJIT() : state_(std::make_unique<State>()) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  auto machine = check(llvm::orc::JITTargetMachineBuilder::detectHost(),
                       "no JIT for this host");
  machine.setCodeGenOptLevel(llvm::CodeGenOpt::Default);
  state_->jit = check(
      llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(machine).create(),
      "cannot create the host JIT");
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

void *HostJIT::add(std::unique_ptr<llvm::Module> module,
                   std::unique_ptr<llvm::LLVMContext> context,
                   const std::string &symbol) {
  std::lock_guard<std::mutex> lock(mutex_);
  llvm::orc::LLJIT &jit = *state_->jit;
  check(jit.addIRModule(
            llvm::orc::ThreadSafeModule(std::move(module), std::move(context))),
        "cannot add host code");
  auto address = check(jit.lookup(symbol), "cannot compile host code");
  return address.toPtr<void *>();
}

} // namespace spirjit
