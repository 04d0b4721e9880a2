// Jit functions' specialisations, and the helpers their host code calls
// (HostABI.h): allocation, launching a prange loop's kernel, and combining
// a reduction's partial results.
#include "launch/HostCall.h"

#include "compiler/HostABI.h"
#include "compiler/HostTarget.h"
#include "frontend/Diagnostics.h"
#include "runtime/DiskCache.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <complex>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <type_traits>

namespace spirjit::launch {

HostCall::~HostCall() {
  for (Region &region : regions)
    std::free(region.owned);
  for (void *list : lists) {
    std::free(static_cast<spirjit_host_list *>(list)->data);
    std::free(list);
  }
}

HostCall::Region *HostCall::regionOf(const void *pointer) {
  auto p = static_cast<const char *>(pointer);
  for (Region &region : regions)
    if (p >= region.begin && p < region.begin + std::max<size_t>(region.bytes, 1))
      return &region;
  return nullptr;
}

void *HostCall::release(Region &region) {
  void *owned = region.owned;
  region.owned = nullptr;
  return owned;
}

namespace {

/// How a reducing loop's iterations are shared among work-items (Parfor.h):
/// `items` work-items run `trips` iterations each, work-item g those from
/// g * chunk every stride-th: on a CPU a contiguous chunk (a few per
/// hardware thread and vector lane), on a GPU every items-th iteration from
/// g, so neighbours read neighbouring elements. The `tail` iterations left
/// over (fewer than `items`) run in a second launch, one per work-item.
struct ReductionShare {
  int64_t items, chunk, trips, stride, tail;
};

ReductionShare reductionShare(const runtime::Device &device, int64_t count) {
  ReductionShare share;
  bool cpu = device.info().deviceType == "cpu";
  int64_t units = std::max<int64_t>(device.info().computeUnits, 1);
  share.items = std::min<int64_t>(count, cpu ? units * 256 : int64_t(1) << 16);
  share.trips = count / share.items;
  share.chunk = cpu ? share.trips : 1;
  share.stride = cpu ? 1 : share.items;
  share.tail = count - share.items * share.trips;
  return share;
}

/// Device memory for the call; `address` is where its elements are: a
/// host pointer where the host can address it, else the device's own
/// address, which host code only passes on (compileHost checks).
std::shared_ptr<runtime::Buffer>
allocateOn(HostCall &call, size_t bytes, char *&address,
           runtime::UsmKind kind = runtime::UsmKind::Device) {
  std::shared_ptr<runtime::Buffer> buffer =
      call.device->allocateUsm(std::max<size_t>(bytes, 1), nullptr, kind);
  if (!buffer->svm())
    throw LaunchError(LaunchErrorKind::Device,
                      "jit functions keep their arrays in memory with a "
                      "pointer (SVM, USM or CUDA memory); " +
                          call.device->info().name +
                          " has none (use a @spirjit.kernel there)");
  address = static_cast<char *>(buffer->svm());
  return buffer;
}

/// The disk-cache key of a specialisation's host code: everything that
/// decides its object file. The parfors' kernels have keys of their own.
std::string hostCacheKey(const FunctionDescription &function,
                         const std::vector<const Type *> &types,
                         bool hostAddressable, bool mapRows,
                         const CompileOptions &options) {
  return "jit host code\n" + function.fingerprint() + "\ntypes " +
         types::formatArguments(types) + "\nhost-addressable " +
         std::to_string(hostAddressable) + "\nmap-rows " +
         std::to_string(mapRows) + "\nfastmath " +
         std::to_string(options.fastmath) + " opt " +
         std::to_string(options.optLevel) + " boundscheck " +
         std::to_string(options.boundscheck) + " debug " +
         std::to_string(options.debug) + "\nmachine " +
         HostJIT::instance().machine() + "\ncompiler " +
         runtime::compilerBuildId();
}

} // namespace

void defineHostHelpers() {
  static std::once_flag helpersDefined;
  std::call_once(helpersDefined, [] {
    HostJIT::instance().defineHelpers(
        {{"spirjit_host_parfor",
          reinterpret_cast<void *>(&spirjit_host_parfor)},
         {"spirjit_host_alloc", reinterpret_cast<void *>(&spirjit_host_alloc)},
         {"spirjit_host_fill", reinterpret_cast<void *>(&spirjit_host_fill)},
         {"spirjit_host_write",
          reinterpret_cast<void *>(&spirjit_host_write)},
         {"spirjit_host_arange",
          reinterpret_cast<void *>(&spirjit_host_arange)},
         {"spirjit_host_arange_complex",
          reinterpret_cast<void *>(&spirjit_host_arange_complex)},
         {"spirjit_host_fail", reinterpret_cast<void *>(&spirjit_host_fail)},
         {"spirjit_host_assert",
          reinterpret_cast<void *>(&spirjit_host_assert)},
         {"spirjit_host_raise",
          reinterpret_cast<void *>(&spirjit_host_raise)},
         {"spirjit_host_random",
          reinterpret_cast<void *>(&spirjit_host_random)},
         {"spirjit_host_random_seed",
          reinterpret_cast<void *>(&spirjit_host_random_seed)},
         {"spirjit_host_print",
          reinterpret_cast<void *>(&spirjit_host_print)},
         {"spirjit_host_list_new",
          reinterpret_cast<void *>(&spirjit_host_list_new)},
         {"spirjit_host_list_append",
          reinterpret_cast<void *>(&spirjit_host_list_append)},
         {"spirjit_host_list_sorted",
          reinterpret_cast<void *>(&spirjit_host_list_sorted)}});
  });
}

namespace {

std::atomic<RowMapping> &rowMappingSetting() {
  static std::atomic<RowMapping> setting = [] {
    const char *text = std::getenv("SPIRJIT_PRANGE_COALESCE");
    std::string mode = text ? text : "";
    return mode == "always"  ? RowMapping::Always
           : mode == "never" ? RowMapping::Never
                             : RowMapping::Auto;
  }();
  return setting;
}

} // namespace

RowMapping rowMapping() { return rowMappingSetting().load(); }

RowMapping setRowMapping(RowMapping mapping) {
  return rowMappingSetting().exchange(mapping);
}

bool mapsRows(const std::string &deviceType) {
  switch (rowMapping()) {
  case RowMapping::Always:
    return true;
  case RowMapping::Never:
    return false;
  case RowMapping::Auto:
    break;
  }
  return deviceType == "gpu";
}

JitFunction::JitFunction(Describe describe, CompileOptions options)
    : describe_(std::move(describe)), options_(std::move(options)) {}

const FunctionDescription &
JitFunction::description(const std::vector<std::string> &operations) {
  std::unique_ptr<FunctionDescription> &made = descriptions_[operations];
  if (!made)
    made = std::make_unique<FunctionDescription>(describe_(operations));
  return *made;
}

const JitSpecialization &
JitFunction::specialize(const std::vector<const Type *> &types,
                        bool hostAddressable, bool mapRows) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto key = std::make_tuple(types, hostAddressable, mapRows);
  auto found = specializations_.find(key);
  if (found != specializations_.end()) {
    ++hostStatistics_.memoryHits;
    return *found->second;
  }
  defineHostHelpers();
  auto specialization = std::make_unique<JitSpecialization>();
  HostRequest request;
  request.argumentTypes = types;
  request.hostAddressable = hostAddressable;
  request.mapRows = mapRows;
  // The front of the pipeline runs again (well under a millisecond): it
  // gives the parfors' kernels, which the object file does not hold. A
  // corrupt entry is a miss (DiskCache), one that does not link is
  // ignored (compileHost); either is compiled and stored again. Printing
  // the stages needs them compiled.
  runtime::DiskCache disk = runtime::DiskCache::fromEnvironment();
  std::string diskKey;
  // A compile that needs operations of the library (a[mask]) starts again
  // from a description with them, which keys the disk cache: the front of
  // the pipeline asks before LLVM runs.
  std::vector<std::string> operations;
  for (;;) {
    request.function = &description(operations);
    diskKey = hostCacheKey(*request.function, types, hostAddressable, mapRows,
                           options_);
    // The entry: the entry point's name, then the object (appendField's
    // framing); anything else is a miss.
    request.cachedObject.clear();
    if (!options_.wantsDump)
      if (auto entry = disk.load(diskKey, "host")) {
        size_t at = 0;
        std::string object;
        if (runtime::readField(*entry, at, request.cachedEntryName) &&
            runtime::readField(*entry, at, object) && at == entry->size())
          request.cachedObject.assign(object.begin(), object.end());
      }
    try {
      specialization->host = compileHost(request, options_);
      break;
    } catch (const LibraryOperationsNeeded &needed) {
      SPIRJIT_INTERNAL_CHECK(operations.empty(),
                             "a description with the library's operations "
                             "still lacks them (_describe.py)");
      operations = needed.operations;
    }
  }
  CompiledHost &host = specialization->host;
  if (host.object.empty()) {
    ++hostStatistics_.diskHits;
  } else {
    ++hostStatistics_.compiles;
    hostStatistics_.compileSeconds = host.compileSeconds;
    std::vector<char> entry;
    runtime::appendField(entry, host.entryName.data(), host.entryName.size());
    runtime::appendField(entry, host.object.data(), host.object.size());
    disk.store(diskKey, "host", entry);
  }
  for (const Parfor &parfor : host.parfors) {
    std::shared_ptr<FunctionDescription> kernel = parfor.kernel;
    specialization->kernels.push_back(std::make_unique<KernelCache>(
        [kernel] { return *kernel; }, options_));
  }
  return *specializations_.emplace(key, std::move(specialization))
              .first->second;
}

const JitSpecialization *
JitFunction::find(const std::vector<const Type *> &types,
                  bool hostAddressable, bool mapRows) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found =
      specializations_.find(std::make_tuple(types, hostAddressable, mapRows));
  if (found == specializations_.end())
    return nullptr;
  ++hostStatistics_.memoryHits;
  return found->second.get();
}

int JitFunction::specializations() {
  std::lock_guard<std::mutex> lock(mutex_);
  return hostStatistics_.compiles + hostStatistics_.diskHits;
}

CacheStatistics JitFunction::hostStatistics() {
  std::lock_guard<std::mutex> lock(mutex_);
  return hostStatistics_;
}

CacheStatistics JitFunction::kernelStatistics() {
  std::lock_guard<std::mutex> lock(mutex_);
  CacheStatistics sum;
  for (const auto &[types, specialization] : specializations_)
    for (const auto &kernel : specialization->kernels) {
      const CacheStatistics &s = kernel->statistics();
      sum.compiles += s.compiles;
      sum.memoryHits += s.memoryHits;
      sum.diskHits += s.diskHits;
      sum.rebuilds += s.rebuilds;
      sum.compileSeconds += s.compileSeconds;
      sum.deviceBuildSeconds += s.deviceBuildSeconds;
    }
  return sum;
}

void JitFunction::call(HostCall &call, void **parameters, void *result) {
  using Entry = int32_t (*)(void *, void **, void *);
  auto entry = reinterpret_cast<Entry>(call.function->host.entry.get());
  if (entry(&call, parameters, result) != 0) {
    SPIRJIT_INTERNAL_CHECK(call.error != nullptr,
                           "host code failed without a reason");
    std::exception_ptr error = call.error;
    call.error = nullptr;
    std::rethrow_exception(error);
  }
}

} // namespace spirjit::launch

using namespace spirjit;
using namespace spirjit::launch;

extern "C" void *spirjit_host_alloc(void *context, int32_t ndim,
                                    const int64_t *shape, int64_t itemsize,
                                    int32_t usm, const void *like,
                                    const char *device) {
  auto &call = *static_cast<HostCall *>(context);
  try {
    if (device) {
      std::vector<std::shared_ptr<runtime::Device>> named =
          matchDevices(device);
      if (named.empty() || named.front() != call.device)
        throw LaunchError(
            LaunchErrorKind::InvalidArgument,
            std::string("device='") + device + "' names " +
                (named.empty() ? std::string("no device")
                               : named.front()->filterString()) +
                ", but this call of the jit function runs on " +
                call.device->filterString() +
                ": the arrays a jit function makes live on the device it "
                "runs on (its arrays' device, a Device argument, or "
                "jit(device=...))");
    }
    runtime::UsmKind kind = call.usmKind;
    if ((usm & 3) != 3) {
      kind = static_cast<runtime::UsmKind>(usm & 3);
    } else if (like) {
      HostCall::Region *from = call.regionOf(like);
      if (from && from->buffer)
        kind = from->buffer->usmKind();
    }
    bool onDevice = call.deviceMemory || (usm & 4) || device;
    int64_t count = 1;
    for (int d = 0; d < ndim; ++d) {
      if (shape[d] < 0)
        throw LaunchError(LaunchErrorKind::InvalidArgument,
                          "negative dimensions are not allowed");
      count *= shape[d];
    }
    size_t bytes = static_cast<size_t>(count * itemsize);
    HostCall::Region region;
    region.bytes = bytes;
    if (onDevice) {
      if (call.hostAddressable && call.function->host.touchesElements &&
          !call.device->allocatesHostAddressable(kind)) {
        // A call on NumPy arrays whose host code touches elements, making
        // a device's own memory (spirjit.empty on a GPU): shared (managed)
        // memory where that is the host's, else an error that says why.
        if (!call.device->allocatesHostAddressable(runtime::UsmKind::Shared))
          throw LaunchError(
              LaunchErrorKind::Device,
              "this jit call runs on NumPy arrays and its host code touches "
              "array elements, but the arrays it makes live in " +
                  call.device->info().name +
                  " memory the host cannot address; pass a DeviceArray "
                  "argument, or make the array with np.empty");
        kind = runtime::UsmKind::Shared;
      }
      region.buffer = allocateOn(call, bytes, region.begin, kind);
    } else {
      size_t rounded = (std::max<size_t>(bytes, 1) + 63) / 64 * 64;
      region.owned = std::aligned_alloc(64, rounded);
      if (!region.owned)
        throw std::bad_alloc();
      region.begin = static_cast<char *>(region.owned);
    }
    call.regions.push_back(region);
    return region.begin;
  } catch (...) {
    call.error = std::current_exception();
    return nullptr;
  }
}

namespace {

/// Writes the `bytes` bytes of an array the call allocated at `data` by
/// `produce(out)`: in place when the host can address its memory, else
/// into a staging buffer copied to the device. Returns 0 or a failure.
template <typename Produce>
int32_t writeAllocated(HostCall &call, void *data, size_t bytes,
                       Produce produce) {
  try {
    HostCall::Region *region = call.regionOf(data);
    bool staged =
        region && region->buffer && !region->buffer->hostAddressable();
    std::vector<char> staging;
    auto *out = static_cast<char *>(data);
    if (staged) {
      staging.resize(bytes);
      out = staging.data();
    }
    produce(out);
    if (staged && !staging.empty())
      call.device->write(*region->buffer, staging.data(), staging.size(),
                         static_cast<char *>(data) - region->begin);
    return 0;
  } catch (...) {
    call.error = std::current_exception();
    return 1;
  }
}

/// Stores `value` into element `i` of `out`, an array of the element
/// spirjit_host_arange describes.
template <typename T>
void storeArangeElement(char *out, int64_t i, int32_t element, T value) {
  int size = element & 255;
  char *at = out + i * size;
  auto put = [&](auto v) { std::memcpy(at, &v, sizeof v); };
  if (element & 256) {
    if (size == 4)
      put(static_cast<float>(value));
    else
      put(static_cast<double>(value));
    return;
  }
  bool isUnsigned = element & 512;
  switch (size) {
  case 1:
    isUnsigned ? put(static_cast<uint8_t>(value))
               : put(static_cast<int8_t>(value));
    break;
  case 2:
    isUnsigned ? put(static_cast<uint16_t>(value))
               : put(static_cast<int16_t>(value));
    break;
  case 4:
    isUnsigned ? put(static_cast<uint32_t>(value))
               : put(static_cast<int32_t>(value));
    break;
  default:
    isUnsigned ? put(static_cast<uint64_t>(value))
               : put(static_cast<int64_t>(value));
  }
}

} // namespace

extern "C" int32_t spirjit_host_write(void *context, void *data,
                                      int64_t bytes, const void *source) {
  return writeAllocated(*static_cast<HostCall *>(context), data,
                        static_cast<size_t>(bytes), [&](char *out) {
                          std::memcpy(out, source, static_cast<size_t>(bytes));
                        });
}

extern "C" int32_t spirjit_host_fill(void *context, void *data, int64_t count,
                                     int64_t itemsize, const void *value) {
  return writeAllocated(
      *static_cast<HostCall *>(context), data,
      static_cast<size_t>(count * itemsize), [&](char *out) {
        for (int64_t i = 0; i < count; ++i)
          std::memcpy(out + i * itemsize, value,
                      static_cast<size_t>(itemsize));
      });
}

extern "C" int32_t spirjit_host_parfor(void *context, int32_t index,
                                       const int64_t *ranges,
                                       const spirjit_host_value *args,
                                       void *results, const void *initials) {
  auto &call = *static_cast<HostCall *>(context);
  try {
    const Parfor &parfor = call.function->host.parfors.at(index);
    const FunctionDescription &kernel = *parfor.kernel;
    size_t reductions = parfor.reductions.size();
    int64_t counts[3] = {1, 1, 1};
    int64_t total = 1;
    for (int d = 0; d < parfor.dims; ++d) {
      int64_t start = ranges[3 * d], stop = ranges[3 * d + 1],
              step = ranges[3 * d + 2];
      if (step <= 0)
        throw UserError(UserErrorKind::Typing, kernel.filename, parfor.line,
                        "prange()'s step must be positive, not " +
                            std::to_string(step));
      counts[d] = stop > start ? (stop - start + step - 1) / step : 0;
      total *= counts[d];
    }
    if (total == 0) {
      std::memcpy(results, initials, 16 * reductions);
      return 0;
    }
    size_t n = parfor.arguments.size();
    size_t all = parfor.kernelArgumentTypes.size();
    std::vector<ArgumentValue> values(all);
    std::vector<std::vector<int64_t>> strides(all); // in bytes
    for (size_t k = 0; k < n; ++k) {
      const Type *t = parfor.kernelArgumentTypes[k];
      ArgumentValue &v = values[k];
      v.type = t;
      if (t->kind != TypeKind::Array) {
        v.kind = ArgumentValue::Kind::Scalar;
        v.scalar[0] = args[k].scalar[0];
        v.scalar[1] = args[k].scalar[1];
        continue;
      }
      v.itemsize = static_cast<int64_t>(itemSize(t->element));
      for (int d = 0; d < t->ndim; ++d)
        strides[k].push_back(args[k].strides[d] * v.itemsize);
      v.shape = args[k].shape;
      v.strides = strides[k].data();
      HostCall::Region *region = call.regionOf(args[k].data);
      if (region && region->buffer) {
        v.kind = ArgumentValue::Kind::DeviceArray;
        v.buffer = &region->buffer;
        v.offset = static_cast<char *>(args[k].data) - region->begin;
      } else {
        v.kind = ArgumentValue::Kind::HostArray;
        v.data = args[k].data;
        v.writable = true;
      }
    }
    LaunchRange range;
    range.dims = parfor.launchDims();
    for (int d = 0; d < parfor.dims; ++d)
      range.global[d] = counts[d];
    if (!reductions) {
      call.function->kernels[index]->launch(range, values.data(),
                                            values.size(), call.device);
      return 0;
    }
    // A reducing loop: four int64s (first, chunk, trips, stride), then one
    // partial array per reduction, one element per work-item of both
    // launches, 1-D over all the iterations (a pndindex's kernel takes its
    // index apart).
    ReductionShare share = reductionShare(*call.device, total);
    int64_t items = share.items + share.tail;
    std::vector<std::shared_ptr<runtime::Buffer>> partials(reductions);
    std::vector<char *> partialHost(reductions);
    for (size_t j = 0; j < reductions; ++j) {
      const Type *t = parfor.reductions[j].type;
      partials[j] = allocateOn(call, items * itemSize(t), partialHost[j]);
      ArgumentValue &v = values[n + 4 + j];
      v.kind = ArgumentValue::Kind::DeviceArray;
      v.type = parfor.kernelArgumentTypes[n + 4 + j];
      v.buffer = &partials[j];
      v.itemsize = static_cast<int64_t>(itemSize(t));
      strides[n + 4 + j] = {v.itemsize};
      v.strides = strides[n + 4 + j].data();
    }
    // The shares, then the tail: iterations share.items * share.trips on,
    // one per work-item, into the partials after the shares'.
    int64_t launchItems[2] = {share.items, share.tail};
    int64_t scalars[2][4] = {
        {0, share.chunk, share.trips, share.stride},
        {share.items * share.trips, 1, 1, 1}};
    for (int l = 0; l < 2 && launchItems[l]; ++l) {
      range.global[0] = launchItems[l];
      for (int k = 0; k < 4; ++k) {
        ArgumentValue &v = values[n + k];
        v.type = types::int64();
        std::memcpy(&v.scalar[0], &scalars[l][k], sizeof(int64_t));
      }
      for (size_t j = 0; j < reductions; ++j) {
        ArgumentValue &v = values[n + 4 + j];
        v.shape = &launchItems[l];
        v.offset = l ? share.items * v.itemsize : 0;
      }
      call.function->kernels[index]->launch(range, values.data(),
                                            values.size(), call.device);
    }
    for (size_t j = 0; j < reductions; ++j) {
      std::vector<char> copy;
      const char *values = partialHost[j];
      if (!partials[j]->hostAddressable()) {
        copy.resize(items * itemSize(parfor.reductions[j].type));
        call.device->read(*partials[j], copy.data(), copy.size());
        values = copy.data();
      }
      combinePartials(parfor.reductions[j].op, parfor.reductions[j].type,
                      static_cast<const char *>(initials) + 16 * j, values,
                      items, static_cast<char *>(results) + 16 * j);
    }
    return 0;
  } catch (...) {
    call.error = std::current_exception();
    return 1;
  }
}

extern "C" void *spirjit_host_arange(void *context, int32_t floating,
                                     double fstart, double fstop,
                                     double fstep, int64_t istart,
                                     int64_t istop, int64_t istep,
                                     int32_t element, int64_t *length,
                                     const char *where) {
  auto &call = *static_cast<HostCall *>(context);
  if (floating ? fstep == 0.0 : istep == 0) {
    call.error = std::make_exception_ptr(LaunchError(
        LaunchErrorKind::ZeroDivision,
        std::string(where) + ": np.arange()'s step is 0: division by zero"));
    return nullptr;
  }
  int64_t n = 0;
  if (floating) {
    double count = std::ceil((fstop - fstart) / fstep);
    n = count > 0 ? static_cast<int64_t>(count) : 0;
  } else {
    // the ceiling of the quotient, exactly
    int64_t span = istop - istart;
    n = span / istep + (span % istep != 0 && (span < 0) == (istep < 0));
    n = std::max<int64_t>(n, 0);
  }
  *length = n;
  int64_t itemsize = element & 255;
  void *data =
      spirjit_host_alloc(context, 1, &n, itemsize, 3, nullptr, nullptr);
  if (!data)
    return nullptr;
  int32_t status = writeAllocated(
      call, data, static_cast<size_t>(n * itemsize), [&](char *out) {
        for (int64_t i = 0; i < n; ++i)
          if (floating)
            storeArangeElement(out, i, element,
                               fstart + static_cast<double>(i) * fstep);
          else
            storeArangeElement(out, i, element, istart + i * istep);
      });
  return status ? nullptr : data;
}

namespace {

/// NumPy's _arange_safe_ceil_to_intp: the ceiling, or why there is none.
std::optional<std::string> arangeCeiling(double value, int64_t &out) {
  double ceiling = std::ceil(value);
  if (std::isnan(ceiling))
    return "arange: cannot compute length";
  if (!(ceiling >= -0x1p63 && ceiling < 0x1p63))
    return "arange: overflow while computing length";
  out = static_cast<int64_t>(ceiling);
  return std::nullopt;
}

/// The elements NumPy's CFLOAT_fill / CDOUBLE_fill make, in `Part`.
template <typename Part>
void fillComplexArange(char *out, int64_t n, std::complex<double> start,
                       std::complex<double> step) {
  auto *z = reinterpret_cast<std::complex<Part> *>(out);
  z[0] = std::complex<Part>(start);
  if (n == 1)
    return;
  z[1] = std::complex<Part>(start + step);
  Part deltaReal = z[1].real() - z[0].real();
  Part deltaImag = z[1].imag() - z[0].imag();
  for (int64_t i = 2; i < n; ++i)
    z[i] = {z[0].real() + static_cast<Part>(i) * deltaReal,
            z[0].imag() + static_cast<Part>(i) * deltaImag};
}

} // namespace

extern "C" void *spirjit_host_arange_complex(
    void *context, int32_t complexBounds, double startReal, double startImag,
    double stopReal, double stopImag, double stepReal, double stepImag,
    int32_t element, int64_t *length, const char *where) {
  auto &call = *static_cast<HostCall *>(context);
  auto fail = [&](LaunchErrorKind kind, const std::string &message) {
    call.error = std::make_exception_ptr(
        LaunchError(kind, std::string(where) + ": np.arange(): " + message));
    return nullptr;
  };
  double spanReal = stopReal - startReal, spanImag = stopImag - startImag;
  int64_t n = 0;
  if (complexBounds) {
    // Python's complex division (Objects/complexobject.c), which NumPy
    // calls on the Python numbers.
    double qReal, qImag;
    if (std::fabs(stepReal) >= std::fabs(stepImag)) {
      if (stepReal == 0.0)
        return fail(LaunchErrorKind::ZeroDivision, "complex division by zero");
      double ratio = stepImag / stepReal;
      double denominator = stepReal + stepImag * ratio;
      qReal = (spanReal + spanImag * ratio) / denominator;
      qImag = (spanImag - spanReal * ratio) / denominator;
    } else if (std::fabs(stepImag) >= std::fabs(stepReal)) {
      double ratio = stepReal / stepImag;
      double denominator = stepReal * ratio + stepImag;
      qReal = (spanReal * ratio + spanImag) / denominator;
      qImag = (spanImag * ratio - spanReal) / denominator;
    } else {
      qReal = qImag = NAN; // a NaN in the step
    }
    int64_t realCount = 0, imagCount = 0;
    for (auto [q, count] : {std::pair{qReal, &realCount},
                            std::pair{qImag, &imagCount}})
      if (auto why = arangeCeiling(q, *count))
        return fail(LaunchErrorKind::InvalidArgument, *why);
    n = std::min(realCount, imagCount);
  } else {
    if (stepReal == 0.0)
      return fail(LaunchErrorKind::ZeroDivision, "division by zero");
    if (auto why = arangeCeiling(spanReal / stepReal, n))
      return fail(LaunchErrorKind::InvalidArgument, *why);
  }
  n = std::max<int64_t>(n, 0);
  *length = n;
  void *data = spirjit_host_alloc(context, 1, &n, element, 3, nullptr, nullptr);
  if (!data)
    return nullptr;
  std::complex<double> start(startReal, startImag), step(stepReal, stepImag);
  int32_t status = writeAllocated(
      call, data, static_cast<size_t>(n * element), [&](char *out) {
        if (n == 0)
          return;
        if (element == 8)
          fillComplexArange<float>(out, n, start, step);
        else
          fillComplexArange<double>(out, n, start, step);
      });
  return status ? nullptr : data;
}

namespace {

/// A host check's message with "{got}" and "{expected}" made numbers.
std::string withNumbers(const char *message, int64_t got, int64_t expected) {
  std::string text = message;
  for (auto [name, value] : {std::make_pair("{got}", got),
                             std::make_pair("{expected}", expected)}) {
    size_t at = text.find(name);
    if (at != std::string::npos)
      text.replace(at, std::strlen(name), std::to_string(value));
  }
  return text;
}

} // namespace

extern "C" int32_t spirjit_host_fail(void *context, const char *message,
                                     int64_t got, int64_t expected) {
  auto &call = *static_cast<HostCall *>(context);
  std::string text = withNumbers(message, got, expected);
  call.error = std::make_exception_ptr(
      LaunchError(LaunchErrorKind::InvalidArgument, text));
  return 1;
}

extern "C" int32_t spirjit_host_raise(void *context, int32_t kind,
                                      const char *message, int64_t got,
                                      int64_t expected) {
  auto &call = *static_cast<HostCall *>(context);
  std::string text = withNumbers(message, got, expected);
  call.error = std::make_exception_ptr(
      LaunchError(kind == 0 ? LaunchErrorKind::IndexOutOfBounds
                            : LaunchErrorKind::ZeroDivision,
                  text));
  return 1;
}

extern "C" int32_t spirjit_host_assert(void *context, const char *message) {
  auto &call = *static_cast<HostCall *>(context);
  call.error = std::make_exception_ptr(
      LaunchError(LaunchErrorKind::AssertionFailed, message));
  return 1;
}

namespace {

/// np.random's state of the calling thread (HostABI.h).
struct RandomState {
  bool seeded = false;
  uint64_t key = 0;
  uint64_t counter = 0;
};

RandomState &threadRandomState() {
  thread_local RandomState state;
  if (!state.seeded) {
    std::random_device entropy;
    state.key = (static_cast<uint64_t>(entropy()) << 32) ^ entropy();
    state.seeded = true;
  }
  return state;
}

} // namespace

extern "C" uint64_t spirjit_host_random(uint64_t *key) {
  RandomState &state = threadRandomState();
  *key = state.key;
  return state.counter++;
}

extern "C" void spirjit_host_random_seed(int64_t seed) {
  RandomState &state = threadRandomState();
  state.key = static_cast<uint64_t>(seed);
  state.counter = 0;
}

extern "C" int32_t spirjit_host_print(void *context, const char *format, ...) {
  auto &call = *static_cast<HostCall *>(context);
  va_list args, again;
  va_start(args, format);
  va_copy(again, args);
  int length = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  std::string text(static_cast<size_t>(std::max(length, 0)), '\0');
  std::vsnprintf(text.data(), text.size() + 1, format, again);
  va_end(again);
  if (!call.print) {
    std::fputs(text.c_str(), stdout);
    std::fflush(stdout);
    return 0;
  }
  try {
    call.print(text);
  } catch (...) {
    call.error = std::current_exception();
    return 1;
  }
  return 0;
}
