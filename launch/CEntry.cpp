// spirjit_launch.h's entry points: C handles and argument values into the
// launcher's C++ ones, every exception into a message.
#include "launch/spirjit_launch.h"

#include "launch/Launcher.h"

#include <cstring>
#include <exception>

using namespace spirjit;

struct spirjit_buffer {
  std::shared_ptr<runtime::Buffer> buffer;
};

namespace {

using DeviceHandle = std::shared_ptr<runtime::Device>;

void report(char *error, size_t size, const char *message) {
  if (!error || size == 0)
    return;
  std::strncpy(error, message, size - 1);
  error[size - 1] = '\0';
}

/// Runs `body`, turning any exception into `failed` and a message.
template <typename Result, typename Body>
Result guarded(char *error, size_t size, Result failed, Body body) {
  try {
    return body();
  } catch (const std::exception &e) {
    report(error, size, e.what());
  } catch (...) {
    report(error, size, "unknown C++ exception");
  }
  return failed;
}

/// A device handle points at one of allDevices()' entries, which live as
/// long as the process.
spirjit_device *handleOf(const DeviceHandle &device) {
  for (const DeviceHandle &known : runtime::allDevices())
    if (known == device)
      return reinterpret_cast<spirjit_device *>(
          const_cast<DeviceHandle *>(&known));
  throw std::invalid_argument("a device spirjit does not list");
}

const DeviceHandle &deviceOf(spirjit_device *device) {
  return *reinterpret_cast<const DeviceHandle *>(device);
}

launch::ArgumentValue toArgumentValue(const spirjit_argument &in) {
  launch::ArgumentValue out;
  out.type = static_cast<const Type *>(in.type);
  out.shape = in.shape;
  out.strides = in.strides;
  out.itemsize = in.itemsize;
  switch (in.kind) {
  case SPIRJIT_ARGUMENT_HOST_ARRAY:
    out.kind = launch::ArgumentValue::Kind::HostArray;
    out.data = in.data;
    out.writable = in.writable != 0;
    break;
  case SPIRJIT_ARGUMENT_DEVICE_ARRAY:
    if (!in.buffer)
      throw std::invalid_argument("a device array without a buffer");
    out.kind = launch::ArgumentValue::Kind::DeviceArray;
    out.buffer = &in.buffer->buffer;
    out.offset = in.offset;
    break;
  case SPIRJIT_ARGUMENT_LOCAL_ACCESSOR:
    out.kind = launch::ArgumentValue::Kind::LocalAccessor;
    out.localBytes = in.local_bytes;
    break;
  case SPIRJIT_ARGUMENT_SCALAR:
    out.kind = launch::ArgumentValue::Kind::Scalar;
    out.scalar[0] = in.scalar[0];
    out.scalar[1] = in.scalar[1];
    break;
  default:
    throw std::invalid_argument("an argument of unknown kind " +
                                std::to_string(in.kind));
  }
  if (!out.type)
    throw std::invalid_argument("an argument without a type");
  return out;
}

} // namespace

extern "C" spirjit_device *spirjit_device_find(const char *filter,
                                               char *error,
                                               size_t error_size) {
  return guarded(error, error_size, static_cast<spirjit_device *>(nullptr),
                 [&] {
                   if (!filter || !*filter)
                     return handleOf(launch::defaultDevice());
                   auto matches = launch::matchDevices(filter);
                   if (matches.empty())
                     throw std::invalid_argument(
                         std::string("no device matches '") + filter + "'");
                   return handleOf(matches.front());
                 });
}

extern "C" spirjit_buffer *
spirjit_buffer_allocate(spirjit_device *device, size_t bytes,
                        const void *host, char *error, size_t error_size) {
  return guarded(error, error_size, static_cast<spirjit_buffer *>(nullptr),
                 [&] {
                   if (!device)
                     throw std::invalid_argument("no device");
                   return new spirjit_buffer{
                       deviceOf(device)->allocate(bytes ? bytes : 1, host)};
                 });
}

extern "C" int spirjit_buffer_read(spirjit_buffer *buffer, void *host,
                                   size_t bytes, size_t offset, char *error,
                                   size_t error_size) {
  return guarded(error, error_size, -1, [&] {
    if (!buffer || offset > buffer->buffer->size() ||
        bytes > buffer->buffer->size() - offset)
      throw std::invalid_argument("a read outside the buffer");
    buffer->buffer->device()->read(*buffer->buffer, host, bytes, offset);
    return 0;
  });
}

extern "C" void spirjit_buffer_release(spirjit_buffer *buffer) {
  delete buffer; // launches in flight hold their own references
}

extern "C" int spirjit_launch(spirjit_kernel *kernel, spirjit_device *device,
                              int dims, const int64_t *global,
                              const int64_t *local,
                              const spirjit_argument *args, size_t count,
                              char *error, size_t error_size) {
  return guarded(error, error_size, -1, [&] {
    if (!kernel || dims < 1 || dims > 3 || !global)
      throw std::invalid_argument(
          "spirjit_launch needs a kernel and 1 to 3 global extents");
    launch::LaunchRange range;
    range.dims = dims;
    for (int d = 0; d < dims; ++d) {
      range.global[d] = global[d];
      if (local)
        range.local[d] = local[d];
    }
    range.ndRange = local != nullptr;
    std::vector<launch::ArgumentValue> values;
    values.reserve(count);
    for (size_t i = 0; i < count; ++i)
      values.push_back(toArgumentValue(args[i]));
    DeviceHandle target =
        device ? deviceOf(device)
               : launch::deviceOfArguments(values.data(), values.size());
    auto *cache = reinterpret_cast<launch::KernelCache *>(kernel);
    cache->launch(range, values.data(), values.size(), target);
    return 0;
  });
}
