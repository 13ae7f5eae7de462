#include "cli/session.hpp"

#include <unistd.h>

#include "abi_version/executable_file.hpp"
#include "berth/stablehlo/parser.hpp"
#include "phase_compile/intermediate_file.hpp"
#include "cli/command.hpp"

namespace berth::cli {
namespace {

// The job failed under us: say why, and end the process at once (other
// threads may be blocked in collectives that can no longer complete).
void ExitOnJobError(int node_id, const Status& error) {
  std::string line = "berth: node " + std::to_string(node_id) + ": job failed: " +
                     error.ToString() + "\n";
  ssize_t ignored = write(STDERR_FILENO, line.data(), line.size());
  (void)ignored;
  _exit(kExitFailure);
}

}  // namespace

Result<Session> Session::Open(const std::string& plugin, bool join_job,
                              const std::filesystem::path& cache_dir,
                              const NamedValueMap& options) {
  Session session;
  session.cache_dir_ = cache_dir;
  session.options_ = options;
  if (join_job) {
    JobOptions job_options;
    auto node_id = std::make_shared<int>(0);
    job_options.on_error = [node_id](const Status& error) { ExitOnJobError(*node_id, error); };
    BERTH_ASSIGN_OR_RETURN(session.job_, Job::JoinFromEnvironment(job_options));
    if (session.job_) *node_id = session.job_->node_id();
  }
  BERTH_ASSIGN_OR_RETURN(Host host, MakeHost());
  session.host_ = std::make_unique<Host>(std::move(host));
  if (plugin.empty()) {
    BERTH_ASSIGN_OR_RETURN(session.plugin_name_, session.host_->DefaultPlugin());
  } else {
    session.plugin_name_ = plugin;
  }
  ClientOptions client_options;
  if (session.job_) client_options = session.job_->ClientOptionsFor(session.plugin_name_);
  client_options.compilation_cache_dir = cache_dir;
  for (const auto& [key, value] : options) client_options.options[key] = value;
  BERTH_ASSIGN_OR_RETURN(Client client,
                         session.host_->CreateClient(session.plugin_name_, client_options));
  session.client_.emplace(std::move(client));
  return session;
}

Result<std::string> PluginOfArtifact(std::string_view bytes, std::string_view path) {
  if (ext::phase_compile::LooksLikeIntermediate(bytes)) {
    BERTH_ASSIGN_OR_RETURN(ext::phase_compile::IntermediateFile file, ext::phase_compile::DecodeIntermediate(bytes, path));
    return file.header.plugin;
  }
  if (ext::abi_version::LooksLikeExecutableFile(bytes)) {
    BERTH_ASSIGN_OR_RETURN(ext::abi_version::ExecutableFile file, ext::abi_version::DecodeExecutableFile(bytes, path));
    return file.header.plugin;
  }
  return std::string();
}

Result<int64_t> Session::EnsureDevices(std::string_view code) {
  // Errors are the compile's to report, with the plugin's own diagnostics.
  Result<stablehlo::Module> module = stablehlo::ParseModule(code, "program");
  if (!module.ok()) return int64_t{0};
  const int64_t grid = module->num_replicas().value_or(1) * module->num_partitions().value_or(1);
  BERTH_RETURN_IF_ERROR(EnsureDeviceCount(grid));
  return grid;
}

Status Session::EnsureDeviceCount(int64_t grid) {
  // A job's devices are fixed by its nodes (BERTH_DEVICES_PER_NODE each).
  if (job_) return OkStatus();
  if (grid <= static_cast<int64_t>(client_->devices().size()) || grid > (int64_t{1} << 20)) {
    return OkStatus();
  }
  ClientOptions options;
  options.options = options_;
  options.options["device_count"] = grid;
  options.compilation_cache_dir = cache_dir_;
  Result<Client> bigger = host_->CreateClient(plugin_name_, options);
  if (bigger.ok()) {
    client_.reset();
    client_.emplace(std::move(bigger).value());
  }
  return OkStatus();
}

Result<Executable> Session::Compile(std::string_view code, const std::string& source_name,
                                   const std::string& entry, std::vector<int64_t> device_assignment,
                                   const std::string& format) {
  // Text a parser reads (a binary intermediate is not): its replica and
  // partition counts size the client.
  BERTH_RETURN_IF_ERROR(EnsureDevices(code).status());
  CompileOptions options;
  options.format = format;
  options.entry_name = entry;
  options.device_assignment = std::move(device_assignment);
  options.options["source_name"] = source_name;
  return client_->Compile(code, options);
}

Result<RunOutput> Session::Run(std::string_view code, const std::string& source_name,
                               const std::string& entry, const std::vector<HostArray>& args) {
  BERTH_ASSIGN_OR_RETURN(Executable executable, Compile(code, source_name, entry));
  return Execute(executable, args);
}

Result<RunOutput> Session::Execute(const Executable& executable,
                                   const std::vector<HostArray>& args) {
  return ExecuteWith(executable, [&](size_t) -> const std::vector<HostArray>& { return args; });
}

Result<RunOutput> Session::ExecuteEach(const Executable& executable,
                                       const std::vector<std::vector<HostArray>>& args_per_device) {
  if (args_per_device.size() != executable.addressable_devices().size()) {
    return InvalidArgumentError(std::to_string(args_per_device.size()) + " argument lists for " +
                                std::to_string(executable.addressable_devices().size()) + " devices");
  }
  return ExecuteWith(executable, [&](size_t d) -> const std::vector<HostArray>& { return args_per_device[d]; });
}

Result<RunOutput> Session::ExecuteWith(const Executable& executable,
                                       const std::function<const std::vector<HostArray>&(size_t)>& args_of) {
  RunOutput output;
  const std::vector<Device>& devices = executable.addressable_devices();
  std::vector<std::vector<Buffer>> buffers(devices.size());
  std::vector<std::vector<const Buffer*>> lists(devices.size());
  for (size_t d = 0; d < devices.size(); ++d) {
    output.device_ids.push_back(devices[d].id());
    const std::vector<HostArray>& args = args_of(d);
    for (size_t i = 0; i < args.size(); ++i) {
      const HostArray& arg = args[i];
      Result<Buffer> buffer = client_->BufferFromHost(arg.bytes.data(), arg.type, arg.dims, devices[d]);
      if (!buffer.ok()) return buffer.status().WithContext("argument " + std::to_string(i));
      buffers[d].push_back(std::move(buffer).value());
    }
    for (const Buffer& buffer : buffers[d]) lists[d].push_back(&buffer);
  }
  BERTH_ASSIGN_OR_RETURN(ExecuteResult result, executable.Execute(lists));
  for (size_t d = 0; d < devices.size(); ++d) {
    BERTH_RETURN_IF_ERROR(result.completion[d].Await());
    std::vector<HostArray> arrays;
    for (const Buffer& buffer : result.outputs[d]) {
      HostArray array;
      array.type = buffer.element_type();
      array.dims = buffer.dims();
      BERTH_ASSIGN_OR_RETURN(array.bytes, buffer.ToHostBytes());
      arrays.push_back(std::move(array));
    }
    output.results.push_back(std::move(arrays));
  }
  return output;
}

void FailJob(Job& job, const Status& status) {
  const StatusCode code = status.code();
  if (code == StatusCode::kUnavailable || code == StatusCode::kAborted ||
      code == StatusCode::kDeadlineExceeded || code == StatusCode::kCancelled) {
    job.AwaitError(job.heartbeat_timeout() + std::chrono::seconds(2));
  }
  (void)job.ReportError(status);
}

}  // namespace berth::cli
