#include "cuda_plan.hpp"

#include <algorithm>
#include <unordered_set>

namespace berth::cuda {
namespace {

using stablehlo::Operation;
using stablehlo::OpKind;

Result<const stablehlo::Function*> FindEntry(const stablehlo::Module& module,
                                             std::string_view entry_name) {
  const stablehlo::Function* entry =
      entry_name.empty() ? module.entry_function() : module.function(entry_name);
  if (entry == nullptr || entry->is_declaration()) {
    return InvalidArgumentError(
        entry_name.empty()
            ? std::string("the program has no entry function (@main, or its only public one)")
            : "the program has no function '" + std::string(entry_name) + "' with a body");
  }
  return entry;
}

// Closes the kernel of `ops`: what it reads from outside, what is used after
// it. A kernel whose results are all unused is dropped.
void Flush(std::vector<const Operation*>& ops, int64_t num_elements, CudaPlan& plan) {
  if (ops.empty()) return;
  std::unordered_set<const Operation*> inside(ops.begin(), ops.end());
  PlanStep step;
  step.kind = PlanStep::Kind::kFused;
  step.fused.num_elements = num_elements;
  step.fused.ops = ops;
  for (const Operation* op : ops) {
    for (const stablehlo::Value* operand : op->operands()) {
      const Operation* producer = operand->defining_op();
      if (producer != nullptr && inside.contains(producer)) continue;
      if (std::find(step.fused.inputs.begin(), step.fused.inputs.end(), operand) ==
          step.fused.inputs.end()) {
        step.fused.inputs.push_back(operand);
      }
    }
    const stablehlo::Value* result = op->result(0);
    for (const stablehlo::OpOperand& use : result->uses()) {
      if (!inside.contains(use.owner)) {
        step.fused.outputs.push_back(result);
        break;
      }
    }
  }
  if (!step.fused.outputs.empty()) {
    step.fused.name = "berth_fused_" + std::to_string(plan.steps.size());
    plan.fused_ops += static_cast<int>(ops.size());
    plan.steps.push_back(std::move(step));
  }
  ops.clear();
}

}  // namespace

Result<CudaPlan> PlanCudaProgram(const stablehlo::Module& module, std::string_view entry_name) {
  CudaPlan plan;
  BERTH_ASSIGN_OR_RETURN(plan.entry, FindEntry(module, entry_name));
  std::vector<const Operation*> chain;
  int64_t chain_elements = 0;
  for (const Operation* op : plan.entry->entry_block().operations()) {
    if (op->kind() == OpKind::kReturn || op->kind() == OpKind::kFuncReturn) continue;
    if (IsGeneratedElementwiseKind(op->kind())) {
      BERTH_RETURN_IF_ERROR(CheckFusible(*op));
      const int64_t elements = op->result(0)->type().NumElements();
      if (!chain.empty() && elements != chain_elements) Flush(chain, chain_elements, plan);
      chain_elements = elements;
      chain.push_back(op);
      continue;
    }
    Flush(chain, chain_elements, plan);
    if (op->kind() == OpKind::kConstant) {
      PlanStep step;
      step.kind = PlanStep::Kind::kConstant;
      step.op = op;
      plan.steps.push_back(std::move(step));
      continue;
    }
    return UnimplementedError("the cuda plugin has no kernel for " + std::string(op->name()) +
                              " (at " + op->location().ToString() + ") yet");
  }
  Flush(chain, chain_elements, plan);
  for (PlanStep& step : plan.steps) {
    if (step.kind != PlanStep::Kind::kFused) continue;
    BERTH_ASSIGN_OR_RETURN(step.source, EmitFusedKernel(step.fused));
  }
  return plan;
}

}  // namespace berth::cuda
