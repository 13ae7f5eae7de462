// Shardy meshes and shardings: parsing and printing every form, the tile
// layout ToSharding gives checked against each device's mesh coordinates
// on random meshes, and malformed or inconsistent shardings.
#include "berth/spmd/shardy.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "berth/spmd/gspmd.hpp"

namespace berth::spmd {
namespace {

Mesh MustMesh(std::string_view text) {
  Result<Mesh> mesh = ParseMesh(text);
  EXPECT_TRUE(mesh.ok()) << text << ": " << mesh.status().ToString();
  return mesh.ok() ? *mesh : Mesh();
}

ShardySharding MustParse(std::string_view text) {
  Result<ShardySharding> sharding = ParseShardySharding(text);
  EXPECT_TRUE(sharding.ok()) << text << ": " << sharding.status().ToString();
  return sharding.ok() ? *sharding : ShardySharding();
}

AxisRef Axis(std::string name) { return AxisRef{std::move(name), std::nullopt, std::nullopt}; }

// The GSPMD string of `text`'s layout on `mesh`.
std::string Layout(std::string_view mesh, std::string_view text, std::vector<std::string> manual = {}) {
  Result<Sharding> sharding = ToSharding(MustParse(text), MustMesh(mesh), manual);
  if (!sharding.ok()) return sharding.status().ToString();
  return PrintGspmdSharding(*sharding);
}

TEST(ShardyMeshTest, ParsesAndPrintsMeshes) {
  Mesh mesh = MustMesh("#sdy.mesh<[\"x\"=2, \"y\"=4]>");
  ASSERT_EQ(mesh.axes().size(), 2u);
  EXPECT_EQ(mesh.axes()[1], (MeshAxis{"y", 4}));
  EXPECT_EQ(mesh.num_devices(), 8);
  EXPECT_EQ(mesh.AxisIndex("y"), 1u);
  EXPECT_FALSE(mesh.AxisIndex("z"));
  EXPECT_EQ(mesh.ToString(), "<[\"x\"=2, \"y\"=4]>");
  Mesh ordered = MustMesh("<[\"a\"=2], device_ids=[1, 0]>");
  EXPECT_EQ(ordered.device_ids(), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(ordered.ToString(), "<[\"a\"=2], device_ids=[1, 0]>");
  EXPECT_FALSE(MustMesh("<[\"a\"=2], device_ids=[0, 1]>").has_explicit_device_ids());
  EXPECT_EQ(MustMesh("mesh<[]>").num_devices(), 1);
  Mesh maximal = MustMesh("<[], device_ids=[5]>");
  EXPECT_EQ(maximal.device_ids(), std::vector<int64_t>{5});
  EXPECT_EQ(maximal.ToString(), "<[], device_ids=[5]>");
}

TEST(ShardyMeshTest, RefusesBadMeshes) {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"<[\"x\"=2, \"x\"=2]>", "axis \"x\" appears twice"},
      {"<[\"x\"=0]>", "has size 0"},
      {"<[\"x\"=2], device_ids=[0]>", "1 device ids for 2 mesh positions"},
      {"<[\"x\"=2], device_ids=[0, 0]>", "permutation of 0..1"},
      {"<[\"x\"=2], device_ids=[0, 2]>", "permutation of 0..1"},
      {"<[\"x\"=1048576, \"y\"=2]>", "more than 1048576 devices"},
      {"<[\"x\"=2]", "expected '>' to close the mesh"},
      {"<[x=2]>", "expected a quoted axis name"},
      {"<[\"x\"=2], ids=[0, 1]>", "expected 'device_ids'"},
      {"<[\"\"=2]>", "empty name"},
  };
  for (const Case& c : cases) {
    Result<Mesh> mesh = ParseMesh(c.text);
    ASSERT_FALSE(mesh.ok()) << c.text;
    EXPECT_NE(mesh.status().message().find(c.message), std::string::npos) << c.text << ": " << mesh.status().message();
  }
}

TEST(ShardyMeshTest, CommandLineMeshesParseAndBadOnesAreRefused) {
  Result<Mesh> mesh = ParseMeshFlag("x=2,y=4");
  ASSERT_TRUE(mesh.ok()) << mesh.status().ToString();
  EXPECT_EQ(mesh->ToString(), "<[\"x\"=2, \"y\"=4]>");
  EXPECT_EQ(mesh->num_devices(), 8);
  for (const char* bad : {"", "x", "x=", "=2", "x=0", "x=2,", "x=2,x=2", "x=-1", "x=1e3", "x=2,y=2097152",
                          "x=99999999"}) {
    SCOPED_TRACE(bad);
    Result<Mesh> refused = ParseMeshFlag(bad);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(refused.status().message().find("mesh '"), std::string::npos) << refused.status().message();
  }
}

TEST(ShardyShardingTest, ParsesEveryPart) {
  ShardySharding s = MustParse("#sdy.sharding<@mesh, [{\"x\"}, {\"y\", ?}, {?}, {}p2, {\"z\":(2)4}], replicated={\"w\"}>");
  EXPECT_EQ(s.mesh_name, "mesh");
  ASSERT_EQ(s.dims.size(), 5u);
  EXPECT_EQ(s.dims[0].axes, std::vector<AxisRef>{Axis("x")});
  EXPECT_FALSE(s.dims[0].open);
  EXPECT_TRUE(s.dims[1].open);
  EXPECT_TRUE(s.dims[2].open);
  EXPECT_TRUE(s.dims[2].axes.empty());
  EXPECT_EQ(s.dims[3].priority, 2);
  EXPECT_EQ(s.dims[4].axes[0], (AxisRef{"z", 2, 4}));
  EXPECT_EQ(s.replicated, std::vector<AxisRef>{Axis("w")});
  ShardySharding inline_mesh = MustParse("<mesh<[\"a\"=2]>, [{\"a\"}], unreduced={\"b\"}>");
  ASSERT_TRUE(inline_mesh.inline_mesh);
  EXPECT_EQ(inline_mesh.inline_mesh->num_devices(), 2);
  EXPECT_EQ(inline_mesh.unreduced.size(), 1u);
  Result<std::vector<ShardySharding>> per_value =
      ParseShardyShardingPerValue("#sdy.sharding_per_value<[<@m, [{\"x\"}]>, <@m, []>]>");
  ASSERT_TRUE(per_value.ok()) << per_value.status().ToString();
  ASSERT_EQ(per_value->size(), 2u);
  EXPECT_TRUE((*per_value)[1].dims.empty());
}

TEST(ShardyShardingTest, PrintsAndParsesBack) {
  const char* forms[] = {
      "#sdy.sharding<@mesh, [{\"x\"}, {}]>",
      "#sdy.sharding<@mesh, [{\"x\", \"y\", ?}, {?}]>",
      "#sdy.sharding<@mesh, [{\"x\":(1)2}p0, {\"x\":(2)2}p1], replicated={\"y\"}>",
      "#sdy.sharding<mesh<[\"a\"=2], device_ids=[1, 0]>, [{\"a\"}]>",
      "#sdy.sharding<@m, [], unreduced={\"x\"}>",
  };
  for (const char* form : forms) {
    ShardySharding sharding = MustParse(form);
    EXPECT_EQ(PrintShardySharding(sharding), form);
    EXPECT_EQ(MustParse(PrintShardySharding(sharding)), sharding);
  }
}

TEST(ShardyShardingTest, LayoutsOnATwoByTwoMesh) {
  const char* mesh = "<[\"x\"=2, \"y\"=2]>";
  EXPECT_EQ(Layout(mesh, "<@m, [{\"x\"}, {\"y\"}]>"), "{devices=[2,2]<=[4]}");
  EXPECT_EQ(Layout(mesh, "<@m, [{\"y\"}, {\"x\"}]>"), "{devices=[2,2]0,2,1,3}");
  EXPECT_EQ(Layout(mesh, "<@m, [{\"x\"}, {}]>"), "{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
  EXPECT_EQ(Layout(mesh, "<@m, [{\"y\"}, {}]>"), "{devices=[2,1,2]0,2,1,3 last_tile_dim_replicate}");
  EXPECT_EQ(Layout(mesh, "<@m, [{\"x\", \"y\"}]>"), "{devices=[4]<=[4]}");
  EXPECT_EQ(Layout(mesh, "<@m, [{\"y\", \"x\"}]>"), "{devices=[4]0,2,1,3}");
  EXPECT_EQ(Layout(mesh, "<@m, [{}, {?}]>"), "{replicated}");
  EXPECT_EQ(Layout(mesh, "<@m, [{}], replicated={\"x\"}>"), "{replicated}");
  EXPECT_EQ(Layout("<[\"x\"=2, \"y\"=2], device_ids=[3, 2, 1, 0]>", "<@m, [{\"x\"}, {\"y\"}]>"),
            "{devices=[2,2]3,2,1,0}");
  EXPECT_EQ(Layout(mesh, "<@m, [{\"x\"}, {}]>", {"y"}),
            "{devices=[2,1,2]<=[4] last_tile_dims={manual}}");
  EXPECT_EQ(Layout(mesh, "<@m, [{}, {}]>", {"x", "y"}), "{manual}");
  EXPECT_EQ(Layout(mesh, "<@m, [{}]>", {"x"}), "{devices=[1,2,2]<=[4] last_tile_dims={manual, replicated}}");
  EXPECT_EQ(Layout("<[], device_ids=[3]>", "<@m, [{}, {}]>"), "{maximal device=3}");
}

TEST(ShardyShardingTest, SubAxesSplitAnAxisMajorFirst) {
  // "x"=4 split as (1)2 (major) and (2)2 (minor).
  const char* mesh = "<[\"x\"=4]>";
  EXPECT_EQ(Layout(mesh, "<@m, [{\"x\":(1)2}, {\"x\":(2)2}]>"), "{devices=[2,2]<=[4]}");
  EXPECT_EQ(Layout(mesh, "<@m, [{\"x\":(2)2}, {\"x\":(1)2}]>"), "{devices=[2,2]0,2,1,3}");
  EXPECT_EQ(Layout(mesh, "<@m, [{\"x\":(2)2}]>"), "{devices=[2,2]0,2,1,3 last_tile_dim_replicate}");
}

TEST(ShardyShardingTest, InconsistentShardingsNameTheAxis) {
  struct Case {
    const char* mesh;
    const char* sharding;
    const char* message;
  };
  const Case cases[] = {
      {"<[\"x\"=2]>", "<@m, [{\"z\"}]>", "the mesh has no axis \"z\""},
      {"<[\"x\"=2]>", "<@m, [{\"x\"}, {\"x\"}]>", "axis \"x\" is used more than once"},
      {"<[\"x\"=2]>", "<@m, [{\"x\"}], replicated={\"x\"}>", "axis \"x\" is used more than once"},
      {"<[\"x\"=4]>", "<@m, [{\"x\"}, {\"x\":(2)2}]>", "axis \"x\" is used more than once"},
      {"<[\"x\"=6]>", "<@m, [{\"x\":(1)4}]>", "does not divide axis \"x\""},
      {"<[\"x\"=8]>", "<@m, [{\"x\":(1)4}, {\"x\":(2)2}]>", "is used more than once"},
      {"<[\"x\"=12]>", "<@m, [{\"x\":(1)2}, {\"x\":(3)2}]>", "overlap without nesting"},
      {"<[]>", "<@m, [{\"x\"}]>", "split over an empty mesh"},
  };
  for (const Case& c : cases) {
    Result<Sharding> sharding = ToSharding(MustParse(c.sharding), MustMesh(c.mesh));
    ASSERT_FALSE(sharding.ok()) << c.sharding;
    EXPECT_EQ(sharding.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(sharding.status().message().find(c.message), std::string::npos)
        << c.sharding << ": " << sharding.status().message();
  }
  Result<Sharding> unreduced = ToSharding(MustParse("<@m, [{}], unreduced={\"x\"}>"), MustMesh("<[\"x\"=2]>"));
  EXPECT_EQ(unreduced.status().code(), StatusCode::kUnimplemented);
}

TEST(ShardyShardingTest, MalformedTextIsRefused) {
  const char* texts[] = {
      "#sdy.sharding<mesh, [{\"x\"}]>",  // `mesh` without its body
      "#sdy.sharding<@m [{\"x\"}]>",
      "#sdy.sharding<@m, [{\"x\"]>",
      "#sdy.sharding<@m, [{\"x\"}], partial={\"y\"}>",
      "#sdy.sharding<@m, [{\"x\"}]p>",
      "#sdy.sharding<@m, [{\"x\"}p-1]>",
      "#sdy.sharding<@m, [{\"x\":2}]>",
      "#sdy.sharding<@, [{}]>",
      "#sdy.sharding<@m, [{}]> trailing",
  };
  for (const char* text : texts) {
    Result<ShardySharding> sharding = ParseShardySharding(text);
    ASSERT_FALSE(sharding.ok()) << text;
    EXPECT_EQ(sharding.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(sharding.status().message().find("Shardy sharding at offset"), std::string::npos)
        << sharding.status().message();
  }
}

// On random meshes with random device orders, each dimension split over a
// random run of axes: the tile a device holds along dimension d is the
// mixed-radix number of its mesh coordinates along d's axes (major first),
// computed here from the device's position in the mesh alone.
TEST(ShardyShardingTest, RandomLayoutsPutEachDeviceWhereItsMeshCoordinatesSay) {
  std::mt19937_64 rng(1205);
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<MeshAxis> axes;
    int num_axes = static_cast<int>(rng() % 3) + 1;
    for (int a = 0; a < num_axes; ++a) axes.push_back({std::string(1, static_cast<char>('a' + a)), int64_t(rng() % 4) + 1});
    int64_t count = 1;
    for (const MeshAxis& axis : axes) count *= axis.size;
    std::vector<int64_t> ids(static_cast<size_t>(count));
    std::iota(ids.begin(), ids.end(), 0);
    std::shuffle(ids.begin(), ids.end(), rng);
    Result<Mesh> mesh = Mesh::Create(axes, ids);
    ASSERT_TRUE(mesh.ok());

    // Axes in a random order, dealt to up to 3 dimensions; some left out.
    std::vector<int> order(static_cast<size_t>(num_axes));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    ShardySharding sharding;
    sharding.mesh_name = "m";
    int rank = static_cast<int>(rng() % 3) + 1;
    sharding.dims.resize(static_cast<size_t>(rank));
    std::vector<std::vector<int>> axes_of_dim(static_cast<size_t>(rank));
    for (int a : order) {
      int where = static_cast<int>(rng() % static_cast<uint64_t>(rank + 1));
      if (where == rank) continue;  // replicated
      sharding.dims[static_cast<size_t>(where)].axes.push_back(Axis(axes[static_cast<size_t>(a)].name));
      axes_of_dim[static_cast<size_t>(where)].push_back(a);
    }
    Result<Sharding> layout = ToSharding(sharding, *mesh);
    ASSERT_TRUE(layout.ok()) << PrintShardySharding(sharding) << ": " << layout.status().ToString();

    int64_t held = 0;
    for (int64_t position = 0; position < count; ++position) {
      std::vector<int64_t> coords(static_cast<size_t>(num_axes));
      int64_t rest = position;
      for (int a = num_axes - 1; a >= 0; --a) {
        coords[static_cast<size_t>(a)] = rest % axes[static_cast<size_t>(a)].size;
        rest /= axes[static_cast<size_t>(a)].size;
      }
      int64_t device = ids[static_cast<size_t>(position)];
      for (int d = 0; d < rank; ++d) {
        int64_t tile = 0, tiles = 1;
        for (int a : axes_of_dim[static_cast<size_t>(d)]) {
          tile = tile * axes[static_cast<size_t>(a)].size + coords[static_cast<size_t>(a)];
          tiles *= axes[static_cast<size_t>(a)].size;
        }
        ASSERT_EQ(layout->TilesAlong(d), tiles);
        std::vector<int64_t> shape(static_cast<size_t>(rank), 12);
        Result<ShardRegion> region = layout->RegionOf(device, shape);
        ASSERT_TRUE(region.ok());
        int64_t chunk = (12 + tiles - 1) / tiles;
        ASSERT_EQ(region->offsets[static_cast<size_t>(d)], std::min<int64_t>(tile * chunk, 12))
            << PrintShardySharding(sharding) << " on " << mesh->ToString() << " -> " << PrintGspmdSharding(*layout)
            << ", device " << device << " dim " << d;
      }
      held += layout->HoldsData(device) ? 1 : 0;
    }
    EXPECT_EQ(held, count);
  }
}

}  // namespace
}  // namespace berth::spmd
