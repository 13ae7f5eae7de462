// Collectives between the processes of a job, over Gloo's TCP transport: one
// Gloo context per group of nodes, connected on first use through the host's
// key-value store (GlooStore). Used by CollectiveGroup for process groups
// that span nodes; devices within a process meet in-process first.
#ifndef BERTH_PLUGINS_CPU_DISTRIBUTED_GLOO_COLLECTIVES_HPP_
#define BERTH_PLUGINS_CPU_DISTRIBUTED_GLOO_COLLECTIVES_HPP_

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "berth/plugin/key_value.hpp"
#include "berth/status.hpp"

namespace gloo {
class Context;
namespace transport {
class Device;
class UnboundBuffer;
}
}  // namespace gloo

namespace berth::cpu {

// out[i] = combine(a[i], b[i]) for `count` elements (a or b may alias out).
using GlooReduceFn = std::function<void(void* out, const void* a, const void* b, size_t count)>;

// How an all-reduce whose nodes span slices runs (the cpu client option
// `collective_algorithm`): one ring over every node (flat), or within each
// slice first and across slices only each node's share (hierarchical); auto
// is hierarchical where it applies.
enum class CollectiveAlgorithm { kAuto, kFlat, kHierarchical };

// A ring all-reduce's halves (ring_all_reduce.hpp): both, or one of them.
enum class RingPhases { kBoth, kReduceScatter, kAllGather };

// Interrupts the waits of Gloo unbound buffers (GlooCollectives::Abort): a
// wait on a registered buffer returns false once Abort is called, whether it
// had begun or not.
class WaitAborter {
 public:
  // Registers `buffers` for as long as the scope lives; `status()` is the
  // abort reason when Abort came first (nothing is registered then).
  class Scope {
   public:
    Scope(WaitAborter* aborter, std::initializer_list<gloo::transport::UnboundBuffer*> buffers);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    const Status& status() const { return status_; }

   private:
    WaitAborter* aborter_;
    std::vector<gloo::transport::UnboundBuffer*> buffers_;
    Status status_;
  };

  void Abort(const Status& reason);
  // OK until Abort.
  Status reason() const;

 private:
  mutable std::mutex mutex_;
  std::set<gloo::transport::UnboundBuffer*> buffers_;
  Status reason_;
};

class GlooCollectives {
 public:
  // `store` is borrowed (the client's key-value store). `addresses[n]` is
  // where node n is reached (this node's is the one it listens on); errors
  // name nodes with theirs. Every operation, and connecting a
  // context, fails after `timeout` rather than waiting forever.
  // `on_failure` runs once per context that breaks (a peer died, a timeout):
  // the client reports it as a fatal plugin error. It must not block.
  // `node_slices[n]` is node n's slice (empty: one slice).
  GlooCollectives(const plugin::KeyValueStore& store, int node_id,
                  std::vector<std::string> addresses, std::chrono::milliseconds timeout,
                  std::function<void(const Status&)> on_failure = nullptr,
                  std::vector<int32_t> node_slices = {},
                  CollectiveAlgorithm algorithm = CollectiveAlgorithm::kAuto);
  ~GlooCollectives();

  // Every node of `nodes` (sorted, this node among them) calls these in the
  // same order for the same `group` (a name all of them derive alike).

  // Gathers each node's bytes: node nodes[i] gives sizes[i] bytes; `out`
  // holds sum(sizes) bytes and receives them in the order of `nodes`.
  // A `timeout` of 0 here and below means the one given at construction.
  Status AllGather(const std::string& group, const std::vector<int>& nodes, const void* mine,
                   const std::vector<size_t>& sizes, void* out,
                   std::chrono::milliseconds timeout = {});

  // out = reduction over nodes of each node's `in` (`count` elements of
  // `element_size` bytes); `in` may equal `out`. Every node ends with the
  // same bits. Hierarchical (unless the algorithm is flat) when `nodes` span
  // slices, every slice holds as many of them, more than one, and `count` is
  // at least that many: a ring within each slice, then the k-th node of each
  // slice reduces the k-th share across slices, then each slice gathers its
  // shares. Otherwise one ring over `nodes`.
  Status AllReduce(const std::string& group, const std::vector<int>& nodes, const void* in,
                   void* out, size_t count, size_t element_size, GlooReduceFn reduce,
                   std::chrono::milliseconds timeout = {});

  // Point to point: `size` bytes to node `peer`, matched with its Recv of the
  // same `slot` (64 bits, unique per message between the two nodes), on a
  // context of the two nodes named after `group`. Unlike the operations
  // above, these are not ordered: each message waits only for its match.
  Status Send(const std::string& group, int peer, uint64_t slot, const void* data, size_t size,
              std::chrono::milliseconds timeout = {});
  Status Recv(const std::string& group, int peer, uint64_t slot, void* data, size_t size,
              std::chrono::milliseconds timeout = {});

  // Fails every operation now waiting, and every later one, with `reason`;
  // their contexts are not used again.
  void Abort(const Status& reason);

 private:
  struct Entry {
    std::mutex mutex;  // one operation at a time per context
    std::shared_ptr<gloo::Context> context;
    uint32_t next_tag = 0;
    Status failed;  // sticky: a broken context is not reused
  };

  Entry& EntryFor(const std::string& group);
  // Runs body(entry) on the group's context, locked, connecting it on first
  // use. A failure (an error or a Gloo exception) is named after `op` and
  // kept: the context is not used again.
  template <typename Body>
  Status WithContext(const std::string& group, const std::vector<int>& nodes, std::string_view op,
                     Body&& body);
  Status Connect(Entry& entry, const std::string& group, const std::vector<int>& nodes);
  Status FlatAllReduce(const std::string& group, const std::vector<int>& nodes, const void* in,
                       void* out, size_t count, size_t element_size, const GlooReduceFn& reduce,
                       std::chrono::milliseconds timeout, RingPhases phases = RingPhases::kBoth);
  // Send or Recv: the pair's context, connected, then one message.
  Status PointToPoint(bool send, const std::string& group, int peer, uint64_t slot, void* data,
                      size_t size, std::chrono::milliseconds timeout);
  std::chrono::milliseconds TimeoutOr(std::chrono::milliseconds timeout) const {
    return timeout.count() > 0 ? timeout : timeout_;
  }
  std::string Describe(std::string_view op, const std::string& group,
                       const std::vector<int>& nodes) const;

  const plugin::KeyValueStore& store_;
  const int node_id_;
  const std::vector<std::string> addresses_;
  const std::chrono::milliseconds timeout_;
  std::function<void(const Status&)> on_failure_;
  const std::vector<int32_t> node_slices_;
  // The algorithm is not flat and the nodes are in more than one slice:
  // decided once, so that a job of one slice pays nothing per all-reduce.
  const bool may_be_hierarchical_;
  WaitAborter aborter_;
  std::mutex mutex_;
  std::shared_ptr<gloo::transport::Device> device_;
  std::map<std::string, std::unique_ptr<Entry>> entries_;
};

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_DISTRIBUTED_GLOO_COLLECTIVES_HPP_
