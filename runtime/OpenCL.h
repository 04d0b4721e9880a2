// The OpenCL backend: platforms and devices through the ICD loader, one
// context and in-order queue per device, buffers, programs from SPIR-V (or
// from SPIR 1.2 bitcode for devices without SPIR-V ingestion), kernels and
// launches. Every OpenCL failure throws DeviceError naming the code.
#pragma once

#include "runtime/DeviceError.h"

#include <CL/cl.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace spirjit::runtime {

struct DeviceInfo {
  std::string name, vendor, platform, version;
  std::string backend = "opencl";
  std::string deviceType; // "cpu", "gpu", "accelerator"
  int backendIndex = 0;   // index among this backend's devices of this type
  size_t maxWorkGroupSize = 0;
  bool hasFp64 = false, hasAtomic64 = false;
  bool hostUnifiedMemory = false;
  bool supportsSpirv = false;
  std::string ilVersion;
  uint64_t globalMemSize = 0, localMemSize = 0;
  size_t memBaseAddrAlign = 0; // bytes
  /// Shared virtual memory: device allocations are plain pointers, so
  /// views are pointer offsets; fine-grained ones the host may address.
  bool hasSvm = false, hasFineGrainSvm = false;
};

/// Raw OpenCL handles are released by these owners.
class Device;

/// Device memory: a cl_mem buffer, or a shared-virtual-memory allocation
/// (`svm` non-null) where the device offers it.
class Buffer {
public:
  Buffer(std::shared_ptr<Device> device, cl_mem mem, size_t size,
         void *hostPointer, void *svm = nullptr, bool hostAddressable = false)
      : device_(std::move(device)), mem_(mem), size_(size),
        hostPointer_(hostPointer), svm_(svm),
        hostAddressable_(hostAddressable) {}
  ~Buffer();
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;

  cl_mem handle() const { return mem_; }
  size_t size() const { return size_; }
  /// Non-null when the buffer lives in host memory the caller owns.
  void *hostPointer() const { return hostPointer_; }
  /// The SVM pointer, or nullptr for a cl_mem buffer.
  void *svm() const { return svm_; }
  /// May the host read and write the SVM memory directly?
  bool hostAddressable() const { return hostAddressable_; }
  const std::shared_ptr<Device> &device() const { return device_; }

private:
  std::shared_ptr<Device> device_;
  cl_mem mem_;
  size_t size_;
  void *hostPointer_;
  void *svm_;
  bool hostAddressable_;
};

class Program {
public:
  Program(std::shared_ptr<Device> device, cl_program program)
      : device_(std::move(device)), program_(program) {}
  ~Program();
  Program(const Program &) = delete;
  Program &operator=(const Program &) = delete;
  cl_program handle() const { return program_; }
  const std::shared_ptr<Device> &device() const { return device_; }

private:
  std::shared_ptr<Device> device_;
  cl_program program_;
};

class Kernel {
public:
  Kernel(std::shared_ptr<Program> program, cl_kernel kernel)
      : program_(std::move(program)), kernel_(kernel) {}
  ~Kernel();
  Kernel(const Kernel &) = delete;
  Kernel &operator=(const Kernel &) = delete;
  cl_kernel handle() const { return kernel_; }
  const std::shared_ptr<Program> &program() const { return program_; }
  void setArgument(unsigned index, size_t size, const void *value);
  /// Binds `buffer` at byte `offset` (an SVM buffer takes any offset).
  void setBuffer(unsigned index, const Buffer &buffer, size_t offset = 0);

private:
  /// Skips clSetKernelArg when a plain value (an extent, a stride, a
  /// scalar) is what the kernel already holds: repeated launches mostly
  /// rebind the same ones. Memory bindings are always set again.
  bool unchanged(unsigned index, size_t size, const void *value);
  void forget(unsigned index);

  std::shared_ptr<Program> program_;
  cl_kernel kernel_;
  struct Bound {
    bool valid = false;
    size_t size = 0;
    unsigned char bytes[16] = {};
  };
  std::vector<Bound> bound_; // last value per argument
};

class Device : public std::enable_shared_from_this<Device> {
public:
  Device(cl_platform_id platform, cl_device_id device, DeviceInfo info);
  ~Device();
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;

  const DeviceInfo &info() const { return info_; }
  /// "opencl:cpu:0": backend, type, index among that backend's devices.
  std::string filterString() const;

  /// A buffer holding a copy of `size` bytes at `host` (or uninitialised).
  std::shared_ptr<Buffer> allocate(size_t size, const void *host = nullptr);
  /// A buffer over caller-owned host memory, without a copy where the
  /// device shares the host's memory (CL_MEM_USE_HOST_PTR).
  std::shared_ptr<Buffer> wrapHostMemory(void *host, size_t size);
  void read(const Buffer &buffer, void *host, size_t size, size_t offset = 0);
  void write(const Buffer &buffer, const void *host, size_t size,
             size_t offset = 0);
  /// Queues a map and an unmap of a buffer from wrapHostMemory: once they
  /// complete, the host memory holds what kernels wrote.
  void enqueueHostSynchronization(const Buffer &buffer);
  /// An event that completes when everything queued so far has.
  cl_event enqueueMarker();

  /// Builds a program from SPIR-V as IL; the device must support it.
  std::shared_ptr<Program> buildFromSPIRV(const std::vector<uint32_t> &words);
  /// Builds a program from SPIR 1.2 LLVM bitcode.
  std::shared_ptr<Program> buildFromSPIRBitcode(const std::vector<char> &bits);
  /// Builds a program from a binary this device produced before.
  std::shared_ptr<Program> buildFromDeviceBinary(const std::vector<char> &bits);
  /// The device's own binary of a built program (empty if it has none).
  std::vector<char> programBinary(const Program &program);
  std::shared_ptr<Kernel> createKernel(const std::shared_ptr<Program> &program,
                                       const std::string &name);

  /// Enqueues a launch after `waitFor`; `global` (and `local`, when
  /// non-empty) in OpenCL's dimension order (dimension 0 fastest). Returns
  /// the launch's event, which the caller releases.
  cl_event launch(const Kernel &kernel, const std::vector<size_t> &global,
                  const std::vector<size_t> &local = {},
                  const std::vector<cl_event> &waitFor = {},
                  bool wantEvent = true);
  /// Waits for an event; a failed command throws its error.
  void wait(cl_event event);
  void finish();

  cl_context context() const { return context_; }
  cl_command_queue queue() const { return queue_; }

private:
  std::shared_ptr<Program> build(cl_program program, const char *options);
  std::shared_ptr<Program> buildFromBinary(const std::vector<char> &bits,
                                           const char *options);

  cl_platform_id platform_;
  cl_device_id device_;
  DeviceInfo info_;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  std::mutex mutex_;
  std::vector<std::shared_ptr<Buffer>> hostWrappers_; // recent, reusable
};

/// Every OpenCL device of every platform, found once per process. No ICD
/// or no platform gives an empty list, not an error.
const std::vector<std::shared_ptr<Device>> &openclDevices();

/// The name of an OpenCL error code ("CL_OUT_OF_RESOURCES").
std::string openclErrorName(int code);

} // namespace spirjit::runtime
