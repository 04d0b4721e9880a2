// Freed device allocations kept for reuse.
//
// Why: a fresh allocation costs its pages' first-touch faults when a kernel
// first writes it (Intel's CPU runtime maps SVM lazily: a 2 MB array
// expression result cost 1.7 ms of faults beside a 0.13 ms kernel, and
// `a + b` on 2^24 float32 DeviceArrays 36 ms against NumPy's 16). Array
// expressions, jit functions and reductions allocate on every call, so the
// same sizes come back again and again; reusing a freed block skips both
// the allocation and the faults.
//
// What it keeps: blocks given back, up to `limit` bytes in all (past it,
// the largest go back to the driver). A request takes the smallest kept
// block of at least its size and at most twice it. Blocks are not zeroed:
// callers that promise contents (zeros, full) write them, as they must
// with a fresh allocation anyway.
//
// SPIRJIT_MEMORY_POOL=BYTES sets the limit (0 turns reuse off, to see what
// a program really holds, or to compare).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

namespace spirjit::runtime {

/// The limit for a device of `deviceBytes`: SPIRJIT_MEMORY_POOL when set,
/// else a quarter of the device's memory, 1 GiB at most.
inline size_t memoryPoolLimit(uint64_t deviceBytes) {
  if (const char *set = std::getenv("SPIRJIT_MEMORY_POOL"); set && *set)
    return static_cast<size_t>(std::strtoull(set, nullptr, 10));
  return static_cast<size_t>(
      std::min<uint64_t>(deviceBytes / 4, uint64_t(1) << 30));
}

class MemoryPool {
public:
  using Block = std::pair<void *, size_t>; // address, capacity in bytes

  explicit MemoryPool(size_t limit) : limit_(limit) {}

  /// A kept block for `size` bytes, taken out of the pool, or {nullptr, 0}.
  Block take(size_t size) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = blocks_.lower_bound(size);
    if (it == blocks_.end() || it->first > 2 * size + 4096)
      return {nullptr, 0};
    Block block{it->second, it->first};
    cached_ -= it->first;
    blocks_.erase(it);
    return block;
  }

  /// Keeps `block`; returns the blocks to free now (the largest first,
  /// while more than the limit is kept; `block` itself when it alone is
  /// more).
  std::vector<Block> give(Block block) {
    std::vector<Block> freeNow;
    std::lock_guard<std::mutex> lock(mutex_);
    if (block.second > limit_) {
      freeNow.push_back(block);
      return freeNow;
    }
    blocks_.emplace(block.second, block.first);
    cached_ += block.second;
    while (cached_ > limit_) {
      auto largest = std::prev(blocks_.end());
      freeNow.push_back({largest->second, largest->first});
      cached_ -= largest->first;
      blocks_.erase(largest);
    }
    return freeNow;
  }

  /// A block for `bytes`: a kept one, else `allocate(bytes)` (an address,
  /// or nullptr when the driver has none); when that fails, every kept
  /// block goes to `release` first and it is tried once more. {nullptr, 0}
  /// when it still fails.
  template <class Allocate, class Release>
  Block obtain(size_t bytes, Allocate allocate, Release release) {
    Block block = take(bytes);
    if (block.first)
      return block;
    void *address = allocate(bytes);
    if (!address) { // what the pool keeps may be what is missing
      for (Block kept : drain())
        release(kept.first);
      address = allocate(bytes);
    }
    return {address, address ? bytes : 0};
  }

  /// Keeps `block`, handing what no longer fits to `release`.
  template <class Release> void put(Block block, Release release) {
    for (Block over : give(block))
      release(over.first);
  }

  /// Every kept block, for the caller to free (out of memory, or closing).
  std::vector<Block> drain() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<Block> all;
    for (auto &[capacity, address] : blocks_)
      all.push_back({address, capacity});
    blocks_.clear();
    cached_ = 0;
    return all;
  }

  size_t cachedBytes() {
    std::lock_guard<std::mutex> lock(mutex_);
    return cached_;
  }

private:
  std::mutex mutex_;
  std::multimap<size_t, void *> blocks_; // capacity -> address
  size_t cached_ = 0;
  size_t limit_;
};

} // namespace spirjit::runtime
