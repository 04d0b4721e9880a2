// Which device a launch runs on: the one its arrays live on, else the
// default device (SPIRJIT_DEVICE's filter, else the first one found).
#include "launch/Launcher.h"

#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <optional>

namespace spirjit::launch {

using runtime::Device;

namespace {

/// A filter's index, digits only. An index too large for size_t names no
/// device, like any other index past the last match, rather than failing
/// in the parse.
size_t parseIndex(const std::string &digits) {
  size_t index = 0;
  for (char c : digits)
    if (__builtin_mul_overflow(index, size_t(10), &index) ||
        __builtin_add_overflow(index, size_t(c - '0'), &index))
      return SIZE_MAX;
  return index;
}

} // namespace

std::vector<std::shared_ptr<Device>> matchDevices(const std::string &filter) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    size_t colon = filter.find(':', start);
    parts.push_back(filter.substr(start, colon - start));
    if (colon == std::string::npos)
      break;
    start = colon + 1;
  }
  std::string backend, type;
  std::optional<size_t> index;
  for (const std::string &part : parts) {
    if (part.empty())
      continue;
    if (part == "opencl" || part == "level_zero" || part == "cuda" ||
        part == "native")
      backend = part;
    else if (part == "cpu" || part == "gpu" || part == "accelerator")
      type = part;
    else if (part.find_first_not_of("0123456789") == std::string::npos)
      index = parseIndex(part);
    else
      throw LaunchError(LaunchErrorKind::InvalidArgument,
                        "invalid device filter '" + filter +
                            "': expected backend:type:index, e.g. "
                            "'opencl:cpu:0'");
  }
  std::vector<std::shared_ptr<Device>> matches;
  for (const auto &device : runtime::allDevices()) {
    if (!backend.empty() && device->info().backend != backend)
      continue;
    if (!type.empty() && device->info().deviceType != type)
      continue;
    matches.push_back(device);
  }
  if (index) {
    if (*index >= matches.size())
      return {};
    return {matches[*index]};
  }
  return matches;
}

std::shared_ptr<Device> defaultDevice() {
  const char *filter = std::getenv("SPIRJIT_DEVICE");
  // The answer for the last filter seen: launches without device arrays
  // ask each time.
  static std::mutex mutex;
  static std::string lastFilter;
  static std::shared_ptr<Device> lastDevice;
  std::string text = filter ? filter : "";
  std::lock_guard<std::mutex> lock(mutex);
  if (lastDevice && text == lastFilter)
    return lastDevice;
  std::vector<std::shared_ptr<Device>> matches = matchDevices(text);
  if (matches.empty()) {
    std::string known;
    for (const auto &device : runtime::allDevices())
      known += "\n  " + device->filterString() + "  " + device->info().name;
    if (filter && *filter)
      throw LaunchError(LaunchErrorKind::Device,
                        std::string("SPIRJIT_DEVICE='") + filter +
                            "' matches no device; devices:" +
                            (known.empty() ? " none" : known));
    throw LaunchError(LaunchErrorKind::Device,
                      "no device found (is an OpenCL driver such as "
                      "pocl-opencl-icd, or a Level Zero driver, installed?)");
  }
  lastFilter = text;
  lastDevice = matches[0];
  return lastDevice;
}

std::shared_ptr<Device> deviceOfArguments(const ArgumentValue *args, size_t n) {
  const std::shared_ptr<Device> *deviceOf = nullptr;
  for (size_t i = 0; i < n; ++i) {
    if (args[i].kind != ArgumentValue::Kind::DeviceArray)
      continue;
    const std::shared_ptr<Device> &owner = (*args[i].buffer)->device();
    if (deviceOf && *deviceOf != owner) {
      const std::shared_ptr<Device> &device = *deviceOf;
      throw LaunchError(LaunchErrorKind::DeviceInference,
                        "arrays on different devices in one launch: " +
                            device->filterString() + " (" +
                            device->info().name + ") and " +
                            owner->filterString() + " (" + owner->info().name +
                            "); move them to one device with to_device()");
    }
    deviceOf = &owner;
  }
  return deviceOf ? *deviceOf : defaultDevice();
}

} // namespace spirjit::launch
