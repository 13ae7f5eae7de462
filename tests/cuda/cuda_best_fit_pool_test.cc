// The default allocator's pool, over fake chunk addresses (no GPU): best fit,
// alignment, merging of freed neighbours, the limit, chunk growth, refusals,
// and a randomized run checked against a model of the live ranges.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <thread>

#include "runtime/best_fit_pool.hpp"

namespace berth::cuda {
namespace {

using ::testing::HasSubstr;

// Chunks at made-up, well separated addresses; records what was taken.
struct FakeDevice {
  uintptr_t next = uintptr_t{1} << 40;
  std::map<uintptr_t, uint64_t> chunks;
  int64_t fail_after = -1;  // fail the take once this many chunks exist

  BestFitPool::ChunkSource Source() {
    return {[this](uint64_t bytes) -> Result<uintptr_t> {
              if (fail_after >= 0 && static_cast<int64_t>(chunks.size()) >= fail_after) {
                return ResourceExhaustedError("fake device: no more chunks");
              }
              const uintptr_t address = next;
              next += (bytes + (uint64_t{1} << 30)) / (uint64_t{1} << 30) * (uint64_t{1} << 30) +
                      (uint64_t{1} << 30);
              chunks[address] = bytes;
              return address;
            },
            [this](uintptr_t address, uint64_t bytes) {
              EXPECT_EQ(chunks.at(address), bytes);
              chunks.erase(address);
            }};
  }
};

constexpr uint64_t kMiB = uint64_t{1} << 20;

TEST(CudaBestFitPoolTest, SizesRoundToTheAlignmentAndZeroBytesGetAnAddress) {
  FakeDevice device;
  BestFitPool pool(device.Source(), 512 * kMiB, "pool");
  Result<uintptr_t> a = pool.Allocate(1);
  Result<uintptr_t> b = pool.Allocate(0);
  Result<uintptr_t> c = pool.Allocate(257);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(*a % BestFitPool::kAlignment, 0u);
  EXPECT_EQ(*b - *a, 256u);
  EXPECT_EQ(*c - *b, 256u);
  EXPECT_EQ(pool.stats().in_use, 256u + 256u + 512u);
  EXPECT_EQ(pool.stats().reserved, BestFitPool::kMinChunk);
}

TEST(CudaBestFitPoolTest, TheSmallestFreeRangeThatFitsIsUsed) {
  FakeDevice device;
  BestFitPool pool(device.Source(), 512 * kMiB, "pool");
  std::vector<uintptr_t> blocks;
  for (uint64_t size : {4096, 256, 1024, 256, 8192, 256}) blocks.push_back(*pool.Allocate(size));
  ASSERT_TRUE(pool.Free(blocks[0]).ok());  // 4096 free
  ASSERT_TRUE(pool.Free(blocks[2]).ok());  // 1024 free
  ASSERT_TRUE(pool.Free(blocks[4]).ok());  // 8192 free
  EXPECT_EQ(*pool.Allocate(1000), blocks[2]);
  EXPECT_EQ(*pool.Allocate(3000), blocks[0]);
  EXPECT_EQ(*pool.Allocate(8192), blocks[4]);
}

TEST(CudaBestFitPoolTest, FreedNeighboursMergeIntoOneRange) {
  FakeDevice device;
  BestFitPool pool(device.Source(), 512 * kMiB, "pool");
  ASSERT_TRUE(pool.Preallocate().ok());
  const uint64_t quarter = pool.limit() / 4;
  std::vector<uintptr_t> blocks;
  for (int i = 0; i < 4; ++i) blocks.push_back(*pool.Allocate(quarter));
  EXPECT_EQ(pool.Allocate(1).status().code(), StatusCode::kResourceExhausted);
  for (int i : {1, 3, 2, 0}) ASSERT_TRUE(pool.Free(blocks[i]).ok());  // merges both ways
  Result<uintptr_t> whole = pool.Allocate(pool.limit());
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_EQ(*whole, blocks[0]);
}

TEST(CudaBestFitPoolTest, PreallocateTakesTheWholeLimitOnce) {
  FakeDevice device;
  {
    BestFitPool pool(device.Source(), 300 * kMiB + 100, "pool");
    ASSERT_TRUE(pool.Preallocate().ok());
    EXPECT_EQ(device.chunks.size(), 1u);
    EXPECT_EQ(device.chunks.begin()->second, 300 * kMiB);  // aligned down
    ASSERT_TRUE(pool.Allocate(200 * kMiB).ok());
    EXPECT_EQ(device.chunks.size(), 1u);
  }
  EXPECT_TRUE(device.chunks.empty());  // given back by the destructor
}

TEST(CudaBestFitPoolTest, ChunksGrowUpToTheLimitThenOutOfMemoryNamesTheBytes) {
  FakeDevice device;
  BestFitPool pool(device.Source(), 100 * kMiB, "cuda device 0");
  ASSERT_TRUE(pool.Allocate(10 * kMiB).ok());  // one chunk of 64 MiB
  ASSERT_TRUE(pool.Allocate(50 * kMiB).ok());  // fits the rest of it
  ASSERT_TRUE(pool.Allocate(30 * kMiB).ok());  // a second chunk: 36 MiB left under the limit
  EXPECT_EQ(device.chunks.size(), 2u);
  EXPECT_EQ(pool.stats().reserved, 100 * kMiB);
  Status status = pool.Allocate(20 * kMiB).status();
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted);
  EXPECT_THAT(status.message(), HasSubstr("cuda device 0: out of memory: " +
                                          std::to_string(20 * kMiB) + " bytes asked"));
  EXPECT_THAT(status.message(),
              HasSubstr("the largest free range " + std::to_string(6 * kMiB) + " bytes"));
  Status too_big = pool.Allocate(200 * kMiB).status();
  EXPECT_THAT(too_big.message(), HasSubstr("more than the limit"));
}

TEST(CudaBestFitPoolTest, RangesOfTwoChunksNeverMerge) {
  FakeDevice device;
  BestFitPool pool(device.Source(), 200 * kMiB, "pool");
  uintptr_t first = *pool.Allocate(BestFitPool::kMinChunk);
  uintptr_t second = *pool.Allocate(BestFitPool::kMinChunk);
  ASSERT_TRUE(pool.Free(first).ok());
  ASSERT_TRUE(pool.Free(second).ok());
  // Two free chunks of 64 MiB, not one of 128: a 100 MiB request takes a
  // third chunk (72 MiB are left under the limit, not enough).
  EXPECT_EQ(pool.Allocate(100 * kMiB).status().code(), StatusCode::kResourceExhausted);
}

TEST(CudaBestFitPoolTest, AFailingDeviceAndForeignAddressesAreErrors) {
  FakeDevice device;
  device.fail_after = 0;
  BestFitPool pool(device.Source(), 512 * kMiB, "pool");
  Status status = pool.Allocate(10).status();
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted);
  EXPECT_THAT(status.message(), HasSubstr("fake device"));
  device.fail_after = -1;
  uintptr_t a = *pool.Allocate(10);
  EXPECT_EQ(pool.Free(a + 256).code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(pool.Free(a).ok());
  EXPECT_EQ(pool.Free(a).code(), StatusCode::kInvalidArgument);  // twice
}

TEST(CudaBestFitPoolTest, RandomAllocationsNeverOverlapAndAllMemoryComesBack) {
  FakeDevice device;
  BestFitPool pool(device.Source(), 256 * kMiB, "pool");
  std::mt19937_64 rng(20261207);
  std::map<uintptr_t, uint64_t> live;  // address -> requested bytes
  for (int step = 0; step < 20000; ++step) {
    if (!live.empty() && rng() % 2 == 0) {
      auto it = live.begin();
      std::advance(it, static_cast<long>(rng() % live.size()));
      ASSERT_TRUE(pool.Free(it->first).ok());
      live.erase(it);
      continue;
    }
    const uint64_t bytes = rng() % 4 == 0 ? rng() % (4 * kMiB) : rng() % 4096;
    Result<uintptr_t> address = pool.Allocate(bytes);
    if (!address.ok()) {
      ASSERT_EQ(address.status().code(), StatusCode::kResourceExhausted);
      continue;
    }
    ASSERT_EQ(*address % BestFitPool::kAlignment, 0u);
    auto next = live.lower_bound(*address);
    if (next != live.end()) {
      ASSERT_GE(next->first, *address + std::max<uint64_t>(bytes, 1));
    }
    if (next != live.begin()) {
      auto previous = std::prev(next);
      ASSERT_LE(previous->first + std::max<uint64_t>(previous->second, 1), *address);
    }
    live[*address] = bytes;
  }
  for (const auto& [address, bytes] : live) ASSERT_TRUE(pool.Free(address).ok());
  EXPECT_EQ(pool.stats().in_use, 0u);
  EXPECT_EQ(pool.stats().allocations, 0);
  // Everything merged back: each chunk is one free range again.
  for (const auto& [address, bytes] : device.chunks) {
    (void)address;
    Result<uintptr_t> whole = pool.Allocate(bytes);
    ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  }
}

TEST(CudaBestFitPoolTest, ThreadsAllocatingAndFreeingTogetherKeepTheCounts) {
  FakeDevice device;
  BestFitPool pool(device.Source(), 512 * kMiB, "pool");
  ASSERT_TRUE(pool.Preallocate().ok());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&pool, t] {
      std::mt19937_64 rng(static_cast<uint64_t>(t));
      std::vector<uintptr_t> mine;
      for (int i = 0; i < 5000; ++i) {
        if (!mine.empty() && rng() % 2 == 0) {
          EXPECT_TRUE(pool.Free(mine.back()).ok());
          mine.pop_back();
        } else if (Result<uintptr_t> a = pool.Allocate(rng() % 100000); a.ok()) {
          mine.push_back(*a);
        }
      }
      for (uintptr_t a : mine) EXPECT_TRUE(pool.Free(a).ok());
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(pool.stats().in_use, 0u);
  EXPECT_EQ(pool.stats().allocations, 0);
}

}  // namespace
}  // namespace berth::cuda
