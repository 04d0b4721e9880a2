// Launching compiled kernels, with no Python: the cache of a kernel's
// specialisations (in memory and on disk), argument binding by the kernel
// ABI, the index space in the backend's order, the checks a launch makes
// before the driver sees it, and launches in flight (Event).
//
// Callers hand over argument values (ArgumentValue) already converted from
// whatever they hold (the Python bindings convert NumPy arrays, spirjit
// DeviceArrays and numbers; the C entry point in spirjit_launch.h takes
// them as they are). A KernelCache is used by one caller at a time: the
// Python bindings serialise on the GIL, which the launcher gives up while
// it compiles or waits (setCallerLock); other callers serialise on their
// own.
#pragma once

#include "compiler/KernelABI.h"
#include "compiler/Pipeline.h"
#include "launch/ResidentKernel.h"
#include "runtime/Device.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace spirjit::launch {

/// A launch refused before the driver saw it. Each kind becomes one
/// documented error class in Python.
enum class LaunchErrorKind {
  Typing,            // TypingError: arguments the kernel cannot take
  InvalidRange,      // InvalidRangeError: an index space the device refuses
  OutOfDeviceMemory, // OutOfDeviceMemoryError: more local memory than it has
  DeviceInference,   // DeviceInferenceError: arrays on several devices
  Device,            // DeviceError: no device, or none matching a filter
  InvalidArgument,   // ValueError: a malformed filter or signature
  // Failures a kernel compiled with checks reported (DebugRecord.h),
  // raised after the launch:
  IndexOutOfBounds, // IndexError
  ZeroDivision,     // ZeroDivisionError
  AssertionFailed,  // AssertionError
  // A wait the caller's interrupt check stopped (setInterruptCheck): the
  // caller raises what its check found (KeyboardInterrupt).
  Interrupted,
};

class LaunchError : public std::runtime_error {
public:
  LaunchError(LaunchErrorKind kind, const std::string &message)
      : std::runtime_error(message), kind_(kind) {}
  LaunchErrorKind kind() const { return kind_; }

private:
  LaunchErrorKind kind_;
};

/// A launch's index space: extents with dimension 0 the slowest (spirjit's
/// order; the backend's is the reverse), and for an NdRange the work-group
/// extents.
struct LaunchRange {
  int dims = 0;
  int64_t global[3] = {1, 1, 1};
  int64_t local[3] = {1, 1, 1};
  bool ndRange = false;
};

/// One argument of a launch, as the caller converted it. Pointers are the
/// caller's and must stay valid until submit() returns; host memory until
/// the launch's Event has been waited for (or it was dropped and retired).
struct ArgumentValue {
  enum class Kind : unsigned char {
    DeviceArray,   // memory of one device: buffer + byte offset
    HostArray,     // host memory the launch uses in place or copies
    Scalar,        // bytes of a number
    LocalAccessor, // work-group local memory of `localBytes`, by shape
  };
  Kind kind = Kind::Scalar;
  /// The compiler type: the array's (a LocalAccessor's in address space 3)
  /// or the scalar's.
  const Type *type = nullptr;
  /// Arrays and LocalAccessors: extents; arrays: strides in bytes.
  const int64_t *shape = nullptr;
  const int64_t *strides = nullptr;
  int64_t itemsize = 0;
  /// DeviceArray.
  const std::shared_ptr<runtime::Buffer> *buffer = nullptr;
  int64_t offset = 0;
  /// HostArray: the first element, and whether the kernel may write it.
  /// DeviceArray: false promises the kernel does not write it (the inputs
  /// of fused array kernels), so that it may overlap other such arrays and
  /// still be noalias.
  void *data = nullptr;
  bool writable = true;
  /// Scalar: little-endian bytes; a complex number's parts in two slots.
  uint64_t scalar[2] = {0, 0};
  /// Scalar: a Python number (bool, int, float, complex), weak under NEP
  /// 50: a kernel's `signatures=` take it as any type of its kind that
  /// holds its value (2.0 as float32, 1 as int32), as numba converts.
  bool python = false;
  /// LocalAccessor: its size in bytes.
  int64_t localBytes = 0;
};

/// 'C', 'F' or 'A' for an array of `n` dimensions (strides in bytes).
char layoutOf(const int64_t *shape, const int64_t *strides, int n,
              int64_t itemsize);

/// The caller's lock, given up while the launcher blocks (compiles, waits
/// for the device) so that the caller's other threads run meanwhile. The
/// Python bindings pass the GIL's; by default there is none.
/// `release` returns what `reacquire` takes back.
void setCallerLock(void *(*release)(), void (*reacquire)(void *));

/// Asked every 50 ms while a wait blocks, on the waiting thread with the
/// caller's lock given up: true stops the wait with a LaunchError of kind
/// Interrupted, and the launch goes on unwaited, as if its Event had been
/// dropped. The Python bindings pass a check for Ctrl-C; by default there
/// is none and waits block until the device is done.
void setInterruptCheck(bool (*interrupted)());

/// Something a launch keeps alive for the caller until it completes (the
/// bindings keep NumPy arrays so); `release(object)` lets go of it, called
/// with the caller's lock held.
struct HeldObject {
  void *object;
  void (*release)(void *);
};

/// Where a checked kernel reports (DebugRecord.h): a buffer, over host
/// memory (`host`) where the device shares the host's.
struct DebugRecord {
  std::shared_ptr<runtime::Buffer> buffer;
  char *host = nullptr;
};

/// A launch in flight.
class Event {
public:
  Event() = default;
  /// Dropped unfinished: never waits, but what the launch uses stays
  /// alive until the device is done with it.
  ~Event();
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;

  /// Waits (giving up the caller's lock; an interrupt check may stop it:
  /// setInterruptCheck), throws a failed launch's
  /// runtime::DeviceError, makes host arrays the kernel wrote current, and
  /// throws the first failure a checked kernel reported (LaunchError of
  /// IndexOutOfBounds, ZeroDivision or AssertionFailed).
  void wait();
  /// True once wait() has returned.
  bool done() const { return done_; }
  const std::shared_ptr<runtime::Device> &device() const { return device_; }
  /// Keeps `object` until the launch completes. Reserve room for `count`
  /// first to allocate once.
  void reserveHeld(size_t count) { held_.reserve(count); }
  void hold(HeldObject object) { held_.push_back(object); }

private:
  friend class KernelCache;
  struct Pending {
    std::shared_ptr<runtime::Buffer> buffer;
    void *host;
    bool wrapped, written;
  };
  void releaseHeld();
  /// After the launch: the failure the debug record holds, if any.
  void throwReportedFailure();

  std::shared_ptr<runtime::Device> device_;
  std::unique_ptr<runtime::Event> handle_;
  uint64_t sequence_ = 0;
  std::vector<Pending> pending_;
  std::vector<std::shared_ptr<runtime::Buffer>> alive_;
  std::vector<HeldObject> held_;
  /// A checked kernel's debug record, and its sites.
  DebugRecord debugRecord_;
  std::shared_ptr<const std::vector<DebugSite>> debugSites_;
  bool done_ = false;
};

struct CacheStatistics {
  int compiles = 0, memoryHits = 0, diskHits = 0;
  /// Programs built again after the device let go of them (ResidentKernel.h).
  int rebuilds = 0;
  /// Of the last compile (0 for a disk hit) and the last device build.
  double compileSeconds = 0, deviceBuildSeconds = 0;
};

/// The compiled specialisations of one @kernel function, per (argument
/// types, launch rank, Range or NdRange, device), and its launches.
class KernelCache {
public:
  /// `describe` gives the function's description; it is called once, at
  /// the first compilation (Python freezes globals and closure values so).
  KernelCache(std::function<FunctionDescription()> describe,
              CompileOptions options);
  ~KernelCache();
  KernelCache(const KernelCache &) = delete;
  KernelCache &operator=(const KernelCache &) = delete;

  /// Launches over `range` on `device` with `args` after `dependencies`
  /// (queues are in order: only other devices' are waited for, on the
  /// host), filling `event`. Without `wantEvent` the backend creates no
  /// event of its own; Event::wait() then waits for a marker. Returns, per
  /// argument, whether the kernel may write it.
  const std::vector<bool> &
  submit(Event &event, const LaunchRange &range, const ArgumentValue *args,
         size_t n, const std::shared_ptr<runtime::Device> &device,
         Event *const *dependencies, size_t dependencyCount, bool wantEvent);
  /// submit() and wait().
  void launch(const LaunchRange &range, const ArgumentValue *args, size_t n,
              const std::shared_ptr<runtime::Device> &device);

  /// Restricts launches to these numba-style signatures and compiles each
  /// now for the default device, at the smallest rank its item queries
  /// need and the range kind its item annotation asks for, so errors
  /// surface at decoration and a launch of that rank finds its kernel.
  /// A malformed signature is LaunchError(InvalidArgument).
  void setSignatures(const std::vector<std::string> &signatures);

  const CacheStatistics &statistics() const { return statistics_; }
  /// The compile request of each specialisation held, in key order, so
  /// that the dump tool can compile them again for another target (the
  /// CUDA form of array kernels run on an OpenCL device). Valid while the
  /// cache lives.
  std::vector<KernelRequest> requests();
  /// How many KernelCaches the process holds: kernels, device functions'
  /// kernels and jit functions' loops each own theirs, and their programs.
  /// Lets a test see that dropped ones are freed, apart from the driver's
  /// own memory.
  static int64_t liveCount();

  /// For the dispatch benchmark: enqueues the last launched kernel `count`
  /// times as it is bound (a bare C++ loop), then finishes. Returns the
  /// seconds taken.
  double bareEnqueueLoop(const std::vector<int64_t> &extents, int count);

private:
  struct Entry {
    CompiledKernel compiled;
    /// Built from compiled.image, which it keeps a reference to.
    std::unique_ptr<ResidentKernel> resident;
    /// The parameters the entry point kept, in order (KernelABI.h).
    std::vector<KernelParameter> parameters;
    /// compiled.debugSites, shared with the Events of launches in flight.
    std::shared_ptr<const std::vector<DebugSite>> debugSites;
  };
  struct Key {
    std::vector<const Type *> types;
    int dimensions;
    bool ndRange;
    const runtime::Device *device;
    /// The LocalAccessors' extents, flattened (KernelRequest): a kernel is
    /// compiled for them. Empty for one compiled from `signatures=`.
    std::vector<int64_t> localExtents;
    /// The launch's arrays share no byte: compiled with noalias array
    /// parameters (LoweringOptions::noaliasArrays).
    bool disjoint = false;
    /// The work-group's extents, the backend's order (KernelRequest): an
    /// NdRange kernel of the native CPU device is compiled for them. Empty
    /// elsewhere, and for one compiled from `signatures=`.
    std::vector<int64_t> groupExtents;
    bool operator<(const Key &o) const {
      return std::tie(types, dimensions, ndRange, device, localExtents,
                      disjoint, groupExtents) <
             std::tie(o.types, o.dimensions, o.ndRange, o.device,
                      o.localExtents, o.disjoint, o.groupExtents);
    }
  };

  const FunctionDescription &description();
  KernelRequest requestFor(const Key &key);
  Entry &compile(const Key &key,
                 const std::shared_ptr<runtime::Device> &device);
  /// `signatures=`: a TypingError for types none of them lists.
  void checkSignatures(const std::vector<const Type *> &types);
  /// `signatures=` listing no signature of the arguments' own types: the
  /// first whose scalars the given ones cast to safely (NumPy's can_cast,
  /// as numba's dispatcher converts), its arrays taken as they are; else
  /// nullptr.
  const std::vector<const Type *> *
  castingSignature(const std::vector<const Type *> &types,
                   const ArgumentValue *args) const;
  /// The launch's arguments as the signature that takes them wants them:
  /// `args` itself, or `converted` holding them with scalars cast to the
  /// signature's types (argTypes updated to match).
  const ArgumentValue *toSignature(const ArgumentValue *args, size_t n,
                                   std::vector<const Type *> &argTypes,
                                   std::vector<ArgumentValue> &converted) const;

  std::function<FunctionDescription()> describe_;
  std::optional<FunctionDescription> description_;
  CompileOptions options_;
  std::map<Key, std::unique_ptr<Entry>> cache_;
  std::vector<std::vector<const Type *>> signatures_;
  std::vector<std::string> signatureTexts_;
  // The last specialisation launched: most launches repeat it.
  Key lastKey_{};
  Entry *lastEntry_ = nullptr;
  CacheStatistics statistics_;
};

/// The number of the last launch so far, process-wide.
uint64_t launchesSoFar();
/// Lets go at once of what dropped launches on `device` numbered up to
/// `upTo` kept alive: the caller has seen the device finish them (a
/// finish() after launchesSoFar() returned `upTo`). Otherwise that memory
/// returns to the pool only at a later sweep, and a loop that allocates
/// and reads each time would allocate afresh every time.
void releaseFinishedLaunches(const runtime::Device &device, uint64_t upTo);

/// Native code (a C++ extension, extension.hpp) has queued work on
/// `device`'s queue that uses `buffers`: they stay alive until the device
/// has finished everything queued so far, as a dropped launch's do, and
/// wrapped host memory among them is made current behind that work. Where
/// the host holds views of the device's memory, waits for that work.
void retainUntilQueueDone(
    const std::shared_ptr<runtime::Device> &device,
    std::vector<std::shared_ptr<runtime::Buffer>> buffers);

/// What the compiler must know of `device`.
DeviceCapabilities capabilitiesOf(const runtime::Device &device);

/// The device a launch runs on: the one its device arrays live on, else
/// defaultDevice(). Arrays on two devices are a DeviceInference error.
std::shared_ptr<runtime::Device> deviceOfArguments(const ArgumentValue *args,
                                                   size_t n);
/// The default device: SPIRJIT_DEVICE's filter, else the first device.
std::shared_ptr<runtime::Device> defaultDevice();
/// Devices matching a filter "backend:type:index" (parts may be omitted).
std::vector<std::shared_ptr<runtime::Device>>
matchDevices(const std::string &filter);

} // namespace spirjit::launch
