#include "runtime/OpenCL.h"
#include "runtime/MemoryPool.h"
#include "runtime/OpenCLListing.h"

#include <algorithm>
#include <atomic>

#include <CL/cl.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <pthread.h>
#include <sched.h>
#include <thread>
#include <tuple>

namespace spirjit::runtime {
namespace {

void check(cl_int status, const char *what) {
  if (status != CL_SUCCESS)
    throw DeviceError("opencl", status, openclErrorName(status), what);
}

class CLDevice;

class CLBuffer final : public Buffer {
public:
  /// `capacity`: for SVM from the device's pool, the block's bytes, which
  /// go back to the pool with the buffer (0: freed to the driver).
  CLBuffer(std::shared_ptr<Device> device, cl_context context, cl_mem mem,
           size_t size, void *hostPointer, void *svm = nullptr,
           bool hostAddressable = false, size_t capacity = 0)
      : Buffer(std::move(device), size, hostPointer, svm, hostAddressable),
        context_(context), mem_(mem), capacity_(capacity) {}
  ~CLBuffer() override;
  cl_mem handle() const { return mem_; }
  void *nativeMemory() const override { return mem_; }

private:
  cl_context context_;
  cl_mem mem_;
  size_t capacity_;
};

cl_mem memOf(const Buffer &buffer) {
  return static_cast<const CLBuffer &>(buffer).handle();
}

class CLProgram final : public Program {
public:
  CLProgram(std::shared_ptr<Device> device, cl_program program)
      : Program(std::move(device)), program_(program) {}
  ~CLProgram() override {
    if (program_)
      clReleaseProgram(program_);
  }
  cl_program handle() const { return program_; }

private:
  cl_program program_;
};

class CLKernel final : public Kernel {
public:
  CLKernel(std::shared_ptr<Program> program, cl_kernel kernel)
      : Kernel(std::move(program)), kernel_(kernel) {}
  ~CLKernel() override {
    if (kernel_)
      clReleaseKernel(kernel_);
  }
  cl_kernel handle() const { return kernel_; }

protected:
  void bindBuffer(unsigned index, const Buffer &buffer,
                  size_t offset) override {
    if (buffer.svm()) {
      check(clSetKernelArgSVMPointer(kernel_, index,
                                     static_cast<char *>(buffer.svm()) +
                                         offset),
            "clSetKernelArgSVMPointer");
      return;
    }
    if (offset != 0)
      throw DeviceError("opencl", CL_INVALID_VALUE, "CL_INVALID_VALUE",
                        "a view at an offset needs shared virtual memory, "
                        "which this device lacks");
    cl_mem mem = memOf(buffer);
    check(clSetKernelArg(kernel_, index, sizeof mem, &mem), "clSetKernelArg");
  }

  void bindValue(unsigned index, size_t size, const void *value) override {
    check(clSetKernelArg(kernel_, index, size, value), "clSetKernelArg");
  }

private:
  cl_kernel kernel_;
};

class CLEvent final : public Event {
public:
  CLEvent(cl_event event, cl_command_queue queue)
      : event_(event), queue_(queue) {}
  ~CLEvent() override { clReleaseEvent(event_); }
  bool complete() override { return status() <= CL_COMPLETE; }
  void wait() override {
    cl_int result = CL_SUCCESS;
    cl_int execution = spin();
    if (execution > CL_COMPLETE) {
      result = clWaitForEvents(1, &event_);
      execution = status();
    }
    finish(result, execution);
  }
  /// As wait(), but past the spin a thread of its own blocks in
  /// clWaitForEvents while the caller waits for it `limit` at most (the
  /// driver has no timed wait). A thread that waits, not a completion
  /// callback: Intel's CPU runtime runs kernels on the threads that wait
  /// for them, and work-items that wait for each other need them all.
  bool waitFor(std::chrono::nanoseconds limit) override {
    auto end = std::chrono::steady_clock::now() + limit;
    if (cl_int execution = spin(); execution <= CL_COMPLETE) {
      finish(CL_SUCCESS, execution);
      return true;
    }
    if (!completion_) {
      auto completion = std::make_shared<Completion>();
      clRetainEvent(event_); // the waiter's, released when it is done
      std::thread([completion, event = event_] {
        clWaitForEvents(1, &event);
        clReleaseEvent(event);
        {
          std::lock_guard<std::mutex> lock(completion->mutex);
          completion->done = true;
        }
        completion->condition.notify_all();
      }).detach();
      completion_ = std::move(completion);
    }
    {
      std::unique_lock<std::mutex> lock(completion_->mutex);
      if (!completion_->condition.wait_until(
              lock, end, [&] { return completion_->done; }))
        return false;
    }
    finish(CL_SUCCESS, status());
    return true;
  }

private:
  /// Set by the waiting thread, which shares it: the event may be gone
  /// (an interrupted wait) before the launch ends.
  struct Completion {
    std::mutex mutex;
    std::condition_variable condition;
    bool done = false;
  };

  /// Throws the DeviceError of a failed wait or of a command that failed
  /// (a negative execution status).
  static void finish(cl_int result, cl_int execution) {
    if (execution < 0)
      result = execution;
    check(result, "kernel execution");
  }

  /// Spins (yielding the core) for up to a millisecond: a short kernel is
  /// then seen done at once, where a blocked thread would wait tens of
  /// microseconds more to be woken (PoCL, measured here). Returns the
  /// last status seen.
  cl_int spin() {
    clFlush(queue_);
    auto start = std::chrono::steady_clock::now();
    cl_int execution = status();
    while (execution > CL_COMPLETE &&
           std::chrono::steady_clock::now() - start <
               std::chrono::milliseconds(1)) {
      sched_yield();
      execution = status();
    }
    return execution;
  }

  cl_int status() {
    cl_int execution = CL_QUEUED;
    if (clGetEventInfo(event_, CL_EVENT_COMMAND_EXECUTION_STATUS,
                       sizeof execution, &execution,
                       nullptr) != CL_SUCCESS)
      return CL_COMPLETE; // an event we cannot ask about: do not spin
    return execution;
  }

  cl_event event_;
  cl_command_queue queue_;
  std::shared_ptr<Completion> completion_;
};

class CLDevice final : public Device {
public:
  explicit CLDevice(const ListedDevice &listed)
      : Device(listed.info), listed_(listed) {}
  ~CLDevice() override {
    for (MemoryPool::Block block : pool_.drain())
      clSVMFree(context_, block.first);
    if (queue_)
      clReleaseCommandQueue(queue_);
    if (context_)
      clReleaseContext(context_);
  }

  /// A freed SVM block of this device's context, kept for reuse.
  void recycle(void *svm, size_t capacity) {
    pool_.put({svm, capacity}, [&](void *p) { clSVMFree(context_, p); });
  }

  std::shared_ptr<Buffer> allocate(size_t size, const void *host) override;
  /// Fine-grained SVM is the host's too; coarse SVM and buffers are not.
  bool allocatesHostAddressable(UsmKind) const override {
    return info().hasSvm && info().hasFineGrainSvm;
  }
  std::shared_ptr<Buffer> wrapHostMemory(void *host, size_t size) override;
  void read(const Buffer &buffer, void *host, size_t size,
            size_t offset) override;
  void write(const Buffer &buffer, const void *host, size_t size,
             size_t offset) override;
  void enqueueHostSynchronization(const Buffer &buffer) override;
  std::unique_ptr<Event> enqueueMarker() override;
  NativeHandles nativeHandles() override {
    cl_command_queue opened = queue();
    handedOut_.store(true, std::memory_order_release);
    return {reinterpret_cast<std::uintptr_t>(platform_),
            reinterpret_cast<std::uintptr_t>(device_),
            reinterpret_cast<std::uintptr_t>(context_),
            reinterpret_cast<std::uintptr_t>(opened)};
  }
  std::shared_ptr<Program>
  buildFromDeviceBinary(const std::vector<char> &bits) override {
    return buildFromBinary(bits, "");
  }
  std::vector<char> programBinary(const Program &program) override;
  /// PoCL's binary is the SPIR bitcode it was given, and it keeps memory
  /// of its own for each binary it gives (tens of KB resident).
  bool rebuildsFromBinary() const override { return !isPoCL(info()); }
  std::shared_ptr<Kernel> createKernel(const std::shared_ptr<Program> &program,
                                       const std::string &name) override;
  std::unique_ptr<Event> launch(Kernel &kernel,
                                const std::vector<size_t> &global,
                                const std::vector<size_t> &local,
                                bool wantEvent) override;
  /// Waits for everything queued. Skipped where nothing was queued since
  /// the last finish that returned: clFinish of an idle queue costs 2 us
  /// on Intel's CPU runtime (it queues a marker and waits for it), and a
  /// small DeviceArray's host read finished twice (before NumPy computed
  /// it, then before the read), a fifth of its time. Never skipped once
  /// native code holds the queue (nativeHandles), which queues behind
  /// this count.
  void finish() override {
    uint64_t queued = queued_.load(std::memory_order_acquire);
    if (queued == finishedUpTo_.load(std::memory_order_acquire) &&
        !handedOut_.load(std::memory_order_acquire))
      return;
    check(clFinish(queue()), "clFinish");
    uint64_t done = finishedUpTo_.load(std::memory_order_acquire);
    while (done < queued &&
           !finishedUpTo_.compare_exchange_weak(done, queued,
                                                std::memory_order_acq_rel))
      ;
  }
  double bareLaunchLoop(Kernel &kernel, const std::vector<size_t> &global,
                        int count) override;

protected:
  std::shared_ptr<Program>
  buildFromSPIRV(const std::vector<char> &bytes) override;
  std::shared_ptr<Program>
  buildFromSPIRBitcode(const std::vector<char> &bits) override {
    // cl_khr_spir: the binary is SPIR 1.2 LLVM bitcode.
    return buildFromBinary(bits, "-x spir -spir-std=1.2");
  }

private:
  std::shared_ptr<Program> build(cl_program program, const char *options);
  std::shared_ptr<Program> buildFromBinary(const std::vector<char> &bits,
                                           const char *options);

  /// The context and queue, opened at first use: listing the devices opens
  /// none, so a process pays only for those it uses (Intel's CPU runtime
  /// takes 15-20 ms to open a context).
  cl_context context() {
    if (!opened_.load(std::memory_order_acquire))
      open();
    checkNotForked();
    return context_;
  }
  cl_command_queue queue() {
    if (!opened_.load(std::memory_order_acquire))
      open();
    checkNotForked();
    return queue_;
  }
  /// Counts a command queued without blocking, once it is queued (so that
  /// a finish that read the count before it has not waited for it).
  void noteQueued() { queued_.fetch_add(1, std::memory_order_acq_rel); }
  void open();
  /// PoCL does not survive os.fork() once started (poclStartedInFork):
  /// its worker threads stay in the parent, so a child's launch would wait
  /// for ever. A child whose parent opened a PoCL device gets a DeviceError
  /// saying what to do instead; listing starts nothing (listDevices).
  void checkNotForked() {
    int started = poclStartedInFork();
    if (!isPoCL(info()) || started == -1 || started == forkGeneration())
      return;
    throw DeviceError(
        "opencl", CL_INVALID_CONTEXT, "CL_INVALID_CONTEXT",
        info().name + " (PoCL) was opened before os.fork(), and PoCL's "
                      "devices do not work in a child process; start child "
                      "processes with multiprocessing's 'spawn' or "
                      "'forkserver' method, or use the device only after "
                      "the fork");
  }

  ListedDevice listed_;
  cl_platform_id platform_ = nullptr; // both found by open()
  cl_device_id device_ = nullptr;
  std::atomic<bool> opened_{false};
  std::mutex openMutex_;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  /// Commands queued without blocking, and how many of them a finish saw
  /// done (finish()).
  std::atomic<uint64_t> queued_{0}, finishedUpTo_{0};
  std::atomic<bool> handedOut_{false};
  std::mutex mutex_;
  std::vector<std::shared_ptr<Buffer>> hostWrappers_; // recent, reusable
  /// Freed SVM allocations (MemoryPool.h).
  MemoryPool pool_{memoryPoolLimit(info().globalMemSize)};
};

} // namespace

void CLDevice::open() {
  std::lock_guard<std::mutex> lock(openMutex_);
  if (opened_.load(std::memory_order_relaxed))
    return;
  checkNotForked();
  std::tie(platform_, device_) = findDevice(listed_);
  cl_int status;
  cl_context_properties properties[] = {
      CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(platform_),
      0};
  cl_context context =
      clCreateContext(properties, 1, &device_, nullptr, nullptr, &status);
  check(status, "clCreateContext");
  cl_command_queue queue =
      clCreateCommandQueueWithProperties(context, device_, nullptr, &status);
  if (status != CL_SUCCESS)
    clReleaseContext(context);
  check(status, "clCreateCommandQueueWithProperties");
  context_ = context;
  queue_ = queue;
  opened_.store(true, std::memory_order_release);
}

CLBuffer::~CLBuffer() {
  if (mem_)
    clReleaseMemObject(mem_);
  if (svm() && capacity_)
    static_cast<CLDevice &>(*device()).recycle(svm(), capacity_);
  else if (svm())
    clSVMFree(context_, svm());
}

std::shared_ptr<Buffer> CLDevice::allocate(size_t size, const void *host) {
  checkAllocationSize(size);
  const DeviceInfo &info = this->info();
  if (info.hasSvm) {
    cl_svm_mem_flags flags = CL_MEM_READ_WRITE;
    if (info.hasFineGrainSvm)
      flags |= CL_MEM_SVM_FINE_GRAIN_BUFFER;
    cl_context context = this->context();
    auto [svm, capacity] = pool_.obtain(
        size ? size : 1,
        [&](size_t bytes) { return clSVMAlloc(context, flags, bytes, 128); },
        [&](void *p) { clSVMFree(context, p); });
    if (!svm)
      throw DeviceError("opencl", CL_MEM_OBJECT_ALLOCATION_FAILURE,
                        "CL_MEM_OBJECT_ALLOCATION_FAILURE",
                        "clSVMAlloc of " + std::to_string(size) +
                            " bytes on " + info.name);
    auto buffer = std::make_shared<CLBuffer>(
        shared_from_this(), context, nullptr, size, nullptr, svm,
        info.hasFineGrainSvm, capacity);
    if (host && size)
      write(*buffer, host, size, 0);
    return buffer;
  }
  cl_int status;
  cl_mem_flags flags = CL_MEM_READ_WRITE;
  if (host)
    flags |= CL_MEM_COPY_HOST_PTR;
  cl_mem mem = clCreateBuffer(context(), flags, size ? size : 1,
                              const_cast<void *>(host), &status);
  check(status, "clCreateBuffer");
  return std::make_shared<CLBuffer>(shared_from_this(), context(), mem, size,
                                    nullptr);
}

std::shared_ptr<Buffer> CLDevice::wrapHostMemory(void *host, size_t size) {
  if (!info().hostUnifiedMemory || size == 0)
    return nullptr;
  // Memory aligned as the device wants is used in place, so a wrapper of
  // the same range stays valid for the next launch: reuse it (a kernel
  // launched on the same NumPy arrays again skips clCreateBuffer).
  size_t align = info().memBaseAddrAlign ? info().memBaseAddrAlign : 1;
  bool inPlace = reinterpret_cast<uintptr_t>(host) % align == 0;
  std::lock_guard<std::mutex> lock(mutex_);
  if (inPlace)
    for (auto it = hostWrappers_.begin(); it != hostWrappers_.end(); ++it)
      if ((*it)->hostPointer() == host && (*it)->size() == size) {
        std::shared_ptr<Buffer> found = *it;
        hostWrappers_.erase(it);
        hostWrappers_.push_back(found); // most recently used last
        return found;
      }
  cl_int status;
  cl_mem mem = clCreateBuffer(context(), CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
                              size, host, &status);
  check(status, "clCreateBuffer(CL_MEM_USE_HOST_PTR)");
  auto buffer = std::make_shared<CLBuffer>(shared_from_this(), context(), mem,
                                           size, host);
  if (inPlace) {
    if (hostWrappers_.size() >= 32)
      hostWrappers_.erase(hostWrappers_.begin());
    hostWrappers_.push_back(buffer);
  }
  return buffer;
}

void CLDevice::read(const Buffer &buffer, void *host, size_t size,
                    size_t offset) {
  if (size == 0)
    return;
  if (buffer.svm()) {
    check(clEnqueueSVMMemcpy(queue(), CL_TRUE, host,
                             static_cast<char *>(buffer.svm()) + offset, size,
                             0, nullptr, nullptr),
          "clEnqueueSVMMemcpy");
    return;
  }
  check(clEnqueueReadBuffer(queue(), memOf(buffer), CL_TRUE, offset, size, host,
                            0, nullptr, nullptr),
        "clEnqueueReadBuffer");
}

void CLDevice::write(const Buffer &buffer, const void *host, size_t size,
                     size_t offset) {
  if (size == 0)
    return;
  if (buffer.svm()) {
    check(clEnqueueSVMMemcpy(queue(), CL_TRUE,
                             static_cast<char *>(buffer.svm()) + offset, host,
                             size, 0, nullptr, nullptr),
          "clEnqueueSVMMemcpy");
    return;
  }
  check(clEnqueueWriteBuffer(queue(), memOf(buffer), CL_TRUE, offset, size,
                             host, 0, nullptr, nullptr),
        "clEnqueueWriteBuffer");
  // Memory wrapped by wrapHostMemory: its owner reads it as soon as the
  // write returns, so the map that makes it current blocks too.
  if (buffer.hostPointer()) {
    cl_int status;
    void *mapped =
        clEnqueueMapBuffer(queue(), memOf(buffer), CL_TRUE, CL_MAP_READ,
                           offset, size, 0, nullptr, nullptr, &status);
    check(status, "clEnqueueMapBuffer");
    check(clEnqueueUnmapMemObject(queue(), memOf(buffer), mapped, 0, nullptr,
                                  nullptr),
          "clEnqueueUnmapMemObject");
    noteQueued();
  }
}

void CLDevice::enqueueHostSynchronization(const Buffer &buffer) {
  cl_int status;
  void *mapped = clEnqueueMapBuffer(queue(), memOf(buffer), CL_FALSE,
                                    CL_MAP_READ, 0, buffer.size(), 0, nullptr,
                                    nullptr, &status);
  check(status, "clEnqueueMapBuffer");
  check(clEnqueueUnmapMemObject(queue(), memOf(buffer), mapped, 0, nullptr,
                                nullptr),
        "clEnqueueUnmapMemObject");
  noteQueued();
}

std::unique_ptr<Event> CLDevice::enqueueMarker() {
  cl_event event = nullptr;
  check(clEnqueueMarkerWithWaitList(queue(), 0, nullptr, &event),
        "clEnqueueMarkerWithWaitList");
  noteQueued();
  return std::make_unique<CLEvent>(event, queue());
}

std::shared_ptr<Program> CLDevice::build(cl_program program,
                                         const char *options) {
  auto owner = std::make_shared<CLProgram>(shared_from_this(), program);
  cl_int status =
      clBuildProgram(program, 1, &device_, options, nullptr, nullptr);
  if (status != CL_SUCCESS) {
    size_t size = 0;
    clGetProgramBuildInfo(program, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr,
                          &size);
    std::string log(size, '\0');
    clGetProgramBuildInfo(program, device_, CL_PROGRAM_BUILD_LOG, size,
                          log.data(), nullptr);
    while (!log.empty() && log.back() == '\0')
      log.pop_back();
    throw DeviceError("opencl", status, openclErrorName(status),
                      "clBuildProgram on " + info().name, log);
  }
  return owner;
}

std::shared_ptr<Program>
CLDevice::buildFromSPIRV(const std::vector<char> &bytes) {
  cl_int status;
  cl_program program = clCreateProgramWithIL(context(), bytes.data(),
                                             bytes.size(), &status);
  check(status, "clCreateProgramWithIL");
  return build(program, "");
}

std::shared_ptr<Program>
CLDevice::buildFromBinary(const std::vector<char> &bits, const char *options) {
  cl_int status, binaryStatus;
  size_t size = bits.size();
  auto data = reinterpret_cast<const unsigned char *>(bits.data());
  cl_program program = clCreateProgramWithBinary(
      context(), 1, &device_, &size, &data, &binaryStatus, &status);
  check(status, "clCreateProgramWithBinary");
  check(binaryStatus, "clCreateProgramWithBinary (binary status)");
  return build(program, options);
}

std::vector<char> CLDevice::programBinary(const Program &program) {
  cl_program handle = static_cast<const CLProgram &>(program).handle();
  size_t size = 0;
  if (clGetProgramInfo(handle, CL_PROGRAM_BINARY_SIZES, sizeof size, &size,
                       nullptr) != CL_SUCCESS ||
      size == 0)
    return {};
  std::vector<char> bits(size);
  unsigned char *data = reinterpret_cast<unsigned char *>(bits.data());
  if (clGetProgramInfo(handle, CL_PROGRAM_BINARIES, sizeof data, &data,
                       nullptr) != CL_SUCCESS)
    return {};
  return bits;
}

std::shared_ptr<Kernel>
CLDevice::createKernel(const std::shared_ptr<Program> &program,
                       const std::string &name) {
  cl_int status;
  cl_kernel kernel =
      clCreateKernel(static_cast<const CLProgram &>(*program).handle(),
                     name.c_str(), &status);
  check(status, "clCreateKernel");
  return std::make_shared<CLKernel>(program, kernel);
}

std::unique_ptr<Event> CLDevice::launch(Kernel &kernel,
                                        const std::vector<size_t> &global,
                                        const std::vector<size_t> &local,
                                        bool wantEvent) {
  cl_event event = nullptr;
  check(clEnqueueNDRangeKernel(
            queue(), static_cast<CLKernel &>(kernel).handle(),
            static_cast<cl_uint>(global.size()), nullptr, global.data(),
            local.empty() ? nullptr : local.data(), 0, nullptr,
            wantEvent ? &event : nullptr),
        "clEnqueueNDRangeKernel");
  noteQueued();
  if (!event)
    return nullptr;
  return std::make_unique<CLEvent>(event, queue());
}

double openclBareLaunchLoop(void *queue, void *kernel, size_t dims,
                            const size_t *global, int count) {
  auto q = static_cast<cl_command_queue>(queue);
  auto k = static_cast<cl_kernel>(kernel);
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < count; ++i)
    clEnqueueNDRangeKernel(q, k, static_cast<cl_uint>(dims), nullptr, global,
                           nullptr, 0, nullptr, nullptr);
  clFinish(q);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start)
      .count();
}

double CLDevice::bareLaunchLoop(Kernel &kernel,
                                const std::vector<size_t> &global, int count) {
  return openclBareLaunchLoop(queue(), static_cast<CLKernel &>(kernel).handle(),
                              global.size(), global.data(), count);
}

const std::vector<std::shared_ptr<Device>> &openclDevices() {
  static const std::vector<std::shared_ptr<Device>> devices = [] {
    std::vector<std::shared_ptr<Device>> found;
    std::vector<ListedDevice> candidates = listDevices();
    // The ICD loader lists platforms in no useful order. Ours: GPUs, then
    // accelerators, then CPUs, and among CPUs PoCL last: it is the portable
    // fallback, and a vendor's CPU runtime (Intel's) runs kernels with math
    // or barriers many times faster. The first one listed is the default.
    auto rank = [](const DeviceInfo &info) {
      if (info.deviceType == "gpu")
        return 0;
      if (info.deviceType == "accelerator")
        return 1;
      return info.platform == "Portable Computing Language" ? 3 : 2;
    };
    std::stable_sort(candidates.begin(), candidates.end(),
                     [&](const ListedDevice &a, const ListedDevice &b) {
                       return rank(a.info) < rank(b.info);
                     });
    // A filter's index counts among devices of the same backend and type.
    std::map<std::string, int> indexOfType;
    // Listed unopened: a device that cannot open a context fails at its
    // first use, with the driver's error.
    for (ListedDevice &candidate : candidates) {
      candidate.info.backendIndex = indexOfType[candidate.info.deviceType]++;
      found.push_back(std::make_shared<CLDevice>(candidate));
    }
    return found;
  }();
  return devices;
}

std::string openclErrorName(int code) {
  switch (code) {
#define NAME(c)                                                                \
  case c:                                                                      \
    return #c;
    NAME(CL_SUCCESS)
    NAME(CL_DEVICE_NOT_FOUND)
    NAME(CL_DEVICE_NOT_AVAILABLE)
    NAME(CL_COMPILER_NOT_AVAILABLE)
    NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    NAME(CL_OUT_OF_RESOURCES)
    NAME(CL_OUT_OF_HOST_MEMORY)
    NAME(CL_PROFILING_INFO_NOT_AVAILABLE)
    NAME(CL_MEM_COPY_OVERLAP)
    NAME(CL_IMAGE_FORMAT_MISMATCH)
    NAME(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    NAME(CL_BUILD_PROGRAM_FAILURE)
    NAME(CL_MAP_FAILURE)
    NAME(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    NAME(CL_COMPILE_PROGRAM_FAILURE)
    NAME(CL_LINKER_NOT_AVAILABLE)
    NAME(CL_LINK_PROGRAM_FAILURE)
    NAME(CL_INVALID_VALUE)
    NAME(CL_INVALID_DEVICE_TYPE)
    NAME(CL_INVALID_PLATFORM)
    NAME(CL_INVALID_DEVICE)
    NAME(CL_INVALID_CONTEXT)
    NAME(CL_INVALID_QUEUE_PROPERTIES)
    NAME(CL_INVALID_COMMAND_QUEUE)
    NAME(CL_INVALID_HOST_PTR)
    NAME(CL_INVALID_MEM_OBJECT)
    NAME(CL_INVALID_BINARY)
    NAME(CL_INVALID_BUILD_OPTIONS)
    NAME(CL_INVALID_PROGRAM)
    NAME(CL_INVALID_PROGRAM_EXECUTABLE)
    NAME(CL_INVALID_KERNEL_NAME)
    NAME(CL_INVALID_KERNEL_DEFINITION)
    NAME(CL_INVALID_KERNEL)
    NAME(CL_INVALID_ARG_INDEX)
    NAME(CL_INVALID_ARG_VALUE)
    NAME(CL_INVALID_ARG_SIZE)
    NAME(CL_INVALID_KERNEL_ARGS)
    NAME(CL_INVALID_WORK_DIMENSION)
    NAME(CL_INVALID_WORK_GROUP_SIZE)
    NAME(CL_INVALID_WORK_ITEM_SIZE)
    NAME(CL_INVALID_GLOBAL_OFFSET)
    NAME(CL_INVALID_EVENT_WAIT_LIST)
    NAME(CL_INVALID_EVENT)
    NAME(CL_INVALID_OPERATION)
    NAME(CL_INVALID_BUFFER_SIZE)
    NAME(CL_INVALID_GLOBAL_WORK_SIZE)
    NAME(CL_INVALID_PROPERTY)
    NAME(CL_INVALID_COMPILER_OPTIONS)
    NAME(CL_INVALID_LINKER_OPTIONS)
    NAME(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef NAME
  case -1001:
    return "CL_PLATFORM_NOT_FOUND_KHR";
  default:
    return "CL_ERROR_" + std::to_string(code);
  }
}

} // namespace spirjit::runtime
