// Calling a jit function's compiled host code: its specialisations (one per
// argument types; compileHost, the host code's object file kept in the
// disk cache), the kernel of each prange loop (a KernelCache each, so per
// device and on disk like any kernel), and the context of one call,
// through which the host code's helpers (HostABI.h) allocate and launch. No Python: the bindings convert arguments into the
// host ABI's parameters and results back.
#pragma once

#include "launch/Launcher.h"

#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace spirjit::launch {

struct JitSpecialization {
  CompiledHost host;
  std::vector<std::unique_ptr<KernelCache>> kernels; // one per parfor
};

/// One call of a jit function: where its loops run and what memory it knows.
struct HostCall {
  const JitSpecialization *function = nullptr;
  std::shared_ptr<runtime::Device> device;
  /// Arrays made in the call are device memory (a call on DeviceArrays)
  /// or host memory (a call on NumPy arrays).
  bool deviceMemory = false;
  /// The USM kind of arrays the call makes when none is asked for: its
  /// DeviceArray arguments' kinds combined (runtime::combineUsmKinds).
  runtime::UsmKind usmKind = runtime::UsmKind::Device;
  /// The host code may touch array elements (JitFunction::specialize's
  /// hostAddressable): what the call makes must then be host memory.
  bool hostAddressable = true;
  /// Memory the call knows: DeviceArray arguments' buffers and what it
  /// allocated. A launch passes an array inside one as that buffer.
  struct Region {
    char *begin = nullptr;
    size_t bytes = 0;
    std::shared_ptr<runtime::Buffer> buffer; // device memory
    void *owned = nullptr;                   // host memory: free()d
  };
  std::vector<Region> regions;
  /// The lists the host code made (spirjit_host_list), freed with their
  /// items when the call ends.
  std::vector<void *> lists;
  /// A helper's failure, rethrown by the caller after the host code
  /// returned its status.
  std::exception_ptr error;
  /// Where print() in the host code writes a line (the binding's: Python's
  /// sys.stdout); unset, C's stdout, flushed.
  std::function<void(const std::string &)> print;

  HostCall() = default;
  HostCall(const HostCall &) = delete;
  HostCall &operator=(const HostCall &) = delete;
  ~HostCall();
  /// The region holding `pointer`, or nullptr.
  Region *regionOf(const void *pointer);
  /// Hands an owned host allocation over (the caller frees it).
  void *release(Region &region);
};

/// Binds the host ABI's helpers in the process's JIT (once; compileHost
/// needs them bound).
void defineHostHelpers();

/// How a prange body's independent inner range loop runs (Parfor.h).
/// Auto: mapped onto a launch dimension of its own on GPUs (deviceType
/// "gpu"), whose loads coalesce so; a loop per work-item (a row) on other
/// devices, which run rows well. Always and Never: so on every device.
/// SPIRJIT_PRANGE_COALESCE=auto|always|never sets it when first asked
/// (anything else is auto).
enum class RowMapping { Auto, Always, Never };
RowMapping rowMapping();
/// Sets it (the tests' door); returns the previous setting.
RowMapping setRowMapping(RowMapping mapping);
/// HostRequest::mapRows for a device of this type (DeviceInfo::deviceType).
bool mapsRows(const std::string &deviceType);

class JitFunction {
public:
  /// `describe(operations)` describes the function, with the library
  /// entries of `operations` (LibraryOperationsNeeded), empty at first.
  using Describe =
      std::function<FunctionDescription(const std::vector<std::string> &)>;
  JitFunction(Describe describe, CompileOptions options);
  /// The specialisation for these argument types, made at first use (the
  /// host code linked from the disk cache, else compiled and stored
  /// there); for arrays the host cannot address
  /// (HostRequest::hostAddressable); with row loops mapped onto launch
  /// dimensions (HostRequest::mapRows, mapsRows).
  const JitSpecialization &specialize(const std::vector<const Type *> &types,
                                      bool hostAddressable = true,
                                      bool mapRows = false);
  /// That specialisation if it is made already (a memory hit), else
  /// nullptr.
  const JitSpecialization *find(const std::vector<const Type *> &types,
                                bool hostAddressable = true,
                                bool mapRows = false);
  /// Runs it: `parameters` points at each kernel-ABI parameter's value;
  /// the result goes to `result` (hostResultSlots of the return type).
  /// Throws what a helper failed with.
  static void call(HostCall &call, void **parameters, void *result);
  /// The description, with the library entries of `operations` (the
  /// compiler asks for them: LibraryOperationsNeeded); made once each, and
  /// kept, as specialisations point into them.
  const FunctionDescription &
  description(const std::vector<std::string> &operations = {});
  const CompileOptions &options() const { return options_; }
  /// Specialisations made: compiled, or linked from the disk cache.
  int specializations();
  /// Of the host code: compiles (with compileSeconds of the last), memory
  /// hits (a call finding its specialisation made) and disk hits.
  CacheStatistics hostStatistics();
  /// Of the prange loops' kernels, summed over every specialisation.
  CacheStatistics kernelStatistics();

private:
  Describe describe_;
  std::map<std::vector<std::string>, std::unique_ptr<FunctionDescription>>
      descriptions_;
  CompileOptions options_;
  /// By (types, hostAddressable, mapRows).
  std::map<std::tuple<std::vector<const Type *>, bool, bool>,
           std::unique_ptr<JitSpecialization>>
      specializations_;
  std::mutex mutex_;
  CacheStatistics hostStatistics_;
};

/// Bytes of one value of a number type (a complex number's two parts).
size_t itemSize(const Type *t);
/// `out` = the `n` partials of a prange reduction of `op` over values of
/// `t`, combined in order with `initial` (HostPartials.cpp).
void combinePartials(ReductionOp op, const Type *t, const void *initial,
                     const char *partials, int64_t n, void *out);
/// Whether foldArgPartials folds partials of `t` (real numbers).
bool foldsArgPartials(const Type *t);
/// An arg reduction's partials, `rows` x `groups` values of `t` and their
/// int64 indices, folded into each row's index at `out` + row *
/// `outStride` bytes; false, with nothing written, for a `t` it does not
/// fold (HostPartials.cpp).
bool foldArgPartials(bool isMax, const Type *t, const char *values,
                     const char *indices, int64_t rows, int64_t groups,
                     char *out, int64_t outStride);

} // namespace spirjit::launch
