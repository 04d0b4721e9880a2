// The native CPU device's thread pool (runtime/ThreadPool.h): how a
// launch's units become chunks, and that run() runs each unit once.
#include "runtime/ThreadPool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

using spirjit::runtime::ThreadPool;

TEST(ThreadPool, FourChunksPerThreadUnlessTooFewUnits) {
  EXPECT_EQ(ThreadPool::chunkCount(0, 1, 4), 0);
  EXPECT_EQ(ThreadPool::chunkCount(100, 1, 4), 16);
  EXPECT_EQ(ThreadPool::chunkCount(10, 1, 4), 10);
  EXPECT_EQ(ThreadPool::chunkCount(3, 1, 4), 3);
  EXPECT_EQ(ThreadPool::chunkCount(1, 1, 4), 1);
  // At least `grain` units a chunk where the units are few.
  EXPECT_EQ(ThreadPool::chunkCount(1000, 256, 16), 4);
  EXPECT_EQ(ThreadPool::chunkCount(100, 256, 16), 1);
  EXPECT_EQ(ThreadPool::chunkCount(1 << 20, 256, 16), 64);
  // One thread: one chunk, nothing to balance.
  EXPECT_EQ(ThreadPool::chunkCount(1 << 20, 256, 1), 1);
  EXPECT_EQ(ThreadPool::chunkCount(5, 0, 1), 1);
}

TEST(ThreadPool, ChunksAreContiguousBalancedNotEmptyAndFoundByTheirStart) {
  for (int64_t count : {1, 2, 7, 16, 17, 1000, 100003})
    for (int64_t chunks = 1; chunks <= std::min<int64_t>(count, 19); ++chunks) {
      int64_t expected = 0, smallest = count, largest = 0;
      for (int64_t k = 0; k < chunks; ++k) {
        int64_t begin, end;
        ThreadPool::chunkBounds(count, chunks, k, begin, end);
        EXPECT_EQ(begin, expected) << count << " in " << chunks;
        // Local-memory arenas are found by a chunk's first unit.
        EXPECT_EQ(ThreadPool::chunkOf(count, chunks, begin), k)
            << count << " in " << chunks;
        EXPECT_GT(end, begin) << count << " in " << chunks;
        smallest = std::min(smallest, end - begin);
        largest = std::max(largest, end - begin);
        expected = end;
      }
      EXPECT_EQ(expected, count);
      EXPECT_LE(largest - smallest, 1);
    }
}

TEST(ThreadPool, RunsEveryUnitOnceRunAfterRun) {
  ThreadPool pool(4);
  for (int64_t count : {0, 1, 3, 255, 1000, 4099, 100000}) {
    std::vector<std::atomic<int>> seen(count);
    std::atomic<int> chunks{0};
    pool.run(count, 1, [&](int64_t begin, int64_t end) {
      ++chunks;
      for (int64_t i = begin; i < end; ++i)
        ++seen[i];
    });
    EXPECT_EQ(chunks.load(), ThreadPool::chunkCount(count, 1, 4));
    for (int64_t i = 0; i < count; ++i)
      ASSERT_EQ(seen[i].load(), 1) << "unit " << i << " of " << count;
  }
}

TEST(ThreadPool, OneChunkRunsOnTheCaller) {
  ThreadPool pool(4);
  std::thread::id ran;
  pool.run(100, 256,
           [&](int64_t, int64_t) { ran = std::this_thread::get_id(); });
  EXPECT_EQ(ran, std::this_thread::get_id());
}

TEST(ThreadPool, ChunksRunOnSeveralThreads) {
  // Each chunk waits until every chunk has started: only threads of their
  // own can get there (the caller alone would wait forever).
  ThreadPool pool(3);
  std::atomic<int> started{0};
  pool.run(3, 1, [&](int64_t, int64_t) {
    ++started;
    while (started.load() < 3)
      std::this_thread::yield();
  });
  EXPECT_EQ(started.load(), 3);
}
