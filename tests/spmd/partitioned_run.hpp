// The partitioner's test harness: seeded inputs, the shardings worth
// trying, and a partitioned run on the cpu plugin compared shard by shard
// with the expected global results.
#ifndef BERTH_TESTS_SPMD_PARTITIONED_RUN_HPP_
#define BERTH_TESTS_SPMD_PARTITIONED_RUN_HPP_

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "program_runner.hpp"

namespace berth::spmd_testing {

// f32 values in [-1, 1] or i32 values in [-50, 50].
testing::Literal RandomLiteral(ElementType type, std::vector<int64_t> dims, std::mt19937_64& rng);

// Shardings (GSPMD text) worth trying on a value of `rank` (1 to 4) dims
// over `n` devices: replicated, tiled along each dimension (rank 4: the
// first, second and last), and with 4 devices 2-D meshes and partial
// replication.
std::vector<std::string> ShardingsFor(size_t rank, int64_t n);

// Partitions `global_text`, runs it with each device's shards of `args`
// on the cpu plugin, and compares each device's result shards with
// `expected` (integers exactly, f32 within 1e-5 relative: a split
// contracting dimension sums in another order; padding must be zero).
void ExpectPartitionedRunGives(const std::string& global_text, const std::vector<testing::Literal>& args,
                               const std::vector<testing::Literal>& expected);

// The same, the expected results being the unpartitioned run's.
void ExpectPartitionedRunMatches(const std::string& global_text, const std::vector<testing::Literal>& args);

// The global module compiled as it is: the cpu plugin partitions it and
// reports each parameter's and output's layout; each device's shards, cut
// as reported, give the unpartitioned run's results.
void ExpectPluginPartitionedRunMatches(const std::string& global_text, const std::vector<testing::Literal>& args);
// The same against `expected` (for programs one device cannot run: shard_maps).
void ExpectPluginPartitionedRunGives(const std::string& global_text, const std::vector<testing::Literal>& args,
                                     const std::vector<testing::Literal>& expected);

// The per-device text spmd::Partition writes for `global_text` ("" after
// a test failure when it does not parse or partition).
std::string PartitionedText(const std::string& global_text);

// How many times each collective op appears in a partitioned program's
// `text`.
std::map<std::string, int> CollectivesIn(const std::string& text);

// The line of `text` that writes `op` ("stablehlo.exponential"), or "".
std::string LineOf(const std::string& text, const std::string& op);

// The body of the column-sum shard_maps (manual_computation_test.cc,
// nested_manual_test.cc): on %x, a `rows` x `cols` block of i32, it sums
// the block's rows, psums the sums over devices {0, 2} and {1, 3} (axis "x"
// of a 2x2 mesh, device x * 2 + y), and defines %p, those sums, and %r,
// 2 * %x plus the sums in every row.
std::string ColumnSumBody(int64_t cols, int64_t rows = 8);

// What those shard_maps give for a 16x8 argument `x` whose row halves the
// psum adds up: -(k * x + column sums), and the column sums, by scalar
// loops.
std::vector<testing::Literal> ColumnSumExpected(const testing::Literal& x, int k);

}  // namespace berth::spmd_testing

#endif  // BERTH_TESTS_SPMD_PARTITIONED_RUN_HPP_
