// The host target (HostTarget.cpp) and the in-process JIT that runs what
// is compiled for it (HostJIT.cpp).
#pragma once

#include "compiler/Target.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace spirjit {

/// The native target of `triple` with the JIT's `dataLayout`.
std::unique_ptr<Target> createHostTarget(const std::string &triple,
                                         const std::string &dataLayout);

/// LLVM's ORC LLJIT, one per process, created at first use. Modules added
/// stay for the process; the host ABI's helpers (HostABI.h) are bound to
/// the addresses given by defineHelpers, the C library's functions are
/// found in the process.
class HostJIT {
public:
  static HostJIT &instance();
  const std::string &triple() const { return triple_; }
  const std::string &dataLayout() const { return dataLayout_; }
  /// Binds the names host code calls to their addresses; called once,
  /// before the first module is added.
  void defineHelpers(const std::map<std::string, void *> &helpers);
  /// Compiles `module` to machine code and returns the address of
  /// `symbol`. Throws InternalError on failure.
  void *add(std::unique_ptr<llvm::Module> module,
            std::unique_ptr<llvm::LLVMContext> context,
            const std::string &symbol);

private:
  HostJIT();
  struct State;
  std::unique_ptr<State> state_;
  std::string triple_, dataLayout_;
  std::mutex mutex_;
};

} // namespace spirjit
