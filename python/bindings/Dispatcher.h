// Launching kernels from Python: Python objects (NumPy arrays, spirjit
// DeviceArrays, numbers, LocalAccessors) into the launcher's argument
// values, and back (NumPy write-back, spirjit.Event). The launcher
// (launch/Launcher.h) does the rest. Launch.cpp holds the Python entry
// points (call_kernel, call_kernel_async, spirjit.Event).
#pragma once

#include "launch/ArrayGraph.h"
#include "launch/Launcher.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <memory>
#include <vector>

namespace spirjit::python {

using LaunchShape = launch::LaunchRange;

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

/// An array in one device's memory, or a value not computed yet: a
/// pending node of the array-expression graph (launch/ArrayGraph.h), which
/// is computed into new C-contiguous memory the first time anything needs
/// the memory. Shape, strides, dtype and device are known either way.
class DeviceArray {
public:
  DeviceArray(std::shared_ptr<runtime::Buffer> buffer, pybind11::dtype dtype,
              std::vector<int64_t> shape, std::vector<int64_t> strides,
              int64_t offset);
  /// The pending value of `node`.
  DeviceArray(launch::NodeRef node, pybind11::dtype dtype);
  DeviceArray(const DeviceArray &other);
  DeviceArray(DeviceArray &&other) noexcept;
  DeviceArray &operator=(const DeviceArray &) = delete;
  ~DeviceArray();

  static DeviceArray fromNumPy(const pybind11::array &array,
                               const std::shared_ptr<runtime::Device> &device,
                               runtime::UsmKind kind = runtime::UsmKind::Device);
  /// Uninitialised C-contiguous memory.
  static DeviceArray empty(const std::vector<int64_t> &shape,
                           const pybind11::dtype &dtype,
                           const std::shared_ptr<runtime::Device> &device,
                           runtime::UsmKind kind = runtime::UsmKind::Device);
  pybind11::array toNumPy() const;
  /// Writes `host` (this view's shape and dtype; any layout) into the
  /// view's elements on the device, after everything queued before; bytes
  /// between the view's elements keep their values.
  void writeFromHost(const pybind11::array &host) const;

  /// The memory: a pending value is computed first.
  const std::shared_ptr<runtime::Buffer> &buffer() const;
  /// The memory for something that may write it (a launch, a host write,
  /// another library): pending values that read it are computed first.
  const std::shared_ptr<runtime::Buffer> &writableBuffer() const;
  const std::shared_ptr<runtime::Device> &device() const { return device_; }
  runtime::UsmKind usmKind() const;
  bool pending() const { return pending_ && pending_->pending(); }
  /// This array's value as a graph node: the pending node, or its memory.
  launch::NodeRef node() const;
  const pybind11::dtype &dtype() const { return dtype_; }
  const std::vector<int64_t> &shape() const { return shape_; }
  const std::vector<int64_t> &strides() const { return strides_; } // bytes
  int64_t offset() const { return offset_; }
  int64_t size() const;
  /// `x.shape = ...`: this object becomes the view `shape`/`strides` (in
  /// bytes) of its memory, from the same offset; a pending value is
  /// computed first. The caller found the layout (NumPy's rule).
  void relayout(std::vector<int64_t> shape, std::vector<int64_t> strides);
  /// The compiler type of this array (dtype, rank, layout), computed once
  /// so launches need no Python call to find it.
  const Type *type() const { return type_; }

private:
  void setType();

  mutable std::shared_ptr<runtime::Buffer> buffer_;
  mutable launch::NodeRef pending_;
  /// The Memory node operations over this array record, made once (a node
  /// an operation made per operand was a fifth of recording `a + b`).
  mutable launch::NodeRef memory_;
  std::shared_ptr<runtime::Device> device_;
  pybind11::dtype dtype_;
  std::vector<int64_t> shape_, strides_;
  int64_t offset_;
  const Type *type_ = nullptr;
};

/// A launch in flight as Python sees it: the launcher's Event, and the
/// NumPy arrays the device saw a copy of (negative strides), written back
/// to the caller's array once it is done.
class Event {
public:
  /// Waits, re-raises a device error, and writes NumPy arguments back.
  void wait();
  bool done() const { return launch_.done() && copies_.empty(); }
  launch::Event &launchEvent() { return launch_; }
  /// `work`, a copy of `original`, is copied back once the launch is done.
  void copyBack(pybind11::array original, pybind11::array work) {
    copies_.push_back({std::move(original), std::move(work)});
  }

private:
  launch::Event launch_;
  std::vector<std::pair<pybind11::array, pybind11::array>> copies_;
};

class Dispatcher {
public:
  /// `describe` returns the function's description dict; it is called once,
  /// at the first compilation, which freezes globals and closure values.
  Dispatcher(pybind11::object describe, bool fastmath, int optLevel,
             bool boundscheck = false, bool debug = false);

  /// Launches over `shape` with the `n` arguments at `args`, and waits.
  void launch(const LaunchShape &shape, PyObject *const *args, size_t n);
  /// The same, returning a new spirjit.Event at once; the launch starts
  /// after `dependencies` (spirjit.Event objects).
  PyObject *enqueue(const LaunchShape &shape, PyObject *const *dependencies,
                    size_t dependencyCount, PyObject *const *args, size_t n);
  pybind11::dict stats() const;
  /// Restricts launches to these numba-style signatures and compiles each
  /// now, so errors surface at decoration.
  void setSignatures(const std::vector<std::string> &signatures);
  /// For the dispatch benchmark (KernelCache::bareEnqueueLoop).
  double bareEnqueueLoop(const std::vector<int64_t> &extents, int count) {
    return cache_.bareEnqueueLoop(extents, count);
  }
  /// The describe callback, for the cycle collector (Collectable.h).
  pybind11::object &heldObject() { return describe_; }

private:
  /// Converts the arguments and submits, filling `event`.
  void submit(Event &event, const LaunchShape &shape, PyObject *const *args,
              size_t n, PyObject *const *dependencies, size_t dependencyCount,
              bool wantEvent);

  pybind11::object describe_;
  launch::KernelCache cache_;
};

/// The compiler type and bytes (`scalar`, a complex number's parts in two
/// slots) of a Python or NumPy number, or nullptr for anything else; a
/// TypingError naming `what` for a number `taker` ("kernels") cannot take.
const Type *scalarArgument(pybind11::handle obj, uint64_t scalar[2],
                           const std::string &what, const char *taker);

/// A kernel cache's statistics as `.stats` shows them: compiles,
/// memory_hits, disk_hits, compile_seconds, device_build_seconds.
pybind11::dict statsDict(const launch::CacheStatistics &statistics);

/// The C++ object inside a DeviceArray, or nullptr for any other object.
const DeviceArray *asDeviceArray(PyObject *obj);

} // namespace spirjit::python
