// The native CPU device's compilation (compiler/NativeTarget.h), with no
// device: a kernel's HostObject image is an object file of this host that
// HostJIT links, and its chunk function (runtime/NativeABI.h) computes the
// kernel over any split of the units into chunks.
#include "Fixtures.h"
#include "Requests.h"

#include "compiler/HostTarget.h"
#include "compiler/KernelABI.h"
#include "compiler/Pipeline.h"
#include "runtime/NativeABI.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

using namespace spirjit;
using spirjit::testing::kernelRequest;
using spirjit::testing::loadFixture;

namespace {

/// The chunk function's argument slots for arrays `arrays` of `n` elements
/// each, by the parameters the entry point kept.
std::vector<uint64_t> slotsFor(const CompiledKernel &kernel,
                               const std::vector<float *> &arrays, int64_t n) {
  std::vector<KernelParameter> all = kernelParameters(
      kernel.argumentTypes, kernel.usesGroupScratch, kernel.usesDebugRecord);
  std::vector<uint64_t> slots;
  for (size_t p = 0; p < all.size(); ++p) {
    if (!kernel.keptParameters[p])
      continue;
    switch (all[p].kind) {
    case KernelParameter::Kind::ArrayData:
      slots.push_back(reinterpret_cast<uintptr_t>(arrays[all[p].argument]));
      break;
    case KernelParameter::Kind::ArrayShape:
      slots.push_back(static_cast<uint64_t>(n));
      break;
    default:
      ADD_FAILURE() << "vecadd takes no such parameter";
    }
  }
  slots.push_back(0);
  return slots;
}

} // namespace

TEST(NativeTarget, VecaddImageIsAHostObjectWhoseChunksComputeIt) {
  FunctionDescription f = loadFixture("py311", "vecadd");
  KernelRequest request =
      kernelRequest(f, "(float32[::1], float32[::1], float32[::1])");
  DeviceCapabilities native;
  native.imageFormats = {ImageFormat::HostObject};
  CompileOptions options;
  std::vector<Stage> printed;
  options.dump = [&](Stage s, const std::string &) { printed.push_back(s); };
  CompiledKernel kernel = compileKernel(request, native, options);
  ASSERT_EQ(kernel.image.format, ImageFormat::HostObject);
  ASSERT_FALSE(printed.empty());
  EXPECT_EQ(printed.back(), Stage::Native);
  ASSERT_GE(kernel.image.bytes.size(), 4u);
  EXPECT_EQ(std::memcmp(kernel.image.bytes.data(),
                        "\x7f"
                        "ELF",
                        4),
            0);

  std::shared_ptr<void> code = HostJIT::instance().load(
      kernel.image.bytes, nativeChunkName(kernel.entryPoint));
  ASSERT_TRUE(code) << "the object defines "
                    << nativeChunkName(kernel.entryPoint);
  auto chunk = reinterpret_cast<NativeChunkFunction>(code.get());
  const int64_t n = 1003;
  std::vector<float> a(n), b(n), c(n, -1);
  for (int64_t i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = 0.5f * static_cast<float>(i % 7);
  }
  std::vector<uint64_t> slots =
      slotsFor(kernel, {a.data(), b.data(), c.data()}, n);
  int64_t sizes[NativeSizes::count] = {n, 1, 1, 1, 1, 1};
  // Chunks of any size, the last one ragged; together they cover the range.
  const int64_t bounds[] = {0, 1, 500, 531, n};
  for (int k = 0; k + 1 < 5; ++k)
    chunk(slots.data(), bounds[k], bounds[k + 1], sizes);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(c[i], a[i] + b[i]) << "element " << i;
}
