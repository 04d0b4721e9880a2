// The launch path: checks, the cache's last-key fast path, binding by the
// kernel ABI, the enqueue, and what happens to launches nobody waits for.
// Warm launches allocate nothing: their per-argument state lives in a
// per-thread scratch, and the Kernel skips rebinding what it holds.
#include "launch/Launcher.h"

#include "launch/HostArrays.h"

#include "compiler/CheckDeviceCapabilities.h"
#include "frontend/Diagnostics.h"
#include "launch/CallerLock.h"
#include "launch/ScratchLease.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <deque>
#include <mutex>

namespace spirjit::launch {

using runtime::Device;

namespace {

void *(*releaseCallerLock)() = nullptr;
void (*reacquireCallerLock)(void *) = nullptr;
bool (*interruptCheck)() = nullptr;

std::string describeArgument(size_t index) {
  return "argument " + std::to_string(index + 1);
}

/// Refuses a launch whose total number of work-items the device cannot
/// run, before the driver sees it: drivers abort (PoCL), trap (Intel's CPU
/// runtime) or silently run nothing when the product of the extents
/// overflows their size_t. The limit is the device's size_t, capped at
/// 2^53 work-items, far more than any device finishes in one launch.
void checkTotalWorkItems(const LaunchRange &range, const Device &device) {
  const runtime::DeviceInfo &info = device.info();
  uint64_t limit = uint64_t(1) << 53;
  if (info.addressBits > 0 && info.addressBits < 53)
    limit = (uint64_t(1) << info.addressBits) - 1;
  uint64_t total = 1;
  bool tooMany = false;
  for (int d = 0; d < range.dims; ++d) {
    // Python's Range refuses these itself; the C entry passes them on.
    if (range.global[d] <= 0)
      throw LaunchError(LaunchErrorKind::InvalidRange,
                        "global extent " + std::to_string(d) + " is " +
                            std::to_string(range.global[d]) +
                            "; extents must be positive");
    tooMany |= __builtin_mul_overflow(
        total, static_cast<uint64_t>(range.global[d]), &total);
  }
  if (!tooMany && total <= limit)
    return;
  std::string items;
  for (int d = 0; d < range.dims; ++d)
    items += (d ? " x " : "") + std::to_string(range.global[d]);
  throw LaunchError(LaunchErrorKind::InvalidRange,
                    "a launch of " + items + " work-items is more than " +
                        info.name + " can run (at most " +
                        std::to_string(limit) +
                        " in one launch); split the work into several "
                        "launches");
}

/// Launches whose Event was dropped before it was waited for: their memory
/// stays here until the device is done with it.
///
/// Asynchronous launches create no backend event (a PoCL event costs about
/// a third of a tiny launch, measured here). Their completion is learnt
/// from markers instead: queues are in order, so when a marker enqueued
/// after launch number N completes, every launch up to N on that device
/// has. One marker per device is in flight at a time, enqueued once
/// enough dropped launches have piled up.
struct Retired {
  uint64_t sequence; // launch order, process-wide
  Device *device;
  std::unique_ptr<runtime::Event> handle; // usually none
  std::vector<std::shared_ptr<runtime::Buffer>> buffers;
  std::vector<HeldObject> held;
  Retired(uint64_t sequence, Device *device,
          std::unique_ptr<runtime::Event> handle,
          std::vector<std::shared_ptr<runtime::Buffer>> buffers,
          std::vector<HeldObject> held)
      : sequence(sequence), device(device), handle(std::move(handle)),
        buffers(std::move(buffers)), held(std::move(held)) {}
  Retired(Retired &&) = default;
  Retired &operator=(Retired &&other) {
    releaseHeld();
    sequence = other.sequence;
    device = other.device;
    handle = std::move(other.handle);
    buffers = std::move(other.buffers);
    held = std::move(other.held);
    other.held.clear();
    return *this;
  }
  ~Retired() { releaseHeld(); }
  void releaseHeld() {
    for (const HeldObject &object : held)
      object.release(object.object);
    held.clear();
  }
};
struct Marker {
  Device *device;
  uint64_t covers; // every launch up to this number on `device`
  std::unique_ptr<runtime::Event> event;
};
/// Sweep once this many dropped launches have piled up: asking a driver
/// about an event costs a lock it shares with its worker threads.
constexpr size_t sweepThreshold = 32;

/// The devices this process launched on. Some drivers finish every queue
/// when their library is unloaded at exit (Intel's CPU runtime does, in its
/// destructor), so a kernel still running then would keep the process
/// alive for as long as it runs, for ever for one that never ends: one
/// whose wait was interrupted, one that a thread parked at the
/// interpreter's exit was waiting for, one dropped unwaited. Once the
/// process exits no one can see what a kernel does, so where a device
/// still has work queued at exit, the process ends without running
/// library destructors.
struct LaunchedDevices {
  std::mutex mutex;
  std::vector<std::shared_ptr<Device>> devices;
  std::atomic<Device *> last{nullptr}; // the one noted last: most launches
};

LaunchedDevices &launchedDevices() {
  static auto *launched = new LaunchedDevices(); // never destroyed
  return *launched;
}

/// Whether `device` finishes what is queued on it within a short grace (a
/// marker behind an idle queue completes at once).
bool finishesSoon(Device &device) {
  try {
    std::unique_ptr<runtime::Event> marker = device.enqueueMarker();
    return marker->waitFor(std::chrono::milliseconds(100));
  } catch (const std::exception &) {
    return true; // a device that cannot queue (one of a forked parent's)
  }
}

void endProcessIfKernelsRun(int status, void *) {
  LaunchedDevices &launched = launchedDevices();
  std::lock_guard<std::mutex> lock(launched.mutex);
  for (const auto &device : launched.devices)
    if (!finishesSoon(*device)) {
      std::fflush(nullptr);
      std::_Exit(status);
    }
}

void noteLaunchOn(const std::shared_ptr<Device> &device) {
  LaunchedDevices &launched = launchedDevices();
  if (launched.last.load(std::memory_order_relaxed) == device.get())
    return;
  std::lock_guard<std::mutex> lock(launched.mutex);
  if (launched.devices.empty())
    on_exit(&endProcessIfKernelsRun, nullptr);
  if (std::find(launched.devices.begin(), launched.devices.end(), device) ==
      launched.devices.end())
    launched.devices.push_back(device);
  launched.last.store(device.get(), std::memory_order_relaxed);
}

struct RetiredLaunches {
  // Recursive: letting go of a held object may run the caller's code,
  // which may drop another Event.
  std::recursive_mutex mutex;
  std::deque<Retired> launches;
  std::vector<Marker> markers;
  std::atomic<size_t> count{0}; // launches.size(), read without the mutex
  /// The count at which the next sweep runs: sweepThreshold more than at
  /// the last one, so a marker still in flight is asked about once per
  /// that many drops, not once per launch (a CUDA event query costs about
  /// a microsecond while the queue is long).
  std::atomic<size_t> sweepAt{sweepThreshold};
};
RetiredLaunches &retiredLaunches() {
  static auto *retired = new RetiredLaunches(); // never destroyed
  return *retired;
}

std::atomic<uint64_t> launchCount{0}; // the last launch's number

/// Frees what finished launches held, and puts a marker behind the newest
/// dropped launch of a device that has none in flight.
void sweepRetiredLaunches() {
  auto &retired = retiredLaunches();
  std::lock_guard<std::recursive_mutex> lock(retired.mutex);
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
  retired.count = launches.size();
  retired.sweepAt = launches.size() + sweepThreshold;
  if (launches.size() < sweepThreshold)
    return;
  Device *device = launches.back().device;
  for (const Marker &marker : retired.markers)
    if (marker.device == device)
      return; // wait for the one in flight
  retired.markers.push_back({device, launchCount, device->enqueueMarker()});
}

} // namespace

uint64_t launchesSoFar() { return launchCount; }

void releaseFinishedLaunches(const Device &device, uint64_t upTo) {
  auto &retired = retiredLaunches();
  std::lock_guard<std::recursive_mutex> lock(retired.mutex);
  auto &launches = retired.launches;
  launches.erase(std::remove_if(launches.begin(), launches.end(),
                                [&](const Retired &r) {
                                  return r.device == &device &&
                                         r.sequence <= upTo;
                                }),
                 launches.end());
  retired.count = launches.size();
  retired.sweepAt = launches.size() + sweepThreshold;
}

void retainUntilQueueDone(
    const std::shared_ptr<Device> &device,
    std::vector<std::shared_ptr<runtime::Buffer>> buffers) {
  for (const auto &buffer : buffers)
    if (buffer->hostPointer())
      device->enqueueHostSynchronization(*buffer);
  noteLaunchOn(device);
  // As a launch does; keeping the caller's lock (a Python object's
  // deallocation calls this).
  if (device->hasHostViews())
    device->finish();
  auto &retired = retiredLaunches();
  std::lock_guard<std::recursive_mutex> lock(retired.mutex);
  retired.launches.emplace_back(++launchCount, device.get(), nullptr,
                                std::move(buffers), std::vector<HeldObject>());
  retired.count = retired.launches.size();
}

namespace {

/// Debug records (DebugRecord.h), reused: allocating one per launch, and
/// reading it back with a copy, cost a small checked launch more than the
/// launch itself. Where the device shares the host's memory a record is
/// host memory it writes in place, made current behind the kernel and read
/// with no copy; elsewhere device memory read back after the launch. Each
/// launch in flight has a record of its own.
struct DebugRecords {
  std::mutex mutex;
  std::map<const Device *, std::vector<DebugRecord>> free;
};
DebugRecords &debugRecords() {
  static auto *records = new DebugRecords(); // never destroyed
  return *records;
}

DebugRecord takeDebugRecord(Device &device) {
  {
    auto &records = debugRecords();
    std::lock_guard<std::mutex> lock(records.mutex);
    auto &free = records.free[&device];
    if (!free.empty()) {
      DebugRecord record = std::move(free.back());
      free.pop_back();
      return record;
    }
  }
  // The host memory outlives the buffer over it: one owner holds both and
  // lets go of the buffer first.
  struct Owner {
    std::shared_ptr<char> host;
    std::shared_ptr<runtime::Buffer> buffer;
  };
  auto owner = std::make_shared<Owner>();
  constexpr size_t page = 4096; // aligned as any device wants
  owner->host.reset(static_cast<char *>(std::aligned_alloc(page, page)),
                    std::free);
  SPIRJIT_INTERNAL_CHECK(owner->host != nullptr, "no memory for a record");
  std::memset(owner->host.get(), 0, page);
  owner->buffer =
      device.wrapHostMemory(owner->host.get(), DebugRecordLayout::size);
  DebugRecord record;
  if (owner->buffer) {
    record.host = owner->host.get();
    record.buffer =
        std::shared_ptr<runtime::Buffer>(owner, owner->buffer.get());
  } else {
    static const char zeros[DebugRecordLayout::size] = {};
    record.buffer = device.allocate(sizeof zeros, zeros);
  }
  return record;
}

void giveBackDebugRecord(Device &device, DebugRecord record) {
  auto &records = debugRecords();
  std::lock_guard<std::mutex> lock(records.mutex);
  records.free[&device].push_back(std::move(record));
}

/// What one launch needs per argument, kept per thread so that launches
/// allocate nothing once warm. Released on every exit from submit().
struct LaunchScratch {
  std::vector<const Type *> argTypes;
  std::vector<int64_t> localExtents, groupExtents;
  std::vector<std::shared_ptr<runtime::Buffer>> buffers;
  std::vector<char> wrapped;
  /// Per host array: the bytes it shares with the host arrays it overlaps
  /// (their union), which a device that copies host arrays copies once.
  std::vector<char *> unionBegin;
  std::vector<size_t> unionBytes;
  std::vector<std::pair<char *, size_t>> byStart; // (lowest byte, argument)
  std::vector<size_t> global, local; // the backend's order (0 fastest)
  /// The arguments with scalars converted to a signature's types.
  std::vector<ArgumentValue> converted;
  bool inUse = false;

  void reset(size_t n) {
    argTypes.assign(n, nullptr);
    buffers.clear();
    buffers.resize(n);
    wrapped.assign(n, 0);
    unionBegin.assign(n, nullptr);
    unionBytes.assign(n, 0);
    byStart.clear();
  }
  void release() { buffers.clear(); }
};


/// Refuses a launch whose work-items' private memory (`bytes` each, at
/// most) does not fit the device (DeviceInfo's limits). For a Range on a
/// device that limits a group's, returns the work-items per group that
/// fit (dimension 0 of the backend's order), or 0 to leave it to the
/// driver.
int64_t checkPrivateMemory(uint64_t bytes, const LaunchRange &range,
                           int64_t groupSize, const Device &device) {
  const runtime::DeviceInfo &info = device.info();
  std::string takes = "the kernel's private memory (its PrivateArrays) "
                      "takes up to " +
                      std::to_string(bytes) + " bytes per work-item";
  auto refuse = [&](const std::string &message) {
    throw LaunchError(LaunchErrorKind::OutOfDeviceMemory, message);
  };
  auto perItem = [&](uint64_t limit) {
    refuse(takes + ", more than " + info.name + " has for one (" +
           std::to_string(limit) +
           " bytes); use smaller PrivateArrays, or keep the data in an "
           "array argument or a LocalAccessor");
  };
  if (info.privateMemPerWorkItem && bytes > info.privateMemPerWorkItem)
    perItem(info.privateMemPerWorkItem);
  uint64_t perGroup = info.privateMemPerGroup;
  if (!perGroup)
    return 0;
  if (range.ndRange) {
    if (bytes * static_cast<uint64_t>(groupSize) > perGroup)
      refuse(takes + ", " + std::to_string(bytes * groupSize) +
             " for a work-group of " + std::to_string(groupSize) +
             ", more than " + info.name + " has for one (" +
             std::to_string(perGroup) +
             " bytes); use smaller work-groups or smaller PrivateArrays");
    return 0;
  }
  uint64_t fit = perGroup / bytes;
  if (fit == 0)
    perItem(perGroup);
  size_t most = info.maxWorkGroupSize ? info.maxWorkGroupSize : 1024;
  if (fit >= most)
    return 0; // whatever the driver picks fits
  // The largest group along the fastest dimension that divides it.
  int64_t extent = range.global[range.dims - 1];
  for (int64_t items = static_cast<int64_t>(fit); items > 1; --items)
    if (extent % items == 0)
      return items;
  return 1;
}

} // namespace

CallerLockReleased::CallerLockReleased()
    : state_(releaseCallerLock ? releaseCallerLock() : nullptr) {}

CallerLockReleased::~CallerLockReleased() {
  if (reacquireCallerLock)
    reacquireCallerLock(state_);
}

void setCallerLock(void *(*release)(), void (*reacquire)(void *)) {
  releaseCallerLock = release;
  reacquireCallerLock = reacquire;
}

void setInterruptCheck(bool (*interrupted)()) { interruptCheck = interrupted; }

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

void Event::releaseHeld() {
  for (const HeldObject &object : held_)
    object.release(object.object);
  held_.clear();
}

void Event::wait() {
  if (done_)
    return;
  // An asynchronous launch has no event of its own: a marker behind it
  // completes once it has (and whatever was queued after it, before now).
  if (!handle_ && device_)
    handle_ = device_->enqueueMarker();
  if (handle_) {
    CallerLockReleased unlocked;
    if (bool (*interrupted)() = interruptCheck) {
      while (!handle_->waitFor(std::chrono::milliseconds(50)))
        if (interrupted())
          throw LaunchError(LaunchErrorKind::Interrupted,
                            "interrupted while waiting for a launch");
    } else {
      handle_->wait();
    }
  }
  done_ = true;
  // In-place host arrays were made current by the map and unmap queued
  // behind the kernel (submit); copies are read back.
  for (Pending &p : pending_)
    if (p.written && !p.wrapped)
      device_->read(*p.buffer, p.host, p.buffer->size());
  pending_.clear();
  alive_.clear();
  releaseHeld();
  if (debugRecord_.buffer)
    throwReportedFailure();
}

void Event::throwReportedFailure() {
  char record[DebugRecordLayout::size];
  if (debugRecord_.host)
    std::memcpy(record, debugRecord_.host, sizeof record);
  else
    device_->read(*debugRecord_.buffer, record, sizeof record);
  uint32_t site;
  int64_t index, extent;
  std::memcpy(&site, record + DebugRecordLayout::site, sizeof site);
  std::memcpy(&index, record + DebugRecordLayout::index, sizeof index);
  std::memcpy(&extent, record + DebugRecordLayout::extent, sizeof extent);
  if (site != 0) { // zeroed for its next launch
    static const char zeros[DebugRecordLayout::size] = {};
    if (debugRecord_.host)
      std::memset(debugRecord_.host, 0, sizeof zeros);
    else
      device_->write(*debugRecord_.buffer, zeros, sizeof zeros);
  }
  giveBackDebugRecord(*device_, std::move(debugRecord_));
  debugRecord_ = {};
  if (site == 0)
    return;
  SPIRJIT_INTERNAL_CHECK(debugSites_ && site <= debugSites_->size(),
                         "a debug record names site " + std::to_string(site) +
                             " of " +
                             std::to_string(debugSites_ ? debugSites_->size()
                                                        : 0));
  const DebugSite &failed = (*debugSites_)[site - 1];
  LaunchErrorKind kind = failed.kind == DebugSite::Kind::Index
                             ? LaunchErrorKind::IndexOutOfBounds
                         : failed.kind == DebugSite::Kind::ZeroDivision
                             ? LaunchErrorKind::ZeroDivision
                             : LaunchErrorKind::AssertionFailed;
  throw LaunchError(kind, describeDebugFailure(failed, index, extent));
}

Event::~Event() {
  if (done_ || !device_) {
    releaseHeld();
    return;
  }
  // Dropped before it finished: never wait here (a loop of launches would
  // become synchronous), but keep its memory alive until it completes. A
  // failure its kernel reports goes unseen, as any error of a launch that
  // nobody waits for.
  if (debugRecord_.buffer)
    alive_.push_back(std::move(debugRecord_.buffer));
  if (!handle_ && pending_.empty() && alive_.empty() && held_.empty())
    return; // nothing to keep alive
  for (Pending &p : pending_)
    alive_.push_back(std::move(p.buffer));
  auto &retired = retiredLaunches();
  std::lock_guard<std::recursive_mutex> lock(retired.mutex);
  retired.launches.emplace_back(sequence_, device_.get(), std::move(handle_),
                                std::move(alive_), std::move(held_));
  retired.count = retired.launches.size();
}

const std::vector<bool> &KernelCache::submit(
    Event &event, const LaunchRange &range, const ArgumentValue *args, size_t n,
    const std::shared_ptr<Device> &device, Event *const *dependencies,
    size_t dependencyCount, bool wantEvent) {
  bool ndRange = range.ndRange;
  checkTotalWorkItems(range, *device);
  // Local extents divide the global ones, so this product fits too.
  int64_t groupSize = 1; // work-items per work-group (1 for a Range)
  for (int d = 0; ndRange && d < range.dims; ++d)
    groupSize *= range.local[d];
  if (retiredLaunches().count >= retiredLaunches().sweepAt)
    sweepRetiredLaunches();
  ScratchLease<LaunchScratch> lease;
  LaunchScratch &scratch = *lease;
  scratch.reset(n);
  auto &argTypes = scratch.argTypes;
  for (size_t i = 0; i < n; ++i)
    argTypes[i] = args[i].type;
  if (!signatures_.empty())
    args = toSignature(args, n, argTypes, scratch.converted);

  // A work-group larger than the device allows fails before the driver.
  if (ndRange) {
    size_t limit = device->info().maxWorkGroupSize; // 0: not said
    if (limit && groupSize > static_cast<int64_t>(limit))
      throw LaunchError(LaunchErrorKind::InvalidRange,
                        "a work-group of " + std::to_string(groupSize) +
                            " work-items is larger than " +
                            device->info().name + " allows (" +
                            std::to_string(limit) +
                            "); choose a smaller local range");
  }
  // Most launches repeat the last specialisation: compare in place before
  // building a key.
  auto &localExtents = scratch.localExtents;
  localExtents.clear();
  for (size_t i = 0; i < n; ++i)
    if (args[i].kind == ArgumentValue::Kind::LocalAccessor)
      localExtents.insert(localExtents.end(), args[i].shape,
                          args[i].shape + args[i].type->ndim);
  bool disjoint = arraysDisjoint(args, n);
  // The native CPU device compiles an NdRange kernel for its work-group:
  // the loops over a group's items then run a count LLVM knows.
  auto &groupExtents = scratch.groupExtents;
  groupExtents.clear();
  if (ndRange && device->info().compilesPerWorkGroup)
    for (int d = range.dims - 1; d >= 0; --d)
      groupExtents.push_back(range.local[d]);
  Entry *entry;
  if (lastEntry_ && lastKey_.dimensions == range.dims &&
      lastKey_.ndRange == ndRange && lastKey_.device == device.get() &&
      lastKey_.types == argTypes && lastKey_.localExtents == localExtents &&
      lastKey_.disjoint == disjoint && lastKey_.groupExtents == groupExtents) {
    entry = lastEntry_;
    ++statistics_.memoryHits;
  } else {
    // What depends only on the key is checked when it is not the last one,
    // and reported as the launch's error (no line of the user's is at
    // fault but the call's).
    const runtime::DeviceInfo &info = device->info();
    std::string problem =
        argumentCapabilityProblem(argTypes, info.hasFp64, info.name);
    if (!problem.empty())
      throw LaunchError(LaunchErrorKind::Typing, problem);
    checkSignatures(argTypes);
    Key key{argTypes,     range.dims, ndRange, device.get(),
            localExtents, disjoint,   groupExtents};
    auto found = cache_.find(key);
    if (found == cache_.end() &&
        (disjoint || !localExtents.empty() || !groupExtents.empty())) {
      // One compiled from `signatures=` takes any extents and arrays.
      Key general{argTypes, range.dims, ndRange, device.get(), {}, false};
      found = cache_.find(general);
    }
    if (found != cache_.end()) {
      entry = found->second.get();
      ++statistics_.memoryHits;
    } else {
      entry = &compile(key, device);
    }
    lastKey_ = std::move(key);
    lastEntry_ = entry;
  }
  const std::vector<bool> &written = entry->compiled.writtenArguments;

  // Local memory beyond the device's is refused here: PoCL 3.1 aborts the
  // process on it (an assertion in its pthread driver).
  if (ndRange) {
    int64_t local = 0;
    for (size_t i = 0; i < n; ++i)
      local += args[i].localBytes;
    bool scratchMemory = entry->compiled.usesGroupScratch;
    if (scratchMemory)
      local += groupSize * 16;
    uint64_t limit = device->info().localMemSize; // 0: not said
    if (limit && static_cast<uint64_t>(local) > limit)
      throw LaunchError(
          LaunchErrorKind::OutOfDeviceMemory,
          "this launch needs " + std::to_string(local) +
              " bytes of work-group local memory (its LocalAccessors" +
              (scratchMemory ? std::string(", and 16 bytes per work-item for "
                                           "group_reduce/group_broadcast")
                             : std::string()) +
              "), but " + device->info().name + " has " +
              std::to_string(limit) +
              "; use smaller LocalAccessors or work-groups");
  }

  // Private memory beyond the device's is refused here, and a Range of a
  // kernel with large PrivateArrays gets work-groups that fit: PoCL would
  // crash the process (a whole group's private memory on one stack).
  int64_t rangeGroup = 0; // for a Range: work-items per group, 0 = driver's
  if (uint64_t bytes = entry->compiled.privateBytes)
    rangeGroup = checkPrivateMemory(bytes, range, groupSize, *device);

  for (size_t i = 0; i < n; ++i)
    if (written[i] && !args[i].writable &&
        (args[i].kind == ArgumentValue::Kind::HostArray ||
         args[i].kind == ArgumentValue::Kind::DeviceArray))
      throw LaunchError(LaunchErrorKind::Typing,
                        describeArgument(i) + " is a read-only array, but "
                                              "the kernel writes to it");

  // Queues are in order: a dependency on this device is already behind
  // us; one on another device is waited for here, on the host, and before
  // binding: waiting lets the caller's other threads run, and they may
  // bind this kernel.
  for (size_t k = 0; k < dependencyCount; ++k) {
    Event *dependency = dependencies[k];
    if (dependency && !dependency->done() && dependency->device() != device)
      dependency->wait();
  }

  // Host arrays that share bytes are one copy on a device that copies.
  hostArrayUnions(args, n, scratch.byStart, scratch.unionBegin.data(),
                  scratch.unionBytes.data());

  // Bind the arguments by the kernel ABI.
  auto &buffers = scratch.buffers;
  auto &wrapped = scratch.wrapped;
  bool rebuilt = false;
  std::shared_ptr<runtime::Kernel> resident = entry->resident->acquire(rebuilt);
  statistics_.rebuilds += rebuilt;
  runtime::Kernel &kernel = *resident;
  DebugRecord debugRecord;
  unsigned index = 0;
  bool hostSync = false; // a written host array used in place
  for (const KernelParameter &p : entry->parameters) {
    size_t a = static_cast<size_t>(p.argument); // not for GroupScratch
    switch (p.kind) {
    case KernelParameter::Kind::GroupScratch:
      kernel.setArgument(index, static_cast<size_t>(groupSize) * 16, nullptr);
      break;
    case KernelParameter::Kind::DebugRecord:
      debugRecord = takeDebugRecord(*device);
      kernel.setBuffer(index, *debugRecord.buffer);
      hostSync |= debugRecord.host != nullptr;
      break;
    case KernelParameter::Kind::LocalData:
      kernel.setArgument(index, static_cast<size_t>(args[a].localBytes),
                         nullptr);
      break;
    case KernelParameter::Kind::ArrayData: {
      const ArgumentValue &value = args[a];
      if (value.kind == ArgumentValue::Kind::DeviceArray) {
        kernel.setBuffer(index, **value.buffer,
                         static_cast<size_t>(value.offset));
        // A DeviceArray over host memory (spirjit.from_dlpack of a NumPy
        // array): its owner reads what the kernel wrote there.
        hostSync |= written[a] && (*value.buffer)->hostPointer();
        break;
      }
      // Used in place, the kernel's pointer is the array's element
      // [0, ..., 0], whatever lies below it (a[::-1]: host memory all the
      // same). A copy starts at the lowest byte of the arrays sharing its
      // bytes, and the kernel's pointer is the array's element [0, ..., 0]
      // within it, above its own lowest byte where a stride is negative.
      Extent extent = extentOf(value);
      size_t span = extent.bytes;
      char *begin = static_cast<char *>(value.data) + extent.low;
      buffers[a] = span ? device->wrapHostMemory(
                              value.data, span - static_cast<size_t>(-extent.low))
                        : nullptr;
      wrapped[a] = buffers[a] != nullptr;
      hostSync |= wrapped[a] && written[a];
      if (wrapped[a]) {
        kernel.setBuffer(index, *buffers[a]);
        break;
      }
      // Copied: once per union of host arrays that share bytes.
      if (span) {
        begin = scratch.unionBegin[a];
        span = scratch.unionBytes[a];
      }
      for (size_t b = 0; b < a && span && !buffers[a]; ++b)
        if (buffers[b] && !wrapped[b] &&
            args[b].kind == ArgumentValue::Kind::HostArray &&
            scratch.unionBegin[b] == begin)
          buffers[a] = buffers[b];
      if (!buffers[a])
        buffers[a] = device->allocate(span ? span : 1, span ? begin : nullptr);
      kernel.setBuffer(index, *buffers[a],
                       span ? static_cast<size_t>(
                                  static_cast<char *>(value.data) - begin)
                            : 0);
      break;
    }
    case KernelParameter::Kind::ArrayShape:
    case KernelParameter::Kind::ArrayStride: {
      const ArgumentValue &value = args[a];
      int64_t extent = p.kind == KernelParameter::Kind::ArrayShape
                           ? value.shape[p.dim]
                           : value.strides[p.dim] / value.itemsize;
      kernel.setArgument(index, sizeof extent, &extent);
      break;
    }
    case KernelParameter::Kind::Scalar: {
      const Type *t = argTypes[a];
      size_t size = t->kind == TypeKind::Bool ? 1 : t->bits / 8;
      kernel.setArgument(index, size, &args[a].scalar[p.dim]);
      break;
    }
    }
    ++index;
  }

  // Dimension 0 of a Range is the slowest-varying: the backend's last.
  std::vector<size_t> &global = scratch.global, &local = scratch.local;
  global.assign(range.global, range.global + range.dims);
  std::reverse(global.begin(), global.end());
  local.clear();
  if (ndRange) {
    local.assign(range.local, range.local + range.dims);
    std::reverse(local.begin(), local.end());
  } else if (rangeGroup) {
    local.assign(range.dims, 1);
    local[0] = static_cast<size_t>(rangeGroup);
  }
  // Written host arrays used in place are made current by a map and unmap
  // queued right behind the kernel: the queue's one round trip covers them.
  std::unique_ptr<runtime::Event> launched =
      device->launch(kernel, global, local, wantEvent && !hostSync);
  if (hostSync) {
    for (size_t i = 0; i < n; ++i)
      if (wrapped[i] && written[i])
        device->enqueueHostSynchronization(*buffers[i]);
      else if (written[i] &&
               args[i].kind == ArgumentValue::Kind::DeviceArray &&
               (*args[i].buffer)->hostPointer())
        device->enqueueHostSynchronization(**args[i].buffer);
    if (debugRecord.host)
      device->enqueueHostSynchronization(*debugRecord.buffer);
    if (wantEvent)
      launched = device->enqueueMarker();
  }
  noteLaunchOn(device);
  event.device_ = device;
  event.handle_ = std::move(launched);
  if (debugRecord.buffer) {
    event.debugRecord_ = std::move(debugRecord);
    event.debugSites_ = entry->debugSites;
  }
  event.sequence_ = ++launchCount;
  size_t copies = 0, deviceArrays = 0;
  for (size_t i = 0; i < n; ++i) {
    copies += buffers[i] != nullptr;
    deviceArrays += args[i].kind == ArgumentValue::Kind::DeviceArray;
  }
  event.pending_.reserve(copies); // one allocation, not one per growth
  event.alive_.reserve(deviceArrays);
  for (size_t i = 0; i < n; ++i) {
    if (buffers[i])
      event.pending_.push_back(
          {std::move(buffers[i]),
           wrapped[i] || !scratch.unionBegin[i] ? args[i].data
                                                 : scratch.unionBegin[i],
           wrapped[i] != 0, written[i]});
    // Memory is never freed under a running kernel, even one whose
    // waiter was interrupted and went away.
    if (args[i].kind == ArgumentValue::Kind::DeviceArray)
      event.alive_.push_back(*args[i].buffer);
  }
  // The host holds views of this device's memory in place: each sees the
  // launch whole, as NumPy's eager writes (Device::hasHostViews). A wait
  // like any other: Ctrl-C stops it, and the memory outlives the kernel.
  if (device->hasHostViews())
    event.wait();
  return written;
}

void KernelCache::launch(const LaunchRange &range, const ArgumentValue *args,
                         size_t n, const std::shared_ptr<Device> &device) {
  Event event;
  submit(event, range, args, n, device, nullptr, 0, /*wantEvent=*/true);
  event.wait();
}

double KernelCache::bareEnqueueLoop(const std::vector<int64_t> &extents,
                                    int count) {
  SPIRJIT_INTERNAL_CHECK(lastEntry_, "launch the kernel once first");
  bool rebuilt = false;
  std::shared_ptr<runtime::Kernel> resident =
      lastEntry_->resident->acquire(rebuilt);
  runtime::Kernel &kernel = *resident;
  std::vector<size_t> global(extents.rbegin(), extents.rend());
  CallerLockReleased unlocked;
  return kernel.program()->device()->bareLaunchLoop(kernel, global, count);
}

} // namespace spirjit::launch
