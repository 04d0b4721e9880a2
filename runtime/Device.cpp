#include "runtime/Device.h"

#include "runtime/CUDA.h"
#include "runtime/LevelZero.h"
#include "runtime/NativeCPU.h"
#include "runtime/OpenCL.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <pthread.h>
#include <sched.h>

namespace spirjit::runtime {

int forkGeneration() {
  static std::atomic<int> forks{0};
  static bool registered = [] {
    pthread_atfork(nullptr, nullptr, [] { ++forks; });
    return true;
  }();
  (void)registered;
  return forks.load(std::memory_order_relaxed);
}

bool Event::waitFor(std::chrono::nanoseconds limit) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (!complete()) {
    if (std::chrono::steady_clock::now() >= end)
      return false;
    sched_yield();
  }
  wait(); // returns at once: a failure's DeviceError
  return true;
}

void Device::checkAllocationSize(size_t size) const {
  uint64_t limit = info_.globalMemSize; // 0: not said
  if (!limit || size <= limit)
    return;
  const char *code = info_.backend == "cuda"         ? "CUDA_ERROR_OUT_OF_MEMORY"
                     : info_.backend == "level_zero" ? "ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY"
                     : info_.backend == "native"     ? "OUT_OF_HOST_MEMORY"
                                                     : "CL_MEM_OBJECT_ALLOCATION_FAILURE";
  throw DeviceError(info_.backend, 0, code,
                    "cannot allocate " + std::to_string(size) + " bytes on " +
                        info_.name + ", which has " + std::to_string(limit) +
                        " bytes of global memory; allocate less, or split the "
                        "work into parts");
}

namespace {
std::atomic<bool> exiting{false};
} // namespace

void markProcessExiting() { exiting.store(true); }
bool processExiting() { return exiting.load(std::memory_order_relaxed); }

const char *usmKindName(UsmKind kind) {
  switch (kind) {
  case UsmKind::Device:
    return "device";
  case UsmKind::Shared:
    return "shared";
  case UsmKind::Host:
    return "host";
  }
  return "device";
}

bool parseUsmKind(const std::string &name, UsmKind &kind) {
  for (UsmKind k : {UsmKind::Device, UsmKind::Shared, UsmKind::Host})
    if (name == usmKindName(k)) {
      kind = k;
      return true;
    }
  return false;
}

uint64_t Buffer::nextId() {
  static std::atomic<uint64_t> counter{0};
  return ++counter;
}

bool Kernel::Bound::operator==(const Bound &o) const {
  return known && o.known && size == o.size && buffer == o.buffer &&
         std::memcmp(bytes, o.bytes, sizeof bytes) == 0;
}

template <typename Bind>
void Kernel::setIfChanged(unsigned index, const Bound &want, Bind bind) {
  if (index < bound_.size() && bound_[index] == want)
    return;
  bind(); // throws on failure, leaving the record as it was
  if (bound_.size() <= index)
    bound_.resize(index + 1);
  bound_[index] = want;
}

void Kernel::setArgument(unsigned index, size_t size, const void *value) {
  Bound want;
  want.known = size <= sizeof want.bytes; // larger ones are always set
  want.size = size;
  if (value && want.known)
    std::memcpy(want.bytes, value, size);
  setIfChanged(index, want, [&] { bindValue(index, size, value); });
}

void Kernel::setBuffer(unsigned index, const Buffer &buffer, size_t offset) {
  Bound want;
  want.known = true;
  want.size = offset;
  want.buffer = buffer.id();
  setIfChanged(index, want,
               [&] { bindBuffer(index, buffer, offset); });
}

std::shared_ptr<Program> Device::build(const DeviceImage &image) {
  const std::vector<ImageFormat> &formats = acceptedFormats();
  if (std::find(formats.begin(), formats.end(), image.format) ==
      formats.end())
    throw DeviceError(info_.backend, -1, "UNSUPPORTED",
                      info_.name + " takes no " +
                          imageFormatName(image.format) + " image");
  switch (image.format) {
  case ImageFormat::SPIRV:
    return buildFromSPIRV(image.bytes);
  case ImageFormat::SPIRBitcode:
    return buildFromSPIRBitcode(image.bytes);
  case ImageFormat::PTX:
    return buildFromPTX(image.bytes);
  case ImageFormat::HostObject:
    return buildFromHostObject(image.bytes);
  }
  throw DeviceError(info_.backend, -1, "UNSUPPORTED",
                    info_.name + " has no builder for " +
                        imageFormatName(image.format));
}

std::shared_ptr<Program>
Device::buildFromSPIRBitcode(const std::vector<char> &) {
  throw DeviceError(info_.backend, -1, "UNSUPPORTED",
                    info_.name + " takes no SPIR bitcode");
}

std::shared_ptr<Program> Device::buildFromPTX(const std::vector<char> &) {
  throw DeviceError(info_.backend, -1, "UNSUPPORTED",
                    info_.name + " takes no PTX");
}

std::shared_ptr<Program>
Device::buildFromHostObject(const std::vector<char> &) {
  throw DeviceError(info_.backend, -1, "UNSUPPORTED",
                    info_.name + " takes no host object file");
}

const std::vector<std::shared_ptr<Device>> &allDevices() {
  static const std::vector<std::shared_ptr<Device>> devices = [] {
    std::vector<std::shared_ptr<Device>> all = cudaDevices();
    for (const auto &device : openclDevices())
      all.push_back(device);
    for (const auto &device : levelZeroDevices())
      all.push_back(device);
    for (const auto &device : nativeDevices())
      all.push_back(device);
    // GPUs first, whichever backend drives them: the first device listed
    // is the default one (each backend has put its own in order).
    std::stable_sort(all.begin(), all.end(), [](const auto &a, const auto &b) {
      return (a->info().deviceType == "gpu") > (b->info().deviceType == "gpu");
    });
    return all;
  }();
  return devices;
}

} // namespace spirjit::runtime
