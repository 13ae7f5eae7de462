// A host and one client for the commands that run programs (run, check).
#ifndef BERTH_HOST_CLI_SESSION_HPP_
#define BERTH_HOST_CLI_SESSION_HPP_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "berth/host.hpp"
#include "cli/host_array.hpp"

namespace berth::cli {

// Outputs of one program run, per addressable device of the program.
struct RunOutput {
  std::vector<int64_t> device_ids;
  std::vector<std::vector<HostArray>> results;  // [device][result]
};

class Session {
 public:
  // Loads `plugin` (empty: the highest-priority usable one) and makes a client.
  static Result<Session> Open(const std::string& plugin);

  const std::string& plugin_name() const { return plugin_name_; }
  Client& client() { return *client_; }

  // Compiles `code` (`source_name` names it in messages) and runs `entry`
  // (empty: the program's default) once on each of its devices with `args`.
  // A program whose mhlo.num_replicas x mhlo.num_partitions exceeds the
  // client's devices gets a client created with that "device_count" (plugins
  // with virtual devices, like cpu, accept it; others report their error).
  Result<RunOutput> Run(std::string_view code, const std::string& source_name,
                        const std::string& entry, const std::vector<HostArray>& args);

 private:
  Status EnsureDevices(std::string_view code);

  std::unique_ptr<Host> host_;
  std::string plugin_name_;
  std::optional<Client> client_;
};

}  // namespace berth::cli

#endif  // BERTH_HOST_CLI_SESSION_HPP_
