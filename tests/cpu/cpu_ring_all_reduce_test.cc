// The cpu plugin's ring all-reduce on Gloo's TCP transport: ranks are
// threads of this process, connected over 127.0.0.1 through an in-memory
// rendezvous store.
#include <gtest/gtest.h>

#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/hash_store.h>
#include <gloo/transport/tcp/device.h>

#include <barrier>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "cpu/distributed/ring_all_reduce.hpp"

namespace berth::cpu {
namespace {

struct Case {
  int ranks;
  size_t count;
  size_t segment_bytes;
  bool in_place;
};

// Rank r contributes in[i] = r * 1000 + i (as int64); the sum is known.
std::vector<std::vector<int64_t>> RunRing(const Case& c) {
  gloo::rendezvous::HashStore store;
  gloo::transport::tcp::attr attr;
  attr.hostname = "127.0.0.1";
  auto device = gloo::transport::tcp::CreateDevice(attr);
  std::vector<std::vector<int64_t>> outputs(c.ranks);
  std::vector<Status> statuses(c.ranks);
  // Contexts close their connections when destroyed: keep each until all
  // ranks are done.
  std::barrier done(c.ranks);
  std::vector<std::thread> threads;
  for (int r = 0; r < c.ranks; ++r) {
    threads.emplace_back([&, r] {
      auto context = std::make_shared<gloo::rendezvous::Context>(r, c.ranks);
      context->setTimeout(std::chrono::seconds(30));
      context->connectFullMesh(store, device);
      std::vector<int64_t> in(c.count);
      for (size_t i = 0; i < c.count; ++i) in[i] = r * 1000 + static_cast<int64_t>(i);
      if (c.in_place) {
        outputs[r] = in;
      } else {
        outputs[r].assign(c.count, -1);
      }
      RingAllReduceArgs args;
      args.in = c.in_place ? static_cast<const void*>(outputs[r].data()) : in.data();
      args.out = outputs[r].data();
      args.count = c.count;
      args.element_size = sizeof(int64_t);
      args.reduce = [](void* out, const void* a, const void* b, size_t n) {
        auto* o = static_cast<int64_t*>(out);
        const auto* x = static_cast<const int64_t*>(a);
        const auto* y = static_cast<const int64_t*>(b);
        for (size_t i = 0; i < n; ++i) o[i] = x[i] + y[i];
      };
      args.tag = 7;
      args.timeout = std::chrono::seconds(30);
      args.segment_bytes = c.segment_bytes;
      statuses[r] = RingAllReduce(*context, args);
      done.arrive_and_wait();
    });
  }
  for (std::thread& t : threads) t.join();
  for (int r = 0; r < c.ranks; ++r) EXPECT_TRUE(statuses[r].ok()) << statuses[r].ToString();
  return outputs;
}

void ExpectSums(const Case& c) {
  std::vector<std::vector<int64_t>> outputs = RunRing(c);
  int64_t rank_sum = 0;
  for (int r = 0; r < c.ranks; ++r) rank_sum += r * 1000;
  for (int r = 0; r < c.ranks; ++r) {
    ASSERT_EQ(outputs[r].size(), c.count);
    for (size_t i = 0; i < c.count; ++i) {
      ASSERT_EQ(outputs[r][i], rank_sum + c.ranks * static_cast<int64_t>(i))
          << "rank " << r << " element " << i;
    }
  }
}

TEST(RingAllReduceTest, TwoRanksOutOfPlaceSumEveryElement) { ExpectSums({2, 1000, 1 << 20, false}); }

TEST(RingAllReduceTest, ThreeRanksWithManySegmentsPerChunk) { ExpectSums({3, 10007, 64, false}); }

TEST(RingAllReduceTest, FourRanksInPlace) { ExpectSums({4, 4099, 256, true}); }

TEST(RingAllReduceTest, FewerElementsThanRanksLeavesEmptyChunks) { ExpectSums({4, 3, 1 << 20, false}); }

TEST(RingAllReduceTest, ZeroElementsIsANoOp) { ExpectSums({3, 0, 1 << 20, false}); }

TEST(RingAllReduceTest, EveryRankEndsWithTheSameBitsForFloats) {
  // Float sums depend on their order; the ring reduces each chunk once and
  // passes the result around, so every rank holds identical values.
  const int ranks = 3;
  const size_t count = 999;
  gloo::rendezvous::HashStore store;
  gloo::transport::tcp::attr attr;
  attr.hostname = "127.0.0.1";
  auto device = gloo::transport::tcp::CreateDevice(attr);
  std::vector<std::vector<float>> outputs(ranks, std::vector<float>(count));
  std::barrier done(ranks);
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&, r] {
      auto context = std::make_shared<gloo::rendezvous::Context>(r, ranks);
      context->setTimeout(std::chrono::seconds(30));
      context->connectFullMesh(store, device);
      std::vector<float> in(count);
      for (size_t i = 0; i < count; ++i) in[i] = 0.1f * static_cast<float>(r + 1) / (i + 1.0f);
      RingAllReduceArgs args;
      args.in = in.data();
      args.out = outputs[r].data();
      args.count = count;
      args.element_size = sizeof(float);
      args.reduce = [](void* out, const void* a, const void* b, size_t n) {
        for (size_t i = 0; i < n; ++i) {
          static_cast<float*>(out)[i] = static_cast<const float*>(a)[i] + static_cast<const float*>(b)[i];
        }
      };
      args.tag = 1;
      args.timeout = std::chrono::seconds(30);
      args.segment_bytes = 128;
      EXPECT_TRUE(RingAllReduce(*context, args).ok());
      done.arrive_and_wait();
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(outputs[0], outputs[1]);
  EXPECT_EQ(outputs[0], outputs[2]);
}

}  // namespace
}  // namespace berth::cpu
