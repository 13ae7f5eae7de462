// The collectives extension (berth/ext/collectives.h): the C entry points,
// which check every argument against the communicator and work out the
// output's type and dims before Communicator::Run sees the call.
#include <algorithm>
#include <set>

#include "abi_glue.hpp"
#include "berth/plugin/communicator.hpp"
#include "berth/plugin/extensions.hpp"

struct BERTH_Collectives_Communicator {
  std::unique_ptr<berth::plugin::Communicator> impl;
};

namespace berth::plugin {

const char* CollectiveOpName(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::kAllReduce: return "all_reduce";
    case CollectiveOp::kAllGather: return "all_gather";
    case CollectiveOp::kReduceScatter: return "reduce_scatter";
    case CollectiveOp::kAllToAll: return "all_to_all";
    case CollectiveOp::kBroadcast: return "broadcast";
    case CollectiveOp::kCollectivePermute: return "collective_permute";
    case CollectiveOp::kSend: return "send";
    case CollectiveOp::kRecv: return "recv";
  }
  return "?";
}

const char* ReduceOpName(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return "sum";
    case ReduceOp::kProduct: return "product";
    case ReduceOp::kMin: return "min";
    case ReduceOp::kMax: return "max";
  }
  return "?";
}

Result<std::unique_ptr<Communicator>> Client::CreateCommunicator(
    const std::vector<int64_t>& device_ids, std::chrono::milliseconds timeout) {
  (void)device_ids;
  (void)timeout;
  return UnimplementedError("platform '" + platform_name() + "' has no communicators");
}

namespace glue {
namespace {

// The element types CollectivesExtension was given, as C values.
std::vector<BERTH_Buffer_Type>& ListedTypes() {
  static std::vector<BERTH_Buffer_Type> types;
  return types;
}

bool Listed(ElementType type) {
  const std::vector<BERTH_Buffer_Type>& types = ListedTypes();
  return std::find(types.begin(), types.end(), static_cast<BERTH_Buffer_Type>(type)) != types.end();
}

BERTH_Error* Create(BERTH_Collectives_Create_Args* args) {
  constexpr const char* kFn = "BERTH_Collectives_Create";
  return Guard(kFn, args, BERTH_Collectives_Create_Args_STRUCT_SIZE, [&]() -> Status {
    args->communicator = nullptr;
    if (args->client == nullptr) return NullArgument(kFn, "client");
    if (args->num_devices == 0) return InvalidArgumentError(std::string(kFn) + ": no devices");
    if (args->device_ids == nullptr) return NullArgument(kFn, "device_ids");
    Client& client = *args->client->impl;
    std::vector<int64_t> ids(args->device_ids, args->device_ids + args->num_devices);
    std::set<int64_t> seen;
    bool any_local = false;
    for (size_t r = 0; r < ids.size(); ++r) {
      if (!seen.insert(ids[r]).second) {
        return InvalidArgumentError(
            std::string(kFn) + ": device " + std::to_string(ids[r]) + " is listed twice (ranks " +
            std::to_string(std::find(ids.begin(), ids.end(), ids[r]) - ids.begin()) + " and " +
            std::to_string(r) + ")");
      }
      Result<Device*> device = client.LookupDevice(ids[r]);
      if (!device.ok()) {
        return InvalidArgumentError(std::string(kFn) + ": rank " + std::to_string(r) + ": " +
                                    device.status().message());
      }
      any_local |= (*device)->is_addressable();
    }
    if (!any_local) {
      return InvalidArgumentError(std::string(kFn) + ": none of the " + std::to_string(ids.size()) +
                                  " devices is this process's");
    }
    const auto timeout = std::chrono::milliseconds(std::max<int64_t>(0, args->timeout_ms));
    BERTH_ASSIGN_OR_RETURN(std::unique_ptr<Communicator> impl,
                           client.CreateCommunicator(ids, timeout));
    if (impl == nullptr)
      return InternalError(std::string(kFn) + ": the plugin made no communicator");
    args->communicator = new BERTH_Collectives_Communicator{std::move(impl)};
    return OkStatus();
  });
}

BERTH_Error* Destroy(BERTH_Collectives_Destroy_Args* args) {
  return Guard("BERTH_Collectives_Destroy", args, BERTH_Collectives_Destroy_Args_STRUCT_SIZE, [&] {
    // The plugin's destructor fails what is still pending in this process.
    delete args->communicator;
    return OkStatus();
  });
}

BERTH_Error* Abort(BERTH_Collectives_Abort_Args* args) {
  constexpr const char* kFn = "BERTH_Collectives_Abort";
  return Guard(kFn, args, BERTH_Collectives_Abort_Args_STRUCT_SIZE, [&]() -> Status {
    if (args->communicator == nullptr) return NullArgument(kFn, "communicator");
    if (args->reason == nullptr && args->reason_size > 0) return NullArgument(kFn, "reason");
    std::string reason(args->reason == nullptr ? "" : std::string(args->reason, args->reason_size));
    args->communicator->impl->Abort(
        AbortedError(reason.empty() ? std::string("the communicator was aborted") : reason));
    return OkStatus();
  });
}

// Dims split in `ranks` blocks along dimension 0.
Status CheckSplit(const char* op, const std::vector<int64_t>& dims, size_t ranks) {
  if (dims.empty() || dims[0] % static_cast<int64_t>(ranks) != 0) {
    return InvalidArgumentError(std::string(op) + ": dimension 0 of the input (" +
                                (dims.empty() ? std::string("a scalar") : std::to_string(dims[0])) +
                                ") must be a multiple of the " + std::to_string(ranks) + " ranks");
  }
  return OkStatus();
}

// The call as Run takes it: everything checked, the output's shape worked out.
Result<CollectiveCall> CallFromC(const BERTH_Collectives_Run_Args& args, const Communicator& comm) {
  CollectiveCall call;
  if (args.op < BERTH_Collectives_Op_ALL_REDUCE || args.op > BERTH_Collectives_Op_RECV) {
    return InvalidArgumentError("unknown operation " + std::to_string(args.op));
  }
  call.op = static_cast<CollectiveOp>(args.op);
  const char* name = CollectiveOpName(call.op);
  const size_t ranks = comm.device_ids().size();
  auto check_rank = [&](int64_t rank, const char* what) -> Status {
    if (rank < 0 || static_cast<size_t>(rank) >= ranks) {
      return InvalidArgumentError(std::string(name) + ": " + what + " " + std::to_string(rank) +
                                  " is not a rank of the communicator of " + std::to_string(ranks));
    }
    return OkStatus();
  };
  BERTH_RETURN_IF_ERROR(check_rank(args.rank, "rank"));
  call.rank = args.rank;
  Device* device = comm.local_device(call.rank);
  if (device == nullptr) {
    return InvalidArgumentError(std::string(name) + ": rank " + std::to_string(call.rank) +
                                " (device " +
                                std::to_string(comm.device_ids()[static_cast<size_t>(call.rank)]) +
                                ") is not this process's");
  }
  call.timeout = std::chrono::milliseconds(std::max<int64_t>(0, args.timeout_ms));
  if (call.op == CollectiveOp::kRecv) {
    BERTH_RETURN_IF_ERROR(check_rank(args.peer, "peer"));
    call.peer = args.peer;
    if (args.recv_num_dims > 0 && args.recv_dims == nullptr) {
      return InvalidArgumentError(std::string(name) + ": recv_dims is NULL");
    }
    call.recv_type = static_cast<ElementType>(args.recv_type);
    call.recv_dims.assign(args.recv_dims, args.recv_dims + args.recv_num_dims);
    for (int64_t d : call.recv_dims) {
      if (d < 0)
        return InvalidArgumentError(std::string(name) + ": negative dimension " +
                                    std::to_string(d));
    }
    if (!Listed(call.recv_type)) {
      return InvalidArgumentError(std::string(name) + ": element type " +
                                  std::to_string(static_cast<int>(args.recv_type)) +
                                  " is not one the plugin's collectives take");
    }
    call.output_type = call.recv_type;
    call.output_dims = call.recv_dims;
    return call;
  }
  if (args.input == nullptr || args.input->impl == nullptr) {
    return InvalidArgumentError(std::string(name) + ": input is NULL");
  }
  call.input = args.input->impl.get();
  if (call.input->device() != device) {
    return InvalidArgumentError(std::string(name) + ": the input of rank " +
                                std::to_string(call.rank) + " is on device " +
                                std::to_string(call.input->device()->id()) +
                                ", the rank's device is " + std::to_string(device->id()));
  }
  if (!Listed(call.input->element_type())) {
    return InvalidArgumentError(std::string(name) + ": element type " +
                                std::string(ElementTypeName(call.input->element_type())) +
                                " is not one the plugin's collectives take");
  }
  call.output_type = call.input->element_type();
  call.output_dims = call.input->dims();
  switch (call.op) {
    case CollectiveOp::kAllReduce:
    case CollectiveOp::kReduceScatter:
      if (args.reduce_op < BERTH_Collectives_ReduceOp_SUM ||
          args.reduce_op > BERTH_Collectives_ReduceOp_MAX) {
        return InvalidArgumentError(std::string(name) + ": unknown reduction " +
                                    std::to_string(args.reduce_op));
      }
      call.reduce = static_cast<ReduceOp>(args.reduce_op);
      if (call.op == CollectiveOp::kReduceScatter) {
        BERTH_RETURN_IF_ERROR(CheckSplit(name, call.output_dims, ranks));
        call.output_dims[0] /= static_cast<int64_t>(ranks);
      }
      break;
    case CollectiveOp::kAllGather:
      if (call.output_dims.empty()) {
        call.output_dims = {static_cast<int64_t>(ranks)};
      } else {
        call.output_dims[0] *= static_cast<int64_t>(ranks);
      }
      break;
    case CollectiveOp::kAllToAll:
      BERTH_RETURN_IF_ERROR(CheckSplit(name, call.output_dims, ranks));
      break;
    case CollectiveOp::kBroadcast:
      BERTH_RETURN_IF_ERROR(check_rank(args.root, "root"));
      call.root = args.root;
      break;
    case CollectiveOp::kCollectivePermute: {
      if (args.num_pairs > 0 && args.pairs == nullptr) {
        return InvalidArgumentError(std::string(name) + ": pairs is NULL");
      }
      std::set<int64_t> sources, targets;
      for (size_t i = 0; i < args.num_pairs; ++i) {
        const int64_t source = args.pairs[2 * i], target = args.pairs[2 * i + 1];
        BERTH_RETURN_IF_ERROR(check_rank(source, "source"));
        BERTH_RETURN_IF_ERROR(check_rank(target, "target"));
        if (!sources.insert(source).second || !targets.insert(target).second) {
          return InvalidArgumentError(std::string(name) + ": pair #" + std::to_string(i) + " (" +
                                      std::to_string(source) + ", " + std::to_string(target) +
                                      ") repeats a source or a target");
        }
        call.pairs.emplace_back(source, target);
      }
      break;
    }
    case CollectiveOp::kSend:
      BERTH_RETURN_IF_ERROR(check_rank(args.peer, "peer"));
      call.peer = args.peer;
      call.output_type = ElementType::kInvalid;
      call.output_dims.clear();
      break;
    case CollectiveOp::kRecv: break;
  }
  return call;
}

BERTH_Error* Run(BERTH_Collectives_Run_Args* args) {
  constexpr const char* kFn = "BERTH_Collectives_Run";
  return Guard(kFn, args, BERTH_Collectives_Run_Args_STRUCT_SIZE, [&]() -> Status {
    args->output = nullptr;
    args->done = nullptr;
    if (args->communicator == nullptr) return NullArgument(kFn, "communicator");
    Communicator& comm = *args->communicator->impl;
    BERTH_ASSIGN_OR_RETURN(CollectiveCall call, CallFromC(*args, comm));
    BERTH_ASSIGN_OR_RETURN(CollectiveResult result, comm.Run(call));
    if ((result.output == nullptr) != (call.op == CollectiveOp::kSend)) {
      return InternalError(std::string(kFn) + ": the plugin's " + CollectiveOpName(call.op) +
                           (result.output == nullptr ? " made no output" : " made an output"));
    }
    if (result.output != nullptr) args->output = new BERTH_Buffer{std::move(result.output)};
    args->done = NewCEvent(std::move(result.done));
    return OkStatus();
  });
}

}  // namespace
}  // namespace glue

BERTH_Extension_Base* CollectivesExtension(std::span<const ElementType> element_types) {
  static BERTH_Collectives_Extension extension = [&] {
    for (ElementType type : element_types)
      glue::ListedTypes().push_back(static_cast<BERTH_Buffer_Type>(type));
    return BERTH_Collectives_Extension{
        {BERTH_Collectives_Extension_STRUCT_SIZE, BERTH_Extension_Type_Collectives, nullptr},
        BERTH_COLLECTIVES_EXTENSION_VERSION,
        glue::ListedTypes().data(),
        glue::ListedTypes().size(),
        glue::Create,
        glue::Destroy,
        glue::Abort,
        glue::Run};
  }();
  return &extension.base;
}

}  // namespace berth::plugin
