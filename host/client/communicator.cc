// berth::Communicator and Client::CreateCommunicator: the collectives
// extension's C calls (extensions/collectives/) wrapped in owning handles.
#include "berth/communicator.hpp"

#include <algorithm>

#include "berth/client.hpp"
#include "client/client_state.hpp"
#include "collectives/collectives_client.hpp"

namespace berth {

struct Communicator::Handle {
  std::shared_ptr<const core::ClientState> client;
  BERTH_Collectives_Communicator* communicator = nullptr;

  ~Handle() { ext::collectives::Destroy(*client->library, client->collectives, communicator); }
};

// One operation as the C call takes it.
struct Communicator::Call {
  BERTH_Collectives_Op op = BERTH_Collectives_Op_ALL_REDUCE;
  int64_t rank = 0;
  const Buffer* input = nullptr;
  ReduceOp reduce = ReduceOp::kSum;
  int64_t root = 0;
  int64_t peer = 0;
  std::vector<int64_t> pairs;  // flattened
  ElementType recv_type = ElementType::kInvalid;
  std::span<const int64_t> recv_dims;
  std::chrono::milliseconds timeout{0};
};

Communicator::Communicator(std::shared_ptr<Handle> handle, std::vector<int64_t> device_ids,
                           std::vector<int64_t> local_ranks)
    : handle_(std::move(handle)),
      device_ids_(std::move(device_ids)),
      local_ranks_(std::move(local_ranks)) {}

Communicator::~Communicator() = default;

Result<CollectiveOutput> Communicator::Run(const Call& call) const {
  if (handle_ == nullptr) return FailedPreconditionError("the communicator is empty (moved from)");
  const core::ClientState& client = *handle_->client;
  BERTH_Collectives_Run_Args args{};
  args.communicator = handle_->communicator;
  args.op = call.op;
  args.rank = call.rank;
  if (call.input != nullptr) {
    if (!call.input->valid()) return InvalidArgumentError("the input buffer is empty (moved from)");
    args.input = call.input->c_buffer();
  }
  switch (call.reduce) {
    case ReduceOp::kSum: args.reduce_op = BERTH_Collectives_ReduceOp_SUM; break;
    case ReduceOp::kProduct: args.reduce_op = BERTH_Collectives_ReduceOp_PRODUCT; break;
    case ReduceOp::kMin: args.reduce_op = BERTH_Collectives_ReduceOp_MIN; break;
    case ReduceOp::kMax: args.reduce_op = BERTH_Collectives_ReduceOp_MAX; break;
  }
  args.root = call.root;
  args.peer = call.peer;
  args.pairs = call.pairs.data();
  args.num_pairs = call.pairs.size() / 2;
  args.recv_type = static_cast<BERTH_Buffer_Type>(call.recv_type);
  args.recv_dims = call.recv_dims.data();
  args.recv_num_dims = call.recv_dims.size();
  args.timeout_ms = call.timeout.count();
  BERTH_RETURN_IF_ERROR(ext::collectives::Run(*client.library, client.collectives, args));
  CollectiveOutput out;
  out.done = Event(client.library, args.done);
  if (args.output != nullptr) {
    BERTH_ASSIGN_OR_RETURN(out.output, Buffer::Adopt(handle_->client, args.output));
  }
  return out;
}

namespace {

// The fields every operation has.
Communicator::Call Basic(BERTH_Collectives_Op op, int64_t rank, const Buffer* input,
                         std::chrono::milliseconds timeout) {
  Communicator::Call call;
  call.op = op;
  call.rank = rank;
  call.input = input;
  call.timeout = timeout;
  return call;
}

}  // namespace

Result<CollectiveOutput> Communicator::AllReduce(int64_t rank, const Buffer& input, ReduceOp op,
                                                 std::chrono::milliseconds timeout) const {
  Call call = Basic(BERTH_Collectives_Op_ALL_REDUCE, rank, &input, timeout);
  call.reduce = op;
  return Run(call);
}

Result<CollectiveOutput> Communicator::AllGather(int64_t rank, const Buffer& input,
                                                 std::chrono::milliseconds timeout) const {
  return Run(Basic(BERTH_Collectives_Op_ALL_GATHER, rank, &input, timeout));
}

Result<CollectiveOutput> Communicator::ReduceScatter(int64_t rank, const Buffer& input, ReduceOp op,
                                                     std::chrono::milliseconds timeout) const {
  Call call = Basic(BERTH_Collectives_Op_REDUCE_SCATTER, rank, &input, timeout);
  call.reduce = op;
  return Run(call);
}

Result<CollectiveOutput> Communicator::AllToAll(int64_t rank, const Buffer& input,
                                                std::chrono::milliseconds timeout) const {
  return Run(Basic(BERTH_Collectives_Op_ALL_TO_ALL, rank, &input, timeout));
}

Result<CollectiveOutput> Communicator::Broadcast(int64_t rank, const Buffer& input, int64_t root,
                                                 std::chrono::milliseconds timeout) const {
  Call call = Basic(BERTH_Collectives_Op_BROADCAST, rank, &input, timeout);
  call.root = root;
  return Run(call);
}

Result<CollectiveOutput> Communicator::CollectivePermute(
    int64_t rank, const Buffer& input, std::span<const std::pair<int64_t, int64_t>> pairs,
    std::chrono::milliseconds timeout) const {
  Call call = Basic(BERTH_Collectives_Op_COLLECTIVE_PERMUTE, rank, &input, timeout);
  for (const auto& [source, target] : pairs) {
    call.pairs.push_back(source);
    call.pairs.push_back(target);
  }
  return Run(call);
}

Result<Event> Communicator::Send(int64_t rank, const Buffer& input, int64_t peer,
                                 std::chrono::milliseconds timeout) const {
  Call call = Basic(BERTH_Collectives_Op_SEND, rank, &input, timeout);
  call.peer = peer;
  BERTH_ASSIGN_OR_RETURN(CollectiveOutput out, Run(call));
  return std::move(out.done);
}

Result<CollectiveOutput> Communicator::Recv(int64_t rank, int64_t peer, ElementType type,
                                            std::span<const int64_t> dims,
                                            std::chrono::milliseconds timeout) const {
  Call call = Basic(BERTH_Collectives_Op_RECV, rank, nullptr, timeout);
  call.peer = peer;
  call.recv_type = type;
  call.recv_dims = dims;
  return Run(call);
}

Status Communicator::Abort(std::string_view reason) const {
  if (handle_ == nullptr) return FailedPreconditionError("the communicator is empty (moved from)");
  return ext::collectives::Abort(*handle_->client->library, handle_->client->collectives,
                                 handle_->communicator, reason);
}

Result<std::vector<ElementType>> Client::CollectiveElementTypes() const {
  return ext::collectives::ElementTypes(*state_->library, state_->collectives);
}

Result<Communicator> Client::CreateCommunicator(std::span<const int64_t> device_ids,
                                                std::chrono::milliseconds timeout) const {
  BERTH_ASSIGN_OR_RETURN(BERTH_Collectives_Communicator * c_communicator,
                         ext::collectives::Create(*state_->library, state_->client,
                                                  state_->collectives, device_ids, timeout));
  auto handle = std::make_shared<Communicator::Handle>();
  handle->client = state_;
  handle->communicator = c_communicator;
  std::vector<int64_t> local_ranks;
  for (size_t r = 0; r < device_ids.size(); ++r) {
    Result<Device> device = LookupDevice(device_ids[r]);
    if (device.ok() && device->is_addressable()) local_ranks.push_back(static_cast<int64_t>(r));
  }
  return Communicator(std::move(handle), std::vector<int64_t>(device_ids.begin(), device_ids.end()),
                      std::move(local_ranks));
}

}  // namespace berth
