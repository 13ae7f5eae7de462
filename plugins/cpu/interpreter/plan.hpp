// A compiled program: for every block of the module (function bodies and op
// regions) the ops in order with their kernels, each value's slot, and when
// each slot can be freed; chains of elementwise ops are fused into one step.
#ifndef BERTH_PLUGINS_CPU_INTERPRETER_PLAN_HPP_
#define BERTH_PLUGINS_CPU_INTERPRETER_PLAN_HPP_

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "berth/stablehlo/ir.hpp"
#include "interpreter/elementwise.hpp"
#include "interpreter/ffi_call.hpp"
#include "interpreter/kernel.hpp"

namespace berth::cpu {

// A value seen from a block: `depth` frames up (0 = this block's own frame),
// at `slot` there.
struct ValueRef {
  uint32_t depth = 0;
  uint32_t slot = 0;
};

struct Step {
  const stablehlo::Operation* op = nullptr;  // the op (a fused step: its root)
  KernelFn kernel = nullptr;                  // NULL for fused steps
  std::unique_ptr<FusedElementwise> fused;    // set for fused steps
  std::vector<ValueRef> operands;             // fused: the external inputs
  uint32_t first_result = 0;                  // results go to consecutive slots
  uint32_t num_results = 0;
  std::vector<uint32_t> release;              // own slots dead after this step
};

struct BlockPlan {
  const stablehlo::Block* block = nullptr;
  uint32_t num_slots = 0;       // arguments take slots 0..num_args-1
  uint32_t num_args = 0;
  std::vector<Step> steps;      // the terminator is not a step
  std::vector<ValueRef> returns;  // the terminator's operands
};

struct PlanOptions {
  bool fuse_elementwise = true;
  // Handlers for custom calls that are not built in; NULL: none (such a
  // call fails to plan). Borrowed for Build.
  const CustomCallTargets* custom_calls = nullptr;
};

class ProgramPlan {
 public:
  // Plans every function and region of `module`. UNIMPLEMENTED names the
  // first op without a kernel (with its location); the module must have
  // been verified.
  static Result<std::unique_ptr<ProgramPlan>> Build(const stablehlo::Module& module,
                                                    const PlanOptions& options = {});

  const stablehlo::Module& module() const { return module_; }
  // The plan of a block planned by Build (never NULL for the module's blocks).
  const BlockPlan* Find(const stablehlo::Block& block) const;
  // Number of fused steps and of ops inside them (for tests and tuning).
  int fused_steps() const { return fused_steps_; }
  int fused_ops() const { return fused_ops_; }
  // True when one execution is certainly short: no loops, calls, collectives,
  // convolutions or custom calls, at most kCheapMaxOps ops, every operand and
  // result static with at most kCheapMaxElements elements. Such programs may
  // run on the caller's thread instead of being handed to a device stream.
  bool cheap() const { return cheap_; }
  // The resolved handler of a custom call that is not built in; NULL else.
  const FfiCallSite* FindFfiCall(const stablehlo::Operation* op) const {
    auto it = ffi_calls_.find(op);
    return it == ffi_calls_.end() ? nullptr : it->second.get();
  }

  static constexpr int kCheapMaxOps = 256;
  static constexpr int64_t kCheapMaxElements = 1024;

 private:
  explicit ProgramPlan(const stablehlo::Module& module) : module_(module) {}

  const stablehlo::Module& module_;
  std::unordered_map<const stablehlo::Block*, std::unique_ptr<BlockPlan>> blocks_;
  std::unordered_map<const stablehlo::Operation*, std::unique_ptr<FfiCallSite>> ffi_calls_;
  int fused_steps_ = 0;
  int fused_ops_ = 0;
  int num_ops_ = 0;
  bool cheap_ = true;
  friend class PlanBuilder;
};

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_INTERPRETER_PLAN_HPP_
