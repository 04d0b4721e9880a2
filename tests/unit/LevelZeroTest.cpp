// The Level Zero backend's call path, run through the loader against its
// null driver (docs/level-zero.md). The null driver executes nothing, so
// these tests check what the backend asks of the driver — through the
// loader's tracing layer — and what it does with the answers (fake
// handles, unwritten outputs, malloc'd "shared" memory).
//
// ctest runs the LevelZeroNullDriver suite with ZE_ENABLE_ALT_DRIVERS
// naming libze_null.so.1 and ZE_ENABLE_TRACING_LAYER=1, and the
// LevelZeroNoDriver suite with no driver at all.
#include "runtime/Device.h"
#include "runtime/LevelZero.h"
#include "runtime/OpenCL.h"

#include <gtest/gtest.h>
#include <level_zero/layers/zel_tracing_api.h>
#include <level_zero/ze_api.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace spirjit::runtime;
using spirjit::DeviceImage;
using spirjit::ImageFormat;

namespace {

/// What the tracing layer saw, call by call.
struct Trace {
  std::vector<std::string> calls;
  std::vector<std::pair<ze_module_format_t, size_t>> modules;
  std::vector<std::string> kernelNames;
  struct Argument {
    uint32_t index;
    size_t size;
    std::vector<unsigned char> bytes; // empty for local memory (nullptr)
  };
  std::vector<Argument> arguments;
  std::vector<std::array<uint32_t, 3>> groupSizes;
  std::vector<std::array<uint32_t, 3>> groupCounts;
  std::vector<bool> launchSignals; // did the launch signal an event?
  int suggestions = 0;
  void clear() { *this = Trace(); }
};
Trace trace;

void onModuleCreate(ze_module_create_params_t *p, ze_result_t, void *,
                    void **) {
  trace.calls.push_back("zeModuleCreate");
  trace.modules.push_back({(*p->pdesc)->format, (*p->pdesc)->inputSize});
}
void onKernelCreate(ze_kernel_create_params_t *p, ze_result_t, void *,
                    void **) {
  trace.calls.push_back("zeKernelCreate");
  trace.kernelNames.push_back((*p->pdesc)->pKernelName);
}
void onSetArgument(ze_kernel_set_argument_value_params_t *p, ze_result_t,
                   void *, void **) {
  trace.calls.push_back("zeKernelSetArgumentValue");
  Trace::Argument a{*p->pargIndex, *p->pargSize, {}};
  if (*p->ppArgValue) {
    auto bytes = static_cast<const unsigned char *>(*p->ppArgValue);
    a.bytes.assign(bytes, bytes + a.size);
  }
  trace.arguments.push_back(a);
}
void onSetGroupSize(ze_kernel_set_group_size_params_t *p, ze_result_t,
                    void *, void **) {
  trace.calls.push_back("zeKernelSetGroupSize");
  trace.groupSizes.push_back(
      {*p->pgroupSizeX, *p->pgroupSizeY, *p->pgroupSizeZ});
}
void onSuggestGroupSize(ze_kernel_suggest_group_size_params_t *, ze_result_t,
                        void *, void **) {
  trace.calls.push_back("zeKernelSuggestGroupSize");
  ++trace.suggestions;
}
void onLaunch(ze_command_list_append_launch_kernel_params_t *p, ze_result_t,
              void *, void **) {
  trace.calls.push_back("zeCommandListAppendLaunchKernel");
  const ze_group_count_t *g = *p->ppLaunchFuncArgs;
  trace.groupCounts.push_back(
      {g->groupCountX, g->groupCountY, g->groupCountZ});
  trace.launchSignals.push_back(*p->phSignalEvent != nullptr);
}
void onBarrier(ze_command_list_append_barrier_params_t *, ze_result_t, void *,
               void **) {
  trace.calls.push_back("zeCommandListAppendBarrier");
}
void onHostSynchronize(ze_event_host_synchronize_params_t *, ze_result_t,
                       void *, void **) {
  trace.calls.push_back("zeEventHostSynchronize");
}

class LevelZeroNullDriver : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    const char *driver = std::getenv("ZE_ENABLE_ALT_DRIVERS");
    ASSERT_TRUE(driver && *driver)
        << "set ZE_ENABLE_ALT_DRIVERS to libze_null.so.1 (built by "
           "scripts/build-ze-null-driver.sh)";
    ASSERT_EQ(levelZeroDevices().size(), 1u)
        << "the loader found no null driver at " << driver;
    static int userData;
    zel_tracer_desc_t desc{ZEL_STRUCTURE_TYPE_TRACER_DESC, nullptr,
                           &userData};
    ASSERT_EQ(zelTracerCreate(&desc, &tracer_), ZE_RESULT_SUCCESS)
        << "is ZE_ENABLE_TRACING_LAYER=1 set?";
    zel_core_callbacks_t prologues{};
    prologues.Module.pfnCreateCb = onModuleCreate;
    prologues.Kernel.pfnCreateCb = onKernelCreate;
    prologues.Kernel.pfnSetArgumentValueCb = onSetArgument;
    prologues.Kernel.pfnSetGroupSizeCb = onSetGroupSize;
    prologues.Kernel.pfnSuggestGroupSizeCb = onSuggestGroupSize;
    prologues.CommandList.pfnAppendLaunchKernelCb = onLaunch;
    prologues.CommandList.pfnAppendBarrierCb = onBarrier;
    prologues.Event.pfnHostSynchronizeCb = onHostSynchronize;
    ASSERT_EQ(zelTracerSetPrologues(tracer_, &prologues), ZE_RESULT_SUCCESS);
    ASSERT_EQ(zelTracerSetEnabled(tracer_, true), ZE_RESULT_SUCCESS);
  }
  static void TearDownTestSuite() {
    if (tracer_) {
      zelTracerSetEnabled(tracer_, false);
      zelTracerDestroy(tracer_);
    }
  }
  void SetUp() override { trace.clear(); }

  static Device &device() { return *levelZeroDevices()[0]; }
  /// A few words of SPIR-V (the null driver reads none of them).
  static std::vector<uint32_t> spirv() {
    return {0x07230203, 0x00010000, 0, 1, 0};
  }
  static DeviceImage image() {
    std::vector<uint32_t> words = spirv();
    auto bytes = reinterpret_cast<const char *>(words.data());
    return {ImageFormat::SPIRV, {bytes, bytes + words.size() * 4}};
  }

  static zel_tracer_handle_t tracer_;
};
zel_tracer_handle_t LevelZeroNullDriver::tracer_ = nullptr;

TEST_F(LevelZeroNullDriver, ListsTheDeviceWithItsFilterString) {
  const DeviceInfo &info = device().info();
  EXPECT_EQ(info.name, "Null Device");
  EXPECT_EQ(info.backend, "level_zero");
  EXPECT_EQ(info.deviceType, "gpu");
  EXPECT_EQ(device().filterString(), "level_zero:gpu:0");
  EXPECT_TRUE(info.supportsSpirv);
  // The null driver reports zeros: no fp64, no 64-bit atomics, and no
  // work-group limit (0 means "not said"; launches are not refused).
  EXPECT_FALSE(info.hasFp64);
  EXPECT_FALSE(info.hasAtomic64);
  EXPECT_EQ(info.maxWorkGroupSize, 0u);
  // It is a GPU, so the device list holds it first (GPUs before the
  // OpenCL CPU devices): it would be the default device.
  const auto &all = allDevices();
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(all.front().get(), levelZeroDevices()[0].get());
  EXPECT_EQ(all.size(), openclDevices().size() + 1);
}

TEST_F(LevelZeroNullDriver, SharedMemoryRoundTripsThroughTheHost) {
  std::vector<float> in = {1, 2, 3, 4, 5, 6, 7, 8}, out(8, 0);
  auto buffer = device().allocate(in.size() * 4, in.data());
  ASSERT_NE(buffer->svm(), nullptr);
  EXPECT_TRUE(buffer->hostAddressable());
  EXPECT_EQ(buffer->size(), 32u);
  device().read(*buffer, out.data(), 32);
  EXPECT_EQ(out, in);
  float nine = 9;
  device().write(*buffer, &nine, 4, 12); // element 3
  device().read(*buffer, out.data(), 32);
  EXPECT_EQ(out[3], 9.0f);
  EXPECT_EQ(out[4], 5.0f);
  // A read waits for the queue: a barrier signalling an event, then a
  // host synchronisation on that event.
  ASSERT_GE(trace.calls.size(), 2u);
  EXPECT_EQ(trace.calls[trace.calls.size() - 2], "zeCommandListAppendBarrier");
  EXPECT_EQ(trace.calls.back(), "zeEventHostSynchronize");
}

TEST_F(LevelZeroNullDriver, BuildsModulesFromSPIRVAndCreatesKernels) {
  auto program = device().build(image());
  ASSERT_EQ(trace.modules.size(), 1u);
  EXPECT_EQ(trace.modules[0].first, ZE_MODULE_FORMAT_IL_SPIRV);
  EXPECT_EQ(trace.modules[0].second, spirv().size() * 4);
  auto kernel = device().createKernel(program, "vecadd");
  ASSERT_EQ(trace.kernelNames.size(), 1u);
  EXPECT_EQ(trace.kernelNames[0], "vecadd");
  // The null driver has no native binary: the cache keeps SPIR-V only.
  EXPECT_TRUE(device().programBinary(*program).empty());
}

TEST_F(LevelZeroNullDriver, BindsPointersAndSkipsUnchangedValues) {
  auto kernel =
      device().createKernel(device().build(image()), "vecadd");
  auto buffer = device().allocate(64);
  trace.clear();
  kernel->setBuffer(0, *buffer, 8);
  int64_t extent = 12;
  kernel->setArgument(1, sizeof extent, &extent);
  kernel->setArgument(1, sizeof extent, &extent); // unchanged: not sent
  kernel->setArgument(2, 256, nullptr);           // local memory
  kernel->setBuffer(0, *buffer, 8);               // the same: not sent
  auto other = device().allocate(64);
  kernel->setBuffer(0, *other, 8);                // another buffer: sent
  kernel->setBuffer(0, *other, 0);                // another offset: sent
  ASSERT_EQ(trace.arguments.size(), 5u);
  void *expected = static_cast<char *>(buffer->svm()) + 8;
  EXPECT_EQ(trace.arguments[0].index, 0u);
  ASSERT_EQ(trace.arguments[0].size, sizeof(void *));
  void *bound;
  std::memcpy(&bound, trace.arguments[0].bytes.data(), sizeof bound);
  EXPECT_EQ(bound, expected);
  EXPECT_EQ(trace.arguments[1].index, 1u);
  EXPECT_EQ(trace.arguments[1].size, 8u);
  EXPECT_EQ(trace.arguments[2].index, 2u);
  EXPECT_EQ(trace.arguments[2].size, 256u);
  EXPECT_TRUE(trace.arguments[2].bytes.empty());
  EXPECT_EQ(trace.arguments[3].index, 0u);
  std::memcpy(&bound, trace.arguments[4].bytes.data(), sizeof bound);
  EXPECT_EQ(bound, other->svm());
  // A freed buffer's address may come back for a new one: still a new
  // buffer, bound again.
  void *address = other->svm();
  other.reset();
  auto again = device().allocate(64);
  trace.clear();
  kernel->setBuffer(0, *again, 0);
  EXPECT_EQ(trace.arguments.size(), 1u) << (again->svm() == address);
}

TEST_F(LevelZeroNullDriver, NdRangeLaunchUsesTheLocalRangeAsGroupSize) {
  auto kernel = device().createKernel(device().build(image()), "k");
  trace.clear();
  // OpenCL's order: dimension 0 fastest. 16 x 8 in groups of 4 x 2.
  auto event = device().launch(*kernel, {16, 8}, {4, 2}, true);
  ASSERT_TRUE(event);
  event->wait();
  EXPECT_TRUE(event->complete());
  ASSERT_EQ(trace.groupSizes.size(), 1u);
  EXPECT_EQ(trace.groupSizes[0], (std::array<uint32_t, 3>{4, 2, 1}));
  ASSERT_EQ(trace.groupCounts.size(), 1u);
  EXPECT_EQ(trace.groupCounts[0], (std::array<uint32_t, 3>{4, 4, 1}));
  EXPECT_TRUE(trace.launchSignals[0]);
  EXPECT_EQ(trace.suggestions, 0);
  // The launch is followed by a barrier: one list keeps queue order.
  std::vector<std::string> expected = {
      "zeKernelSetGroupSize", "zeCommandListAppendLaunchKernel",
      "zeCommandListAppendBarrier", "zeEventHostSynchronize"};
  EXPECT_EQ(trace.calls, expected);
  // The same local range again: the group size is not set again.
  trace.clear();
  EXPECT_FALSE(device().launch(*kernel, {16, 8}, {4, 2}, false));
  EXPECT_TRUE(trace.groupSizes.empty());
  EXPECT_FALSE(trace.launchSignals.at(0));
}

TEST_F(LevelZeroNullDriver, RangeLaunchAsksTheKernelForAGroupSize) {
  auto kernel = device().createKernel(device().build(image()), "k");
  trace.clear();
  device().launch(*kernel, {12}, {}, false);
  // The null driver leaves the suggestion unwritten: the backend's own
  // initial 1 x 1 x 1 is used, so 12 groups cover the range exactly.
  EXPECT_EQ(trace.suggestions, 1);
  ASSERT_EQ(trace.groupSizes.size(), 1u);
  EXPECT_EQ(trace.groupSizes[0], (std::array<uint32_t, 3>{1, 1, 1}));
  EXPECT_EQ(trace.groupCounts.at(0), (std::array<uint32_t, 3>{12, 1, 1}));
  // The suggestion is remembered per range.
  device().launch(*kernel, {12}, {}, false);
  EXPECT_EQ(trace.suggestions, 1);
  device().launch(*kernel, {7, 3}, {}, false);
  EXPECT_EQ(trace.suggestions, 2);
  EXPECT_EQ(trace.groupCounts.at(2), (std::array<uint32_t, 3>{7, 3, 1}));
  device().finish();
}

TEST_F(LevelZeroNullDriver, EventsAreRecycledPastOnePool) {
  auto kernel = device().createKernel(device().build(image()), "k");
  std::vector<std::unique_ptr<Event>> events;
  for (int i = 0; i < 600; ++i) { // more than one pool of 256 at once
    events.push_back(device().launch(*kernel, {64}, {}, true));
    ASSERT_TRUE(events.back());
  }
  for (auto &event : events)
    event->wait();
  events.clear(); // all back to the pools
  for (int i = 0; i < 600; ++i)
    device().launch(*kernel, {64}, {}, true)->wait();
  EXPECT_EQ(trace.groupCounts.size(), 1200u);
}

TEST(LevelZeroNoDriver, ListsNoDeviceAndFailsNothing) {
  EXPECT_TRUE(levelZeroDevices().empty());
  for (const auto &device : allDevices())
    EXPECT_NE(device->info().backend, "level_zero");
}

} // namespace
