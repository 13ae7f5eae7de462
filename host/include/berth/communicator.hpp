// A communicator of the collectives extension (berth/ext/collectives.h):
// collective operations on buffers between devices of a job, made by
// Client::CreateCommunicator.
//
//   berth::Communicator comm = client.CreateCommunicator({0, 1, 2, 3}).value();
//   for (int64_t rank : comm.local_ranks()) {
//     auto out = comm.AllReduce(rank, inputs[rank], berth::ReduceOp::kSum);
//     ...  // out->output is ready when out->done is
//   }
//
// Every rank calls the same operations in the same order (send and recv pair
// by sender, receiver and order); each call returns at once. Errors of the
// operation itself come through its event; after one, the communicator is
// broken and later operations fail with that error.
#ifndef BERTH_COMMUNICATOR_HPP_
#define BERTH_COMMUNICATOR_HPP_

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "berth/api.hpp"
#include "berth/buffer.hpp"
#include "berth/element_type.hpp"
#include "berth/event.hpp"
#include "berth/status.hpp"

namespace berth {

// Reductions of AllReduce and ReduceScatter. On pred, sum and max are "or",
// product and min "and"; floating-point min and max propagate NaN.
enum class ReduceOp { kSum, kProduct, kMin, kMax };

struct CollectiveOutput {
  Buffer output;  // on the rank's device, ready with `done`
  Event done;     // carries the operation's error
};

class BERTH_API Communicator {
 public:
  Communicator(Communicator&&) noexcept = default;
  Communicator& operator=(Communicator&&) noexcept = default;
  // Destroys the plugin's communicator: this process's pending operations
  // fail (ABORTED); outputs and events already handed out stay valid.
  ~Communicator();

  int64_t size() const { return static_cast<int64_t>(device_ids_.size()); }
  // device_ids()[r] is rank r's device.
  const std::vector<int64_t>& device_ids() const { return device_ids_; }
  // The ranks whose devices this process holds, ascending.
  const std::vector<int64_t>& local_ranks() const { return local_ranks_; }

  // A `timeout` of 0 means the communicator's. Outputs (see
  // berth/ext/collectives.h): AllReduce the input's shape; AllGather the
  // inputs concatenated along dimension 0; ReduceScatter and AllToAll cut
  // dimension 0 in size() blocks.
  Result<CollectiveOutput> AllReduce(int64_t rank, const Buffer& input,
                                     ReduceOp op = ReduceOp::kSum,
                                     std::chrono::milliseconds timeout = {}) const;
  Result<CollectiveOutput> AllGather(int64_t rank, const Buffer& input,
                                     std::chrono::milliseconds timeout = {}) const;
  Result<CollectiveOutput> ReduceScatter(int64_t rank, const Buffer& input,
                                         ReduceOp op = ReduceOp::kSum,
                                         std::chrono::milliseconds timeout = {}) const;
  Result<CollectiveOutput> AllToAll(int64_t rank, const Buffer& input,
                                    std::chrono::milliseconds timeout = {}) const;
  // Every rank gives an input of the same type and dims; all get root's.
  Result<CollectiveOutput> Broadcast(int64_t rank, const Buffer& input, int64_t root,
                                     std::chrono::milliseconds timeout = {}) const;
  // (source, target) pairs, the same on every rank: a target gets its
  // source's input, every other rank zeros.
  Result<CollectiveOutput> CollectivePermute(int64_t rank, const Buffer& input,
                                             std::span<const std::pair<int64_t, int64_t>> pairs,
                                             std::chrono::milliseconds timeout = {}) const;
  // Ready when `input` may be freed or changed.
  Result<Event> Send(int64_t rank, const Buffer& input, int64_t peer,
                     std::chrono::milliseconds timeout = {}) const;
  Result<CollectiveOutput> Recv(int64_t rank, int64_t peer, ElementType type,
                                std::span<const int64_t> dims,
                                std::chrono::milliseconds timeout = {}) const;

  // Fails every pending and later operation with ABORTED and `reason`, in
  // this process and, through the job's key-value store, in the others.
  Status Abort(std::string_view reason) const;

  // Internal: the plugin's communicator, and one operation's arguments.
  struct BERTH_LOCAL Handle;
  struct BERTH_LOCAL Call;
  Communicator(std::shared_ptr<Handle> handle, std::vector<int64_t> device_ids,
               std::vector<int64_t> local_ranks);

 private:
  Result<CollectiveOutput> Run(const Call& call) const;

  std::shared_ptr<Handle> handle_;
  std::vector<int64_t> device_ids_;
  std::vector<int64_t> local_ranks_;
};

}  // namespace berth

#endif  // BERTH_COMMUNICATOR_HPP_
