// berth::Job: joins the coordination service and serves plugins' key-value
// callbacks from it.
#include "berth/job.hpp"

#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <list>
#include <map>
#include <mutex>
#include <new>

#include "berth/c_api.h"
#include "berth/log.hpp"
#include "common/env.hpp"
#include "distributed/coordination_client.hpp"
#include "distributed/coordination_server.hpp"
#include "distributed/job_environment.hpp"
#include "distributed/node_address.hpp"

namespace berth {
namespace {

constexpr char kLogCategory[] = "distributed";

void ReleaseBytes(char* data) { delete[] data; }

BERTH_HostBytes HostBytes(std::string_view text) {
  BERTH_HostBytes bytes{};
  if (text.empty()) return bytes;
  bytes.data = new (std::nothrow) char[text.size()];
  if (bytes.data == nullptr) return bytes;
  std::memcpy(bytes.data, text.data(), text.size());
  bytes.size = text.size();
  bytes.release = ReleaseBytes;
  return bytes;
}

}  // namespace

// One plugin client's view of the store: its key prefix and the C callbacks.
struct PluginKeyValueStore {
  BERTH_KeyValueStore c_store{};
  std::string plugin_name;
  std::string prefix;  // "plugin/<name>/<k>/"
  distributed::CoordinationClient* coordination = nullptr;

  std::string Describe(std::string_view op, std::string_view key) const {
    return "key-value " + std::string(op) + " of '" + std::string(key) + "' (plugin " +
           plugin_name + ")";
  }

  static BERTH_Error_Code Get(BERTH_KeyValue_Get_Args* args) {
    if (args == nullptr || args->user_data == nullptr) return BERTH_Error_Code_INVALID_ARGUMENT;
    auto* self = static_cast<PluginKeyValueStore*>(args->user_data);
    args->value = BERTH_HostBytes{};
    args->message = BERTH_HostBytes{};
    if (args->struct_size < BERTH_KeyValue_Get_Args_STRUCT_SIZE) {
      return BERTH_Error_Code_INVALID_ARGUMENT;
    }
    std::string_view key(args->key == nullptr ? "" : args->key, args->key == nullptr ? 0 : args->key_size);
    std::string full = self->prefix + std::string(key);
    Result<std::string> value =
        args->timeout_ms < 0
            ? self->coordination->TryGet(full)
            : self->coordination->Get(full, std::chrono::milliseconds(args->timeout_ms));
    if (!value.ok()) {
      args->message = HostBytes(self->Describe("get", key) + ": " + value.status().message());
      return static_cast<BERTH_Error_Code>(value.status().code());
    }
    args->value = HostBytes(*value);
    if (!value->empty() && args->value.data == nullptr) {
      return BERTH_Error_Code_RESOURCE_EXHAUSTED;
    }
    return BERTH_Error_Code_OK;
  }

  static BERTH_Error_Code Put(BERTH_KeyValue_Put_Args* args) {
    if (args == nullptr || args->user_data == nullptr) return BERTH_Error_Code_INVALID_ARGUMENT;
    auto* self = static_cast<PluginKeyValueStore*>(args->user_data);
    args->message = BERTH_HostBytes{};
    if (args->struct_size < BERTH_KeyValue_Put_Args_STRUCT_SIZE) {
      return BERTH_Error_Code_INVALID_ARGUMENT;
    }
    std::string_view key(args->key == nullptr ? "" : args->key, args->key == nullptr ? 0 : args->key_size);
    std::string_view value(args->value == nullptr ? "" : args->value,
                           args->value == nullptr ? 0 : args->value_size);
    Status status = self->coordination->Set(self->prefix + std::string(key), value,
                                            args->allow_overwrite);
    if (!status.ok()) {
      args->message = HostBytes(self->Describe("put", key) + ": " + status.message());
      return static_cast<BERTH_Error_Code>(status.code());
    }
    return BERTH_Error_Code_OK;
  }
};

struct Job::Impl {
  JobConfig config;
  std::function<void(const Status&)> on_error;
  // The service (node 0 under an external launcher); declared before the
  // client so the client is destroyed first.
  std::unique_ptr<distributed::CoordinationServer> server;
  std::unique_ptr<distributed::CoordinationClient> client;
  std::mutex mu;
  mutable std::mutex error_mu;
  mutable std::condition_variable error_cv;
  std::optional<Status> error;
  std::map<std::string, int, std::less<>> clients_per_plugin;
  std::list<PluginKeyValueStore> stores;  // stable addresses
  bool shut_down = false;

  void OnError(const Status& status) {
    {
      std::lock_guard lock(error_mu);
      if (!error) error = status;
    }
    error_cv.notify_all();
    if (on_error) {
      on_error(status);
    } else {
      Log(LogLevel::kError, kLogCategory, "node " + std::to_string(config.node_id) +
                                              ": job failed: " + status.ToString());
    }
  }
};

Result<std::unique_ptr<Job>> Job::JoinFromEnvironment(const JobOptions& options) {
  BERTH_ASSIGN_OR_RETURN(std::optional<distributed::JobEnvironment> env,
                         distributed::DetectJobEnvironment(common::ProcessEnv()));
  if (!env) return std::unique_ptr<Job>();
  JobConfig config;
  config.node_id = env->node_id;
  config.num_nodes = env->num_nodes;
  config.coordinator_address = env->coordinator_address;
  config.token = env->token;
  config.host_service = env->node_id == 0 && env->source != "berth";
  config.devices_per_node = env->devices_per_node;
  config.num_slices = env->num_slices;
  config.slice_id = env->slice_id;
  return Join(config, options);
}

Result<std::unique_ptr<Job>> Job::Join(const JobConfig& config, const JobOptions& options) {
  if (config.num_nodes < 1 || config.node_id < 0 || config.node_id >= config.num_nodes) {
    return InvalidArgumentError("job: node id " + std::to_string(config.node_id) +
                                " is not in [0, " + std::to_string(config.num_nodes) + ")");
  }
  if (config.host_service && config.node_id != 0) {
    return InvalidArgumentError("job: only node 0 may host the coordination service, not node " +
                                std::to_string(config.node_id));
  }
  if (config.num_slices < 1 || config.num_slices > config.num_nodes || config.slice_id < 0 ||
      config.slice_id >= config.num_slices) {
    return InvalidArgumentError("job: slice " + std::to_string(config.slice_id) + " of " +
                                std::to_string(config.num_slices) + " is not a slice of a job of " +
                                std::to_string(config.num_nodes) +
                                " nodes (slice ids in [0, slices), at most one slice per node)");
  }
  if (config.devices_per_node && *config.devices_per_node < 1) {
    return InvalidArgumentError("job: devices_per_node must be at least 1, not " +
                                std::to_string(*config.devices_per_node));
  }
  auto impl = std::make_unique<Impl>();
  impl->config = config;
  impl->on_error = options.on_error;
  if (config.host_service) {
    distributed::CoordinationServerOptions server;
    server.listen_address = config.coordinator_address;
    server.num_nodes = config.num_nodes;
    server.token = config.token;
    if (config.heartbeat_timeout > std::chrono::milliseconds::zero()) {
      server.heartbeat_timeout = config.heartbeat_timeout;
    }
    Result<std::unique_ptr<distributed::CoordinationServer>> started =
        distributed::CoordinationServer::Start(server);
    if (!started.ok()) {
      return started.status().WithContext("node 0: starting the coordination service");
    }
    impl->server = std::move(started).value();
  }
  distributed::CoordinationClientOptions client;
  client.address = impl->server ? impl->server->address() : config.coordinator_address;
  client.node_id = config.node_id;
  client.num_nodes = config.num_nodes;
  client.token = config.token;
  client.connect_timeout = config.connect_timeout;
  Impl* raw = impl.get();
  client.error_callback = [raw](const Status& status) { raw->OnError(status); };
  Result<std::unique_ptr<distributed::CoordinationClient>> connected =
      distributed::CoordinationClient::Connect(client);
  if (!connected.ok()) {
    return connected.status().WithContext("node " + std::to_string(config.node_id) +
                                          ": joining the job at " + client.address);
  }
  impl->client = std::move(connected).value();
  if (impl->config.node_address.empty()) {
    Result<std::string> address = distributed::ResolveNodeAddress(common::ProcessEnv(), client.address);
    if (!address.ok()) {
      return address.status().WithContext("node " + std::to_string(config.node_id) + ": this node's address");
    }
    impl->config.node_address = std::move(address).value();
  }
  Log(LogLevel::kDebug, kLogCategory,
      "node " + std::to_string(config.node_id) + " is reached at " + impl->config.node_address);
  return std::unique_ptr<Job>(new Job(std::move(impl)));
}

Job::Job(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Job::~Job() {
  // The client's threads call back into impl_; stop them first.
  impl_->client.reset();
  impl_->server.reset();
}

int Job::node_id() const { return impl_->config.node_id; }
int Job::num_nodes() const { return impl_->client->num_nodes(); }
std::optional<int> Job::devices_per_node() const { return impl_->config.devices_per_node; }
const std::string& Job::node_address() const { return impl_->config.node_address; }
int Job::num_slices() const { return impl_->config.num_slices; }
int Job::slice_id() const { return impl_->config.slice_id; }

std::chrono::milliseconds Job::heartbeat_timeout() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(impl_->client->heartbeat_timeout());
}

ClientOptions Job::ClientOptionsFor(std::string_view plugin_name) {
  std::lock_guard lock(impl_->mu);
  int index = impl_->clients_per_plugin[std::string(plugin_name)]++;
  PluginKeyValueStore& store = impl_->stores.emplace_back();
  store.plugin_name = std::string(plugin_name);
  store.prefix = "plugin/" + std::string(plugin_name) + "/" + std::to_string(index) + "/";
  store.coordination = impl_->client.get();
  store.c_store.struct_size = BERTH_KeyValueStore_STRUCT_SIZE;
  store.c_store.user_data = &store;
  store.c_store.get = &PluginKeyValueStore::Get;
  store.c_store.put = &PluginKeyValueStore::Put;
  ClientOptions options;
  options.options["node_id"] = int64_t{impl_->config.node_id};
  options.options["num_nodes"] = int64_t{num_nodes()};
  if (num_nodes() > 1) options.options[BERTH_OPTION_NODE_ADDRESS] = impl_->config.node_address;
  if (impl_->config.devices_per_node) {
    options.options["device_count"] = int64_t{*impl_->config.devices_per_node};
  }
  options.kv_store = &store.c_store;
  options.num_slices = impl_->config.num_slices;
  options.slice_id = impl_->config.slice_id;
  return options;
}

Status Job::ReportError(const Status& error) { return impl_->client->ReportError(error); }

Status Job::Shutdown(std::chrono::milliseconds timeout) {
  {
    std::lock_guard lock(impl_->mu);
    if (impl_->shut_down) {
      return FailedPreconditionError("job: Shutdown was already called on node " +
                                     std::to_string(impl_->config.node_id));
    }
    impl_->shut_down = true;
  }
  return impl_->client->Shutdown(timeout);
}

std::optional<Status> Job::error() const {
  std::lock_guard lock(impl_->error_mu);
  return impl_->error;
}

std::optional<Status> Job::AwaitError(std::chrono::milliseconds timeout) const {
  std::unique_lock lock(impl_->error_mu);
  impl_->error_cv.wait_for(lock, timeout, [&] { return impl_->error.has_value(); });
  return impl_->error;
}

}  // namespace berth
