// The protocol python/spirjit/include/spirjit/extension.hpp reads: a
// versioned dict of plain integers and strings, so that an extension needs
// no link to _spirjit and may be built with another pybind11. And the
// buffer protocol, which lets memoryview, mpi4py and NumPy use memory the
// host addresses in place.
#include "python/bindings/Native.h"

#include "launch/Launcher.h"
#include "python/bindings/Errors.h"

#include <pybind11/stl.h>

#include <cstring>
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

/// The struct module's format of a dtype spirjit has kernels for.
const char *bufferFormat(const py::dtype &dtype) {
  switch (dtype.kind()) {
  case 'b':
    return "?";
  case 'i':
  case 'u': {
    static const char *const formats[2][4] = {{"b", "h", "i", "q"},
                                              {"B", "H", "I", "Q"}};
    int size = static_cast<int>(dtype.itemsize());
    int index = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3;
    return formats[dtype.kind() == 'u'][index];
  }
  case 'f':
    return dtype.itemsize() == 2 ? "e" : dtype.itemsize() == 4 ? "f" : "d";
  case 'c':
    return dtype.itemsize() == 8 ? "Zf" : "Zd";
  default:
    return "B";
  }
}

/// A view's shape and strides, which the Py_buffer points into, and the
/// device whose host views it counts (Device::hasHostViews).
struct BufferLayout {
  std::vector<Py_ssize_t> shape, strides;
  std::shared_ptr<runtime::Device> device;
  /// A read's copy of the value (the buffer then points into it).
  py::object snapshot;
  ~BufferLayout() {
    if (device)
      device->removeHostView();
  }
};

/// A read of the buffer protocol: a C-contiguous copy of the value
/// (computed as np.asarray would have it, small pending values by the
/// host tier), writable, kept by the view.
int exportSnapshot(const DeviceArray *array, Py_buffer *view, int flags,
                   PyObject *self) {
  py::array copy = array->toNumPy();
  if ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS && copy.ndim() > 1)
    copy = py::module_::import("numpy").attr("asfortranarray")(copy);
  auto *layout = new BufferLayout;
  for (py::ssize_t d = 0; d < copy.ndim(); ++d) {
    layout->shape.push_back(copy.shape(d));
    layout->strides.push_back(copy.strides(d));
  }
  view->buf = copy.mutable_data();
  view->itemsize = static_cast<Py_ssize_t>(copy.itemsize());
  view->len = static_cast<Py_ssize_t>(copy.nbytes());
  view->readonly = 0;
  view->ndim = static_cast<int>(copy.ndim());
  view->format = (flags & PyBUF_FORMAT) == PyBUF_FORMAT
                     ? const_cast<char *>(bufferFormat(array->dtype()))
                     : nullptr;
  view->shape = (flags & PyBUF_ND) == PyBUF_ND ? layout->shape.data()
                                                 : nullptr;
  view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES
                      ? layout->strides.data()
                      : nullptr;
  view->suboffsets = nullptr;
  view->internal = layout;
  layout->snapshot = std::move(copy);
  view->obj = self;
  Py_INCREF(self);
  return 0;
}

/// Set by DeviceArray._host_memoryview for the request it makes.
thread_local bool aliasNextBuffer = false;

/// The buffer protocol. A request to write (PyBUF_WRITABLE: mpi4py's
/// receives, struct.pack_into) gets the device's memory in place; a read
/// (memoryview(x), NumPy's np.asarray(x), which asks before __array__)
/// gets a copy of the value, so that np.asarray(x) is a copy as API.md
/// says and a later write to it or to x leaves the other alone. The
/// library's NumPy-in-place paths take the memory (_host_memoryview).
int getBuffer(PyObject *self, Py_buffer *view, int flags) {
  view->obj = nullptr;
  bool alias = (flags & PyBUF_WRITABLE) == PyBUF_WRITABLE || aliasNextBuffer;
  aliasNextBuffer = false;
  try {
    const DeviceArray *array = asDeviceArray(self);
    if (!alias && (array->pending()
                       ? array->device()->allocatesHostAddressable(
                             runtime::UsmKind::Device)
                       : hostView(*array->buffer()) != nullptr))
      return exportSnapshot(array, view, flags, self);
    const std::shared_ptr<runtime::Buffer> &buffer = array->writableBuffer();
    auto *host = static_cast<char *>(hostView(*buffer));
    if (!host) {
      PyErr_SetString(
          PyExc_BufferError,
          ("a DeviceArray on " + buffer->device()->filterString() +
           " has no memory the host addresses, so no buffer protocol; "
           "copy it to the host with np.asarray(x) or spirjit.asnumpy(x)")
              .c_str());
      return -1;
    }
    // The host reads and writes in place: the queue's work comes first.
    runtime::Device &device = *buffer->device();
    uint64_t upTo = launch::launchesSoFar();
    device.finish();
    launch::releaseFinishedLaunches(device, upTo);
    auto *layout = new BufferLayout;
    for (size_t d = 0; d < array->shape().size(); ++d) {
      layout->shape.push_back(static_cast<Py_ssize_t>(array->shape()[d]));
      layout->strides.push_back(static_cast<Py_ssize_t>(array->strides()[d]));
    }
    view->buf = host + array->offset();
    view->itemsize = static_cast<Py_ssize_t>(array->dtype().itemsize());
    view->len = static_cast<Py_ssize_t>(array->size()) * view->itemsize;
    view->readonly = 0;
    view->ndim = static_cast<int>(layout->shape.size());
    view->format = (flags & PyBUF_FORMAT) == PyBUF_FORMAT
                       ? const_cast<char *>(bufferFormat(array->dtype()))
                       : nullptr;
    view->shape = layout->shape.data();
    view->strides = layout->strides.data();
    view->suboffsets = nullptr;
    view->internal = layout;
    // What the consumer may not take: a layout other than the one asked
    // for (no strides asked for means C-contiguous).
    const char *needed = nullptr;
    if ((flags & PyBUF_C_CONTIGUOUS) == PyBUF_C_CONTIGUOUS)
      needed = PyBuffer_IsContiguous(view, 'C') ? nullptr : "C-contiguous";
    else if ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS)
      needed =
          PyBuffer_IsContiguous(view, 'F') ? nullptr : "Fortran-contiguous";
    else if ((flags & PyBUF_ANY_CONTIGUOUS) == PyBUF_ANY_CONTIGUOUS)
      needed = PyBuffer_IsContiguous(view, 'A') ? nullptr : "contiguous";
    else if ((flags & PyBUF_STRIDES) != PyBUF_STRIDES)
      needed = PyBuffer_IsContiguous(view, 'C') ? nullptr : "C-contiguous";
    if (needed) {
      delete layout;
      std::memset(view, 0, sizeof(Py_buffer));
      PyErr_SetString(PyExc_BufferError,
                      (std::string("a ") + needed +
                       " buffer was asked for, and this DeviceArray view is "
                       "not; copy it first (x.copy())")
                          .c_str());
      return -1;
    }
    if ((flags & PyBUF_STRIDES) != PyBUF_STRIDES)
      view->strides = nullptr;
    if ((flags & PyBUF_ND) != PyBUF_ND)
      view->shape = nullptr;
    layout->device = buffer->device();
    layout->device->addHostView();
    view->obj = self;
    Py_INCREF(self);
    return 0;
  } catch (py::error_already_set &error) {
    error.restore();
  } catch (...) {
    setPythonError(std::current_exception());
  }
  return -1;
}

void releaseBuffer(PyObject *, Py_buffer *view) {
  delete static_cast<BufferLayout *>(view->internal);
}

} // namespace

void addNativeInterface(
    py::class_<DeviceArray> &arrays,
    py::class_<runtime::Device, std::shared_ptr<runtime::Device>> &devices) {
  arrays.def(
      "_host_memoryview",
      [](py::handle self) {
        // The memory itself, for NumPy in place (_array_primitives'
        // host_view); a memoryview of a DeviceArray is otherwise a copy.
        aliasNextBuffer = true;
        PyObject *view = PyMemoryView_FromObject(self.ptr());
        aliasNextBuffer = false;
        if (!view)
          throw py::error_already_set();
        return py::reinterpret_steal<py::object>(view);
      },
      "a memoryview of the array's own memory (host-addressable devices)");
  arrays.def("__spirjit_native__", &arrayInterface,
             "the array's memory, layout, dtype, device and queue as "
             "integers, for native code (spirjit/extension.hpp); pending "
             "values are computed first");
  devices.def("__spirjit_native__", &deviceInterface,
              "the device's backend, filter string and native handles "
              "(spirjit/extension.hpp)");
  // pybind11 made the type with room for buffer procedures
  // (PyHeapTypeObject); filled here so that errors say what to do.
  auto *heap = reinterpret_cast<PyHeapTypeObject *>(arrays.ptr());
  heap->as_buffer.bf_getbuffer = getBuffer;
  heap->as_buffer.bf_releasebuffer = releaseBuffer;
  heap->ht_type.tp_as_buffer = &heap->as_buffer;
  PyType_Modified(&heap->ht_type);
}

} // namespace spirjit::python
