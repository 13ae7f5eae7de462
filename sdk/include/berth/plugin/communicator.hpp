// A communicator of the collectives extension (berth/ext/collectives.h), as
// a plugin implements it. The SDK checks each call's arguments against the
// communicator (the rank is a member held by this process, the input is on
// its device and of a listed element type, dims fit the operation) before
// Run sees it.
#ifndef BERTH_PLUGIN_COMMUNICATOR_HPP_
#define BERTH_PLUGIN_COMMUNICATOR_HPP_

#include <chrono>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "berth/element_type.hpp"
#include "berth/ext/collectives.h"
#include "berth/plugin/buffer.hpp"
#include "berth/plugin/device.hpp"
#include "berth/plugin/event.hpp"
#include "berth/status.hpp"

namespace berth::plugin {

enum class CollectiveOp {
  kAllReduce = BERTH_Collectives_Op_ALL_REDUCE,
  kAllGather = BERTH_Collectives_Op_ALL_GATHER,
  kReduceScatter = BERTH_Collectives_Op_REDUCE_SCATTER,
  kAllToAll = BERTH_Collectives_Op_ALL_TO_ALL,
  kBroadcast = BERTH_Collectives_Op_BROADCAST,
  kCollectivePermute = BERTH_Collectives_Op_COLLECTIVE_PERMUTE,
  kSend = BERTH_Collectives_Op_SEND,
  kRecv = BERTH_Collectives_Op_RECV,
};

enum class ReduceOp {
  kSum = BERTH_Collectives_ReduceOp_SUM,
  kProduct = BERTH_Collectives_ReduceOp_PRODUCT,
  kMin = BERTH_Collectives_ReduceOp_MIN,
  kMax = BERTH_Collectives_ReduceOp_MAX,
};

// "all_reduce", "sum": for messages.
const char* CollectiveOpName(CollectiveOp op);
const char* ReduceOpName(ReduceOp op);

// One operation on one rank, checked.
struct CollectiveCall {
  CollectiveOp op = CollectiveOp::kAllReduce;
  int64_t rank = 0;
  Buffer* input = nullptr;  // null for kRecv
  ReduceOp reduce = ReduceOp::kSum;
  int64_t root = 0;                                // kBroadcast
  int64_t peer = 0;                                // kSend, kRecv
  std::vector<std::pair<int64_t, int64_t>> pairs;  // kCollectivePermute: (source, target)
  ElementType recv_type = ElementType::kInvalid;   // kRecv
  std::vector<int64_t> recv_dims;                  // kRecv
  std::chrono::milliseconds timeout{0};            // the communicator's when 0
  // The type and dims of the output (none for kSend), worked out by the SDK.
  ElementType output_type = ElementType::kInvalid;
  std::vector<int64_t> output_dims;
};

struct CollectiveResult {
  std::unique_ptr<Buffer> output;  // null for kSend
  Event done;
};

class Communicator {
 public:
  virtual ~Communicator() = default;
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  // device_ids()[r] is rank r's device.
  const std::vector<int64_t>& device_ids() const { return device_ids_; }
  // Rank r's device, when this process holds it; null otherwise.
  Device* local_device(int64_t rank) const { return local_devices_[static_cast<size_t>(rank)]; }

  virtual Result<CollectiveResult> Run(const CollectiveCall& call) = 0;
  // Fails every pending and later operation with `reason` (ABORTED), here
  // and in the other member processes.
  virtual void Abort(const Status& reason) = 0;

 protected:
  // `local_devices[r]`: rank r's device when it is this process's, else null.
  Communicator(std::vector<int64_t> device_ids, std::vector<Device*> local_devices)
      : device_ids_(std::move(device_ids)), local_devices_(std::move(local_devices)) {}

 private:
  std::vector<int64_t> device_ids_;
  std::vector<Device*> local_devices_;
};

}  // namespace berth::plugin

#endif  // BERTH_PLUGIN_COMMUNICATOR_HPP_
