// What every backend offers, and all the rest of spirjit sees of one: a
// Device with memory (Buffer), programs built from SPIR-V (Program),
// kernels with arguments (Kernel), launches and their completion (Event).
// OpenCL.cpp, LevelZero.cpp, CUDA.cpp and NativeCPU.cpp implement it;
// allDevices() lists the devices of all four. Every backend failure throws DeviceError naming the backend's
// own error code.
//
// Contract shared by the backends:
//  - one in-order queue per device: commands complete in the order they
//    were enqueued, so a launch needs no event to follow the one before;
//  - Buffer::pointer() is a device pointer (OpenCL SVM, Level Zero USM)
//    where the device has them, so views are pointer offsets;
//  - a Kernel remembers what is bound to it (plain values by their bytes,
//    memory by the Buffer's id and offset) and skips rebinding it.
#pragma once

#include "runtime/DeviceError.h"
#include "runtime/DeviceImage.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace spirjit::runtime {

struct DeviceInfo {
  std::string name, vendor, platform, version;
  std::string backend;    // "opencl", "level_zero", "cuda", "native"
  std::string deviceType; // "cpu", "gpu", "accelerator"
  int backendIndex = 0;   // index among this backend's devices of this type
  /// 0 when the driver does not say (Level Zero's null driver).
  size_t maxWorkGroupSize = 0;
  bool hasFp64 = false, hasAtomic64 = false;
  bool hostUnifiedMemory = false;
  bool supportsSpirv = false;
  /// Atomic add and exchange on float32 (cl_ext_float_atomics).
  bool hasFloatAtomics = false;
  int addressBits = 64;
  /// An NVIDIA GPU's compute capability, major*10+minor; 0 elsewhere.
  int computeCapability = 0;
  std::string ilVersion;
  /// The image formats build() takes, the preferred one first.
  std::vector<ImageFormat> imageFormats;
  uint64_t globalMemSize = 0, localMemSize = 0;
  /// Private memory (a kernel's PrivateArrays and other stack) a launch
  /// may use, per work-item and per work-group; 0 where the device sets no
  /// limit spirjit knows of. PoCL keeps a whole work-group's on one
  /// thread's stack; a CUDA thread has 512 KiB.
  uint64_t privateMemPerWorkItem = 0, privateMemPerGroup = 0;
  size_t memBaseAddrAlign = 0; // bytes
  /// Allocations are plain pointers (OpenCL SVM, Level Zero USM), so views
  /// are pointer offsets; host-addressable ones the host may also use.
  bool hasSvm = false, hasFineGrainSvm = false;
  /// For device listings (spirjit-devices): what clinfo and sycl-ls show.
  std::string driverVersion, platformVersion;
  uint32_t computeUnits = 0;          // 0 when the driver does not say
  /// How many float32 lanes the device's vectors hold
  /// (CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT: 8 with AVX2, 16 with AVX-512);
  /// 0 when the driver does not say.
  uint32_t floatLanes = 0;
  std::vector<size_t> subGroupSizes; // empty when the driver does not say
  bool hasFp16 = false, imageSupport = false;
  /// The compiler vectorises a work-group's items only where a kernel's
  /// code is one innermost loop over them (spirjit's native device, PoCL),
  /// not across a per-item loop: launch shapes that give each item its
  /// own loop give such a device one item a group (launch/ReduceShape).
  bool vectorizesInnermostItemLoopsOnly = false;
  /// Kernels launched over an NdRange are compiled for the launch's
  /// work-group extents (spirjit's native device: its loops over a group's
  /// items then run a count LLVM knows, as PoCL compiles per group size).
  bool compilesPerWorkGroup = false;
};

class Device;

/// What a DeviceArray's memory is, in SYCL's USM terms (dpnp's `usm_type`):
/// memory for the device, shared with the host (migrating), or the host's
/// own that the device reads (Device::allocateUsm says what each backend
/// allocates); results of array expressions take their operands'
/// (combineUsmKinds).
enum class UsmKind { Device, Shared, Host };
/// "device", "shared", "host".
const char *usmKindName(UsmKind kind);

/// The process is exiting (the interpreter's atexit hook said so): the
/// drivers' programs are then left to the process's end, not released,
/// since releasing one (CUDA's cuModuleUnload) waits for every kernel of
/// the context, and one may never end (a wait the user interrupted).
void markProcessExiting();
bool processExiting();
/// The kind of a name usmKindName gives; false for any other text.
bool parseUsmKind(const std::string &name, UsmKind &kind);
/// The kind of a result computed from memory of kinds `a` and `b`: dpctl's
/// rule, the most device-bound of the two (device, then shared, then host).
inline UsmKind combineUsmKinds(UsmKind a, UsmKind b) {
  return static_cast<int>(a) < static_cast<int>(b) ? a : b;
}

/// Memory on one device.
class Buffer {
public:
  Buffer(std::shared_ptr<Device> device, size_t size, void *hostPointer,
         void *pointer, bool hostAddressable)
      : device_(std::move(device)), size_(size), hostPointer_(hostPointer),
        pointer_(pointer), hostAddressable_(hostAddressable),
        id_(nextId()) {}
  virtual ~Buffer() = default;
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;

  size_t size() const { return size_; }
  /// Non-null when the buffer lives in host memory the caller owns.
  void *hostPointer() const { return hostPointer_; }
  /// The device pointer (SVM/USM), or nullptr for an OpenCL cl_mem buffer.
  void *svm() const { return pointer_; }
  /// May the host read and write the memory at svm() directly?
  bool hostAddressable() const { return hostAddressable_; }
  const std::shared_ptr<Device> &device() const { return device_; }
  /// Unique in the process, never reused: a new allocation at a freed
  /// one's address is still a different buffer.
  uint64_t id() const { return id_; }
  /// The USM kind the allocation was asked for (Device::allocate).
  UsmKind usmKind() const { return usmKind_; }
  void setUsmKind(UsmKind kind) { usmKind_ = kind; }
  /// The backend's own memory object where svm() is null (an OpenCL
  /// cl_mem), for native code that takes the memory (extension.hpp).
  virtual void *nativeMemory() const { return nullptr; }

private:
  static uint64_t nextId();

  std::shared_ptr<Device> device_;
  size_t size_;
  void *hostPointer_;
  void *pointer_;
  bool hostAddressable_;
  uint64_t id_;
  UsmKind usmKind_ = UsmKind::Device;
};

/// A module built for one device.
class Program {
public:
  explicit Program(std::shared_ptr<Device> device)
      : device_(std::move(device)) {}
  virtual ~Program() = default;
  Program(const Program &) = delete;
  Program &operator=(const Program &) = delete;
  const std::shared_ptr<Device> &device() const { return device_; }

private:
  std::shared_ptr<Device> device_;
};

/// One entry point of a Program, with its bound arguments.
class Kernel {
public:
  explicit Kernel(std::shared_ptr<Program> program)
      : program_(std::move(program)) {}
  virtual ~Kernel() = default;
  Kernel(const Kernel &) = delete;
  Kernel &operator=(const Kernel &) = delete;
  const std::shared_ptr<Program> &program() const { return program_; }

  /// Binds `size` bytes at `value` (nullptr: that much local memory),
  /// unless the kernel already holds exactly that.
  void setArgument(unsigned index, size_t size, const void *value);
  /// Binds `buffer` at byte `offset` (a pointer buffer takes any offset),
  /// unless that very buffer (by id) is bound there at that offset.
  void setBuffer(unsigned index, const Buffer &buffer, size_t offset = 0);

protected:
  /// The backend's own binding calls; on failure they throw DeviceError
  /// (and the kernel keeps what it held).
  virtual void bindValue(unsigned index, size_t size, const void *value) = 0;
  virtual void bindBuffer(unsigned index, const Buffer &buffer,
                          size_t offset) = 0;

private:
  /// What an argument slot holds: a value by its bytes (local memory by
  /// its size alone), or memory by its Buffer's id and offset.
  struct Bound {
    bool known = false; // false: nothing, or a value too large to keep
    size_t size = 0;    // a value's size, or memory's offset
    unsigned char bytes[16] = {};
    uint64_t buffer = 0; // a Buffer's id for memory, else 0
    bool operator==(const Bound &o) const;
  };
  /// Binds through `bind` unless slot `index` already holds `want`.
  template <typename Bind>
  void setIfChanged(unsigned index, const Bound &want, Bind bind);

  std::shared_ptr<Program> program_;
  std::vector<Bound> bound_; // per argument slot
};

/// Completion of one enqueued command (a launch or a marker).
class Event {
public:
  virtual ~Event() = default;
  /// Finished, successfully or not; never blocks.
  virtual bool complete() = 0;
  /// Blocks until finished; a failed command throws its DeviceError.
  virtual void wait() = 0;
  /// Blocks until finished or `limit` has passed, whichever comes first;
  /// true if finished, and then a failed command throws as from wait().
  /// Lets a waiter look up between slices (Ctrl-C). By default it spins,
  /// yielding the core.
  virtual bool waitFor(std::chrono::nanoseconds limit);
};

/// The backend's own handles of a device, as native code (a C++
/// extension: python/spirjit/include/spirjit/extension.hpp) takes them to
/// queue work behind spirjit's. OpenCL: cl_platform_id, cl_device_id,
/// cl_context, the in-order cl_command_queue; CUDA: no platform, the
/// CUdevice, the primary CUcontext, the CUstream; Level Zero:
/// ze_driver_handle_t, ze_device_handle_t, ze_context_handle_t, the
/// immediate ze_command_list_handle_t.
struct NativeHandles {
  std::uintptr_t platform = 0, device = 0, context = 0, queue = 0;
};

class Device : public std::enable_shared_from_this<Device> {
public:
  explicit Device(DeviceInfo info) : info_(std::move(info)) {}
  virtual ~Device() = default;
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;

  const DeviceInfo &info() const { return info_; }
  /// "opencl:cpu:0": backend, type, index among that backend's devices.
  std::string filterString() const {
    return info_.backend + ":" + info_.deviceType + ":" +
           std::to_string(info_.backendIndex);
  }

  /// A buffer holding a copy of `size` bytes at `host` (or uninitialised).
  /// Every backend first refuses, by checkAllocationSize, what the device
  /// cannot hold.
  virtual std::shared_ptr<Buffer> allocate(size_t size,
                                           const void *host = nullptr) = 0;
  /// The same as USM memory of `kind`. Backends with one kind of memory
  /// (OpenCL SVM, Level Zero shared USM) record the kind on their buffer;
  /// CUDA allocates managed and pinned host memory for "shared" and "host".
  /// Whether allocateUsm(..., kind) gives memory the host may address
  /// (Buffer::hostAddressable), known before allocating.
  virtual bool allocatesHostAddressable(UsmKind kind) const { return true; }
  virtual std::shared_ptr<Buffer> allocateUsm(size_t size, const void *host,
                                              UsmKind kind) {
    std::shared_ptr<Buffer> buffer = allocate(size, host);
    buffer->setUsmKind(kind);
    return buffer;
  }
  /// A buffer over caller-owned host memory, without a copy, where the
  /// device shares the host's memory; nullptr where it cannot.
  virtual std::shared_ptr<Buffer> wrapHostMemory(void *host, size_t size) {
    return nullptr;
  }
  /// Blocking copies; they follow everything queued before them.
  virtual void read(const Buffer &buffer, void *host, size_t size,
                    size_t offset = 0) = 0;
  virtual void write(const Buffer &buffer, const void *host, size_t size,
                     size_t offset = 0) = 0;
  /// Copies `size` bytes of `from` at `fromOffset`, memory of another device
  /// of this backend, into the start of this device's `to`, without the
  /// host: after what both devices queued before, and before what either
  /// queues next. False where the backend has no such copy for these
  /// buffers (the caller goes through the host).
  virtual bool copyFromPeer(const Buffer &from, size_t fromOffset,
                            const Buffer &to, size_t size) {
    return false;
  }
  /// Queues what makes a wrapHostMemory buffer's host memory hold what
  /// kernels wrote, once the queue reaches it.
  virtual void enqueueHostSynchronization(const Buffer &buffer) {}
  /// An event that completes when everything queued so far has.
  virtual std::unique_ptr<Event> enqueueMarker() = 0;
  /// The handles of the context and queue spirjit uses (opened if they
  /// were not yet), so that native code queues behind what is queued.
  virtual NativeHandles nativeHandles() = 0;

  /// Views the host holds of this device's memory, read and written in
  /// place by other code (the buffer protocol, DLPack on the CPU: NumPy
  /// arrays over it). While there are any, launches finish before they
  /// return, so such a view never shows a kernel's writes half done.
  void addHostView() { hostViews_.fetch_add(1, std::memory_order_relaxed); }
  void removeHostView() { hostViews_.fetch_sub(1, std::memory_order_relaxed); }
  bool hasHostViews() const {
    return hostViews_.load(std::memory_order_relaxed) > 0;
  }

  /// The image formats build() takes, the preferred one first.
  const std::vector<ImageFormat> &acceptedFormats() const {
    return info_.imageFormats;
  }
  /// Builds a program from a device image in one of acceptedFormats();
  /// any other format throws DeviceError("UNSUPPORTED").
  std::shared_ptr<Program> build(const DeviceImage &image);
  /// Builds a program from a binary this device produced before.
  virtual std::shared_ptr<Program>
  buildFromDeviceBinary(const std::vector<char> &bits) = 0;
  /// The device's own binary of a built program (empty if it has none).
  virtual std::vector<char> programBinary(const Program &program) = 0;
  /// Whether a program is best built again from programBinary() rather
  /// than from its image (Intel's CPU runtime's binary is the finished
  /// code: 7 KB, built again in a fraction of the image's time).
  virtual bool rebuildsFromBinary() const { return true; }
  virtual std::shared_ptr<Kernel>
  createKernel(const std::shared_ptr<Program> &program,
               const std::string &name) = 0;

  /// Enqueues a launch behind everything queued before it; `global` (and
  /// `local`, when non-empty) in OpenCL's dimension order (dimension 0
  /// fastest). Returns the launch's event when `wantEvent`, else nullptr.
  /// (Events of other devices are waited for by the caller, on the host.)
  virtual std::unique_ptr<Event> launch(Kernel &kernel,
                                        const std::vector<size_t> &global,
                                        const std::vector<size_t> &local,
                                        bool wantEvent) = 0;
  /// Waits for everything queued; a failed command throws.
  virtual void finish() = 0;
  /// For the dispatch benchmark: enqueues `kernel` `count` times as it is
  /// bound, with no event, then finishes. Returns the seconds taken.
  virtual double bareLaunchLoop(Kernel &kernel,
                                const std::vector<size_t> &global,
                                int count) = 0;

protected:
  /// Throws an out-of-memory DeviceError for an allocation larger than the
  /// device's global memory, before the driver sees it (drivers answer
  /// such requests each their own way, from an error to an abort).
  void checkAllocationSize(size_t size) const;

  /// The backends' builders behind build(), one per format they take.
  virtual std::shared_ptr<Program>
  buildFromSPIRV(const std::vector<char> &bytes) = 0;
  virtual std::shared_ptr<Program>
  buildFromSPIRBitcode(const std::vector<char> &bits);
  virtual std::shared_ptr<Program> buildFromPTX(const std::vector<char> &text);
  virtual std::shared_ptr<Program>
  buildFromHostObject(const std::vector<char> &object);

private:
  DeviceInfo info_;
  std::atomic<int> hostViews_{0};
};

/// Every device of every backend (CUDA GPUs first, then OpenCL, then
/// Level Zero, then the native CPU device where SPIRJIT_NATIVE=1), found
/// once per process. A backend without a driver adds none and no error.
/// How many os.fork()s separate this process from the one that first
/// called this (pthread_atfork): a context opened at another count belongs
/// to an ancestor. PoCL's and CUDA's do not work in a child.
int forkGeneration();

const std::vector<std::shared_ptr<Device>> &allDevices();

} // namespace spirjit::runtime
