// The cpu plugin's communicators (the collectives extension,
// berth/ext/collectives.h).
//
// Each operation runs on its rank's device stream, in call order with the
// device's other work. The ranks of this process meet in a CollectiveGroup
// (the rendezvous programs' collectives use); when the communicator spans
// processes, the last local rank to arrive exchanges for all of them over
// Gloo contexts of the communicator's own (GlooCollectives: ring all-gather,
// ring or hierarchical all-reduce, point-to-point messages), whose waits
// Abort interrupts. Before its data, every operation exchanges a signature
// (operation, element type, dims, reduction, root, pairs), so that ranks
// calling different operations fail with both named instead of mixing data.
//
// Spanning processes, each process publishes in the job's key-value store
// how many operations each of its ranks has started (at most every 20 ms,
// from a thread of the communicator), and polls the communicator's abort key
// while an operation of its is pending. A timeout reads the other processes'
// counts to name the ranks that did not arrive.
#ifndef BERTH_PLUGINS_CPU_CPU_COMMUNICATOR_HPP_
#define BERTH_PLUGINS_CPU_CPU_COMMUNICATOR_HPP_

#include <chrono>
#include <memory>
#include <vector>

#include "berth/plugin/communicator.hpp"

namespace berth::cpu {

class CpuClient;

// Default time an operation (and creation) waits for the other ranks.
inline constexpr std::chrono::milliseconds kCommunicatorTimeout{120000};

class CpuCommunicator final : public plugin::Communicator {
 public:
  // `device_ids` are checked by the SDK (devices of `client`, no repeats,
  // one of them local). Every process holding one of them creates the
  // communicator: DEADLINE_EXCEEDED naming the ranks of processes that did
  // not within `timeout` (0: kCommunicatorTimeout).
  static Result<std::unique_ptr<CpuCommunicator>> Create(CpuClient& client,
                                                         const std::vector<int64_t>& device_ids,
                                                         std::chrono::milliseconds timeout);
  // Fails this process's pending operations (ABORTED); the other processes
  // are not told (their pending operations with this one time out).
  ~CpuCommunicator() override;

  Result<plugin::CollectiveResult> Run(const plugin::CollectiveCall& call) override;
  void Abort(const Status& reason) override;

  struct State;

 private:
  CpuCommunicator(std::vector<int64_t> device_ids, std::vector<plugin::Device*> local_devices,
                  std::shared_ptr<State> state);

  std::shared_ptr<State> state_;
};

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_CPU_COMMUNICATOR_HPP_
