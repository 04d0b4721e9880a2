#include "runtime/LevelZero.h"

#include <level_zero/ze_api.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <numeric>

namespace spirjit::runtime {
namespace {

void check(ze_result_t result, const char *what) {
  if (result != ZE_RESULT_SUCCESS)
    throw DeviceError("level_zero", static_cast<int>(result),
                      levelZeroResultName(static_cast<int>(result)), what);
}

class ZeDevice;

/// A shared (USM) allocation: one pointer for the host and the device.
class ZeBuffer final : public Buffer {
public:
  ZeBuffer(std::shared_ptr<Device> device, ze_context_handle_t context,
           void *pointer, size_t size)
      : Buffer(std::move(device), size, nullptr, pointer,
               /*hostAddressable=*/true),
        context_(context) {}
  ~ZeBuffer() override { zeMemFree(context_, svm()); }

private:
  ze_context_handle_t context_;
};

class ZeProgram final : public Program {
public:
  ZeProgram(std::shared_ptr<Device> device, ze_module_handle_t module)
      : Program(std::move(device)), module_(module) {}
  ~ZeProgram() override { zeModuleDestroy(module_); }
  ze_module_handle_t handle() const { return module_; }

private:
  ze_module_handle_t module_;
};

class ZeKernel final : public Kernel {
public:
  ZeKernel(std::shared_ptr<Program> program, ze_kernel_handle_t kernel)
      : Kernel(std::move(program)), kernel_(kernel) {}
  ~ZeKernel() override { zeKernelDestroy(kernel_); }
  ze_kernel_handle_t handle() const { return kernel_; }

  void bindBuffer(unsigned index, const Buffer &buffer,
                  size_t offset) override {
    void *pointer = static_cast<char *>(buffer.svm()) + offset;
    check(zeKernelSetArgumentValue(kernel_, index, sizeof pointer, &pointer),
          "zeKernelSetArgumentValue");
  }

  /// Sets the work-group size unless it is already the one set.
  void setGroupSize(const uint32_t size[3]) {
    if (std::memcmp(size, groupSize_, sizeof groupSize_) == 0)
      return;
    check(zeKernelSetGroupSize(kernel_, size[0], size[1], size[2]),
          "zeKernelSetGroupSize");
    std::memcpy(groupSize_, size, sizeof groupSize_);
  }

  /// The group size for a Range launch of `global`: the kernel's
  /// suggestion, cut down until it divides the range (a Range kernel has
  /// no bounds check, so every work-item must be a real one).
  void suggestGroupSize(const uint32_t global[3], uint32_t size[3]) {
    if (std::memcmp(global, suggestedFor_, sizeof suggestedFor_) == 0) {
      std::memcpy(size, suggested_, sizeof suggested_);
      return;
    }
    // Outputs initialised: a driver may leave them unwritten (the null
    // driver does).
    uint32_t out[3] = {1, 1, 1};
    check(zeKernelSuggestGroupSize(kernel_, global[0], global[1], global[2],
                                   &out[0], &out[1], &out[2]),
          "zeKernelSuggestGroupSize");
    for (int d = 0; d < 3; ++d)
      size[d] = out[d] == 0 ? 1 : std::gcd(out[d], global[d]);
    std::memcpy(suggestedFor_, global, sizeof suggestedFor_);
    std::memcpy(suggested_, size, sizeof suggested_);
  }

protected:
  void bindValue(unsigned index, size_t size, const void *value) override {
    check(zeKernelSetArgumentValue(kernel_, index, size, value),
          "zeKernelSetArgumentValue");
  }

private:
  ze_kernel_handle_t kernel_;
  uint32_t groupSize_[3] = {0, 0, 0};
  uint32_t suggestedFor_[3] = {0, 0, 0}, suggested_[3] = {1, 1, 1};
};

/// Events come from pools of 256 and go back, reset, when released.
class ZeEvent final : public Event {
public:
  ZeEvent(ZeDevice *device, ze_event_handle_t event)
      : device_(device), event_(event) {}
  ~ZeEvent() override;
  ze_event_handle_t handle() const { return event_; }
  bool complete() override {
    return zeEventQueryStatus(event_) != ZE_RESULT_NOT_READY;
  }
  void wait() override {
    check(zeEventHostSynchronize(event_, UINT64_MAX),
          "zeEventHostSynchronize");
  }
  bool waitFor(std::chrono::nanoseconds limit) override {
    ze_result_t result = zeEventHostSynchronize(
        event_, static_cast<uint64_t>(std::max<int64_t>(limit.count(), 0)));
    if (result == ZE_RESULT_NOT_READY)
      return false;
    check(result, "zeEventHostSynchronize");
    return true;
  }

private:
  ZeDevice *device_;
  ze_event_handle_t event_;
};

class ZeDevice final : public Device {
public:
  ZeDevice(ze_driver_handle_t driver, ze_device_handle_t device,
           DeviceInfo info, uint32_t computeOrdinal)
      : Device(std::move(info)), driver_(driver), device_(device) {
    ze_context_desc_t contextDesc{ZE_STRUCTURE_TYPE_CONTEXT_DESC, nullptr, 0};
    check(zeContextCreate(driver, &contextDesc, &context_), "zeContextCreate");
    ze_command_queue_desc_t queueDesc{ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                      nullptr,
                                      computeOrdinal,
                                      0,
                                      0,
                                      ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
                                      ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_result_t result =
        zeCommandListCreateImmediate(context_, device_, &queueDesc, &list_);
    if (result != ZE_RESULT_SUCCESS) {
      zeContextDestroy(context_);
      check(result, "zeCommandListCreateImmediate");
    }
  }
  ~ZeDevice() override {
    for (ze_event_handle_t event : freeEvents_)
      zeEventDestroy(event);
    for (ze_event_pool_handle_t pool : pools_)
      zeEventPoolDestroy(pool);
    zeCommandListDestroy(list_);
    zeContextDestroy(context_);
  }

  std::shared_ptr<Buffer> allocate(size_t size, const void *host) override {
    checkAllocationSize(size);
    ze_device_mem_alloc_desc_t deviceDesc{
        ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, nullptr, 0, 0};
    ze_host_mem_alloc_desc_t hostDesc{ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC,
                                      nullptr, 0};
    void *pointer = nullptr;
    ze_result_t result = zeMemAllocShared(context_, &deviceDesc, &hostDesc,
                                          size ? size : 1, 64, device_,
                                          &pointer);
    if (result != ZE_RESULT_SUCCESS || !pointer)
      throw DeviceError(
          "level_zero", static_cast<int>(result),
          levelZeroResultName(static_cast<int>(
              result == ZE_RESULT_SUCCESS ? ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY
                                          : result)),
          "zeMemAllocShared of " + std::to_string(size) + " bytes on " +
              info().name);
    auto buffer =
        std::make_shared<ZeBuffer>(shared_from_this(), context_, pointer, size);
    if (host && size) // new memory: no queued command can be using it
      std::memcpy(pointer, host, size);
    return buffer;
  }

  // Shared allocations are host-addressable: once the queue is drained,
  // copies are the host's own.
  void read(const Buffer &buffer, void *host, size_t size,
            size_t offset) override {
    if (size == 0)
      return;
    finish();
    std::memcpy(host, static_cast<char *>(buffer.svm()) + offset, size);
  }
  void write(const Buffer &buffer, const void *host, size_t size,
             size_t offset) override {
    if (size == 0)
      return;
    finish();
    std::memcpy(static_cast<char *>(buffer.svm()) + offset, host, size);
  }

  NativeHandles nativeHandles() override {
    return {reinterpret_cast<std::uintptr_t>(driver_),
            reinterpret_cast<std::uintptr_t>(device_),
            reinterpret_cast<std::uintptr_t>(context_),
            reinterpret_cast<std::uintptr_t>(list_)};
  }
  std::unique_ptr<Event> enqueueMarker() override {
    std::unique_ptr<ZeEvent> event = takeEvent();
    check(zeCommandListAppendBarrier(list_, event->handle(), 0, nullptr),
          "zeCommandListAppendBarrier");
    return event;
  }

  std::shared_ptr<Program>
  buildFromDeviceBinary(const std::vector<char> &bits) override {
    return build(ZE_MODULE_FORMAT_NATIVE,
                 reinterpret_cast<const uint8_t *>(bits.data()), bits.size());
  }
  std::vector<char> programBinary(const Program &program) override {
    ze_module_handle_t module = static_cast<const ZeProgram &>(program).handle();
    size_t size = 0; // a driver may leave it unwritten
    if (zeModuleGetNativeBinary(module, &size, nullptr) != ZE_RESULT_SUCCESS ||
        size == 0)
      return {};
    std::vector<char> bits(size);
    if (zeModuleGetNativeBinary(module, &size,
                                reinterpret_cast<uint8_t *>(bits.data())) !=
        ZE_RESULT_SUCCESS)
      return {};
    bits.resize(size);
    return bits;
  }

  std::shared_ptr<Kernel> createKernel(const std::shared_ptr<Program> &program,
                                       const std::string &name) override {
    ze_kernel_desc_t desc{ZE_STRUCTURE_TYPE_KERNEL_DESC, nullptr, 0,
                          name.c_str()};
    ze_kernel_handle_t kernel = nullptr;
    check(zeKernelCreate(static_cast<const ZeProgram &>(*program).handle(),
                         &desc, &kernel),
          "zeKernelCreate");
    return std::make_shared<ZeKernel>(program, kernel);
  }

  std::unique_ptr<Event> launch(Kernel &kernel,
                                const std::vector<size_t> &global,
                                const std::vector<size_t> &local,
                                bool wantEvent) override {
    auto &zk = static_cast<ZeKernel &>(kernel);
    ze_group_count_t groups = groupsFor(zk, global, local);
    std::unique_ptr<ZeEvent> event = wantEvent ? takeEvent() : nullptr;
    check(zeCommandListAppendLaunchKernel(list_, zk.handle(), &groups,
                                          event ? event->handle() : nullptr,
                                          0, nullptr),
          "zeCommandListAppendLaunchKernel");
    // Commands of one list may overlap; the queue promises order.
    check(zeCommandListAppendBarrier(list_, nullptr, 0, nullptr),
          "zeCommandListAppendBarrier");
    return event;
  }

  void finish() override { enqueueMarker()->wait(); }

  double bareLaunchLoop(Kernel &kernel, const std::vector<size_t> &global,
                        int count) override {
    auto &zk = static_cast<ZeKernel &>(kernel);
    ze_group_count_t groups = groupsFor(zk, global, {});
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < count; ++i)
      zeCommandListAppendLaunchKernel(list_, zk.handle(), &groups, nullptr, 0,
                                      nullptr);
    finish();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  }

  /// Back to the pool, reset (the event has completed).
  void giveBack(ze_event_handle_t event) {
    zeEventHostReset(event);
    std::lock_guard<std::mutex> lock(mutex_);
    freeEvents_.push_back(event);
  }

protected:
  std::shared_ptr<Program>
  buildFromSPIRV(const std::vector<char> &bytes) override {
    return build(ZE_MODULE_FORMAT_IL_SPIRV,
                 reinterpret_cast<const uint8_t *>(bytes.data()),
                 bytes.size());
  }

private:
  std::shared_ptr<Program> build(ze_module_format_t format,
                                 const uint8_t *bytes, size_t size) {
    ze_module_desc_t desc{ZE_STRUCTURE_TYPE_MODULE_DESC,
                          nullptr,
                          format,
                          size,
                          bytes,
                          "",
                          nullptr};
    ze_module_handle_t module = nullptr;
    ze_module_build_log_handle_t log = nullptr;
    ze_result_t result =
        zeModuleCreate(context_, device_, &desc, &module, &log);
    std::string text;
    if (result != ZE_RESULT_SUCCESS && log) {
      size_t length = 0; // a driver may leave it unwritten
      if (zeModuleBuildLogGetString(log, &length, nullptr) ==
              ZE_RESULT_SUCCESS &&
          length > 0) {
        text.resize(length);
        zeModuleBuildLogGetString(log, &length, text.data());
        while (!text.empty() && text.back() == '\0')
          text.pop_back();
      }
    }
    if (log)
      zeModuleBuildLogDestroy(log);
    if (result != ZE_RESULT_SUCCESS)
      throw DeviceError("level_zero", static_cast<int>(result),
                        levelZeroResultName(static_cast<int>(result)),
                        "zeModuleCreate on " + info().name, text);
    return std::make_shared<ZeProgram>(shared_from_this(), module);
  }

  /// Sets the kernel's group size and returns the group counts.
  ze_group_count_t groupsFor(ZeKernel &kernel,
                             const std::vector<size_t> &global,
                             const std::vector<size_t> &local) {
    uint32_t extent[3] = {1, 1, 1}, size[3] = {1, 1, 1};
    for (size_t d = 0; d < global.size() && d < 3; ++d) {
      if (global[d] > UINT32_MAX)
        throw DeviceError("level_zero", ZE_RESULT_ERROR_INVALID_ARGUMENT,
                          "ZE_RESULT_ERROR_INVALID_ARGUMENT",
                          "a launch extent above 2^32-1 on " + info().name);
      extent[d] = static_cast<uint32_t>(global[d]);
    }
    if (!local.empty())
      for (size_t d = 0; d < local.size() && d < 3; ++d)
        size[d] = static_cast<uint32_t>(local[d]);
    else
      kernel.suggestGroupSize(extent, size);
    kernel.setGroupSize(size);
    return {extent[0] / size[0], extent[1] / size[1], extent[2] / size[2]};
  }

  std::unique_ptr<ZeEvent> takeEvent() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (freeEvents_.empty()) {
      constexpr uint32_t poolSize = 256;
      ze_event_pool_desc_t poolDesc{ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, nullptr,
                                    ZE_EVENT_POOL_FLAG_HOST_VISIBLE, poolSize};
      ze_event_pool_handle_t pool = nullptr;
      check(zeEventPoolCreate(context_, &poolDesc, 1, &device_, &pool),
            "zeEventPoolCreate");
      pools_.push_back(pool);
      for (uint32_t i = 0; i < poolSize; ++i) {
        ze_event_desc_t eventDesc{ZE_STRUCTURE_TYPE_EVENT_DESC, nullptr,
                                  poolSize - 1 - i, ZE_EVENT_SCOPE_FLAG_HOST,
                                  ZE_EVENT_SCOPE_FLAG_HOST};
        ze_event_handle_t event = nullptr;
        check(zeEventCreate(pool, &eventDesc, &event), "zeEventCreate");
        freeEvents_.push_back(event);
      }
    }
    ze_event_handle_t event = freeEvents_.back();
    freeEvents_.pop_back();
    return std::make_unique<ZeEvent>(this, event);
  }

  ze_driver_handle_t driver_;
  ze_device_handle_t device_;
  ze_context_handle_t context_ = nullptr;
  ze_command_list_handle_t list_ = nullptr;
  std::mutex mutex_;
  std::vector<ze_event_pool_handle_t> pools_;
  std::vector<ze_event_handle_t> freeEvents_;
};

ZeEvent::~ZeEvent() { device_->giveBack(event_); }

DeviceInfo describe(ze_driver_handle_t driver, ze_device_handle_t device,
                    uint32_t *computeOrdinal) {
  DeviceInfo info;
  info.backend = "level_zero";
  // Every output is initialised: a driver may leave fields unwritten.
  ze_device_properties_t properties{};
  properties.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
  zeDeviceGetProperties(device, &properties);
  info.name = properties.name;
  switch (properties.type) {
  case ZE_DEVICE_TYPE_GPU:
    info.deviceType = "gpu";
    break;
  case ZE_DEVICE_TYPE_CPU:
    info.deviceType = "cpu";
    break;
  default:
    info.deviceType = "accelerator";
  }
  if (properties.vendorId == 0x8086) {
    info.vendor = "Intel(R) Corporation";
  } else {
    char vendor[16];
    std::snprintf(vendor, sizeof vendor, "0x%04x", properties.vendorId);
    info.vendor = vendor;
  }
  info.hostUnifiedMemory =
      (properties.flags & ZE_DEVICE_PROPERTY_FLAG_INTEGRATED) != 0;

  ze_driver_properties_t driverProperties{};
  driverProperties.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES;
  zeDriverGetProperties(driver, &driverProperties);
  ze_api_version_t api = ZE_API_VERSION_1_0;
  zeDriverGetApiVersion(driver, &api);
  info.platform = "Level Zero";
  info.version = "Level Zero " + std::to_string(ZE_MAJOR_VERSION(api)) + "." +
                 std::to_string(ZE_MINOR_VERSION(api)) + ", driver " +
                 std::to_string(driverProperties.driverVersion);

  ze_device_compute_properties_t compute{};
  compute.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES;
  zeDeviceGetComputeProperties(device, &compute);
  info.maxWorkGroupSize = compute.maxTotalGroupSize; // 0: not said
  info.localMemSize = compute.maxSharedLocalMemory;
  for (uint32_t i = 0; i < compute.numSubGroupSizes &&
                       i < ZE_SUBGROUPSIZE_COUNT;
       ++i)
    info.subGroupSizes.push_back(compute.subGroupSizes[i]);
  info.computeUnits = properties.numSlices * properties.numSubslicesPerSlice *
                      properties.numEUsPerSubslice;
  info.driverVersion = std::to_string(driverProperties.driverVersion);
  info.platformVersion = "Level Zero " +
                         std::to_string(ZE_MAJOR_VERSION(api)) + "." +
                         std::to_string(ZE_MINOR_VERSION(api));

  ze_device_module_properties_t module{};
  module.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES;
  zeDeviceGetModuleProperties(device, &module);
  info.hasFp64 = (module.flags & ZE_DEVICE_MODULE_FLAG_FP64) != 0;
  info.hasAtomic64 = (module.flags & ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS) != 0;
  info.hasFp16 = (module.flags & ZE_DEVICE_MODULE_FLAG_FP16) != 0;
  ze_device_image_properties_t image{};
  image.stype = ZE_STRUCTURE_TYPE_DEVICE_IMAGE_PROPERTIES;
  info.imageSupport = zeDeviceGetImageProperties(device, &image) ==
                          ZE_RESULT_SUCCESS &&
                      image.maxImageDims2D > 0;
  // Level Zero takes SPIR-V by definition; the version is informative.
  info.supportsSpirv = true;
  info.imageFormats = {ImageFormat::SPIRV};
  uint32_t spirv = module.spirvVersionSupported;
  info.ilVersion = spirv ? "SPIR-V_" + std::to_string(ZE_MAJOR_VERSION(spirv)) +
                               "." + std::to_string(ZE_MINOR_VERSION(spirv))
                         : "SPIR-V";

  uint32_t memories = 0;
  zeDeviceGetMemoryProperties(device, &memories, nullptr);
  if (memories > 0 && memories < 64) {
    std::vector<ze_device_memory_properties_t> memory(memories);
    for (auto &m : memory) {
      m = {};
      m.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES;
    }
    zeDeviceGetMemoryProperties(device, &memories, memory.data());
    for (uint32_t i = 0; i < memories && i < memory.size(); ++i)
      info.globalMemSize += memory[i].totalSize;
  }
  info.memBaseAddrAlign = 64;
  info.hasSvm = info.hasFineGrainSvm = true; // shared USM allocations

  // The first queue group that computes; ordinal 0 when none is said.
  *computeOrdinal = 0;
  uint32_t groups = 0;
  zeDeviceGetCommandQueueGroupProperties(device, &groups, nullptr);
  if (groups > 0 && groups < 64) {
    std::vector<ze_command_queue_group_properties_t> group(groups);
    for (auto &g : group) {
      g = {};
      g.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
    }
    zeDeviceGetCommandQueueGroupProperties(device, &groups, group.data());
    for (uint32_t i = 0; i < groups && i < group.size(); ++i)
      if (group[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) {
        *computeOrdinal = i;
        break;
      }
  }
  return info;
}

} // namespace

const std::vector<std::shared_ptr<Device>> &levelZeroDevices() {
  // Never destroyed: the loader may be torn down before static destructors.
  static const auto *devices = new std::vector<std::shared_ptr<Device>>([] {
    std::vector<std::shared_ptr<Device>> found;
    // The 1.8 loader crashes in zeInit when ZE_ENABLE_ALT_DRIVERS is set
    // but empty; empty means "none" anyway.
    if (const char *alt = std::getenv("ZE_ENABLE_ALT_DRIVERS"); alt && !*alt)
      unsetenv("ZE_ENABLE_ALT_DRIVERS");
    if (zeInit(0) != ZE_RESULT_SUCCESS) // no driver: no devices
      return found;
    uint32_t driverCount = 0;
    if (zeDriverGet(&driverCount, nullptr) != ZE_RESULT_SUCCESS ||
        driverCount == 0)
      return found;
    std::vector<ze_driver_handle_t> drivers(driverCount);
    zeDriverGet(&driverCount, drivers.data());
    std::map<std::string, int> indexOfType;
    for (ze_driver_handle_t driver : drivers) {
      uint32_t count = 0;
      if (zeDeviceGet(driver, &count, nullptr) != ZE_RESULT_SUCCESS ||
          count == 0)
        continue;
      std::vector<ze_device_handle_t> ids(count);
      zeDeviceGet(driver, &count, ids.data());
      for (ze_device_handle_t id : ids) {
        uint32_t ordinal = 0;
        DeviceInfo info = describe(driver, id, &ordinal);
        info.backendIndex = indexOfType[info.deviceType]++;
        try {
          found.push_back(std::make_shared<ZeDevice>(driver, id, info, ordinal));
        } catch (const DeviceError &) {
          // A device we cannot open is not listed.
        }
      }
    }
    return found;
  }());
  return *devices;
}

std::string levelZeroResultName(int code) {
  switch (static_cast<ze_result_t>(code)) {
#define NAME(c)                                                                \
  case c:                                                                      \
    return #c;
    NAME(ZE_RESULT_SUCCESS)
    NAME(ZE_RESULT_NOT_READY)
    NAME(ZE_RESULT_ERROR_DEVICE_LOST)
    NAME(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY)
    NAME(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)
    NAME(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE)
    NAME(ZE_RESULT_ERROR_MODULE_LINK_FAILURE)
    NAME(ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET)
    NAME(ZE_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE)
    NAME(ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS)
    NAME(ZE_RESULT_ERROR_NOT_AVAILABLE)
    NAME(ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE)
    NAME(ZE_RESULT_ERROR_UNINITIALIZED)
    NAME(ZE_RESULT_ERROR_UNSUPPORTED_VERSION)
    NAME(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE)
    NAME(ZE_RESULT_ERROR_INVALID_ARGUMENT)
    NAME(ZE_RESULT_ERROR_INVALID_NULL_HANDLE)
    NAME(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE)
    NAME(ZE_RESULT_ERROR_INVALID_NULL_POINTER)
    NAME(ZE_RESULT_ERROR_INVALID_SIZE)
    NAME(ZE_RESULT_ERROR_UNSUPPORTED_SIZE)
    NAME(ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT)
    NAME(ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT)
    NAME(ZE_RESULT_ERROR_INVALID_ENUMERATION)
    NAME(ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION)
    NAME(ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT)
    NAME(ZE_RESULT_ERROR_INVALID_NATIVE_BINARY)
    NAME(ZE_RESULT_ERROR_INVALID_GLOBAL_NAME)
    NAME(ZE_RESULT_ERROR_INVALID_KERNEL_NAME)
    NAME(ZE_RESULT_ERROR_INVALID_FUNCTION_NAME)
    NAME(ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION)
    NAME(ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION)
    NAME(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX)
    NAME(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE)
    NAME(ZE_RESULT_ERROR_INVALID_KERNEL_ATTRIBUTE_VALUE)
    NAME(ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED)
    NAME(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE)
    NAME(ZE_RESULT_ERROR_OVERLAPPING_REGIONS)
    NAME(ZE_RESULT_ERROR_UNKNOWN)
#undef NAME
  default: {
    char text[32];
    std::snprintf(text, sizeof text, "ZE_RESULT_0x%08x",
                  static_cast<unsigned>(code));
    return text;
  }
  }
}

} // namespace spirjit::runtime
