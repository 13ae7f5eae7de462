#include "cpu_communicator.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>

#include "cpu_buffer.hpp"
#include "cpu_client.hpp"
#include "interpreter/collective_group.hpp"
#include "interpreter/element_types.hpp"
#include "interpreter/reduction.hpp"

namespace berth::cpu {
namespace {

using Clock = std::chrono::steady_clock;
using plugin::CollectiveCall;
using plugin::CollectiveOp;

// Progress is published at most this often; the abort key is polled this
// often while an operation is pending.
constexpr auto kPublishInterval = std::chrono::milliseconds(20);
constexpr auto kAbortPollInterval = std::chrono::milliseconds(100);

// Point-to-point slots: sender and receiver rank in 12 bits each, the
// message's number between them in 32.
constexpr uint64_t kPointToPointSlotPrefix = 0x45;
constexpr int64_t kMaxPointToPointRanks = 4096;

uint64_t Fnv1a(const std::string& text) {
  uint64_t hash = 1469598103934665603ull;
  for (char c : text) hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return hash;
}

// The input of one operation, as its rank's stream sees it.
struct Operand {
  berth::ElementType type = berth::ElementType::kInvalid;
  std::vector<int64_t> dims;
  std::shared_ptr<BufferContents> contents;  // null for a recv
};

// What every rank of one operation must agree on, exchanged before the data.
struct Signature {
  int32_t op = 0;
  int32_t reduce = 0;
  int32_t type = 0;
  int32_t pad = 0;
  int64_t root = 0;
  int64_t bytes = 0;
  uint64_t dims_hash = 0;
  uint64_t pairs_hash = 0;

  static Signature Of(const CollectiveCall& call, const Operand& input, size_t bytes) {
    Signature s;
    s.op = static_cast<int32_t>(call.op);
    s.type = static_cast<int32_t>(input.type);
    if (call.op == CollectiveOp::kAllReduce || call.op == CollectiveOp::kReduceScatter) {
      s.reduce = static_cast<int32_t>(call.reduce);
    }
    s.root = call.op == CollectiveOp::kBroadcast ? call.root : 0;
    std::string dims, pairs;
    for (int64_t d : input.dims) dims += std::to_string(d) + ",";
    for (const auto& [from, to] : call.pairs)
      pairs += std::to_string(from) + ">" + std::to_string(to) + ",";
    s.bytes = static_cast<int64_t>(bytes);
    s.dims_hash = Fnv1a(dims);
    s.pairs_hash = Fnv1a(pairs);
    return s;
  }
  bool operator==(const Signature&) const = default;

  std::string Describe() const {
    std::string text = plugin::CollectiveOpName(static_cast<CollectiveOp>(op));
    text += " of " + std::string(ElementTypeName(static_cast<berth::ElementType>(type))) + " (" +
            std::to_string(bytes) + " bytes)";
    if (op == static_cast<int32_t>(CollectiveOp::kAllReduce) ||
        op == static_cast<int32_t>(CollectiveOp::kReduceScatter)) {
      text += std::string(", ") + plugin::ReduceOpName(static_cast<plugin::ReduceOp>(reduce));
    }
    if (op == static_cast<int32_t>(CollectiveOp::kBroadcast))
      text += ", root " + std::to_string(root);
    return text;
  }
};

Reducer ReducerOf(plugin::ReduceOp op) {
  switch (op) {
    case plugin::ReduceOp::kSum: return Reducer::kAdd;
    case plugin::ReduceOp::kProduct: return Reducer::kMultiply;
    case plugin::ReduceOp::kMin: return Reducer::kMinimum;
    case plugin::ReduceOp::kMax: return Reducer::kMaximum;
  }
  return Reducer::kAdd;
}

Tensor BytesTensor(std::shared_ptr<Storage> storage) {
  const int64_t size = static_cast<int64_t>(storage->size());
  return Tensor::Wrap(ElementType::kUI8, {size}, std::move(storage));
}

}  // namespace

struct CpuCommunicator::State {
  CpuClient* client = nullptr;
  std::string name;  // the same in every member process
  std::vector<int64_t> device_ids;
  std::vector<int64_t> all_ranks;
  std::vector<int> node_of_rank;
  int self_node = 0;
  std::chrono::milliseconds timeout{0};
  std::unique_ptr<GlooCollectives> gloo;  // null when every rank is local
  std::unique_ptr<CollectiveGroup> group;
  const plugin::KeyValueStore* store = nullptr;  // null when every rank is local

  std::mutex mutex;
  std::condition_variable changed;
  Status broken;                 // the first failure; later operations fail with it
  std::vector<int64_t> issued;   // by rank: collective operations called
  std::vector<int64_t> started;  // by rank: collective operations begun
  std::map<std::pair<int64_t, int64_t>, int64_t> sends_issued, recvs_issued;  // by (from, to)
  std::map<std::tuple<int64_t, int64_t, int64_t>, std::shared_ptr<Storage>> mailbox;
  int pending = 0;  // operations begun and not finished
  bool progress_dirty = false;
  bool stopping = false;
  std::thread watcher;
  // Sends to other processes, each waiting on a thread of its own for its
  // receiver (a stream waiting there could block the receive its peer's
  // stream needs first).
  struct Sender {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> finished;
  };
  std::vector<Sender> senders;

  std::string Key(const std::string& what) const { return "collectives/" + name + "/" + what; }
  std::string RankName(int64_t rank) const {
    const int node = node_of_rank[static_cast<size_t>(rank)];
    return "rank " + std::to_string(rank) + " (device " +
           std::to_string(device_ids[static_cast<size_t>(rank)]) + " on " +
           client->topology().NodeName(node) + ")";
  }
  // 0 .. ranks-1: every operation's participants.
  const std::vector<int64_t>& AllRanks() const { return all_ranks; }

  // Fails what is pending and what comes later with `reason`; mutex held.
  void BreakLocked(const Status& reason) {
    if (!broken.ok()) return;
    broken = reason;
    group->Abort(reason);
    if (gloo) gloo->Abort(reason);
    changed.notify_all();
  }

  void Break(const Status& reason) {
    std::lock_guard lock(mutex);
    BreakLocked(reason);
  }

  // "3:5,4:5": operations begun by each of this process's ranks; mutex held.
  std::string ProgressLocked() const {
    std::string text;
    for (size_t r = 0; r < started.size(); ++r) {
      if (node_of_rank[r] != self_node) continue;
      // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive)
      // on "literal" + std::string temporaries.
      if (!text.empty()) text += ',';
      text.append(std::to_string(r)).append(":").append(std::to_string(started[r]));
    }
    return text;
  }

  // Publishes progress and watches for an abort from another process.
  void Watch() {
    std::unique_lock lock(mutex);
    Clock::time_point last_poll = Clock::now();
    while (!stopping) {
      changed.wait_for(lock, kAbortPollInterval, [&] { return stopping || progress_dirty; });
      if (stopping) break;
      if (progress_dirty) {
        progress_dirty = false;
        const std::string progress = ProgressLocked();
        lock.unlock();
        (void)store->Put(Key("progress/" + std::to_string(self_node)), progress);
        lock.lock();
      }
      if (pending > 0 && broken.ok() && Clock::now() - last_poll >= kAbortPollInterval) {
        last_poll = Clock::now();
        lock.unlock();
        Result<std::optional<std::string>> abort = store->TryGet(Key("abort"));
        lock.lock();
        if (abort.ok() && abort->has_value()) BreakLocked(AbortedError(**abort));
      }
      // At most one publication per interval.
      changed.wait_for(lock, kPublishInterval, [&] { return stopping; });
    }
  }

  // The ranks that have not begun operation `seq` (per the counts of this
  // process, and those the others published).
  std::vector<int64_t> MissingRanks(int64_t seq) {
    std::map<int64_t, int64_t> counts;
    {
      std::lock_guard lock(mutex);
      for (size_t r = 0; r < started.size(); ++r) {
        if (node_of_rank[r] == self_node) counts[static_cast<int64_t>(r)] = started[r];
      }
    }
    std::set<int> nodes(node_of_rank.begin(), node_of_rank.end());
    for (int node : nodes) {
      if (node == self_node || store == nullptr) continue;
      Result<std::optional<std::string>> text =
          store->TryGet(Key("progress/" + std::to_string(node)));
      if (!text.ok() || !text->has_value()) continue;
      const std::string& entries = **text;
      size_t at = 0;
      while (at < entries.size()) {
        size_t comma = entries.find(',', at);
        if (comma == std::string::npos) comma = entries.size();
        const std::string entry = entries.substr(at, comma - at);
        at = comma + 1;
        const size_t colon = entry.find(':');
        if (colon == std::string::npos) continue;
        try {
          const int64_t rank = std::stoll(entry.substr(0, colon));
          // A node reports its own ranks only; anything else (or malformed)
          // counts as no report.
          if (rank >= 0 && static_cast<size_t>(rank) < node_of_rank.size() &&
              node_of_rank[static_cast<size_t>(rank)] == node) {
            counts[rank] = std::stoll(entry.substr(colon + 1));
          }
        } catch (const std::exception&) {
        }
      }
    }
    std::vector<int64_t> missing;
    for (size_t r = 0; r < device_ids.size(); ++r) {
      auto it = counts.find(static_cast<int64_t>(r));
      if (it == counts.end() || it->second <= seq) missing.push_back(static_cast<int64_t>(r));
    }
    return missing;
  }

  std::string DescribeRanks(const std::vector<int64_t>& ranks) const {
    std::string text;
    for (int64_t r : ranks) text += (text.empty() ? "" : ", ") + RankName(r);
    return text;
  }

  // A failure of operation `seq` of `call`, explained: a wait that ran out
  // names the ranks that did not arrive.
  Status Explain(const Status& status, const CollectiveCall& call, int64_t seq,
                 std::chrono::milliseconds timeout, Clock::duration elapsed) {
    if (status.code() == StatusCode::kAborted) return status;
    // A process that aborted may have closed its connections before this
    // one read its abort: its reason is the better explanation.
    if (store != nullptr) {
      Result<std::optional<std::string>> abort = store->TryGet(Key("abort"));
      if (abort.ok() && abort->has_value()) return AbortedError(**abort);
    }
    const bool timed_out = status.code() == StatusCode::kDeadlineExceeded ||
                           (status.code() == StatusCode::kUnavailable && elapsed >= timeout);
    std::string what = std::string(plugin::CollectiveOpName(call.op)) + " #" + std::to_string(seq) +
                       " of communicator '" + name + "' (" + std::to_string(device_ids.size()) +
                       " ranks) on rank " + std::to_string(call.rank);
    if (!timed_out) return status.WithContext(what);
    what += " timed out after " + std::to_string(timeout.count()) + " ms";
    std::vector<int64_t> missing;
    if (call.op == CollectiveOp::kSend || call.op == CollectiveOp::kRecv) {
      missing = {call.peer};
    } else {
      missing = MissingRanks(seq);
    }
    if (missing.empty()) {
      return DeadlineExceededError(what +
                                   ": every rank arrived, but the exchange did not finish (" +
                                   std::string(status.message()) + ")");
    }
    return DeadlineExceededError(what + ": " + (missing.size() == 1 ? "rank " : "ranks ") +
                                 [&] {
                                   std::string list;
                                   for (int64_t r : missing)
                                     list += (list.empty() ? "" : ", ") + std::to_string(r);
                                   return list;
                                 }() +
                                 (call.op == CollectiveOp::kSend   ? " did not receive"
                                  : call.op == CollectiveOp::kRecv ? " did not send"
                                                                   : " did not arrive") +
                                 ": " + DescribeRanks(missing));
  }

  // The values of every rank, in rank order: `value` is this rank's.
  Result<std::vector<Tensor>> Exchange(const std::string& key, int64_t rank, Tensor value,
                                       std::chrono::milliseconds timeout) {
    BERTH_ASSIGN_OR_RETURN(
        std::vector<Tensor> all,
        group->Exchange(key, rank, AllRanks(), Tensor::Tuple({std::move(value)}), timeout));
    std::vector<Tensor> out;
    for (Tensor& t : all) out.push_back(t.elements().at(0));
    return out;
  }

  // Checks that every rank runs the same operation.
  Status AgreeOnSignature(const CollectiveCall& call, const Operand& input, const Tensor& in,
                          int64_t seq, std::chrono::milliseconds timeout) {
    const Signature mine = Signature::Of(call, input, in.byte_size());
    std::shared_ptr<Storage> bytes = Storage::Allocate(sizeof(Signature));
    std::memcpy(bytes->data(), &mine, sizeof(Signature));
    BERTH_ASSIGN_OR_RETURN(std::vector<Tensor> all, Exchange("s" + std::to_string(seq), call.rank,
                                                             BytesTensor(bytes), timeout));
    // Every rank compares every signature with rank 0's, so all of them
    // describe the same two ranks.
    std::vector<Signature> signatures(all.size());
    for (size_t r = 0; r < all.size(); ++r) {
      if (all[r].byte_size() != sizeof(Signature))
        return InternalError("a signature of another size");
      std::memcpy(&signatures[r], all[r].bytes(), sizeof(Signature));
    }
    for (size_t r = 1; r < all.size(); ++r) {
      const Signature& first = signatures[0];
      const Signature& theirs = signatures[r];
      if (!(theirs == first)) {
        return InvalidArgumentError(
            "the ranks call different operations: rank 0 calls " + first.Describe() + "; rank " +
            std::to_string(r) + " calls " + theirs.Describe() +
            (theirs.dims_hash != first.dims_hash ? " (other dims)" : "") +
            (theirs.pairs_hash != first.pairs_hash ? " (other pairs)" : ""));
      }
    }
    return OkStatus();
  }

  Result<std::shared_ptr<Storage>> AllReduce(const CollectiveCall& call, int64_t seq,
                                             const Tensor& in, std::chrono::milliseconds timeout) {
    const Reducer reducer = ReducerOf(call.reduce);
    const ElementType type = in.type();
    const size_t count = static_cast<size_t>(in.num_elements());
    if (group->SpansProcesses(AllRanks())) {
      // The SDK let only element types the reducers take through.
      BERTH_ASSIGN_OR_RETURN(Tensor reduced,
                             group->ReduceElementwise("r" + std::to_string(seq), call.rank,
                                                      AllRanks(), in, reducer, timeout));
      return reduced.storage();
    }
    BERTH_ASSIGN_OR_RETURN(std::vector<Tensor> all,
                           Exchange("d" + std::to_string(seq), call.rank, in, timeout));
    std::shared_ptr<Storage> out = Storage::Allocate(in.byte_size());
    if (in.byte_size() > 0) std::memcpy(out->data(), all[0].bytes(), in.byte_size());
    for (size_t r = 1; r < all.size(); ++r) {
      BERTH_RETURN_IF_ERROR(CombineArrays("all_reduce", type, reducer, out->data(), out->data(),
                                          all[r].bytes(), count));
    }
    return out;
  }

  // Every rank's input as bytes, in rank order.
  Result<std::vector<Tensor>> ExchangeBytes(const CollectiveCall& call, int64_t seq,
                                            const std::shared_ptr<Storage>& input,
                                            std::chrono::milliseconds timeout) {
    return Exchange("d" + std::to_string(seq), call.rank, BytesTensor(input), timeout);
  }

  Result<std::shared_ptr<Storage>> Collective(const CollectiveCall& call, const Operand& input,
                                              int64_t seq, const Tensor& in,
                                              std::chrono::milliseconds timeout) {
    BERTH_RETURN_IF_ERROR(AgreeOnSignature(call, input, in, seq, timeout));
    const size_t ranks = device_ids.size();
    const size_t bytes = in.byte_size();
    const size_t self = static_cast<size_t>(call.rank);
    if (call.op == CollectiveOp::kAllReduce || call.op == CollectiveOp::kReduceScatter) {
      BERTH_ASSIGN_OR_RETURN(std::shared_ptr<Storage> reduced, AllReduce(call, seq, in, timeout));
      if (call.op == CollectiveOp::kAllReduce) return reduced;
      const size_t block = bytes / ranks;
      std::shared_ptr<Storage> out = Storage::Allocate(block);
      if (block > 0) std::memcpy(out->data(), reduced->data() + self * block, block);
      return out;
    }
    BERTH_ASSIGN_OR_RETURN(std::vector<Tensor> all,
                           ExchangeBytes(call, seq, in.storage(), timeout));
    switch (call.op) {
      case CollectiveOp::kAllGather: {
        std::shared_ptr<Storage> out = Storage::Allocate(bytes * ranks);
        for (size_t r = 0; r < ranks && bytes > 0; ++r)
          std::memcpy(out->data() + r * bytes, all[r].bytes(), bytes);
        return out;
      }
      case CollectiveOp::kAllToAll: {
        const size_t block = bytes / ranks;
        std::shared_ptr<Storage> out = Storage::Allocate(bytes);
        for (size_t r = 0; r < ranks && block > 0; ++r) {
          std::memcpy(out->data() + r * block, all[r].bytes() + self * block, block);
        }
        return out;
      }
      case CollectiveOp::kBroadcast: {
        std::shared_ptr<Storage> out = Storage::Allocate(bytes);
        if (bytes > 0) std::memcpy(out->data(), all[static_cast<size_t>(call.root)].bytes(), bytes);
        return out;
      }
      case CollectiveOp::kCollectivePermute: {
        std::shared_ptr<Storage> out = Storage::Allocate(bytes);
        if (bytes > 0) std::memset(out->data(), 0, bytes);
        for (const auto& [from, to] : call.pairs) {
          if (to == call.rank && bytes > 0)
            std::memcpy(out->data(), all[static_cast<size_t>(from)].bytes(), bytes);
        }
        return out;
      }
      default: return InternalError("not a collective operation");
    }
  }

  uint64_t Slot(int64_t from, int64_t to, int64_t seq) const {
    return (kPointToPointSlotPrefix << 56) | (static_cast<uint64_t>(from) << 44) |
           (static_cast<uint64_t>(to) << 32) | (static_cast<uint64_t>(seq) & 0xffffffffu);
  }

  bool IsRemoteSend(const CollectiveCall& call) const {
    return call.op == CollectiveOp::kSend &&
           node_of_rank[static_cast<size_t>(call.peer)] != self_node;
  }

  // A send to another process: once the input is ready (in stream order),
  // the message waits for its receiver on a thread of its own; `done` is set
  // there.
  void SendInBackground(const CollectiveCall& call, int64_t seq, const Operand& input,
                        plugin::Event done) {
    const std::chrono::milliseconds timeout =
        call.timeout.count() > 0 ? call.timeout : this->timeout;
    Status status = input.contents->ready().Await().WithContext("the input");
    Result<std::shared_ptr<Storage>> storage =
        status.ok() ? input.contents->storage() : Result<std::shared_ptr<Storage>>(status);
    {
      std::lock_guard lock(mutex);
      if (storage.ok() && !broken.ok()) storage = broken;
      if (storage.ok()) {
        ++pending;
        std::erase_if(senders, [](Sender& sender) {
          if (!sender.finished->load()) return false;
          sender.thread.join();
          return true;
        });
        auto finished = std::make_shared<std::atomic<bool>>(false);
        senders.push_back({std::thread([this, call, seq, data = *storage, done, timeout, finished] {
                             const Clock::time_point begin = Clock::now();
                             const int peer_node = node_of_rank[static_cast<size_t>(call.peer)];
                             const Status status =
                                 gloo->Send(name, peer_node, Slot(call.rank, call.peer, seq),
                                            data->data(), data->size(), timeout);
                             Result<bool> sent =
                                 Finish(status.ok() ? Result<bool>(true) : Result<bool>(status),
                                        call, seq, timeout, Clock::now() - begin);
                             done.Set(sent.status());
                             finished->store(true);
                           }),
                           finished});
        return;
      }
    }
    done.Set(storage.status());
  }

  Status Send(const CollectiveCall& call, int64_t seq, const std::shared_ptr<Storage>& input) {
    // Within the process: a copy, so the sender's buffer may change at once.
    std::shared_ptr<Storage> copy = Storage::Allocate(input->size());
    if (input->size() > 0) std::memcpy(copy->data(), input->data(), input->size());
    std::lock_guard lock(mutex);
    mailbox[{call.rank, call.peer, seq}] = std::move(copy);
    changed.notify_all();
    return OkStatus();
  }

  Result<std::shared_ptr<Storage>> Recv(const CollectiveCall& call, int64_t seq,
                                        std::chrono::milliseconds timeout) {
    BERTH_ASSIGN_OR_RETURN(size_t bytes, DenseByteSize(call.recv_type, call.recv_dims));
    const int peer_node = node_of_rank[static_cast<size_t>(call.peer)];
    if (peer_node != self_node) {
      std::shared_ptr<Storage> out = Storage::Allocate(bytes);
      BERTH_RETURN_IF_ERROR(gloo->Recv(name, peer_node, Slot(call.peer, call.rank, seq),
                                       out->data(), bytes, timeout));
      return out;
    }
    std::unique_lock lock(mutex);
    const auto key = std::make_tuple(call.peer, call.rank, seq);
    const bool arrived =
        changed.wait_for(lock, timeout, [&] { return !broken.ok() || mailbox.count(key) > 0; });
    if (!broken.ok()) return broken;
    if (!arrived) return DeadlineExceededError("no message");
    std::shared_ptr<Storage> data = std::move(mailbox[key]);
    mailbox.erase(key);
    if (data->size() != bytes) {
      return InvalidArgumentError("recv #" + std::to_string(seq) + " on rank " +
                                  std::to_string(call.rank) + " expects " + std::to_string(bytes) +
                                  " bytes; rank " + std::to_string(call.peer) + " sent " +
                                  std::to_string(data->size()));
    }
    return data;
  }

  // Runs operation `seq` of `call` on its rank's stream: the output's
  // storage (null for a send).
  Result<std::shared_ptr<Storage>> Execute(const CollectiveCall& call, int64_t seq,
                                           const Operand& input) {
    const std::chrono::milliseconds timeout =
        call.timeout.count() > 0 ? call.timeout : this->timeout;
    std::shared_ptr<Storage> storage;
    if (input.contents != nullptr) {
      BERTH_RETURN_IF_ERROR(input.contents->ready().Await().WithContext("the input"));
      BERTH_ASSIGN_OR_RETURN(storage, input.contents->storage());
    }
    const bool point_to_point = call.op == CollectiveOp::kSend || call.op == CollectiveOp::kRecv;
    {
      std::lock_guard lock(mutex);
      if (!point_to_point) {
        started[static_cast<size_t>(call.rank)] = seq + 1;
        progress_dirty = true;
      }
      if (!broken.ok()) return broken;
      ++pending;
      changed.notify_all();
    }
    const Clock::time_point begin = Clock::now();
    Result<std::shared_ptr<Storage>> result = [&]() -> Result<std::shared_ptr<Storage>> {
      if (call.op == CollectiveOp::kSend) {
        BERTH_RETURN_IF_ERROR(Send(call, seq, storage));
        return std::shared_ptr<Storage>();
      }
      if (call.op == CollectiveOp::kRecv) return Recv(call, seq, timeout);
      ElementType type;
      if (!FromBufferType(input.type, &type)) {
        return InvalidArgumentError("element type " + std::string(ElementTypeName(input.type)));
      }
      Tensor in = Tensor::Wrap(type, input.dims, storage);
      return Collective(call, input, seq, in, timeout);
    }();
    return Finish(result, call, seq, timeout, Clock::now() - begin);
  }

  // Ends an operation: a failure is explained and breaks the communicator,
  // unless another one broke it first (then every rank reports that one).
  template <typename T>
  Result<T> Finish(Result<T> result, const CollectiveCall& call, int64_t seq,
                   std::chrono::milliseconds timeout, Clock::duration elapsed) {
    Status status = result.status();
    if (!status.ok()) {
      bool first;
      {
        std::lock_guard lock(mutex);
        first = broken.ok();
      }
      if (first) status = Explain(status, call, seq, timeout, elapsed);
    }
    std::lock_guard lock(mutex);
    --pending;
    if (status.ok()) return result;
    BreakLocked(status);
    return broken;
  }
};

CpuCommunicator::CpuCommunicator(std::vector<int64_t> device_ids,
                                 std::vector<plugin::Device*> local_devices,
                                 std::shared_ptr<State> state)
    : plugin::Communicator(std::move(device_ids), std::move(local_devices)),
      state_(std::move(state)) {}

Result<std::unique_ptr<CpuCommunicator>> CpuCommunicator::Create(
    CpuClient& client, const std::vector<int64_t>& device_ids, std::chrono::milliseconds timeout) {
  auto state = std::make_shared<State>();
  state->client = &client;
  state->device_ids = device_ids;
  state->self_node = client.process_index();
  state->timeout = timeout.count() > 0 ? timeout : kCommunicatorTimeout;
  std::vector<plugin::Device*> local;
  std::string list;
  for (int64_t id : device_ids) {
    BERTH_ASSIGN_OR_RETURN(plugin::Device * device, client.LookupDevice(id));
    state->node_of_rank.push_back(device->description().process_index());
    local.push_back(device->is_addressable() ? device : nullptr);
    list += std::to_string(id) + ",";
  }
  const size_t ranks = device_ids.size();
  for (size_t r = 0; r < ranks; ++r) state->all_ranks.push_back(static_cast<int64_t>(r));
  state->issued.assign(ranks, 0);
  state->started.assign(ranks, 0);
  const uint64_t hash = Fnv1a(list);
  state->name = "c" + std::to_string(hash % 1000000007ull) + "." +
                std::to_string(client.CountCommunicator(hash));
  const bool spans = std::any_of(state->node_of_rank.begin(), state->node_of_rank.end(),
                                 [&](int node) { return node != state->self_node; });
  InstancePlacement placement;
  placement.self_node = state->self_node;
  if (spans) {
    state->store = client.kv_store();
    state->gloo = client.NewGlooCollectives(state->timeout);
    if (state->store == nullptr || state->gloo == nullptr) {
      return InternalError("a communicator spanning processes in a client outside a job");
    }
    placement.node_of_instance = state->node_of_rank;
    placement.gloo = state->gloo.get();
    placement.group_prefix = state->name + "|";
    // Creation is collective: every member process says it is here, then
    // waits for the others.
    BERTH_RETURN_IF_ERROR(
        state->store->Put(state->Key("joined/" + std::to_string(state->self_node)), "1"));
    const Clock::time_point deadline = Clock::now() + state->timeout;
    std::vector<int64_t> missing;
    for (int node : std::set<int>(state->node_of_rank.begin(), state->node_of_rank.end())) {
      if (node == state->self_node) continue;
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      Result<std::string> joined = state->store->Get(state->Key("joined/" + std::to_string(node)),
                                                     std::max(left, std::chrono::milliseconds(1)));
      if (joined.ok()) continue;
      if (joined.status().code() != StatusCode::kDeadlineExceeded) return joined.status();
      for (size_t r = 0; r < ranks; ++r) {
        if (state->node_of_rank[r] == node) missing.push_back(static_cast<int64_t>(r));
      }
    }
    if (!missing.empty()) {
      return DeadlineExceededError(
          "creating communicator '" + state->name + "' (" + std::to_string(ranks) +
          " ranks) timed out after " + std::to_string(state->timeout.count()) +
          " ms: the processes of " + state->DescribeRanks(missing) + " did not create it");
    }
  }
  state->group =
      std::make_unique<CollectiveGroup>(static_cast<int64_t>(ranks), std::move(placement));
  if (spans) state->watcher = std::thread([raw = state.get()] { raw->Watch(); });
  return std::unique_ptr<CpuCommunicator>(
      new CpuCommunicator(device_ids, std::move(local), std::move(state)));
}

CpuCommunicator::~CpuCommunicator() {
  {
    std::lock_guard lock(state_->mutex);
    state_->BreakLocked(AbortedError("communicator '" + state_->name + "' was destroyed"));
    state_->stopping = true;
    state_->changed.notify_all();
  }
  if (state_->watcher.joinable()) state_->watcher.join();
  // The break ended every send's wait.
  for (State::Sender& sender : state_->senders) sender.thread.join();
}

void CpuCommunicator::Abort(const Status& reason) {
  const Status status =
      reason.code() == StatusCode::kAborted ? reason : AbortedError(std::string(reason.message()));
  state_->Break(status);
  // The other member processes learn of it from the store.
  if (state_->store != nullptr) (void)state_->store->Put(state_->Key("abort"), status.message());
}

Result<plugin::CollectiveResult> CpuCommunicator::Run(const CollectiveCall& call) {
  const size_t ranks = state_->device_ids.size();
  const bool point_to_point = call.op == CollectiveOp::kSend || call.op == CollectiveOp::kRecv;
  if (point_to_point && static_cast<int64_t>(ranks) > kMaxPointToPointRanks &&
      state_->node_of_rank[static_cast<size_t>(call.peer)] != state_->self_node) {
    return UnimplementedError("send and recv between processes in a communicator of more than " +
                              std::to_string(kMaxPointToPointRanks) + " ranks");
  }
  int64_t seq = 0;
  {
    std::lock_guard lock(state_->mutex);
    if (call.op == CollectiveOp::kSend) {
      seq = state_->sends_issued[{call.rank, call.peer}]++;
    } else if (call.op == CollectiveOp::kRecv) {
      seq = state_->recvs_issued[{call.peer, call.rank}]++;
    } else {
      seq = state_->issued[static_cast<size_t>(call.rank)]++;
    }
  }
  plugin::Device* device = local_device(call.rank);
  plugin::CollectiveResult result;
  std::shared_ptr<BufferContents> output;
  if (call.op != CollectiveOp::kSend) {
    output = std::make_shared<BufferContents>();
    result.output = std::make_unique<CpuBuffer>(call.output_type, call.output_dims, device,
                                                device->default_memory(), output);
  }
  Operand input;
  if (call.input != nullptr) {
    input.type = call.input->element_type();
    input.dims = call.input->dims();
    input.contents = static_cast<CpuBuffer*>(call.input)->contents();
  }
  CollectiveCall queued = call;
  queued.input = nullptr;  // the buffer object may go before the work runs; its contents stay
  plugin::Event done = result.done;
  state_->client->EnqueueLaunch({device}, {[state = state_, queued, seq, input, output, done]() {
                                  if (state->IsRemoteSend(queued))
                                    return state->SendInBackground(queued, seq, input, done);
                                  Result<std::shared_ptr<Storage>> storage =
                                      state->Execute(queued, seq, input);
                                  if (output != nullptr) {
                                    if (storage.ok()) {
                                      output->Fulfill(std::move(storage).value());
                                    } else {
                                      output->Fail(storage.status());
                                    }
                                  }
                                  done.Set(storage.status());
                                }});
  return result;
}

}  // namespace berth::cpu
