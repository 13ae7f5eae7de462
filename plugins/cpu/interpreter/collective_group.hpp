// The rendezvous of one launch: every program instance of the launch (one
// per device in the replica x partition grid) meets here for collectives.
// A failure in one instance aborts the group, so no peer waits forever.
#ifndef BERTH_PLUGINS_CPU_INTERPRETER_COLLECTIVE_GROUP_HPP_
#define BERTH_PLUGINS_CPU_INTERPRETER_COLLECTIVE_GROUP_HPP_

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "interpreter/tensor.hpp"

namespace berth::cpu {

class ExecContext;

class CollectiveGroup {
 public:
  // `num_instances` program instances take part (indexed 0..n-1 by their
  // logical id r * num_partitions + p).
  explicit CollectiveGroup(int64_t num_instances) : instances_(num_instances, nullptr) {}

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

 private:
  struct Meeting {
    std::map<int64_t, Tensor> values;  // by instance
    size_t expected = 0;
    size_t collected = 0;              // participants that took the result
  };

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<ExecContext*> instances_;
  std::map<std::string, Meeting> meetings_;
  bool aborted_ = false;
  Status abort_reason_;
};

// Default time a collective waits for its peers.
inline constexpr std::chrono::milliseconds kCollectiveTimeout{120000};

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_INTERPRETER_COLLECTIVE_GROUP_HPP_
