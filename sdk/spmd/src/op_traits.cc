#include "src/op_traits.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include "berth/stablehlo/attributes.hpp"

namespace berth::spmd::internal {

namespace shlo = berth::stablehlo;
using shlo::OpKind;

bool SeesTheDevice(OpKind kind) {
  switch (kind) {
    case OpKind::kPartitionId:
    case OpKind::kReplicaId:
    case OpKind::kAllGather:
    case OpKind::kAllReduce:
    case OpKind::kAllToAll:
    case OpKind::kCollectiveBroadcast:
    case OpKind::kCollectivePermute:
    case OpKind::kCollectiveReduce:
    case OpKind::kCrossReplicaSum:
    case OpKind::kReduceScatter:
    case OpKind::kSend:
    case OpKind::kRecv:
    case OpKind::kInfeed:
    case OpKind::kOutfeed:
    case OpKind::kInterpreterRunParallel:
      return true;
    default:
      return false;
  }
}

// Whether `op`, an op in its regions, or a function it calls (transitively)
// depends on the device it runs on.
bool SeesTheDeviceDeep(const shlo::Operation& op, const shlo::Module& module,
                       std::unordered_set<const shlo::Function*>& visited) {
  if (SeesTheDevice(op.kind())) return true;
  auto block_sees = [&](const shlo::Block& block) {
    return std::any_of(block.operations().begin(), block.operations().end(),
                       [&](const shlo::Operation* inner) { return SeesTheDeviceDeep(*inner, module, visited); });
  };
  if (op.kind() == OpKind::kFuncCall) {
    const shlo::Function* callee = module.function(op.callee());
    if (callee != nullptr && !callee->is_declaration() && visited.insert(callee).second &&
        block_sees(callee->entry_block())) {
      return true;
    }
  }
  for (const shlo::Region* region : op.regions()) {
    for (const shlo::Block* block : region->blocks()) {
      if (block_sees(*block)) return true;
    }
  }
  return false;
}

// Ops computed element by element: operands of the result's shape (or
// scalars, for clamp and select) give a result of the same shape.
bool IsElementwise(OpKind kind) {
  switch (kind) {
    case OpKind::kAbs: case OpKind::kAdd: case OpKind::kAnd: case OpKind::kAtan2: case OpKind::kCbrt:
    case OpKind::kCeil: case OpKind::kClamp: case OpKind::kCompare: case OpKind::kComplex: case OpKind::kConvert:
    case OpKind::kCosine: case OpKind::kCountLeadingZeros: case OpKind::kDivide: case OpKind::kExponential:
    case OpKind::kExponentialMinusOne: case OpKind::kFloor: case OpKind::kImag: case OpKind::kIsFinite:
    case OpKind::kLog: case OpKind::kLogPlusOne: case OpKind::kLogistic: case OpKind::kMaximum:
    case OpKind::kMinimum: case OpKind::kMultiply: case OpKind::kNegate: case OpKind::kNot: case OpKind::kOr:
    case OpKind::kPopcnt: case OpKind::kPower: case OpKind::kReal: case OpKind::kReducePrecision:
    case OpKind::kRemainder: case OpKind::kRoundNearestAfz: case OpKind::kRoundNearestEven: case OpKind::kRsqrt:
    case OpKind::kSelect: case OpKind::kShiftLeft: case OpKind::kShiftRightArithmetic:
    case OpKind::kShiftRightLogical: case OpKind::kSign: case OpKind::kSine: case OpKind::kSqrt:
    case OpKind::kSquare: case OpKind::kSubtract: case OpKind::kTan: case OpKind::kTanh: case OpKind::kXor:
    case OpKind::kBitcastConvert: case OpKind::kChloAcos: case OpKind::kChloAcosh: case OpKind::kChloAsin:
    case OpKind::kChloAsinh: case OpKind::kChloAtan: case OpKind::kChloAtanh: case OpKind::kChloConj:
    case OpKind::kChloCosh: case OpKind::kChloSinh: case OpKind::kChloTan: case OpKind::kChloErf:
    case OpKind::kChloErfInv: case OpKind::kChloErfc: case OpKind::kChloIsInf: case OpKind::kChloIsNegInf:
    case OpKind::kChloIsPosInf: case OpKind::kChloLgamma: case OpKind::kChloDigamma: case OpKind::kChloSquare:
      return true;
    default:
      return false;
  }
}

bool KeepsZeroPadding(const shlo::Operation& op) {
  for (const shlo::Value* operand : op.operands()) {
    if (operand->type().rank() == 0) return false;  // a scalar reaches the padding too
  }
  switch (op.kind()) {
    case OpKind::kAbs: case OpKind::kAdd: case OpKind::kAnd: case OpKind::kAtan2: case OpKind::kBitcastConvert:
    case OpKind::kCbrt: case OpKind::kCeil: case OpKind::kConvert: case OpKind::kExponentialMinusOne:
    case OpKind::kFloor: case OpKind::kImag: case OpKind::kLogPlusOne: case OpKind::kMaximum: case OpKind::kMinimum:
    case OpKind::kMultiply: case OpKind::kOr: case OpKind::kPopcnt: case OpKind::kReal:
    case OpKind::kRoundNearestAfz: case OpKind::kRoundNearestEven: case OpKind::kSelect: case OpKind::kShiftLeft:
    case OpKind::kShiftRightArithmetic: case OpKind::kShiftRightLogical: case OpKind::kSign: case OpKind::kSine:
    case OpKind::kSqrt: case OpKind::kSquare: case OpKind::kSubtract: case OpKind::kTan: case OpKind::kTanh:
    case OpKind::kXor:
      return true;
    case OpKind::kNegate:  // -0.0 for floats
      return !shlo::IsFloat(op.result(0)->type().element_type()) &&
             !shlo::IsComplex(op.result(0)->type().element_type());
    default:
      return false;
  }
}

// The binary op a reduce body applies to its two arguments, when that is
// all it does (`stablehlo.add`, ...); empty otherwise.
std::string_view ReducerOf(const shlo::Operation& reduce) {
  if (reduce.num_regions() != 1 || reduce.region(0).blocks().size() != 1) return {};
  const shlo::Block& body = reduce.region(0).entry_block();
  if (body.num_arguments() != 2 || body.operations().size() != 2) return {};
  const shlo::Operation& op = *body.operations()[0];
  const shlo::Operation& ret = *body.operations()[1];
  if (op.num_operands() != 2 || op.num_results() != 1 || ret.num_operands() != 1 || ret.operand(0) != op.result(0)) {
    return {};
  }
  if (!((op.operand(0) == body.argument(0) && op.operand(1) == body.argument(1)) ||
        (op.operand(0) == body.argument(1) && op.operand(1) == body.argument(0)))) {
    return {};
  }
  switch (op.kind()) {
    case OpKind::kAdd: case OpKind::kMultiply: case OpKind::kMaximum: case OpKind::kMinimum:
    case OpKind::kAnd: case OpKind::kOr: case OpKind::kXor:
      return op.name();
    default:
      return {};
  }
}

// Whether `init` is a constant that `reducer` leaves every value unchanged
// with (0 for add, 1 for multiply, -inf for a float maximum, ...): only
// then may each device start from it and the partial results be combined.
bool IsIdentity(const shlo::Value* init, std::string_view reducer) {
  const shlo::Operation* op = init->defining_op();
  if (op == nullptr || op->kind() != OpKind::kConstant) return false;
  const shlo::DenseElementsAttr* value = op->GetDense("value");
  if (value == nullptr || value->num_elements() != 1) return false;
  const shlo::ElementType type = value->element_type();
  const bool is_float = shlo::IsFloat(type);
  if (!is_float && !shlo::IsInteger(type) && !shlo::IsBool(type)) return false;
  const double f = is_float ? value->FloatAt(0) : 0.0;
  const int64_t i = is_float ? 0 : value->IntAt(0);
  const bool is_signed = shlo::IsSignedInteger(type);
  const int bits = shlo::BitWidth(type);
  const int64_t signed_min = bits >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (bits - 1));
  const int64_t signed_max = bits >= 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (bits - 1)) - 1;
  if (reducer == "stablehlo.add" || reducer == "stablehlo.or" || reducer == "stablehlo.xor") {
    return is_float ? f == 0.0 : i == 0;
  }
  if (reducer == "stablehlo.multiply") return is_float ? f == 1.0 : i == 1;
  if (reducer == "stablehlo.and") return shlo::IsBool(type) && i != 0;
  if (reducer == "stablehlo.maximum") {
    if (is_float) return std::isinf(f) && f < 0;
    return is_signed ? i == signed_min : i == 0;
  }
  if (reducer == "stablehlo.minimum") {
    if (is_float) return std::isinf(f) && f > 0;
    return is_signed && i == signed_max;
  }
  return false;
}

// Whether `op` may do more than compute its results: a custom call (a host
// callback, say), an op without results, or an op holding one.
bool MayHaveEffects(const shlo::Operation& op) {
  if (op.num_results() == 0 || op.kind() == OpKind::kCustomCall) return true;
  for (const shlo::Region* region : op.regions()) {
    for (const shlo::Block* block : region->blocks()) {
      for (const shlo::Operation* inner : block->operations()) {
        if (!shlo::IsTerminator(inner->kind()) && MayHaveEffects(*inner)) return true;
      }
    }
  }
  return false;
}

// An op whose results nothing uses and that does nothing else: writing it
// would only cost its operands' gathering.
bool IsUnused(const shlo::Operation& op) {
  return !MayHaveEffects(op) &&
         std::all_of(op.results().begin(), op.results().end(), [](const shlo::Value* v) { return v->use_empty(); });
}

bool HasManualRegions(const shlo::Block& block) {
  for (const shlo::Operation* op : block.operations()) {
    if (op->kind() == OpKind::kSdyManualComputation) return true;
    if (op->kind() == OpKind::kCustomCall) {
      std::string_view target = op->call_target_name();
      if (target.starts_with("local_")) target.remove_prefix(6);
      if (target == "SPMDFullToShardShape" || target == "SPMDShardToFullShape" ||
          target == "xla.sdy.GlobalToLocalShape" || target == "xla.sdy.LocalToGlobalShape") {
        return true;
      }
    }
    for (const shlo::Region* region : op->regions()) {
      for (const shlo::Block* inner : region->blocks()) {
        if (HasManualRegions(*inner)) return true;
      }
    }
  }
  return false;
}

namespace {

int64_t MaxChannelId(const shlo::Block& block) {
  int64_t most = 0;
  for (const shlo::Operation* op : block.operations()) {
    if (std::optional<shlo::ChannelHandle> channel = op->channel_handle()) most = std::max(most, channel->handle);
    for (const shlo::Region* region : op->regions()) {
      for (const shlo::Block* inner : region->blocks()) most = std::max(most, MaxChannelId(*inner));
    }
  }
  return most;
}

}  // namespace

int64_t MaxChannelId(const shlo::Module& module) {
  int64_t most = 0;
  for (const shlo::Function* function : module.functions()) {
    if (!function->is_declaration()) most = std::max(most, MaxChannelId(function->entry_block()));
  }
  return most;
}

std::vector<int64_t> GatherBatchDims(const shlo::GatherDimensionNumbers& numbers, int64_t indices_rank) {
  std::vector<int64_t> batch;
  for (int64_t d = 0; d < indices_rank; ++d) {
    if (d != numbers.index_vector_dim) batch.push_back(d);
  }
  return batch;
}

std::vector<int64_t> GatherResultSource(const shlo::GatherDimensionNumbers& numbers, int64_t result_rank,
                                        const std::vector<int64_t>& batch) {
  std::vector<int64_t> source(static_cast<size_t>(result_rank), -1);
  size_t next = 0;
  for (int64_t j = 0; j < result_rank && next < batch.size(); ++j) {
    const auto& offsets = numbers.offset_dims;
    if (std::find(offsets.begin(), offsets.end(), j) == offsets.end()) source[static_cast<size_t>(j)] = batch[next++];
  }
  return source;
}

}  // namespace berth::spmd::internal
