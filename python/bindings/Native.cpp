// The protocol python/spirjit/include/spirjit/extension.hpp reads: a
// versioned dict of plain integers and strings, so that an extension needs
// no link to _spirjit and may be built with another pybind11.
#include "python/bindings/Native.h"

#include "launch/Launcher.h"
#include "python/bindings/Errors.h"

#include <pybind11/stl.h>

#include <string>
#include <vector>

namespace py = pybind11;

namespace spirjit::python {

void *hostView(const runtime::Buffer &buffer) {
  if (buffer.hostPointer())
    return buffer.hostPointer();
  return buffer.hostAddressable() ? buffer.svm() : nullptr;
}

namespace {

/// What extension.hpp checks before reading the dict: a change that an
/// older header would misread takes a new number.
constexpr int nativeInterfaceVersion = 1;

std::uintptr_t address(const void *pointer) {
  return reinterpret_cast<std::uintptr_t>(pointer);
}

py::dict deviceInterface(runtime::Device &device) {
  runtime::NativeHandles handles = device.nativeHandles();
  const runtime::DeviceInfo &info = device.info();
  py::dict out;
  out["version"] = nativeInterfaceVersion;
  out["backend"] = info.backend;
  out["filter_string"] = device.filterString();
  out["device_type"] = info.deviceType;
  out["index"] = info.backendIndex;
  out["platform"] = handles.platform;
  out["device"] = handles.device;
  out["context"] = handles.context;
  out["queue"] = handles.queue;
  return out;
}

/// Native code queues work on the array's queue while it holds the lease;
/// once the last reference goes, the memory stays alive until the device
/// has finished everything queued by then (as for a dropped launch), so
/// that dropping the array right after the extension returns frees
/// nothing under its kernel.
py::capsule leaseOf(std::shared_ptr<runtime::Buffer> buffer) {
  auto *held = new std::shared_ptr<runtime::Buffer>(std::move(buffer));
  return py::capsule(held, [](void *pointer) {
    auto *held = static_cast<std::shared_ptr<runtime::Buffer> *>(pointer);
    try {
      std::shared_ptr<runtime::Device> device = (*held)->device();
      launch::retainUntilQueueDone(device, {std::move(*held)});
    } catch (const std::exception &) {
      // The device failed: there is no one to report it to here, and the
      // next use of the device reports it.
    }
    delete held;
  });
}

py::dict arrayInterface(const DeviceArray &array) {
  // The extension may write the memory: pending values are computed, and
  // pending values that read the memory before, on the same queue.
  const std::shared_ptr<runtime::Buffer> &buffer = array.writableBuffer();
  py::dict out;
  out["version"] = nativeInterfaceVersion;
  const char *pointer = static_cast<const char *>(buffer->svm());
  out["data"] = pointer ? address(pointer + array.offset()) : 0;
  out["memory"] = address(buffer->nativeMemory());
  out["memory_offset"] = array.offset();
  const char *host = static_cast<const char *>(hostView(*buffer));
  out["host_data"] = host ? address(host + array.offset()) : 0;
  out["shape"] = py::tuple(py::cast(array.shape()));
  out["strides"] = py::tuple(py::cast(array.strides()));
  out["typestr"] = array.dtype().attr("str");
  out["device"] = deviceInterface(*buffer->device());
  out["lease"] = leaseOf(buffer);
  return out;
}

} // namespace

void addNativeInterface(
    py::class_<DeviceArray> &arrays,
    py::class_<runtime::Device, std::shared_ptr<runtime::Device>> &devices) {
  arrays.def("__spirjit_native__", &arrayInterface,
             "the array's memory, layout, dtype, device and queue as "
             "integers, for native code (spirjit/extension.hpp); pending "
             "values are computed first");
  devices.def("__spirjit_native__", &deviceInterface,
              "the device's backend, filter string and native handles "
              "(spirjit/extension.hpp)");
}

} // namespace spirjit::python
