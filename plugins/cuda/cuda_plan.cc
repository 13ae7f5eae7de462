#include "cuda_plan.hpp"

#include <algorithm>
#include <unordered_map>
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

// OK when check op `op` compares values the kernels hold, and its literal
// (the _const forms) is one of them.
Status CheckCheck(const Operation& op) {
  for (const stablehlo::Value* operand : op.operands()) {
    BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, operand->type()));
  }
  const stablehlo::Type checked = op.operand(0)->type();
  const std::string where = std::string(op.name()) + " at " + op.location().ToString();
  if (op.num_operands() == 2 && op.operand(1)->type() != checked) {
    return InvalidArgumentError(where + " compares " + checked.ToString() + " with " +
                                op.operand(1)->type().ToString());
  }
  if (op.num_operands() == 1) {
    const stablehlo::DenseElementsAttr* value = op.GetDense("value");
    if (value == nullptr || value->type().element_type() != checked.element_type() ||
        value->type().NumElements() != checked.NumElements()) {
      return InvalidArgumentError(where + ": its 'value' must be a dense literal of " +
                                  checked.ToString());
    }
  }
  return OkStatus();
}

class Planner {
 public:
  explicit Planner(CudaPlan& plan) : plan_(plan) {}

  Status Add(const Operation& op) {
    if (IsViewKind(op.kind())) {
      BERTH_RETURN_IF_ERROR(CheckView(op));
      ViewRead view;
      view.value = op.result(0);
      view.chain.push_back(&op);
      if (op.kind() != OpKind::kIota) {
        const stablehlo::Value* operand = op.operand(0);
        if (auto it = views_.find(operand); it != views_.end()) {
          view.source = it->second.source;
          view.chain.insert(view.chain.end(), it->second.chain.begin(), it->second.chain.end());
        } else {
          view.source = operand;
        }
      }
      views_[view.value] = std::move(view);
      return OkStatus();
    }
    if (IsGeneratedElementwiseKind(op.kind())) {
      BERTH_RETURN_IF_ERROR(CheckFusible(op));
      const int64_t elements = op.result(0)->type().NumElements();
      bool reads_group_through_view = false;
      for (const stablehlo::Value* operand : op.operands()) {
        auto it = views_.find(operand);
        if (it != views_.end() && it->second.source != nullptr &&
            it->second.source->defining_op() != nullptr &&
            inside_.contains(it->second.source->defining_op())) {
          reads_group_through_view = true;  // its source must be in memory first
        }
      }
      if (!chain_.empty() && (elements != chain_elements_ || reads_group_through_view)) Flush();
      chain_elements_ = elements;
      chain_.push_back(&op);
      inside_.insert(&op);
      return OkStatus();
    }
    Flush();
    if (op.kind() == OpKind::kReduce) {
      BERTH_RETURN_IF_ERROR(CheckReduce(op));
      FusedKernel kernel;
      kernel.reduce = &op;
      kernel.num_elements = op.result(0)->type().NumElements();
      const size_t n = op.num_results();
      for (size_t j = 0; j < 2 * n; ++j) {
        const stablehlo::Value* operand = op.operand(j);
        auto it = views_.find(operand);
        if (it == views_.end()) {
          AddInput(kernel, operand);
        } else if (j < n) {
          AddView(kernel, it->second);
        } else {
          return UnimplementedError("the cuda plugin cannot take the init value of " +
                                    std::string(op.name()) + " (at " + op.location().ToString() +
                                    ") from data movement yet");
        }
      }
      for (const stablehlo::Value* result : op.results()) kernel.outputs.push_back(result);
      Emit(std::move(kernel));
      return OkStatus();
    }
    if (op.kind() == OpKind::kConcatenate || op.kind() == OpKind::kPad ||
        op.kind() == OpKind::kDynamicSlice || op.kind() == OpKind::kDynamicUpdateSlice ||
        op.kind() == OpKind::kGather || op.kind() == OpKind::kDotGeneral ||
        op.kind() == OpKind::kTriangularSolve) {
      FusedKernel kernel;
      kernel.num_elements = op.result(0)->type().NumElements();
      if (op.kind() == OpKind::kDotGeneral) {
        BERTH_RETURN_IF_ERROR(CheckDot(op));
        kernel.dot = &op;
      } else if (op.kind() == OpKind::kTriangularSolve) {
        BERTH_RETURN_IF_ERROR(CheckTriangularSolve(op));
        kernel.solve = &op;
        // One thread per solved vector: the elements of the other dimension.
        const stablehlo::Type b = op.operand(1)->type();
        const int64_t m = b.dim(op.GetBool("left_side") ? b.rank() - 2 : b.rank() - 1);
        if (m > 0) kernel.num_elements /= m;
      } else {
        BERTH_RETURN_IF_ERROR(CheckMove(op));
        kernel.mover = &op;
      }
      for (size_t j = 0; j < op.num_operands(); ++j) {
        const stablehlo::Value* operand = op.operand(j);
        auto it = views_.find(operand);
        if (it == views_.end()) {
          AddInput(kernel, operand);
        } else {
          AddView(kernel, it->second);
        }
      }
      kernel.outputs.push_back(op.result(0));
      Emit(std::move(kernel));
      return OkStatus();
    }
    if (stablehlo::IsComparingCheck(op)) {
      BERTH_RETURN_IF_ERROR(CheckCheck(op));
      std::vector<const stablehlo::Value*> moved;
      for (const stablehlo::Value* operand : op.operands()) {
        if (views_.contains(operand)) moved.push_back(operand);
      }
      WriteOut(moved);
      PlanStep step;
      step.kind = PlanStep::Kind::kCheck;
      step.op = &op;
      step.check = stablehlo::CheckSpecOf(op);
      if (const stablehlo::DenseElementsAttr* value = op.GetDense("value")) {
        step.expected = std::make_shared<const std::vector<uint8_t>>(value->ExpandedData());
      }
      plan_.steps.push_back(std::move(step));
      return OkStatus();
    }
    if (op.kind() == OpKind::kConstant) {
      PlanStep step;
      step.kind = PlanStep::Kind::kConstant;
      step.op = &op;
      plan_.steps.push_back(std::move(step));
      return OkStatus();
    }
    return UnimplementedError("the cuda plugin has no kernel for " + std::string(op.name()) +
                              " (at " + op.location().ToString() + ") yet");
  }

  // Ends the planning: views the function returns are written out.
  void Finish(const Operation& terminator) {
    Flush();
    std::vector<const stablehlo::Value*> returned;
    for (const stablehlo::Value* value : terminator.operands()) {
      if (views_.contains(value)) returned.push_back(value);
    }
    WriteOut(returned);
  }

 private:
  // Writes `values` (views) to memory, one kernel per element count; later
  // readers read them as any computed value.
  void WriteOut(std::vector<const stablehlo::Value*> values) {
    std::vector<const stablehlo::Value*> unique;
    for (const stablehlo::Value* value : values) {
      if (std::find(unique.begin(), unique.end(), value) == unique.end()) unique.push_back(value);
    }
    while (!unique.empty()) {
      const int64_t elements = unique.front()->type().NumElements();
      std::vector<const stablehlo::Value*> same;
      std::erase_if(unique, [&](const stablehlo::Value* value) {
        if (value->type().NumElements() != elements) return false;
        same.push_back(value);
        return true;
      });
      FusedKernel kernel;
      kernel.num_elements = elements;
      for (const stablehlo::Value* value : same) {
        AddView(kernel, views_.at(value));
        kernel.outputs.push_back(value);
      }
      Emit(std::move(kernel));
      for (const stablehlo::Value* value : same) views_.erase(value);
    }
  }

  static void AddInput(FusedKernel& kernel, const stablehlo::Value* value) {
    if (value != nullptr &&
        std::find(kernel.inputs.begin(), kernel.inputs.end(), value) == kernel.inputs.end()) {
      kernel.inputs.push_back(value);
    }
  }

  static void AddView(FusedKernel& kernel, const ViewRead& view) {
    for (const ViewRead& known : kernel.views) {
      if (known.value == view.value) return;
    }
    AddInput(kernel, view.source);
    kernel.views.push_back(view);
  }

  // Closes the kernel of the chain: what it reads from memory (directly or
  // through views), what is used after it. A kernel whose results are all
  // unused is dropped.
  void Flush() {
    if (chain_.empty()) return;
    FusedKernel kernel;
    kernel.num_elements = chain_elements_;
    kernel.ops = chain_;
    for (const Operation* op : chain_) {
      for (const stablehlo::Value* operand : op->operands()) {
        const Operation* producer = operand->defining_op();
        if (producer != nullptr && inside_.contains(producer)) continue;
        if (auto it = views_.find(operand); it != views_.end()) {
          AddView(kernel, it->second);
        } else {
          AddInput(kernel, operand);
        }
      }
      const stablehlo::Value* result = op->result(0);
      for (const stablehlo::OpOperand& use : result->uses()) {
        if (!inside_.contains(use.owner)) {
          kernel.outputs.push_back(result);
          break;
        }
      }
    }
    const int ops = static_cast<int>(chain_.size());
    chain_.clear();
    inside_.clear();
    if (kernel.outputs.empty()) return;
    plan_.fused_ops += ops;
    Emit(std::move(kernel));
  }

  void Emit(FusedKernel kernel) {
    PlanStep step;
    step.kind = PlanStep::Kind::kFused;
    kernel.name = "berth_fused_" + std::to_string(plan_.steps.size());
    step.fused = std::move(kernel);
    plan_.steps.push_back(std::move(step));
  }

  CudaPlan& plan_;
  std::unordered_map<const stablehlo::Value*, ViewRead> views_;
  std::vector<const Operation*> chain_;
  std::unordered_set<const Operation*> inside_;
  int64_t chain_elements_ = 0;
};

}  // namespace

Result<CudaPlan> PlanCudaProgram(const stablehlo::Module& module, std::string_view entry_name) {
  CudaPlan plan;
  BERTH_ASSIGN_OR_RETURN(plan.entry, FindEntry(module, entry_name));
  Planner planner(plan);
  const stablehlo::Block& block = plan.entry->entry_block();
  for (const Operation* op : block.operations()) {
    if (op->kind() == OpKind::kReturn || op->kind() == OpKind::kFuncReturn) continue;
    BERTH_RETURN_IF_ERROR(planner.Add(*op));
  }
  planner.Finish(*block.terminator());
  for (PlanStep& step : plan.steps) {
    if (step.kind != PlanStep::Kind::kFused) continue;
    BERTH_ASSIGN_OR_RETURN(step.source, EmitFusedKernel(step.fused));
  }
  return plan;
}

}  // namespace berth::cuda
