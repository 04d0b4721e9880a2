// The launcher with no interpreter: kernels compiled from captured code
// objects (tests/fixtures) launched through launch::KernelCache and the C
// entry point on PoCL's CPU device, and their numbers checked.
#include "Fixtures.h"
#include "Requests.h"

#include "launch/ArrayKernels.h"
#include "launch/Launcher.h"
#include "launch/spirjit_launch.h"
#include "runtime/NativeCPU.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <numeric>

using namespace spirjit;
using namespace spirjit::launch;
using spirjit::testing::kernelRequest;
using spirjit::testing::loadFixture;

namespace {

/// A launch argument viewing `buffer` as a 1-D float32 array.
ArgumentValue floatVector(const std::shared_ptr<runtime::Buffer> &buffer,
                          int64_t *shape, int64_t *strides) {
  ArgumentValue value;
  value.kind = ArgumentValue::Kind::DeviceArray;
  value.type = types::array(types::floating(32), 1, 'C');
  value.buffer = &buffer;
  value.shape = shape;
  value.strides = strides;
  value.itemsize = sizeof(float);
  return value;
}

/// PoCL's CPU device, present wherever the tests run (CI installs it).
std::shared_ptr<runtime::Device> pocl() {
  for (const auto &device : runtime::allDevices())
    if (device->info().platform == "Portable Computing Language")
      return device;
  return nullptr;
}

/// How many of host-addressable `buffer`'s first n floats are not `value`.
int64_t countOther(const runtime::Buffer &buffer, int64_t n, float value) {
  const auto *c = static_cast<const float *>(buffer.svm());
  int64_t other = 0;
  for (int64_t i = 0; i < n; ++i)
    other += c[i] != value;
  return other;
}

/// A 1-D range of n work-items.
LaunchRange lineOf(int64_t n) {
  LaunchRange range;
  range.dims = 1;
  range.global[0] = n;
  return range;
}

KernelCache cacheOf(const std::string &fixture) {
  return KernelCache([fixture] { return loadFixture("py311", fixture); },
                     CompileOptions());
}

/// A C-contiguous 1-D float32 host array.
ArgumentValue hostArray(std::vector<float> &data, const int64_t *shape,
                        const int64_t *strides) {
  ArgumentValue value;
  value.kind = ArgumentValue::Kind::HostArray;
  value.type = types::array(types::floating(32), 1, 'C');
  value.shape = shape;
  value.strides = strides;
  value.itemsize = sizeof(float);
  value.data = data.data();
  return value;
}

/// vecadd's three C-contiguous float32 host arrays of `n` elements and a
/// 1-D range over them.
struct VecaddLaunch {
  explicit VecaddLaunch(int64_t n, float a0 = 0, float b0 = 0)
      : a(n, a0), b(n, b0), c(n, 0.0f), shape{n}, strides{sizeof(float)} {
    args[0] = hostArray(a, shape, strides);
    args[1] = hostArray(b, shape, strides);
    args[2] = hostArray(c, shape, strides);
    range.dims = 1;
    range.global[0] = n;
  }
  std::vector<float> a, b, c;
  int64_t shape[1], strides[1];
  ArgumentValue args[3];
  LaunchRange range;
};

class Launcher : public ::testing::Test {
protected:
  void SetUp() override {
    device_ = pocl();
    if (!device_)
      GTEST_SKIP() << "no PoCL device";
    // The default device, for setSignatures and the C entry point.
    setenv("SPIRJIT_DEVICE", device_->filterString().c_str(), 1);
    // Compile counts must not depend on what earlier runs cached.
    setenv("SPIRJIT_DISABLE_CACHE", "1", 1);
  }
  std::shared_ptr<runtime::Device> device_;
};

TEST_F(Launcher, PoCLTakesSPIRBitcodeAndTheCompilerEmitsIt) {
  DeviceCapabilities capabilities = capabilitiesOf(*device_);
  ASSERT_EQ(capabilities.imageFormats,
            std::vector<ImageFormat>{ImageFormat::SPIRBitcode});
  FunctionDescription f = loadFixture("py311", "vecadd");
  CompiledKernel kernel = compileKernel(
      kernelRequest(f, "(float32[::1], float32[::1], float32[::1])"),
      capabilities);
  EXPECT_EQ(kernel.image.format, ImageFormat::SPIRBitcode);
  ASSERT_GE(kernel.image.bytes.size(), 2u);
  EXPECT_EQ(kernel.image.bytes[0], 'B');
  EXPECT_EQ(kernel.image.bytes[1], 'C');
}

TEST_F(Launcher, LaunchesVecaddOnHostArrays) {
  const int64_t n = 1000;
  VecaddLaunch vecadd(n);
  std::vector<float> &a = vecadd.a, &b = vecadd.b, &c = vecadd.c;
  std::iota(a.begin(), a.end(), 0.0f);
  std::iota(b.begin(), b.end(), 100.0f);
  ArgumentValue *args = vecadd.args;
  LaunchRange &range = vecadd.range;

  KernelCache cache = cacheOf("vecadd");
  cache.launch(range, args, 3, device_);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(c[i], a[i] + b[i]) << "at " << i;
  EXPECT_EQ(cache.statistics().compiles, 1);

  // The same specialisation again: from memory, with an Event to wait for.
  std::fill(c.begin(), c.end(), 0.0f);
  {
    Event event;
    const std::vector<bool> &written =
        cache.submit(event, range, args, 3, device_, nullptr, 0, true);
    EXPECT_EQ(written, (std::vector<bool>{false, false, true}));
    event.wait();
    EXPECT_TRUE(event.done());
  }
  EXPECT_EQ(c[n - 1], a[n - 1] + b[n - 1]);
  EXPECT_EQ(cache.statistics().compiles, 1);
  EXPECT_EQ(cache.statistics().memoryHits, 1);
}

// Issue 31: a device keeps SPIRJIT_MAX_BUILT_PROGRAMS programs built; a
// kernel let go of is built again at its next launch and computes the same.
TEST_F(Launcher, LetsGoOfTheLeastRecentlyLaunchedProgramAndBuildsItAgain) {
  setenv("SPIRJIT_MAX_BUILT_PROGRAMS", "1", 1);
  VecaddLaunch vecadd(64, 1.0f, 2.0f);
  KernelCache first = cacheOf("vecadd"), second = cacheOf("vecadd");
  first.launch(vecadd.range, vecadd.args, 3, device_);
  second.launch(vecadd.range, vecadd.args, 3, device_); // lets go of first's
  std::fill(vecadd.c.begin(), vecadd.c.end(), 0.0f);
  first.launch(vecadd.range, vecadd.args, 3, device_);
  unsetenv("SPIRJIT_MAX_BUILT_PROGRAMS");
  EXPECT_EQ(vecadd.c[63], 3.0f);
  EXPECT_EQ(first.statistics().compiles, 1);
  EXPECT_EQ(first.statistics().rebuilds, 1);
  EXPECT_EQ(second.statistics().rebuilds, 0);
}

TEST_F(Launcher, ASecondCacheFindsTheKernelOnDisk) {
  char folder[] = "/tmp/spirjit-launcher-test-XXXXXX";
  ASSERT_NE(mkdtemp(folder), nullptr);
  setenv("SPIRJIT_DISABLE_CACHE", "0", 1);
  setenv("SPIRJIT_CACHE_DIR", folder, 1);
  const int64_t n = 16;
  VecaddLaunch vecadd(n, 1.0f, 2.0f);
  std::vector<float> &c = vecadd.c;
  ArgumentValue *args = vecadd.args;
  LaunchRange &range = vecadd.range;
  KernelCache first = cacheOf("vecadd");
  first.launch(range, args, 3, device_);
  EXPECT_EQ(first.statistics().compiles, 1);
  KernelCache second = cacheOf("vecadd");
  std::fill(c.begin(), c.end(), 0.0f);
  second.launch(range, args, 3, device_);
  EXPECT_EQ(second.statistics().compiles, 0);
  EXPECT_EQ(second.statistics().diskHits, 1);
  EXPECT_EQ(c[n - 1], 3.0f);
  unsetenv("SPIRJIT_CACHE_DIR");
  std::filesystem::remove_all(folder);
}

TEST_F(Launcher, LaunchesOnDeviceArraysAndDropsEventsSafely) {
  const int64_t n = 256;
  std::vector<float> a(n, 1.5f), b(n, 2.0f), c(n, 0.0f);
  auto bufferA = device_->allocate(n * sizeof(float), a.data());
  auto bufferB = device_->allocate(n * sizeof(float), b.data());
  auto bufferC = device_->allocate(n * sizeof(float));
  int64_t shape[] = {n}, strides[] = {sizeof(float)};
  auto deviceArray = [&](const std::shared_ptr<runtime::Buffer> &buffer) {
    return floatVector(buffer, shape, strides);
  };
  ArgumentValue args[] = {deviceArray(bufferA), deviceArray(bufferB),
                          deviceArray(bufferC)};
  EXPECT_EQ(deviceOfArguments(args, 3), device_);
  LaunchRange range;
  range.dims = 1;
  range.global[0] = n;
  KernelCache cache = cacheOf("vecadd");
  // Dropped unwaited: the launcher keeps the buffers until they are done.
  for (int k = 0; k < 100; ++k) {
    Event event;
    cache.submit(event, range, args, 3, device_, nullptr, 0, false);
  }
  device_->finish();
  device_->read(*bufferC, c.data(), n * sizeof(float));
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(c[i], 3.5f) << "at " << i;
}

TEST_F(Launcher, ReportsLaunchErrorsBeforeTheDriver) {
  VecaddLaunch vecadd(8);
  ArgumentValue *args = vecadd.args;
  args[2].writable = false;
  LaunchRange &range = vecadd.range;
  KernelCache cache = cacheOf("vecadd");
  try {
    cache.launch(range, args, 3, device_);
    FAIL() << "a read-only written argument was launched";
  } catch (const LaunchError &e) {
    EXPECT_EQ(e.kind(), LaunchErrorKind::Typing);
    EXPECT_EQ(std::string(e.what()),
              "argument 3 is a read-only array, but the kernel writes to it");
  }
}

TEST_F(Launcher, SetSignaturesKeepsWhatItCompiles) {
  KernelCache cache = cacheOf("two_d");
  cache.setSignatures({"(float32[:, ::1], float32[:, ::1])"});
  EXPECT_EQ(cache.statistics().compiles, 1);

  // two_d asks for get_id(1): compiled for a 2-D launch, which finds it.
  const int64_t rows = 3, columns = 4;
  std::vector<float> a(rows * columns), out(rows * columns, 0.0f);
  std::iota(a.begin(), a.end(), 0.0f);
  int64_t shape[] = {rows, columns};
  int64_t strides[] = {columns * sizeof(float), sizeof(float)};
  ArgumentValue args[] = {hostArray(a, shape, strides),
                          hostArray(out, shape, strides)};
  for (ArgumentValue &arg : args)
    arg.type = types::array(types::floating(32), 2, 'C');
  LaunchRange range;
  range.dims = 2;
  range.global[0] = rows;
  range.global[1] = columns;
  cache.launch(range, args, 2, device_);
  EXPECT_EQ(cache.statistics().compiles, 1);
  EXPECT_EQ(cache.statistics().memoryHits, 1);
  for (int64_t i = 0; i < rows * columns; ++i)
    ASSERT_NEAR(out[i], a[i] * 3 + std::sqrt(2.0f), 1e-5) << "at " << i;

  // Other argument types are refused, at the kernel's definition (its
  // decorator lists the signatures).
  for (ArgumentValue &arg : args)
    arg.type = types::array(types::floating(32), 2, 'A');
  try {
    cache.launch(range, args, 2, device_);
    ADD_FAILURE() << "a launch outside the signatures ran";
  } catch (const UserError &e) {
    EXPECT_EQ(e.kind(), UserErrorKind::Typing);
    EXPECT_NE(e.filename().find("functions.py"), std::string::npos);
    EXPECT_GT(e.line(), 0);
    EXPECT_NE(std::string(e.what()).find("match none of 'two_d''s "
                                         "signatures"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(Launcher, TheCEntryPointLaunchesACompiledKernel) {
  const int64_t n = 64;
  std::vector<float> a(n, 2.0f), b(n, 0.25f), c(n, 0.0f);
  int64_t shape[] = {n}, strides[] = {sizeof(float)};
  const Type *type = types::array(types::floating(32), 1, 'C');
  auto argument = [&](std::vector<float> &data) {
    spirjit_argument arg{};
    arg.kind = SPIRJIT_ARGUMENT_HOST_ARRAY;
    arg.type = type;
    arg.data = data.data();
    arg.shape = shape;
    arg.strides = strides;
    arg.itemsize = sizeof(float);
    arg.writable = 1;
    return arg;
  };
  spirjit_argument args[] = {argument(a), argument(b), argument(c)};
  KernelCache cache = cacheOf("vecadd");
  auto *handle = reinterpret_cast<spirjit_kernel *>(&cache);
  char error[256] = "";
  int64_t global[] = {n};
  ASSERT_EQ(
      spirjit_launch(handle, nullptr, 1, global, nullptr, args, 3, error,
                     sizeof error),
      0)
      << error;
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(c[i], 2.25f) << "at " << i;

  // On a device named by its filter, with memory allocated there: the
  // result is read back from the device.
  spirjit_device *device =
      spirjit_device_find(device_->filterString().c_str(), error, sizeof error);
  ASSERT_NE(device, nullptr) << error;
  spirjit_buffer *output =
      spirjit_buffer_allocate(device, n * sizeof(float), nullptr, error,
                              sizeof error);
  ASSERT_NE(output, nullptr) << error;
  args[2] = spirjit_argument{};
  args[2].kind = SPIRJIT_ARGUMENT_DEVICE_ARRAY;
  args[2].type = type;
  args[2].buffer = output;
  args[2].shape = shape;
  args[2].strides = strides;
  args[2].itemsize = sizeof(float);
  b.assign(n, 1.0f);
  ASSERT_EQ(spirjit_launch(handle, device, 1, global, nullptr, args, 3, error,
                           sizeof error),
            0)
      << error;
  std::vector<float> read(n, 0.0f);
  ASSERT_EQ(spirjit_buffer_read(output, read.data(), n * sizeof(float), 0,
                                error, sizeof error),
            0)
      << error;
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(read[i], 3.0f) << "at " << i;
  // A read past the end is refused, not performed.
  EXPECT_EQ(spirjit_buffer_read(output, read.data(), n * sizeof(float), 4,
                                error, sizeof error),
            -1);
  EXPECT_NE(std::string(error).find("outside"), std::string::npos) << error;
  spirjit_buffer_release(output);
  EXPECT_EQ(spirjit_device_find("level_zero:accelerator:7", error,
                                sizeof error),
            nullptr);
  EXPECT_NE(std::string(error).find("no device matches"), std::string::npos)
      << error;

  // Errors come back as text.
  int64_t none[] = {0};
  EXPECT_EQ(
      spirjit_launch(handle, nullptr, 4, none, nullptr, args, 3, error,
                     sizeof error),
      -1);
  EXPECT_NE(std::string(error).find("1 to 3"), std::string::npos) << error;
}

} // namespace

TEST_F(Launcher, KeepsNativeCodesMemoryUntilTheQueueIsDone) {
  // A C++ extension queued work on the device's queue that uses `buffer`
  // (extension.hpp), and Python dropped the array.
  auto buffer = device_->allocate(64);
  std::weak_ptr<runtime::Buffer> watched = buffer;
  retainUntilQueueDone(device_, {std::move(buffer)});
  EXPECT_FALSE(watched.expired());
  uint64_t upTo = launchesSoFar();
  device_->finish();
  releaseFinishedLaunches(*device_, upTo);
  EXPECT_TRUE(watched.expired());
}

TEST_F(Launcher, LaunchesFinishWhileTheHostHoldsViews) {
  // Long enough that an asynchronous launch is still running when submit
  // returns.
  const int64_t n = 1 << 22;
  std::vector<float> a(n, 1.5f), b(n, 2.0f), zeros(n, 0.0f);
  auto bufferA = device_->allocate(n * sizeof(float), a.data());
  auto bufferB = device_->allocate(n * sizeof(float), b.data());
  auto bufferC = device_->allocate(n * sizeof(float), zeros.data());
  if (!bufferC->hostAddressable())
    GTEST_SKIP() << "PoCL's memory is not the host's here";
  int64_t shape[] = {n}, strides[] = {sizeof(float)};
  auto deviceArray = [&](const std::shared_ptr<runtime::Buffer> &buffer) {
    return floatVector(buffer, shape, strides);
  };
  ArgumentValue args[] = {deviceArray(bufferA), deviceArray(bufferB),
                          deviceArray(bufferC)};
  KernelCache cache = cacheOf("vecadd");
  device_->addHostView(); // NumPy holds a view of the memory
  {
    Event event;
    cache.submit(event, lineOf(n), args, 3, device_, nullptr, 0, false);
  }
  int64_t unwritten = countOther(*bufferC, n, 3.5f);
  device_->removeHostView();
  device_->finish();
  EXPECT_EQ(unwritten, 0);
}

namespace {
runtime::DeviceInfo cpuInfo(const std::string &backend,
                            const std::string &platform) {
  runtime::DeviceInfo info;
  info.backend = backend;
  info.platform = platform;
  info.deviceType = "cpu";
  info.maxWorkGroupSize = 8192;
  info.computeUnits = 2;
  info.vectorizesInnermostItemLoopsOnly =
      backend == "native" || platform == "Portable Computing Language";
  return info;
}
} // namespace

// A reduction's first pass on CPUs: each group folds one contiguous chunk,
// four a core. Intel's runtime vectorises a group's items one vector a
// step: a group is one vector of the device's width (16 floats with
// AVX-512, 8 with AVX2); the native device and PoCL vectorise across items only
// in an innermost loop, so their groups are one item each, which walks its
// chunk in order (16 items had each fetched every cache line).
TEST(ReduceShape, CpuGroupsAreOneVectorOrOneItemEachFoldingAChunk) {
  ReduceShape intel = launch::reduceShape(
      cpuInfo("opencl", "Intel(R) OpenCL"), 1, int64_t(1) << 22);
  EXPECT_TRUE(intel.chunked);
  EXPECT_EQ(intel.local, 16);
  EXPECT_EQ(intel.groups, 8);
  runtime::DeviceInfo avx2 = cpuInfo("opencl", "Intel(R) OpenCL");
  avx2.floatLanes = 8;
  EXPECT_EQ(launch::reduceShape(avx2, 1, int64_t(1) << 22).local, 8);
  for (const auto &info : {cpuInfo("native", "spirjit native"),
                           cpuInfo("opencl", "Portable Computing Language")}) {
    ReduceShape one = launch::reduceShape(info, 1, int64_t(1) << 22);
    EXPECT_TRUE(one.chunked) << info.platform;
    EXPECT_EQ(one.local, 1) << info.platform;
    EXPECT_EQ(one.groups, 8) << info.platform;
    // A row of at most 16*64 values is still one group's: no partials.
    EXPECT_EQ(launch::reduceShape(info, 1, 1024).groups, 1) << info.platform;
    EXPECT_EQ(launch::reduceShape(info, 1, 1025).groups, 8) << info.platform;
    EXPECT_EQ(launch::reduceShape(info, 1, 0).groups, 1) << info.platform;
  }
  runtime::DeviceInfo gpu = cpuInfo("opencl", "Portable Computing Language");
  gpu.deviceType = "gpu";
  ReduceShape g = launch::reduceShape(gpu, 1, int64_t(1) << 22);
  EXPECT_FALSE(g.chunked);
  EXPECT_EQ(g.local, 256);
  EXPECT_EQ(g.groups, 16);
}

// A recorded node keeps its operation's file as an interned pointer
// (recording copies no text): one copy per distinct name, which outlives
// the caller's string.
TEST(ArrayGraph, InternsOneCopyOfEachFileName) {
  std::string name = "/home/user/model.py";
  const char *interned = launch::internFileName(name.c_str());
  name[1] = 'X';
  EXPECT_STREQ(interned, "/home/user/model.py");
  EXPECT_EQ(launch::internFileName("/home/user/model.py"), interned);
  EXPECT_NE(launch::internFileName("/home/user/other.py"), interned);
}

// A node's ufunc and loop are interned too: the evaluation's memo keys
// the kernel's form by these pointers, so equal text must give one.
TEST(ArrayGraph, InternsUfuncNamesAndLoops) {
  const std::string *add = launch::internName("add");
  EXPECT_EQ(*add, "add");
  EXPECT_EQ(launch::internName(std::string("ad") + "d"), add);
  EXPECT_NE(launch::internName("subtract"), add);
  const auto *loop = launch::internLoop({"float32", "float32", "float32"});
  EXPECT_EQ(loop->size(), 3u);
  EXPECT_EQ(launch::internLoop({"float32", "float32", "float32"}), loop);
  EXPECT_NE(launch::internLoop({"float32", "float64", "float64"}), loop);
}

TEST_F(Launcher, TheHostDeviceRunsALaunchOnTheCallingThreadOverAnotherDevicesMemory) {
  // launch/ computes small array values of CPU devices so
  // (ArrayGraph.h, computeOnHost): PoCL's memory, the host's machine code.
  const int64_t n = 1000;
  std::vector<float> a(n, 1.5f), b(n, 2.0f), zeros(n, 0.0f);
  auto bufferA = device_->allocate(n * sizeof(float), a.data());
  auto bufferB = device_->allocate(n * sizeof(float), b.data());
  auto bufferC = device_->allocate(n * sizeof(float), zeros.data());
  if (!bufferC->hostAddressable())
    GTEST_SKIP() << "PoCL's memory is not the host's here";
  device_->finish();
  int64_t shape[] = {n}, strides[] = {sizeof(float)};
  ArgumentValue args[] = {floatVector(bufferA, shape, strides),
                          floatVector(bufferB, shape, strides),
                          floatVector(bufferC, shape, strides)};
  KernelCache cache = cacheOf("vecadd");
  std::shared_ptr<runtime::Device> host = runtime::hostDevice();
  EXPECT_EQ(host->info().deviceType, "cpu");
  for (int k = 0; k < 3; ++k) {
    Event event;
    cache.submit(event, lineOf(n), args, 3, host, nullptr, 0, false);
    // Done when submit returns: nothing was queued anywhere.
    ASSERT_EQ(countOther(*bufferC, n, 3.5f), 0) << "launch " << k;
    std::fill_n(static_cast<float *>(bufferC->svm()), n, 0.0f);
    event.wait();
  }
  EXPECT_EQ(cache.statistics().compiles, 1);
}
