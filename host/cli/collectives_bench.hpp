// `berth bench collectives`: times one collective over every device of the
// job (or of this process) at several sizes and checks each result, as
// nccl-tests does for NCCL. The collective runs as a StableHLO program
// compiled for the plugin, so what is measured is what a program pays.
#ifndef BERTH_HOST_CLI_COLLECTIVES_BENCH_HPP_
#define BERTH_HOST_CLI_COLLECTIVES_BENCH_HPP_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "berth/element_type.hpp"
#include "berth/status.hpp"
#include "cli/session.hpp"

namespace berth::cli {

// The collectives measured, with nccl-tests' bus-bandwidth factor.
enum class CollectiveOp { kAllReduce, kAllGather, kReduceScatter, kAllToAll };

Result<CollectiveOp> ParseCollectiveOp(std::string_view name);
std::string_view CollectiveOpName(CollectiveOp op);
// busbw / algbw for `devices` ranks: 2(n-1)/n for all_reduce, (n-1)/n else.
double BusBandwidthFactor(CollectiveOp op, int64_t devices);

// "1K,1M,16M" (powers of 1024; plain numbers are bytes). INVALID_ARGUMENT
// naming the bad entry.
Result<std::vector<int64_t>> ParseByteSizes(std::string_view list);

struct CollectiveBenchOptions {
  CollectiveOp op = CollectiveOp::kAllReduce;
  ElementType type = ElementType::kF32;
  std::vector<int64_t> sizes;      // bytes, as nccl-tests counts them (below)
  // flat | hierarchical | auto: what the session's client was opened with
  // (the plugin's client option collective_algorithm); reported as given.
  std::string algorithm = "auto";
  int warmup = 5;
  int iterations = 20;
};

// One size: `size` bytes as nccl-tests counts them: the buffer each device
// reduces (all_reduce), gathers into (all_gather), scatters from
// (reduce_scatter) or exchanges (all_to_all); rounded down to a multiple of
// devices x element size. Time is the mean wall time of one execution,
// measured on this node; algbw = size / time and busbw = algbw x
// BusBandwidthFactor, in GB/s (1e9 bytes). `correct`: every device of every
// node got exactly the reference result (integers in the program's type, so
// that any summation order gives the same value).
struct CollectiveBenchResult {
  std::string op;
  std::string dtype;
  int64_t size = 0;
  std::string algorithm;
  double time_us = 0;
  double algbw = 0;
  double busbw = 0;
  bool correct = false;
};

// The program that runs `op` on `count` elements per device (the input of
// all_reduce and all_to_all, the output of all_gather, the input of
// reduce_scatter) over `devices` replicas.
std::string CollectiveProgram(CollectiveOp op, ElementType type, int64_t count, int64_t devices);

// Runs every size on the session's devices (all of the job's): each node
// calls it at once. INVALID_ARGUMENT for an element type the check cannot
// represent or an unknown algorithm.
Result<std::vector<CollectiveBenchResult>> RunCollectivesBench(
    Session& session, const CollectiveBenchOptions& options);

}  // namespace berth::cli

#endif  // BERTH_HOST_CLI_COLLECTIVES_BENCH_HPP_
