// The tile model: construction checks, which region each device holds
// (uneven dimensions included), and the canonical form equality uses.
#include "berth/spmd/sharding.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

namespace berth::spmd {
namespace {

Sharding MustTile(std::vector<int64_t> dims, std::vector<int64_t> devices, std::vector<SubgroupKind> subgroups = {}) {
  Result<Sharding> sharding = Sharding::Tiled(std::move(dims), std::move(devices), std::move(subgroups));
  EXPECT_TRUE(sharding.ok()) << sharding.status().ToString();
  return sharding.ok() ? *sharding : Sharding();
}

TEST(ShardingTest, TiledRefusesABadAssignment) {
  struct Case {
    std::vector<int64_t> dims, devices;
    std::vector<SubgroupKind> subgroups;
    const char* message;
  };
  const Case cases[] = {
      {{2, 2}, {0, 1, 2}, {}, "3 devices for 4 tiles"},
      {{2}, {0, 0}, {}, "device 0 appears twice"},
      {{2}, {-1, 0}, {}, "negative device -1"},
      {{0, 2}, {}, {}, "tile dimension 0 < 1"},
      {{}, {}, {}, "no tile dimensions"},
      {{2}, {0, 1}, {SubgroupKind::kReplicated, SubgroupKind::kManual}, "2 subgroups for 1 tile dimensions"},
  };
  for (const Case& c : cases) {
    Result<Sharding> sharding = Sharding::Tiled(c.dims, c.devices, c.subgroups);
    ASSERT_FALSE(sharding.ok()) << c.message;
    EXPECT_EQ(sharding.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(sharding.status().message().find(c.message), std::string::npos) << sharding.status().message();
  }
  EXPECT_FALSE(Sharding::Maximal(-2).ok());
}

TEST(ShardingTest, UnevenRowsAreCutAsGspmdCutsThem) {
  // 10 rows over 4 devices: 3, 3, 3, 1; 2 rows over 4 devices: 1, 1, 0, 0.
  Sharding rows = MustTile({4, 1}, {0, 1, 2, 3});
  const int64_t expected_sizes[] = {3, 3, 3, 1};
  for (int64_t device = 0; device < 4; ++device) {
    Result<ShardRegion> region = rows.RegionOf(device, std::vector<int64_t>{10, 5});
    ASSERT_TRUE(region.ok());
    EXPECT_EQ(region->offsets, (std::vector<int64_t>{3 * device, 0}));
    EXPECT_EQ(region->sizes, (std::vector<int64_t>{expected_sizes[device], 5}));
  }
  EXPECT_EQ(*rows.ShardShape(std::vector<int64_t>{10, 5}), (std::vector<int64_t>{3, 5}));
  const int64_t small_sizes[] = {1, 1, 0, 0};
  for (int64_t device = 0; device < 4; ++device) {
    EXPECT_EQ(rows.RegionOf(device, std::vector<int64_t>{2, 5})->sizes[0], small_sizes[device]);
  }
}

TEST(ShardingTest, DevicesOutsideTheAssignmentHoldNothing) {
  Sharding tiled = MustTile({2}, {3, 5});
  EXPECT_TRUE(tiled.HoldsData(5));
  EXPECT_FALSE(tiled.HoldsData(0));
  EXPECT_EQ(tiled.RegionOf(0, std::vector<int64_t>{8})->sizes, std::vector<int64_t>{0});
  Sharding maximal = *Sharding::Maximal(1);
  EXPECT_EQ(maximal.RegionOf(1, std::vector<int64_t>{4, 4})->sizes, (std::vector<int64_t>{4, 4}));
  EXPECT_EQ(maximal.RegionOf(0, std::vector<int64_t>{4, 4})->sizes, (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(Sharding::Replicated().RegionOf(7, std::vector<int64_t>{3})->sizes, std::vector<int64_t>{3});
}

TEST(ShardingTest, RankMismatchAndTuplesAreRefused) {
  Sharding tiled = MustTile({2, 2}, {0, 1, 2, 3});
  Result<ShardRegion> region = tiled.RegionOf(0, std::vector<int64_t>{8});
  ASSERT_FALSE(region.ok());
  EXPECT_NE(region.status().message().find("tiling 2 dimension(s) cannot lay out an array of rank 1"),
            std::string::npos);
  EXPECT_FALSE(Sharding::Tuple({tiled}).ShardShape(std::vector<int64_t>{8, 8}).ok());
}

TEST(ShardingTest, CanonicalFormMergesSubgroupsAndDropsTrivialTiles) {
  using enum SubgroupKind;
  EXPECT_EQ(MustTile({1, 1, 4}, {0, 1, 2, 3}, {kReplicated}), Sharding::Replicated());
  EXPECT_EQ(MustTile({1, 2}, {0, 1}, {kManual}), Sharding::Manual());
  EXPECT_EQ(MustTile({2, 1}, {0, 1}, {kReplicated}), MustTile({2}, {0, 1}));
  EXPECT_FALSE(MustTile({2}, {0, 1}) == MustTile({2}, {1, 0}));
  // [replicated=2, manual=2] is [manual=2, replicated=2] with the device
  // array transposed.
  Sharding replicated_first = MustTile({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}, {kReplicated, kManual});
  Sharding manual_first = MustTile({2, 2, 2}, {0, 2, 1, 3, 4, 6, 5, 7}, {kManual, kReplicated});
  EXPECT_EQ(replicated_first, manual_first);
  EXPECT_EQ(replicated_first.Canonical().devices(), manual_first.devices());
  // Two replicated subgroups are one.
  EXPECT_EQ(MustTile({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}, {kReplicated, kReplicated}),
            MustTile({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7}, {kReplicated}));
}

// Every element of a randomly shaped array is held by exactly as many
// devices as the replication factor, each holding it in the tile the scalar
// reference computes (element index / ceil(size / tiles), per dimension).
TEST(ShardingTest, RandomTilingsCoverEveryElementOncePerReplica) {
  std::mt19937_64 rng(20261205);
  for (int trial = 0; trial < 300; ++trial) {
    int rank = static_cast<int>(rng() % 3) + 1;
    std::vector<int64_t> dims, shape;
    for (int d = 0; d < rank; ++d) {
      dims.push_back(static_cast<int64_t>(rng() % 4) + 1);
      shape.push_back(static_cast<int64_t>(rng() % 14));
    }
    int64_t replicas = static_cast<int64_t>(rng() % 3) + 1;
    std::vector<SubgroupKind> subgroups;
    if (replicas > 1) {
      dims.push_back(replicas);
      subgroups.push_back(SubgroupKind::kReplicated);
    }
    int64_t count = std::accumulate(dims.begin(), dims.end(), int64_t{1}, std::multiplies<>());
    std::vector<int64_t> devices(static_cast<size_t>(count));
    std::iota(devices.begin(), devices.end(), 0);
    std::shuffle(devices.begin(), devices.end(), rng);
    Sharding sharding = MustTile(dims, devices, subgroups);

    int64_t elements = std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
    std::vector<int64_t> holders(static_cast<size_t>(elements), 0);
    for (int64_t device = 0; device < count; ++device) {
      Result<ShardRegion> region = sharding.RegionOf(device, shape);
      ASSERT_TRUE(region.ok());
      std::vector<int64_t> tile = *sharding.TileIndexOf(device);
      for (int64_t e = 0; e < elements; ++e) {
        int64_t rest = e;
        bool inside = true, reference_inside = true;
        for (int d = rank - 1; d >= 0; --d) {
          int64_t index = rest % shape[d];
          rest /= shape[d];
          inside = inside && index >= region->offsets[d] && index < region->offsets[d] + region->sizes[d];
          int64_t chunk = (shape[d] + dims[d] - 1) / dims[d];
          reference_inside = reference_inside && index / chunk == tile[d];
        }
        ASSERT_EQ(inside, reference_inside) << "trial " << trial << " device " << device << " element " << e;
        holders[static_cast<size_t>(e)] += inside ? 1 : 0;
      }
    }
    for (int64_t held : holders) ASSERT_EQ(held, replicas) << "trial " << trial;
  }
}

}  // namespace
}  // namespace berth::spmd
