// Collective ops across the instances of one launch (in this process and,
// in a multi-process job, the others through CollectiveGroup):
// replica_id, partition_id, all_reduce, all_gather, reduce_scatter,
// all_to_all, collective_permute, collective_broadcast, collective_reduce. Process groups follow
// the StableHLO spec's strategies (cross_replica, cross_partition,
// cross_replica_and_partition, flattened_ids).
#include <cstring>

#include "berth/stablehlo/process_groups.hpp"
#include "interpreter/collective_group.hpp"
#include "interpreter/data_movement.hpp"
#include "interpreter/element_types.hpp"
#include "interpreter/kernel.hpp"
#include "interpreter/reduction.hpp"

namespace berth::cpu {
namespace {

using stablehlo::OpKind;
using stablehlo::Operation;

// Where this instance runs in its launch's grid.
stablehlo::GridPosition PositionOf(const DeviceContext& d) {
  return {d.replica_id, d.partition_id, d.num_replicas, d.num_partitions};
}

// Logical instance id (replica * partitions + partition).
int64_t Logical(const DeviceContext& d, int64_t replica, int64_t partition) {
  return replica * d.num_partitions + partition;
}

// The members (logical ids, in group order) of the process group holding
// this instance (berth/stablehlo/process_groups.hpp).
Result<std::vector<int64_t>> ProcessGroup(const KernelCall& call) {
  return stablehlo::ProcessGroupOf(call.op, PositionOf(call.ctx.device()));
}

// The meeting name of this op's next run: op, channel, sequence, group.
std::string CollectiveKey(KernelCall& call, const std::vector<int64_t>& members) {
  std::string kind =
      std::string(call.op.name()) + "#" + std::to_string(stablehlo::CollectiveChannelId(call.op));
  int64_t sequence = call.ctx.NextCollectiveSequence(kind);
  return kind + "#" + std::to_string(sequence) + "@" + std::to_string(members.front());
}

// Exchanges `values` (as one tuple) with the rest of the group; returns each
// member's values in group order. A program running alone is its own group.
Result<std::vector<std::vector<Tensor>>> Exchange(KernelCall& call,
                                                  const std::vector<int64_t>& members,
                                                  std::vector<Tensor> values) {
  const DeviceContext& d = call.ctx.device();
  const int64_t self = Logical(d, d.replica_id, d.partition_id);
  std::vector<std::vector<Tensor>> out;
  if (members.size() == 1) {
    out.push_back(std::move(values));
    return out;
  }
  if (d.collectives == nullptr) {
    return FailedPreconditionError("a collective over " + std::to_string(members.size()) +
                                   " instances in a program running alone");
  }
  std::string key = CollectiveKey(call, members);
  BERTH_ASSIGN_OR_RETURN(std::vector<Tensor> gathered,
                         d.collectives->Exchange(key, self, members,
                                                 Tensor::Tuple(std::move(values)),
                                                 kCollectiveTimeout));
  for (Tensor& t : gathered) out.push_back(t.elements());
  return out;
}

size_t IndexIn(const std::vector<int64_t>& members, int64_t self) {
  return static_cast<size_t>(std::find(members.begin(), members.end(), self) - members.begin());
}

// Reduces `parts[m]` (one tensor per member, same shape) with the op's region.
Result<Tensor> Reduce(KernelCall& call, const std::vector<Tensor>& parts) {
  const Tensor& first = parts.front();
  BERTH_ASSIGN_OR_RETURN(Tensor acc, Tensor::Allocate(first.type(), first.dims()));
  std::memcpy(acc.bytes(), first.bytes(), first.byte_size());
  const Reducer fast = DetectReducer(call.op.region(0));
  for (size_t m = 1; m < parts.size(); ++m) {
    if (fast != Reducer::kNone) {
      BERTH_RETURN_IF_ERROR(CombineArrays(call.op.name(), acc.type(), fast, acc.bytes(), acc.bytes(),
                                          parts[m].bytes(),
                                          static_cast<size_t>(acc.num_elements())));
      continue;
    }
    // General body: run the region on each pair of elements.
    const size_t size = stablehlo::StorageBytes(acc.type());
    for (int64_t i = 0; i < acc.num_elements(); ++i) {
      BERTH_ASSIGN_OR_RETURN(Tensor a, Tensor::Allocate(acc.type(), {}));
      BERTH_ASSIGN_OR_RETURN(Tensor b, Tensor::Allocate(acc.type(), {}));
      std::memcpy(a.bytes(), acc.bytes() + i * size, size);
      std::memcpy(b.bytes(), parts[m].bytes() + i * size, size);
      Tensor args[2] = {a, b};
      BERTH_ASSIGN_OR_RETURN(std::vector<Tensor> r, call.RunRegion(0, args));
      std::memcpy(acc.bytes() + i * size, r.at(0).bytes(), size);
    }
  }
  return acc;
}

// Copies `count` slices [begin, begin + count) along `dim` of `t` into a new tensor.
Result<Tensor> SliceAlong(const Tensor& t, int64_t dim, int64_t begin, int64_t count) {
  std::vector<int64_t> dims = t.dims();
  dims[static_cast<size_t>(dim)] = count;
  BERTH_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(t.type(), dims));
  const size_t element = stablehlo::StorageBytes(t.type());
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < dim; ++i) outer *= t.dims()[static_cast<size_t>(i)];
  for (int64_t i = dim + 1; i < t.rank(); ++i) inner *= t.dims()[static_cast<size_t>(i)];
  const size_t src_row = static_cast<size_t>(t.dims()[static_cast<size_t>(dim)] * inner) * element;
  const size_t dst_row = static_cast<size_t>(count * inner) * element;
  for (int64_t o = 0; o < outer; ++o) {
    std::memcpy(out.bytes() + o * dst_row,
                t.bytes() + o * src_row + static_cast<size_t>(begin * inner) * element, dst_row);
  }
  return out;
}

// Concatenates same-shaped tensors along `dim`.
Result<Tensor> ConcatAlong(const std::vector<Tensor>& parts, int64_t dim) {
  std::vector<int64_t> dims = parts.front().dims();
  const int64_t each = dims[static_cast<size_t>(dim)];
  dims[static_cast<size_t>(dim)] = each * static_cast<int64_t>(parts.size());
  BERTH_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(parts.front().type(), dims));
  const size_t element = stablehlo::StorageBytes(out.type());
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < dim; ++i) outer *= dims[static_cast<size_t>(i)];
  for (size_t i = static_cast<size_t>(dim) + 1; i < dims.size(); ++i) inner *= dims[i];
  const size_t part_row = static_cast<size_t>(each * inner) * element;
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t p = 0; p < parts.size(); ++p) {
      std::memcpy(out.bytes() + (o * static_cast<int64_t>(parts.size()) + static_cast<int64_t>(p)) * part_row,
                  parts[p].bytes() + o * part_row, part_row);
    }
  }
  return out;
}

Status ScalarId(KernelCall& call, int64_t id) {
  BERTH_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(ElementType::kUI32, {}));
  *out.data<uint32_t>() = static_cast<uint32_t>(id);
  call.results.push_back(std::move(out));
  return OkStatus();
}

Status ReplicaId(KernelCall& call) { return ScalarId(call, call.ctx.device().replica_id); }
Status PartitionId(KernelCall& call) { return ScalarId(call, call.ctx.device().partition_id); }

// The operands of every member of this instance's replica group (the
// strategy of all_reduce, all_gather and reduce_scatter), regrouped per
// operand: parts[i][m] is operand i of member m, in group order.
struct GroupOperands {
  std::vector<int64_t> members;
  std::vector<std::vector<Tensor>> parts;
};

Result<GroupOperands> ExchangeOperandsInGroup(KernelCall& call) {
  GroupOperands group;
  BERTH_ASSIGN_OR_RETURN(group.members, ProcessGroup(call));
  BERTH_ASSIGN_OR_RETURN(auto all, Exchange(call, group.members,
                                            {call.operands.begin(), call.operands.end()}));
  group.parts.resize(call.operands.size());
  for (size_t i = 0; i < call.operands.size(); ++i) {
    for (const auto& member : all) group.parts[i].push_back(member.at(i));
  }
  return group;
}

// Exchanges the operands in the group, then pushes one result per operand:
// `combine(group, parts)` of that operand's parts from every member.
template <typename F>
Status CombineInGroup(KernelCall& call, F combine) {
  BERTH_ASSIGN_OR_RETURN(GroupOperands group, ExchangeOperandsInGroup(call));
  for (const std::vector<Tensor>& parts : group.parts) {
    BERTH_ASSIGN_OR_RETURN(Tensor result, combine(group, parts));
    call.results.push_back(std::move(result));
  }
  return OkStatus();
}

// All-reduce of a group spanning processes whose body Gloo can run (add,
// multiply, max, min, and, or, xor): devices of a process combine first,
// then one Gloo all-reduce per operand runs between the processes.
Status AllReduceAcrossProcesses(KernelCall& call, const std::vector<int64_t>& members,
                                Reducer reducer) {
  const DeviceContext& d = call.ctx.device();
  const int64_t self = Logical(d, d.replica_id, d.partition_id);
  const std::string key = CollectiveKey(call, members);
  for (size_t i = 0; i < call.operands.size(); ++i) {
    // The type passed DetectReducer's check at compile: combining cannot fail.
    BERTH_ASSIGN_OR_RETURN(Tensor reduced, d.collectives->ReduceElementwise(
                                               key + "#" + std::to_string(i), self, members,
                                               call.operands[i], reducer, kCollectiveTimeout));
    call.results.push_back(std::move(reduced));
  }
  return OkStatus();
}

Status AllReduce(KernelCall& call) {
  const DeviceContext& d = call.ctx.device();
  if (d.collectives != nullptr) {
    BERTH_ASSIGN_OR_RETURN(std::vector<int64_t> members, ProcessGroup(call));
    const Reducer reducer = DetectReducer(call.op.region(0));
    if (reducer != Reducer::kNone && d.collectives->SpansProcesses(members)) {
      return AllReduceAcrossProcesses(call, members, reducer);
    }
  }
  return CombineInGroup(call, [&](const GroupOperands&, const std::vector<Tensor>& parts) {
    return Reduce(call, parts);
  });
}

// collective_reduce: the reduction reaches the group's first member (its
// root); the others get zeros.
Status CollectiveReduce(KernelCall& call) {
  const DeviceContext& d = call.ctx.device();
  const int64_t self = Logical(d, d.replica_id, d.partition_id);
  return CombineInGroup(
      call, [&](const GroupOperands& group, const std::vector<Tensor>& parts) -> Result<Tensor> {
        BERTH_ASSIGN_OR_RETURN(Tensor reduced, Reduce(call, parts));
        if (group.members.front() == self) return reduced;
        BERTH_ASSIGN_OR_RETURN(Tensor zeros, Tensor::Allocate(reduced.type(), reduced.dims()));
        if (zeros.byte_size() > 0) std::memset(zeros.bytes(), 0, zeros.byte_size());
        return zeros;
      });
}

Status AllGather(KernelCall& call) {
  int64_t dim = call.op.GetInt("all_gather_dim").value_or(0);
  return CombineInGroup(call, [&](const GroupOperands&, const std::vector<Tensor>& parts) {
    return ConcatAlong(parts, dim);
  });
}

Status ReduceScatter(KernelCall& call) {
  const DeviceContext& d = call.ctx.device();
  int64_t dim = call.op.GetInt("scatter_dimension").value_or(0);
  auto mine = [&](const GroupOperands& group, const std::vector<Tensor>& parts) -> Result<Tensor> {
    const int64_t count = static_cast<int64_t>(group.members.size());
    const int64_t self =
        static_cast<int64_t>(IndexIn(group.members, Logical(d, d.replica_id, d.partition_id)));
    BERTH_ASSIGN_OR_RETURN(Tensor reduced, Reduce(call, parts));
    int64_t extent = reduced.dims()[static_cast<size_t>(dim)] / count;
    return SliceAlong(reduced, dim, self * extent, extent);
  };
  return CombineInGroup(call, mine);
}

Status AllToAll(KernelCall& call) {
  const DeviceContext& d = call.ctx.device();
  int64_t split_dim = call.op.GetInt("split_dimension").value_or(0);
  int64_t concat_dim = call.op.GetInt("concat_dimension").value_or(0);
  int64_t split_count = call.op.GetInt("split_count").value_or(1);
  BERTH_ASSIGN_OR_RETURN(std::vector<int64_t> members, ProcessGroup(call));
  if (static_cast<int64_t>(members.size()) != split_count) {
    return InvalidArgumentError("split_count " + std::to_string(split_count) +
                                " differs from the process group size " +
                                std::to_string(members.size()));
  }
  BERTH_ASSIGN_OR_RETURN(auto all, Exchange(call, members, {call.operands.begin(), call.operands.end()}));
  const size_t self = IndexIn(members, Logical(d, d.replica_id, d.partition_id));
  for (size_t i = 0; i < call.operands.size(); ++i) {
    std::vector<Tensor> scattered;
    for (const auto& member : all) {
      const Tensor& operand = member.at(i);
      int64_t extent = operand.dims()[static_cast<size_t>(split_dim)] / split_count;
      BERTH_ASSIGN_OR_RETURN(Tensor part, SliceAlong(operand, split_dim,
                                                     static_cast<int64_t>(self) * extent, extent));
      scattered.push_back(std::move(part));
    }
    BERTH_ASSIGN_OR_RETURN(Tensor result, ConcatAlong(scattered, concat_dim));
    call.results.push_back(std::move(result));
  }
  return OkStatus();
}

Status CollectivePermute(KernelCall& call) {
  // Every instance of the same replica (or partition) set takes part in one
  // exchange; each then picks the value of its source, if any.
  const stablehlo::GridPosition at = PositionOf(call.ctx.device());
  BERTH_ASSIGN_OR_RETURN(auto all,
                         Exchange(call, stablehlo::PermuteSetOf(call.op, at), {call.operands[0]}));
  const int64_t source = stablehlo::PermuteSourceOf(call.op, at);
  const Tensor& operand = call.operands[0];
  BERTH_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(operand.type(), operand.dims()));
  if (source >= 0) {
    std::memcpy(out.bytes(), all[static_cast<size_t>(source)].at(0).bytes(), out.byte_size());
  } else {
    std::memset(out.bytes(), 0, out.byte_size());
  }
  call.results.push_back(std::move(out));
  return OkStatus();
}

// Every process of a group gets the data of the group's source: its first
// process, or with `has_dynamic_root` the one at the index that the last
// operand (one root per data operand, or one for all) names. A process in no
// group gets zeros.
Status CollectiveBroadcast(KernelCall& call) {
  const bool dynamic_root = call.op.attr("has_dynamic_root") != nullptr;
  const size_t num_data = call.operands.size() - (dynamic_root ? 1 : 0);
  std::vector<Tensor> data(call.operands.begin(),
                           call.operands.begin() + static_cast<std::ptrdiff_t>(num_data));
  Result<std::vector<int64_t>> members = ProcessGroup(call);
  if (!members.ok()) {
    if (members.status().code() != StatusCode::kNotFound) return members.status();
    for (const Tensor& t : data) {
      BERTH_ASSIGN_OR_RETURN(Tensor zeros, Tensor::Allocate(t.type(), t.dims()));
      std::memset(zeros.bytes(), 0, zeros.byte_size());
      call.results.push_back(std::move(zeros));
    }
    return OkStatus();
  }
  BERTH_ASSIGN_OR_RETURN(auto all, Exchange(call, *members, data));
  for (size_t i = 0; i < num_data; ++i) {
    int64_t root = 0;
    if (dynamic_root) {
      const Tensor& roots = call.operands.back();
      if (roots.num_elements() == 0) return InvalidArgumentError("the root operand is empty");
      const int64_t at = roots.num_elements() == 1 ? 0 : static_cast<int64_t>(i);
      if (at >= roots.num_elements()) {
        return InvalidArgumentError("the root operand has " + std::to_string(roots.num_elements()) +
                                    " elements for " + std::to_string(num_data) + " operands");
      }
      root = IndexAt(roots, at);
      if (root < 0 || root >= static_cast<int64_t>(all.size())) {
        return InvalidArgumentError("root index " + std::to_string(root) +
                                    " is outside the process group of " +
                                    std::to_string(all.size()));
      }
    }
    call.results.push_back(all[static_cast<size_t>(root)].at(i));
  }
  return OkStatus();
}

}  // namespace

void RegisterCollectiveKernels(KernelRegistry& registry) {
  registry.Register({{OpKind::kReplicaId, ReplicaId},
                     {OpKind::kPartitionId, PartitionId},
                     {OpKind::kAllReduce, AllReduce},
                     {OpKind::kAllGather, AllGather},
                     {OpKind::kReduceScatter, ReduceScatter},
                     {OpKind::kAllToAll, AllToAll},
                     {OpKind::kCollectivePermute, CollectivePermute},
                     {OpKind::kCollectiveBroadcast, CollectiveBroadcast},
                     {OpKind::kCollectiveReduce, CollectiveReduce}});
}

}  // namespace berth::cpu
