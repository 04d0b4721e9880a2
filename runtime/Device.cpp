#include "runtime/Device.h"

#include "runtime/LevelZero.h"
#include "runtime/OpenCL.h"

#include <atomic>
#include <cstring>

namespace spirjit::runtime {

uint64_t Buffer::nextId() {
  static std::atomic<uint64_t> counter{0};
  return ++counter;
}

bool Kernel::sameMemory(unsigned index, uint64_t id, size_t offset) {
  if (bound_.size() <= index)
    bound_.resize(index + 1);
  Bound &slot = bound_[index];
  if (slot.valid && slot.buffer == id && slot.size == offset)
    return true;
  slot.valid = true;
  slot.buffer = id;
  slot.size = offset; // for memory, `size` holds the offset
  return false;
}

void Kernel::bind(unsigned index, const Buffer &buffer, size_t offset) {
  try {
    bindBuffer(index, buffer, offset);
  } catch (...) {
    forget(index);
    throw;
  }
}

bool Kernel::unchanged(unsigned index, size_t size, const void *value) {
  if (bound_.size() <= index)
    bound_.resize(index + 1);
  Bound &slot = bound_[index];
  slot.buffer = 0;
  if (size > sizeof slot.bytes) { // too large to remember: always set
    slot.valid = false;
    return false;
  }
  // Local-memory sizes (value == nullptr) are remembered by size alone.
  unsigned char bytes[sizeof slot.bytes] = {};
  if (value)
    std::memcpy(bytes, value, size);
  if (slot.valid && slot.size == size &&
      std::memcmp(slot.bytes, bytes, sizeof bytes) == 0)
    return true;
  slot.valid = true;
  slot.size = size;
  std::memcpy(slot.bytes, bytes, sizeof bytes);
  return false;
}

void Kernel::bind(unsigned index, size_t size, const void *value) {
  try {
    bindValue(index, size, value);
  } catch (...) {
    forget(index);
    throw;
  }
}

std::shared_ptr<Program>
Device::buildFromSPIRBitcode(const std::vector<char> &) {
  throw DeviceError(info_.backend, -1, "UNSUPPORTED",
                    info_.name + " takes no SPIR bitcode");
}

const std::vector<std::shared_ptr<Device>> &allDevices() {
  static const std::vector<std::shared_ptr<Device>> devices = [] {
    std::vector<std::shared_ptr<Device>> all = openclDevices();
    for (const auto &device : levelZeroDevices())
      all.push_back(device);
    return all;
  }();
  return devices;
}

} // namespace spirjit::runtime
