#include "distributed/job_environment.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <vector>

#include "berth/log.hpp"

namespace berth::distributed {
namespace {

constexpr std::string_view kLogCategory = "distributed";
constexpr size_t kMaxTokenFileBytes = 64 * 1024;

Result<int> ParseCount(const char* name, const std::string& text, int minimum) {
  int value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < minimum) {
    return InvalidArgumentError(std::string(name) + "='" + text +
                                "' is not an integer >= " + std::to_string(minimum));
  }
  return value;
}

// BERTH_NUM_SLICES and BERTH_SLICE_ID, both or neither. Without them, a
// job under srun across several hosts is a slice per host (SLURM_NNODES,
// SLURM_NODEID): processes on one host share its memory, hosts a network.
Status ReadSlices(const common::EnvReader& env, JobEnvironment& job) {
  std::optional<std::string> count = env(kEnvNumSlices);
  std::optional<std::string> id = env(kEnvSliceId);
  if (!count && !id && job.source == "slurm") {
    std::optional<std::string> hosts = env("SLURM_NNODES");
    std::optional<std::string> host = env("SLURM_NODEID");
    if (!hosts || !host) return OkStatus();
    BERTH_ASSIGN_OR_RETURN(job.num_slices, ParseCount("SLURM_NNODES", *hosts, 1));
    BERTH_ASSIGN_OR_RETURN(job.slice_id, ParseCount("SLURM_NODEID", *host, 0));
    if (job.slice_id >= job.num_slices || job.num_slices > job.num_nodes) {
      return InvalidArgumentError("SLURM_NODEID=" + *host + " and SLURM_NNODES=" + *hosts +
                                  " do not fit a job of " + std::to_string(job.num_nodes) +
                                  " tasks (SLURM_NTASKS); set BERTH_NUM_SLICES and BERTH_SLICE_ID");
    }
    return OkStatus();
  }
  if (!count && !id) return OkStatus();
  if (!count || !id) {
    return InvalidArgumentError(std::string(count ? kEnvNumSlices : kEnvSliceId) + " is set but " +
                                (count ? kEnvSliceId : kEnvNumSlices) +
                                " is not: a job of slices needs both");
  }
  BERTH_ASSIGN_OR_RETURN(job.num_slices, ParseCount(kEnvNumSlices, *count, 1));
  BERTH_ASSIGN_OR_RETURN(job.slice_id, ParseCount(kEnvSliceId, *id, 0));
  if (job.slice_id >= job.num_slices) {
    return InvalidArgumentError(std::string(kEnvSliceId) + "=" + *id + " is not below " +
                                kEnvNumSlices + "=" + *count);
  }
  if (job.num_slices > job.num_nodes) {
    return InvalidArgumentError(std::string(kEnvNumSlices) + "=" + *count + " is more than the " +
                                std::to_string(job.num_nodes) + " nodes of the job");
  }
  return OkStatus();
}

struct Launcher {
  const char* source;
  const char* rank_var;
  const char* size_var;
};

constexpr Launcher kLaunchers[] = {
    {"berth", kEnvNodeId, kEnvNumNodes},
    {"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
    {"pmi", "PMI_RANK", "PMI_SIZE"},
    {"slurm", "SLURM_PROCID", "SLURM_NTASKS"},
};

std::string Trim(std::string text) {
  const char* space = " \t\r\n\v\f";
  const size_t first = text.find_first_not_of(space);
  if (first == std::string::npos) return "";
  const size_t last = text.find_last_not_of(space);
  return text.substr(first, last - first + 1);
}

}  // namespace

Result<std::string> ReadTokenFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    const std::string message = "cannot read the coordination token file '" + path + "' (" +
                                kEnvTokenFile + "): " + std::strerror(err);
    if (err == ENOENT) return NotFoundError(message);
    if (err == EACCES) return PermissionDeniedError(message);
    return UnavailableError(message);
  }
  struct stat info {};
  if (::fstat(fd, &info) == 0 && (info.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    Log(LogLevel::kWarning, kLogCategory,
        "coordination token file '" + path + "' is accessible to other users; chmod 600 it");
  }
  std::string content;
  std::vector<char> buffer(4096);
  while (content.size() <= kMaxTokenFileBytes) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return UnavailableError("cannot read the coordination token file '" + path +
                              "': " + std::strerror(err));
    }
    if (n == 0) break;
    content.append(buffer.data(), static_cast<size_t>(n));
  }
  ::close(fd);
  if (content.size() > kMaxTokenFileBytes) {
    return InvalidArgumentError("coordination token file '" + path +
                                "' is over 64 KiB; it "
                                "should hold only the token");
  }
  content = Trim(std::move(content));
  if (content.empty()) {
    return InvalidArgumentError("coordination token file '" + path + "' is empty");
  }
  return content;
}

Result<std::string> TokenFromEnvironment(const common::EnvReader& env) {
  if (std::optional<std::string> token = env(kEnvToken)) return *token;
  if (std::optional<std::string> path = env(kEnvTokenFile); path && !path->empty()) {
    return ReadTokenFile(*path);
  }
  return std::string();
}

Result<std::optional<JobEnvironment>> DetectJobEnvironment(const common::EnvReader& env) {
  std::optional<std::string> address = env(kEnvCoordinator);
  for (const Launcher& launcher : kLaunchers) {
    std::optional<std::string> rank = env(launcher.rank_var);
    std::optional<std::string> size = env(launcher.size_var);
    if (!rank && !size) continue;
    if (!rank || !size) {
      return InvalidArgumentError(std::string(rank ? launcher.rank_var : launcher.size_var) +
                                  " is set but " + (rank ? launcher.size_var : launcher.rank_var) +
                                  " is not; set both (node id and node count)");
    }
    JobEnvironment job;
    job.source = launcher.source;
    BERTH_ASSIGN_OR_RETURN(job.node_id, ParseCount(launcher.rank_var, *rank, 0));
    BERTH_ASSIGN_OR_RETURN(job.num_nodes, ParseCount(launcher.size_var, *size, 1));
    if (job.node_id >= job.num_nodes) {
      return InvalidArgumentError(std::string(launcher.rank_var) + "=" + *rank +
                                  " is out of range for " + launcher.size_var + "=" + *size);
    }
    if (!address || address->empty()) {
      if (job.num_nodes == 1) {
        Log(LogLevel::kDebug, kLogCategory,
            std::string("one-node job (") + launcher.source + ") without " + kEnvCoordinator +
                "; running single-process");
        return std::optional<JobEnvironment>();
      }
      return FailedPreconditionError(
          "a " + std::to_string(job.num_nodes) + "-node job was detected (" + launcher.rank_var +
          "=" + *rank + ", " + launcher.size_var + "=" + *size + ") but " + kEnvCoordinator +
          " is not set; set it to the HOST:PORT of the coordination service "
          "(node 0 hosts it by default) on every node");
    }
    job.coordinator_address = *address;
    BERTH_ASSIGN_OR_RETURN(job.token, TokenFromEnvironment(env));
    if (std::optional<std::string> devices = env(kEnvDevicesPerNode)) {
      BERTH_ASSIGN_OR_RETURN(job.devices_per_node, ParseCount(kEnvDevicesPerNode, *devices, 1));
    }
    BERTH_RETURN_IF_ERROR(ReadSlices(env, job));
    return std::optional<JobEnvironment>(std::move(job));
  }
  if (address) {
    return InvalidArgumentError(std::string(kEnvCoordinator) + " is set but no node id is: set " +
                                kEnvNodeId + " and " + kEnvNumNodes +
                                " (or run under mpirun or srun)");
  }
  return std::optional<JobEnvironment>();
}

}  // namespace berth::distributed
