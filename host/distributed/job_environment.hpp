// Where a node learns its place in a multi-process job: node id, node count,
// coordinator address and token, from `berth launch`'s variables or from the
// launcher the job runs under (OpenMPI, MPICH/PMI, SLURM).
#ifndef BERTH_HOST_DISTRIBUTED_JOB_ENVIRONMENT_HPP_
#define BERTH_HOST_DISTRIBUTED_JOB_ENVIRONMENT_HPP_

#include <optional>
#include <string>

#include "berth/status.hpp"
#include "common/env.hpp"

namespace berth::distributed {

// Environment variables read and written by Berth's distributed runtime.
inline constexpr char kEnvCoordinator[] = "BERTH_COORDINATOR";  // HOST:PORT
inline constexpr char kEnvNodeId[] = "BERTH_NODE_ID";
inline constexpr char kEnvNumNodes[] = "BERTH_NUM_NODES";
inline constexpr char kEnvToken[] = "BERTH_COORDINATOR_TOKEN";
inline constexpr char kEnvTokenFile[] = "BERTH_COORDINATOR_TOKEN_FILE";
inline constexpr char kEnvDevicesPerNode[] = "BERTH_DEVICES_PER_NODE";
inline constexpr char kEnvNumSlices[] = "BERTH_NUM_SLICES";
inline constexpr char kEnvSliceId[] = "BERTH_SLICE_ID";

struct JobEnvironment {
  int node_id = 0;
  int num_nodes = 1;
  std::string coordinator_address;  // HOST:PORT
  std::string token;                // empty: no authentication
  std::optional<int> devices_per_node;
  // The job's slices (BERTH_NUM_SLICES, BERTH_SLICE_ID) and this node's.
  int num_slices = 1;
  int slice_id = 0;
  // Where id and count came from: "berth", "openmpi", "pmi" or "slurm".
  std::string source;
};

// Reads the job environment. Id and count come from BERTH_NODE_ID and
// BERTH_NUM_NODES, else OMPI_COMM_WORLD_RANK/SIZE, else PMI_RANK/SIZE, else
// SLURM_PROCID/SLURM_NTASKS; the address always from BERTH_COORDINATOR; the
// token from BERTH_COORDINATOR_TOKEN or the file BERTH_COORDINATOR_TOKEN_FILE
// names; the slices from BERTH_NUM_SLICES and BERTH_SLICE_ID (both or
// neither; the id in [0, count), the count at most the node count). Returns
// nullopt when no multi-process job is detected (nothing set,
// or a one-node job without a coordinator): the caller runs single-process.
// Errors (INVALID_ARGUMENT, FAILED_PRECONDITION, NOT_FOUND for the token
// file) name the variable and what to set.
Result<std::optional<JobEnvironment>> DetectJobEnvironment(const common::EnvReader& env);

// The token in `path`, surrounding whitespace removed. Warns (log) when the
// file can be read by other users. Errors name the file, never its content.
Result<std::string> ReadTokenFile(const std::string& path);

// BERTH_COORDINATOR_TOKEN, else the content of BERTH_COORDINATOR_TOKEN_FILE,
// else "" (no authentication).
Result<std::string> TokenFromEnvironment(const common::EnvReader& env);

}  // namespace berth::distributed

#endif  // BERTH_HOST_DISTRIBUTED_JOB_ENVIRONMENT_HPP_
