// runtime/MemoryPool.h: which freed block a request gets back, and what
// goes back to the driver.
#include "runtime/MemoryPool.h"

#include <gtest/gtest.h>

using spirjit::runtime::MemoryPool;

namespace {
void *address(int k) { return reinterpret_cast<void *>(0x100000 * k); }
} // namespace

TEST(MemoryPool, RequestGetsTheSmallestBlockThatFits) {
  MemoryPool pool(1 << 30);
  EXPECT_TRUE(pool.give({address(1), 1 << 20}).empty());
  EXPECT_TRUE(pool.give({address(2), 4 << 20}).empty());
  EXPECT_TRUE(pool.give({address(3), 2 << 20}).empty());
  MemoryPool::Block block = pool.take(1500000);
  EXPECT_EQ(block.first, address(3));
  EXPECT_EQ(block.second, size_t(2) << 20);
  EXPECT_EQ(pool.cachedBytes(), size_t(5) << 20);
}

TEST(MemoryPool, BlocksMoreThanTwiceTheRequestStayKept) {
  MemoryPool pool(1 << 30);
  pool.give({address(1), 64 << 20});
  EXPECT_EQ(pool.take(1 << 20).first, nullptr); // would waste 63 MB
  EXPECT_EQ(pool.take(32 << 20).first, address(1));
  EXPECT_EQ(pool.take(32 << 20).first, nullptr); // taken: not twice
}

TEST(MemoryPool, PastTheLimitTheLargestGoBack) {
  MemoryPool pool(10 << 20);
  pool.give({address(1), 4 << 20});
  pool.give({address(2), 3 << 20});
  std::vector<MemoryPool::Block> freed = pool.give({address(3), 5 << 20});
  ASSERT_EQ(freed.size(), 1u);
  EXPECT_EQ(freed[0].first, address(3));
  EXPECT_EQ(pool.cachedBytes(), size_t(7) << 20);
  // A block larger than the whole limit is never kept.
  freed = pool.give({address(4), 11 << 20});
  ASSERT_EQ(freed.size(), 1u);
  EXPECT_EQ(freed[0].first, address(4));
}

TEST(MemoryPool, DrainHandsBackEverything) {
  MemoryPool pool(1 << 30);
  pool.give({address(1), 100});
  pool.give({address(2), 100});
  EXPECT_EQ(pool.drain().size(), 2u);
  EXPECT_EQ(pool.cachedBytes(), 0u);
  EXPECT_EQ(pool.take(100).first, nullptr);
}

TEST(MemoryPool, ObtainHandsTheKeptBlocksBackWhenTheDriverHasNone) {
  MemoryPool pool(1 << 30);
  pool.give({address(1), 8 << 20});
  std::vector<void *> released;
  int tries = 0;
  // The driver has room only once the pool has given its block back.
  MemoryPool::Block block = pool.obtain(
      100 << 20,
      [&](size_t) -> void * { return ++tries == 2 ? address(9) : nullptr; },
      [&](void *p) { released.push_back(p); });
  EXPECT_EQ(block.first, address(9));
  EXPECT_EQ(block.second, size_t(100) << 20);
  EXPECT_EQ(tries, 2);
  ASSERT_EQ(released.size(), 1u);
  EXPECT_EQ(released[0], address(1));
  // A kept block that fits is taken without asking the driver.
  pool.put({address(2), 4 << 20}, [&](void *p) { released.push_back(p); });
  EXPECT_EQ(pool.obtain(3 << 20, [&](size_t) -> void * { return nullptr; },
                        [&](void *p) { released.push_back(p); })
                .first,
            address(2));
}
