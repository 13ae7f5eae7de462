// Control flow: stablehlo.while, stablehlo.if, stablehlo.case.
//
// Regions run through KernelCall::RunRegion and see the values of the
// enclosing blocks. Loop-carried values pass from one iteration to the next
// without copies (tensors are immutable). case runs branch `index`, or the
// last branch when index is negative or not below the number of branches.
#include "interpreter/reduction.hpp"

namespace berth::cpu {
namespace {

using stablehlo::OpKind;

// The value of a tensor<i1> a region or the program produced.
Result<bool> Predicate(const Tensor& t, std::string_view what) {
  if (!t.is_tensor() || t.type() != ElementType::kI1 || t.num_elements() != 1) {
    return InvalidArgumentError(std::string(what) + " must be a tensor<i1>, is " + t.TypeString());
  }
  return t.data<bool>()[0];
}

Status While(KernelCall& call) {
  if (call.op.num_regions() != 2) return InvalidArgumentError("while needs cond and body regions");
  std::vector<Tensor> state(call.operands.begin(), call.operands.end());
  while (true) {
    // A loop whose regions hold no op would never reach an op boundary, where
    // the interpreter notices cancellation.
    if (call.ctx.cancelled()) return CancelledError("while loop stopped: the execution was cancelled");
    BERTH_ASSIGN_OR_RETURN(std::vector<Tensor> cond, call.RunRegion(0, state));
    if (cond.size() != 1) return InvalidArgumentError("cond must return one value");
    BERTH_ASSIGN_OR_RETURN(bool go_on, Predicate(cond[0], "the value cond returns"));
    if (!go_on) break;
    BERTH_ASSIGN_OR_RETURN(std::vector<Tensor> next, call.RunRegion(1, state));
    if (next.size() != state.size()) {
      return InvalidArgumentError("body returns " + std::to_string(next.size()) + " values, the loop carries " +
                                  std::to_string(state.size()));
    }
    state = std::move(next);
  }
  call.results = std::move(state);
  return OkStatus();
}

Status If(KernelCall& call) {
  if (call.operands.size() != 1 || call.op.num_regions() != 2) {
    return InvalidArgumentError("if takes a pred and two branches");
  }
  BERTH_ASSIGN_OR_RETURN(bool pred, Predicate(call.operands[0], "pred"));
  BERTH_ASSIGN_OR_RETURN(call.results, call.RunRegion(pred ? 0 : 1, {}));
  return OkStatus();
}

Status Case(KernelCall& call) {
  const size_t branches = call.op.num_regions();
  if (call.operands.size() != 1 || branches == 0) {
    return InvalidArgumentError("case takes an index and at least one branch");
  }
  const Tensor& index = call.operands[0];
  if (!index.is_tensor() || index.type() != ElementType::kSI32 || index.num_elements() != 1) {
    return InvalidArgumentError("index must be a tensor<i32>, is " + index.TypeString());
  }
  int64_t i = index.data<int32_t>()[0];
  size_t branch = i < 0 || i >= static_cast<int64_t>(branches) ? branches - 1 : static_cast<size_t>(i);
  BERTH_ASSIGN_OR_RETURN(call.results, call.RunRegion(branch, {}));
  return OkStatus();
}

}  // namespace

void RegisterControlKernels(KernelRegistry& registry) {
  registry.Register({{OpKind::kWhile, While}, {OpKind::kIf, If}, {OpKind::kCase, Case}});
}

}  // namespace berth::cpu
