// Transfers between a program and its peers or the host: send and recv
// (values on a channel, by handle, between the instances of one launch in
// this process), infeed and outfeed (the host's queues). The plugin has no
// host transfer API: the host queues exist in interpreter.run_parallel,
// whose `infeed` functions fill infeed's queue and whose outfeed and host
// sends are kept in it; elsewhere infeed, outfeed and host transfers are
// UNIMPLEMENTED. A value put on a queue is taken whole, in order; a recv
// whose value never comes fails after the collectives' timeout (2 minutes).
#include <string>

#include "interpreter/collective_group.hpp"
#include "interpreter/data_movement.hpp"
#include "interpreter/kernel.hpp"

namespace berth::cpu {
namespace {

using stablehlo::Operation;
using stablehlo::OpKind;

// The queue of `op`'s channel, or why the op cannot run here.
Result<std::string> ChannelQueue(const KernelCall& call) {
  const Operation& op = call.op;
  const DeviceContext& d = call.ctx.device();
  std::optional<stablehlo::ChannelHandle> handle = op.channel_handle();
  if (!handle) return InvalidArgumentError("has no channel_handle");
  const bool host = op.GetBool("is_host_transfer");
  if (d.collectives == nullptr || (host && !d.collectives->has_host_queues())) {
    return UnimplementedError(
        std::string(host ? "a host transfer" : "a transfer in a program running alone") +
        ": the cpu plugin has no host transfer API (host transfers and infeed/outfeed run inside "
        "interpreter.run_parallel; device transfers between the instances of one launch)");
  }
  if (!d.collectives->IsLocal()) {
    return UnimplementedError("send/recv between processes is not supported by the cpu plugin");
  }
  return "channel " + std::to_string(handle->handle);
}

// The values a recv or infeed took, checked against the op's results (all
// but the last, the token), then the token.
Status PushReceived(KernelCall& call, const Tensor& received, const std::string& from) {
  const size_t count = call.op.num_results() - 1;
  const std::vector<Tensor>& values = received.elements();
  if (values.size() != count) {
    return InvalidArgumentError("expects " + std::to_string(count) + " values from " + from + ", " +
                                std::to_string(values.size()) + " came");
  }
  for (size_t i = 0; i < count; ++i) {
    stablehlo::Type type = call.op.result(i)->type();
    if (!values[i].is_tensor() || values[i].type() != type.element_type()) {
      return InvalidArgumentError("result #" + std::to_string(i) + " is " + type.ToString() + ", " +
                                  from + " gave " + values[i].TypeString());
    }
    BERTH_RETURN_IF_ERROR(CheckResultDims(call, i, values[i].dims()));
    call.results.push_back(values[i]);
  }
  call.results.push_back(Tensor::Token());
  return OkStatus();
}

// Every operand but the last (the token), as one tuple.
Tensor OperandValues(const KernelCall& call) {
  return Tensor::Tuple(std::vector<Tensor>(call.operands.begin(), call.operands.end() - 1));
}

Status Send(KernelCall& call) {
  BERTH_ASSIGN_OR_RETURN(std::string queue, ChannelQueue(call));
  call.ctx.device().collectives->Put(queue, OperandValues(call));
  call.results.push_back(Tensor::Token());
  return OkStatus();
}

Status Recv(KernelCall& call) {
  BERTH_ASSIGN_OR_RETURN(std::string queue, ChannelQueue(call));
  BERTH_ASSIGN_OR_RETURN(Tensor received,
                         call.ctx.device().collectives->Take(queue, kCollectiveTimeout));
  return PushReceived(call, received, queue);
}

Status CheckHostQueues(const KernelCall& call) {
  const DeviceContext& d = call.ctx.device();
  if (d.collectives != nullptr && d.collectives->has_host_queues()) return OkStatus();
  return UnimplementedError(
      "the cpu plugin has no host transfer API: infeed and outfeed run only inside "
      "interpreter.run_parallel (whose `infeed` functions feed infeed)");
}

Status Infeed(KernelCall& call) {
  BERTH_RETURN_IF_ERROR(CheckHostQueues(call));
  // The queue is filled before the programs start: empty means empty.
  Result<Tensor> received =
      call.ctx.device().collectives->Take("infeed", std::chrono::milliseconds(0));
  if (received.status().code() == StatusCode::kDeadlineExceeded) {
    return FailedPreconditionError("the infeed queue is empty");
  }
  BERTH_RETURN_IF_ERROR(received.status());
  return PushReceived(call, *received, "infeed");
}

Status Outfeed(KernelCall& call) {
  BERTH_RETURN_IF_ERROR(CheckHostQueues(call));
  call.ctx.device().collectives->Put("outfeed", OperandValues(call));
  call.results.push_back(Tensor::Token());
  return OkStatus();
}

}  // namespace

void RegisterTransferKernels(KernelRegistry& registry) {
  registry.Register({{OpKind::kSend, Send},
                     {OpKind::kRecv, Recv},
                     {OpKind::kInfeed, Infeed},
                     {OpKind::kOutfeed, Outfeed}});
}

}  // namespace berth::cpu
