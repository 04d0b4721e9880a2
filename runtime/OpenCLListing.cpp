// Listing OpenCL devices. Through the ICD loader, the first
// clGetPlatformIDs starts PoCL (ocl-icd counts every platform's devices,
// and PoCL's pthread device starts its worker threads then), and a forked
// child inherits PoCL's queues without the threads: its first launch would
// wait for ever. So a child process lists the devices and this one
// describes them from the child's answers, starting no driver; a device
// is looked up in this process when it is opened (findDevice).
#include "runtime/OpenCLListing.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <map>
#include <optional>
#include <poll.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

namespace spirjit::runtime {
namespace {

/// What describe() asks of one device: the bytes of a clGetDeviceInfo
/// `param`, or of a clGetPlatformInfo one of its platform (OpenCL numbers
/// those apart, 0x09xx); false where the driver refused.
using Answers = std::function<bool(cl_uint param, std::vector<char> &)>;

Answers askDriver(cl_platform_id platform, cl_device_id device) {
  return [=](cl_uint param, std::vector<char> &bytes) {
    bool ofPlatform = (param & 0xff00) == 0x0900;
    size_t size = 0;
    cl_int status = ofPlatform
                        ? clGetPlatformInfo(platform, param, 0, nullptr, &size)
                        : clGetDeviceInfo(device, param, 0, nullptr, &size);
    if (status != CL_SUCCESS)
      return false;
    bytes.assign(size, 0);
    if (size == 0)
      return true;
    status =
        ofPlatform
            ? clGetPlatformInfo(platform, param, size, bytes.data(), nullptr)
            : clGetDeviceInfo(device, param, size, bytes.data(), nullptr);
    return status == CL_SUCCESS;
  };
}

std::string deviceString(const Answers &device, cl_uint param) {
  std::vector<char> bytes;
  if (!device(param, bytes))
    return "";
  std::string value(bytes.begin(), bytes.end());
  while (!value.empty() && (value.back() == '\0' || value.back() == ' '))
    value.pop_back();
  return value;
}

template <typename T> T deviceValue(const Answers &device, cl_uint param) {
  std::vector<char> bytes;
  T value{};
  if (device(param, bytes) && bytes.size() == sizeof value)
    std::memcpy(&value, bytes.data(), sizeof value);
  return value;
}

/// What a PoCL work-group's private memory may take: PoCL's pthread device
/// runs a work-group on one of its worker threads, with every work-item's
/// private arrays on that thread's stack, and the workers get the
/// process's default stack size (RLIMIT_STACK, 8 MiB by default); a
/// quarter MiB stays for PoCL's own frames. Measured with PoCL 3.1: 10
/// work-items of 800 KB ran, 12 crashed the process.
uint64_t poclWorkGroupStack() {
  size_t stack = 8u << 20;
  pthread_attr_t attributes;
  if (pthread_getattr_default_np(&attributes) == 0) {
    pthread_attr_getstacksize(&attributes, &stack);
    pthread_attr_destroy(&attributes);
  }
  constexpr size_t reserve = 256u << 10;
  return stack > 2 * reserve ? stack - reserve : stack / 2;
}

DeviceInfo describe(const Answers &device) {
  DeviceInfo info;
  info.backend = "opencl";
  info.name = deviceString(device, CL_DEVICE_NAME);
  info.vendor = deviceString(device, CL_DEVICE_VENDOR);
  info.version = deviceString(device, CL_DEVICE_VERSION);
  info.platform = deviceString(device, CL_PLATFORM_NAME);
  auto type = deviceValue<cl_device_type>(device, CL_DEVICE_TYPE);
  info.deviceType = (type & CL_DEVICE_TYPE_GPU)           ? "gpu"
                    : (type & CL_DEVICE_TYPE_ACCELERATOR) ? "accelerator"
                                                          : "cpu";
  info.maxWorkGroupSize =
      deviceValue<size_t>(device, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  std::string extensions = deviceString(device, CL_DEVICE_EXTENSIONS);
  info.hasFp64 = deviceValue<cl_device_fp_config>(
                     device, CL_DEVICE_DOUBLE_FP_CONFIG) != 0 ||
                 extensions.find("cl_khr_fp64") != std::string::npos;
  info.hasAtomic64 =
      extensions.find("cl_khr_int64_base_atomics") != std::string::npos;
  info.hostUnifiedMemory =
      deviceValue<cl_bool>(device, CL_DEVICE_HOST_UNIFIED_MEMORY) == CL_TRUE;
  info.ilVersion = deviceString(device, CL_DEVICE_IL_VERSION);
  info.supportsSpirv = info.ilVersion.find("SPIR-V") != std::string::npos;
  info.hasFloatAtomics =
      extensions.find("cl_ext_float_atomics") != std::string::npos;
  info.addressBits =
      static_cast<int>(deviceValue<cl_uint>(device, CL_DEVICE_ADDRESS_BITS));
  if (info.supportsSpirv)
    info.imageFormats.push_back(ImageFormat::SPIRV);
  if (extensions.find("cl_khr_spir") != std::string::npos)
    info.imageFormats.push_back(ImageFormat::SPIRBitcode);
  info.globalMemSize = deviceValue<cl_ulong>(device, CL_DEVICE_GLOBAL_MEM_SIZE);
  info.localMemSize = deviceValue<cl_ulong>(device, CL_DEVICE_LOCAL_MEM_SIZE);
  if (isPoCL(info)) {
    info.privateMemPerGroup = poclWorkGroupStack();
    // PoCL's work-group loops vectorise only as the innermost loop (its
    // "parallel loop" metadata on the item loop).
    info.vectorizesInnermostItemLoopsOnly = info.deviceType == "cpu";
  }
  info.memBaseAddrAlign =
      deviceValue<cl_uint>(device, CL_DEVICE_MEM_BASE_ADDR_ALIGN) / 8;
  auto svm = deviceValue<cl_device_svm_capabilities>(
      device, CL_DEVICE_SVM_CAPABILITIES);
  info.hasSvm = (svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) != 0;
  info.hasFineGrainSvm = (svm & CL_DEVICE_SVM_FINE_GRAIN_BUFFER) != 0;
  info.driverVersion = deviceString(device, CL_DRIVER_VERSION);
  info.platformVersion = deviceString(device, CL_PLATFORM_VERSION);
  info.computeUnits = deviceValue<cl_uint>(device, CL_DEVICE_MAX_COMPUTE_UNITS);
  info.floatLanes =
      deviceValue<cl_uint>(device, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT);
  info.hasFp16 = extensions.find("cl_khr_fp16") != std::string::npos;
  info.imageSupport =
      deviceValue<cl_bool>(device, CL_DEVICE_IMAGE_SUPPORT) == CL_TRUE;
  // Sub-group sizes: only Intel's extension lists them.
  constexpr cl_device_info subGroupSizesIntel = 0x4108;
  std::vector<char> sizes;
  if (extensions.find("cl_intel_required_subgroup_size") != std::string::npos &&
      device(subGroupSizesIntel, sizes) && sizes.size() >= sizeof(size_t)) {
    info.subGroupSizes.resize(sizes.size() / sizeof(size_t));
    std::memcpy(info.subGroupSizes.data(), sizes.data(),
                info.subGroupSizes.size() * sizeof(size_t));
  }
  return info;
}

std::atomic<int> poclStarted{-1};

/// Every OpenCL platform of this process, through the loader: starts
/// PoCL's devices (poclStartedInFork) where PoCL is one.
std::vector<cl_platform_id> platformsHere() {
  cl_uint count = 0;
  if (clGetPlatformIDs(0, nullptr, &count) != CL_SUCCESS || count == 0)
    return {};
  std::vector<cl_platform_id> platforms(count);
  clGetPlatformIDs(count, platforms.data(), nullptr);
  for (cl_platform_id platform : platforms) {
    int none = -1;
    DeviceInfo info;
    info.platform =
        deviceString(askDriver(platform, nullptr), CL_PLATFORM_NAME);
    if (isPoCL(info))
      poclStarted.compare_exchange_strong(none, forkGeneration());
  }
  return platforms;
}

std::vector<cl_device_id> devicesOf(cl_platform_id platform) {
  cl_uint n = 0;
  if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &n) !=
          CL_SUCCESS ||
      n == 0)
    return {};
  std::vector<cl_device_id> ids(n);
  clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, n, ids.data(), nullptr);
  return ids;
}

/// One device's answers to describe(), by parameter (nothing: refused).
using Recorded = std::map<cl_uint, std::optional<std::vector<char>>>;
struct RecordedDevice {
  uint64_t platformIndex, index;
  Recorded answers;
};

/// What describe() asks of every device, asked of the driver here.
std::vector<RecordedDevice> recordAnswers() {
  std::vector<RecordedDevice> devices;
  std::vector<cl_platform_id> platforms = platformsHere();
  for (size_t p = 0; p < platforms.size(); ++p) {
    std::vector<cl_device_id> ids = devicesOf(platforms[p]);
    for (size_t d = 0; d < ids.size(); ++d) {
      RecordedDevice device{p, d, {}};
      Answers driver = askDriver(platforms[p], ids[d]);
      describe([&](cl_uint param, std::vector<char> &bytes) {
        bool answered = driver(param, bytes);
        device.answers[param] =
            answered ? std::optional<std::vector<char>>(bytes) : std::nullopt;
        return answered;
      });
      devices.push_back(std::move(device));
    }
  }
  return devices;
}

/// The child's message: 64-bit numbers and bytes. The device count, then
/// per device its platform's index, its index, its answer count, and per
/// answer the parameter, whether the driver answered, the size, the bytes.
void append(std::string &out, uint64_t value) {
  out.append(reinterpret_cast<const char *>(&value), sizeof value);
}

std::string encode(const std::vector<RecordedDevice> &devices) {
  std::string out;
  append(out, devices.size());
  for (const RecordedDevice &device : devices) {
    append(out, device.platformIndex);
    append(out, device.index);
    append(out, device.answers.size());
    for (const auto &[param, bytes] : device.answers) {
      append(out, param);
      append(out, bytes.has_value());
      append(out, bytes ? bytes->size() : 0);
      if (bytes)
        out.append(bytes->data(), bytes->size());
    }
  }
  return out;
}

std::optional<std::vector<RecordedDevice>> decode(const std::string &in) {
  size_t at = 0;
  auto take = [&](uint64_t &value) {
    if (in.size() - at < sizeof value)
      return false;
    std::memcpy(&value, in.data() + at, sizeof value);
    at += sizeof value;
    return true;
  };
  uint64_t count;
  if (!take(count) || count > 4096)
    return std::nullopt;
  std::vector<RecordedDevice> devices(count);
  for (RecordedDevice &device : devices) {
    uint64_t n, param, answered, size;
    if (!take(device.platformIndex) || !take(device.index) || !take(n))
      return std::nullopt;
    for (uint64_t i = 0; i < n; ++i) {
      if (!take(param) || !take(answered) || !take(size) ||
          in.size() - at < size)
        return std::nullopt;
      std::optional<std::vector<char>> bytes;
      if (answered)
        bytes.emplace(in.data() + at, in.data() + at + size);
      device.answers[static_cast<cl_uint>(param)] = std::move(bytes);
      at += size;
    }
  }
  if (at != in.size())
    return std::nullopt;
  return devices;
}

/// recordAnswers() in a forked child, which exits when done; nothing
/// where it failed, or took over a minute (it only lists: a child stuck
/// on a lock some other thread held at the fork).
std::optional<std::vector<RecordedDevice>> recordAnswersInChild() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    return std::nullopt;
  pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    std::string out = encode(recordAnswers());
    for (size_t at = 0; at < out.size();) {
      ssize_t n = write(fds[1], out.data() + at, out.size() - at);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        _exit(1);
      at += static_cast<size_t>(n);
    }
    _exit(0); // no atexit handlers or destructors: they are the parent's
  }
  close(fds[1]);
  if (child < 0) {
    close(fds[0]);
    return std::nullopt;
  }
  std::string in;
  bool complete = false;
  auto end = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    end - std::chrono::steady_clock::now())
                    .count();
    pollfd readable{fds[0], POLLIN, 0};
    int ready = left > 0 ? poll(&readable, 1, static_cast<int>(left)) : 0;
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready <= 0)
      break;
    char buffer[4096];
    ssize_t n = read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      complete = n == 0;
      break;
    }
    in.append(buffer, static_cast<size_t>(n));
  }
  close(fds[0]);
  if (!complete)
    kill(child, SIGKILL);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!complete || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return std::nullopt;
  return decode(in);
}

} // namespace

bool isPoCL(const DeviceInfo &info) {
  return info.platform == "Portable Computing Language";
}

int poclStartedInFork() { return poclStarted.load(); }

std::vector<ListedDevice> listDevices() {
  std::optional<std::vector<RecordedDevice>> recorded;
  if (poclStartedInFork() == -1)
    recorded = recordAnswersInChild();
  if (!recorded) // the child failed: here, as before
    recorded = recordAnswers();
  std::vector<ListedDevice> listed;
  for (const RecordedDevice &device : *recorded) {
    ListedDevice entry;
    entry.platformIndex = static_cast<cl_uint>(device.platformIndex);
    entry.index = static_cast<cl_uint>(device.index);
    entry.info = describe([&](cl_uint param, std::vector<char> &bytes) {
      auto found = device.answers.find(param);
      if (found == device.answers.end() || !found->second)
        return false;
      bytes = *found->second;
      return true;
    });
    listed.push_back(std::move(entry));
  }
  return listed;
}

std::pair<cl_platform_id, cl_device_id> findDevice(const ListedDevice &listed) {
  std::vector<cl_platform_id> platforms = platformsHere();
  if (listed.platformIndex < platforms.size()) {
    cl_platform_id platform = platforms[listed.platformIndex];
    std::vector<cl_device_id> ids = devicesOf(platform);
    if (listed.index < ids.size() &&
        deviceString(askDriver(platform, ids[listed.index]), CL_DEVICE_NAME) ==
            listed.info.name)
      return {platform, ids[listed.index]};
  }
  throw DeviceError("opencl", CL_DEVICE_NOT_FOUND, "CL_DEVICE_NOT_FOUND",
                    "the OpenCL driver no longer lists " + listed.info.name +
                        " where it listed it");
}

} // namespace spirjit::runtime
