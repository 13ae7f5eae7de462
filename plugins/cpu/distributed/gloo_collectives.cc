#include "cpu/distributed/gloo_collectives.hpp"

#include <gloo/rendezvous/context.h>
#include <gloo/transport/tcp/device.h>
#include <gloo/transport/unbound_buffer.h>

#include <algorithm>
#include <condition_variable>
#include <functional>
#include <map>
#include <numeric>
#include <thread>

#include "cpu/distributed/gloo_store.hpp"
#include "cpu/distributed/ring_all_gather.hpp"
#include "cpu/distributed/ring_all_reduce.hpp"

namespace berth::cpu {
namespace {

// The hierarchical all-reduce pipelines buffers of at least this many bytes
// in this many pieces (fewer when the buffer has fewer elements than pieces
// times nodes per slice).
constexpr size_t kPipelineMinBytes = size_t{4} << 20;
constexpr size_t kPipelinePieces = 8;

}  // namespace

WaitAborter::Scope::Scope(WaitAborter* aborter,
                          std::initializer_list<gloo::transport::UnboundBuffer*> buffers)
    : aborter_(aborter) {
  if (aborter_ == nullptr) return;
  std::lock_guard lock(aborter_->mutex_);
  if (!aborter_->reason_.ok()) {
    status_ = aborter_->reason_;
    return;
  }
  for (gloo::transport::UnboundBuffer* buffer : buffers) {
    if (buffer != nullptr && aborter_->buffers_.insert(buffer).second) buffers_.push_back(buffer);
  }
}

WaitAborter::Scope::~Scope() {
  if (aborter_ == nullptr) return;
  std::lock_guard lock(aborter_->mutex_);
  for (gloo::transport::UnboundBuffer* buffer : buffers_) aborter_->buffers_.erase(buffer);
}

void WaitAborter::Abort(const Status& reason) {
  std::lock_guard lock(mutex_);
  if (!reason_.ok()) return;
  reason_ = reason;
  // A buffer not waiting yet keeps the abort for its next wait.
  for (gloo::transport::UnboundBuffer* buffer : buffers_) {
    buffer->abortWaitRecv();
    buffer->abortWaitSend();
  }
}

Status WaitAborter::reason() const {
  std::lock_guard lock(mutex_);
  return reason_;
}

GlooCollectives::GlooCollectives(const plugin::KeyValueStore& store, int node_id,
                                 std::vector<std::string> addresses,
                                 std::chrono::milliseconds timeout,
                                 std::function<void(const Status&)> on_failure,
                                 std::vector<int32_t> node_slices, CollectiveAlgorithm algorithm)
    : store_(store),
      node_id_(node_id),
      addresses_(std::move(addresses)),
      timeout_(timeout),
      on_failure_(std::move(on_failure)),
      node_slices_(std::move(node_slices)),
      may_be_hierarchical_(algorithm != CollectiveAlgorithm::kFlat &&
                           std::adjacent_find(node_slices_.begin(), node_slices_.end(),
                                              std::not_equal_to<>()) != node_slices_.end()) {}

GlooCollectives::~GlooCollectives() {
  // Contexts hold pairs on the device's event loop: drop them first.
  entries_.clear();
  device_.reset();
}

std::string GlooCollectives::Describe(std::string_view op, const std::string& group,
                                      const std::vector<int>& nodes) const {
  std::string list;
  for (int node : nodes) {
    list += (list.empty() ? "" : ", ") + std::to_string(node);
    if (node >= 0 && static_cast<size_t>(node) < addresses_.size()) list += " (" + addresses_[static_cast<size_t>(node)] + ")";
  }
  return std::string(op) + " across nodes " + list + " (Gloo group '" + group + "', this is node " +
         std::to_string(node_id_) + ")";
}

Status GlooCollectives::Connect(Entry& entry, const std::string& group,
                                const std::vector<int>& nodes) {
  auto self = std::find(nodes.begin(), nodes.end(), node_id_);
  if (self == nodes.end()) {
    return InternalError(Describe("connecting", group, nodes) + ": this node is not a member");
  }
  const int rank = static_cast<int>(self - nodes.begin());
  try {
    std::shared_ptr<gloo::transport::Device> device;
    {
      std::lock_guard lock(mutex_);
      if (!device_) {
        gloo::transport::tcp::attr attr;
        attr.hostname = addresses_.at(static_cast<size_t>(node_id_));
        device_ = gloo::transport::tcp::CreateDevice(attr);
      }
      device = device_;
    }
    auto context = std::make_shared<gloo::rendezvous::Context>(rank, static_cast<int>(nodes.size()));
    context->setTimeout(timeout_);
    GlooStore store(store_, "gloo/" + group + "/", timeout_, &aborter_);
    context->connectFullMesh(store, device);
    entry.context = std::move(context);
    return OkStatus();
  } catch (const GlooStoreError& e) {
    return e.status().WithContext(Describe("connecting", group, nodes));
  } catch (const std::exception& e) {
    return UnavailableError(Describe("connecting", group, nodes) + ": " + e.what());
  }
}

GlooCollectives::Entry& GlooCollectives::EntryFor(const std::string& group) {
  std::lock_guard lock(mutex_);
  std::unique_ptr<Entry>& entry = entries_[group];
  if (!entry) entry = std::make_unique<Entry>();
  return *entry;
}

template <typename Body>
Status GlooCollectives::WithContext(const std::string& group, const std::vector<int>& nodes,
                                    std::string_view op, Body&& body) {
  Entry& entry = EntryFor(group);
  std::lock_guard lock(entry.mutex);
  if (!entry.failed.ok()) return entry.failed;
  if (Status aborted = aborter_.reason(); !aborted.ok()) return entry.failed = aborted;
  if (!entry.context) {
    entry.failed = Connect(entry, group, nodes);
  }
  if (entry.failed.ok()) {
    try {
      Status status = body(entry);
      if (status.ok()) return status;
      entry.failed = status.WithContext(Describe(op, group, nodes));
    } catch (const std::exception& e) {
      entry.failed = UnavailableError(Describe(op, group, nodes) + ": " + e.what());
    }
  }
  if (on_failure_) on_failure_(entry.failed);
  return entry.failed;
}

void GlooCollectives::Abort(const Status& reason) { aborter_.Abort(reason); }

Status GlooCollectives::AllGather(const std::string& group, const std::vector<int>& nodes,
                                  const void* mine, const std::vector<size_t>& sizes, void* out,
                                  std::chrono::milliseconds timeout) {
  return WithContext(group, nodes, "all-gather", [&](Entry& entry) {
    RingAllGatherArgs args;
    args.mine = mine;
    args.out = out;
    args.sizes = sizes;
    args.tag = entry.next_tag++;
    args.timeout = TimeoutOr(timeout);
    args.aborter = &aborter_;
    return RingAllGather(*entry.context, args);
  });
}

Status GlooCollectives::PointToPoint(bool send, const std::string& group, int peer, uint64_t slot,
                                     void* data, size_t size, std::chrono::milliseconds timeout) {
  if (size == 0) return OkStatus();  // both ends know the size
  const std::vector<int> nodes = {std::min(node_id_, peer), std::max(node_id_, peer)};
  const std::string pair_group =
      group + "|p2p" + std::to_string(nodes[0]) + "-" + std::to_string(nodes[1]);
  const std::string_view op = send ? "send" : "receive";
  // Connect (once) under the context's lock, then wait for the message
  // without it: messages between the two nodes do not wait on each other.
  std::shared_ptr<gloo::Context> context;
  BERTH_RETURN_IF_ERROR(WithContext(pair_group, nodes, op, [&](Entry& entry) {
    context = entry.context;
    return OkStatus();
  }));
  const int peer_rank = peer == nodes[0] ? 0 : 1;
  Status status;
  try {
    std::unique_ptr<gloo::transport::UnboundBuffer> buffer =
        context->createUnboundBuffer(data, size);
    WaitAborter::Scope scope(&aborter_, {buffer.get()});
    status = scope.status();
    if (status.ok()) {
      bool done = false;
      if (send) {
        buffer->send(peer_rank, slot);
        done = buffer->waitSend(TimeoutOr(timeout));
      } else {
        buffer->recv(peer_rank, slot);
        done = buffer->waitRecv(TimeoutOr(timeout));
      }
      if (!done) status = aborter_.reason();
    }
  } catch (const std::exception& e) {
    status = UnavailableError(Describe(op, pair_group, nodes) + ": " + e.what());
  }
  if (!status.ok()) {
    Entry& entry = EntryFor(pair_group);
    std::lock_guard lock(entry.mutex);
    if (entry.failed.ok()) entry.failed = status;
  }
  return status;
}

Status GlooCollectives::Send(const std::string& group, int peer, uint64_t slot, const void* data,
                             size_t size, std::chrono::milliseconds timeout) {
  // Gloo's buffer is not const, but a send only reads it.
  return PointToPoint(true, group, peer, slot, const_cast<void*>(data), size, timeout);
}

Status GlooCollectives::Recv(const std::string& group, int peer, uint64_t slot, void* data,
                             size_t size, std::chrono::milliseconds timeout) {
  return PointToPoint(false, group, peer, slot, data, size, timeout);
}

Status GlooCollectives::FlatAllReduce(const std::string& group, const std::vector<int>& nodes,
                                      const void* in, void* out, size_t count, size_t element_size,
                                      const GlooReduceFn& reduce, std::chrono::milliseconds timeout,
                                      RingPhases phases) {
  return WithContext(group, nodes, "all-reduce", [&](Entry& entry) {
    RingAllReduceArgs args;
    args.in = in;
    args.out = out;
    args.count = count;
    args.element_size = element_size;
    args.reduce = reduce;
    args.tag = entry.next_tag++;
    args.timeout = TimeoutOr(timeout);
    args.phases = phases;
    args.aborter = &aborter_;
    return RingAllReduce(*entry.context, args);
  });
}

Status GlooCollectives::AllReduce(const std::string& group, const std::vector<int>& nodes,
                                  const void* in, void* out, size_t count, size_t element_size,
                                  GlooReduceFn reduce, std::chrono::milliseconds timeout) {
  // The nodes of each slice, in the order of `nodes`.
  std::map<int32_t, std::vector<int>> by_slice;
  if (may_be_hierarchical_) {
    for (int node : nodes) by_slice[node_slices_.at(static_cast<size_t>(node))].push_back(node);
  }
  const size_t per_slice = by_slice.empty() ? 0 : by_slice.begin()->second.size();
  bool hierarchical = by_slice.size() > 1 && per_slice > 1 && count >= per_slice;
  for (const auto& [slice, members] : by_slice) hierarchical &= members.size() == per_slice;
  if (!hierarchical) {
    return FlatAllReduce(group, nodes, in, out, count, element_size, reduce, timeout);
  }

  // A reduce-scatter within the slice leaves this node (at `position` in it)
  // one share reduced over the slice; the nodes at that position in every
  // slice hold the same share and all-reduce it across slices; the slice's
  // all-gather then hands every node every share. A large buffer goes in
  // pieces, so that one piece's share crosses between slices (on a thread of
  // its own) while the slice reduce-scatters the next and gathers the one
  // before. Each context still sees its operations in one order on every node.
  const int32_t my_slice = node_slices_.at(static_cast<size_t>(node_id_));
  const std::vector<int>& mates = by_slice.at(my_slice);
  const int position =
      static_cast<int>(std::find(mates.begin(), mates.end(), node_id_) - mates.begin());
  std::vector<int> peers;  // the node at `position` of every slice
  for (const auto& [slice, members] : by_slice) {
    peers.push_back(members[static_cast<size_t>(position)]);
  }
  std::sort(peers.begin(), peers.end());
  const std::string slice_group = group + "|slice" + std::to_string(my_slice);
  const std::string share_group = group + "|share" + std::to_string(position);
  const size_t pieces =
      count * element_size < kPipelineMinBytes ? 1 : std::min(kPipelinePieces, count / per_slice);
  auto piece = [&](size_t j) {  // elements [begin, end) of piece j
    return RingRange{count * j / pieces, count * (j + 1) / pieces};
  };
  const auto* in_bytes = static_cast<const char*>(in);
  auto* out_bytes = static_cast<char*>(out);

  struct Progress {
    std::mutex mutex;
    std::condition_variable changed;
    size_t scattered = 0;  // pieces reduce-scattered within the slice
    size_t crossed = 0;    // pieces whose share crossed between slices
    Status error;          // the first failure; ends both threads
  } progress;
  auto finish = [&progress](size_t& done, const Status& status) {
    {
      std::lock_guard lock(progress.mutex);
      if (status.ok()) {
        ++done;
      } else if (progress.error.ok()) {
        progress.error = status;
      }
    }
    progress.changed.notify_all();
    return status.ok();
  };
  auto await = [&progress](const size_t& done, size_t j) {
    std::unique_lock lock(progress.mutex);
    progress.changed.wait(lock, [&] { return done > j || !progress.error.ok(); });
    return progress.error.ok();
  };
  std::thread cross([&] {
    for (size_t j = 0; j < pieces && await(progress.scattered, j); ++j) {
      const RingRange p = piece(j);
      const RingRange share = RingShare(p.end - p.begin, static_cast<int>(per_slice), position);
      char* at = out_bytes + (p.begin + share.begin) * element_size;
      if (!finish(progress.crossed,
                  FlatAllReduce(share_group, peers, at, at, share.end - share.begin, element_size,
                                reduce, timeout))) {
        return;
      }
    }
  });
  for (size_t j = 0; j < pieces; ++j) {
    const RingRange p = piece(j);
    if (!finish(progress.scattered,
                FlatAllReduce(slice_group, mates, in_bytes + p.begin * element_size,
                              out_bytes + p.begin * element_size, p.end - p.begin, element_size,
                              reduce, timeout, RingPhases::kReduceScatter))) {
      break;
    }
  }
  size_t gathered = 0;
  for (size_t j = 0; j < pieces && await(progress.crossed, j); ++j) {
    const RingRange p = piece(j);
    char* at = out_bytes + p.begin * element_size;
    if (!finish(gathered, FlatAllReduce(slice_group, mates, at, at, p.end - p.begin, element_size,
                                        reduce, timeout, RingPhases::kAllGather))) {
      break;
    }
  }
  cross.join();
  return progress.error;
}

}  // namespace berth::cpu
