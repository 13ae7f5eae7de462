// GSPMD sharding strings: every form JAX writes, iota device lists against
// a reference computed with nested loops, printing, and malformed text.
#include "berth/spmd/gspmd.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

namespace berth::spmd {
namespace {

Sharding MustParse(std::string_view text) {
  Result<Sharding> sharding = ParseGspmdSharding(text);
  EXPECT_TRUE(sharding.ok()) << text << ": " << sharding.status().ToString();
  return sharding.ok() ? *sharding : Sharding();
}

TEST(GspmdShardingTest, ParsesTheUntiledForms) {
  EXPECT_TRUE(MustParse("{replicated}").IsReplicated());
  EXPECT_TRUE(MustParse("{manual}").IsManual());
  Sharding maximal = MustParse("{maximal device=3}");
  ASSERT_TRUE(maximal.IsMaximal());
  EXPECT_EQ(maximal.maximal_device(), 3);
  EXPECT_TRUE(MustParse(" { replicated metadata={op_name=\"jit(f)/x\" source_file=\"a{b}.py\"} } ").IsReplicated());
}

TEST(GspmdShardingTest, ParsesExplicitAndIotaDeviceLists) {
  Sharding explicit_list = MustParse("{devices=[2,2]0,2,1,3}");
  EXPECT_EQ(explicit_list.tile_dims(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(explicit_list.devices(), (std::vector<int64_t>{0, 2, 1, 3}));
  EXPECT_TRUE(explicit_list.subgroups().empty());

  Sharding iota = MustParse("{devices=[4,2]<=[8]}");
  EXPECT_EQ(iota.devices(), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));

  // <=[2,2]T(1,0): 0..3 as a 2x2 array, transposed.
  EXPECT_EQ(MustParse("{devices=[2,2]<=[2,2]T(1,0)}").devices(), (std::vector<int64_t>{0, 2, 1, 3}));
  EXPECT_EQ(MustParse("{devices=[2,2]<=[2,2]T(1,0)}"), explicit_list);
}

// <=[a,b,c]T(p): the reference builds the iota array and reads it in the
// transposed order with three nested loops.
TEST(GspmdShardingTest, TransposedIotaMatchesNestedLoops) {
  const int64_t reshape[3] = {2, 3, 4};
  const int64_t perms[][3] = {{0, 1, 2}, {1, 0, 2}, {2, 1, 0}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}};
  for (const auto& p : perms) {
    std::vector<int64_t> expected;
    int64_t out[3] = {reshape[p[0]], reshape[p[1]], reshape[p[2]]};
    for (int64_t i = 0; i < out[0]; ++i) {
      for (int64_t j = 0; j < out[1]; ++j) {
        for (int64_t k = 0; k < out[2]; ++k) {
          int64_t source[3];
          source[p[0]] = i;
          source[p[1]] = j;
          source[p[2]] = k;
          expected.push_back((source[0] * reshape[1] + source[1]) * reshape[2] + source[2]);
        }
      }
    }
    std::string text = "{devices=[6,4]<=[2,3,4]T(" + std::to_string(p[0]) + "," + std::to_string(p[1]) + "," +
                       std::to_string(p[2]) + ")}";
    EXPECT_EQ(MustParse(text).devices(), expected) << text;
  }
}

TEST(GspmdShardingTest, ParsesSubgroups) {
  using enum SubgroupKind;
  Sharding partial = MustParse("{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
  EXPECT_EQ(partial.subgroups(), std::vector<SubgroupKind>{kReplicated});
  EXPECT_EQ(partial.tensor_rank(), 2);
  EXPECT_EQ(partial.SubgroupSize(kReplicated), 2);
  Sharding both = MustParse("{devices=[2,2,2]<=[8] last_tile_dims={manual, replicated}}");
  EXPECT_EQ(both.subgroups(), (std::vector<SubgroupKind>{kManual, kReplicated}));
  EXPECT_EQ(both.tensor_rank(), 1);
  EXPECT_EQ(MustParse("{devices=[2,2]<=[4] last_tile_dims={manual} shard_as 1 metadata={}}").SubgroupSize(kManual), 2);
}

TEST(GspmdShardingTest, ParsesTuples) {
  Sharding tuple = MustParse("{{replicated}, {devices=[2]0,1}, {maximal device=1}}");
  ASSERT_TRUE(tuple.IsTuple());
  ASSERT_EQ(tuple.tuple_elements().size(), 3u);
  EXPECT_TRUE(tuple.tuple_elements()[0].IsReplicated());
  EXPECT_TRUE(tuple.tuple_elements()[1].IsTiled());
  EXPECT_TRUE(MustParse("{}").IsTuple());
  EXPECT_TRUE(MustParse("{}").tuple_elements().empty());
}

TEST(GspmdShardingTest, PrintsWhatXlaPrintsAndParsesItBack) {
  const char* forms[] = {
      "{replicated}",
      "{manual}",
      "{maximal device=5}",
      "{devices=[2,2]0,2,1,3}",
      "{devices=[4,2]<=[8]}",
      "{devices=[2,1,2]<=[4] last_tile_dim_replicate}",
      "{devices=[2,2,2]<=[8] last_tile_dims={manual, replicated}}",
      "{{replicated}, {devices=[2]1,0}}",
  };
  for (const char* form : forms) {
    Sharding sharding = MustParse(form);
    EXPECT_EQ(PrintGspmdSharding(sharding), form);
    EXPECT_EQ(MustParse(PrintGspmdSharding(sharding)), sharding);
  }
  EXPECT_EQ(PrintGspmdSharding(MustParse("{devices=[2,2]<=[2,2]T(1,0)}")), "{devices=[2,2]0,2,1,3}");
}

TEST(GspmdShardingTest, RandomTiledShardingsRoundTrip) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<int64_t> dims;
    int rank = static_cast<int>(rng() % 4) + 1;
    for (int d = 0; d < rank; ++d) dims.push_back(static_cast<int64_t>(rng() % 3) + 1);
    int64_t count = std::accumulate(dims.begin(), dims.end(), int64_t{1}, std::multiplies<>());
    std::vector<int64_t> devices(static_cast<size_t>(count));
    std::iota(devices.begin(), devices.end(), 0);
    if (rng() % 2) std::shuffle(devices.begin(), devices.end(), rng);
    std::vector<SubgroupKind> subgroups;
    if (rank > 1 && rng() % 2) subgroups.push_back(rng() % 2 ? SubgroupKind::kManual : SubgroupKind::kReplicated);
    Sharding sharding = *Sharding::Tiled(dims, devices, subgroups);
    std::string text = PrintGspmdSharding(sharding);
    Sharding parsed = MustParse(text);
    EXPECT_EQ(parsed.tile_dims(), sharding.tile_dims()) << text;
    EXPECT_EQ(parsed.devices(), sharding.devices()) << text;
    EXPECT_EQ(parsed.subgroups(), sharding.subgroups()) << text;
  }
}

TEST(GspmdShardingTest, MalformedTextIsRefusedWithItsOffset) {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"", "expected '{' to open the sharding"},
      {"{replicated", "expected '}' to close the sharding"},
      {"{replicated} x", "unexpected text after the sharding"},
      {"{tiled}", "expected replicated, manual, maximal, devices or a tuple"},
      {"{maximal}", "expected 'device' after 'maximal'"},
      {"{maximal device=-1}", "negative device -1"},
      {"{devices=[2,2]0,1,2}", "3 devices for 4 tiles"},
      {"{devices=[2]0,1,2}", "3 devices for 2 tiles"},
      {"{devices=[2]0,0}", "device 0 appears twice"},
      {"{devices=[]0}", "no tile dimensions"},
      {"{devices=[2,0]<=[0]}", "tile dimension 0 < 1"},
      {"{devices=[2,2]<=[8]}", "the iota holds 8 devices for 4 tiles"},
      {"{devices=[2,2]<=[2,2]T(0,0)}", "not a permutation"},
      {"{devices=[2,2]<=[2,2]T(1,0}", "expected ')' to close the iota transpose"},
      {"{devices=[1048576,1048576]<=[1099511627776]}", "more than 1048576 devices"},
      {"{devices=[4294967296,4294967296,4294967296]<=[1]}", "product of sizes overflows"},
      {"{devices=[99999999999999999999]0}", "integer out of range"},
      {"{devices=[2]0,1 last_tile_dim_replicate last_tile_dim_replicate}", "described twice"},
      {"{devices=[2]0,1 last_tile_dims={partial}}", "expected 'manual' or 'replicated'"},
      {"{replicated metadata={op_name=\"x}", "unterminated string"},
      {"{replicated metadata={", "unbalanced '{'"},
      {"{{replicated}, {bad}}", "expected replicated"},
  };
  for (const Case& c : cases) {
    Result<Sharding> sharding = ParseGspmdSharding(c.text);
    ASSERT_FALSE(sharding.ok()) << c.text;
    EXPECT_EQ(sharding.status().code(), StatusCode::kInvalidArgument) << c.text;
    EXPECT_NE(sharding.status().message().find(c.message), std::string::npos)
        << c.text << ": " << sharding.status().message();
    EXPECT_NE(sharding.status().message().find("GSPMD sharding at offset"), std::string::npos);
  }
  std::string deep(100, '{');
  EXPECT_NE(ParseGspmdSharding(deep).status().message().find("nested too deeply"), std::string::npos);
  Result<Sharding> unknown = ParseGspmdSharding("{unknown}");
  EXPECT_EQ(unknown.status().code(), StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace berth::spmd
