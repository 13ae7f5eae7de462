#include "partitioned_run.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numeric>

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
  if (rank == 3) {
    out.push_back("{devices=[" + nn + ",1,1]<=[" + nn + "]}");
    out.push_back("{devices=[1," + nn + ",1]<=[" + nn + "]}");
    out.push_back("{devices=[1,1," + nn + "]<=[" + nn + "]}");
    if (n == 4) {
      out.push_back("{devices=[2,2,1]<=[4]}");
      out.push_back("{devices=[2,1,1,2]<=[4] last_tile_dim_replicate}");
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

void ExpectPartitionedRunGives(const std::string& global_text, const std::vector<Literal>& args,
                               const std::vector<Literal>& expected_results) {
  const std::vector<Literal>* expected = &expected_results;
  Result<shlo::Module> module = shlo::ParseModule(global_text, "global.mlir", shlo::ParseOptions{.verify = true});
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  Result<spmd::PartitionedProgram> program = spmd::Partition(*module);
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  SCOPED_TRACE(program->text);
  const int64_t n = program->num_partitions;

  std::vector<std::vector<Literal>> per_device(static_cast<size_t>(n));
  for (int64_t p = 0; p < n; ++p) {
    for (size_t i = 0; i < args.size(); ++i) {
      const std::vector<int64_t>& local = program->local_argument_shapes[i];
      Literal shard;
      shard.type = args[i].type;
      shard.dims = local;
      shard.bytes.assign(static_cast<size_t>(Elements(local)) * ElementBytes(args[i]), std::byte{0});
      Result<spmd::ShardRegion> region = program->argument_shardings[i].RegionOf(p, args[i].dims);
      ASSERT_TRUE(region.ok());
      CopyBlock(args[i].bytes.data(), args[i].dims, region->offsets, shard.bytes.data(), local,
                std::vector<int64_t>(local.size(), 0), region->sizes, ElementBytes(args[i]));
      per_device[static_cast<size_t>(p)].push_back(std::move(shard));
    }
  }
  CompileOptions partitioned;
  partitioned.num_partitions = n;
  partitioned.num_replicas = 1;
  Result<std::vector<std::vector<Literal>>> outputs = CpuRunner::Get().RunAll(program->text, per_device, partitioned);
  ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
  ASSERT_EQ(outputs->size(), static_cast<size_t>(n));

  for (size_t r = 0; r < expected->size(); ++r) {
    const Literal& want = (*expected)[r];
    size_t element = ElementBytes(want);
    ASSERT_EQ(program->local_result_shapes[r], (*outputs)[0][r].dims);
    // Each device's shard, put where its sharding says; replicas of a tile
    // must agree; padding past the array is zero.
    for (int64_t p = 0; p < n; ++p) {
      const Literal& got = (*outputs)[static_cast<size_t>(p)][r];
      Result<spmd::ShardRegion> region = program->result_shardings[r].RegionOf(p, want.dims);
      ASSERT_TRUE(region.ok());
      Literal expected_shard;
      expected_shard.bytes.assign(got.bytes.size(), std::byte{0});
      CopyBlock(want.bytes.data(), want.dims, region->offsets, expected_shard.bytes.data(), got.dims,
                std::vector<int64_t>(got.dims.size(), 0), region->sizes, element);
      ASSERT_TRUE(SameValues(got, expected_shard.bytes)) << "result " << r << " on device " << p;
    }
  }
}

void ExpectPartitionedRunMatches(const std::string& global_text, const std::vector<Literal>& args) {
  SCOPED_TRACE(global_text);
  CompileOptions single;
  single.num_partitions = 1;
  Result<std::vector<Literal>> expected = CpuRunner::Get().Run(global_text, args, single);
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  ExpectPartitionedRunGives(global_text, args, *expected);
}

}  // namespace berth::spmd_testing
