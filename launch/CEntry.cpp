// spirjit_launch.h's entry point: C argument values into ArgumentValues,
// one synchronous launch, every exception into a message.
#include "launch/spirjit_launch.h"

#include "launch/Launcher.h"

#include <cstring>
#include <exception>

using namespace spirjit;

namespace {

void report(char *error, size_t size, const char *message) {
  if (!error || size == 0)
    return;
  std::strncpy(error, message, size - 1);
  error[size - 1] = '\0';
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

extern "C" int spirjit_launch(spirjit_kernel *kernel, int dims,
                              const int64_t *global, const int64_t *local,
                              const spirjit_argument *args, size_t count,
                              char *error, size_t error_size) {
  try {
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
    auto *cache = reinterpret_cast<launch::KernelCache *>(kernel);
    cache->launch(range, values.data(), values.size(), launch::defaultDevice());
    return 0;
  } catch (const std::exception &e) {
    report(error, error_size, e.what());
  } catch (...) {
    report(error, error_size, "unknown C++ exception");
  }
  return -1;
}
