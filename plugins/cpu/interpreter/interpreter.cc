#include "interpreter/interpreter.hpp"

namespace berth::cpu {

namespace {

std::string Where(const stablehlo::Operation& op) {
  return op.location().ToString() + ": '" + std::string(op.name()) + "'";
}

// Checks a kernel's results against the op's result types (kernel bugs must
// not turn into wrong shapes further down).
Status CheckResults(const stablehlo::Operation& op, const std::vector<Tensor>& results) {
  if (results.size() != op.num_results()) {
    return InternalError(Where(op) + ": the kernel produced " + std::to_string(results.size()) +
                         " results, the op has " + std::to_string(op.num_results()));
  }
  for (size_t i = 0; i < results.size(); ++i) {
    stablehlo::Type type = op.result(i)->type();
    const Tensor& t = results[i];
    if (!type.IsTensor()) continue;
    bool same = t.is_tensor() && t.type() == type.element_type() &&
                std::equal(t.dims().begin(), t.dims().end(), type.shape().begin(),
                           type.shape().end(),
                           [](int64_t a, int64_t b) { return b == stablehlo::kDynamic || a == b; });
    if (!same) {
      return InternalError(Where(op) + ": the kernel produced " + t.TypeString() + " for result " +
                           std::to_string(i) + " of type " + type.ToString());
    }
  }
  return OkStatus();
}

}  // namespace

Result<std::vector<Tensor>> Interpreter::RunBlock(ExecContext& ctx, const BlockPlan& plan,
                                                  std::span<const Tensor> args,
                                                  const Frame* parent) {
  if (args.size() != plan.num_args) {
    return InternalError("block takes " + std::to_string(plan.num_args) + " arguments, got " +
                         std::to_string(args.size()));
  }
  Frame frame;
  frame.plan = &plan;
  frame.parent = parent;
  frame.slots.resize(plan.num_slots);
  for (size_t i = 0; i < args.size(); ++i) frame.slots[i] = args[i];

  std::vector<Tensor> operands;
  std::vector<Tensor> results;
  for (const Step& step : plan.steps) {
    if (ctx.cancelled()) {
      std::lock_guard lock(ctx.cancel_mutex_);
      return ctx.cancel_reason_;
    }
    operands.clear();
    for (const ValueRef& ref : step.operands) operands.push_back(frame.Get(ref));
    results.clear();
    if (step.fused) {
      Result<Tensor> result = step.fused->Run(operands, ctx.pool());
      if (!result.ok()) return result.status().WithContext(Where(*step.op));
      results.push_back(std::move(result).value());
    } else {
      KernelCall call{*step.op, operands, results, ctx, &frame};
      Status status = step.kernel(call);
      if (!status.ok()) return status.WithContext(Where(*step.op));
    }
    BERTH_RETURN_IF_ERROR(CheckResults(*step.op, results));
    for (uint32_t i = 0; i < step.num_results; ++i) {
      frame.slots[step.first_result + i] = std::move(results[i]);
    }
    for (uint32_t slot : step.release) frame.slots[slot] = Tensor();
  }
  std::vector<Tensor> returned;
  returned.reserve(plan.returns.size());
  for (const ValueRef& ref : plan.returns) returned.push_back(frame.Get(ref));
  return returned;
}

Result<std::vector<Tensor>> Interpreter::RunFunction(ExecContext& ctx, std::string_view name,
                                                     std::span<const Tensor> args) {
  return ctx.CallFunction(name, args);
}

Result<std::vector<Tensor>> ExecContext::CallFunction(std::string_view name,
                                                      std::span<const Tensor> args) {
  const stablehlo::Function* function = plan_.module().function(name);
  if (function == nullptr || function->is_declaration()) {
    return NotFoundError("no function @" + std::string(name) + " with a body in the module");
  }
  const BlockPlan* block = plan_.Find(function->entry_block());
  if (block == nullptr) return InternalError("function @" + std::string(name) + " was not planned");
  if (depth_ >= kMaxCallDepth) {
    return ResourceExhaustedError("calls nested deeper than " + std::to_string(kMaxCallDepth) +
                                  " (recursive func.call?)");
  }
  ++depth_;
  Result<std::vector<Tensor>> result = Interpreter::RunBlock(*this, *block, args, nullptr);
  --depth_;
  return result;
}

Result<std::vector<Tensor>> ExecContext::RunRegion(const stablehlo::Region& region,
                                                   std::span<const Tensor> args,
                                                   const Frame* parent) {
  if (region.empty()) return InternalError("running an empty region");
  const BlockPlan* block = plan_.Find(region.entry_block());
  if (block == nullptr) return InternalError("region was not planned");
  if (depth_ >= kMaxCallDepth) {
    return ResourceExhaustedError("regions nested deeper than " + std::to_string(kMaxCallDepth));
  }
  ++depth_;
  Result<std::vector<Tensor>> result = Interpreter::RunBlock(*this, *block, args, parent);
  --depth_;
  return result;
}

void ExecContext::Cancel(Status reason) {
  std::lock_guard lock(cancel_mutex_);
  if (cancelled_.load()) return;
  cancel_reason_ = std::move(reason);
  cancelled_.store(true);
}

Result<std::vector<Tensor>> KernelCall::RunRegion(size_t index,
                                                  std::span<const Tensor> args) const {
  if (index >= op.num_regions()) {
    std::string message = "'";
    message.append(op.name()).append("' has no region ").append(std::to_string(index));
    return InternalError(message);
  }
  return ctx.RunRegion(op.region(index), args, frame);
}

}  // namespace berth::cpu
