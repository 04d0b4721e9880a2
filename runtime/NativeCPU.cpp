// The native CPU device (NativeCPU.h).
#include "runtime/NativeCPU.h"

#include "runtime/NativeABI.h"
#include "runtime/ThreadPool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <functional>
#include <mutex>
#include <thread>
#include <sys/mman.h>
#include <unistd.h>

namespace spirjit::runtime {

namespace {

constexpr size_t alignment = 64; // a cache line, and AVX-512's width
constexpr size_t page = 4096;
constexpr size_t arenaPage = page; // local memory: a page per chunk
constexpr size_t hugePagesFrom = size_t(4) << 20; // NumPy's threshold too

/// Asks Linux for transparent huge pages for the whole pages of
/// [memory, memory + bytes).
void adviseHugePages(void *memory, size_t bytes) {
  uintptr_t begin = reinterpret_cast<uintptr_t>(memory);
  uintptr_t first = (begin + page - 1) / page * page;
  uintptr_t last = (begin + bytes) / page * page;
  if (last > first)
    madvise(reinterpret_cast<void *>(first), last - first, MADV_HUGEPAGE);
}

/// The bytes of buffers from which a launch uses streaming stores
/// (compiler/NativeStreaming.h): SPIRJIT_NATIVE_STREAMING_BYTES where it
/// is set (0: every launch), else the host's largest cache (the L3 of a
/// CPU that has one) as Linux reports it, 32 MB where it reports none.
size_t streamingBytes() {
  static const size_t bytes = [] {
    const char *set = std::getenv("SPIRJIT_NATIVE_STREAMING_BYTES");
    if (set && *set)
      return static_cast<size_t>(std::strtoull(set, nullptr, 10));
    size_t largest = 0;
    for (int index = 0; index < 8; ++index) {
      std::ifstream file("/sys/devices/system/cpu/cpu0/cache/index" +
                         std::to_string(index) + "/size");
      size_t size = 0;
      char unit = 0;
      if (!(file >> size))
        continue;
      file >> unit;
      size *= unit == 'K' ? 1024 : unit == 'M' ? 1024 * 1024 : 1;
      largest = std::max(largest, size);
    }
    return largest >= (size_t(1) << 20) ? largest : size_t(32) << 20;
  }();
  return bytes;
}

NativeLinker &linker() {
  static NativeLinker linker;
  return linker;
}

DeviceError unsupported(const std::string &message) {
  return DeviceError("native", -1, "UNSUPPORTED", message);
}

/// Host memory: allocated and owned, or the caller's used in place.
class NativeBuffer final : public Buffer {
public:
  NativeBuffer(std::shared_ptr<Device> device, size_t size, void *memory,
               bool owned)
      : Buffer(std::move(device), size, owned ? nullptr : memory, memory, true),
        owned_(owned) {}
  ~NativeBuffer() override {
    if (owned_)
      std::free(svm());
  }

private:
  bool owned_;
};

/// The object file: linked when a kernel of it is created.
class NativeProgram final : public Program {
public:
  NativeProgram(std::shared_ptr<Device> device, std::vector<char> object)
      : Program(std::move(device)), object(std::move(object)) {}
  const std::vector<char> object;
};

class NativeKernel final : public Kernel {
public:
  NativeKernel(std::shared_ptr<Program> program, std::shared_ptr<void> code)
      : Kernel(std::move(program)), code(std::move(code)) {}
  /// The chunk function, linked; it stays while this lives.
  const std::shared_ptr<void> code;
  /// One 8-byte slot per parameter (NativeABI.h).
  std::vector<uint64_t> slots;
  /// Per slot, the bytes of local memory it points at (0: not local).
  std::vector<size_t> localBytes;
  /// Per slot, the bytes of the buffer from where it points (0: not one).
  std::vector<size_t> bufferBytes;

protected:
  void bindValue(unsigned index, size_t size, const void *value) override {
    slot(index) = 0;
    localBytes[index] = 0;
    bufferBytes[index] = 0;
    if (!value) { // local memory: each thread points the slot at its own
      localBytes[index] = size;
      return;
    }
    if (size > sizeof(uint64_t))
      throw unsupported("the native CPU device takes no argument of " +
                        std::to_string(size) + " bytes");
    uint64_t slot = 0;
    std::memcpy(&slot, value, size);
    this->slot(index) = slot;
  }
  void bindBuffer(unsigned index, const Buffer &buffer,
                  size_t offset) override {
    slot(index) = reinterpret_cast<uintptr_t>(buffer.svm()) + offset;
    localBytes[index] = 0;
    bufferBytes[index] = buffer.size() > offset ? buffer.size() - offset : 0;
  }

private:
  uint64_t &slot(unsigned index) {
    if (slots.size() <= index) {
      slots.resize(index + 1);
      localBytes.resize(index + 1);
      bufferBytes.resize(index + 1);
    }
    return slots[index];
  }
};

/// Spins until `ready()` or `spinFor` has passed; answers ready(). Each
/// side of the queue's hand-off spins this long before it sleeps on its
/// condition variable: a launch of a tiny kernel then costs no thread
/// wake-up when launches come one after another (a futex wake and a
/// context switch each way, some microseconds), and an idle queue costs
/// a few microseconds of CPU per command at most.
template <typename Ready> bool spinUntil(Ready ready) {
  constexpr auto spinFor = std::chrono::microseconds(20);
  auto start = std::chrono::steady_clock::now();
  for (int round = 1;; ++round) {
    if (ready())
      return true;
    if (round % 64 == 0 && std::chrono::steady_clock::now() - start > spinFor)
      return ready();
    std::this_thread::yield();
  }
}

/// The in-order queue: a thread of its own runs the commands one after
/// another, each launch split over the pool (the queue's thread takes a
/// chunk too). Created at the first command; never destroyed (its threads
/// would otherwise have to be joined while the process exits), and made
/// afresh in a forked child, which has none of the parent's threads.
class Executor {
public:
  Executor()
      : pool_(std::max(1u, std::thread::hardware_concurrency())),
        generation_(forkGeneration()) {
    std::thread([this] { serve(); }).detach();
  }
  int generation() const { return generation_; }
  unsigned threads() const { return pool_.threads(); }

  /// Queues `command`; returns its number.
  uint64_t enqueue(std::function<void(ThreadPool &)> command) {
    std::lock_guard<std::mutex> lock(mutex_);
    commands_.push_back(std::move(command));
    uint64_t number = enqueued_.load(std::memory_order_relaxed) + 1;
    enqueued_.store(number, std::memory_order_release);
    wake_.notify_all();
    return number;
  }
  /// The number of the last command queued.
  uint64_t last() { return enqueued_.load(std::memory_order_acquire); }
  bool completed(uint64_t number) {
    return completed_.load(std::memory_order_acquire) >= number;
  }
  bool waitFor(uint64_t number, std::chrono::nanoseconds limit) {
    if (spinUntil([&] { return completed(number); }))
      return true;
    std::unique_lock<std::mutex> lock(mutex_);
    return done_.wait_for(lock, limit, [&] { return completed(number); });
  }
  void wait(uint64_t number) {
    if (spinUntil([&] { return completed(number); }))
      return;
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return completed(number); });
  }

private:
  void serve() {
    for (uint64_t taken = 0;; ++taken) {
      std::function<void(ThreadPool &)> command;
      spinUntil([&] {
        return enqueued_.load(std::memory_order_acquire) > taken;
      });
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return !commands_.empty(); });
        command = std::move(commands_.front());
        commands_.pop_front();
      }
      command(pool_);
      {
        // Under the lock: a waiter that found the command unfinished is
        // asleep (or about to check again) before the notification.
        std::lock_guard<std::mutex> lock(mutex_);
        completed_.store(taken + 1, std::memory_order_release);
      }
      done_.notify_all();
    }
  }

  ThreadPool pool_;
  int generation_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::deque<std::function<void(ThreadPool &)>> commands_;
  std::atomic<uint64_t> enqueued_{0}, completed_{0};
};

class NativeEvent final : public Event {
public:
  NativeEvent(Executor *executor, uint64_t number)
      : executor_(executor), number_(number) {}
  bool complete() override {
    return !executor_ || executor_->completed(number_);
  }
  void wait() override {
    if (executor_)
      executor_->wait(number_);
  }
  bool waitFor(std::chrono::nanoseconds limit) override {
    return !executor_ || executor_->waitFor(number_, limit);
  }

private:
  Executor *executor_; // null: nothing was queued
  uint64_t number_;
};

/// A line of /proc/cpuinfo ("model name", "flags"), or "" without one.
std::string cpuinfo(const std::string &key) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.compare(0, key.size(), key) == 0) {
      size_t colon = line.find(':');
      if (colon == std::string::npos)
        continue;
      size_t start = line.find_first_not_of(' ', colon + 1);
      return start == std::string::npos ? "" : line.substr(start);
    }
  return "";
}

DeviceInfo nativeInfo() {
  DeviceInfo info;
  std::string model = cpuinfo("model name");
  info.name = "spirjit native CPU" + (model.empty() ? "" : " (" + model + ")");
  info.vendor = cpuinfo("vendor_id");
  info.platform = "spirjit native";
  // Machine code for one CPU may not run on another: the disk cache's
  // key holds the device's version, so it names the CPU and its features.
  info.version = "host machine code for " +
                 (model.empty() ? "this CPU" : model) + ", features " +
                 std::to_string(std::hash<std::string>()(cpuinfo("flags")));
  info.driverVersion = "spirjit";
  info.platformVersion = "spirjit native 1";
  info.backend = "native";
  info.deviceType = "cpu";
  info.maxWorkGroupSize = 8192;
  // Local memory is a heap arena per thread, so any size would run; the
  // limit is Intel's CPU runtime's (a group's arena stays in L2), and a
  // launch beyond it is refused as on every other device. 0 ("not said")
  // gave programs that size their LocalAccessors by local_mem_size one
  // element, and their writes past it broke the heap.
  info.localMemSize = 256 * 1024;
  info.vectorizesInnermostItemLoopsOnly = true;
  info.compilesPerWorkGroup = true;
  info.hasFp64 = info.hasAtomic64 = info.hasFloatAtomics = true;
  info.hostUnifiedMemory = info.hasSvm = info.hasFineGrainSvm = true;
  info.addressBits = 64;
  info.imageFormats = {ImageFormat::HostObject};
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0)
    info.globalMemSize = static_cast<uint64_t>(pages) * page;
  info.memBaseAddrAlign = alignment;
  info.computeUnits = std::max(1u, std::thread::hardware_concurrency());
  return info;
}

class NativeDevice final : public Device {
public:
  /// `onCallingThread`: each launch runs to its end on the thread that
  /// makes it (hostDevice()); else on the queue's thread and the pool.
  explicit NativeDevice(bool onCallingThread = false)
      : Device(infoFor(onCallingThread)), onCallingThread_(onCallingThread) {}

  std::shared_ptr<Buffer> allocate(size_t size, const void *host) override {
    checkAllocationSize(size);
    size_t bytes =
        (std::max<size_t>(size, 1) + alignment - 1) / alignment * alignment;
    void *memory = std::aligned_alloc(alignment, bytes);
    if (!memory)
      throw DeviceError("native", -1, "OUT_OF_HOST_MEMORY",
                        "cannot allocate " + std::to_string(size) +
                            " bytes of host memory");
    // Huge pages for large arrays, as NumPy asks for its own: a sweep over
    // 4 KB pages walks page tables that whatever ran in between pushed out
    // of the caches (the 2-D prange Jacobi of 4096^2 float32 timed in turn
    // with numba's: 4.7-5.6 ms on 4 KB pages, 4.2-4.5 on huge ones; AMD
    // EPYC VM, 2026-11-27). Advice only: where the kernel has none to
    // give, the memory is as before.
    if (bytes >= hugePagesFrom)
      adviseHugePages(memory, bytes);
    auto buffer =
        std::make_shared<NativeBuffer>(shared_from_this(), size, memory, true);
    if (host && size)
      std::memcpy(memory, host, size);
    return buffer;
  }
  std::shared_ptr<Buffer> wrapHostMemory(void *host, size_t size) override {
    if (size == 0)
      return nullptr;
    return std::make_shared<NativeBuffer>(shared_from_this(), size, host,
                                          false);
  }
  void read(const Buffer &buffer, void *host, size_t size,
            size_t offset) override {
    finish();
    if (size)
      std::memcpy(host, static_cast<char *>(buffer.svm()) + offset, size);
  }
  void write(const Buffer &buffer, const void *host, size_t size,
             size_t offset) override {
    finish();
    if (size)
      std::memcpy(static_cast<char *>(buffer.svm()) + offset, host, size);
  }
  std::unique_ptr<Event> enqueueMarker() override {
    Executor *executor = current();
    return std::make_unique<NativeEvent>(executor,
                                         executor ? executor->last() : 0);
  }
  NativeHandles nativeHandles() override { return {}; }

  std::shared_ptr<Program>
  buildFromDeviceBinary(const std::vector<char> &bits) override {
    return std::make_shared<NativeProgram>(shared_from_this(), bits);
  }
  std::vector<char> programBinary(const Program &program) override {
    return static_cast<const NativeProgram &>(program).object;
  }
  std::shared_ptr<Kernel> createKernel(const std::shared_ptr<Program> &program,
                                       const std::string &name) override {
    if (!linker())
      throw unsupported("the native CPU device has no linker (the launcher "
                        "sets it: a bug)");
    const auto &object = static_cast<const NativeProgram &>(*program).object;
    std::shared_ptr<void> code = linker()(object, nativeChunkName(name));
    if (!code)
      throw DeviceError("native", -1, "INVALID_KERNEL_NAME",
                        "the program defines no kernel " + name);
    return std::make_shared<NativeKernel>(program, std::move(code));
  }

  std::unique_ptr<Event> launch(Kernel &kernel,
                                const std::vector<size_t> &global,
                                const std::vector<size_t> &local,
                                bool wantEvent) override {
    auto &native = static_cast<NativeKernel &>(kernel);
    // What the command needs is copied: the kernel may be bound again for
    // the next launch before this one runs.
    auto work = std::make_shared<Launch>();
    work->code = native.code;
    work->slots = native.slots;
    work->localBytes = native.localBytes;
    work->slots.push_back(0); // never empty: data() is a valid pointer
    work->localBytes.push_back(0);
    bool groups = !local.empty();
    for (int d = 0; d < 3; ++d) {
      size_t extent = d < static_cast<int>(global.size()) ? global[d] : 1;
      size_t group =
          groups && d < static_cast<int>(local.size()) ? local[d] : 1;
      work->sizes[NativeSizes::global + d] = static_cast<int64_t>(extent);
      work->sizes[NativeSizes::local + d] = static_cast<int64_t>(group);
      work->units *= static_cast<int64_t>(extent / group);
    }
    // Streaming stores (compiler/NativeStreaming.h) when the launch's
    // buffers do not fit the last-level cache: its results would not stay
    // there anyway, and a plain store reads each line before writing it.
    size_t footprint = 0;
    for (size_t bytes : native.bufferBytes)
      footprint += bytes;
    work->sizes[NativeSizes::streaming] = footprint > streamingBytes();
    // A work-item of a Range is little work: a chunk is worth a thread's
    // wake-up only from some hundreds of them. A work-group is a loop.
    int64_t grain = groups ? 1 : 256;
    // Work-group local memory: one arena per chunk, reused by each group
    // of the chunk (they run one after another); a copy of the slots per
    // chunk points at it. Allocated here, where a failure can be raised.
    // Each chunk's arena starts on a page of its own: with arenas of 2 KB
    // side by side, the 16 x 16 tiled matmul of 1024^2 float32 took 35 ms
    // instead of 16 in about half of the processes (bench_kernel_api.py,
    // AMD EPYC VM, 2026-11-27), the threads' chunks sharing pages.
    size_t arena = 0;
    for (size_t bytes : work->localBytes)
      arena += (bytes + alignment - 1) / alignment * alignment;
    arena = (arena + arenaPage - 1) / arenaPage * arenaPage;
    int64_t chunks =
        onCallingThread_
            ? 1
            : ThreadPool::chunkCount(work->units, grain, executor().threads());
    if (arena && chunks) {
      work->local.reset(std::aligned_alloc(arenaPage, arena * chunks));
      if (!work->local)
        throw DeviceError("native", -1, "OUT_OF_HOST_MEMORY",
                          "cannot allocate " + std::to_string(arena * chunks) +
                              " bytes of work-group local memory");
    }
    if (onCallingThread_) { // one chunk, here and now
      runChunk(*work, arena, 0, 0, work->units);
      return wantEvent ? std::make_unique<NativeEvent>(nullptr, 0) : nullptr;
    }
    uint64_t number =
        executor().enqueue([work, grain, arena, chunks](ThreadPool &pool) {
          pool.run(work->units, grain, [&](int64_t begin, int64_t end) {
            // The chunk's number, by its first unit: run() makes exactly
            // these chunks (ThreadPool.h's contract).
            int64_t k =
                arena ? ThreadPool::chunkOf(work->units, chunks, begin) : 0;
            runChunk(*work, arena, k, begin, end);
          });
        });
    if (!wantEvent)
      return nullptr;
    return std::make_unique<NativeEvent>(current(), number);
  }
  void finish() override {
    if (Executor *executor = current())
      executor->wait(executor->last());
  }
  double bareLaunchLoop(Kernel &kernel, const std::vector<size_t> &global,
                        int count) override {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < count; ++i)
      launch(kernel, global, {}, false);
    finish();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  }

protected:
  std::shared_ptr<Program> buildFromSPIRV(const std::vector<char> &) override {
    throw unsupported(info().name + " takes no SPIR-V");
  }
  std::shared_ptr<Program>
  buildFromHostObject(const std::vector<char> &object) override {
    return std::make_shared<NativeProgram>(shared_from_this(), object);
  }

private:
  /// A launch as its command holds it.
  struct Launch {
    std::shared_ptr<void> code;
    std::vector<uint64_t> slots;
    std::vector<size_t> localBytes;
    int64_t sizes[NativeSizes::count];
    int64_t units = 1;
    std::unique_ptr<void, void (*)(void *)> local{nullptr, std::free};
  };

  /// Runs units [begin, end) of `work`, chunk `k` of its local memory
  /// (`arena` bytes a chunk; 0: none).
  static void runChunk(const Launch &work, size_t arena, int64_t k,
                       int64_t begin, int64_t end) {
    auto chunk = reinterpret_cast<NativeChunkFunction>(work.code.get());
    if (!arena) {
      chunk(work.slots.data(), begin, end, work.sizes);
      return;
    }
    auto *local = static_cast<char *>(work.local.get()) + k * arena;
    std::vector<uint64_t> slots = work.slots;
    for (size_t i = 0; i < slots.size(); ++i)
      if (size_t bytes = work.localBytes[i]) {
        slots[i] = reinterpret_cast<uintptr_t>(local);
        local += (bytes + alignment - 1) / alignment * alignment;
      }
    chunk(slots.data(), begin, end, work.sizes);
  }

  static DeviceInfo infoFor(bool onCallingThread) {
    DeviceInfo info = nativeInfo();
    if (onCallingThread)
      info.name += ", on the calling thread";
    return info;
  }

  const bool onCallingThread_;
  /// The queue, made at the first command (again in a forked child).
  Executor &executor() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!executor_ || executor_->generation() != forkGeneration())
      executor_ = new Executor; // the old one's threads are not in a child
    return *executor_;
  }
  /// The queue, or null when nothing was queued in this process.
  Executor *current() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (executor_ && executor_->generation() != forkGeneration())
      return nullptr;
    return executor_;
  }

  std::mutex mutex_;
  Executor *executor_ = nullptr;
};

} // namespace

void setNativeLinker(NativeLinker link) { linker() = std::move(link); }

std::shared_ptr<Device> hostDevice() {
  static const std::shared_ptr<Device> device =
      std::make_shared<NativeDevice>(/*onCallingThread=*/true);
  return device;
}

std::vector<std::shared_ptr<Device>> nativeDevices() {
  const char *enabled = std::getenv("SPIRJIT_NATIVE");
  if (!enabled || std::string(enabled) != "1")
    return {};
  return {std::make_shared<NativeDevice>()};
}

} // namespace spirjit::runtime
