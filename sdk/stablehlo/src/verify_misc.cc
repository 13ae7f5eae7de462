// Checks for collectives, tokens and host transfers, custom calls, the test
// harness ops (check.*, interpreter.*), and CHLO / Shardy ops.
#include <algorithm>

#include "src/verifier_impl.hpp"

namespace berth::stablehlo::detail {
namespace {

// Attributes whose elements the verifier reads one by one are capped.
constexpr int64_t kMaxCheckedElements = int64_t{1} << 22;

// replica_groups: a rank-2 integer tensor (or a mesh-axes attribute kept
// opaque). Returns the group size, or -1 when unknown.
Status ReplicaGroups(const Operation& op, bool required, int64_t* group_size) {
  *group_size = -1;
  const Attribute* a = op.attr("replica_groups");
  if (!a) {
    if (required) return OpError(op, "requires a 'replica_groups' attribute");
    return OkStatus();
  }
  if (a->isa<OpaqueAttr>()) return OkStatus();
  auto* d = a->dyn_cast<DenseElementsAttr>();
  if (!d || d->type().rank() != 2 || !IsInteger(d->element_type())) {
    return OpError(op, "replica_groups must be a rank-2 integer tensor");
  }
  if (d->num_elements() > kMaxCheckedElements) return OpError(op, "replica_groups is too large");
  std::vector<int64_t> ids = d->ToInt64Vector();
  bool ragged = false;
  for (int64_t id : ids) {
    if (id < -1) return OpError(op, "replica_groups ids must be -1 (padding) or non-negative");
    ragged |= id == -1;
  }
  std::sort(ids.begin(), ids.end());
  for (size_t i = 1; i < ids.size(); ++i) {
    if (ids[i] >= 0 && ids[i] == ids[i - 1]) {
      return OpError(op, "replica_groups repeats id " + std::to_string(ids[i]));
    }
  }
  // The process group is the replica group only in the cross-replica and
  // flattened-ids modes; with a channel and replica ids it also spans every
  // partition, whose count the program does not state.
  int64_t channel = 0;
  if (auto ch = op.channel_handle()) channel = ch->handle;
  bool global_ids = op.GetBool("use_global_device_ids");
  bool known = channel <= 0 || (global_ids && op.kind() != OpKind::kAllToAll);
  if (!ragged && known) *group_size = d->type().dim(1);
  return OkStatus();
}

Status CheckChannelHandle(const Operation& op) {
  const Attribute* a = op.attr("channel_handle");
  if (a && !a->isa<ChannelHandleAttr>()) {
    return OpError(op, "channel_handle must be a #stablehlo.channel_handle<...>");
  }
  return OkStatus();
}

Status SameTypesInOut(const Operation& op, size_t operands) {
  BERTH_RETURN_IF_ERROR(ExpectResults(op, operands));
  for (size_t i = 0; i < operands; ++i) {
    if (!TypesCompatible(OperandType(op, i), ResultType(op, i))) {
      return OpError(op, "result #" + std::to_string(i) + " must have the type of operand #" +
                             std::to_string(i) + " (" + Str(OperandType(op, i)) + ")");
    }
  }
  return OkStatus();
}

// What collectives with replica_groups check first: at least one operand (and
// a result each, when asked), the groups and the channel. Returns the group
// size, -1 when unknown.
Result<int64_t> CollectiveGroups(const Operation& op, bool result_per_operand) {
  BERTH_RETURN_IF_ERROR(ExpectMinOperands(op, 1));
  if (result_per_operand) BERTH_RETURN_IF_ERROR(ExpectResults(op, op.num_operands()));
  int64_t group;
  BERTH_RETURN_IF_ERROR(ReplicaGroups(op, true, &group));
  BERTH_RETURN_IF_ERROR(CheckChannelHandle(op));
  return group;
}

Status AllReduceLike(const Operation& op) {
  BERTH_RETURN_IF_ERROR(CollectiveGroups(op, /*result_per_operand=*/false).status());
  BERTH_RETURN_IF_ERROR(ExpectScalarRegion(op, 0, 2, 1));
  return SameTypesInOut(op, op.num_operands());
}

Status AllGather(const Operation& op) {
  BERTH_ASSIGN_OR_RETURN(int64_t group, CollectiveGroups(op, /*result_per_operand=*/true));
  int64_t dim = -1;
  BERTH_RETURN_IF_ERROR(GetIntAttr(op, "all_gather_dim", true, &dim));
  for (size_t i = 0; i < op.num_operands(); ++i) {
    BERTH_RETURN_IF_ERROR(ExpectTensorOperand(op, i));
    Type in = OperandType(op, i);
    if (dim < 0 || dim >= in.rank()) return OpError(op, "all_gather_dim is out of range");
    std::vector<int64_t> expected(in.shape().begin(), in.shape().end());
    int64_t out_dim = ResultType(op, i).IsTensor() && ResultType(op, i).rank() == in.rank()
                          ? ResultType(op, i).dim(dim)
                          : kDynamic;
    if (group > 0 && expected[dim] != kDynamic) {
      expected[dim] = Narrow(Wide(expected[dim]) * group);
    } else {
      if (out_dim != kDynamic && expected[dim] != kDynamic &&
          (expected[dim] == 0 ? out_dim != 0 : out_dim % expected[dim] != 0)) {
        return OpError(op, "result dimension " + std::to_string(dim) + " (" +
                               std::to_string(out_dim) + ") must be a multiple of the operand's (" +
                               std::to_string(expected[dim]) + ")");
      }
      expected[dim] = kDynamic;
    }
    BERTH_RETURN_IF_ERROR(ExpectResultShape(op, i, expected));
  }
  return OkStatus();
}

Status ReduceScatter(const Operation& op) {
  BERTH_ASSIGN_OR_RETURN(int64_t group, CollectiveGroups(op, /*result_per_operand=*/true));
  BERTH_RETURN_IF_ERROR(ExpectScalarRegion(op, 0, 2, 1));
  int64_t dim = -1;
  BERTH_RETURN_IF_ERROR(GetIntAttr(op, "scatter_dimension", true, &dim));
  for (size_t i = 0; i < op.num_operands(); ++i) {
    BERTH_RETURN_IF_ERROR(ExpectTensorOperand(op, i));
    Type in = OperandType(op, i);
    if (dim < 0 || dim >= in.rank()) return OpError(op, "scatter_dimension is out of range");
    std::vector<int64_t> expected(in.shape().begin(), in.shape().end());
    if (group > 0 && expected[dim] != kDynamic) {
      if (expected[dim] % group != 0) {
        return OpError(op, "scatter dimension size " + std::to_string(expected[dim]) +
                               " is not divisible by the group size " + std::to_string(group));
      }
      expected[dim] /= group;
    } else {
      expected[dim] = kDynamic;
    }
    BERTH_RETURN_IF_ERROR(ExpectResultShape(op, i, expected));
  }
  return OkStatus();
}

Status AllToAll(const Operation& op) {
  BERTH_ASSIGN_OR_RETURN(int64_t group, CollectiveGroups(op, /*result_per_operand=*/true));
  int64_t split = -1, concat = -1, count = 0;
  BERTH_RETURN_IF_ERROR(GetIntAttr(op, "split_dimension", true, &split));
  BERTH_RETURN_IF_ERROR(GetIntAttr(op, "concat_dimension", true, &concat));
  BERTH_RETURN_IF_ERROR(GetIntAttr(op, "split_count", true, &count));
  if (count <= 0) return OpError(op, "split_count must be positive");
  if (group > 0 && group != count) {
    return OpError(op, "split_count " + std::to_string(count) + " must equal the group size " +
                           std::to_string(group));
  }
  for (size_t i = 0; i < op.num_operands(); ++i) {
    BERTH_RETURN_IF_ERROR(ExpectTensorOperand(op, i));
    Type in = OperandType(op, i);
    if (split < 0 || split >= in.rank() || concat < 0 || concat >= in.rank()) {
      return OpError(op, "split_dimension and concat_dimension must be in [0, " +
                             std::to_string(in.rank()) + ")");
    }
    std::vector<int64_t> expected(in.shape().begin(), in.shape().end());
    if (expected[split] != kDynamic) {
      if (expected[split] % count != 0) {
        return OpError(op, "split dimension size " + std::to_string(expected[split]) +
                               " is not divisible by split_count " + std::to_string(count));
      }
      expected[split] /= count;
    }
    if (expected[concat] != kDynamic) expected[concat] = Narrow(Wide(expected[concat]) * count);
    BERTH_RETURN_IF_ERROR(ExpectResultShape(op, i, expected));
  }
  return OkStatus();
}

Status CollectivePermute(const Operation& op) {
  BERTH_RETURN_IF_ERROR(ExpectOperands(op, 1));
  BERTH_RETURN_IF_ERROR(CheckChannelHandle(op));
  const DenseElementsAttr* pairs = op.GetDense("source_target_pairs");
  if (!pairs || pairs->type().rank() != 2 || pairs->type().dim(1) != 2) {
    return OpError(op, "source_target_pairs must be an Nx2 integer tensor");
  }
  if (pairs->num_elements() > kMaxCheckedElements) {
    return OpError(op, "source_target_pairs is too large");
  }
  std::vector<std::pair<int64_t, int64_t>> p = op.GetPairs("source_target_pairs");
  std::vector<int64_t> sources, targets;
  for (const auto& [source, target] : p) {
    if (source < 0 || target < 0) return OpError(op, "source_target_pairs ids must not be negative");
    sources.push_back(source);
    targets.push_back(target);
  }
  std::sort(sources.begin(), sources.end());
  std::sort(targets.begin(), targets.end());
  if (std::adjacent_find(sources.begin(), sources.end()) != sources.end()) {
    return OpError(op, "source_target_pairs repeats a source");
  }
  if (std::adjacent_find(targets.begin(), targets.end()) != targets.end()) {
    return OpError(op, "source_target_pairs repeats a target");
  }
  return SameTypesInOut(op, 1);
}

Status CollectiveBroadcast(const Operation& op) {
  BERTH_RETURN_IF_ERROR(CollectiveGroups(op, /*result_per_operand=*/false).status());
  size_t data = op.num_operands() - (op.GetBool("has_dynamic_root") ? 1 : 0);
  if (data == 0) return OpError(op, "needs at least one value to broadcast");
  return SameTypesInOut(op, data);
}

Status Tokens(const Operation& op) {
  auto token_result = [&](size_t i) -> Status {
    if (i >= op.num_results() || !ResultType(op, i).IsToken()) {
      return OpError(op, "result #" + std::to_string(i) + " must be !stablehlo.token");
    }
    return OkStatus();
  };
  auto token_operand = [&](size_t i) -> Status {
    if (i >= op.num_operands() || !OperandType(op, i).IsToken()) {
      return OpError(op, "operand #" + std::to_string(i) + " must be !stablehlo.token");
    }
    return OkStatus();
  };
  switch (op.kind()) {
    case OpKind::kAfterAll:
      BERTH_RETURN_IF_ERROR(ExpectResults(op, 1));
      for (size_t i = 0; i < op.num_operands(); ++i) BERTH_RETURN_IF_ERROR(token_operand(i));
      return token_result(0);
    case OpKind::kCreateToken:
      BERTH_RETURN_IF_ERROR(ExpectOperands(op, 0));
      BERTH_RETURN_IF_ERROR(ExpectResults(op, 1));
      return token_result(0);
    case OpKind::kSend:
    case OpKind::kOutfeed:
      BERTH_RETURN_IF_ERROR(ExpectMinOperands(op, 1));
      BERTH_RETURN_IF_ERROR(ExpectResults(op, 1));
      BERTH_RETURN_IF_ERROR(token_operand(op.num_operands() - 1));
      return token_result(0);
    case OpKind::kRecv:
    case OpKind::kInfeed:
      BERTH_RETURN_IF_ERROR(ExpectOperands(op, 1));
      BERTH_RETURN_IF_ERROR(token_operand(0));
      if (op.num_results() == 0) return OpError(op, "must return a token");
      return token_result(op.num_results() - 1);
    default:
      return OkStatus();
  }
}

Status IdReplica(const Operation& op) {
  BERTH_RETURN_IF_ERROR(ExpectOperands(op, 0));
  BERTH_RETURN_IF_ERROR(ExpectResults(op, 1));
  Type t = ResultType(op, 0);
  if (!IsRank0Tensor(t) || t.element_type() != ElementType::kUI32) {
    return OpError(op, "result must be tensor<ui32>, is " + Str(t));
  }
  return OkStatus();
}

Status CustomCall(const Operation& op) {
  std::string_view target = op.call_target_name();
  if (target.empty()) return OpError(op, "requires a non-empty call_target_name");
  if (const Attribute* v = op.attr("api_version")) {
    auto* i = v->dyn_cast<IntegerAttr>();
    if (!i || i->value() < 0 || i->value() > 4) {
      return OpError(op, "api_version must be an integer from 0 to 4");
    }
  }
  auto layouts = [&](std::string_view name, size_t count, auto type_of) -> Status {
    auto* arr = op.attr_as<ArrayAttr>(name);
    if (!op.has_attr(name)) return OkStatus();
    if (!arr) return OpError(op, std::string(name) + " must be an array");
    if (arr->size() != count) {
      return OpError(op, std::string(name) + " has " + std::to_string(arr->size()) +
                             " entries for " + std::to_string(count) + " values");
    }
    for (size_t i = 0; i < count; ++i) {
      auto* d = (*arr)[i]->dyn_cast<DenseElementsAttr>();
      Type t = type_of(i);
      if (!d || d->type().rank() != 1) {
        return OpError(op, std::string(name) + " entries must be 1-D index tensors");
      }
      if (t.IsTensor() && d->num_elements() != t.rank()) {
        return OpError(op, std::string(name) + " entry #" + std::to_string(i) +
                               " needs one index per dimension of " + Str(t));
      }
    }
    return OkStatus();
  };
  BERTH_RETURN_IF_ERROR(layouts("operand_layouts", op.num_operands(),
                                [&](size_t i) { return OperandType(op, i); }));
  BERTH_RETURN_IF_ERROR(layouts("result_layouts", op.num_results(),
                                [&](size_t i) { return ResultType(op, i); }));
  if (auto* aliases = op.attr_as<ArrayAttr>("output_operand_aliases")) {
    for (const Attribute* e : aliases->elements()) {
      auto* a = e->dyn_cast<OutputOperandAliasAttr>();
      if (!a) return OpError(op, "output_operand_aliases entries must be #stablehlo.output_operand_alias");
      if (a->value().operand_index < 0 ||
          a->value().operand_index >= static_cast<int64_t>(op.num_operands())) {
        return OpError(op, "output_operand_alias operand_index is out of range");
      }
    }
  }
  // The test harness written as custom calls (as JAX-generated tests do).
  if (target == "check.eq" || target == "check.expect_eq" || target == "check.expect_close" ||
      target == "check.expect_almost_eq") {
    BERTH_RETURN_IF_ERROR(ExpectOperands(op, 2));
    Type a = OperandType(op, 0);
    Type b = OperandType(op, 1);
    if (!TypesCompatible(a, b)) {
      return OpError(op, "'" + std::string(target) + "' compares values of different types " +
                             Str(a) + " and " + Str(b));
    }
    if (target == "check.eq") {
      BERTH_RETURN_IF_ERROR(ExpectResults(op, 1));
      Type r = ResultType(op, 0);
      if (!IsRank0Tensor(r) || r.element_type() != ElementType::kI1) {
        return OpError(op, "'check.eq' returns tensor<i1>, not " + Str(r));
      }
    }
  }
  return OkStatus();
}

Status Check(const Operation& op) {
  switch (op.kind()) {
    case OpKind::kCheckExpectEqConst:
    case OpKind::kCheckExpectAlmostEqConst: {
      BERTH_RETURN_IF_ERROR(ExpectOperands(op, 1));
      BERTH_RETURN_IF_ERROR(ExpectResults(op, 0));
      const DenseElementsAttr* value = op.GetDense("value");
      if (!value) return OpError(op, "requires a dense expected value");
      if (!TypesCompatible(OperandType(op, 0), value->type())) {
        return OpError(op, "expected value type " + Str(value->type()) +
                               " differs from the operand type " + Str(OperandType(op, 0)));
      }
      return OkStatus();
    }
    case OpKind::kCheckExpectEq:
    case OpKind::kCheckExpectAlmostEq:
    case OpKind::kCheckExpectClose: {
      BERTH_RETURN_IF_ERROR(ExpectOperands(op, 2));
      BERTH_RETURN_IF_ERROR(ExpectResults(op, 0));
      Type a = OperandType(op, 0);
      Type b = OperandType(op, 1);
      if (!a.IsTensor() || !b.IsTensor() || a.element_type() != b.element_type() ||
          !ShapesCompatible(a.shape(), b.shape())) {
        return OpError(op, "compares values of different types " + Str(a) + " and " + Str(b));
      }
      return OkStatus();
    }
    case OpKind::kCheckExpectSerializedEq:
      BERTH_RETURN_IF_ERROR(ExpectOperands(op, 1));
      if (op.GetString("probe_id").empty()) return OpError(op, "requires a 'probe_id' string");
      return OkStatus();
    case OpKind::kInterpreterPrint:
      BERTH_RETURN_IF_ERROR(ExpectOperands(op, 1));
      return ExpectResults(op, 0);
    case OpKind::kInterpreterProbe:
      BERTH_RETURN_IF_ERROR(ExpectOperands(op, 1));
      if (op.GetString("probe_id").empty()) return OpError(op, "requires a 'probe_id' string");
      return SameTypesInOut(op, 1);
    default:
      return OkStatus();
  }
}

Status TopK(const Operation& op) {
  BERTH_RETURN_IF_ERROR(ExpectOperands(op, 1));
  BERTH_RETURN_IF_ERROR(ExpectResults(op, 2));
  BERTH_RETURN_IF_ERROR(ExpectTensorOperand(op, 0));
  Type in = OperandType(op, 0);
  int64_t k = -1;
  BERTH_RETURN_IF_ERROR(GetIntAttr(op, "k", true, &k));
  if (in.rank() < 1) return OpError(op, "operand must have rank at least 1");
  int64_t last = in.dim(in.rank() - 1);
  if (k < 0 || (last != kDynamic && k > last)) {
    return OpError(op, "k = " + std::to_string(k) + " is outside [0, " + std::to_string(last) + "]");
  }
  std::vector<int64_t> expected(in.shape().begin(), in.shape().end());
  expected.back() = k;
  BERTH_RETURN_IF_ERROR(ExpectResultShape(op, 0, expected));
  BERTH_RETURN_IF_ERROR(ExpectResultShape(op, 1, expected));
  if (ResultType(op, 0).element_type() != in.element_type()) {
    return OpError(op, "values must have the operand's element type");
  }
  if (!IsInteger(ResultType(op, 1).element_type())) return OpError(op, "indices must be integers");
  return OkStatus();
}

}  // namespace

Status VerifyMiscOp(const Operation& op, const Module& module) {
  (void)module;
  switch (op.kind()) {
    case OpKind::kAllReduce:
    case OpKind::kCollectiveReduce: return AllReduceLike(op);
    case OpKind::kAllGather: return AllGather(op);
    case OpKind::kReduceScatter: return ReduceScatter(op);
    case OpKind::kAllToAll: return AllToAll(op);
    case OpKind::kCollectivePermute: return CollectivePermute(op);
    case OpKind::kCollectiveBroadcast: return CollectiveBroadcast(op);
    case OpKind::kCrossReplicaSum:
      BERTH_RETURN_IF_ERROR(ExpectOperands(op, 1));
      return SameTypesInOut(op, 1);
    case OpKind::kReplicaId:
    case OpKind::kPartitionId: return IdReplica(op);
    case OpKind::kAfterAll:
    case OpKind::kCreateToken:
    case OpKind::kSend:
    case OpKind::kOutfeed:
    case OpKind::kRecv:
    case OpKind::kInfeed: return Tokens(op);
    case OpKind::kCustomCall: return CustomCall(op);
    case OpKind::kCheckExpectEqConst:
    case OpKind::kCheckExpectAlmostEqConst:
    case OpKind::kCheckExpectEq:
    case OpKind::kCheckExpectAlmostEq:
    case OpKind::kCheckExpectClose:
    case OpKind::kCheckExpectSerializedEq:
    case OpKind::kInterpreterPrint:
    case OpKind::kInterpreterProbe: return Check(op);
    case OpKind::kUniformQuantize:
    case OpKind::kUniformDequantize:
      return OpError(op, "quantization is not supported");
    case OpKind::kTorchIndexSelect: {
      BERTH_RETURN_IF_ERROR(ExpectOperands(op, 2));
      BERTH_RETURN_IF_ERROR(ExpectResults(op, 1));
      BERTH_RETURN_IF_ERROR(ExpectTensorOperand(op, 0));
      int64_t dim = -1, batch = 0;
      BERTH_RETURN_IF_ERROR(GetIntAttr(op, "dim", true, &dim));
      BERTH_RETURN_IF_ERROR(GetIntAttr(op, "batch_dims", false, &batch));
      int64_t rank = OperandType(op, 0).rank();
      if (dim < 0 || dim >= rank || batch < 0 || batch > dim) {
        return OpError(op, "dim and batch_dims must satisfy 0 <= batch_dims <= dim < rank");
      }
      return OkStatus();
    }
    case OpKind::kChloTopK: return TopK(op);
    case OpKind::kSdyShardingConstraint:
    case OpKind::kSdyReshard:
      BERTH_RETURN_IF_ERROR(ExpectOperands(op, 1));
      return SameTypesInOut(op, 1);
    default:
      return OkStatus();
  }
}

}  // namespace berth::stablehlo::detail
