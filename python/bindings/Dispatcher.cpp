#include "python/bindings/Dispatcher.h"

#include "python/bindings/Arrays.h"
#include "python/bindings/Interpreter.h"
#include "python/bindings/Native.h"

#include "frontend/Diagnostics.h"
#include "launch/ScratchLease.h"
#include "python/bindings/Describe.h"
#include "python/bindings/Errors.h"
#include "runtime/DiskCache.h"

#include <pybind11/stl.h>

#include <cstring>
#include <unordered_map>

namespace py = pybind11;

namespace spirjit::python {

using runtime::Device;

static_assert(sizeof(py::ssize_t) == sizeof(int64_t),
              "NumPy's shapes and strides are read as int64_t");

/// A disk cache refused as unsafe becomes one RuntimeWarning per process,
/// at the first launch or decoration that compiled since (the runtime
/// records it; only this layer speaks Python). Under -W error it raises.
static void warnOfUnsafeDiskCache() {
  std::string warning = runtime::takeDiskCacheWarning();
  if (!warning.empty() &&
      PyErr_WarnEx(PyExc_RuntimeWarning, warning.c_str(), 1) < 0)
    throw py::error_already_set();
}

DeviceArray::DeviceArray(std::shared_ptr<runtime::Buffer> buffer,
                         py::dtype dtype, std::vector<int64_t> shape,
                         std::vector<int64_t> strides, int64_t offset)
    : buffer_(std::move(buffer)), device_(buffer_->device()),
      dtype_(std::move(dtype)), shape_(std::move(shape)),
      strides_(std::move(strides)), offset_(offset) {
  setType();
}

DeviceArray::DeviceArray(launch::NodeRef node, py::dtype dtype)
    : pending_(std::move(node)), device_(pending_->device),
      dtype_(std::move(dtype)), shape_(pending_->shape), offset_(0) {
  // The memory it will be computed into is C-contiguous.
  strides_.resize(shape_.size());
  int64_t stride = dtype_.itemsize();
  for (size_t d = shape_.size(); d-- > 0;) {
    strides_[d] = stride;
    stride *= std::max<int64_t>(shape_[d], 1);
  }
  launch::holdNode(pending_);
  // The node's element is the dtype's type (no lookup of the dtype).
  SPIRJIT_INTERNAL_CHECK(pending_->element, "a pending value without a type");
  type_ = types::array(pending_->element, static_cast<int>(shape_.size()),
                       launch::layoutOf(shape_.data(), strides_.data(),
                                        static_cast<int>(shape_.size()),
                                        dtype_.itemsize()));
}

DeviceArray::DeviceArray(const DeviceArray &o)
    : buffer_(o.buffer_), pending_(o.pending_), device_(o.device_),
      dtype_(o.dtype_), shape_(o.shape_), strides_(o.strides_),
      offset_(o.offset_), type_(o.type_) {
  if (pending_)
    launch::holdNode(pending_);
}

DeviceArray::DeviceArray(DeviceArray &&o) noexcept
    : buffer_(std::move(o.buffer_)), pending_(std::move(o.pending_)),
      device_(std::move(o.device_)), dtype_(std::move(o.dtype_)),
      shape_(std::move(o.shape_)), strides_(std::move(o.strides_)),
      offset_(o.offset_), type_(o.type_) {}

DeviceArray::~DeviceArray() {
  if (pending_)
    launch::releaseNode(*pending_);
}

void DeviceArray::setType() {
  const Type *element = typeOfDType(dtype_);
  SPIRJIT_INTERNAL_CHECK(element, "a device array of an unsupported dtype");
  type_ = types::array(element, static_cast<int>(shape_.size()),
                       launch::layoutOf(shape_.data(), strides_.data(),
                                        static_cast<int>(shape_.size()),
                                        dtype_.itemsize()));
}

void DeviceArray::relayout(std::vector<int64_t> shape,
                           std::vector<int64_t> strides) {
  buffer();
  shape_ = std::move(shape);
  strides_ = std::move(strides);
  memory_.reset(); // the graph's Memory node of the old layout
  setType();
}

const std::shared_ptr<runtime::Buffer> &DeviceArray::buffer() const {
  if (pending_) {
    launch::evaluate(*pending_);
    buffer_ = pending_->view.buffer;
    launch::releaseNode(*pending_);
    pending_.reset();
  }
  return buffer_;
}

const std::shared_ptr<runtime::Buffer> &DeviceArray::writableBuffer() const {
  buffer();
  if (launch::anyPending())
    launch::flushReaders(*buffer_);
  return buffer_;
}

runtime::UsmKind DeviceArray::usmKind() const {
  return pending_ ? pending_->usm : buffer_->usmKind();
}

launch::NodeRef DeviceArray::node() const {
  if (pending_)
    return pending_;
  if (!memory_) {
    launch::ArrayView view;
    view.buffer = buffer_;
    view.offset = offset_;
    view.shape = shape_;
    view.strides = strides_;
    memory_ = launch::memoryNode(std::move(view), type_->element,
                                 dtypeName(dtype_), dtype_.itemsize(),
                                 buffer_->usmKind());
  }
  return memory_;
}

int64_t DeviceArray::size() const {
  int64_t n = 1;
  for (int64_t extent : shape_)
    n *= extent;
  return n;
}

DeviceArray DeviceArray::fromNumPy(const py::array &input,
                                   const std::shared_ptr<Device> &device,
                                   runtime::UsmKind kind) {
  if (!typeOfDType(input.dtype()))
    throw PythonError("TypingError",
                      "arrays of dtype " +
                          py::str(input.dtype()).cast<std::string>() +
                          " cannot live on a device");
  // Keep a Fortran-ordered array Fortran-ordered, as np.asarray does;
  // anything else becomes C-contiguous.
  using npy = py::detail::npy_api;
  bool fortranOnly = (input.flags() & npy::NPY_ARRAY_F_CONTIGUOUS_) &&
                     !(input.flags() & npy::NPY_ARRAY_C_CONTIGUOUS_);
  py::array array = py::array::ensure(
      input, fortranOnly ? py::array::f_style : py::array::c_style);
  std::vector<int64_t> shape(array.shape(), array.shape() + array.ndim());
  std::vector<int64_t> strides(array.strides(), array.strides() + array.ndim());
  size_t bytes = static_cast<size_t>(array.nbytes());
  std::shared_ptr<runtime::Buffer> buffer =
      device->allocateUsm(bytes, bytes ? array.data() : nullptr, kind);
  return DeviceArray(buffer, array.dtype(), shape, strides, 0);
}

py::array DeviceArray::toNumPy() const {
  py::array out(dtype_, shape_);
  if (size() == 0)
    return out;
  // A small pending value on a CPU runtime: NumPy computes it straight into
  // the array returned (no device memory, no second wait, no copy); the
  // DeviceArray stays pending, as nothing it reads has changed.
  if (pending_ && readOnHost(pending_, out))
    return out;
  const std::shared_ptr<runtime::Buffer> &memory = buffer();
  const std::shared_ptr<runtime::Device> &device = memory->device();
  int64_t low = 0, high = 0, itemsize = dtype_.itemsize();
  for (size_t d = 0; d < shape_.size(); ++d) {
    int64_t reach = (shape_[d] - 1) * strides_[d];
    (reach < 0 ? low : high) += reach;
  }
  size_t span = static_cast<size_t>(high - low + itemsize);
  bool contiguous =
      launch::layoutOf(shape_.data(), strides_.data(),
                       static_cast<int>(shape_.size()), itemsize) == 'C' &&
      low == 0;
  // Memory the host addresses is read in place once the queue is done
  // (a blocking copy through the runtime costs several times more for a
  // small array); other memory is copied out, then gathered by NumPy.
  const char *host = memory->hostAddressable()
                         ? static_cast<const char *>(memory->svm())
                         : nullptr;
  py::object keep;
  if (host) {
    uint64_t upTo = launch::launchesSoFar();
    device->finish();
    launch::releaseFinishedLaunches(*device, upTo);
    host += offset_;
  } else if (contiguous) {
    // A blocking read of an in-order queue: the launches before it are
    // done too.
    uint64_t upTo = launch::launchesSoFar();
    device->read(*memory, out.mutable_data(), span,
                 static_cast<size_t>(offset_));
    launch::releaseFinishedLaunches(*device, upTo);
    return out;
  } else {
    py::array_t<uint8_t> bytes(static_cast<py::ssize_t>(span));
    uint64_t upTo = launch::launchesSoFar();
    device->read(*memory, bytes.mutable_data(), span,
                 static_cast<size_t>(offset_ + low));
    launch::releaseFinishedLaunches(*device, upTo);
    host = reinterpret_cast<const char *>(bytes.data()) - low;
    keep = bytes;
  }
  if (contiguous) {
    std::memcpy(out.mutable_data(), host, span);
    return out;
  }
  py::array view(dtype_, shape_, strides_, host, keep);
  out[py::ellipsis()] = view;
  return out;
}

void DeviceArray::writeFromHost(const py::array &input) const {
  // The caller casts as NumPy's setitem does; here the bytes must match.
  if (!py::detail::npy_api::get().PyArray_EquivTypes_(input.dtype().ptr(),
                                                      dtype_.ptr()))
    throw PythonError("TypingError",
                      "writing " + py::str(input.dtype()).cast<std::string>() +
                          " elements into a DeviceArray of " +
                          py::str(dtype_).cast<std::string>());
  if (std::vector<int64_t>(input.shape(), input.shape() + input.ndim()) !=
      shape_)
    throw PythonError("InvalidArgumentError",
                      "writing an array of another shape into a view");
  if (size() == 0)
    return;
  py::array host = py::array::ensure(input, py::array::c_style);
  // The host data may be a view of this very memory (np.asarray or DLPack
  // of a DeviceArray the host addresses): the drivers' copies take no
  // overlap, so such data is copied first, as NumPy does.
  const runtime::Buffer &memory = *writableBuffer();
  if (const auto *start = static_cast<const char *>(hostView(memory))) {
    const auto *first = static_cast<const char *>(host.data());
    if (first < start + memory.size() && start < first + host.nbytes())
      host = py::array(host.attr("copy")());
  }
  int64_t itemsize = dtype_.itemsize();
  // A C-contiguous view is one copy; any other is read back whole, scattered
  // into on the host and written back, which keeps the bytes between its
  // elements and costs one pass over the span, whatever the strides.
  bool contiguous = true;
  int64_t expected = itemsize;
  for (size_t d = shape_.size(); d-- > 0;) {
    if (shape_[d] == 1)
      continue;
    contiguous = contiguous && strides_[d] == expected;
    expected *= shape_[d];
  }
  const std::shared_ptr<Device> &device = writableBuffer()->device();
  if (contiguous) {
    device->write(*buffer(), host.data(), static_cast<size_t>(host.nbytes()),
                  static_cast<size_t>(offset_));
    return;
  }
  int64_t low = 0, high = 0;
  for (size_t d = 0; d < shape_.size(); ++d) {
    int64_t reach = (shape_[d] - 1) * strides_[d];
    (reach < 0 ? low : high) += reach;
  }
  size_t span = static_cast<size_t>(high - low + itemsize);
  py::array_t<uint8_t> bytes(static_cast<py::ssize_t>(span));
  device->read(*buffer(), bytes.mutable_data(), span,
               static_cast<size_t>(offset_ + low));
  py::array view(dtype_, shape_, strides_,
                 reinterpret_cast<const char *>(bytes.data()) - low, bytes);
  view[py::ellipsis()] = host;
  device->write(*buffer(), bytes.data(), span,
                static_cast<size_t>(offset_ + low));
}

DeviceArray DeviceArray::empty(const std::vector<int64_t> &shape,
                               const py::dtype &dtype,
                               const std::shared_ptr<Device> &device,
                               runtime::UsmKind kind) {
  if (!typeOfDType(dtype))
    throw PythonError("TypingError", "arrays of dtype " +
                                         py::str(dtype).cast<std::string>() +
                                         " cannot live on a device");
  std::vector<int64_t> strides(shape.size());
  int64_t stride = dtype.itemsize(), count = 1;
  for (size_t k = shape.size(); k-- > 0;) {
    if (shape[k] < 0)
      throw PythonError("InvalidArgumentError",
                        "negative dimensions are not allowed");
    strides[k] = stride;
    if (shape[k] && (__builtin_mul_overflow(stride, shape[k], &stride) ||
                     __builtin_mul_overflow(count, shape[k], &count)))
      throw PythonError("InvalidArgumentError", "array is too big");
    if (!shape[k]) {
      stride = 0;
      count = 0;
    }
  }
  auto buffer = device->allocateUsm(
      static_cast<size_t>(count * dtype.itemsize()), nullptr, kind);
  return DeviceArray(buffer, dtype, shape, strides, 0);
}

Dispatcher::Dispatcher(py::object describe, bool fastmath, int optLevel,
                       bool boundscheck, bool debug)
    : describe_(std::move(describe)),
      cache_(
          [this] {
            return toFunctionDescription(describe_().cast<py::dict>());
          },
          [&] {
            CompileOptions options;
            options.fastmath = fastmath;
            options.optLevel = optLevel;
            options.boundscheck = boundscheck || debug;
            options.debug = debug;
            return options;
          }()) {}

namespace {
/// What one conversion needs per argument, kept per thread so that warm
/// launches allocate nothing. Released on every exit from submit().
struct ConversionScratch {
  std::vector<launch::ArgumentValue> values;
  // NumPy arguments as given, and what the device sees (a contiguous copy
  // for negative strides); null handles for other arguments.
  std::vector<py::array> arrays, work;
  std::vector<std::vector<int64_t>> localShapes;
  bool inUse = false;

  void reset(size_t n) {
    values.assign(n, launch::ArgumentValue());
    arrays.clear();
    work.clear();
    for (auto &shape : localShapes)
      shape.clear();
    localShapes.resize(n);
  }
  void release() {
    arrays.clear();
    work.clear();
  }
};


} // namespace

const Type *scalarArgument(py::handle obj, uint64_t scalar[2],
                           const std::string &what, const char *taker) {
  static py::handle numpy = py::module_::import("numpy").release();
  static py::handle numpyScalarClass =
      py::object(numpy.attr("generic")).release();
  if (py::isinstance<py::bool_>(obj)) {
    scalar[0] = obj.cast<bool>();
    return types::boolean();
  }
  if (py::isinstance<py::int_>(obj)) {
    try {
      int64_t v = obj.cast<int64_t>();
      std::memcpy(&scalar[0], &v, sizeof v);
    } catch (const py::cast_error &) {
      throw PythonError("TypingError", what + " does not fit in int64");
    }
    return types::int64();
  }
  if (py::isinstance<py::float_>(obj)) {
    double v = obj.cast<double>();
    std::memcpy(&scalar[0], &v, sizeof v);
    return types::floating(64);
  }
  if (PyComplex_CheckExact(obj.ptr())) {
    double re = PyComplex_RealAsDouble(obj.ptr());
    double im = PyComplex_ImagAsDouble(obj.ptr());
    std::memcpy(&scalar[0], &re, sizeof re);
    std::memcpy(&scalar[1], &im, sizeof im);
    return types::complex(64);
  }
  // A NumPy scalar type seen before: its Type, and the value's bytes read
  // through the buffer protocol rather than through its dtype and an
  // array around it. Only NumPy's own (static) types are kept: a class
  // defined in Python may go, and another take its address.
  static std::unordered_map<PyTypeObject *, std::pair<const Type *, size_t>>
      known;
  auto seen = known.find(Py_TYPE(obj.ptr()));
  if (seen != known.end() && seen->second.first->kind != TypeKind::Complex) {
    Py_buffer view;
    if (PyObject_GetBuffer(obj.ptr(), &view, PyBUF_SIMPLE) == 0) {
      bool fits = static_cast<size_t>(view.len) == seen->second.second;
      if (fits)
        std::memcpy(&scalar[0], view.buf, seen->second.second);
      PyBuffer_Release(&view);
      if (fits)
        return seen->second.first;
    } else {
      PyErr_Clear();
    }
  }
  if (!py::isinstance(obj, numpyScalarClass))
    return nullptr;
  py::dtype dtype = obj.attr("dtype").cast<py::dtype>();
  const Type *t = typeOfDType(dtype);
  if (!t)
    throw PythonError("TypingError", what + " is a NumPy " +
                                         py::str(dtype).cast<std::string>() +
                                         " scalar, which " + taker +
                                         " cannot take yet");
  py::array holder = numpy.attr("asarray")(obj).cast<py::array>();
  if (t->kind == TypeKind::Complex) { // parts of 4 or 8 bytes each
    size_t part = dtype.itemsize() / 2;
    auto bytes = static_cast<const char *>(holder.data());
    std::memcpy(&scalar[0], bytes, part);
    std::memcpy(&scalar[1], bytes + part, part);
  } else {
    std::memcpy(&scalar[0], holder.data(), dtype.itemsize());
  }
  if (!(Py_TYPE(obj.ptr())->tp_flags & Py_TPFLAGS_HEAPTYPE))
    known.emplace(Py_TYPE(obj.ptr()),
                  std::make_pair(t, static_cast<size_t>(dtype.itemsize())));
  return t;
}

/// The C++ object inside a pybind11 DeviceArray, or nullptr for any other
/// object; no type-registry lookup on the launch path.
const DeviceArray *asDeviceArray(PyObject *obj) {
  static PyTypeObject *type =
      reinterpret_cast<PyTypeObject *>(py::type::of<DeviceArray>().ptr());
  if (Py_TYPE(obj) != type && !PyType_IsSubtype(Py_TYPE(obj), type))
    return nullptr;
  auto *inst = reinterpret_cast<py::detail::instance *>(obj);
  return inst->get_value_and_holder().value_ptr<DeviceArray>();
}

namespace {

std::string describeArgument(size_t index) {
  return "argument " + std::to_string(index + 1);
}

/// A NumPy array the launch keeps (a new reference, let go by the
/// launcher once the launch completes: usually under the GIL, but a C
/// caller's launch may sweep retired launches on a thread without it).
launch::HeldObject hold(const py::handle &object) {
  return {object.inc_ref().ptr(), [](void *held) {
            if (PyGILState_Check()) {
              Py_DECREF(static_cast<PyObject *>(held));
              return;
            }
            PyGILState_STATE state = ensureGil();
            Py_DECREF(static_cast<PyObject *>(held));
            PyGILState_Release(state);
          }};
}
/// Another library's array, as a launch takes it in place: a DeviceArray
/// over a CUDA array's memory (__cuda_array_interface__: CuPy, PyTorch; or
/// DLPack alone, __dlpack_device__ saying kDLCUDA), or a NumPy view of host
/// memory (__sycl_usm_array_interface__: dpnp, dpctl; DLPack on the CPU),
/// which the launch uses as a NumPy argument, so writes reach the owner.
/// Empty for anything else; numbers, NumPy arrays and LocalAccessors
/// return at once.
py::object foreignView(PyObject *obj, py::handle localAccessorClass) {
  // Numbers, NumPy's scalars among them, are no arrays (four failed
  // attribute lookups had cost a NumPy scalar argument 1.2 us a launch).
  static py::handle numpyScalarClass =
      py::object(py::module_::import("numpy").attr("generic")).release();
  if (PyLong_Check(obj) || PyFloat_Check(obj) || PyComplex_Check(obj) ||
      py::isinstance<py::array>(obj) ||
      py::isinstance(obj, numpyScalarClass) ||
      py::isinstance(obj, localAccessorClass))
    return py::object();
  // Never destroyed: released after the interpreter has finalised otherwise.
  static py::handle fromInterface =
      py::object(
          py::module_::import("spirjit").attr("_from_cuda_array_interface"))
          .release();
  static py::handle fromDLPack =
      py::object(
          py::module_::import("spirjit._spirjit").attr("_from_cuda_dlpack"))
          .release();
  static py::handle hostView =
      py::object(py::module_::import("spirjit").attr("_host_view")).release();
  if (PyObject_HasAttrString(obj, "__cuda_array_interface__") == 1)
    return fromInterface(py::handle(obj));
  if (PyObject_HasAttrString(obj, "__dlpack_device__") == 1 &&
      py::cast<py::tuple>(py::handle(obj).attr("__dlpack_device__")())[0]
              .cast<int>() == 2)
    return fromDLPack(py::handle(obj));
  if (PyObject_HasAttrString(obj, "__sycl_usm_array_interface__") != 1 &&
      PyObject_HasAttrString(obj, "__dlpack__") != 1)
    return py::object();
  py::object view = hostView(py::handle(obj));
  return view.is_none() ? py::object() : view;
}
} // namespace

void Dispatcher::submit(Event &event, const LaunchShape &shape,
                        PyObject *const *args, size_t n,
                        PyObject *const *dependencies, size_t dependencyCount,
                        bool wantEvent) {
  launch::ScratchLease<ConversionScratch> lease;
  ConversionScratch &scratch = *lease;
  scratch.reset(n);
  auto &values = scratch.values;
  auto &arrays = scratch.arrays;
  auto &work = scratch.work;
  auto numpyArgument = [&](size_t i) -> bool {
    return i < arrays.size() && arrays[i].ptr() != nullptr;
  };

  // Never destroyed: a static py::object would be released after the
  // interpreter has finalised.
  static py::handle numpy = py::module_::import("numpy").release();
  static py::handle localAccessorClass =
      py::object(
          py::module_::import("spirjit.kernel_api").attr("LocalAccessor"))
          .release();
  // Device arrays first: they decide the device. Other libraries' arrays
  // are viewed in place (foreignView): CUDA ones as DeviceArrays, host
  // ones as NumPy arrays that stand for their argument below. The views
  // are kept for the launch.
  bool anyDeviceArray = false;
  std::vector<py::object> foreign;
  std::vector<py::handle> hostViews;
  for (size_t i = 0; i < n; ++i) {
    const DeviceArray *array = asDeviceArray(args[i]);
    if (!array) {
      if (py::object view = foreignView(args[i], localAccessorClass)) {
        array = asDeviceArray(view.ptr());
        if (!array) {
          hostViews.resize(n);
          hostViews[i] = view;
        }
        foreign.push_back(std::move(view));
      }
    }
    if (array) {
      launch::ArgumentValue &value = values[i];
      value.kind = launch::ArgumentValue::Kind::DeviceArray;
      value.type = array->type();
      value.buffer = &array->writableBuffer(); // the kernel may write it
      value.offset = array->offset();
      value.shape = array->shape().data();
      value.strides = array->strides().data();
      value.itemsize = array->dtype().itemsize();
      anyDeviceArray = true;
    }
  }
  std::shared_ptr<Device> device =
      launch::deviceOfArguments(values.data(), anyDeviceArray ? n : 0);

  auto &localShapes = scratch.localShapes;
  for (size_t i = 0; i < n; ++i) {
    launch::ArgumentValue &value = values[i];
    if (value.kind == launch::ArgumentValue::Kind::DeviceArray)
      continue;
    py::handle obj = i < hostViews.size() && hostViews[i] ? hostViews[i]
                                                          : args[i];
    if (py::isinstance<py::array>(obj)) {
      py::array array = py::reinterpret_borrow<py::array>(obj);
      const Type *element = typeOfDType(array.dtype());
      if (!element)
        throw PythonError("TypingError",
                          describeArgument(i) + " has dtype " +
                              py::str(array.dtype()).cast<std::string>() +
                              ", which kernels cannot take");
      if (arrays.empty()) {
        arrays.resize(n, py::reinterpret_steal<py::array>(py::handle()));
        work.resize(n, py::reinterpret_steal<py::array>(py::handle()));
      }
      arrays[i] = array;
      bool negative = false;
      for (py::ssize_t d = 0; d < array.ndim(); ++d) {
        if (array.strides(d) < 0)
          negative = true;
        if (array.strides(d) % array.itemsize() != 0)
          throw PythonError("TypingError",
                            describeArgument(i) +
                                " has strides that are "
                                "not a multiple of its item size");
      }
      // Negative strides: the device sees a contiguous copy.
      work[i] = negative
                    ? numpy.attr("ascontiguousarray")(array).cast<py::array>()
                    : array;
      const py::array &seen = work[i];
      int ndim = static_cast<int>(seen.ndim());
      value.kind = launch::ArgumentValue::Kind::HostArray;
      value.shape = reinterpret_cast<const int64_t *>(seen.shape());
      value.strides = reinterpret_cast<const int64_t *>(seen.strides());
      value.itemsize = seen.itemsize();
      value.type = types::array(
          element, ndim,
          launch::layoutOf(value.shape, value.strides, ndim, value.itemsize));
      value.data = const_cast<void *>(seen.data());
      value.writable = array.writeable();
      continue;
    }
    if (py::isinstance(obj, localAccessorClass)) {
      py::dtype dtype = obj.attr("dtype").cast<py::dtype>();
      const Type *element = typeOfDType(dtype);
      if (!element)
        throw PythonError("TypingError",
                          describeArgument(i) + ": a LocalAccessor of " +
                              py::str(dtype).cast<std::string>() +
                              " is not supported");
      localShapes[i] = obj.attr("shape").cast<std::vector<int64_t>>();
      value.kind = launch::ArgumentValue::Kind::LocalAccessor;
      value.shape = localShapes[i].data();
      value.localBytes = obj.attr("nbytes").cast<int64_t>();
      value.type = types::array(
          element, static_cast<int>(localShapes[i].size()), 'C', MemorySpace::Local);
      continue;
    }
    value.type = scalarArgument(obj, value.scalar, describeArgument(i),
                                "kernels");
    value.python = PyLong_Check(obj.ptr()) || PyFloat_CheckExact(obj.ptr());
    if (!value.type) {
      throw PythonError(
          "TypingError",
          describeArgument(i) + " is a '" +
              py::str(py::type::of(obj).attr("__name__")).cast<std::string>() +
              "'; kernels take NumPy arrays, DeviceArrays and numbers");
    }
  }

  // Queues are in order: a dependency on this device is already behind
  // us; one on another device is waited for here, on the host, with its
  // NumPy write-back.
  for (size_t k = 0; k < dependencyCount; ++k) {
    Event *dependency = eventOf(dependencies[k]);
    if (dependency && !dependency->done() &&
        dependency->launchEvent().device() != device)
      dependency->wait();
  }

  launch::Event &launched = event.launchEvent();
  const std::vector<bool> &written = cache_.submit(
      launched, shape, values.data(), n, device, nullptr, 0, wantEvent);
  // NumPy arrays stay alive until the launch completes; a written copy
  // is copied back to the caller's array once it has.
  if (!arrays.empty())
    launched.reserveHeld(2 * n);
  for (size_t i = 0; i < n; ++i) {
    if (!numpyArgument(i))
      continue;
    launched.hold(hold(arrays[i]));
    if (!work[i].is(arrays[i])) {
      launched.hold(hold(work[i]));
      if (written[i])
        event.copyBack(arrays[i], work[i]);
    }
  }
  warnOfUnsafeDiskCache();
}

void Dispatcher::launch(const LaunchShape &shape, PyObject *const *args,
                        size_t n) {
  Event event;
  submit(event, shape, args, n, nullptr, 0, /*wantEvent=*/true);
  event.wait(); // waits, then writes NumPy arguments back
}

PyObject *Dispatcher::enqueue(const LaunchShape &shape,
                              PyObject *const *dependencies,
                              size_t dependencyCount, PyObject *const *args,
                              size_t n) {
  py::object event = py::reinterpret_steal<py::object>(newEventObject());
  submit(*eventOf(event.ptr()), shape, args, n, dependencies, dependencyCount,
         /*wantEvent=*/false);
  return event.release().ptr();
}

void Event::wait() {
  launch_.wait();
  for (auto &[original, work] : copies_)
    original[py::ellipsis()] = work;
  copies_.clear();
}

void Dispatcher::setSignatures(const std::vector<std::string> &signatures) {
  cache_.setSignatures(signatures);
  warnOfUnsafeDiskCache();
}

py::dict statsDict(const launch::CacheStatistics &s) {
  py::dict d;
  d["compiles"] = s.compiles;
  d["memory_hits"] = s.memoryHits;
  d["disk_hits"] = s.diskHits;
  d["rebuilds"] = s.rebuilds;
  d["compile_seconds"] = s.compileSeconds;
  d["device_build_seconds"] = s.deviceBuildSeconds;
  return d;
}

py::dict Dispatcher::stats() const { return statsDict(cache_.statistics()); }

} // namespace spirjit::python
