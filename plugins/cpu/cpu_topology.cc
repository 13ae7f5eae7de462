#include "cpu_topology.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>

namespace berth::cpu {
namespace {

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "localhost";
  return name;
}

// "devices=K slice=S/N host=NAME" (the host name last: it is free text).
struct Entry {
  int64_t device_count = 0;
  int32_t slice_id = 0;
  int32_t num_slices = 1;
  std::string host;
};

std::string Encode(const Entry& entry) {
  return "devices=" + std::to_string(entry.device_count) +
         " slice=" + std::to_string(entry.slice_id) + "/" + std::to_string(entry.num_slices) +
         " host=" + entry.host;
}

// Reads the integer `text` is made of into `out`.
template <typename T>
bool ReadInt(std::string_view text, T& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

Result<Entry> Decode(std::string_view text, int node) {
  auto bad = [&] {
    return InvalidArgumentError(
        "cpu topology: node " + std::to_string(node) + " published an unreadable entry '" +
        std::string(text.substr(0, 100)) +
        "' (expected 'devices=K slice=S/N host=NAME'); is every node running "
        "the same berth version?");
  };
  constexpr std::string_view kDevices = "devices=";
  constexpr std::string_view kSlice = " slice=";
  constexpr std::string_view kHost = " host=";
  if (text.substr(0, kDevices.size()) != kDevices) return bad();
  size_t host_at = text.find(kHost);
  size_t slice_at = text.find(kSlice);
  if (host_at == std::string_view::npos || slice_at == std::string_view::npos ||
      slice_at > host_at) {
    return bad();
  }
  Entry entry;
  std::string_view slice =
      text.substr(slice_at + kSlice.size(), host_at - slice_at - kSlice.size());
  size_t slash = slice.find('/');
  if (!ReadInt(text.substr(kDevices.size(), slice_at - kDevices.size()), entry.device_count) ||
      entry.device_count < 1 || slash == std::string_view::npos ||
      !ReadInt(slice.substr(0, slash), entry.slice_id) ||
      !ReadInt(slice.substr(slash + 1), entry.num_slices) || entry.num_slices < 1 ||
      entry.slice_id < 0 || entry.slice_id >= entry.num_slices) {
    return bad();
  }
  entry.host = std::string(text.substr(host_at + kHost.size()));
  return entry;
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
  topology.slices = {0};
  topology.addresses = {HostName()};
  return topology;
}

Result<CpuTopology> ExchangeTopology(const plugin::KeyValueStore& store, int node_id, int num_nodes,
                                     int64_t device_count, const plugin::SliceTopology& slices,
                                     const std::string& address,
                                     std::chrono::milliseconds timeout) {
  const std::string mine = Encode(Entry{device_count, slices.slice_id, slices.num_slices,
                                        address.empty() ? HostName() : address});
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
  topology.num_slices = slices.num_slices;
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
    BERTH_ASSIGN_OR_RETURN(Entry entry, Decode(text, node));
    if (entry.num_slices != slices.num_slices) {
      return InvalidArgumentError("cpu topology: node " + std::to_string(node) + " (" + entry.host +
                                  ") is in a job of " + std::to_string(entry.num_slices) +
                                  " slices, node " + std::to_string(node_id) + " in one of " +
                                  std::to_string(slices.num_slices) +
                                  " (BERTH_NUM_SLICES must be the same on every node)");
    }
    topology.device_counts.push_back(entry.device_count);
    topology.slices.push_back(entry.slice_id);
    topology.addresses.push_back(std::move(entry.host));
  }
  for (int32_t slice = 0; slice < slices.num_slices; ++slice) {
    if (std::find(topology.slices.begin(), topology.slices.end(), slice) == topology.slices.end()) {
      return InvalidArgumentError("cpu topology: slice " + std::to_string(slice) + " of " +
                                  std::to_string(slices.num_slices) + " has no node");
    }
  }
  int64_t total = topology.first_device_id(num_nodes);
  if (total > (int64_t{1} << 31)) {
    return InvalidArgumentError("cpu topology: the job has " + std::to_string(total) +
                                " devices, more than 2^31");
  }
  return topology;
}

}  // namespace berth::cpu
