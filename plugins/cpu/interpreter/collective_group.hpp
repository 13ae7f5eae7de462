// The rendezvous of one launch: every program instance of the launch (one
// per device in the replica x partition grid) meets here for collectives.
// A failure in one instance aborts the group, so no peer waits forever.
//
// In a multi-process job the grid spans processes. The instances of this
// process meet here first; the last one to arrive then exchanges for all of
// them with the other processes of the process group (Gloo), and hands the
// result back. Every process sees the same values, in group order.
#ifndef BERTH_PLUGINS_CPU_INTERPRETER_COLLECTIVE_GROUP_HPP_
#define BERTH_PLUGINS_CPU_INTERPRETER_COLLECTIVE_GROUP_HPP_

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cpu/distributed/gloo_collectives.hpp"
#include "interpreter/reduction.hpp"
#include "interpreter/tensor.hpp"

namespace berth::cpu {

class ExecContext;

// Where the instances of a launch run, for grids spanning processes.
struct InstancePlacement {
  int self_node = 0;
  // Node of each instance (by logical id); empty: every instance is local.
  std::vector<int> node_of_instance;
  GlooCollectives* gloo = nullptr;  // borrowed; null in a single process
  // Put before the names of the Gloo groups (and so of their rendezvous
  // keys): a communicator's own, so that its groups never meet a program's.
  std::string group_prefix;
};

// Combines `x` into `acc` element by element (same type and shape).
using CombineFn = std::function<void(Tensor& acc, const Tensor& x)>;

class CollectiveGroup {
 public:
  // `num_instances` program instances take part (indexed 0..n-1 by their
  // logical id r * num_partitions + p).
  explicit CollectiveGroup(int64_t num_instances, InstancePlacement placement = {})
      : instances_(num_instances, nullptr), placement_(std::move(placement)) {}

  int64_t num_instances() const { return static_cast<int64_t>(instances_.size()); }

  // Registers an instance's context so Abort can cancel it.
  void Attach(int64_t instance, ExecContext* ctx);
  void Detach(int64_t instance);

  // Stops every instance: waiters get `reason`, running ones stop at their
  // next op. The first reason wins.
  void Abort(const Status& reason);

  // Each of the `participants` (instance ids, in group order) calls this with
  // the same `key` and its value; all get every value, in group order, once
  // the last one arrives. DEADLINE_EXCEEDED naming the missing instances
  // after `timeout`; the abort reason after Abort.
  Result<std::vector<Tensor>> Exchange(const std::string& key, int64_t instance,
                                       const std::vector<int64_t>& participants, Tensor value,
                                       std::chrono::milliseconds timeout);

  // True when some of `participants` run in another process.
  bool SpansProcesses(const std::vector<int64_t>& participants) const;
  // True when every instance runs in this process.
  bool IsLocal() const;

  // Queues of values by name (send/recv channels; the host queues infeed
  // and outfeed): Put appends, Take removes the oldest, waiting for one up
  // to `timeout` (DEADLINE_EXCEEDED naming the queue) or the abort reason.
  // In this process only.
  void Put(const std::string& queue, Tensor value);
  Result<Tensor> Take(const std::string& queue, std::chrono::milliseconds timeout);

  // Whether the group holds host queues: interpreter.run_parallel's, which
  // feeds infeed (its `infeed` functions) and keeps what outfeed and host
  // sends give. A launch's group has none: the plugin has no host transfer
  // API.
  bool has_host_queues() const { return has_host_queues_; }
  void EnableHostQueues() { has_host_queues_ = true; }

  // The elementwise reduction of every participant's `value` (for reductions
  // Gloo can run: `combine` locally, `reduce` on raw elements across
  // processes). Only for participants that span processes.
  Result<Tensor> Reduce(const std::string& key, int64_t instance,
                        const std::vector<int64_t>& participants, Tensor value,
                        const CombineFn& combine, const GlooReduceFn& reduce,
                        std::chrono::milliseconds timeout);
  // Reduce with `reducer` on `value`'s element type (CombineArrays), which
  // must be one the reducers take.
  Result<Tensor> ReduceElementwise(const std::string& key, int64_t instance,
                                   const std::vector<int64_t>& participants, Tensor value,
                                   Reducer reducer, std::chrono::milliseconds timeout);

 private:
  struct Meeting {
    std::map<int64_t, Tensor> values;  // by instance
    size_t expected = 0;               // participants in this process
    size_t collected = 0;              // participants that took the result
    bool done = false;                 // every value (or the result) is in
    Status error;                      // the cross-process step failed
    Tensor reduced;                    // Reduce's result
  };

  int NodeOf(int64_t instance) const;
  // Adds `instance`'s value to the meeting `key` (mutex_ held): the meeting,
  // or the group's abort reason, or INTERNAL when the instance joined twice.
  Result<Meeting*> JoinLocked(const std::string& key, int64_t instance,
                              const std::vector<int64_t>& participants, Tensor value);
  // The other processes' part of a meeting whose local values are all in;
  // runs on the last local arriver, without the lock.
  Status GatherRemote(const std::string& key, const std::vector<int64_t>& participants,
                      std::map<int64_t, Tensor>& values, std::chrono::milliseconds timeout);
  Result<Tensor> ReduceRemote(const std::string& key, const std::vector<int64_t>& participants,
                              const std::map<int64_t, Tensor>& values, const CombineFn& combine,
                              const GlooReduceFn& reduce, std::chrono::milliseconds timeout);
  // Waits for the meeting to be done (or the group aborted); then takes the
  // participant's share and forgets the meeting after the last one.
  Status AwaitMeeting(std::unique_lock<std::mutex>& lock, const std::string& key,
                      const std::vector<int64_t>& participants, std::chrono::milliseconds timeout);

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<ExecContext*> instances_;
  InstancePlacement placement_;
  std::map<std::string, Meeting> meetings_;
  std::map<std::string, std::deque<Tensor>> queues_;
  bool has_host_queues_ = false;
  bool aborted_ = false;
  Status abort_reason_;
};

// Default time a collective waits for its peers.
inline constexpr std::chrono::milliseconds kCollectiveTimeout{120000};

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_INTERPRETER_COLLECTIVE_GROUP_HPP_
