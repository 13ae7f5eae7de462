// Runs planned blocks: binds arguments, runs each step's kernel (or fused
// chain), frees values after their last use, collects the returned values.
#ifndef BERTH_PLUGINS_CPU_INTERPRETER_INTERPRETER_HPP_
#define BERTH_PLUGINS_CPU_INTERPRETER_INTERPRETER_HPP_

#include <span>
#include <vector>

#include "interpreter/kernel.hpp"
#include "interpreter/plan.hpp"

namespace berth::cpu {

// The values of one running block, chained to the enclosing block's frame
// (regions read values of the blocks around them).
struct Frame {
  const BlockPlan* plan = nullptr;
  std::vector<Tensor> slots;
  const Frame* parent = nullptr;

  const Tensor& Get(ValueRef ref) const {
    const Frame* frame = this;
    for (uint32_t i = 0; i < ref.depth; ++i) frame = frame->parent;
    return frame->slots[ref.slot];
  }
};

class Interpreter {
 public:
  // Runs `plan` with `args` bound to its block arguments.
  static Result<std::vector<Tensor>> RunBlock(ExecContext& ctx, const BlockPlan& plan,
                                              std::span<const Tensor> args, const Frame* parent);
  // Runs the module function `name` as a whole program instance.
  static Result<std::vector<Tensor>> RunFunction(ExecContext& ctx, std::string_view name,
                                                 std::span<const Tensor> args);
};

// Deepest nesting of calls and regions before an execution is refused.
inline constexpr int kMaxCallDepth = 256;

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_INTERPRETER_INTERPRETER_HPP_
