#include "launch/ResidentKernel.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>

namespace spirjit::launch {

/// Every ResidentKernel of the process, and which hold a built kernel.
struct Residency {
  std::mutex mutex;
  std::vector<ResidentKernel *> built; // holding a kernel, any device
  uint64_t clock = 0;                  // counts acquisitions

  static Residency &get() {
    static auto *residency = new Residency(); // never destroyed: used at exit
    return *residency;
  }

  static size_t bound() {
    const char *text = std::getenv("SPIRJIT_MAX_BUILT_PROGRAMS");
    if (!text || !*text)
      return 64;
    char *end = nullptr;
    unsigned long long value = std::strtoull(text, &end, 10);
    return *end ? 64 : static_cast<size_t>(value);
  }

  /// Marks `kernel` built and used now, then lets go of the least recently
  /// used others of its device beyond the bound. Under the lock.
  void admit(ResidentKernel *kernel) {
    kernel->lastUse_ = ++clock;
    if (std::find(built.begin(), built.end(), kernel) == built.end())
      built.push_back(kernel);
    size_t limit = bound();
    if (limit == 0)
      return;
    for (;;) {
      ResidentKernel *oldest = nullptr;
      size_t count = 0;
      for (ResidentKernel *other : built)
        if (other->device_ == kernel->device_) {
          ++count;
          if (other != kernel &&
              (!oldest || other->lastUse_ < oldest->lastUse_))
            oldest = other;
        }
      if (count <= limit || !oldest)
        return;
      oldest->dropKernel();
      built.erase(std::find(built.begin(), built.end(), oldest));
    }
  }
};

ResidentKernel::ResidentKernel(std::shared_ptr<runtime::Kernel> kernel,
                               const DeviceImage &image, std::string entryPoint)
    : device_(kernel->program()->device()), image_(image),
      entryPoint_(std::move(entryPoint)), kernel_(std::move(kernel)) {
  Residency &residency = Residency::get();
  std::lock_guard<std::mutex> lock(residency.mutex);
  residency.admit(this);
}

ResidentKernel::~ResidentKernel() {
  Residency &residency = Residency::get();
  std::lock_guard<std::mutex> lock(residency.mutex);
  auto found = std::find(residency.built.begin(), residency.built.end(), this);
  if (found != residency.built.end())
    residency.built.erase(found);
}

void ResidentKernel::dropKernel() {
  // The binary is asked for only now, where it is worth keeping.
  try {
    if (device_->rebuildsFromBinary())
      binary_ = device_->programBinary(*kernel_->program());
  } catch (const runtime::DeviceError &) {
    binary_.clear(); // built again from the image
  }
  kernel_.reset();
}

std::shared_ptr<runtime::Kernel> ResidentKernel::acquire(bool &rebuilt) {
  Residency &residency = Residency::get();
  std::vector<char> binary;
  {
    std::lock_guard<std::mutex> lock(residency.mutex);
    if (kernel_) {
      lastUse_ = ++residency.clock;
      return kernel_;
    }
    binary = binary_;
  }
  // Built outside the lock: other kernels launch meanwhile.
  std::shared_ptr<runtime::Kernel> kernel;
  if (!binary.empty()) {
    try {
      kernel = device_->createKernel(device_->buildFromDeviceBinary(binary),
                                     entryPoint_);
    } catch (const runtime::DeviceError &) {
      // A binary the driver does not take back: from the image.
    }
  }
  if (!kernel)
    kernel = device_->createKernel(device_->build(image_), entryPoint_);
  rebuilt = true;
  std::lock_guard<std::mutex> lock(residency.mutex);
  if (!kernel_) { // another thread may have built it meanwhile
    kernel_ = std::move(kernel);
    binary_.clear();
  }
  residency.admit(this);
  return kernel_;
}

} // namespace spirjit::launch
