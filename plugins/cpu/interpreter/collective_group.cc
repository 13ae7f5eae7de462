#include "interpreter/collective_group.hpp"

#include <algorithm>
#include <cstring>

#include "interpreter/kernel.hpp"

namespace berth::cpu {

void CollectiveGroup::Attach(int64_t instance, ExecContext* ctx) {
  std::lock_guard lock(mutex_);
  if (instance >= 0 && instance < num_instances()) instances_[static_cast<size_t>(instance)] = ctx;
  if (aborted_ && ctx != nullptr) ctx->Cancel(abort_reason_);
}

void CollectiveGroup::Detach(int64_t instance) {
  std::lock_guard lock(mutex_);
  if (instance >= 0 && instance < num_instances()) instances_[static_cast<size_t>(instance)] = nullptr;
}

void CollectiveGroup::Abort(const Status& reason) {
  {
    std::lock_guard lock(mutex_);
    if (aborted_) return;
    aborted_ = true;
    abort_reason_ = reason;
    for (ExecContext* ctx : instances_) {
      if (ctx != nullptr) ctx->Cancel(reason);
    }
  }
  changed_.notify_all();
}

bool CollectiveGroup::IsLocal() const {
  for (int64_t i = 0; i < num_instances(); ++i) {
    if (NodeOf(i) != placement_.self_node) return false;
  }
  return true;
}

void CollectiveGroup::Put(const std::string& queue, Tensor value) {
  {
    std::lock_guard lock(mutex_);
    queues_[queue].push_back(std::move(value));
  }
  changed_.notify_all();
}

Result<Tensor> CollectiveGroup::Take(const std::string& queue, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  std::deque<Tensor>& values = queues_[queue];
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  bool ready = changed_.wait_until(lock, deadline, [&] { return aborted_ || !values.empty(); });
  if (aborted_) return abort_reason_;
  if (!ready) {
    return DeadlineExceededError("nothing came on " + queue + " within " +
                                 std::to_string(timeout.count()) + " ms");
  }
  Tensor value = std::move(values.front());
  values.pop_front();
  return value;
}

int CollectiveGroup::NodeOf(int64_t instance) const {
  if (placement_.node_of_instance.empty()) return placement_.self_node;
  return placement_.node_of_instance.at(static_cast<size_t>(instance));
}

bool CollectiveGroup::SpansProcesses(const std::vector<int64_t>& participants) const {
  if (placement_.gloo == nullptr) return false;
  for (int64_t p : participants) {
    if (NodeOf(p) != placement_.self_node) return true;
  }
  return false;
}

namespace {

std::string JoinIds(const auto& ids) {
  std::string out;
  for (auto id : ids) {
    if (!out.empty()) out += '.';
    out += std::to_string(id);
  }
  return out;
}

// The name of the Gloo context for a process group: the same in every
// process, and short enough for a key.
std::string GroupName(const std::vector<int>& nodes, const std::vector<int64_t>& participants) {
  // Built by appending: GCC 12 warns (-Wrestrict, a false positive) on
  // "literal" + std::string temporaries.
  std::string name = "n";
  name.append(JoinIds(nodes)).append("-m").append(JoinIds(participants));
  if (name.size() <= 200) return name;
  // libstdc++'s string hash is deterministic, and every process runs this
  // same library.
  std::string hashed = "n";
  hashed.append(std::to_string(nodes.size())).append("-h");
  hashed.append(std::to_string(std::hash<std::string>{}(name))).append("-");
  return hashed.append(std::to_string(name.size()));
}

}  // namespace

Status CollectiveGroup::GatherRemote(const std::string& key,
                                     const std::vector<int64_t>& participants,
                                     std::map<int64_t, Tensor>& values,
                                     std::chrono::milliseconds timeout) {
  const std::vector<Tensor>& sample = values.begin()->second.elements();
  size_t per_instance = 0;
  for (const Tensor& element : sample) per_instance += element.byte_size();
  std::vector<int> nodes;
  for (int64_t p : participants) nodes.push_back(NodeOf(p));
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  std::vector<size_t> sizes(nodes.size(), 0);
  for (int64_t p : participants) {
    size_t index = static_cast<size_t>(std::find(nodes.begin(), nodes.end(), NodeOf(p)) - nodes.begin());
    sizes[index] += per_instance;
  }
  const size_t self_index = static_cast<size_t>(
      std::find(nodes.begin(), nodes.end(), placement_.self_node) - nodes.begin());
  std::vector<std::byte> mine;
  mine.reserve(sizes[self_index]);
  for (int64_t p : participants) {
    if (NodeOf(p) != placement_.self_node) continue;
    const std::vector<Tensor>& elements = values.at(p).elements();
    if (elements.size() != sample.size()) {
      return InvalidArgumentError("collective '" + key + "': instance " + std::to_string(p) +
                                  " gives " + std::to_string(elements.size()) +
                                  " operands, others " + std::to_string(sample.size()));
    }
    for (size_t e = 0; e < elements.size(); ++e) {
      if (elements[e].byte_size() != sample[e].byte_size()) {
        return InvalidArgumentError("collective '" + key + "': operand " + std::to_string(e) +
                                    " of instance " + std::to_string(p) +
                                    " differs in size from the other instances'");
      }
      mine.insert(mine.end(), elements[e].bytes(), elements[e].bytes() + elements[e].byte_size());
    }
  }
  size_t total = 0;
  for (size_t size : sizes) total += size;
  std::vector<std::byte> all(total);
  BERTH_RETURN_IF_ERROR(
      placement_.gloo->AllGather(placement_.group_prefix + GroupName(nodes, participants), nodes,
                                 mine.data(), sizes, all.data(), timeout));
  size_t offset = 0;
  for (size_t n = 0; n < nodes.size(); ++n) {
    size_t cursor = offset;
    offset += sizes[n];
    if (nodes[n] == placement_.self_node) continue;
    for (int64_t p : participants) {
      if (NodeOf(p) != nodes[n]) continue;
      std::vector<Tensor> elements;
      for (const Tensor& like : sample) {
        BERTH_ASSIGN_OR_RETURN(Tensor element, Tensor::Allocate(like.type(), like.dims()));
        std::memcpy(element.bytes(), all.data() + cursor, element.byte_size());
        cursor += element.byte_size();
        elements.push_back(std::move(element));
      }
      values[p] = Tensor::Tuple(std::move(elements));
    }
  }
  return OkStatus();
}

Result<Tensor> CollectiveGroup::ReduceRemote(const std::string& key,
                                             const std::vector<int64_t>& participants,
                                             const std::map<int64_t, Tensor>& values,
                                             const CombineFn& combine, const GlooReduceFn& reduce,
                                             std::chrono::milliseconds timeout) {
  std::vector<int64_t> local;
  std::vector<int> nodes;
  for (int64_t p : participants) {
    if (NodeOf(p) == placement_.self_node) local.push_back(p);
    nodes.push_back(NodeOf(p));
  }
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  const Tensor& first = values.at(local.front());
  BERTH_ASSIGN_OR_RETURN(Tensor acc, Tensor::Allocate(first.type(), first.dims()));
  const void* in = first.bytes();
  if (local.size() > 1) {
    std::memcpy(acc.bytes(), first.bytes(), first.byte_size());
    for (size_t i = 1; i < local.size(); ++i) {
      const Tensor& x = values.at(local[i]);
      if (x.byte_size() != acc.byte_size()) {
        return InvalidArgumentError("collective '" + key + "': instance " +
                                    std::to_string(local[i]) +
                                    " differs in size from the other instances'");
      }
      combine(acc, x);
    }
    in = acc.bytes();
  }
  const size_t count = static_cast<size_t>(acc.num_elements());
  const size_t element_size = count == 0 ? 1 : acc.byte_size() / count;
  BERTH_RETURN_IF_ERROR(
      placement_.gloo->AllReduce(placement_.group_prefix + GroupName(nodes, participants), nodes,
                                 in, acc.bytes(), count, element_size, reduce, timeout));
  return acc;
}

Status CollectiveGroup::AwaitMeeting(std::unique_lock<std::mutex>& lock, const std::string& key,
                                     const std::vector<int64_t>& participants,
                                     std::chrono::milliseconds timeout) {
  Meeting& meeting = meetings_[key];
  auto deadline = std::chrono::steady_clock::now() + timeout;
  bool complete = changed_.wait_until(lock, deadline, [&] { return aborted_ || meeting.done; });
  if (aborted_) return abort_reason_;
  if (!complete) {
    std::string missing;
    for (int64_t p : participants) {
      if (NodeOf(p) == placement_.self_node && !meeting.values.count(p)) {
        missing += (missing.empty() ? "" : ", ") + std::to_string(p);
      }
    }
    return DeadlineExceededError(
        "collective '" + key + "' timed out after " + std::to_string(timeout.count() / 1000) +
        " s " + (missing.empty() ? std::string("waiting for the other processes")
                                 : "waiting for instances " + missing));
  }
  return meeting.error;
}

Result<CollectiveGroup::Meeting*> CollectiveGroup::JoinLocked(
    const std::string& key, int64_t instance, const std::vector<int64_t>& participants,
    Tensor value) {
  if (aborted_) return abort_reason_;
  Meeting& meeting = meetings_[key];
  meeting.expected = 0;
  for (int64_t p : participants) meeting.expected += NodeOf(p) == placement_.self_node ? 1 : 0;
  if (!meeting.values.emplace(instance, std::move(value)).second) {
    return InternalError("instance " + std::to_string(instance) + " joined collective '" + key +
                         "' twice");
  }
  return &meeting;
}

Result<std::vector<Tensor>> CollectiveGroup::Exchange(const std::string& key, int64_t instance,
                                                      const std::vector<int64_t>& participants,
                                                      Tensor value,
                                                      std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  const bool cross = SpansProcesses(participants);
  BERTH_ASSIGN_OR_RETURN(Meeting * joined, JoinLocked(key, instance, participants, std::move(value)));
  Meeting& meeting = *joined;
  if (meeting.values.size() == meeting.expected) {
    if (cross) {
      std::map<int64_t, Tensor> values = meeting.values;
      lock.unlock();
      Status status = GatherRemote(key, participants, values, timeout);
      lock.lock();
      if (status.ok()) {
        meeting.values = std::move(values);
      } else {
        meeting.error = status;
      }
    }
    meeting.done = true;
    changed_.notify_all();
  }
  // Across processes the last local arriver may wait up to `timeout` in Gloo.
  BERTH_RETURN_IF_ERROR(AwaitMeeting(lock, key, participants, cross ? 2 * timeout : timeout));
  std::vector<Tensor> out;
  out.reserve(participants.size());
  for (int64_t p : participants) out.push_back(meeting.values.at(p));
  if (++meeting.collected == meeting.expected) meetings_.erase(key);
  return out;
}

Result<Tensor> CollectiveGroup::Reduce(const std::string& key, int64_t instance,
                                       const std::vector<int64_t>& participants, Tensor value,
                                       const CombineFn& combine, const GlooReduceFn& reduce,
                                       std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  if (!SpansProcesses(participants)) {
    return InternalError("collective '" + key + "': Reduce is for groups spanning processes");
  }
  BERTH_ASSIGN_OR_RETURN(Meeting * joined, JoinLocked(key, instance, participants, std::move(value)));
  Meeting& meeting = *joined;
  if (meeting.values.size() == meeting.expected) {
    std::map<int64_t, Tensor> values = meeting.values;
    lock.unlock();
    Result<Tensor> reduced = ReduceRemote(key, participants, values, combine, reduce, timeout);
    lock.lock();
    if (reduced.ok()) {
      meeting.reduced = std::move(reduced).value();
    } else {
      meeting.error = reduced.status();
    }
    meeting.values.clear();  // the inputs are no longer needed
    meeting.done = true;
    changed_.notify_all();
  }
  BERTH_RETURN_IF_ERROR(AwaitMeeting(lock, key, participants, 2 * timeout));
  Tensor out = meeting.reduced;
  if (++meeting.collected == meeting.expected) meetings_.erase(key);
  return out;
}

Result<Tensor> CollectiveGroup::ReduceElementwise(const std::string& key, int64_t instance,
                                                  const std::vector<int64_t>& participants,
                                                  Tensor value, Reducer reducer,
                                                  std::chrono::milliseconds timeout) {
  const ElementType type = value.type();
  CombineFn combine = [type, reducer](Tensor& acc, const Tensor& x) {
    (void)CombineArrays("all_reduce", type, reducer, acc.bytes(), acc.bytes(), x.bytes(),
                        static_cast<size_t>(acc.num_elements()));
  };
  GlooReduceFn reduce = [type, reducer](void* out, const void* a, const void* b, size_t n) {
    (void)CombineArrays("all_reduce", type, reducer, out, a, b, n);
  };
  return Reduce(key, instance, participants, std::move(value), combine, reduce, timeout);
}

}  // namespace berth::cpu
