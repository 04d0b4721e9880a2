// The native CPU device's threads (NativeCPU.h): one per hardware thread,
// the caller of run() among them, taking contiguous chunks of a launch's
// units in turn, a few chunks a thread.
//
// Contract: run() splits [0, count) into chunks (chunkCount, chunkBounds:
// contiguous, in order, sizes differing by at most one, none empty), runs
// `body` once per chunk, the calling thread taking chunks too, and returns
// when every chunk has run. One run() at a time (the device's queue is the
// only caller); workers start at the first run() that has more than one
// chunk, and wait on a condition variable between runs.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace spirjit::runtime {

class ThreadPool {
public:
  /// A pool of `threads` threads in all (at least 1), the caller counted.
  explicit ThreadPool(unsigned threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  unsigned threads() const { return threads_; }

  /// How many chunks run() makes of `count` units on `threads` threads when
  /// a chunk should hold at least `grain` units: chunksPerThread a thread
  /// (one in all on one thread), fewer where the units are too few (0 for
  /// no units).
  static int64_t chunkCount(int64_t count, int64_t grain, unsigned threads);
  static constexpr int64_t chunksPerThread = 4;
  /// Chunk `k` of `chunks` over [0, count): its [begin, end).
  static void chunkBounds(int64_t count, int64_t chunks, int64_t k,
                          int64_t &begin, int64_t &end);

  /// The number of the chunk of `chunks` over [0, count) that begins at
  /// unit `begin`.
  static int64_t chunkOf(int64_t count, int64_t chunks, int64_t begin);
  /// Runs body(begin, end) over every chunk of [0, count); returns when all
  /// have run.
  void run(int64_t count, int64_t grain,
           const std::function<void(int64_t, int64_t)> &body);

private:
  struct Job;
  void work();
  static void runChunks(Job &job);

  unsigned threads_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::shared_ptr<Job> job_; // the run in progress, under mutex_
  uint64_t generation_ = 0;  // counts runs, under mutex_
  bool stopping_ = false;
};

} // namespace spirjit::runtime
