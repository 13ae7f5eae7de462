// A host and one client for the commands that run programs (run, check).
#ifndef BERTH_HOST_CLI_SESSION_HPP_
#define BERTH_HOST_CLI_SESSION_HPP_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "berth/host.hpp"
#include "berth/job.hpp"
#include "cli/host_array.hpp"

namespace berth::cli {

// The plugin that made `bytes` when they are a berth-executable file or a
// compile intermediate (checked: errors name `path`); empty for anything else.
Result<std::string> PluginOfArtifact(std::string_view bytes, std::string_view path);

// Outputs of one program run, per addressable device of the program.
struct RunOutput {
  std::vector<int64_t> device_ids;
  std::vector<std::vector<HostArray>> results;  // [device][result]
};

class Session {
 public:
  // Loads `plugin` (empty: the highest-priority usable one) and makes a client.
  // With `join_job`, first joins the multi-process job the environment
  // describes, if any (BERTH_COORDINATOR ...): the client then spans every
  // node's devices. A fatal job error ends the process (exit code 1) after
  // printing it, as nothing in flight can finish. `cache_dir` (empty:
  // BERTH_COMPILATION_CACHE_DIR, if set) keeps compiled executables between
  // runs (ClientOptions::compilation_cache_dir). `options` are more client
  // options, for every client the session makes.
  static Result<Session> Open(const std::string& plugin, bool join_job = false,
                              const std::filesystem::path& cache_dir = {},
                              const NamedValueMap& options = {});

  const std::string& plugin_name() const { return plugin_name_; }
  // The job this process is a node of; null when single-process.
  Job* job() { return job_.get(); }
  Client& client() { return *client_; }

  // Compiles `code` (`source_name` names it in messages) and runs `entry`
  // (empty: the program's default) once on each of its devices with `args`.
  // A program whose mhlo.num_replicas x mhlo.num_partitions exceeds the
  // client's devices gets a client created with that "device_count" (plugins
  // with virtual devices, like cpu, accept it; others report their error).
  Result<RunOutput> Run(std::string_view code, const std::string& source_name,
                        const std::string& entry, const std::vector<HostArray>& args);
  // The compile step of Run; `device_assignment` as CompileOptions has it
  // (empty: the plugin's default); `format` the program's (a phase's output
  // format loads that phase's intermediate).
  Result<Executable> Compile(std::string_view code, const std::string& source_name,
                             const std::string& entry, std::vector<int64_t> device_assignment = {},
                             const std::string& format = "stablehlo");
  // Runs a compiled (or deserialized) executable once on each of its devices.
  Result<RunOutput> Execute(const Executable& executable, const std::vector<HostArray>& args);
  // The same with other arguments per device: `args[d]` for the executable's
  // addressable_devices()[d].
  Result<RunOutput> ExecuteEach(const Executable& executable, const std::vector<std::vector<HostArray>>& args);

 // Outside a job, replaces the client with one of as many devices as `code`
  // (MLIR text; anything else is left alone) needs for its replicas x
  // partitions, when the plugin takes a device_count; returns that count (0
  // when `code` is not MLIR). Compile calls it.
  Result<int64_t> EnsureDevices(std::string_view code);
  // The same for a known count.
  Status EnsureDeviceCount(int64_t count);

 private:
  Result<RunOutput> ExecuteWith(const Executable& executable,
                                const std::function<const std::vector<HostArray>&(size_t)>& args_of);

  // Destroyed last: the client uses the job's key-value store.
  std::unique_ptr<Job> job_;
  std::filesystem::path cache_dir_;
  NamedValueMap options_;
  std::unique_ptr<Host> host_;
  std::string plugin_name_;
  std::optional<Client> client_;
};

// A failed run in a job. A collective that lost its peer fails here before
// the coordination service declares the peer dead: waits for that verdict
// (the session's error handler prints it, naming the node, and exits). Any
// other failure is this node's own: reports it so the other nodes stop at once.
void FailJob(Job& job, const Status& status);

}  // namespace berth::cli

#endif  // BERTH_HOST_CLI_SESSION_HPP_
