// The CUDA backend: see CUDA.h. The driver API's few types and constants
// are declared here (values from cuda.h), so building needs no toolkit.
//
// Launch ABI (compiler/NVPTX.h): the entry point takes the kept
// parameters in order, each local-memory parameter as an i32 byte offset
// into the launch's dynamic shared segment, then three i64 global extents
// in OpenCL order. A Range launch picks its own block shape and rounds the
// grid up; the kernel guards the extra threads.
#include "runtime/CUDA.h"
#include "runtime/DriverLibrary.h"
#include "runtime/MemoryPool.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <type_traits>

namespace spirjit::runtime {
namespace {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
constexpr CUresult CUDA_ERROR_NOT_READY = 600;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8;
constexpr int CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10;
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
constexpr int CU_JIT_INFO_LOG_BUFFER = 3;
constexpr int CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
/// A stream that orders itself with the legacy default stream, where CuPy
/// and PyTorch queue their work by default: a DeviceArray that CuPy wrote
/// through a view (`cupy.asarray(d) += 1`) is read after that write, as
/// users of those libraries expect of each other. (A non-blocking stream
/// raced such a write now and then on a busy GPU.)
constexpr unsigned CU_STREAM_DEFAULT = 0;
constexpr unsigned CU_EVENT_DISABLE_TIMING = 2;

/// The driver entry points spirjit uses: member, symbol, parameters.
#define CUDA_FUNCTIONS(X)                                                      \
  X(cuInit, "cuInit", unsigned)                                                \
  X(cuDriverGetVersion, "cuDriverGetVersion", int *)                           \
  X(cuDeviceGetCount, "cuDeviceGetCount", int *)                               \
  X(cuDeviceGet, "cuDeviceGet", CUdevice *, int)                               \
  X(cuDeviceGetName, "cuDeviceGetName", char *, int, CUdevice)                 \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute", int *, int, CUdevice)        \
  X(cuDeviceTotalMem, "cuDeviceTotalMem_v2", size_t *, CUdevice)               \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", CUcontext *,         \
    CUdevice)                                                                  \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", CUcontext)                             \
  X(cuStreamCreate, "cuStreamCreate", CUstream *, unsigned)                    \
  X(cuStreamDestroy, "cuStreamDestroy_v2", CUstream)                           \
  X(cuStreamSynchronize, "cuStreamSynchronize", CUstream)                      \
  X(cuMemAlloc, "cuMemAlloc_v2", CUdeviceptr *, size_t)                        \
  X(cuMemFree, "cuMemFree_v2", CUdeviceptr)                                    \
  X(cuMemAllocManaged, "cuMemAllocManaged", CUdeviceptr *, size_t, unsigned)  \
  X(cuMemAllocHost, "cuMemAllocHost_v2", void **, size_t)                      \
  X(cuMemFreeHost, "cuMemFreeHost", void *)                                    \
  X(cuMemcpyPeerAsync, "cuMemcpyPeerAsync", CUdeviceptr, CUcontext,            \
    CUdeviceptr, CUcontext, size_t, CUstream)                                  \
  X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", CUdeviceptr, const void *,      \
    size_t, CUstream)                                                          \
  X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", void *, CUdeviceptr, size_t,    \
    CUstream)                                                                  \
  X(cuModuleLoadDataEx, "cuModuleLoadDataEx", CUmodule *, const void *,        \
    unsigned, int *, void **)                                                  \
  X(cuModuleUnload, "cuModuleUnload", CUmodule)                                \
  X(cuModuleGetFunction, "cuModuleGetFunction", CUfunction *, CUmodule,        \
    const char *)                                                              \
  X(cuFuncSetAttribute, "cuFuncSetAttribute", CUfunction, int, int)            \
  X(cuLaunchKernel, "cuLaunchKernel", CUfunction, unsigned, unsigned,          \
    unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void **,       \
    void **)                                                                   \
  X(cuEventCreate, "cuEventCreate", CUevent *, unsigned)                       \
  X(cuEventRecord, "cuEventRecord", CUevent, CUstream)                         \
  X(cuStreamWaitEvent, "cuStreamWaitEvent", CUstream, CUevent, unsigned)       \
  X(cuEventQuery, "cuEventQuery", CUevent)                                     \
  X(cuEventSynchronize, "cuEventSynchronize", CUevent)                         \
  X(cuEventDestroy, "cuEventDestroy_v2", CUevent)                              \
  X(cuGetErrorName, "cuGetErrorName", CUresult, const char **)                \
  X(cuDeviceCanAccessPeer, "cuDeviceCanAccessPeer", int *, CUdevice,          \
    CUdevice)                                                                  \
  X(cuCtxEnablePeerAccess, "cuCtxEnablePeerAccess", CUcontext, unsigned)

struct Driver {
#define CUDA_DECLARE(name, symbol, ...) CUresult (*name)(__VA_ARGS__) = nullptr;
  CUDA_FUNCTIONS(CUDA_DECLARE)
#undef CUDA_DECLARE
  bool loaded = false;
};

/// The driver, loaded and initialised once; `loaded` is false without one.
const Driver &driver() {
  static const Driver api = [] {
    Driver d;
    void *library = openDriverLibrary("SPIRJIT_CUDA_DRIVER", "libcuda.so.1");
    if (!library)
      return d;
    bool complete = true;
    auto resolve = [&](auto &function, const char *symbol) {
      function =
          driverEntry<std::remove_reference_t<decltype(function)>>(library,
                                                                   symbol);
      complete &= function != nullptr;
    };
#define CUDA_RESOLVE(name, symbol, ...) resolve(d.name, symbol);
    CUDA_FUNCTIONS(CUDA_RESOLVE)
#undef CUDA_RESOLVE
    d.loaded = complete && d.cuInit(0) == CUDA_SUCCESS;
    return d;
  }();
  return api;
}

void check(CUresult result, const std::string &what) {
  if (result == CUDA_SUCCESS)
    return;
  throw DeviceError("cuda", result, cudaResultName(result), what);
}

class CudaDevice;

/// Plain device memory (cuMemAlloc): a pointer, but not the host's. Its
/// block of `capacity` bytes goes back to the device's pool.
class CudaBuffer final : public Buffer {
public:
  CudaBuffer(std::shared_ptr<Device> device, CUdeviceptr pointer, size_t size,
             size_t capacity, UsmKind kind = UsmKind::Device)
      : Buffer(std::move(device), size, nullptr,
               reinterpret_cast<void *>(pointer),
               /*hostAddressable=*/kind != UsmKind::Device),
        capacity_(capacity) {
    setUsmKind(kind);
  }
  ~CudaBuffer() override;

private:
  size_t capacity_; // the pooled block's size
};

class CudaProgram final : public Program {
public:
  CudaProgram(std::shared_ptr<Device> device, CUmodule module,
              std::vector<char> ptx)
      : Program(std::move(device)), module_(module), ptx_(std::move(ptx)) {}
  ~CudaProgram() override {
    if (!processExiting()) // (see processExiting)
      driver().cuModuleUnload(module_);
  }
  CUmodule handle() const { return module_; }
  const std::vector<char> &ptx() const { return ptx_; }

private:
  CUmodule module_;
  std::vector<char> ptx_;
};

/// A function with its parameters' bytes, kept between launches.
class CudaKernel final : public Kernel {
public:
  CudaKernel(std::shared_ptr<Program> program, CUfunction function)
      : Kernel(std::move(program)), function_(function) {}
  CUfunction handle() const { return function_; }

  /// Lays the local buffers out in the shared segment (16-byte aligned),
  /// sets the extents and gives the parameter pointers and the segment's
  /// size.
  void **prepare(const size_t extents[3], unsigned &sharedBytes) {
    size_t offset = 0;
    for (Slot &slot : slots_)
      if (slot.localBytes) {
        offset = (offset + 15) / 16 * 16;
        auto at = static_cast<uint32_t>(offset);
        std::memcpy(slot.bytes, &at, sizeof at);
        offset += slot.localBytes;
      }
    for (int d = 0; d < 3; ++d)
      extents_[d] = static_cast<int64_t>(extents[d]);
    if (pointers_.size() != slots_.size() + 3) {
      pointers_.clear();
      for (Slot &slot : slots_)
        pointers_.push_back(slot.bytes);
      for (int64_t &extent : extents_)
        pointers_.push_back(&extent);
    }
    sharedBytes = static_cast<unsigned>(offset);
    return pointers_.data();
  }
  /// Shared memory above 48 KiB needs the function's opt-in.
  void allowShared(unsigned bytes) {
    if (bytes <= 48 * 1024 || bytes <= allowedShared_)
      return;
    check(driver().cuFuncSetAttribute(
              function_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
              static_cast<int>(bytes)),
          "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
    allowedShared_ = bytes;
  }

protected:
  void bindValue(unsigned index, size_t size, const void *value) override {
    Slot &slot = slotAt(index);
    if (!value) { // local memory: an offset prepare() fills in
      slot.localBytes = size ? size : 1;
      return;
    }
    if (size > sizeof slot.bytes)
      throw DeviceError("cuda", -1, "INVALID_VALUE",
                        "a kernel parameter of " + std::to_string(size) +
                            " bytes");
    slot.localBytes = 0;
    std::memcpy(slot.bytes, value, size);
  }
  void bindBuffer(unsigned index, const Buffer &buffer,
                  size_t offset) override {
    Slot &slot = slotAt(index);
    slot.localBytes = 0;
    void *pointer = static_cast<char *>(buffer.svm()) + offset;
    std::memcpy(slot.bytes, &pointer, sizeof pointer);
  }

private:
  struct Slot {
    alignas(8) unsigned char bytes[16] = {};
    size_t localBytes = 0; // non-zero: a local buffer of that size
  };
  Slot &slotAt(unsigned index) {
    if (slots_.size() <= index) {
      slots_.resize(index + 1);
      pointers_.clear(); // the slots moved
    }
    return slots_[index];
  }

  CUfunction function_;
  std::vector<Slot> slots_;
  int64_t extents_[3] = {1, 1, 1};
  std::vector<void *> pointers_;
  unsigned allowedShared_ = 48 * 1024;
};

/// Events, reused: an async launch records one, and creating and
/// destroying it each time cost about as much as the launch.
class EventPool {
public:
  CUevent take() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!free_.empty()) {
        CUevent event = free_.back();
        free_.pop_back();
        return event;
      }
    }
    CUevent event = nullptr;
    check(driver().cuEventCreate(&event, CU_EVENT_DISABLE_TIMING),
          "cuEventCreate");
    return event;
  }
  /// Recording the event again later is safe: cuEventRecord replaces the
  /// state of one that is still pending.
  void give(CUevent event) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(event);
  }

private:
  std::mutex mutex_;
  std::vector<CUevent> free_;
};

class CudaEvent final : public Event {
public:
  CudaEvent(CUevent event, EventPool &pool) : event_(event), pool_(pool) {}
  ~CudaEvent() override { pool_.give(event_); }
  bool complete() override {
    return driver().cuEventQuery(event_) != CUDA_ERROR_NOT_READY;
  }
  void wait() override {
    check(driver().cuEventSynchronize(event_), "cuEventSynchronize");
  }
  CUevent handle() const { return event_; }

private:
  CUevent event_;
  EventPool &pool_;
};

class CudaDevice final : public Device {
public:
  CudaDevice(DeviceInfo info, CUcontext context, CUstream stream)
      : Device(std::move(info)), context_(context), stream_(stream),
        openedInFork_(forkGeneration()) {}

  CUstream stream() const { return stream_; }

  /// Queues a wait for everything queued so far on `other` (another
  /// library's stream) before whatever this device queues next.
  void waitFor(CUstream other) {
    streamWaits(stream_, other, "waiting for another library's CUDA stream");
  }

  /// The context on the calling thread: each thread starts without one.
  void makeCurrent() const {
    // A CUDA context does not survive os.fork(): say so instead of failing
    // (or waiting) in the driver.
    if (forkGeneration() != openedInFork_)
      throw DeviceError("cuda", 3, "CUDA_ERROR_NOT_INITIALIZED",
                        info().name + " was opened before os.fork(), and "
                        "CUDA does not work in a child process; start child "
                        "processes with multiprocessing's 'spawn' or "
                        "'forkserver' method, or use the device only after "
                        "the fork");
    thread_local CUcontext current = nullptr;
    if (current == context_)
      return;
    check(driver().cuCtxSetCurrent(context_), "cuCtxSetCurrent");
    current = context_;
  }

  std::shared_ptr<Buffer> allocate(size_t size, const void *host) override {
    checkAllocationSize(size);
    makeCurrent();
    // A freed block first (MemoryPool.h): cuMemAlloc and cuMemFree cost
    // tens of microseconds, and cuMemFree waits for the device.
    CUresult result = CUDA_SUCCESS;
    auto [block, capacity] = pool_.obtain(
        size ? size : 1,
        [&](size_t bytes) -> void * {
          CUdeviceptr p = 0;
          result = driver().cuMemAlloc(&p, bytes);
          return result == CUDA_SUCCESS ? reinterpret_cast<void *>(p) : nullptr;
        },
        [](void *p) { driver().cuMemFree(reinterpret_cast<CUdeviceptr>(p)); });
    if (!block)
      check(result, "cuMemAlloc of " + std::to_string(size) + " bytes on " +
                        info().name);
    auto buffer = std::make_shared<CudaBuffer>(
        shared_from_this(), reinterpret_cast<CUdeviceptr>(block), size,
        capacity);
    if (host && size)
      write(*buffer, host, size, 0);
    return buffer;
  }

  /// usm_type "shared" is managed memory (cuMemAllocManaged), "host" is
  /// pinned host memory (cuMemAllocHost) the GPU reads over the bus: both
  /// host-addressable, both at the same address on host and device
  /// (unified addressing). Each kind has its pool: pinning 64 MB costs tens
  /// of milliseconds, and an array expression allocates every time.
  bool allocatesHostAddressable(UsmKind kind) const override {
    return kind != UsmKind::Device;
  }
  std::shared_ptr<Buffer> allocateUsm(size_t size, const void *host,
                                      UsmKind kind) override {
    if (kind == UsmKind::Device)
      return Device::allocateUsm(size, host, kind);
    checkAllocationSize(size);
    makeCurrent();
    CUresult result = CUDA_SUCCESS;
    auto [block, capacity] = pools_[static_cast<int>(kind)]->obtain(
        size ? size : 1,
        [&](size_t bytes) -> void * {
          CUdeviceptr p = 0;
          void *pinned = nullptr;
          result = kind == UsmKind::Shared
                       ? driver().cuMemAllocManaged(&p, bytes,
                                                    /*CU_MEM_ATTACH_GLOBAL*/ 1)
                       : driver().cuMemAllocHost(&pinned, bytes);
          if (result != CUDA_SUCCESS)
            return nullptr;
          return kind == UsmKind::Shared ? reinterpret_cast<void *>(p) : pinned;
        },
        releaser(kind));
    if (!block)
      check(result, std::string(kind == UsmKind::Shared ? "cuMemAllocManaged"
                                                        : "cuMemAllocHost") +
                        " of " + std::to_string(size) + " bytes for " +
                        info().name);
    auto buffer = std::make_shared<CudaBuffer>(
        shared_from_this(), reinterpret_cast<CUdeviceptr>(block), size,
        capacity, kind);
    if (host && size)
      write(*buffer, host, size, 0);
    return buffer;
  }

  void read(const Buffer &buffer, void *host, size_t size,
            size_t offset) override {
    if (size == 0)
      return;
    makeCurrent();
    if (buffer.usmKind() == UsmKind::Host) { // pinned host memory: the
      finish();                              // host's own, once done
      std::memcpy(host, static_cast<char *>(buffer.svm()) + offset, size);
      return;
    }
    check(driver().cuMemcpyDtoHAsync(host, address(buffer, offset), size,
                                     stream_),
          "cuMemcpyDtoHAsync");
    finish();
  }
  void write(const Buffer &buffer, const void *host, size_t size,
             size_t offset) override {
    if (size == 0)
      return;
    makeCurrent();
    if (buffer.usmKind() == UsmKind::Host) {
      finish(); // after every queued kernel that reads or writes it
      std::memcpy(static_cast<char *>(buffer.svm()) + offset, host, size);
      return;
    }
    check(driver().cuMemcpyHtoDAsync(address(buffer, offset), host, size,
                                     stream_),
          "cuMemcpyHtoDAsync");
    finish();
  }

  NativeHandles nativeHandles() override {
    return {0, static_cast<std::uintptr_t>(cuDevice_),
            reinterpret_cast<std::uintptr_t>(context_),
            reinterpret_cast<std::uintptr_t>(stream_)};
  }

  bool copyFromPeer(const Buffer &from, size_t fromOffset, const Buffer &to,
                    size_t size) override {
    auto *source = dynamic_cast<CudaDevice *>(from.device().get());
    // Device memory on both sides: managed and pinned memory go through
    // the host as before.
    if (!source || from.usmKind() != UsmKind::Device ||
        to.usmKind() != UsmKind::Device)
      return false;
    if (size == 0)
      return true;
    enablePeerAccess(*source);
    source->enablePeerAccess(*this);
    // After what both devices queued; and what the source queues next
    // (its pool may hand the memory to a new array) waits for the copy.
    source->streamWaits(stream_, source->stream_,
                        "ordering a copy between GPUs after the source");
    makeCurrent();
    check(driver().cuMemcpyPeerAsync(address(to, 0), context_,
                                     source->address(from, fromOffset),
                                     source->context_, size, stream_),
          "cuMemcpyPeerAsync");
    streamWaits(source->stream_, stream_,
                "ordering the source GPU after a copy to another");
    return true;
  }

  /// Lets this context address `peer`'s memory directly where the two GPUs
  /// can (NVLink, or PCIe peer to peer): copies between them then go
  /// device to device instead of through the host. Asked once per peer;
  /// "already enabled" (by CuPy or PyTorch in the process) is fine.
  void enablePeerAccess(const CudaDevice &peer) {
    std::lock_guard<std::mutex> lock(peersMutex_);
    if (!peersAsked_.insert(peer.cuDevice_).second)
      return;
    int can = 0;
    if (driver().cuDeviceCanAccessPeer(&can, cuDevice_, peer.cuDevice_) !=
            CUDA_SUCCESS ||
        !can)
      return;
    makeCurrent();
    driver().cuCtxEnablePeerAccess(peer.context_, 0);
  }

  /// A stream of this context that does not wait for the legacy default
  /// stream, for work beside the device's own stream.
  CUstream newSideStream() {
    makeCurrent();
    CUstream stream = nullptr;
    check(driver().cuStreamCreate(&stream, 1 /* CU_STREAM_NON_BLOCKING */),
          "cuStreamCreate");
    return stream;
  }

  /// Queues on `other` (another library's stream) a wait for everything
  /// queued so far on this device's stream.
  void orderBefore(CUstream other) {
    streamWaits(other, stream_, "making another library's CUDA stream wait");
  }

  /// Queues on `waiter` a wait for everything queued so far on
  /// `signaller`: an event recorded on one, waited for on the other.
  void streamWaits(CUstream waiter, CUstream signaller, const char *what) {
    makeCurrent();
    CUevent event = events_.take();
    CUresult recorded = driver().cuEventRecord(event, signaller);
    CUresult waited = recorded == CUDA_SUCCESS
                          ? driver().cuStreamWaitEvent(waiter, event, 0)
                          : recorded;
    events_.give(event); // a pending record is safe to reuse (EventPool)
    check(waited, what);
  }

  std::unique_ptr<Event> enqueueMarker() override {
    makeCurrent();
    auto owned = std::make_unique<CudaEvent>(events_.take(), events_);
    check(driver().cuEventRecord(owned->handle(), stream_), "cuEventRecord");
    return owned;
  }

  /// The PTX itself: the driver keeps its own cache of what it compiled
  /// from it (~/.nv/ComputeCache), so loading it again is cheap.
  std::shared_ptr<Program>
  buildFromDeviceBinary(const std::vector<char> &bits) override {
    return buildFromPTX(bits);
  }
  std::vector<char> programBinary(const Program &program) override {
    return static_cast<const CudaProgram &>(program).ptx();
  }

  std::shared_ptr<Kernel> createKernel(const std::shared_ptr<Program> &program,
                                       const std::string &name) override {
    makeCurrent();
    CUfunction function = nullptr;
    check(driver().cuModuleGetFunction(
              &function, static_cast<const CudaProgram &>(*program).handle(),
              name.c_str()),
          "cuModuleGetFunction(" + name + ")");
    return std::make_shared<CudaKernel>(program, function);
  }

  std::unique_ptr<Event> launch(Kernel &kernel,
                                const std::vector<size_t> &global,
                                const std::vector<size_t> &local,
                                bool wantEvent) override {
    makeCurrent();
    auto &ck = static_cast<CudaKernel &>(kernel);
    Shape shape = shapeOf(global, local);
    unsigned shared = 0;
    void **parameters = ck.prepare(shape.extents, shared);
    ck.allowShared(shared);
    check(driver().cuLaunchKernel(ck.handle(), shape.grid[0], shape.grid[1],
                                  shape.grid[2], shape.block[0], shape.block[1],
                                  shape.block[2], shared, stream_, parameters,
                                  nullptr),
          "cuLaunchKernel");
    return wantEvent ? enqueueMarker() : nullptr;
  }

  void finish() override {
    makeCurrent();
    check(driver().cuStreamSynchronize(stream_), "cuStreamSynchronize");
  }

  double bareLaunchLoop(Kernel &kernel, const std::vector<size_t> &global,
                        int count) override {
    makeCurrent();
    auto &ck = static_cast<CudaKernel &>(kernel);
    Shape shape = shapeOf(global, {});
    unsigned shared = 0;
    void **parameters = ck.prepare(shape.extents, shared);
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < count; ++i)
      driver().cuLaunchKernel(ck.handle(), shape.grid[0], shape.grid[1],
                              shape.grid[2], shape.block[0], shape.block[1],
                              shape.block[2], shared, stream_, parameters,
                              nullptr);
    finish();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  }

protected:
  std::shared_ptr<Program> buildFromSPIRV(const std::vector<char> &) override {
    throw DeviceError("cuda", -1, "UNSUPPORTED",
                      info().name + " takes PTX, not SPIR-V");
  }

  /// cuModuleLoadDataEx, with ptxas's log in the error on failure.
  std::shared_ptr<Program>
  buildFromPTX(const std::vector<char> &text) override {
    makeCurrent();
    std::vector<char> ptx(text);
    if (ptx.empty() || ptx.back() != '\0')
      ptx.push_back('\0');
    char errors[8192] = {}, infos[4096] = {};
    int options[] = {CU_JIT_ERROR_LOG_BUFFER,
                     CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER,
                     CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {errors, reinterpret_cast<void *>(sizeof errors - 1),
                      infos, reinterpret_cast<void *>(sizeof infos - 1)};
    CUmodule module = nullptr;
    CUresult result =
        driver().cuModuleLoadDataEx(&module, ptx.data(), 4, options, values);
    if (result != CUDA_SUCCESS)
      throw DeviceError("cuda", result, cudaResultName(result),
                        "cuModuleLoadDataEx (the driver's PTX JIT) on " +
                            info().name,
                        std::string(errors) + infos);
    ptx.pop_back();
    return std::make_shared<CudaProgram>(shared_from_this(), module,
                                         std::move(ptx));
  }

private:
  struct Shape {
    unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
    size_t extents[3] = {1, 1, 1};
  };

  /// A Range's block: up to 256 threads, the fastest dimension first, no
  /// wider than the extents need; an NdRange's is its work-group.
  Shape shapeOf(const std::vector<size_t> &global,
                const std::vector<size_t> &local) const {
    Shape shape;
    size_t budget = 256;
    for (size_t d = 0; d < global.size() && d < 3; ++d) {
      shape.extents[d] = global[d];
      size_t block = 1;
      if (!local.empty()) {
        block = local[d];
        // The kernel has no guard for items past the extents (NVPTX.h).
        if (block == 0 || global[d] % block != 0)
          throw DeviceError("cuda", -1, "INVALID_WORK_GROUP_SIZE",
                            "a work-group of " + std::to_string(block) +
                                " work-items does not divide the " +
                                std::to_string(global[d]) + " of dimension " +
                                std::to_string(d));
      } else {
        while (block * 2 <= budget && block < global[d])
          block *= 2;
      }
      budget /= block ? block : 1;
      size_t grid = global[d] == 0 ? 0 : (global[d] + block - 1) / block;
      size_t limit = d == 0 ? 0x7fffffffu : maxGrid_[d];
      if (grid > limit)
        throw DeviceError("cuda", -1, "INVALID_RANGE",
                          "a launch of " + std::to_string(global[d]) +
                              " work-items in dimension " + std::to_string(d) +
                              " needs more than the " + std::to_string(limit) +
                              " blocks " + info().name + " allows there");
      shape.block[d] = static_cast<unsigned>(block);
      shape.grid[d] = static_cast<unsigned>(grid);
    }
    return shape;
  }

  CUdeviceptr address(const Buffer &buffer, size_t offset) const {
    return reinterpret_cast<CUdeviceptr>(buffer.svm()) + offset;
  }

  CUcontext context_;
  CUstream stream_;
  EventPool events_;
  int openedInFork_;
  /// Freed allocations (MemoryPool.h): device memory, then managed and
  /// pinned host memory (UsmKind's order).
  MemoryPool pool_{memoryPoolLimit(info().globalMemSize)};
  MemoryPool sharedPool_{memoryPoolLimit(info().globalMemSize)};
  MemoryPool hostPool_{memoryPoolLimit(info().globalMemSize)};
  MemoryPool *pools_[3] = {&pool_, &sharedPool_, &hostPool_};

  static void (*releaser(UsmKind kind))(void *) {
    if (kind == UsmKind::Host)
      return [](void *p) { driver().cuMemFreeHost(p); };
    return [](void *p) { driver().cuMemFree(reinterpret_cast<CUdeviceptr>(p)); };
  }

public:
  /// A freed block of this device, kept for reuse (the context current).
  void recycle(void *pointer, size_t capacity, UsmKind kind) {
    pools_[static_cast<int>(kind)]->put({pointer, capacity}, releaser(kind));
  }

public:
  size_t maxGrid_[3] = {0x7fffffffu, 65535, 65535};
  CUdevice cuDevice_ = 0;

private:
  std::mutex peersMutex_;
  std::set<CUdevice> peersAsked_;
};

CudaBuffer::~CudaBuffer() {
  // Never throws: in a forked child the parent's context is gone (nothing
  // to free), and a driver failure here has no one to report to.
  try {
    auto &device = static_cast<CudaDevice &>(*this->device());
    device.makeCurrent();
    device.recycle(svm(), capacity_, usmKind());
  } catch (const DeviceError &) {
  }
}

std::shared_ptr<CudaDevice> openDevice(int ordinal) {
  const Driver &api = driver();
  CUdevice device = 0;
  check(api.cuDeviceGet(&device, ordinal), "cuDeviceGet");
  auto attribute = [&](int which) {
    int value = 0;
    check(api.cuDeviceGetAttribute(&value, which, device),
          "cuDeviceGetAttribute");
    return value;
  };
  char name[256] = {};
  check(api.cuDeviceGetName(name, sizeof name - 1, device), "cuDeviceGetName");
  int version = 0;
  check(api.cuDriverGetVersion(&version), "cuDriverGetVersion");
  int capability =
      attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) * 10 +
      attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  DeviceInfo info;
  info.name = name;
  info.vendor = "NVIDIA Corporation";
  info.platform = "CUDA";
  // The disk cache keys images by this: driver and compute capability.
  info.version = "CUDA " + std::to_string(version / 1000) + "." +
                 std::to_string(version % 1000 / 10) + ", sm_" +
                 std::to_string(capability);
  info.backend = "cuda";
  info.deviceType = "gpu";
  info.backendIndex = ordinal;
  info.computeCapability = capability;
  info.maxWorkGroupSize =
      static_cast<size_t>(attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
  info.hasFp64 = true;
  info.hasAtomic64 = true;
  info.hasFloatAtomics = true;
  info.imageFormats = {ImageFormat::PTX};
  size_t total = 0;
  check(api.cuDeviceTotalMem(&total, device), "cuDeviceTotalMem");
  info.globalMemSize = total;
  // A thread's local memory: at most 512 KiB, and the driver reserves it
  // for every thread the GPU can hold at once, in global memory.
  uint64_t resident =
      static_cast<uint64_t>(
          attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)) *
      static_cast<uint64_t>(attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT));
  info.privateMemPerWorkItem =
      std::min<uint64_t>(512u << 10, resident ? total / 2 / resident : 0);
  int optIn = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  info.localMemSize = static_cast<uint64_t>(
      optIn ? optIn
            : attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK));
  info.memBaseAddrAlign = 256;
  // What spirjit-devices lists: multiprocessors are the compute units, a
  // warp is the one sub-group size, half precision is native from sm_53.
  info.computeUnits = static_cast<uint32_t>(
      attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT));
  info.subGroupSizes = {
      static_cast<size_t>(attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE))};
  info.hasFp16 = capability >= 53;
  info.driverVersion = std::to_string(version / 1000) + "." +
                       std::to_string(version % 1000 / 10);
  info.platformVersion = "CUDA " + info.driverVersion;
  info.hasSvm = true; // device pointers: views are pointer offsets
  CUcontext context = nullptr;
  check(api.cuDevicePrimaryCtxRetain(&context, device),
        "cuDevicePrimaryCtxRetain");
  check(api.cuCtxSetCurrent(context), "cuCtxSetCurrent");
  CUstream stream = nullptr;
  check(api.cuStreamCreate(&stream, CU_STREAM_DEFAULT), "cuStreamCreate");
  auto opened = std::make_shared<CudaDevice>(std::move(info), context, stream);
  opened->cuDevice_ = device;
  opened->maxGrid_[1] =
      static_cast<size_t>(attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y));
  opened->maxGrid_[2] =
      static_cast<size_t>(attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z));
  return opened;
}

} // namespace

std::uintptr_t cudaStreamHandle(const Device &device) {
  auto *cuda = dynamic_cast<const CudaDevice *>(&device);
  return cuda ? reinterpret_cast<std::uintptr_t>(cuda->stream()) : 0;
}

void cudaWaitForStream(Device &device, std::uintptr_t stream) {
  if (auto *cuda = dynamic_cast<CudaDevice *>(&device))
    cuda->waitFor(reinterpret_cast<CUstream>(stream));
}

void cudaOrderBefore(Device &device, std::uintptr_t stream) {
  if (auto *cuda = dynamic_cast<CudaDevice *>(&device))
    cuda->orderBefore(reinterpret_cast<CUstream>(stream));
}

std::uintptr_t cudaCreateSideStream(Device &device) {
  auto *cuda = dynamic_cast<CudaDevice *>(&device);
  return cuda ? reinterpret_cast<std::uintptr_t>(cuda->newSideStream()) : 0;
}

void cudaDestroySideStream(Device &device, std::uintptr_t stream) {
  if (auto *cuda = dynamic_cast<CudaDevice *>(&device)) {
    cuda->makeCurrent();
    driver().cuStreamDestroy(reinterpret_cast<CUstream>(stream));
  }
}

void cudaMakeCurrent(Device &device) {
  if (auto *cuda = dynamic_cast<CudaDevice *>(&device))
    cuda->makeCurrent();
}

std::string cudaResultName(int code) {
  const char *name = nullptr;
  const Driver &api = driver();
  if (api.cuGetErrorName && api.cuGetErrorName(code, &name) == CUDA_SUCCESS &&
      name)
    return name;
  if (code == CUDA_ERROR_OUT_OF_MEMORY)
    return "CUDA_ERROR_OUT_OF_MEMORY";
  return "CUresult " + std::to_string(code);
}

const std::vector<std::shared_ptr<Device>> &cudaDevices() {
  static const std::vector<std::shared_ptr<Device>> devices = [] {
    std::vector<std::shared_ptr<Device>> found;
    const Driver &api = driver();
    int count = 0;
    if (!api.loaded || api.cuDeviceGetCount(&count) != CUDA_SUCCESS)
      return found;
    for (int i = 0; i < count; ++i)
      found.push_back(openDevice(i));
    return found;
  }();
  return devices;
}

} // namespace spirjit::runtime
