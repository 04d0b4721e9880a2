// Launching kernels from Python: argument types, the compiled-kernel cache
// per (signature, launch rank, device), argument binding by the kernel ABI,
// the launch itself, and writing NumPy arguments back. Launch.cpp holds the
// Python entry points (call_kernel, call_kernel_async, spirjit.Event).
#pragma once

#include "compiler/KernelABI.h"
#include "compiler/Pipeline.h"
#include "runtime/Device.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace spirjit::python {

/// A launch's index space: extents with dimension 0 the slowest, and for
/// an NdRange the work-group extents.
struct LaunchShape {
  int dims = 0;
  int64_t global[3] = {1, 1, 1};
  int64_t local[3] = {1, 1, 1};
  bool ndRange = false;
};

/// spirjit.call_kernel and call_kernel_async: CPython vectorcall functions,
/// so a launch builds no argument tuple and converts nothing it need not.
extern PyMethodDef callKernelMethods[];

class Event;
/// A new spirjit.Event object (a CPython type holding an Event in place).
PyObject *newEventObject();
/// The Event inside a spirjit.Event object, or nullptr for anything else.
Event *eventOf(PyObject *object);
/// Adds spirjit.Event to the module.
void addEventType(PyObject *module);

/// An array in one device's memory.
class DeviceArray {
public:
  DeviceArray(std::shared_ptr<runtime::Buffer> buffer, pybind11::dtype dtype,
              std::vector<int64_t> shape, std::vector<int64_t> strides,
              int64_t offset);

  static DeviceArray fromNumPy(const pybind11::array &array,
                               const std::shared_ptr<runtime::Device> &device);
  /// Uninitialised C-contiguous memory.
  static DeviceArray empty(const std::vector<int64_t> &shape,
                           const pybind11::dtype &dtype,
                           const std::shared_ptr<runtime::Device> &device);
  pybind11::array toNumPy() const;

  const std::shared_ptr<runtime::Buffer> &buffer() const { return buffer_; }
  const pybind11::dtype &dtype() const { return dtype_; }
  const std::vector<int64_t> &shape() const { return shape_; }
  const std::vector<int64_t> &strides() const { return strides_; } // bytes
  int64_t offset() const { return offset_; }
  int64_t size() const;
  /// The compiler type of this array (dtype, rank, layout), computed once
  /// so launches need no Python call to find it.
  const Type *type() const { return type_; }

private:
  std::shared_ptr<runtime::Buffer> buffer_;
  pybind11::dtype dtype_;
  std::vector<int64_t> shape_, strides_;
  int64_t offset_;
  const Type *type_ = nullptr;
};

/// A launch in flight: wait() waits for it, re-raises a device error, and
/// writes NumPy arguments back.
class Event {
public:
  Event() = default;
  ~Event();
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;
  void setDevice(std::shared_ptr<runtime::Device> device) {
    device_ = std::move(device);
  }
  /// The backend's event of launch number `sequence` (launch order).
  void setHandle(std::unique_ptr<runtime::Event> handle, uint64_t sequence) {
    handle_ = std::move(handle);
    sequence_ = sequence;
  }
  void keep(pybind11::array original, pybind11::array work,
            std::shared_ptr<runtime::Buffer> buffer, bool wrapped,
            bool written);
  void keepAlive(std::shared_ptr<runtime::Buffer> buffer) {
    alive_.push_back(std::move(buffer));
  }
  void wait();
  bool done() const { return done_; }
  const std::shared_ptr<runtime::Device> &device() const { return device_; }

private:
  struct Pending {
    pybind11::array original, work;
    std::shared_ptr<runtime::Buffer> buffer;
    bool wrapped, written;
  };
  std::shared_ptr<runtime::Device> device_;
  std::unique_ptr<runtime::Event> handle_;
  uint64_t sequence_ = 0;
  std::vector<Pending> pending_;
  std::vector<std::shared_ptr<runtime::Buffer>> alive_;
  bool done_ = false;
};

class Dispatcher {
public:
  /// `describe` returns the function's description dict; it is called once,
  /// at the first compilation, which freezes globals and closure values.
  Dispatcher(pybind11::object describe, bool fastmath, int optLevel)
      : describe_(std::move(describe)), fastmath_(fastmath),
        optLevel_(optLevel) {}

  /// Launches over `shape` with the `n` arguments at `args`, and waits.
  void launch(const LaunchShape &shape, PyObject *const *args, size_t n);
  /// The same, returning a new spirjit.Event at once; the launch starts
  /// after `dependencies` (spirjit.Event objects).
  PyObject *enqueue(const LaunchShape &shape, PyObject *const *dependencies,
                    size_t dependencyCount, PyObject *const *args, size_t n);
  pybind11::dict stats() const;
  /// Restricts launches to these numba-style signatures and compiles each
  /// now (to SPIR-V, for a 1-D launch), so errors surface at decoration.
  void setSignatures(const std::vector<std::string> &signatures);

private:
  struct Entry {
    CompiledKernel compiled;
    std::shared_ptr<runtime::Kernel> kernel;
    std::vector<KernelParameter> parameters;
  };
  struct Key {
    std::vector<const Type *> types;
    int dimensions;
    bool ndRange;
    const runtime::Device *device;
    bool operator<(const Key &o) const {
      return std::tie(types, dimensions, ndRange, device) <
             std::tie(o.types, o.dimensions, o.ndRange, o.device);
    }
  };

  Entry &compile(const Key &key, const std::shared_ptr<runtime::Device> &device);
  /// What depends only on the argument types and the device: float64 or
  /// complex128 on a device without fp64, and `signatures=`. A TypingError.
  void checkArgumentTypes(const std::vector<const Type *> &types,
                          const runtime::Device &device) const;
  /// Types the arguments, finds or compiles the specialisation, binds by
  /// the kernel ABI and enqueues, filling `event`. Without `wantEvent` the
  /// backend creates no event: Event::wait() then waits for a marker.
  void submit(Event &event, const LaunchShape &shape, PyObject *const *args,
              size_t n, PyObject *const *dependencies,
              size_t dependencyCount, bool wantEvent);
  const FunctionDescription &description();

  pybind11::object describe_;
  std::optional<FunctionDescription> description_;
  bool fastmath_;
  int optLevel_;
  std::map<Key, std::unique_ptr<Entry>> cache_;
  std::vector<std::vector<const Type *>> signatures_;
  std::vector<std::string> signatureTexts_;
  // The last specialisation launched: most launches repeat it.
  Key lastKey_{};
  Entry *lastEntry_ = nullptr;

public:
  /// For the dispatch benchmark: enqueue the last launched kernel `count`
  /// times with its arguments as they are (a bare C++ loop), then finish.
  /// Returns the seconds taken.
  double bareEnqueueLoop(const std::vector<int64_t> &extents, int count);
  int compiles_ = 0, memoryHits_ = 0, diskHits_ = 0;
  double compileSeconds_ = 0, deviceBuildSeconds_ = 0;
};

/// The default device: SPIRJIT_DEVICE's filter, else the first device.
std::shared_ptr<runtime::Device> defaultDevice();
/// Devices matching a filter "backend:type:index" (parts may be omitted).
std::vector<std::shared_ptr<runtime::Device>>
matchDevices(const std::string &filter);

} // namespace spirjit::python
