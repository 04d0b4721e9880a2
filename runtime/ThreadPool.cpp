#include "runtime/ThreadPool.h"

#include <algorithm>
#include <atomic>

namespace spirjit::runtime {

/// One run(): workers and the caller take chunk numbers from `next` until
/// none is left; the last to finish one wakes the caller. Workers hold it
/// by shared_ptr, so one that wakes after the run has ended finds no
/// chunk left in it rather than a freed job.
struct ThreadPool::Job {
  const std::function<void(int64_t, int64_t)> *body;
  int64_t count, chunks;
  std::atomic<int64_t> next{0}, finished{0};
  std::mutex mutex;
  std::condition_variable done;
};

ThreadPool::ThreadPool(unsigned threads) : threads_(std::max(threads, 1u)) {}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread &worker : workers_)
    worker.join();
}

int64_t ThreadPool::chunkCount(int64_t count, int64_t grain, unsigned threads) {
  if (count <= 0)
    return 0;
  int64_t byGrain =
      (count + std::max<int64_t>(grain, 1) - 1) / std::max<int64_t>(grain, 1);
  // A few chunks a thread, taken in turn: a thread that starts late, or
  // whose core the host takes for a while, holds the launch up by one
  // small chunk rather than by a share of the whole. On the 2-vCPU VM,
  // traced chunk by chunk (2-D prange Jacobi 4096^2 float32), one thread
  // often started 1-3 ms late or shared the other's core, and with one
  // chunk a thread the sweep took 4-7 ms instead of 2.9.
  int64_t most = threads > 1 ? int64_t(threads) * chunksPerThread : 1;
  return std::max<int64_t>(1, std::min<int64_t>(byGrain, most));
}

void ThreadPool::chunkBounds(int64_t count, int64_t chunks, int64_t k,
                             int64_t &begin, int64_t &end) {
  // The first count % chunks chunks hold one unit more.
  int64_t base = count / chunks, extra = count % chunks;
  begin = k * base + std::min(k, extra);
  end = begin + base + (k < extra ? 1 : 0);
}

int64_t ThreadPool::chunkOf(int64_t count, int64_t chunks, int64_t begin) {
  int64_t base = count / chunks, extra = count % chunks;
  int64_t longer = extra * (base + 1); // units in the longer chunks
  return begin < longer ? begin / (base + 1)
                        : extra + (begin - longer) / base;
}

void ThreadPool::runChunks(Job &job) {
  for (;;) {
    int64_t k = job.next.fetch_add(1, std::memory_order_relaxed);
    if (k >= job.chunks)
      return;
    int64_t begin, end;
    chunkBounds(job.count, job.chunks, k, begin, end);
    (*job.body)(begin, end);
    if (job.finished.fetch_add(1, std::memory_order_acq_rel) + 1 ==
        job.chunks) {
      std::lock_guard<std::mutex> lock(job.mutex);
      job.done.notify_all();
    }
  }
}

void ThreadPool::work() {
  uint64_t seen = 0;
  for (;;) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_)
        return;
      seen = generation_;
      job = job_;
    }
    if (job)
      runChunks(*job);
  }
}

void ThreadPool::run(int64_t count, int64_t grain,
                     const std::function<void(int64_t, int64_t)> &body) {
  int64_t chunks = chunkCount(count, grain, threads_);
  if (chunks == 0)
    return;
  if (chunks == 1) { // no thread to wake
    body(0, count);
    return;
  }
  auto job = std::make_shared<Job>();
  job->body = &body;
  job->count = count;
  job->chunks = chunks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    while (workers_.size() + 1 < threads_)
      workers_.emplace_back([this] { work(); });
    job_ = job;
    ++generation_;
  }
  wake_.notify_all();
  runChunks(*job);
  std::unique_lock<std::mutex> lock(job->mutex);
  job->done.wait(lock, [&] {
    return job->finished.load(std::memory_order_acquire) == job->chunks;
  });
  std::lock_guard<std::mutex> poolLock(mutex_);
  if (job_ == job)
    job_ = nullptr; // `body` dies with the caller's frame
}

} // namespace spirjit::runtime
