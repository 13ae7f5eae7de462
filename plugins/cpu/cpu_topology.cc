#include "cpu_topology.hpp"

#include <unistd.h>

#include <charconv>

namespace berth::cpu {
namespace {

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "localhost";
  return name;
}

// "devices=K host=NAME"
std::string Encode(int64_t device_count, const std::string& host) {
  return "devices=" + std::to_string(device_count) + " host=" + host;
}

Status Decode(std::string_view text, int node, int64_t& device_count, std::string& host) {
  auto bad = [&] {
    return InvalidArgumentError("cpu topology: node " + std::to_string(node) +
                                " published an unreadable entry '" + std::string(text.substr(0, 100)) +
                                "' (expected 'devices=K host=NAME'); is every node running the "
                                "same berth version?");
  };
  constexpr std::string_view kDevices = "devices=";
  constexpr std::string_view kHost = " host=";
  if (text.substr(0, kDevices.size()) != kDevices) return bad();
  size_t host_at = text.find(kHost);
  if (host_at == std::string_view::npos) return bad();
  std::string_view count = text.substr(kDevices.size(), host_at - kDevices.size());
  auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), device_count);
  if (ec != std::errc() || end != count.data() + count.size() || device_count < 1) return bad();
  host = std::string(text.substr(host_at + kHost.size()));
  return OkStatus();
}

}  // namespace

int64_t CpuTopology::first_device_id(int node) const {
  int64_t id = 0;
  for (int n = 0; n < node; ++n) id += device_counts[static_cast<size_t>(n)];
  return id;
}

bool CpuTopology::single_host() const {
  for (const std::string& host : addresses) {
    if (host != addresses.front()) return false;
  }
  return true;
}

std::string CpuTopology::NodeName(int node) const {
  std::string name = "node " + std::to_string(node);
  if (node >= 0 && static_cast<size_t>(node) < addresses.size()) name += " (" + addresses[static_cast<size_t>(node)] + ")";
  return name;
}

CpuTopology LocalTopology(int64_t device_count) {
  CpuTopology topology;
  topology.device_counts = {device_count};
  topology.addresses = {HostName()};
  return topology;
}

Result<CpuTopology> ExchangeTopology(const plugin::KeyValueStore& store, int node_id, int num_nodes,
                                     int64_t device_count, const std::string& address,
                                     std::chrono::milliseconds timeout) {
  const std::string mine = Encode(device_count, address.empty() ? HostName() : address);
  const std::string my_key = "topology/" + std::to_string(node_id);
  Status put = store.Put(my_key, mine, /*allow_overwrite=*/false);
  if (put.code() == StatusCode::kAlreadyExists) {
    BERTH_ASSIGN_OR_RETURN(std::optional<std::string> before, store.TryGet(my_key));
    if (before && *before != mine) {
      return FailedPreconditionError("cpu topology: node " + std::to_string(node_id) +
                                     " joined before with '" + *before + "', now with '" + mine +
                                     "'; a restarted node must keep its devices");
    }
  } else if (!put.ok()) {
    return put.WithContext("cpu topology: publishing node " + std::to_string(node_id) + "'s devices");
  }
  CpuTopology topology;
  topology.node_id = node_id;
  for (int node = 0; node < num_nodes; ++node) {
    std::string text = mine;
    if (node != node_id) {
      Result<std::string> value = store.Get("topology/" + std::to_string(node), timeout);
      if (!value.ok()) {
        return value.status().WithContext("cpu topology: waiting for node " + std::to_string(node) +
                                          "'s devices");
      }
      text = std::move(value).value();
    }
    int64_t count = 0;
    std::string host;
    BERTH_RETURN_IF_ERROR(Decode(text, node, count, host));
    topology.device_counts.push_back(count);
    topology.addresses.push_back(std::move(host));
  }
  int64_t total = topology.first_device_id(num_nodes);
  if (total > (int64_t{1} << 31)) {
    return InvalidArgumentError("cpu topology: the job has " + std::to_string(total) +
                                " devices, more than 2^31");
  }
  return topology;
}

}  // namespace berth::cpu
