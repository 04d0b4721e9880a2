// spirjit/extension.hpp: spirjit's DeviceArrays and Devices in a C++
// function of a pybind11 module, as dpctl's dpctl4pybind11.hpp gives SYCL
// arrays and queues.
//
//   #include <spirjit/extension.hpp>   // -I spirjit.get_include()
//
//   void scale(spirjit::array_view x, double factor) {
//     if (x.device().backend() == "opencl") {
//       auto queue = x.queue<cl_command_queue>();   // spirjit's own queue
//       ... clSetKernelArgSVMPointer(kernel, 0, x.data()); enqueue on queue
//     }
//   }
//   PYBIND11_MODULE(mine, m) { m.def("scale", &scale); }
//
// Header-only: it needs pybind11 and the C++ standard library, and no
// link to spirjit. It reads a DeviceArray through the Python-level
// protocol `x.__spirjit_native__()` (a dict of integers and strings,
// versioned), so a module built once works with later spirjit releases
// that keep the protocol's version.
//
// What an argument gives:
//  - array_view: the data pointer of the first element (OpenCL SVM, Level
//    Zero USM, a CUdeviceptr), or, for OpenCL memory without SVM, the
//    cl_mem and the byte offset; shape; strides in bytes; dtype (NumPy's
//    typestr "<f4", kind, item size); its device; and it keeps the
//    DeviceArray alive.
//  - device_ref: the backend ("opencl", "cuda", "level_zero", "native"),
//    filter string, device type, and the backend's handles: the queue
//    spirjit runs on (cl_command_queue, CUstream, ze_command_list_handle_t:
//    an immediate command list), its context (cl_context, CUcontext: the
//    device's primary context, ze_context_handle_t), the device
//    (cl_device_id, CUdevice, ze_device_handle_t) and the platform
//    (cl_platform_id, none for CUDA, ze_driver_handle_t). The native CPU
//    device has no handles (its queue is spirjit's own thread pool): its
//    arrays are host memory, read through host_data() after
//    device().synchronize().
//
// Ordering: queues are in order, one per device. A pending (lazily
// evaluated) DeviceArray is computed when it is converted, by work queued
// on that queue; work the extension queues on the same queue (or stream)
// runs after it, and spirjit's later work after the extension's. Memory of
// an array_view stays valid for everything queued on the device before
// the last copy of the array_view is destroyed, even if Python drops the
// array at once. Work on another queue must wait for spirjit's (an OpenCL
// marker event, cuStreamWaitEvent). The host may read data() directly
// only when host_data() is non-null and after device().synchronize().
// A CUDA extension makes context() current (cuCtxPushCurrent) first.
// Views hold Python references: copy and destroy them with the GIL held
// (pybind11's argument casters do).
//
// Only DeviceArrays convert: a NumPy array is not copied to a device
// behind the caller's back (its writes would be lost), and pybind11 tries
// the next overload instead; overload on pybind11::array for host data.
#pragma once

#include <pybind11/pybind11.h>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace spirjit {

/// The version of `__spirjit_native__` this header reads.
constexpr int native_interface_version = 1;

namespace detail {

template <typename Handle>
Handle handle_cast(std::uintptr_t value, std::true_type /*pointer*/) {
  return reinterpret_cast<Handle>(value);
}
template <typename Handle>
Handle handle_cast(std::uintptr_t value, std::false_type /*integer*/) {
  return static_cast<Handle>(value);
}
/// A native handle as the backend's type: a pointer (cl_command_queue,
/// CUstream) or an integer (CUdevice).
template <typename Handle> Handle as_handle(std::uintptr_t value) {
  return handle_cast<Handle>(value, std::is_pointer<Handle>());
}

template <typename T> struct is_complex : std::false_type {};
template <typename T> struct is_complex<std::complex<T>> : std::true_type {};

/// NumPy's kind character of C++ type T ('?' for none spirjit has).
template <typename T> constexpr char kind_of() {
  return std::is_same<T, bool>::value       ? 'b'
         : std::is_floating_point<T>::value ? 'f'
         : is_complex<T>::value             ? 'c'
         : std::is_integral<T>::value ? (std::is_signed<T>::value ? 'i' : 'u')
                                      : '?';
}

inline pybind11::module_ spirjit_module() {
  return pybind11::module_::import("spirjit");
}

/// isinstance(object, type), with the type looked up once.
inline bool is_instance(pybind11::handle object, const char *type_name,
                        PyObject *&cache) {
  if (!cache)
    cache = pybind11::object(spirjit_module().attr(type_name)).release().ptr();
  int found = PyObject_IsInstance(object.ptr(), cache);
  if (found < 0)
    throw pybind11::error_already_set();
  return found == 1;
}

inline std::uintptr_t integer(const pybind11::dict &d, const char *key) {
  return pybind11::cast<std::uintptr_t>(d[key]);
}

/// A tuple of integers (the header includes no pybind11/stl.h, which
/// would change how the including module converts std::vector).
inline std::vector<pybind11::ssize_t> extents(pybind11::handle tuple) {
  std::vector<pybind11::ssize_t> out;
  for (pybind11::handle item :
       pybind11::reinterpret_borrow<pybind11::tuple>(tuple))
    out.push_back(pybind11::cast<pybind11::ssize_t>(item));
  return out;
}

inline void check_version(const pybind11::dict &native) {
  int version = pybind11::cast<int>(native["version"]);
  if (version != native_interface_version)
    throw std::runtime_error(
        "this extension was built with spirjit/extension.hpp for "
        "__spirjit_native__ version " +
        std::to_string(native_interface_version) +
        ", and this spirjit gives version " + std::to_string(version) +
        "; build it again against spirjit.get_include()");
}

} // namespace detail

/// A device as native code uses it: its backend and handles.
class device_ref {
public:
  device_ref() = default;
  /// From a spirjit.Device; a pybind11::type_error for anything else.
  explicit device_ref(pybind11::handle device) {
    static PyObject *type = nullptr;
    if (!detail::is_instance(device, "Device", type))
      throw pybind11::type_error("expected a spirjit.Device, not " +
                                 std::string(Py_TYPE(device.ptr())->tp_name));
    *this = device_ref(pybind11::dict(device.attr("__spirjit_native__")()));
  }
  /// From the "device" entry of `__spirjit_native__`.
  explicit device_ref(const pybind11::dict &native) {
    detail::check_version(native);
    backend_ = pybind11::cast<std::string>(native["backend"]);
    filter_string_ = pybind11::cast<std::string>(native["filter_string"]);
    device_type_ = pybind11::cast<std::string>(native["device_type"]);
    index_ = pybind11::cast<int>(native["index"]);
    platform_ = detail::integer(native, "platform");
    device_ = detail::integer(native, "device");
    context_ = detail::integer(native, "context");
    queue_ = detail::integer(native, "queue");
  }

  /// "opencl", "cuda" or "level_zero".
  const std::string &backend() const { return backend_; }
  /// "opencl:cpu:0": what spirjit.Device() takes.
  const std::string &filter_string() const { return filter_string_; }
  /// "cpu", "gpu" or "accelerator".
  const std::string &device_type() const { return device_type_; }
  /// The index among this backend's devices of this type.
  int index() const { return index_; }

  /// The in-order queue spirjit runs on: cl_command_queue, CUstream or
  /// ze_command_list_handle_t (an immediate command list).
  template <typename Handle = void *> Handle queue() const {
    return detail::as_handle<Handle>(queue_);
  }
  /// cl_context, CUcontext (the primary context) or ze_context_handle_t.
  template <typename Handle = void *> Handle context() const {
    return detail::as_handle<Handle>(context_);
  }
  /// cl_device_id, CUdevice (an integer: native_device<CUdevice>()) or
  /// ze_device_handle_t.
  template <typename Handle = void *> Handle native_device() const {
    return detail::as_handle<Handle>(device_);
  }
  /// cl_platform_id or ze_driver_handle_t (CUDA has none: 0).
  template <typename Handle = void *> Handle platform() const {
    return detail::as_handle<Handle>(platform_);
  }

  /// The spirjit.Device.
  pybind11::object object() const {
    return detail::spirjit_module().attr("Device")(filter_string_);
  }
  /// Computes pending values and waits for everything queued on the
  /// device (spirjit.synchronize): then the host may read host_data().
  void synchronize() const {
    detail::spirjit_module().attr("synchronize")(object());
  }

private:
  std::string backend_, filter_string_, device_type_;
  int index_ = 0;
  std::uintptr_t platform_ = 0, device_ = 0, context_ = 0, queue_ = 0;
};

/// A DeviceArray as native code uses it; holds the array (and its memory)
/// alive. Copies share the array.
class array_view {
public:
  array_view() = default;
  /// From a spirjit.DeviceArray (a pending one is computed first); a
  /// pybind11::type_error for anything else.
  explicit array_view(pybind11::handle array) {
    static PyObject *type = nullptr;
    if (!detail::is_instance(array, "DeviceArray", type))
      throw pybind11::type_error("expected a spirjit.DeviceArray, not " +
                                 std::string(Py_TYPE(array.ptr())->tp_name));
    pybind11::dict native(array.attr("__spirjit_native__")());
    detail::check_version(native);
    array_ = pybind11::reinterpret_borrow<pybind11::object>(array);
    lease_ = native["lease"];
    data_ = detail::integer(native, "data");
    memory_ = detail::integer(native, "memory");
    memory_offset_ = pybind11::cast<std::ptrdiff_t>(native["memory_offset"]);
    host_data_ = detail::integer(native, "host_data");
    shape_ = detail::extents(native["shape"]);
    strides_ = detail::extents(native["strides"]);
    typestr_ = pybind11::cast<std::string>(native["typestr"]);
    device_ = device_ref(pybind11::dict(native["device"]));
  }

  /// The device address of the first element (OpenCL SVM, Level Zero USM,
  /// CUdeviceptr), or nullptr when the memory is an OpenCL buffer
  /// (memory()).
  void *data() const { return reinterpret_cast<void *>(data_); }
  /// data() as T*; std::invalid_argument if the dtype is not T's.
  template <typename T> T *data() const {
    if (!is<T>())
      throw std::invalid_argument("a DeviceArray of dtype " + typestr_ +
                                  " read as another type");
    return static_cast<T *>(data());
  }
  /// The cl_mem of OpenCL memory without SVM (nullptr elsewhere); the
  /// first element is memory_offset() bytes into it.
  template <typename Handle = void *> Handle memory() const {
    return detail::as_handle<Handle>(memory_);
  }
  std::ptrdiff_t memory_offset() const { return memory_offset_; }
  /// The first element's address for the host, where the host addresses
  /// the memory (CPU runtimes), else nullptr. Read it after
  /// device().synchronize().
  void *host_data() const { return reinterpret_cast<void *>(host_data_); }

  int ndim() const { return static_cast<int>(shape_.size()); }
  const std::vector<pybind11::ssize_t> &shape() const { return shape_; }
  pybind11::ssize_t shape(int dim) const { return shape_.at(dim); }
  /// In bytes, as NumPy's (negative for reversed views).
  const std::vector<pybind11::ssize_t> &strides() const { return strides_; }
  pybind11::ssize_t strides(int dim) const { return strides_.at(dim); }
  pybind11::ssize_t size() const {
    pybind11::ssize_t n = 1;
    for (pybind11::ssize_t extent : shape_)
      n *= extent;
    return n;
  }

  /// NumPy's typestr: byte order, kind, item size ("<f4", "|b1").
  const std::string &typestr() const { return typestr_; }
  /// 'b' bool, 'i' signed, 'u' unsigned, 'f' float, 'c' complex.
  char kind() const { return typestr_.at(1); }
  int itemsize() const { return std::stoi(typestr_.substr(2)); }
  /// Whether the elements are C++ type T's (float: "<f4").
  template <typename T> bool is() const {
    return kind() == detail::kind_of<T>() &&
           itemsize() == static_cast<int>(sizeof(T));
  }
  bool is_c_contiguous() const {
    pybind11::ssize_t expected = itemsize();
    for (int d = ndim() - 1; d >= 0; --d) {
      if (shape_[d] != 1 && strides_[d] != expected)
        return size() == 0;
      expected *= shape_[d];
    }
    return true;
  }

  const device_ref &device() const { return device_; }
  /// device().queue(): the queue or stream the array's work runs on.
  template <typename Handle = void *> Handle queue() const {
    return device_.queue<Handle>();
  }
  /// The DeviceArray.
  const pybind11::object &object() const { return array_; }

private:
  pybind11::object array_, lease_;
  std::uintptr_t data_ = 0, memory_ = 0, host_data_ = 0;
  std::ptrdiff_t memory_offset_ = 0;
  std::vector<pybind11::ssize_t> shape_, strides_;
  std::string typestr_;
  device_ref device_;
};

/// A new uninitialised C-contiguous DeviceArray on `device`, of a NumPy
/// dtype name ("float32", "<f8").
inline array_view empty(const std::vector<pybind11::ssize_t> &shape,
                        const std::string &dtype, const device_ref &device) {
  pybind11::tuple extents(shape.size());
  for (size_t d = 0; d < shape.size(); ++d)
    extents[d] = pybind11::int_(shape[d]);
  pybind11::object array = detail::spirjit_module().attr("empty")(
      extents, dtype, pybind11::arg("device") = device.filter_string());
  return array_view(array);
}

} // namespace spirjit

namespace pybind11 {
namespace detail {

/// A spirjit.DeviceArray argument as a spirjit::array_view; an array_view
/// returned is its DeviceArray.
template <> struct type_caster<spirjit::array_view> {
  PYBIND11_TYPE_CASTER(spirjit::array_view, const_name("spirjit.DeviceArray"));

  bool load(handle source, bool /*convert: never; see the top*/) {
    static PyObject *type = nullptr;
    if (!spirjit::detail::is_instance(source, "DeviceArray", type))
      return false;
    value = spirjit::array_view(source);
    return true;
  }
  static handle cast(const spirjit::array_view &view, return_value_policy,
                     handle) {
    return view.object().inc_ref();
  }
};

/// A spirjit.Device argument as a spirjit::device_ref; one returned is a
/// spirjit.Device.
template <> struct type_caster<spirjit::device_ref> {
  PYBIND11_TYPE_CASTER(spirjit::device_ref, const_name("spirjit.Device"));

  bool load(handle source, bool) {
    static PyObject *type = nullptr;
    if (!spirjit::detail::is_instance(source, "Device", type))
      return false;
    value = spirjit::device_ref(source);
    return true;
  }
  static handle cast(const spirjit::device_ref &device, return_value_policy,
                     handle) {
    return device.object().release();
  }
};

} // namespace detail
} // namespace pybind11
