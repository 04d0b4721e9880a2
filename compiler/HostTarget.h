// The host target (HostTarget.cpp) and the in-process JIT that runs what
// is compiled for it (HostJIT.cpp).
#pragma once

#include "compiler/Target.h"

#include <llvm/IR/Module.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace llvm {
class TargetMachine;
namespace orc {
class JITDylib;
} // namespace orc
} // namespace llvm

namespace spirjit {

/// The native target of `triple` with the JIT's `dataLayout`.
std::unique_ptr<Target> createHostTarget(const std::string &triple,
                                         const std::string &dataLayout);

/// The optimisation level for a jit function's lowered host code:
/// `requested` where a function of `module` loops, else 0 (LLVM's O0
/// pipeline, and HostJIT::compile's fast code generator). Host code without
/// loops runs once a call, straight through, to launch the prange loops'
/// kernels, which keep their level: optimising it saves nanoseconds a call
/// and cost a fresh process's first call 20 M of its 69 M instructions (a
/// function with one prange loop). A loop left in host code (the user's
/// `range` loop, a list's) runs as often as it says, so it gets the full
/// pipeline.
int hostOptimisationLevel(const llvm::Module &module, int requested);

/// LLVM's ORC LLJIT, one per process, created at first use. Host code
/// goes through it as relocatable object files: compile() makes one,
/// load() links one into the process, so an object kept in the disk cache
/// by an earlier process links the same way (HostCall.cpp). An object stays
/// as long as what load() returned (a jit function dropped must not leave
/// its code behind); the host ABI's helpers (HostABI.h) are bound to the
/// addresses given by defineHelpers, the C library's functions are found
/// in the process.
class HostJIT {
public:
  static HostJIT &instance();
  const std::string &triple() const { return triple_; }
  const std::string &dataLayout() const { return dataLayout_; }
  /// The machine code is for: the triple, the CPU and its features (a
  /// cache key's part: code for one CPU may not run on another).
  const std::string &machine() const { return machine_; }
  /// Are glibc's vector math functions (libmvec's x86-64 AVX2 variants,
  /// _ZGVdN4v_sin ...) linked with the code, and can this CPU run them?
  /// Elsewhere the math stays scalar calls of libm.
  bool vectorMath() const { return vectorMath_; }
  /// Does the process (or a library the JIT loaded) define `symbol`?
  bool hasSymbol(const std::string &symbol) const;
  /// Binds the names host code calls to their addresses; called once,
  /// before the first object is loaded.
  void defineHelpers(const std::map<std::string, void *> &helpers);
  /// A target machine of this host lent to one caller, given back when the
  /// lease ends.
  using TargetMachineLease =
      std::unique_ptr<llvm::TargetMachine,
                      std::function<void(llvm::TargetMachine *)>>;
  /// A target machine of this host (CPU, features) whose code generator
  /// optimises, or (`optimising` false) selects instructions fast and
  /// optimises nothing, for one caller at a time: LLVM's target machines
  /// are not safe to share between threads (the native CPU device's
  /// kernels are compiled on several: NativeTarget.h). Machines given back
  /// are lent again: making one and the subtarget it makes at first use
  /// costs some 3 M instructions, a tenth of a small kernel's compile.
  /// The two kinds never mix, because a subtarget keeps its machine's level
  /// (x86's slow-division bypass is set up only for optimised code).
  TargetMachineLease leaseTargetMachine(bool optimising = true);
  /// `module`'s machine code, as a relocatable object file for this host,
  /// by an optimising code generator or (`optimising` false) a fast one.
  /// Throws InternalError on failure.
  std::vector<char> compile(llvm::Module &module, bool optimising = true);
  /// Links `object` into the process, in a JITDylib of its own (the
  /// objects of two specialisations may define the same names), and
  /// returns the address of `symbol`, owning the code: the last copy's
  /// destruction unlinks it. Null when `object` is not an object file of
  /// this host that defines it (a disk-cache entry that is not what its key
  /// says).
  std::shared_ptr<void> load(const std::vector<char> &object,
                             const std::string &symbol);

private:
  HostJIT();
  /// Unlinks one load()'s code; the caller holds mutex_.
  void unlink(llvm::orc::JITDylib &library);
  struct State;
  std::unique_ptr<State> state_;
  std::string triple_, dataLayout_, machine_;
  bool vectorMath_ = false;
  std::mutex mutex_;
  /// Guards the target machines not lent (State::idle).
  std::mutex machines_;
  int loaded_ = 0;
};

} // namespace spirjit
