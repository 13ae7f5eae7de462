// berth::ShardedArray and Executable::ExecuteSharded: global arrays split
// into per-partition shards (each shard checked against the array's block
// read by a scalar loop, padding zero) and gathered back exactly; sharded
// modules compiled by the cpu plugin run on sharded arrays give the
// unpartitioned run's results; misuse is refused naming what is wrong.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "berth/berth.hpp"
#include "partitioned_run.hpp"

namespace berth {
namespace {

using ::testing::HasSubstr;
using testing::CpuRunner;
using testing::Literal;

Client& Cpu() { return CpuRunner::Get().client(); }

std::vector<int32_t> Values(const Literal& literal) {
  std::vector<int32_t> out(literal.bytes.size() / sizeof(int32_t));
  std::memcpy(out.data(), literal.bytes.data(), literal.bytes.size());
  return out;
}

Result<ShardedArray> Split(const Literal& global, const std::string& sharding) {
  return ShardedArray::FromHost(Cpu(), global.bytes.data(), global.bytes.size(), global.type, global.dims, sharding,
                                Cpu().devices());
}

TEST(ShardedArrayTest, EachShardHoldsItsBlockAndTheArrayGathersBackExactly) {
  std::mt19937_64 rng(2026);
  // Even and uneven dimensions, over 2 and 4 partitions, every layout kind.
  const std::vector<std::vector<int64_t>> shapes = {{16}, {10}, {8, 6}, {10, 7}, {4, 6, 5}};
  int checked = 0;
  for (const std::vector<int64_t>& shape : shapes) {
    for (int64_t n : {2, 4}) {
      for (const std::string& sharding : spmd_testing::ShardingsFor(shape.size(), n)) {
        SCOPED_TRACE(::testing::PrintToString(shape) + " " + sharding);
        const Literal global = spmd_testing::RandomLiteral(ElementType::kS32, shape, rng);
        Result<ShardedArray> array = Split(global, sharding);
        ASSERT_TRUE(array.ok()) << array.status().ToString();
        const std::vector<int32_t> values = Values(global);
        for (size_t p = 0; p < array->num_partitions(); ++p) {
          const Buffer* shard = array->shard(p);
          ASSERT_NE(shard, nullptr);
          Result<ShardedArray::Region> region = array->RegionOf(p);
          ASSERT_TRUE(region.ok()) << region.status().ToString();
          std::vector<int32_t> got(shard->host_size() / sizeof(int32_t));
          ASSERT_TRUE(shard->ToHost(got.data(), got.size() * sizeof(int32_t)).ok());
          // Every element of the shard by a scalar loop over its index.
          const std::vector<int64_t>& local = shard->dims();
          for (size_t flat = 0; flat < got.size(); ++flat) {
            size_t rest = flat, global_flat = 0;
            bool inside = true;
            std::vector<int64_t> index(local.size());
            for (size_t d = local.size(); d-- > 0;) {
              index[d] = static_cast<int64_t>(rest % static_cast<size_t>(local[d]));
              rest /= static_cast<size_t>(local[d]);
            }
            for (size_t d = 0; d < local.size(); ++d) {
              inside = inside && index[d] < region->sizes[d];
              global_flat = global_flat * static_cast<size_t>(shape[d]) +
                            static_cast<size_t>(region->offsets[d] + index[d]);
            }
            ASSERT_EQ(got[flat], inside ? values[global_flat] : 0) << "partition " << p << " element " << flat;
          }
        }
        std::vector<int32_t> back(values.size(), -1);
        ASSERT_TRUE(array->ToHost(back.data(), back.size() * sizeof(int32_t)).ok());
        EXPECT_EQ(back, values);
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 40);
}

constexpr char kShardedMlp[] = R"(
module @mlp attributes {mhlo.num_partitions = 4 : i32} {
  func.func @main(%x: tensor<10x8xi32> {mhlo.sharding = "{devices=[4,1]<=[4]}"},
                  %w: tensor<8x6xi32> {mhlo.sharding = "{devices=[1,2,2]<=[4] last_tile_dim_replicate}"})
      -> (tensor<10x6xi32> {mhlo.sharding = "{devices=[2,2]<=[4]}"}, tensor<6xi32>) {
    %h = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<10x8xi32>, tensor<8x6xi32>) -> tensor<10x6xi32>
    %m = stablehlo.maximum %h, %h : tensor<10x6xi32>
    %z = stablehlo.constant dense<0> : tensor<i32>
    %s = stablehlo.reduce(%m init: %z) applies stablehlo.add across dimensions = [0] : (tensor<10x6xi32>, tensor<i32>) -> tensor<6xi32>
    return %m, %s : tensor<10x6xi32>, tensor<6xi32>
  }
})";

TEST(ShardedArrayTest, ExecuteShardedGivesTheUnpartitionedRunsResults) {
  Result<Executable> executable = Cpu().Compile(kShardedMlp);
  ASSERT_TRUE(executable.ok()) << executable.status().ToString();
  ASSERT_EQ(executable->parameter_shardings().size(), 2u);
  std::mt19937_64 rng(77);
  for (int trial = 0; trial < 3; ++trial) {
    const Literal x = spmd_testing::RandomLiteral(ElementType::kS32, {10, 8}, rng);
    const Literal w = spmd_testing::RandomLiteral(ElementType::kS32, {8, 6}, rng);
    Result<ShardedArray> sx = Split(x, executable->parameter_shardings()[0].sharding);
    Result<ShardedArray> sw = Split(w, executable->parameter_shardings()[1].sharding);
    ASSERT_TRUE(sx.ok() && sw.ok());
    Result<std::vector<ShardedArray>> out = executable->ExecuteSharded({&*sx, &*sw});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ASSERT_EQ(out->size(), 2u);
    EXPECT_EQ((*out)[0].sharding(), executable->output_shardings()[0].sharding);
    EXPECT_EQ((*out)[0].num_addressable_shards(), 4u);

    // The reference: the same module on one device, by a scalar loop.
    std::vector<int32_t> xs = Values(x), ws = Values(w), m(60, 0), s(6, 0);
    for (int i = 0; i < 10; ++i) {
      for (int j = 0; j < 6; ++j) {
        for (int k = 0; k < 8; ++k) m[i * 6 + j] += xs[i * 8 + k] * ws[k * 6 + j];
        s[j] += m[i * 6 + j];
      }
    }
    std::vector<int32_t> got_m(60), got_s(6);
    ASSERT_TRUE((*out)[0].ToHost(got_m.data(), got_m.size() * 4).ok());
    ASSERT_TRUE((*out)[1].ToHost(got_s.data(), got_s.size() * 4).ok());
    EXPECT_EQ(got_m, m);
    EXPECT_EQ(got_s, s);
  }
}

TEST(ShardedArrayTest, MisuseIsRefusedNamingWhatIsWrong) {
  const Literal x = Literal::Of(std::vector<int32_t>(80, 1), {10, 8});
  // Malformed and misfitting layouts, sizes, devices.
  Result<ShardedArray> bad = Split(x, "{devices=[4,1]");
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("sharding '{devices=[4,1]'"));
  bad = Split(x, "{devices=[4]<=[4]}");
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  bad = ShardedArray::FromHost(Cpu(), x.bytes.data(), 12, x.type, x.dims, "{replicated}", Cpu().devices());
  EXPECT_THAT(bad.status().message(), HasSubstr("12 bytes given"));
  std::vector<Device> two(Cpu().devices().begin(), Cpu().devices().begin() + 2);
  bad = ShardedArray::FromHost(Cpu(), x.bytes.data(), x.bytes.size(), x.type, x.dims, "{devices=[4,1]<=[4]}", two);
  EXPECT_THAT(bad.status().message(), HasSubstr("names partition 2, but 2 device(s) are given"));

  Result<Executable> executable = Cpu().Compile(kShardedMlp);
  ASSERT_TRUE(executable.ok());
  const Literal w = Literal::Of(std::vector<int32_t>(48, 1), {8, 6});
  Result<ShardedArray> rows = Split(x, "{devices=[4,1]<=[4]}");
  Result<ShardedArray> whole = Split(w, "{replicated}");
  ASSERT_TRUE(rows.ok() && whole.ok());
  Result<std::vector<ShardedArray>> out = executable->ExecuteSharded({&*rows, &*whole});
  EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(), HasSubstr("argument 1: laid out as {replicated}, the program takes"));
  out = executable->ExecuteSharded({&*rows});
  EXPECT_THAT(out.status().message(), HasSubstr("takes 2 argument(s), 1 given"));

  // A program its plugin did not partition reports no layouts.
  Result<Executable> plain = Cpu().Compile(R"(
func.func @main(%a: tensor<10x8xi32>) -> tensor<10x8xi32> {
  %0 = stablehlo.add %a, %a : tensor<10x8xi32>
  return %0 : tensor<10x8xi32>
})");
  ASSERT_TRUE(plain.ok());
  out = plain->ExecuteSharded({&*rows});
  EXPECT_EQ(out.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(out.status().message(), HasSubstr("reports no layouts"));
}

}  // namespace
}  // namespace berth
