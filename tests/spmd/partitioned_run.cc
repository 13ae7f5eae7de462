#include "partitioned_run.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numeric>

#include "berth/spmd/gspmd.hpp"
#include "berth/spmd/partitioner.hpp"
#include "berth/stablehlo/parser.hpp"

namespace berth::spmd_testing {

using testing::CpuRunner;
using testing::Literal;
namespace shlo = berth::stablehlo;

namespace {

int64_t Elements(const std::vector<int64_t>& dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t{1}, std::multiplies<>());
}

// Copies the block `sizes` at `from` in `src` to `to` in `dst` (row-major
// arrays of `element` bytes per value).
void CopyBlock(const std::byte* src, const std::vector<int64_t>& src_dims, std::vector<int64_t> from, std::byte* dst,
               const std::vector<int64_t>& dst_dims, std::vector<int64_t> to, const std::vector<int64_t>& sizes,
               size_t element) {
  if (Elements(sizes) == 0) return;
  std::vector<int64_t> index(sizes.size(), 0);
  while (true) {
    int64_t s = 0, d = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      s = s * src_dims[i] + from[i] + index[i];
      d = d * dst_dims[i] + to[i] + index[i];
    }
    std::memcpy(dst + d * static_cast<int64_t>(element), src + s * static_cast<int64_t>(element), element);
    size_t i = sizes.size();
    while (i > 0 && ++index[i - 1] == sizes[i - 1]) index[--i] = 0;
    if (i == 0) return;
  }
}

size_t ElementBytes(const Literal& literal) {
  int64_t n = Elements(literal.dims);
  return n == 0 ? 0 : literal.bytes.size() / static_cast<size_t>(n);
}

// Integers exactly; floats within a few ulps of the sum's size (a split
// contracting dimension adds partial sums in another order).
bool SameValues(const Literal& got, const std::vector<std::byte>& want);

}  // namespace

Literal RandomLiteral(ElementType type, std::vector<int64_t> dims, std::mt19937_64& rng) {
  int64_t n = Elements(dims);
  if (type == ElementType::kF32) {
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    std::vector<float> values(static_cast<size_t>(n));
    for (float& v : values) v = value(rng);
    return Literal::Of(values, std::move(dims));
  }
  std::uniform_int_distribution<int32_t> value(-50, 50);
  std::vector<int32_t> values(static_cast<size_t>(n));
  for (int32_t& v : values) v = value(rng);
  return Literal::Of(values, std::move(dims));
}

std::vector<std::string> ShardingsFor(size_t rank, int64_t n) {
  std::vector<std::string> out = {"{replicated}"};
  std::string nn = std::to_string(n);
  if (rank == 1) {
    out.push_back("{devices=[" + nn + "]<=[" + nn + "]}");
    if (n == 4) out.push_back("{devices=[2,2]<=[4] last_tile_dim_replicate}");
    return out;
  }
  if (rank >= 3) {
    // Tiles per dimension as GSPMD writes them, over devices 0..N-1 in order.
    auto tiled = [&](std::vector<int64_t> tiles, bool replicate_last) {
      std::string text = "{devices=[";
      for (size_t d = 0; d < tiles.size(); ++d) text += (d ? "," : "") + std::to_string(tiles[d]);
      return text + "]<=[" + nn + "]" + (replicate_last ? " last_tile_dim_replicate}" : "}");
    };
    // Rank 3: each dimension; rank 4: the first, the last, the second.
    const std::vector<size_t> cut = rank == 3 ? std::vector<size_t>{0, 1, 2} : std::vector<size_t>{0, rank - 1, 1};
    for (size_t d : cut) {
      std::vector<int64_t> tiles(rank, 1);
      tiles[d] = n;
      out.push_back(tiled(tiles, false));
    }
    if (n == 4) {
      std::vector<int64_t> mesh(rank, 1), partial(rank + 1, 1);
      mesh[0] = 2;
      mesh[rank == 3 ? 1 : rank - 1] = 2;
      partial[0] = partial[rank] = 2;
      out.push_back(tiled(mesh, false));
      out.push_back(tiled(partial, true));
    }
    return out;
  }
  out.push_back("{devices=[" + nn + ",1]<=[" + nn + "]}");
  out.push_back("{devices=[1," + nn + "]<=[" + nn + "]}");
  if (n == 4) {
    out.push_back("{devices=[2,2]<=[4]}");
    out.push_back("{devices=[2,2]0,2,1,3}");
    out.push_back("{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
    out.push_back("{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}");
  }
  return out;
}

namespace {

bool SameValues(const Literal& got, const std::vector<std::byte>& want) {
  if (got.type != ElementType::kF32) return got.bytes == want;
  if (got.bytes.size() != want.size()) return false;
  for (size_t i = 0; i < want.size(); i += sizeof(float)) {
    float a, b;
    std::memcpy(&a, got.bytes.data() + i, sizeof a);
    std::memcpy(&b, want.data() + i, sizeof b);
    if (!(std::fabs(a - b) <= 1e-5f + 1e-5f * std::fabs(b))) return false;
  }
  return true;
}

}  // namespace

namespace {

// Where each argument and result lives: the program each device runs (with
// the compile options for it), and every value's layout and shard shape.
struct Layouts {
  std::string text;
  CompileOptions options;
  int64_t num_partitions = 1;
  std::vector<spmd::Sharding> arguments, results;
  std::vector<std::vector<int64_t>> local_arguments, local_results;
};

// Runs `layouts.text` with each device's shards of `args` and compares each
// device's result shards with `expected`.
void ExpectShardsGive(const Layouts& layouts, const std::vector<Literal>& args, const std::vector<Literal>& expected) {
  const int64_t n = layouts.num_partitions;
  ASSERT_EQ(layouts.arguments.size(), args.size());
  std::vector<std::vector<Literal>> per_device(static_cast<size_t>(n));
  for (int64_t p = 0; p < n; ++p) {
    for (size_t i = 0; i < args.size(); ++i) {
      const std::vector<int64_t>& local = layouts.local_arguments[i];
      Literal shard;
      shard.type = args[i].type;
      shard.dims = local;
      shard.bytes.assign(static_cast<size_t>(Elements(local)) * ElementBytes(args[i]), std::byte{0});
      Result<spmd::ShardRegion> region = layouts.arguments[i].RegionOf(p, args[i].dims);
      ASSERT_TRUE(region.ok());
      CopyBlock(args[i].bytes.data(), args[i].dims, region->offsets, shard.bytes.data(), local,
                std::vector<int64_t>(local.size(), 0), region->sizes, ElementBytes(args[i]));
      per_device[static_cast<size_t>(p)].push_back(std::move(shard));
    }
  }
  Result<std::vector<std::vector<Literal>>> outputs = CpuRunner::Get().RunAll(layouts.text, per_device, layouts.options);
  ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
  ASSERT_EQ(outputs->size(), static_cast<size_t>(n));

  for (size_t r = 0; r < expected.size(); ++r) {
    const Literal& want = expected[r];
    size_t element = ElementBytes(want);
    ASSERT_EQ(layouts.local_results[r], (*outputs)[0][r].dims);
    // Each device's shard, put where its sharding says; replicas of a tile
    // must agree; padding past the array is zero.
    for (int64_t p = 0; p < n; ++p) {
      const Literal& got = (*outputs)[static_cast<size_t>(p)][r];
      Result<spmd::ShardRegion> region = layouts.results[r].RegionOf(p, want.dims);
      ASSERT_TRUE(region.ok());
      Literal expected_shard;
      expected_shard.bytes.assign(got.bytes.size(), std::byte{0});
      CopyBlock(want.bytes.data(), want.dims, region->offsets, expected_shard.bytes.data(), got.dims,
                std::vector<int64_t>(got.dims.size(), 0), region->sizes, element);
      ASSERT_TRUE(SameValues(got, expected_shard.bytes)) << "result " << r << " on device " << p;
    }
  }
}

// The unpartitioned run's results (one partition: the cpu plugin runs the
// module as written, shardings ignored).
Result<std::vector<Literal>> UnpartitionedRun(const std::string& global_text, const std::vector<Literal>& args) {
  CompileOptions single;
  single.num_partitions = 1;
  return CpuRunner::Get().Run(global_text, args, single);
}

}  // namespace

void ExpectPartitionedRunGives(const std::string& global_text, const std::vector<Literal>& args,
                               const std::vector<Literal>& expected_results) {
  Result<shlo::Module> module = shlo::ParseModule(global_text, "global.mlir", shlo::ParseOptions{.verify = true});
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  Result<spmd::PartitionedProgram> program = spmd::Partition(*module);
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  SCOPED_TRACE(program->text);
  Layouts layouts;
  layouts.text = program->text;
  layouts.num_partitions = program->num_partitions;
  layouts.options.num_partitions = program->num_partitions;
  layouts.options.num_replicas = 1;
  layouts.arguments = program->argument_shardings;
  layouts.results = program->result_shardings;
  layouts.local_arguments = program->local_argument_shapes;
  layouts.local_results = program->local_result_shapes;
  ExpectShardsGive(layouts, args, expected_results);
}

void ExpectPluginPartitionedRunMatches(const std::string& global_text, const std::vector<Literal>& args) {
  SCOPED_TRACE(global_text);
  Result<std::vector<Literal>> expected = UnpartitionedRun(global_text, args);
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  ExpectPluginPartitionedRunGives(global_text, args, *expected);
}

void ExpectPluginPartitionedRunGives(const std::string& global_text, const std::vector<Literal>& args,
                                     const std::vector<Literal>& expected_results) {
  const std::vector<Literal>* expected = &expected_results;
  Result<Executable> executable = CpuRunner::Get().client().Compile(global_text);
  ASSERT_TRUE(executable.ok()) << executable.status().ToString();
  Layouts layouts;
  layouts.text = global_text;
  layouts.num_partitions = executable->num_partitions();
  ASSERT_EQ(executable->parameter_shardings().size(), args.size());
  ASSERT_EQ(executable->output_shardings().size(), expected->size());
  for (size_t i = 0; i < args.size(); ++i) {
    const ValueSharding& reported = executable->parameter_shardings()[i];
    ASSERT_EQ(reported.global_dims, args[i].dims) << "parameter " << i;
    Result<spmd::Sharding> sharding = spmd::ParseGspmdSharding(reported.sharding);
    ASSERT_TRUE(sharding.ok()) << sharding.status().ToString();
    Result<std::vector<int64_t>> local = sharding->ShardShape(args[i].dims);
    ASSERT_TRUE(local.ok()) << local.status().ToString();
    layouts.local_arguments.push_back(*local);
    layouts.arguments.push_back(*sharding);
  }
  for (size_t r = 0; r < expected->size(); ++r) {
    const ValueSharding& reported = executable->output_shardings()[r];
    ASSERT_EQ(reported.global_dims, (*expected)[r].dims) << "output " << r;
    Result<spmd::Sharding> sharding = spmd::ParseGspmdSharding(reported.sharding);
    ASSERT_TRUE(sharding.ok()) << sharding.status().ToString();
    Result<std::vector<int64_t>> local = sharding->ShardShape((*expected)[r].dims);
    ASSERT_TRUE(local.ok()) << local.status().ToString();
    layouts.local_results.push_back(*local);
    ASSERT_EQ(executable->output_dims()[r], layouts.local_results.back()) << "output " << r;
    layouts.results.push_back(*sharding);
  }
  ExpectShardsGive(layouts, args, *expected);
}

void ExpectPartitionedRunMatches(const std::string& global_text, const std::vector<Literal>& args) {
  SCOPED_TRACE(global_text);
  Result<std::vector<Literal>> expected = UnpartitionedRun(global_text, args);
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  ExpectPartitionedRunGives(global_text, args, *expected);
}

std::string PartitionedText(const std::string& global_text) {
  Result<shlo::Module> module = shlo::ParseModule(global_text, "global.mlir");
  EXPECT_TRUE(module.ok()) << module.status().ToString();
  if (!module.ok()) return "";
  Result<spmd::PartitionedProgram> program = spmd::Partition(*module);
  EXPECT_TRUE(program.ok()) << program.status().ToString();
  return program.ok() ? program->text : "";
}

std::map<std::string, int> CollectivesIn(const std::string& text) {
  std::map<std::string, int> count;
  for (const char* op : {"all_gather", "all_reduce", "all_to_all", "collective_permute", "reduce_scatter"}) {
    std::string quoted = std::string("\"stablehlo.") + op + "\"";
    for (size_t at = text.find(quoted); at != std::string::npos; at = text.find(quoted, at + 1)) ++count[op];
  }
  return count;
}

std::string LineOf(const std::string& text, const std::string& op) {
  const size_t at = text.find("\"" + op + "\"");
  if (at == std::string::npos) return "";
  const size_t begin = text.rfind('\n', at) + 1;
  return text.substr(begin, text.find('\n', at) - begin);
}

std::string ColumnSumBody(int64_t cols, int64_t rows) {
  const std::string block = "tensor<" + std::to_string(rows) + "x" + std::to_string(cols) + "xi32>";
  const std::string sums = "tensor<" + std::to_string(cols) + "xi32>";
  return R"(
      %z = stablehlo.constant dense<0> : tensor<i32>
      %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : ()" + block +
         ", tensor<i32>) -> " + sums + R"(
      %p = "stablehlo.all_reduce"(%s) ({
      ^bb0(%l: tensor<i32>, %r: tensor<i32>):
        %t = stablehlo.add %l, %r : tensor<i32>
        stablehlo.return %t : tensor<i32>
      }) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>, use_global_device_ids} : ()" +
         sums + ") -> " + sums + R"(
      %b = stablehlo.broadcast_in_dim %p, dims = [1] : ()" + sums + ") -> " + block + R"(
      %two = stablehlo.constant dense<2> : )" + block + R"(
      %m = stablehlo.multiply %x, %two : )" + block + R"(
      %r = stablehlo.add %m, %b : )" + block + "\n";
}

std::vector<Literal> ColumnSumExpected(const Literal& x, int k) {
  std::vector<int32_t> in(16 * 8), out(16 * 8), sums(8, 0);
  std::memcpy(in.data(), x.bytes.data(), x.bytes.size());
  for (size_t c = 0; c < 8; ++c) {
    for (size_t r = 0; r < 16; ++r) sums[c] += in[r * 8 + c];
    for (size_t r = 0; r < 16; ++r) out[r * 8 + c] = -(k * in[r * 8 + c] + sums[c]);
  }
  return {Literal::Of(out, {16, 8}), Literal::Of(sums, {8})};
}

}  // namespace berth::spmd_testing
