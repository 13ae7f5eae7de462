// The devices of every process of a job, as the cpu plugin's clients agree on
// them through the host's key-value store.
#ifndef BERTH_PLUGINS_CPU_CPU_TOPOLOGY_HPP_
#define BERTH_PLUGINS_CPU_CPU_TOPOLOGY_HPP_

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "berth/plugin/key_value.hpp"
#include "berth/plugin/plugin.hpp"
#include "berth/status.hpp"

namespace berth::cpu {

struct CpuTopology {
  int node_id = 0;
  std::vector<int64_t> device_counts;  // by node
  // Where each node is reached, by node: its `node_address` (the host's,
  // C API 1.3), else its host name.
  std::vector<std::string> addresses;
  // The job's slices (the multi_slice extension) and each node's.
  int32_t num_slices = 1;
  std::vector<int32_t> slices;  // by node

  int num_nodes() const { return static_cast<int>(device_counts.size()); }
  // Global ids are given node by node: node 0's devices first.
  int64_t first_device_id(int node) const;
  // True when every node published the same address (one machine).
  bool single_host() const;
  // "node 2 (10.0.0.3)".
  std::string NodeName(int node) const;
};

// A one-process topology.
CpuTopology LocalTopology(int64_t device_count);

// Publishes this node's device count, slice and `address` (empty: its host
// name) under `topology/<node>` and reads every other node's, waiting up to
// `timeout` for each (the job's error ends the wait at once).
// FAILED_PRECONDITION when this node published a different topology before
// (a restart with other devices); INVALID_ARGUMENT naming the node for an
// unreadable entry, or for one that counts other slices than this node.
Result<CpuTopology> ExchangeTopology(const plugin::KeyValueStore& store, int node_id, int num_nodes,
                                     int64_t device_count, const plugin::SliceTopology& slices,
                                     const std::string& address, std::chrono::milliseconds timeout);

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_CPU_TOPOLOGY_HPP_
