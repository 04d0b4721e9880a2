// @spirjit.jit calls: Python arguments into host-ABI parameters, the call,
// the result back (Jit.h).
#include "python/bindings/Jit.h"

#include "compiler/HostABI.h"
#include "compiler/KernelABI.h"
#include "python/bindings/Collectable.h"
#include "python/bindings/Describe.h"
#include "python/bindings/Dispatcher.h"
#include "python/bindings/Errors.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <complex>
#include <cstring>
#include <functional>
#include <future>

namespace py = pybind11;

namespace spirjit::python {

JitDispatcher::JitDispatcher(py::object describe, py::object device,
                             bool fastmath, int optLevel, bool boundscheck,
                             bool debug)
    : describe_(std::move(describe)),
      function_([this](const std::vector<std::string> &operations) {
                  return toFunctionDescription(
                      describe_(py::arg("operations") = operations)
                          .cast<py::dict>());
                },
                [&] {
                  CompileOptions options;
                  options.fastmath = fastmath;
                  options.optLevel = optLevel;
                  options.boundscheck = boundscheck || debug;
                  options.debug = debug;
                  return options;
                }()) {
  if (!device.is_none())
    device_ = device.cast<std::shared_ptr<runtime::Device>>();
}

namespace {

/// Why a NumPy array of `dtype` cannot be a jit argument, and what to pass
/// instead (numba takes record and datetime64 arrays; spirjit's jit
/// arrays hold numbers, which every device can hold).
PythonError unsupportedDType(const std::string &argument,
                             const py::dtype &dtype) {
  std::string name = py::str(dtype).cast<std::string>();
  std::string why;
  switch (dtype.kind()) {
  case 'V':
    why = "structured (record) arrays are not taken: pass each field as an "
          "array of its own, f(a['x'], a['y']) (NumPy's field views, in "
          "place where the record's size is a multiple of the field's; "
          "else np.ascontiguousarray(a['x']), and copy written fields back)";
    break;
  case 'M':
  case 'm':
    why = "datetime64 and timedelta64 arrays are not taken: pass their "
          "counts of the unit, t.view('int64'), and view what comes back "
          "as the unit again, r.view('" + name + "')";
    break;
  case 'O':
  case 'U':
  case 'S':
    why = "Python objects and strings cannot live on a device; pass "
          "numbers";
    break;
  default:
    why = "jit arrays hold bool, integers, float32/float64 and complex "
          "numbers; convert it with a.astype(...)";
  }
  return PythonError("UnsupportedFeatureError",
                     argument + " has dtype " + name + ": " + why);
}

/// spirjit._describe, which knows the namedtuple classes.
py::module_ &describeModule() {
  static py::module_ *module =
      new py::module_(py::module_::import("spirjit._describe"));
  return *module;
}

/// The key of a namedtuple class (its instances' type name), or None for
/// another class.
py::object namedTupleKey(py::handle cls) {
  if (cls.ptr() == reinterpret_cast<PyObject *>(&PyTuple_Type))
    return py::none(); // the common case, without a call into Python
  py::module_ &describe = describeModule();
  if (!describe.attr("is_namedtuple_class")(cls).cast<bool>())
    return py::none();
  return describe.attr("namedtuple_key")(cls);
}

/// One argument as the host code takes it.
struct Argument {
  const Type *type = nullptr;
  void *data = nullptr; // arrays: the first element
  std::vector<int64_t> shape, strides; // strides in elements
  uint64_t scalar[2] = {0, 0};
  std::vector<Argument> parts; // a tuple: its elements
  py::object object; // arrays: the Python object, for views of it; lists:
                     // the list, which the call's changes go back into
  int64_t bytes = 0;  // arrays: span of memory from `data`
  std::shared_ptr<spirjit_host_list> list; // a list: its items, converted
};

py::dtype dtypeOfType(const Type *t) { return py::dtype(t->str()); }

std::string argumentName(size_t i) {
  return "argument " + std::to_string(i + 1);
}

struct Converted {
  std::vector<Argument> arguments;
  std::vector<const Type *> types;
  std::shared_ptr<runtime::Device> device;
  bool anyDeviceArray = false;
  bool hostAddressable = true;
  /// The DeviceArray arguments' USM kinds combined (HostCall::usmKind);
  /// "host", the kind any other combines to, until one is seen.
  runtime::UsmKind usmKind = runtime::UsmKind::Host;
  /// The device a Device argument names, if any.
  std::shared_ptr<runtime::Device> named;
  std::vector<launch::HostCall::Region> regions;
};

void arrayLayout(Argument &a, const Type *element, const int64_t *shape,
                 const int64_t *strides, int ndim, int64_t itemsize,
                 size_t index) {
  int64_t span = itemsize;
  for (int d = 0; d < ndim; ++d) {
    if (strides[d] % itemsize != 0)
      throw PythonError("TypingError",
                        argumentName(index) +
                            " has strides that are not a multiple of its "
                            "item size");
    a.shape.push_back(shape[d]);
    a.strides.push_back(strides[d] / itemsize);
    span += (shape[d] - 1) * std::abs(strides[d]);
  }
  a.bytes = span;
  a.type = types::array(element, ndim,
                        launch::layoutOf(shape, strides, ndim, itemsize));
}

/// The runtime device of a spirjit.Device (or an object deriving from
/// it), else nullptr.
std::shared_ptr<runtime::Device> deviceObject(py::handle obj) {
  // Never destroyed: a static py::object would be released after the
  // interpreter has finalised.
  static py::handle deviceClass =
      py::object(py::module_::import("spirjit").attr("Device")).release();
  if (!py::isinstance(obj, deviceClass))
    return nullptr;
  return obj.attr("_device").cast<std::shared_ptr<runtime::Device>>();
}

/// The number of type `m` at `p`: in a result slot (a complex number's
/// parts 8 bytes apart), or a list's item (packed).
py::object numberAt(const Type *m, const void *p, size_t partBytes = 8) {
  switch (m->kind) {
  case TypeKind::Bool:
    return py::bool_(*static_cast<const uint8_t *>(p) != 0);
  case TypeKind::Float:
    if (m->bits == 32)
      return py::float_(*static_cast<const float *>(p));
    return py::float_(*static_cast<const double *>(p));
  case TypeKind::Complex: {
    double re, im;
    if (m->bits == 32) {
      float parts[2];
      std::memcpy(&parts[0], p, 4);
      std::memcpy(&parts[1], static_cast<const char *>(p) + partBytes, 4);
      re = parts[0];
      im = parts[1];
    } else {
      std::memcpy(&re, p, 8);
      std::memcpy(&im, static_cast<const char *>(p) + partBytes, 8);
    }
    return py::reinterpret_steal<py::object>(PyComplex_FromDoubles(re, im));
  }
  case TypeKind::Int: {
    int64_t v = 0;
    std::memcpy(&v, p, static_cast<size_t>(m->bits / 8));
    if (m->isSigned && m->bits < 64) // sign-extend
      v = (v << (64 - m->bits)) >> (64 - m->bits);
    if (!m->isSigned && m->bits == 64)
      return py::int_(static_cast<uint64_t>(v));
    return py::int_(v);
  }
  default:
    break;
  }
  return py::object();
}

/// A Python list argument as numba's reflected list: its items converted
/// to the one number type they promote to (as a list literal's items do in
/// jit code; numba takes lists of one type only), in memory the call's
/// host code reads, appends to and assigns (HostABI.h). What numba's
/// typing refuses is an error at the function's definition.
std::shared_ptr<spirjit_host_list> listArgument(py::handle obj, size_t i,
                                                launch::JitFunction &function,
                                                const Type *&element) {
  auto refuse = [&](UserErrorKind kind, const std::string &why) {
    const FunctionDescription &d = function.description();
    std::string name = i < d.varnames.size() && i < static_cast<size_t>(d.argCount)
                           ? "'" + d.varnames[i] + "'"
                           : std::to_string(i + 1);
    throw UserError(kind, d.filename, d.firstLine,
                    "argument " + name + " of " + d.name + "() " + why);
  };
  py::list items = py::reinterpret_borrow<py::list>(obj);
  if (items.empty())
    refuse(UserErrorKind::Typing,
           "is an empty list, which has no item type (numba cannot type an "
           "empty list either): pass a list with items, an array "
           "(np.zeros(0)), or build the list in the function");
  element = nullptr;
  for (py::handle item : items) {
    uint64_t bits[2] = {0, 0};
    const Type *t = scalarArgument(item, bits, argumentName(i) + "'s item",
                                   "jit functions");
    if (!t) {
      std::string what =
          py::str(py::type::of(item).attr("__name__")).cast<std::string>();
      if (PyList_Check(item.ptr()) || PyTuple_Check(item.ptr()))
        refuse(UserErrorKind::UnsupportedFeature,
               "is a list of " + what +
                   "s: a list argument holds numbers (numba's reflected "
                   "list); pass a 2-D array, np.array(xs)");
      if (asDeviceArray(item.ptr()) || py::isinstance<py::array>(item))
        refuse(UserErrorKind::UnsupportedFeature,
               "is a list of arrays: a list argument holds numbers (numba's "
               "reflected list); pass one array, np.stack(xs), or the "
               "arrays as arguments of their own");
      refuse(UserErrorKind::UnsupportedFeature,
             "holds a '" + what +
                 "': a list argument holds numbers (bool, int, float, "
                 "complex), numba's reflected list; pass an array of numbers");
    }
    t = types::materialize(t);
    element = element ? types::promote(element, t) : t;
    SPIRJIT_INTERNAL_CHECK(element, "two numbers without a promotion");
  }
  element = types::materialize(element);
  static py::handle numpy = py::module_::import("numpy").release();
  py::array converted = numpy.attr("ascontiguousarray")(
      obj, py::arg("dtype") = dtypeOfType(element));
  auto count = static_cast<size_t>(converted.size());
  auto itemsize = static_cast<size_t>(converted.itemsize());
  std::shared_ptr<spirjit_host_list> list(
      static_cast<spirjit_host_list *>(std::calloc(1, sizeof(spirjit_host_list))),
      [](spirjit_host_list *l) {
        if (l)
          std::free(l->data);
        std::free(l);
      });
  if (!list)
    throw std::bad_alloc();
  list->capacity = static_cast<int64_t>(std::max<size_t>(count, 4));
  list->data = std::malloc(static_cast<size_t>(list->capacity) * itemsize);
  if (!list->data)
    throw std::bad_alloc();
  std::memcpy(list->data, converted.data(), count * itemsize);
  list->length = static_cast<int64_t>(count);
  return list;
}

/// The items of a list argument the call changed, back into the caller's
/// Python list (numba's reflection: every item, as the list's type).
void reflect(const Argument &a) {
  const Type *m = a.type->element;
  size_t itemsize = dtypeOfType(m).itemsize();
  auto *data = static_cast<const char *>(a.list->data);
  py::list items(static_cast<size_t>(a.list->length));
  for (size_t k = 0; k < static_cast<size_t>(a.list->length); ++k)
    items[k] = numberAt(m, data + k * itemsize, itemsize / 2);
  if (PyList_SetSlice(a.object.ptr(), 0, PyList_GET_SIZE(a.object.ptr()),
                      items.ptr()) != 0)
    throw py::error_already_set();
}

/// Converts one argument, or one element of a tuple argument `i`.
void convertArgument(py::handle obj, Argument &a, Converted &out, size_t i,
                     launch::JitFunction &function) {
  if (const DeviceArray *array = asDeviceArray(obj.ptr())) {
    const auto &buffer = array->writableBuffer(); // the call may write it
    if (!buffer->svm())
      throw PythonError(
          "DeviceError",
          argumentName(i) + " lives on " + buffer->device()->info().name +
              " in memory without a pointer; jit functions take arrays in "
              "SVM, USM or CUDA memory (use a @spirjit.kernel there)");
    // Host code may touch the elements of host-addressable arrays, and
    // of what the call makes (usm_type "device" by default).
    if (!buffer->hostAddressable() ||
        !buffer->device()->allocatesHostAddressable(runtime::UsmKind::Device))
      out.hostAddressable = false;
    if (out.device && out.device != buffer->device())
      throw PythonError("DeviceInferenceError",
                        "the arrays of a jit call are on different devices (" +
                            out.device->info().name + " and " +
                            buffer->device()->info().name +
                            "); copy them to one device first");
    out.device = buffer->device();
    out.usmKind = runtime::combineUsmKinds(out.usmKind, buffer->usmKind());
    out.anyDeviceArray = true;
    const Type *element = array->type()->element;
    a.data = static_cast<char *>(buffer->svm()) + array->offset();
    arrayLayout(a, element, array->shape().data(), array->strides().data(),
                static_cast<int>(array->shape().size()),
                array->dtype().itemsize(), i);
    a.object = py::reinterpret_borrow<py::object>(obj);
    bool known = false;
    for (auto &region : out.regions)
      known |= region.buffer == buffer;
    if (!known) {
      launch::HostCall::Region region;
      region.begin = static_cast<char *>(buffer->svm());
      region.bytes = buffer->size();
      region.buffer = buffer;
      out.regions.push_back(region);
    }
  } else if (py::isinstance<py::array>(obj)) {
    py::array array = py::reinterpret_borrow<py::array>(obj);
    const Type *element = typeOfDType(array.dtype());
    if (!element)
      throw unsupportedDType(argumentName(i), array.dtype());
    a.data = array.mutable_data();
    arrayLayout(a, element, reinterpret_cast<const int64_t *>(array.shape()),
                reinterpret_cast<const int64_t *>(array.strides()),
                static_cast<int>(array.ndim()), array.itemsize(), i);
    a.object = array;
  } else if (const Type *t = scalarArgument(obj, a.scalar, argumentName(i),
                                            "jit functions")) {
    a.type = t;
  } else if (PyList_Check(obj.ptr())) {
    const Type *element = nullptr;
    a.list = listArgument(obj, i, function, element);
    a.data = a.list.get();
    a.object = py::reinterpret_borrow<py::object>(obj);
    a.type = types::reflectedList(element);
  } else if (py::isinstance<py::tuple>(obj)) {
    // A tuple (a namedtuple too) of numbers, arrays and tuples: its
    // elements' parameters in turn (KernelABI.h).
    std::vector<const Type *> elements;
    for (py::handle item : obj) {
      a.parts.emplace_back();
      Argument &part = a.parts.back();
      if (!py::isinstance<py::tuple>(item) &&
          !py::isinstance<py::array>(item) && !asDeviceArray(item.ptr()) &&
          !scalarArgument(item, part.scalar, argumentName(i) + "'s item",
                          "jit functions"))
        throw PythonError("TypingError",
                          argumentName(i) + " is a tuple holding a '" +
                              py::str(py::type::of(item).attr("__name__"))
                                  .cast<std::string>() +
                              "'; jit functions take tuples of numbers, "
                              "arrays and tuples");
      convertArgument(item, part, out, i, function);
      elements.push_back(types::materialize(part.type));
    }
    a.object = py::reinterpret_borrow<py::object>(obj);
    a.type = types::tuple(elements);
    if (py::object key = namedTupleKey(py::type::of(obj)); !key.is_none()) {
      std::vector<std::string> fields;
      for (py::handle field : py::type::of(obj).attr("_fields"))
        fields.push_back(py::str(field).cast<std::string>());
      a.type = types::namedTuple(key.cast<std::string>(), fields, elements);
    }
  } else if (std::shared_ptr<runtime::Device> device = deviceObject(obj)) {
    // A spirjit.Device: the call runs there; it has no run-time value
    // (device= of an array constructor means the call's device).
    if (out.named && out.named != device)
      throw PythonError("DeviceInferenceError",
                        "the Device arguments of a jit call name different "
                        "devices (" +
                            out.named->filterString() + " and " +
                            device->filterString() + ")");
    out.named = device;
    a.type = types::function("spirjit.Device");
  } else if (obj.is_none()) {
    // None (numba's `out=None` idiom): typed as None, no run-time value;
    // `x is None` is then known when the call compiles and prunes.
    a.type = types::none();
  } else if (py::hasattr(obj, "__spirjit_function_argument__")) {
    // Where a jit or device function was passed: the specialisation for
    // it has the function as a constant (JitFunction._call_with_functions);
    // no run-time value.
    a.type = types::function("spirjit.function_argument");
  } else if (PyCallable_Check(obj.ptr()) && !PyType_Check(obj.ptr())) {
    py::object name = py::getattr(obj, "__name__", py::str("?"));
    throw PythonError(
        "TypingError",
        argumentName(i) + " is the function '" +
            py::str(name).cast<std::string>() +
            "'; jit functions take @spirjit.jit, @spirjit.device_func and "
            "@spirjit.vectorize functions as arguments, not other "
            "callables");
  } else {
    throw PythonError(
        "TypingError",
        argumentName(i) + " is a '" +
            py::str(py::type::of(obj).attr("__name__")).cast<std::string>() +
            "'; jit functions take NumPy arrays, DeviceArrays, numbers, "
            "tuples (namedtuples too) of numbers and arrays, lists of "
            "numbers, and spirjit Devices");
  }
}

Converted convert(const py::args &args,
                  const std::shared_ptr<runtime::Device> &fixed,
                  launch::JitFunction &function) {
  Converted out;
  out.arguments.resize(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    Argument &a = out.arguments[i];
    convertArgument(args[i], a, out, i, function);
    out.types.push_back(a.type);
  }
  if (out.named) {
    if (out.device && out.device != out.named)
      throw PythonError("DeviceInferenceError",
                        "a Device argument names " + out.named->filterString() +
                            ", but the jit call's arrays are on " +
                            out.device->filterString());
    out.device = out.named;
    out.anyDeviceArray = true; // the arrays it makes are that device's
    if (!out.device->allocatesHostAddressable(runtime::UsmKind::Device))
      out.hostAddressable = false; // what it makes is the device's own
    if (!out.device->info().hasSvm)
      throw PythonError(
          "DeviceError",
          out.device->info().name +
              " has no memory with a pointer (SVM, USM or CUDA memory), "
              "which jit functions keep their arrays in");
  }
  if (!out.anyDeviceArray)
    out.usmKind = runtime::UsmKind::Device;
  if (fixed) {
    if (out.device && out.device != fixed)
      throw PythonError("DeviceInferenceError",
                        "the jit function runs on " + fixed->info().name +
                            " (its device=), but its arrays are on " +
                            out.device->info().name);
    out.device = fixed;
  }
  return out;
}

/// Builds the Python value of type `t` from the result buffer's slots.
class ResultReader {
public:
  ResultReader(const uint64_t *slots, launch::HostCall &call,
               const Converted &converted)
      : slots_(slots), call_(call) {
    for (const Argument &a : converted.arguments)
      flatten(a);
  }

  py::object read(const Type *t) {
    switch (t->kind) {
    case TypeKind::None:
      return py::none();
    case TypeKind::Tuple: {
      py::tuple out(t->elements.size());
      for (size_t i = 0; i < t->elements.size(); ++i)
        out[i] = read(t->elements[i]);
      if (t->isNamedTuple()) // an instance of the user's own class
        return describeModule().attr("namedtuple_class")(t->name).attr("_make")(
            out);
      return std::move(out);
    }
    case TypeKind::Array:
      return readArray(t);
    case TypeKind::List:
      return readList(t);
    default:
      break;
    }
    const Type *m = types::materialize(t);
    const void *p = &slots_[next_];
    next_ += m->kind == TypeKind::Complex ? 2 : 1;
    if (py::object number = numberAt(m, p))
      return number;
    throw std::logic_error("a jit function returned a " + t->str());
  }

private:
  /// The arguments, a tuple's elements among them: an array in a tuple
  /// comes back as itself too.
  void flatten(const Argument &a) {
    arguments_.push_back(std::cref(a));
    for (const Argument &part : a.parts)
      flatten(part);
  }

  /// A list the host code made: its items into a Python list, as numba
  /// returns its lists; a list argument: the caller's list itself, which
  /// has its changes (numba's `f(xs) is xs`).
  py::object readList(const Type *t) {
    auto *data = reinterpret_cast<const char *>(slots_[next_++]);
    auto length = static_cast<size_t>(slots_[next_++]);
    for (const Argument &a : arguments_)
      if (a.list && a.list->data == data)
        return a.object;
    const Type *m = t->element;
    size_t itemsize = dtypeOfType(m).itemsize();
    py::list out(length);
    for (size_t i = 0; i < length; ++i)
      out[i] = numberAt(m, data + i * itemsize, itemsize / 2);
    return std::move(out);
  }

  py::object readArray(const Type *t) {
    auto *data = reinterpret_cast<char *>(slots_[next_++]);
    int n = t->ndim;
    std::vector<int64_t> shape(n), strides(n);
    py::dtype dtype = dtypeOfType(t->element);
    for (int d = 0; d < n; ++d)
      shape[d] = static_cast<int64_t>(slots_[next_++]);
    for (int d = 0; d < n; ++d)
      strides[d] = static_cast<int64_t>(slots_[next_++]) * dtype.itemsize();
    // An argument returned as it came is that object, as numba returns it
    // (`f(x) is x`); so is a view of the same layout (`a[:]`), which the
    // result cannot tell from it.
    for (const Argument &a : arguments_)
      if (a.type && a.type->kind == TypeKind::Array && a.object &&
          a.data == data && a.type->element == t->element && a.shape == shape) {
        bool same = true;
        for (int d = 0; d < n; ++d)
          same &=
              shape[d] <= 1 || a.strides[d] * dtype.itemsize() == strides[d];
        if (same)
          return a.object;
      }
    launch::HostCall::Region *region = call_.regionOf(data);
    if (region && region->buffer)
      return py::cast(DeviceArray(region->buffer, dtype, shape, strides,
                                  data - region->begin));
    if (region) {
      py::object &base = bases_[region->begin];
      if (!base) {
        void *owned = call_.release(*region);
        base = py::capsule(owned, [](void *p) { std::free(p); });
      }
      return py::array(dtype, shape, strides, data, base);
    }
    // A view of a NumPy argument.
    for (const Argument &a : arguments_)
      if (a.type && a.type->kind == TypeKind::Array && a.object &&
          !asDeviceArray(a.object.ptr())) {
        auto *begin = static_cast<char *>(a.data);
        if (data >= begin - a.bytes && data < begin + a.bytes)
          return py::array(dtype, shape, strides, data, a.object);
      }
    throw std::logic_error("a jit function returned an array of unknown "
                           "memory");
  }

  const uint64_t *slots_;
  size_t next_ = 0;
  launch::HostCall &call_;
  std::vector<std::reference_wrapper<const Argument>> arguments_;
  std::map<char *, py::object> bases_;
};

/// The host ABI's parameters (KernelABI.h order) of the converted
/// arguments: `storage` holds the values, the result points into it.
std::vector<void *> parameters(const Converted &converted,
                               std::vector<uint64_t> &storage) {
  std::vector<KernelParameter> params = kernelParameters(converted.types);
  storage.assign(params.size(), 0);
  std::vector<void *> out(params.size());
  for (size_t k = 0; k < params.size(); ++k) {
    const KernelParameter &p = params[k];
    const Argument *at = &converted.arguments[p.argument];
    for (int k : p.element) // a tuple's element
      at = &at->parts[k];
    const Argument &a = *at;
    uint64_t &slot = storage[k];
    switch (p.kind) {
    case KernelParameter::Kind::ArrayData:
      std::memcpy(&slot, &a.data, sizeof(void *));
      break;
    case KernelParameter::Kind::ArrayShape:
      std::memcpy(&slot, &a.shape[p.dim], 8);
      break;
    case KernelParameter::Kind::ArrayStride:
      std::memcpy(&slot, &a.strides[p.dim], 8);
      break;
    case KernelParameter::Kind::Scalar:
      slot = a.scalar[a.type->kind == TypeKind::Complex ? p.dim : 0];
      break;
    default:
      throw std::logic_error("a jit function's parameter of an unknown kind");
    }
    out[k] = &slot;
  }
  return out;
}

/// HostRequest::mapRows for a call on `device` (nullptr: not known yet,
/// which only RowMapping::Always maps).
bool mapsRowsOn(const std::shared_ptr<runtime::Device> &device) {
  return device ? launch::mapsRows(device->info().deviceType)
                : launch::rowMapping() == launch::RowMapping::Always;
}

/// Would a device that wants coalescing compile `made` otherwise?
bool hasMappableRows(const launch::JitSpecialization &made) {
  for (const Parfor &parfor : made.host.parfors)
    if (parfor.rowsMappable)
      return true;
  return false;
}

/// The specialisation for `converted`'s types, and where the call runs:
/// its arrays' device, device=, or the default device. Finding the default
/// device the first time loads the OpenCL drivers (tens of milliseconds),
/// and compiling the host code needs no device, so a call that must do
/// both does them at once, the devices found on a thread of their own.
/// (The loops' kernels are built at their first launch, on the caller's
/// thread: Intel's CPU runtime takes some 30 ms longer for a first build
/// on a new thread than LLVM takes for the host code.) The host code
/// depends on the device's type only where a prange body's row loop would
/// become a launch dimension on a GPU (Parfor::rowsMappable): such a
/// function is compiled once more when the default device is one.
const launch::JitSpecialization &
specializeAndPlace(launch::JitFunction &function, Converted &converted) {
  if (converted.device)
    return function.specialize(converted.types, converted.hostAddressable,
                               mapsRowsOn(converted.device));
  bool guess = mapsRowsOn(nullptr);
  const launch::JitSpecialization *made =
      function.find(converted.types, converted.hostAddressable, guess);
  if (made) {
    converted.device = launch::defaultDevice();
  } else {
    std::shared_future<std::shared_ptr<runtime::Device>> device =
        std::async(std::launch::async, [] { return launch::defaultDevice(); })
            .share();
    made = &function.specialize(converted.types, converted.hostAddressable,
                                guess);
    converted.device = device.get();
  }
  bool mapRows = mapsRowsOn(converted.device);
  if (mapRows != guess && hasMappableRows(*made))
    return function.specialize(converted.types, converted.hostAddressable,
                               mapRows);
  return *made;
}

} // namespace

py::object JitDispatcher::call(py::args args) {
  Converted converted = convert(args, device_, function_);
  const launch::JitSpecialization &function =
      specializeAndPlace(function_, converted);
  for (size_t i = 0; i < converted.arguments.size(); ++i) {
    const Argument &a = converted.arguments[i];
    if (function.host.writtenArguments[i] && py::isinstance<py::array>(a.object) &&
        !py::reinterpret_borrow<py::array>(a.object).writeable())
      throw PythonError("TypingError",
                        argumentName(i) + " is a read-only NumPy array, which "
                                          "the jit function may write");
  }
  std::vector<uint64_t> storage;
  std::vector<void *> params = parameters(converted, storage);
  launch::HostCall call;
  call.function = &function;
  call.device = converted.device;
  call.deviceMemory = converted.anyDeviceArray;
  call.hostAddressable = converted.hostAddressable;
  call.usmKind = converted.usmKind;
  call.regions = std::move(converted.regions);
  // print() in the host code writes through sys.stdout, in order with the
  // caller's own prints (and captured where they are).
  call.print = [](const std::string &text) {
    py::module_::import("sys").attr("stdout").attr("write")(text);
  };
  std::vector<uint64_t> result(hostResultSlots(function.host.returnType) + 1);
  try {
    launch::JitFunction::call(call, params.data(), result.data());
  } catch (const launch::LaunchError &e) {
    // An interrupted wait leaves its kernel running on the arguments'
    // memory, for ever perhaps: they stay alive for the process's life.
    if (e.kind() == launch::LaunchErrorKind::Interrupted)
      for (const Argument &a : converted.arguments)
        if (a.object)
          a.object.inc_ref();
    throw;
  }
  for (const Argument &a : converted.arguments)
    if (a.list && a.list->changed)
      reflect(a);
  ResultReader reader(result.data(), call, converted);
  return reader.read(function.host.returnType);
}

void JitDispatcher::compileFor(py::args args) {
  Converted converted = convert(args, device_, function_);
  // Without a device, the form a CPU runs; a first call on a GPU compiles
  // the mapped form where there is one (specializeAndPlace).
  function_.specialize(converted.types, converted.hostAddressable,
                       mapsRowsOn(converted.device));
}

py::dict JitDispatcher::hostStats() {
  // The host code has no device build.
  launch::CacheStatistics s = function_.hostStatistics();
  py::dict out;
  out["compiles"] = s.compiles;
  out["memory_hits"] = s.memoryHits;
  out["disk_hits"] = s.diskHits;
  out["compile_seconds"] = s.compileSeconds;
  return out;
}

py::dict JitDispatcher::kernelStats() {
  return statsDict(function_.kernelStatistics());
}

void addJit(py::module_ &m) {
  py::class_<JitDispatcher>(m, "JitDispatcher", collectable<JitDispatcher>())
      .def(py::init<py::object, py::object, bool, int, bool, bool>(),
           py::arg("describe"), py::arg("device"), py::arg("fastmath"),
           py::arg("opt"), py::arg("boundscheck"), py::arg("debug"))
      .def("__call__", &JitDispatcher::call)
      .def("compile_for", &JitDispatcher::compileFor)
      .def("host_stats", &JitDispatcher::hostStats)
      .def("kernel_stats", &JitDispatcher::kernelStats)
      .def_property_readonly("compiles", &JitDispatcher::specializations);
  m.def(
      "_prange_coalesce",
      [](const std::string &mode) {
        static const std::pair<const char *, launch::RowMapping> modes[] = {
            {"auto", launch::RowMapping::Auto},
            {"always", launch::RowMapping::Always},
            {"never", launch::RowMapping::Never}};
        for (const auto &[name, mapping] : modes)
          if (mode == name) {
            launch::RowMapping was = launch::setRowMapping(mapping);
            for (const auto &[wasName, m] : modes)
              if (m == was)
                return std::string(wasName);
          }
        throw PythonError("InvalidArgumentError",
                          "unknown mode '" + mode +
                              "': use auto, always or never");
      },
      "Sets how jit functions compiled from now on run a prange body's "
      "independent inner range loop (SPIRJIT_PRANGE_COALESCE: auto, "
      "always, never); returns the previous mode. For the tests.");
}

} // namespace spirjit::python
