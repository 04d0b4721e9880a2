#include "python/bindings/Dispatcher.h"

#include "compiler/SPIRV.h"
#include "frontend/Diagnostics.h"
#include "python/bindings/Describe.h"
#include "python/bindings/Errors.h"
#include "runtime/DiskCache.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <deque>
#include <dlfcn.h>
#include <chrono>
#include <fstream>
#include <optional>
#include <sstream>
#include <sys/stat.h>
#include <cstdlib>
#include <cstring>

namespace py = pybind11;

namespace spirjit::python {
namespace {

using runtime::Device;

char layoutOf(const int64_t *shape, const int64_t *strides, int n,
              int64_t itemsize) {
  auto contiguous = [&](bool cOrder) {
    int64_t expected = itemsize;
    for (int k = 0; k < n; ++k) {
      int d = cOrder ? n - 1 - k : k;
      if (shape[d] != 1 && strides[d] != expected)
        return false;
      expected *= shape[d];
    }
    return true;
  };
  if (contiguous(true))
    return 'C';
  if (contiguous(false))
    return 'F';
  return 'A';
}

std::string describeArgument(size_t index) {
  return "argument " + std::to_string(index + 1);
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start)
      .count();
}

} // namespace

namespace {
/// Launches whose Event was dropped before it was waited for: their memory
/// stays here until the device is done with it. Touched only with the GIL
/// held (Event destructors and launches), so it needs no lock of its own.
///
/// Asynchronous launches create no backend event (a PoCL event costs about
/// a third of a tiny launch, measured here). Their completion is learnt
/// from markers instead: queues are in order, so when a marker enqueued
/// after launch number N completes, every launch up to N on that device
/// has. One marker per device is in flight at a time, enqueued once
/// enough dropped launches have piled up.
struct Retired {
  uint64_t sequence; // launch order, process-wide
  runtime::Device *device;
  std::unique_ptr<runtime::Event> handle; // usually none
  std::vector<std::shared_ptr<runtime::Buffer>> buffers;
  std::vector<py::object> arrays;
};
struct Marker {
  runtime::Device *device;
  uint64_t covers; // every launch up to this number on `device`
  std::unique_ptr<runtime::Event> event;
};
struct RetiredLaunches {
  std::deque<Retired> launches;
  std::vector<Marker> markers;
};
RetiredLaunches &retiredLaunches() {
  static auto *retired = new RetiredLaunches(); // never destroyed
  return *retired;
}

uint64_t launchCount = 0; // the last launch's number (GIL held)

/// Sweep once this many dropped launches have piled up: asking a driver
/// about an event costs a lock it shares with its worker threads.
constexpr size_t sweepThreshold = 32;

/// Frees what finished launches held, and puts a marker behind the newest
/// dropped launch of a device that has none in flight.
void sweepRetiredLaunches() {
  auto &retired = retiredLaunches();
  auto &launches = retired.launches;
  for (size_t m = 0; m < retired.markers.size();) {
    Marker &marker = retired.markers[m];
    if (!marker.event->complete()) {
      ++m;
      continue;
    }
    launches.erase(std::remove_if(launches.begin(), launches.end(),
                                  [&](const Retired &r) {
                                    return r.device == marker.device &&
                                           r.sequence <= marker.covers;
                                  }),
                   launches.end());
    retired.markers.erase(retired.markers.begin() + m);
  }
  if (launches.size() < sweepThreshold)
    return;
  runtime::Device *device = launches.back().device;
  for (const Marker &marker : retired.markers)
    if (marker.device == device)
      return; // wait for the one in flight
  retired.markers.push_back({device, launchCount, device->enqueueMarker()});
}
} // namespace

DeviceArray::DeviceArray(std::shared_ptr<runtime::Buffer> buffer,
                         py::dtype dtype, std::vector<int64_t> shape,
                         std::vector<int64_t> strides, int64_t offset)
    : buffer_(std::move(buffer)), dtype_(std::move(dtype)),
      shape_(std::move(shape)), strides_(std::move(strides)), offset_(offset) {
  const Type *element = typeOfDType(dtype_);
  SPIRJIT_INTERNAL_CHECK(element, "a device array of an unsupported dtype");
  type_ = types::array(element, static_cast<int>(shape_.size()),
                       layoutOf(shape_.data(), strides_.data(),
                                static_cast<int>(shape_.size()),
                                dtype_.itemsize()));
}

int64_t DeviceArray::size() const {
  int64_t n = 1;
  for (int64_t extent : shape_)
    n *= extent;
  return n;
}

DeviceArray DeviceArray::fromNumPy(const py::array &input,
                                   const std::shared_ptr<Device> &device) {
  if (!typeOfDType(input.dtype()))
    throw py::type_error("arrays of dtype " +
                         py::str(input.dtype()).cast<std::string>() +
                         " cannot live on a device");
  py::array array = py::array::ensure(input, py::array::c_style);
  std::vector<int64_t> shape(array.shape(), array.shape() + array.ndim());
  std::vector<int64_t> strides(array.strides(),
                               array.strides() + array.ndim());
  size_t bytes = static_cast<size_t>(array.nbytes());
  std::shared_ptr<runtime::Buffer> buffer =
      device->allocate(bytes, bytes ? array.data() : nullptr);
  return DeviceArray(buffer, array.dtype(), shape, strides, 0);
}

py::array DeviceArray::toNumPy() const {
  py::array out(dtype_, shape_);
  if (size() == 0)
    return out;
  // Read the bytes the view spans, then let NumPy gather the strided view.
  int64_t low = 0, high = 0, itemsize = dtype_.itemsize();
  for (size_t d = 0; d < shape_.size(); ++d) {
    int64_t reach = (shape_[d] - 1) * strides_[d];
    (reach < 0 ? low : high) += reach;
  }
  size_t span = static_cast<size_t>(high - low + itemsize);
  py::array_t<uint8_t> bytes(static_cast<py::ssize_t>(span));
  buffer_->device()->read(*buffer_, bytes.mutable_data(), span,
                          static_cast<size_t>(offset_ + low));
  if (layoutOf(shape_.data(), strides_.data(), static_cast<int>(shape_.size()),
               itemsize) == 'C' &&
      low == 0) {
    std::memcpy(out.mutable_data(), bytes.data(), span);
    return out;
  }
  py::array view(dtype_, shape_, strides_,
                 reinterpret_cast<const char *>(bytes.data()) - low, bytes);
  out[py::ellipsis()] = view;
  return out;
}

DeviceArray DeviceArray::empty(const std::vector<int64_t> &shape,
                               const py::dtype &dtype,
                               const std::shared_ptr<Device> &device) {
  if (!typeOfDType(dtype))
    throw py::type_error("arrays of dtype " +
                         py::str(dtype).cast<std::string>() +
                         " cannot live on a device");
  std::vector<int64_t> strides(shape.size());
  int64_t stride = dtype.itemsize(), count = 1;
  for (size_t k = shape.size(); k-- > 0;) {
    if (shape[k] < 0)
      throw py::value_error("negative dimensions are not allowed");
    strides[k] = stride;
    if (shape[k] && (__builtin_mul_overflow(stride, shape[k], &stride) ||
                     __builtin_mul_overflow(count, shape[k], &count)))
      throw py::value_error("array is too big");
    if (!shape[k]) {
      stride = 0;
      count = 0;
    }
  }
  auto buffer = device->allocate(static_cast<size_t>(count * dtype.itemsize()));
  return DeviceArray(buffer, dtype, shape, strides, 0);
}

const FunctionDescription &Dispatcher::description() {
  if (!description_)
    description_ = toFunctionDescription(describe_().cast<py::dict>());
  return *description_;
}

namespace {

/// What a cache entry holds: the compiler's output and the device binary.
struct CachedKernel {
  CompiledKernel compiled;
  std::vector<char> deviceBinary;
};

std::vector<char> serialize(const CachedKernel &cached) {
  std::vector<char> out;
  const CompiledKernel &k = cached.compiled;
  runtime::appendField(out, k.entryPoint.data(), k.entryPoint.size());
  std::string flags(1, k.usesGroupScratch ? '1' : '0');
  for (bool written : k.writtenArguments)
    flags += written ? '1' : '0';
  runtime::appendField(out, flags.data(), flags.size());
  runtime::appendField(out, k.spirv.data(), k.spirv.size() * 4);
  runtime::appendField(out, cached.deviceBinary.data(), cached.deviceBinary.size());
  std::string kept;
  for (bool k : cached.compiled.keptParameters)
    kept += k ? '1' : '0';
  runtime::appendField(out, kept.data(), kept.size());
  return out;
}

std::optional<CachedKernel> deserialize(const std::vector<char> &in,
                                        const std::vector<const Type *> &types) {
  size_t arguments = types.size();
  size_t at = 0;
  auto take = [&](std::string &field) {
    return runtime::readField(in, at, field);
  };
  std::string entry, flags, spirv, binary, kept;
  if (!take(entry) || !take(flags) || !take(spirv) || !take(binary) ||
      !take(kept) || at != in.size() || flags.size() != arguments + 1 ||
      spirv.size() % 4 ||
      kept.size() != kernelParameters(types, flags[0] == '1').size())
    return std::nullopt;
  for (char k : kept)
    if (k != '0' && k != '1')
      return std::nullopt;
  CachedKernel cached;
  cached.compiled.entryPoint = entry;
  cached.compiled.usesGroupScratch = flags[0] == '1';
  for (size_t i = 1; i < flags.size(); ++i)
    cached.compiled.writtenArguments.push_back(flags[i] == '1');
  cached.compiled.spirv.resize(spirv.size() / 4);
  std::memcpy(cached.compiled.spirv.data(), spirv.data(), spirv.size());
  cached.deviceBinary.assign(binary.begin(), binary.end());
  for (char k : kept)
    cached.compiled.keptParameters.push_back(k == '1');
  return cached;
}

/// Identifies this build of spirjit (the extension's file, size and
/// time), so a rebuilt compiler never gets kernels its predecessor cached.
const std::string &compilerBuildId() {
  static const std::string id = [] {
    Dl_info info;
    struct stat file;
    if (dladdr(reinterpret_cast<void *>(&compilerBuildId), &info) &&
        info.dli_fname && stat(info.dli_fname, &file) == 0)
      return std::string(info.dli_fname) + "|" +
             std::to_string(file.st_size) + "|" +
             std::to_string(file.st_mtime);
    return std::string("spirjit " __DATE__ " " __TIME__);
  }();
  return id;
}

/// Where SPIRJIT_DUMP_DIR puts a specialisation's stages.
std::string dumpFolder(const std::string &root, const std::string &name,
                       const std::string &key) {
  std::string folder = root + "/" + name + "-" +
                       runtime::stableHash(key).substr(0, 8);
  runtime::makeDirectories(folder);
  return folder;
}

const char *stageExtension(Stage stage) {
  switch (stage) {
  case Stage::LLIR:
  case Stage::LLIROpt:
    return ".ll";
  case Stage::SPV:
    return ".spvasm";
  case Stage::Bytecode:
    return ".txt";
  default:
    return ".pyir";
  }
}

} // namespace

Dispatcher::Entry &Dispatcher::compile(const Key &key,
                                       const std::shared_ptr<Device> &device) {
  const FunctionDescription &function = description();
  CompileRequest request;
  request.function = &function;
  request.argumentTypes = key.types;
  request.itemDimensions = key.dimensions;
  request.ndRange = key.ndRange;
  request.hasAtomic64 = device->info().hasAtomic64;
  request.fastmath = fastmath_;
  request.optLevel = optLevel_;

  // The disk-cache key: everything that decides the kernel, the device and
  // this build of the compiler.
  const runtime::DeviceInfo &info = device->info();
  std::string cacheKey = function.fingerprint() + "\ntypes " +
                         types::formatArguments(key.types) + "\nrank " +
                         std::to_string(key.dimensions) +
                         (key.ndRange ? " ndrange" : " range") + "\nfastmath " +
                         std::to_string(fastmath_) + " opt " +
                         std::to_string(optLevel_) + "\ndevice " + info.name +
                         "|" + info.platform + "|" + info.version +
                         "\ncompiler " + compilerBuildId();

  std::string dumpRoot;
  if (const char *dir = std::getenv("SPIRJIT_DUMP_DIR"); dir && *dir) {
    dumpRoot = dumpFolder(dir, function.name, cacheKey);
    request.dump = [&](Stage stage, const std::string &text) {
      int index = 1;
      for (const StageInfo &s : allStages()) {
        if (s.stage == stage) {
          char prefix[8];
          std::snprintf(prefix, sizeof prefix, "%02d-", index);
          std::ofstream(dumpRoot + "/" + prefix + s.name +
                        stageExtension(stage))
              << text;
        }
        ++index;
      }
    };
  }

  auto entry = std::make_unique<Entry>();
  bool fromDisk = false;
  {
    // Compiling touches no Python object: other threads may run.
    py::gil_scoped_release release;
    runtime::DiskCache disk = runtime::DiskCache::fromEnvironment();
    std::optional<CachedKernel> cached;
    // A dump needs the stages printed, so it compiles even on a cache hit.
    if (dumpRoot.empty())
      if (auto payload = disk.load(cacheKey))
        cached = deserialize(*payload, key.types);
    auto start = std::chrono::steady_clock::now();
    std::shared_ptr<runtime::Program> program;
    if (cached && !cached->deviceBinary.empty()) {
      try {
        program = device->buildFromDeviceBinary(cached->deviceBinary);
        entry->kernel =
            device->createKernel(program, cached->compiled.entryPoint);
      } catch (const runtime::DeviceError &) {
        program = nullptr; // an entry the driver no longer takes: rebuild
      }
    }
    // No device binary (the device gives none): its SPIR-V still saves
    // the compile.
    if (cached && !program && cached->deviceBinary.empty() &&
        info.supportsSpirv) {
      program = device->buildFromSPIRV(cached->compiled.spirv);
      entry->kernel =
          device->createKernel(program, cached->compiled.entryPoint);
    }
    if (cached && program) {
      entry->compiled = cached->compiled;
      fromDisk = true;
    } else {
      entry->compiled = compileKernel(request);
      start = std::chrono::steady_clock::now();
      program = info.supportsSpirv
                    ? device->buildFromSPIRV(entry->compiled.spirv)
                    : device->buildFromSPIRBitcode(
                          lowerSPIRVToSPIRBitcode(entry->compiled.spirv));
      disk.store(cacheKey,
                 serialize({entry->compiled, device->programBinary(*program)}));
    }
    if (!fromDisk)
      entry->kernel =
          device->createKernel(program, entry->compiled.entryPoint);
    deviceBuildSeconds_ = secondsSince(start);
  }
  // The launcher binds the parameters the entry point kept, in order.
  std::vector<KernelParameter> all =
      kernelParameters(key.types, entry->compiled.usesGroupScratch);
  const std::vector<bool> &kept = entry->compiled.keptParameters;
  SPIRJIT_INTERNAL_CHECK(kept.size() == all.size(),
                         "a kept-parameter mask of the wrong length");
  for (size_t p = 0; p < all.size(); ++p)
    if (kept[p])
      entry->parameters.push_back(all[p]);
  if (fromDisk) {
    ++diskHits_;
    compileSeconds_ = 0;
  } else {
    ++compiles_;
    compileSeconds_ = entry->compiled.compileSeconds;
  }
  // Another thread may have compiled the same specialisation meanwhile:
  // keep the first, so references to it stay valid.
  auto [it, inserted] = cache_.emplace(key, std::move(entry));
  return *it->second;
}

namespace {
/// What one launch needs per argument, kept per thread so that launches
/// allocate nothing once warm. Cleared on every exit from submit().
struct LaunchScratch {
  std::vector<int64_t> localBytes; // LocalAccessor arguments
  std::vector<const Type *> argTypes;
  // NumPy arguments as given, and what the device sees; null handles for
  // other arguments (a default py::array would build a NumPy array).
  std::vector<py::array> arrays, work;
  std::vector<const DeviceArray *> deviceArrays;
  // Scalar bytes, little-endian; a complex number's parts in two slots.
  std::vector<std::array<uint64_t, 2>> scalars;
  std::vector<std::vector<int64_t>> localShapes;
  std::vector<std::shared_ptr<runtime::Buffer>> buffers;
  std::vector<char> wrapped;
  std::vector<size_t> global, local; // OpenCL's order (dimension 0 fastest)
  bool inUse = false;

  void reset(size_t n) {
    localBytes.assign(n, 0);
    argTypes.assign(n, nullptr);
    arrays.clear();
    work.clear();
    deviceArrays.assign(n, nullptr);
    scalars.assign(n, {0, 0});
    for (auto &shape : localShapes)
      shape.clear();
    localShapes.resize(n);
    buffers.clear();
    buffers.resize(n);
    wrapped.assign(n, 0);
  }
  void release() {
    arrays.clear();
    work.clear();
    buffers.clear();
  }
};

/// Holds the calling thread's scratch for one submit(); a nested launch
/// on the same thread (none exists today) gets a scratch of its own.
class ScratchLease {
public:
  ScratchLease() {
    thread_local LaunchScratch shared;
    if (shared.inUse)
      own_ = std::make_unique<LaunchScratch>();
    scratch_ = own_ ? own_.get() : &shared;
    scratch_->inUse = true;
  }
  ~ScratchLease() {
    scratch_->release();
    scratch_->inUse = false;
  }
  LaunchScratch &operator*() { return *scratch_; }

private:
  std::unique_ptr<LaunchScratch> own_;
  LaunchScratch *scratch_;
};

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
} // namespace

void Dispatcher::checkArgumentTypes(const std::vector<const Type *> &types,
                                    const Device &device) const {
  for (size_t i = 0; i < types.size(); ++i) {
    const Type *t = types[i];
    const Type *scalar = t->kind == TypeKind::Array ? t->element : t;
    bool complex = scalar->kind == TypeKind::Complex;
    if ((scalar->kind == TypeKind::Float || complex) && scalar->bits == 64 &&
        !device.info().hasFp64)
      throw PythonError("TypingError",
                        describeArgument(i) + " is " +
                            (complex ? "complex128" : "float64") + ", but " +
                            device.info().name +
                            " has no double precision; use " +
                            (complex ? "complex64" : "float32"));
  }
  if (!signatures_.empty() &&
      std::find(signatures_.begin(), signatures_.end(), types) ==
          signatures_.end()) {
    std::string list;
    for (const std::string &text : signatureTexts_)
      list += "\n  " + text;
    throw PythonError("TypingError",
                      "the arguments " + types::formatArguments(types) +
                          " match none of the kernel's signatures:" + list);
  }
}

void Dispatcher::submit(Event &event, const LaunchShape &shape,
                        PyObject *const *args, size_t n,
                        PyObject *const *dependencies,
                        size_t dependencyCount, bool wantEvent) {
  bool ndRange = shape.ndRange;
  int64_t groupSize = 1; // work-items per work-group (1 for a Range)
  for (int d = 0; ndRange && d < shape.dims; ++d)
    groupSize *= shape.local[d];
  if (retiredLaunches().launches.size() >= sweepThreshold)
    sweepRetiredLaunches();
  ScratchLease lease;
  LaunchScratch &scratch = *lease;
  scratch.reset(n);
  auto &localBytes = scratch.localBytes;
  auto &argTypes = scratch.argTypes;
  auto &arrays = scratch.arrays;
  auto &work = scratch.work;
  auto numpyArgument = [&](size_t i) -> bool {
    return i < arrays.size() && arrays[i].ptr() != nullptr;
  };
  auto &deviceArrays = scratch.deviceArrays;
  auto &scalars = scratch.scalars;

  const std::shared_ptr<Device> *deviceOf = nullptr;
  for (size_t i = 0; i < n; ++i) {
    if (const DeviceArray *found = asDeviceArray(args[i])) {
      const DeviceArray &da = *found;
      deviceArrays[i] = &da;
      const std::shared_ptr<Device> &owner = da.buffer()->device();
      if (deviceOf && *deviceOf != owner) {
        const std::shared_ptr<Device> &device = *deviceOf;
        throw PythonError("DeviceInferenceError",
                          "arrays on different devices in one launch: " +
                              device->filterString() + " (" +
                              device->info().name + ") and " +
                              owner->filterString() + " (" +
                              owner->info().name +
                              "); move them to one device with to_device()");
      }
      deviceOf = &owner;
      argTypes[i] = da.type();
    }
  }
  std::shared_ptr<Device> device = deviceOf ? *deviceOf : defaultDevice();

  // Never destroyed: a static py::object would be released after the
  // interpreter has finalised.
  static py::handle numpy = py::module_::import("numpy").release();
  static py::handle localAccessorClass =
      py::object(py::module_::import("spirjit.kernel_api").attr("LocalAccessor"))
          .release();
  static py::handle numpyScalarClass =
      py::object(numpy.attr("generic")).release();
  auto &localShapes = scratch.localShapes;
  for (size_t i = 0; i < n; ++i) {
    if (deviceArrays[i])
      continue;
    py::handle obj = args[i];
    if (py::isinstance<py::array>(obj)) {
      py::array array = py::reinterpret_borrow<py::array>(obj);
      const Type *element = typeOfDType(array.dtype());
      if (!element)
        throw PythonError("TypingError",
                          describeArgument(i) + " has dtype " +
                              py::str(array.dtype()).cast<std::string>() +
                              ", which kernels cannot take");
      if (array.ndim() == 0)
        throw PythonError("TypingError",
                          describeArgument(i) +
                              " is a 0-dimensional array; pass a scalar");
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
                            describeArgument(i) + " has strides that are "
                            "not a multiple of its item size");
      }
      // Negative strides: the device sees a contiguous copy.
      work[i] = negative ? numpy.attr("ascontiguousarray")(array)
                                 .cast<py::array>()
                         : array;
      argTypes[i] = types::array(
          element, static_cast<int>(array.ndim()),
          layoutOf(work[i].shape(), work[i].strides(),
                   static_cast<int>(work[i].ndim()), array.itemsize()));
      continue;
    }
    if (py::isinstance(obj, localAccessorClass)) {
      py::dtype dtype = obj.attr("dtype").cast<py::dtype>();
      const Type *element = typeOfDType(dtype);
      if (!element || element->kind == TypeKind::Complex)
        throw PythonError("TypingError",
                          describeArgument(i) + ": a LocalAccessor of " +
                              py::str(dtype).cast<std::string>() +
                              " is not supported");
      localShapes[i] = obj.attr("shape").cast<std::vector<int64_t>>();
      localBytes[i] = obj.attr("nbytes").cast<int64_t>();
      argTypes[i] = types::array(element,
                                 static_cast<int>(localShapes[i].size()), 'C',
                                 MemorySpace::Local);
      continue;
    }
    if (py::isinstance<py::bool_>(obj)) {
      argTypes[i] = types::boolean();
      scalars[i][0] = obj.cast<bool>();
    } else if (py::isinstance<py::int_>(obj)) {
      argTypes[i] = types::int64();
      try {
        int64_t v = obj.cast<int64_t>();
        std::memcpy(&scalars[i][0], &v, sizeof v);
      } catch (const py::cast_error &) {
        throw PythonError("TypingError", describeArgument(i) +
                                             " does not fit in int64");
      }
    } else if (py::isinstance<py::float_>(obj)) {
      argTypes[i] = types::floating(64);
      double v = obj.cast<double>();
      std::memcpy(&scalars[i][0], &v, sizeof v);
    } else if (PyComplex_CheckExact(obj.ptr())) {
      argTypes[i] = types::complex(64);
      double re = PyComplex_RealAsDouble(obj.ptr());
      double im = PyComplex_ImagAsDouble(obj.ptr());
      std::memcpy(&scalars[i][0], &re, sizeof re);
      std::memcpy(&scalars[i][1], &im, sizeof im);
    } else if (py::isinstance(obj, numpyScalarClass)) {
      py::dtype dtype = obj.attr("dtype").cast<py::dtype>();
      const Type *t = typeOfDType(dtype);
      if (!t)
        throw PythonError("TypingError",
                          describeArgument(i) + " is a NumPy " +
                              py::str(dtype).cast<std::string>() +
                              " scalar, which kernels cannot take yet");
      argTypes[i] = t;
      py::array holder = numpy.attr("asarray")(obj).cast<py::array>();
      if (t->kind == TypeKind::Complex) { // parts of 4 or 8 bytes each
        size_t part = dtype.itemsize() / 2;
        auto bytes = static_cast<const char *>(holder.data());
        std::memcpy(&scalars[i][0], bytes, part);
        std::memcpy(&scalars[i][1], bytes + part, part);
      } else {
        std::memcpy(&scalars[i][0], holder.data(), dtype.itemsize());
      }
    } else {
      throw PythonError(
          "TypingError",
          describeArgument(i) + " is a '" +
              py::str(py::type::of(obj).attr("__name__")).cast<std::string>() +
              "'; kernels take NumPy arrays, DeviceArrays and numbers");
    }
  }
  // A work-group larger than the device allows fails before the driver.
  if (ndRange) {
    size_t limit = device->info().maxWorkGroupSize; // 0: not said
    if (limit && groupSize > static_cast<int64_t>(limit))
      throw PythonError("InvalidRangeError",
                        "a work-group of " + std::to_string(groupSize) +
                            " work-items is larger than " +
                            device->info().name + " allows (" +
                            std::to_string(device->info().maxWorkGroupSize) +
                            "); choose a smaller local range");
  }
  // Most launches repeat the last specialisation: compare in place before
  // building a key.
  Entry *entry;
  if (lastEntry_ && lastKey_.dimensions == shape.dims &&
      lastKey_.ndRange == ndRange && lastKey_.device == device.get() &&
      lastKey_.types == argTypes) {
    entry = lastEntry_;
    ++memoryHits_;
  } else {
    // What depends only on the key is checked when it is not the last one.
    checkArgumentTypes(argTypes, *device);
    Key key{argTypes, shape.dims, ndRange, device.get()};
    if (auto found = cache_.find(key); found != cache_.end()) {
      entry = found->second.get();
      ++memoryHits_;
    } else {
      entry = &compile(key, device);
    }
    lastKey_ = std::move(key);
    lastEntry_ = entry;
  }

  // Local memory beyond the device's is refused here: PoCL 3.1 aborts the
  // process on it (an assertion in its pthread driver).
  if (ndRange) {
    int64_t local = 0;
    for (size_t i = 0; i < n; ++i)
      local += localBytes[i];
    if (entry->compiled.usesGroupScratch)
      local += groupSize * 16;
    uint64_t limit = device->info().localMemSize; // 0: not said
    if (limit && static_cast<uint64_t>(local) > limit)
      throw PythonError(
          "OutOfDeviceMemoryError",
          "this launch needs " + std::to_string(local) +
              " bytes of work-group local memory (its LocalAccessors" +
              (entry->compiled.usesGroupScratch
                   ? std::string(", and 16 bytes per work-item for "
                                 "group_reduce/group_broadcast")
                   : std::string()) +
              "), but " + device->info().name + " has " +
              std::to_string(limit) +
              "; use smaller LocalAccessors or work-groups");
  }

  for (size_t i = 0; i < n; ++i)
    if (entry->compiled.writtenArguments[i] && numpyArgument(i) &&
        !arrays[i].writeable())
      throw PythonError("TypingError", describeArgument(i) +
                                           " is a read-only array, but the "
                                           "kernel writes to it");

  // Queues are in order: a dependency on this device is already behind
  // us; one on another device is waited for here, on the host, and before
  // binding: waiting lets other threads run, and they may bind this kernel.
  for (size_t k = 0; k < dependencyCount; ++k) {
    Event *dependency = eventOf(dependencies[k]);
    if (dependency && !dependency->done() && dependency->device() != device)
      dependency->wait();
  }

  // Bind the arguments by the kernel ABI.
  auto &buffers = scratch.buffers;
  auto &wrapped = scratch.wrapped;
  runtime::Kernel &kernel = *entry->kernel;
  unsigned index = 0;
  bool hostSync = false; // a written NumPy array used in place
  for (const KernelParameter &p : entry->parameters) {
    size_t a = static_cast<size_t>(p.argument); // not for GroupScratch
    switch (p.kind) {
    case KernelParameter::Kind::GroupScratch:
      kernel.setArgument(index, static_cast<size_t>(groupSize) * 16, nullptr);
      break;
    case KernelParameter::Kind::LocalData:
      kernel.setArgument(index, static_cast<size_t>(localBytes[a]), nullptr);
      break;
    case KernelParameter::Kind::ArrayData: {
      if (deviceArrays[a]) {
        kernel.setBuffer(index, *deviceArrays[a]->buffer(),
                         static_cast<size_t>(deviceArrays[a]->offset()));
        break;
      }
      py::array &array = work[a];
      size_t span = 0;
      if (array.size() > 0) {
        span = static_cast<size_t>(array.itemsize());
        for (py::ssize_t d = 0; d < array.ndim(); ++d)
          span += static_cast<size_t>((array.shape(d) - 1) * array.strides(d));
      }
      void *data = const_cast<void *>(array.data());
      buffers[a] = span ? device->wrapHostMemory(data, span) : nullptr;
      wrapped[a] = buffers[a] != nullptr;
      hostSync |= wrapped[a] && entry->compiled.writtenArguments[a];
      if (!buffers[a])
        buffers[a] = device->allocate(span ? span : 1, span ? data : nullptr);
      kernel.setBuffer(index, *buffers[a]);
      break;
    }
    case KernelParameter::Kind::ArrayShape:
    case KernelParameter::Kind::ArrayStride: {
      int64_t value;
      if (!localShapes[a].empty()) {
        value = localShapes[a][p.dim];
      } else if (deviceArrays[a]) {
        const DeviceArray &da = *deviceArrays[a];
        value = p.kind == KernelParameter::Kind::ArrayShape
                    ? da.shape()[p.dim]
                    : da.strides()[p.dim] / da.dtype().itemsize();
      } else {
        py::array &array = work[a];
        value = p.kind == KernelParameter::Kind::ArrayShape
                    ? array.shape(p.dim)
                    : array.strides(p.dim) / array.itemsize();
      }
      kernel.setArgument(index, sizeof value, &value);
      break;
    }
    case KernelParameter::Kind::Scalar: {
      const Type *t = argTypes[a];
      size_t size = t->kind == TypeKind::Bool ? 1 : t->bits / 8;
      kernel.setArgument(index, size, &scalars[a][p.dim]);
      break;
    }
    }
    ++index;
  }

  // Dimension 0 of a Range is the slowest-varying: OpenCL's last.
  std::vector<size_t> &global = scratch.global, &local = scratch.local;
  global.assign(shape.global, shape.global + shape.dims);
  std::reverse(global.begin(), global.end());
  local.clear();
  if (ndRange) {
    local.assign(shape.local, shape.local + shape.dims);
    std::reverse(local.begin(), local.end());
  }
  // Written NumPy arrays used in place are made current by a map and unmap
  // queued right behind the kernel: the queue's one round trip covers them.
  std::unique_ptr<runtime::Event> launched =
      device->launch(kernel, global, local, wantEvent && !hostSync);
  if (hostSync) {
    for (size_t i = 0; i < n; ++i)
      if (wrapped[i] && entry->compiled.writtenArguments[i])
        device->enqueueHostSynchronization(*buffers[i]);
    if (wantEvent)
      launched = device->enqueueMarker();
  }
  event.setDevice(device);
  event.setHandle(std::move(launched), ++launchCount);
  for (size_t i = 0; i < n; ++i) {
    if (numpyArgument(i) && buffers[i])
      event.keep(arrays[i], work[i], buffers[i], wrapped[i],
                 entry->compiled.writtenArguments[i]);
    // Memory is never freed under a running kernel. (A synchronous
    // launch's caller holds its arguments until it has waited.)
    if (deviceArrays[i] && !wantEvent)
      event.keepAlive(deviceArrays[i]->buffer());
  }
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
  submit(*eventOf(event.ptr()), shape, args, n, dependencies,
         dependencyCount, /*wantEvent=*/false);
  return event.release().ptr();
}

double Dispatcher::bareEnqueueLoop(const std::vector<int64_t> &extents,
                                   int count) {
  SPIRJIT_INTERNAL_CHECK(lastEntry_, "launch the kernel once first");
  runtime::Kernel &kernel = *lastEntry_->kernel;
  std::vector<size_t> global(extents.rbegin(), extents.rend());
  py::gil_scoped_release release;
  return kernel.program()->device()->bareLaunchLoop(kernel, global, count);
}

void Event::keep(py::array original, py::array work,
                 std::shared_ptr<runtime::Buffer> buffer, bool wrapped,
                 bool written) {
  pending_.push_back({std::move(original), std::move(work),
                      std::move(buffer), wrapped, written});
}

void Event::wait() {
  if (done_)
    return;
  // An asynchronous launch has no event of its own: a marker behind it
  // completes once it has (and whatever was queued after it, before now).
  if (!handle_ && device_)
    handle_ = device_->enqueueMarker();
  if (handle_) {
    py::gil_scoped_release release;
    handle_->wait();
  }
  done_ = true;
  // NumPy arguments the kernel may write are current again.
  for (Pending &p : pending_) {
    if (!p.written)
      continue;
    // In-place arrays were made current by the map and unmap queued
    // behind the kernel (submit); copies are read back.
    if (!p.wrapped)
      device_->read(*p.buffer, p.work.mutable_data(), p.buffer->size());
    if (!p.work.is(p.original))
      p.original[py::ellipsis()] = p.work;
  }
  pending_.clear();
  alive_.clear();
}


Event::~Event() {
  if (done_ || !device_)
    return;
  // Dropped before it finished: never wait here (a loop of launches would
  // become synchronous), but keep its memory alive until it completes.
  if (!handle_ && pending_.empty() && alive_.empty())
    return; // nothing to keep alive
  Retired retired{sequence_, device_.get(), std::move(handle_),
                  std::move(alive_), {}};
  for (Pending &p : pending_) {
    retired.buffers.push_back(std::move(p.buffer));
    retired.arrays.push_back(std::move(p.original));
    retired.arrays.push_back(std::move(p.work));
  }
  retiredLaunches().launches.push_back(std::move(retired));
}

void Dispatcher::setSignatures(const std::vector<std::string> &signatures) {
  // Launches check signatures when they compile or look a key up.
  cache_.clear();
  lastEntry_ = nullptr;
  signatures_.clear();
  signatureTexts_ = signatures;
  for (const std::string &text : signatures) {
    types::Signature sig;
    try {
      sig = types::parseSignature(text);
    } catch (const std::invalid_argument &e) {
      throw py::value_error(e.what());
    }
    signatures_.push_back(sig.arguments);
  }
  const FunctionDescription &function = description();
  for (const auto &arguments : signatures_) {
    CompileRequest request;
    request.function = &function;
    request.argumentTypes = arguments;
    request.fastmath = fastmath_;
    request.optLevel = optLevel_;
    auto annotation = function.varnames.empty()
                          ? function.annotations.end()
                          : function.annotations.find(function.varnames[0]);
    request.ndRange = annotation != function.annotations.end() &&
                      annotation->second.name == "spirjit.kernel_api.NdItem";
    py::gil_scoped_release release;
    // The launch's rank is not known yet: the first rank the kernel's item
    // queries fit is the one checked (user errors surface here).
    for (int rank = 1;; ++rank) {
      request.itemDimensions = rank;
      try {
        compileKernel(request);
        break;
      } catch (const UserError &e) {
        bool rankTooSmall =
            e.message().find("-dimensional launch") != std::string::npos;
        if (!rankTooSmall || rank == 3)
          throw;
      }
    }
  }
}

py::dict Dispatcher::stats() const {
  py::dict d;
  d["compiles"] = compiles_;
  d["memory_hits"] = memoryHits_;
  d["disk_hits"] = diskHits_;
  d["compile_seconds"] = compileSeconds_;
  d["device_build_seconds"] = deviceBuildSeconds_;
  return d;
}

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
  int index = -1;
  for (const std::string &part : parts) {
    if (part.empty())
      continue;
    if (part == "opencl" || part == "level_zero" || part == "cuda")
      backend = part;
    else if (part == "cpu" || part == "gpu" || part == "accelerator")
      type = part;
    else if (part.find_first_not_of("0123456789") == std::string::npos)
      index = std::stoi(part);
    else
      throw py::value_error("invalid device filter '" + filter +
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
  if (index >= 0) {
    if (index >= static_cast<int>(matches.size()))
      return {};
    return {matches[index]};
  }
  return matches;
}

std::shared_ptr<Device> defaultDevice() {
  const char *filter = std::getenv("SPIRJIT_DEVICE");
  // The answer for the last filter seen: NumPy-only launches ask each time.
  // (With the GIL held.)
  static std::string lastFilter;
  static std::shared_ptr<Device> lastDevice;
  std::string text = filter ? filter : "";
  if (lastDevice && text == lastFilter)
    return lastDevice;
  std::vector<std::shared_ptr<Device>> matches = matchDevices(text);
  if (matches.empty()) {
    std::string known;
    for (const auto &device : runtime::allDevices())
      known += "\n  " + device->filterString() + "  " + device->info().name;
    if (filter && *filter)
      throw PythonError("DeviceError",
                        std::string("SPIRJIT_DEVICE='") + filter +
                            "' matches no device; devices:" +
                            (known.empty() ? " none" : known));
    throw PythonError("DeviceError",
                      "no device found (is an OpenCL driver such as "
                      "pocl-opencl-icd, or a Level Zero driver, installed?)");
  }
  lastFilter = text;
  lastDevice = matches[0];
  return lastDevice;
}

} // namespace spirjit::python
