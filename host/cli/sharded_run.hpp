// `berth run` of a sharded module: the SPMD partitioner's per-device
// program, each device given only its part of each global argument, every
// result gathered in the program so that each device (and each node of a
// job) holds the global result.
#ifndef BERTH_HOST_CLI_SHARDED_RUN_HPP_
#define BERTH_HOST_CLI_SHARDED_RUN_HPP_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "berth/spmd/partitioner.hpp"
#include "berth/status.hpp"
#include "cli/host_array.hpp"
#include "cli/session.hpp"

namespace berth::cli {

// The partitioner's options from the command line: `partitions` > 0
// overrides the module's partition count, a non-empty `mesh` ("x=2,y=2")
// its sdy.mesh. INVALID_ARGUMENT for a malformed mesh.
Result<spmd::PartitionOptions> PartitionFlags(int64_t partitions, const std::string& mesh);

// The custom partitioning rules the extension modules attached to `client`
// give (custom_partitioner modules), for the host-side partitioner.
spmd::CustomCallRules ModuleRules(const Client& client);

// The partitioned program when `code` is StableHLO text whose entry
// function's arguments or results carry shardings (mhlo.sharding or
// sdy.sharding) or that holds shard_map regions; nullopt for anything else
// (text that does not parse is left to the compile to report). Every
// result is gathered in the program (replicated_results).
Result<std::optional<spmd::PartitionedProgram>> PartitionIfSharded(std::string_view code,
                                                                    const std::string& source_name,
                                                                    spmd::PartitionOptions options);

// The part of `global` that a device holding `region` of it keeps, in the
// padded shard shape `local` (zeros past the array's end).
HostArray ShardOf(const HostArray& global, const spmd::ShardRegion& region, const std::vector<int64_t>& local);

// Compiles `program` (partition p on device p) and runs it with each
// device's shards of `global_args`. The output holds the global results
// once, as computed by the first addressable device; every other device's
// must be the same (INTERNAL otherwise). Argument count or shapes other
// than the module's: INVALID_ARGUMENT naming the argument.
Result<RunOutput> RunSharded(Session& session, const spmd::PartitionedProgram& program,
                             const std::string& source_name, const std::vector<HostArray>& global_args);

// Runs an executable the plugin partitioned (its parameter_shardings set, as
// a `partition` or `plan` intermediate loads) on global arguments: each is
// split as its layout says (berth::ShardedArray), the program runs on every
// partition, and each result is gathered into its global array. Argument
// count or shapes other than the program's: INVALID_ARGUMENT naming the
// argument.
Result<RunOutput> RunPartitionedExecutable(Session& session, const Executable& executable,
                                           const std::vector<HostArray>& global_args);

}  // namespace berth::cli

#endif  // BERTH_HOST_CLI_SHARDED_RUN_HPP_
