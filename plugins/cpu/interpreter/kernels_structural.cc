// Kernels that move values around without computing on them: constants,
// calls, tuples, tokens, barriers, sharding annotations, manual regions.
#include <cstring>

#include "interpreter/element_types.hpp"
#include "interpreter/kernel.hpp"

namespace berth::cpu {
namespace {

using stablehlo::OpKind;

Status Constant(KernelCall& call) {
  const stablehlo::DenseElementsAttr* value = call.op.GetDense("value");
  if (value == nullptr) return InvalidArgumentError("constant has no dense 'value' attribute");
  stablehlo::Type type = call.op.result(0)->type();
  if (!IsSupportedElementType(type.element_type())) {
    return UnsupportedElementType(type.element_type(), "constant");
  }
  std::span<const int64_t> shape = type.shape();
  BERTH_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(type.element_type(),
                                                      std::vector<int64_t>(shape.begin(), shape.end())));
  if (!value->CopyTo(out.bytes(), out.byte_size())) {
    return InternalError("constant's data does not match its type " + type.ToString());
  }
  call.results.push_back(std::move(out));
  return OkStatus();
}

// func.call and stablehlo.composite (which calls its decomposition).
Status Call(KernelCall& call) {
  std::string_view callee = call.op.callee();
  if (callee.empty()) return InvalidArgumentError("no callee");
  BERTH_ASSIGN_OR_RETURN(call.results, call.ctx.CallFunction(callee, call.operands));
  return OkStatus();
}

// optimization_barrier, sdy.sharding_constraint, sdy.reshard: values pass
// through unchanged (sharding means nothing on one device).
Status Identity(KernelCall& call) {
  call.results.assign(call.operands.begin(), call.operands.end());
  return OkStatus();
}

// sdy.manual_computation on one device: its body, on the whole values, when
// its shards are the whole values (every manual axis of size 1). Otherwise
// the module is a multi-device program to partition first.
Status ManualComputation(KernelCall& call) {
  const stablehlo::Block& body = call.op.region(0).entry_block();
  const stablehlo::Operation& ret = *body.operations().back();
  for (size_t i = 0; i < call.op.num_operands(); ++i) {
    if (body.argument(i)->type() != call.op.operand(i)->type()) {
      return UnimplementedError("sdy.manual_computation's body takes " + body.argument(i)->type().ToString() +
                                " shards of " + call.op.operand(i)->type().ToString() +
                                ": a shard_map over several devices runs partitioned (berth run of a sharded "
                                "module, or the SDK's spmd::Partition), not as one device's program");
    }
  }
  for (size_t i = 0; i < call.op.num_results(); ++i) {
    if (ret.operand(i)->type() != call.op.result(i)->type()) {
      return UnimplementedError("sdy.manual_computation returns " + ret.operand(i)->type().ToString() +
                                " shards of " + call.op.result(i)->type().ToString() +
                                ": a shard_map over several devices runs partitioned");
    }
  }
  BERTH_ASSIGN_OR_RETURN(call.results, call.RunRegion(0, call.operands));
  return OkStatus();
}

Status MakeTuple(KernelCall& call) {
  call.results.push_back(Tensor::Tuple(std::vector<Tensor>(call.operands.begin(), call.operands.end())));
  return OkStatus();
}

Status GetTupleElement(KernelCall& call) {
  std::optional<int64_t> index = call.op.GetInt("index");
  const Tensor& tuple = call.operands[0];
  if (!index || *index < 0 || static_cast<size_t>(*index) >= tuple.elements().size()) {
    return InvalidArgumentError("tuple index out of range");
  }
  call.results.push_back(tuple.elements()[static_cast<size_t>(*index)]);
  return OkStatus();
}

Status MakeToken(KernelCall& call) {
  call.results.push_back(Tensor::Token());
  return OkStatus();
}

}  // namespace

void RegisterStructuralKernels(KernelRegistry& registry) {
  registry.Register({{OpKind::kConstant, Constant},
                     {OpKind::kChloConstant, Constant},
                     {OpKind::kFuncCall, Call},
                     {OpKind::kComposite, Call},
                     {OpKind::kOptimizationBarrier, Identity},
                     {OpKind::kSdyShardingConstraint, Identity},
                     {OpKind::kSdyReshard, Identity},
                     {OpKind::kSdyManualComputation, ManualComputation},
                     {OpKind::kTuple, MakeTuple},
                     {OpKind::kGetTupleElement, GetTupleElement},
                     {OpKind::kAfterAll, MakeToken},
                     {OpKind::kCreateToken, MakeToken}});
}

}  // namespace berth::cpu
