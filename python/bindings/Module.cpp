// The pybind11 module spirjit._spirjit: the compiler, the runtime and the
// dispatcher as Python sees them, and the translation of C++ errors into
// spirjit.errors exceptions.
#include "frontend/Diagnostics.h"
#include "launch/ArrayGraph.h"
#include "launch/HostCall.h"
#include "python/bindings/Arrays.h"
#include "python/bindings/Collectable.h"
#include "python/bindings/Collectives.h"
#include "python/bindings/Describe.h"
#include "python/bindings/Dispatcher.h"
#include "python/bindings/Dumps.h"
#include "python/bindings/Errors.h"
#include "python/bindings/Interpreter.h"
#include "python/bindings/Jit.h"
#include "python/bindings/Native.h"
#include "runtime/CUDA.h"
#include "runtime/Device.h"
#include "runtime/OpenCL.h"

#include <pybind11/stl.h>

#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <set>

namespace py = pybind11;
using namespace spirjit;
using namespace spirjit::python;

namespace {
/// A usm_type's kind; InvalidArgumentError for any other text (the Python layer
/// names the user's argument before it gets here).
runtime::UsmKind usmKind(const std::string &name) {
  runtime::UsmKind kind;
  if (!runtime::parseUsmKind(name, kind))
    throw PythonError("InvalidArgumentError",
                      "usm_type must be 'device', 'shared' or 'host', "
                      "not '" +
                          name + "'");
  return kind;
}
} // namespace

namespace {

// DLPack as the standard defines it: the unversioned "dltensor" capsule of
// v0.8 for consumers that ask for no version, and the "dltensor_versioned"
// capsule of v1.0 for those passing max_version >= (1, 0).
struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};
struct DLDataType {
  uint8_t code, bits;
  uint16_t lanes;
};
struct DLTensor {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape, *strides;
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(DLManagedTensor *);
};
struct DLPackVersion {
  uint32_t major, minor;
};
struct DLManagedTensorVersioned {
  DLPackVersion version;
  void *manager_ctx;
  void (*deleter)(DLManagedTensorVersioned *);
  uint64_t flags;
  DLTensor dl_tensor;
};
constexpr int32_t kDLCPU = 1, kDLCUDA = 2, kDLOpenCL = 4;

/// Another library's device memory (a CuPy array, a PyTorch tensor) seen
/// as a Buffer: it keeps the owning Python object alive, and frees nothing.
class ForeignBuffer final : public runtime::Buffer {
public:
  ForeignBuffer(std::shared_ptr<runtime::Device> device, void *pointer,
                size_t size, py::object owner)
      : Buffer(std::move(device), size, nullptr, pointer, false),
        owner_(owner.release().ptr()) {}
  ~ForeignBuffer() override {
    PyGILState_STATE state = ensureGil();
    Py_DECREF(owner_);
    PyGILState_Release(state);
  }

private:
  PyObject *owner_;
};

bool isCuda(const runtime::Buffer &buffer) {
  return buffer.device()->info().backend == "cuda";
}

struct DLPackOwner {
  DLManagedTensor tensor;
  DLManagedTensorVersioned versioned;
  std::shared_ptr<runtime::Buffer> buffer; // keeps the memory alive
  std::vector<int64_t> shape, strides;
  /// Set for memory the host reads in place (Device::hasHostViews).
  std::shared_ptr<runtime::Device> hostViewOf;
  DLPackOwner() = default;
  DLPackOwner(const DLPackOwner &) = delete;
  ~DLPackOwner() {
    if (hostViewOf)
      hostViewOf->removeHostView();
  }
};
/// DLPack 1.0's flag: the producer made the tensor for this consumer.
constexpr uint64_t DLPACK_FLAG_BITMASK_IS_COPIED = 1ull << 1;

template <typename Managed> void deleteDLPack(Managed *tensor) {
  delete static_cast<DLPackOwner *>(tensor->manager_ctx);
}

template <typename Managed>
void deleteUnconsumedCapsule(PyObject *capsule, const char *name) {
  // A consumer renames the capsule once it owns the tensor.
  if (PyCapsule_IsValid(capsule, name)) {
    auto *tensor = static_cast<Managed *>(PyCapsule_GetPointer(capsule, name));
    tensor->deleter(tensor);
  }
}

/// The capsule of `array`'s memory (a `copied` one is the consumer's
/// alone), made ready for the consumer: on CUDA its `stream` (None: the
/// legacy default stream; -1: no ordering) waits for spirjit's; elsewhere
/// the host reads it, once the queue is done (python/spirjit/_foreign.py
/// has checked the arguments).
py::capsule toDLPack(const DeviceArray &array, bool versioned, bool copied,
                     const py::object &stream) {
  // The consumer may write the memory.
  const auto &buffer = array.writableBuffer();
  bool cuda = isCuda(*buffer);
  if (!cuda && !hostView(*buffer))
    throw PythonError("DLPackError",
                      "this device's memory cannot be shared through "
                      "DLPack: it is not addressable by pointer");
  const std::shared_ptr<runtime::Device> &device = buffer->device();
  if (cuda) {
    int64_t consumer = stream.is_none() ? 1 : stream.cast<int64_t>();
    if (consumer != -1)
      runtime::cudaOrderBefore(*device, static_cast<uintptr_t>(consumer));
  } else {
    uint64_t upTo = launch::launchesSoFar();
    device->finish();
    launch::releaseFinishedLaunches(*device, upTo);
  }
  auto *owner = new DLPackOwner;
  owner->buffer = buffer;
  if (!cuda) {
    device->addHostView();
    owner->hostViewOf = device;
  }
  owner->shape = array.shape();
  int64_t itemsize = array.dtype().itemsize();
  for (int64_t stride : array.strides())
    owner->strides.push_back(stride / itemsize);
  DLTensor t;
  t.data = static_cast<char *>(cuda ? buffer->svm() : hostView(*buffer)) +
           array.offset();
  // CUDA memory is the GPU's; other memory here is host-addressable: the
  // CPU's view of it.
  t.device = cuda ? DLDevice{kDLCUDA, buffer->device()->info().backendIndex}
                  : DLDevice{kDLCPU, 0};
  t.ndim = static_cast<int32_t>(owner->shape.size());
  char kind = array.dtype().kind();
  t.dtype = {static_cast<uint8_t>(kind == 'i'   ? 0
                                  : kind == 'u' ? 1
                                  : kind == 'f' ? 2
                                  : kind == 'b' ? 6
                                                : 5),
             static_cast<uint8_t>(itemsize * 8), 1};
  t.shape = owner->shape.data();
  t.strides = owner->strides.data();
  t.byte_offset = 0;
  if (versioned) {
    DLManagedTensorVersioned &v = owner->versioned;
    v.version = {1, 0};
    v.manager_ctx = owner;
    v.deleter = deleteDLPack<DLManagedTensorVersioned>;
    v.flags = copied ? DLPACK_FLAG_BITMASK_IS_COPIED : 0; // writable
    v.dl_tensor = t;
    return py::capsule(&v, "dltensor_versioned", [](PyObject *capsule) {
      deleteUnconsumedCapsule<DLManagedTensorVersioned>(capsule,
                                                        "dltensor_versioned");
    });
  }
  owner->tensor.dl_tensor = t;
  owner->tensor.manager_ctx = owner;
  owner->tensor.deleter = deleteDLPack<DLManagedTensor>;
  return py::capsule(&owner->tensor, "dltensor", [](PyObject *capsule) {
    deleteUnconsumedCapsule<DLManagedTensor>(capsule, "dltensor");
  });
}

template <typename Managed> void deleteConsumed(void *tensor) {
  auto *managed = static_cast<Managed *>(tensor);
  if (managed->deleter)
    managed->deleter(managed);
}

/// A DeviceArray over a kDLCUDA DLPack producer's memory (an object with
/// __dlpack__ and __dlpack_device__ but no __cuda_array_interface__),
/// without a copy: the array owns the consumed tensor and calls its
/// deleter when the last view goes.
DeviceArray fromCudaDLPack(py::object producer) {
  // The device first: the producer is asked to order its pending work
  // before that device's stream, which the kernel then runs on.
  py::tuple where = producer.attr("__dlpack_device__")();
  int deviceType = where[0].cast<int>(), deviceId = where[1].cast<int>();
  std::shared_ptr<runtime::Device> device;
  for (const auto &candidate : runtime::allDevices())
    if (candidate->info().backend == "cuda" &&
        candidate->info().backendIndex == deviceId)
      device = candidate;
  if (deviceType != kDLCUDA || !device)
    throw PythonError(
        "DLPackError",
        "a DLPack producer on device (" + std::to_string(deviceType) + ", " +
            std::to_string(deviceId) + ") is not on a CUDA GPU spirjit found");
  py::int_ stream(runtime::cudaStreamHandle(*device));
  py::object capsule;
  try {
    capsule = producer.attr("__dlpack__")(py::arg("stream") = stream,
                                          py::arg("max_version") =
                                              py::make_tuple(1, 0));
  } catch (py::error_already_set &error) {
    if (!error.matches(PyExc_TypeError))
      throw;
    // A producer older than DLPack 1.0 takes no max_version.
    capsule = producer.attr("__dlpack__")(py::arg("stream") = stream);
  }
  bool versioned = PyCapsule_IsValid(capsule.ptr(), "dltensor_versioned");
  if (!versioned && !PyCapsule_IsValid(capsule.ptr(), "dltensor"))
    throw PythonError("TypingError",
                      "__dlpack__ returned no unconsumed DLPack capsule");
  const char *name = versioned ? "dltensor_versioned" : "dltensor";
  void *managed = PyCapsule_GetPointer(capsule.ptr(), name);
  PyCapsule_SetName(capsule.ptr(),
                    versioned ? "used_dltensor_versioned" : "used_dltensor");
  // Owns the tensor from here on, so every error below releases it.
  py::capsule owner(managed, versioned
                                 ? deleteConsumed<DLManagedTensorVersioned>
                                 : deleteConsumed<DLManagedTensor>);
  const DLTensor &t =
      versioned ? static_cast<DLManagedTensorVersioned *>(managed)->dl_tensor
                : static_cast<DLManagedTensor *>(managed)->dl_tensor;
  if (versioned &&
      static_cast<DLManagedTensorVersioned *>(managed)->version.major != 1)
    throw PythonError("DLPackError",
                      "a DLPack tensor of an unknown major version");
  if (t.device.device_type != kDLCUDA || t.device.device_id != deviceId)
    throw PythonError("DLPackError",
                      "a DLPack tensor on device (" +
                          std::to_string(t.device.device_type) + ", " +
                          std::to_string(t.device.device_id) +
                          "), not where its __dlpack_device__ said");
  static const std::map<std::pair<int, int>, const char *> dtypes = {
      {{0, 8}, "i1"},  {{0, 16}, "i2"}, {{0, 32}, "i4"}, {{0, 64}, "i8"},
      {{1, 8}, "u1"},  {{1, 16}, "u2"}, {{1, 32}, "u4"}, {{1, 64}, "u8"},
      {{2, 32}, "f4"}, {{2, 64}, "f8"}, {{5, 64}, "c8"}, {{5, 128}, "c16"},
      {{6, 8}, "?"}};
  auto found = dtypes.find({t.dtype.code, t.dtype.bits});
  if (found == dtypes.end() || t.dtype.lanes != 1)
    throw PythonError("DLPackError",
                      "a DLPack tensor of a dtype spirjit has no kernels "
                      "for (code " +
                          std::to_string(t.dtype.code) + ", " +
                          std::to_string(t.dtype.bits) + " bits)");
  py::dtype dtype(found->second);
  int64_t itemsize = dtype.itemsize();
  std::vector<int64_t> shape(t.shape, t.shape + t.ndim), strides(t.ndim);
  int64_t span = itemsize;
  int64_t step = 1;
  for (int d = t.ndim - 1; d >= 0; --d) {
    int64_t elements = t.strides ? t.strides[d] : step;
    if (elements < 0)
      throw PythonError("DLPackError",
                        "a DLPack tensor with negative strides cannot "
                        "be viewed; copy it first");
    strides[d] = elements * itemsize;
    span += (shape[d] - 1) * strides[d];
    step *= shape[d];
  }
  for (int64_t n : shape)
    span = n == 0 ? 0 : span;
  auto buffer = std::make_shared<ForeignBuffer>(
      device, static_cast<char *>(t.data) + t.byte_offset,
      static_cast<size_t>(span), std::move(owner));
  return DeviceArray(buffer, dtype, std::move(shape), std::move(strides), 0);
}

void raise(const char *className, const std::string &message,
           const py::dict &attributes = py::dict()) {
  py::object errors = py::module_::import("spirjit.errors");
  py::object exception = errors.attr(className)(message);
  for (auto item : attributes)
    exception.attr(item.first) = item.second;
  PyErr_SetObject(py::type::of(exception).ptr(), exception.ptr());
}

void translateErrors(std::exception_ptr pointer) {
  try {
    if (pointer)
      std::rethrow_exception(pointer);
  } catch (const UserError &e) {
    const char *name = "CompileError";
    switch (e.kind()) {
    case UserErrorKind::Compile:
      name = "CompileError";
      break;
    case UserErrorKind::Typing:
      name = "TypingError";
      break;
    case UserErrorKind::UnsupportedFeature:
      name = "UnsupportedFeatureError";
      break;
    case UserErrorKind::KernelReturnValue:
      name = "KernelHasReturnValueError";
      break;
    }
    py::dict attributes;
    attributes["filename"] = e.filename();
    attributes["lineno"] = e.line();
    raise(name, e.what(), attributes);
  } catch (const runtime::DeviceError &e) {
    py::dict attributes;
    attributes["backend"] = e.backend();
    attributes["code"] = e.codeName();
    attributes["build_log"] = e.buildLog();
    raise(e.isOutOfMemory() ? "OutOfDeviceMemoryError" : "DeviceError",
          e.what(), attributes);
  } catch (const PythonError &e) {
    raise(e.className().c_str(), e.what());
  } catch (const launch::LaunchError &e) {
    switch (e.kind()) {
    case launch::LaunchErrorKind::Typing:
      raise("TypingError", e.what());
      break;
    case launch::LaunchErrorKind::InvalidRange:
      raise("InvalidRangeError", e.what());
      break;
    case launch::LaunchErrorKind::OutOfDeviceMemory:
      raise("OutOfDeviceMemoryError", e.what());
      break;
    case launch::LaunchErrorKind::DeviceInference:
      raise("DeviceInferenceError", e.what());
      break;
    case launch::LaunchErrorKind::Device:
      raise("DeviceError", e.what());
      break;
    case launch::LaunchErrorKind::InvalidArgument:
      raise("InvalidArgumentError", e.what());
      break;
    case launch::LaunchErrorKind::IndexOutOfBounds:
      PyErr_SetString(PyExc_IndexError, e.what());
      break;
    case launch::LaunchErrorKind::ZeroDivision:
      PyErr_SetString(PyExc_ZeroDivisionError, e.what());
      break;
    case launch::LaunchErrorKind::AssertionFailed:
      PyErr_SetString(PyExc_AssertionError, e.what());
      break;
    case launch::LaunchErrorKind::Interrupted:
      if (!restoreInterruption())
        PyErr_SetNone(PyExc_KeyboardInterrupt);
      break;
    }
  } catch (const InternalError &e) {
    raise("InternalCompilerError", e.what());
  }
}

} // namespace

void spirjit::python::setPythonError(std::exception_ptr error) {
  try {
    try {
      std::rethrow_exception(error);
    } catch (py::error_already_set &e) {
      e.restore();
    } catch (const py::builtin_exception &e) {
      e.set_error();
    } catch (...) {
      translateErrors(std::current_exception()); // spirjit's own classes
    }
  } catch (const std::exception &e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "unknown C++ exception");
  }
}

namespace {

py::dict deviceProperties(const runtime::Device &device) {
  const runtime::DeviceInfo &info = device.info();
  py::dict d;
  d["filter_string"] = device.filterString();
  d["name"] = info.name;
  d["vendor"] = info.vendor;
  d["platform"] = info.platform;
  d["version"] = info.version;
  d["backend"] = info.backend;
  d["device_type"] = info.deviceType;
  d["max_work_group_size"] = info.maxWorkGroupSize;
  d["has_fp64"] = info.hasFp64;
  d["has_atomic64"] = info.hasAtomic64;
  d["global_mem_size"] = info.globalMemSize;
  d["local_mem_size"] = info.localMemSize;
  d["supports_spirv"] = info.supportsSpirv;
  d["il_version"] = info.ilVersion;
  d["host_unified_memory"] = info.hostUnifiedMemory;
  d["compute_capability"] = info.computeCapability;
  d["driver_version"] = info.driverVersion;
  d["platform_version"] = info.platformVersion;
  d["compute_units"] = info.computeUnits;
  d["sub_group_sizes"] = py::tuple(py::cast(info.subGroupSizes));
  d["has_fp16"] = info.hasFp16;
  d["image_support"] = info.imageSupport;
  return d;
}

} // namespace

PYBIND11_MODULE(_spirjit, m) {
  m.doc() = "spirjit's compiler and runtime (C++)";
  py::register_exception_translator(translateErrors);

  py::class_<runtime::Device, std::shared_ptr<runtime::Device>> devices(
      m, "_Device");
  devices
      .def("properties",
           [](const runtime::Device &d) { return deviceProperties(d); })
      .def_property_readonly("filter_string", &runtime::Device::filterString);

  py::class_<DeviceArray> arrays(
      m, "DeviceArray",
      "An n-dimensional array in one device's memory, "
      "made by spirjit.asarray, empty, zeros, ... or "
      "from_dlpack. Launches take it in place; its "
      "operators, NumPy's ufuncs and its methods compute "
      "on its device; ``asnumpy()`` copies it to the "
      "host.");
  arrays
      .def_property(
          "shape",
          [](const DeviceArray &a) { return py::tuple(py::cast(a.shape())); },
          [](DeviceArray &a, py::object shape) {
            // NumPy's rule (a view of the same memory, or AttributeError)
            // is _array_ops.shape_in_place's.
            py::tuple layout = py::module_::import("spirjit._array_ops")
                                   .attr("shape_in_place")(a, shape);
            a.relayout(layout[0].cast<std::vector<int64_t>>(),
                       layout[1].cast<std::vector<int64_t>>());
          },
          "the extents, a tuple of ints; assigned, the same memory "
          "viewed with other extents, as NumPy's")
      .def_property_readonly(
          "strides",
          [](const DeviceArray &a) { return py::tuple(py::cast(a.strides())); },
          "the steps between elements in bytes, as NumPy's")
      .def_property_readonly("dtype", &DeviceArray::dtype,
                             "the elements' numpy.dtype")
      .def_property_readonly(
          "ndim", [](const DeviceArray &a) { return a.shape().size(); },
          "the number of dimensions")
      .def_property_readonly("size", &DeviceArray::size,
                             "the number of elements")
      .def_property_readonly("_device",
                             [](const DeviceArray &a) { return a.device(); })
      .def_property_readonly(
          "usm_type",
          [](const DeviceArray &a) {
            return runtime::usmKindName(a.usmKind());
          },
          "the memory's kind: \"device\", \"shared\" or \"host\"")
      .def("asnumpy", &DeviceArray::toNumPy,
           "a NumPy array holding a copy of the elements (computed first "
           "where they are still pending)")
      .def("_write_from", &DeviceArray::writeFromHost)
      .def_property_readonly("_offset", &DeviceArray::offset)
      .def_property_readonly("_buffer_key",
                             [](const DeviceArray &a) {
                               // views of one allocation share it
                               return reinterpret_cast<uintptr_t>(
                                   a.buffer().get());
                             })
      .def(
          "_view",
          [](const DeviceArray &a, std::vector<int64_t> shape,
             std::vector<int64_t> strides, int64_t offset,
             std::optional<py::dtype> dtype) {
            // dtype: the parts of complex elements (x.real, x.imag)
            return DeviceArray(a.buffer(), dtype ? *dtype : a.dtype(),
                               std::move(shape), std::move(strides), offset);
          },
          py::arg("shape"), py::arg("strides"), py::arg("offset"),
          py::arg("dtype") = py::none())
      .def_property_readonly(
          "_pointer",
          [](const DeviceArray &a) -> py::object {
            // Another library may write through the pointer.
            if (!a.writableBuffer()->svm())
              return py::none();
            return py::int_(reinterpret_cast<uintptr_t>(
                static_cast<char *>(a.buffer()->svm()) + a.offset()));
          })
      .def_property_readonly(
          "_host_addressable",
          [](const DeviceArray &a) { return hostView(*a.buffer()) != nullptr; })
      .def("_dlpack_capsule", &toDLPack, py::arg("versioned"),
           py::arg("copied") = false, py::arg("stream") = py::none())
      .def("__dlpack_device__",
           [](const DeviceArray &a) -> py::tuple {
             if (isCuda(*a.buffer()))
               return py::make_tuple(kDLCUDA,
                                     a.buffer()->device()->info().backendIndex);
             bool host = a.buffer()->svm() && a.buffer()->hostAddressable();
             return py::make_tuple(host ? kDLCPU : kDLOpenCL, 0);
           })
      .def(
          "__array__",
          [](const DeviceArray &a, py::object dtype, py::object copy) {
            py::array out = a.toNumPy();
            if (!dtype.is_none())
              return out.attr("astype")(dtype).cast<py::array>();
            return out;
          },
          py::arg("dtype") = py::none(), py::arg("copy") = py::none())
      .def("__repr__", [](const DeviceArray &a) {
        return "DeviceArray(shape=" +
               py::str(py::tuple(py::cast(a.shape()))).cast<std::string>() +
               ", dtype=" + py::str(a.dtype()).cast<std::string>() +
               ", device=" + a.device()->filterString() + ")";
      });

  addNativeInterface(arrays, devices);
  addCollectives(m);

  m.def(
      "empty",
      [](const std::vector<int64_t> &shape, const py::dtype &dtype,
         const std::shared_ptr<runtime::Device> &device,
         const std::string &usm) {
        return DeviceArray::empty(shape, dtype, device, usmKind(usm));
      },
      py::arg("shape"), py::arg("dtype"), py::arg("device"),
      py::arg("usm_type") = "device");
  m.def(
      "to_device",
      [](const py::array &array, const std::shared_ptr<runtime::Device> &device,
         const std::string &usm) {
        return DeviceArray::fromNumPy(array, device, usmKind(usm));
      },
      py::arg("array"), py::arg("device"), py::arg("usm_type") = "device");
  m.def(
      "_copy_between_devices",
      [](const DeviceArray &array, const std::shared_ptr<runtime::Device> &device,
         const std::string &usm) -> py::object {
        // A C-contiguous array into device memory: one copy between the
        // devices where their backend has one; None otherwise.
        if (launch::layoutOf(array.shape().data(), array.strides().data(),
                             static_cast<int>(array.shape().size()),
                             array.dtype().itemsize()) != 'C')
          return py::none();
        runtime::UsmKind kind = usmKind(usm);
        if (kind != runtime::UsmKind::Device)
          return py::none();
        const std::shared_ptr<runtime::Buffer> &memory = array.buffer();
        DeviceArray out = DeviceArray::empty(array.shape(), array.dtype(),
                                             device, kind);
        size_t bytes = static_cast<size_t>(array.size() * array.dtype().itemsize());
        if (!device->copyFromPeer(*memory, static_cast<size_t>(array.offset()),
                                  *out.writableBuffer(), bytes))
          return py::none();
        return py::cast(std::move(out));
      },
      py::arg("array"), py::arg("device"), py::arg("usm_type") = "device",
      "a copy of `array` on `device`, device to device (CUDA GPUs), or None "
      "where the copy must go through the host");
  m.def(
      "_wrap_device_memory",
      [](const std::shared_ptr<runtime::Device> &device, uintptr_t pointer,
         size_t size, const py::dtype &dtype, std::vector<int64_t> shape,
         std::vector<int64_t> strides, py::object owner) {
        auto buffer = std::make_shared<ForeignBuffer>(
            device, reinterpret_cast<void *>(pointer), size, owner);
        return DeviceArray(buffer, dtype, std::move(shape), std::move(strides),
                           0);
      },
      "a DeviceArray over another library's memory on `device` (no copy); "
      "`owner` is kept alive as long as the array");
  m.def(
      "_wrap_host_memory",
      [](const std::shared_ptr<runtime::Device> &device, uintptr_t pointer,
         size_t size, const py::dtype &dtype, std::vector<int64_t> shape,
         std::vector<int64_t> strides, py::object owner) -> py::object {
        std::shared_ptr<runtime::Buffer> wrapper =
            device->wrapHostMemory(reinterpret_cast<void *>(pointer), size);
        if (!wrapper)
          return py::none();
        wrapper->setUsmKind(runtime::UsmKind::Host);
        // The array's buffer shares ownership with `owner`: views of it
        // keep the producer's memory alive too.
        struct Owned {
          Owned(std::shared_ptr<runtime::Buffer> buffer, PyObject *owner)
              : buffer(std::move(buffer)), owner(owner) {}
          Owned(const Owned &) = delete;
          std::shared_ptr<runtime::Buffer> buffer;
          PyObject *owner;
          ~Owned() {
            buffer.reset(); // the runtime's wrapper goes before the memory
            PyGILState_STATE state = ensureGil();
            Py_DECREF(owner);
            PyGILState_Release(state);
          }
        };
        auto owned =
            std::make_shared<Owned>(std::move(wrapper), owner.release().ptr());
        std::shared_ptr<runtime::Buffer> buffer(owned, owned->buffer.get());
        return py::cast(DeviceArray(buffer, dtype, std::move(shape),
                                    std::move(strides), 0));
      },
      "a DeviceArray over host memory on `device` (no copy), or None where "
      "the device cannot use host memory in place; `owner` is kept alive "
      "as long as the array");
  m.def(
      "_cuda_wait_for_stream",
      [](const std::shared_ptr<runtime::Device> &device, uintptr_t stream) {
        runtime::cudaWaitForStream(*device, stream);
      },
      "makes `device`'s stream wait for the work queued so far on another "
      "library's CUDA stream (__cuda_array_interface__'s `stream`)");
  m.def(
      "_cuda_stream",
      [](const std::shared_ptr<runtime::Device> &device) {
        return runtime::cudaStreamHandle(*device);
      },
      "the CUstream `device` launches on, as an integer (0: not CUDA)");
  m.def("_from_cuda_dlpack", &fromCudaDLPack,
        "a DeviceArray over a kDLCUDA DLPack producer's memory (no copy)");
  m.def("devices", [] { return runtime::allDevices(); });
  m.def("device_function_stats", [](const std::string &key) {
    DeviceFunctionCounters c = deviceFunctionCounters(key);
    py::dict out;
    out["compiles"] = c.compiles;
    out["memory_hits"] = c.memoryHits;
    out["disk_hits"] = c.diskHits;
    return out;
  });
  m.def("_live_kernel_caches", &launch::KernelCache::liveCount,
        "how many kernel caches (compiled specialisations and their "
        "programs) the process holds");
  m.def("match_devices", &launch::matchDevices);
  m.def("default_device", &launch::defaultDevice);

  addArrayFunctions(m);
  addHostEvaluation(m);
  addEventType(m.ptr());
  installInterpreterHooks();

  py::class_<Dispatcher>(m, "Dispatcher", collectable<Dispatcher>())
      .def(py::init<py::object, bool, int, bool, bool>(), py::arg("describe"),
           py::arg("fastmath") = false, py::arg("opt") = 2,
           py::arg("boundscheck") = false, py::arg("debug") = false)
      .def("_bare_enqueue_loop", &Dispatcher::bareEnqueueLoop)
      .def("set_signatures", &Dispatcher::setSignatures)
      .def_property_readonly("stats", &Dispatcher::stats);

  addJit(m);

  PyModule_AddFunctions(m.ptr(), callKernelMethods);

  m.def(
      "_build_program",
      [](const std::shared_ptr<runtime::Device> &device,
         const std::string &kind, const py::bytes &data) {
        std::string bytes = data;
        DeviceImage image;
        if (!imageFormatByName(kind, image.format))
          throw PythonError("InvalidArgumentError",
                            "kind is 'spirv', 'spir' or 'ptx'");
        image.bytes.assign(bytes.begin(), bytes.end());
        device->build(image);
      },
      "for tests: builds a program from a raw device image of `kind` on "
      "`device`, as a kernel's compile would");

  m.def(
      "_opencl_bare_loop",
      [](uintptr_t queue, uintptr_t kernel, size_t global, int count) {
        py::gil_scoped_release release;
        return runtime::openclBareLaunchLoop(reinterpret_cast<void *>(queue),
                                             reinterpret_cast<void *>(kernel),
                                             1, &global, count);
      },
      "for the dispatch benchmark: a bare C++ loop of clEnqueueNDRangeKernel "
      "on another library's queue and kernel (raw handles)");

  addStageDumps(m);
}
