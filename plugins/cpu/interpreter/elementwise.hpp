// Elementwise ops as block functions, so that chains of them run fused: one
// pass over memory computing every op of the chain per block of elements.
//
// The elementwise kernel family (kernels_elementwise.cc) describes each op it
// supports with MakeElementwiseNode; the plan builder fuses chains whose
// intermediate values have one use; FusedElementwise runs a chain.
#ifndef BERTH_PLUGINS_CPU_INTERPRETER_ELEMENTWISE_HPP_
#define BERTH_PLUGINS_CPU_INTERPRETER_ELEMENTWISE_HPP_

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "berth/stablehlo/ir.hpp"
#include "berth/status.hpp"
#include "interpreter/kernel.hpp"
#include "interpreter/narrow_types.hpp"
#include "interpreter/tensor.hpp"

namespace berth::cpu {

struct ElementwiseNode;

// Computes `n` elements: args[i] points at the first element of operand i
// for this block (or at its only element when node.scalar_arg[i]), `out` at
// the first output element.
using BlockFn = void (*)(const ElementwiseNode& node, const void* const* args, void* out,
                         int64_t n);

struct ElementwiseNode {
  const stablehlo::Operation* op = nullptr;
  BlockFn fn = nullptr;
  int num_args = 0;
  std::array<bool, 3> scalar_arg{};   // operand is rank 0, broadcast (clamp)
  ElementType out_type = ElementType::kF32;  // the result's element type
  std::array<ElementType, 3> arg_type{};     // each operand's element type
  // What the block function computes with: the types above, except for
  // narrow types (narrow_types.hpp), which the step decodes into
  // compute_arg before and encodes from compute_out after the block
  // function (`widened`; `decode_bits`: operands as their bit patterns,
  // `encode`: how a narrow integer result is made).
  std::array<ElementType, 3> compute_arg{};
  ElementType compute_out = ElementType::kF32;
  bool widened = false;
  bool decode_bits = false;
  NarrowEncode encode = NarrowEncode::kWrap;
  // Parameters some ops need, read once at plan time.
  int64_t int_param0 = 0;  // e.g. reduce_precision exponent bits, compare direction
  int64_t int_param1 = 0;  // e.g. reduce_precision mantissa bits, compare type
};

namespace elementwise {

// Fills node.fn (and int_param0/1 when the op has parameters) for `op`;
// `what` names the op in error messages. The node's op, num_args, out_type
// and scalar_arg are set already.
using MakeBlockFn = Status (*)(const stablehlo::Operation& op, std::string_view what,
                               ElementwiseNode& node);

}  // namespace elementwise

// Whether `op` can be computed elementwise by block functions.
bool IsFusibleElementwise(const stablehlo::Operation& op);

// Describes `op` for FusedElementwise; UNIMPLEMENTED for unsupported types.
Result<ElementwiseNode> MakeElementwiseNode(const stablehlo::Operation& op);

// A tree of elementwise ops evaluated in one pass. Node arguments are other
// nodes (index >= 0, always earlier) or external inputs (-1 - input index).
class FusedElementwise {
 public:
  struct Node {
    ElementwiseNode node;
    std::array<int, 3> args{};
  };

  FusedElementwise(std::vector<Node> nodes, int num_inputs, std::vector<int64_t> dims)
      : nodes_(std::move(nodes)), num_inputs_(num_inputs), dims_(std::move(dims)) {}

  int num_inputs() const { return num_inputs_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  // The op whose result the tree produces (the last node).
  const stablehlo::Operation& root() const { return *nodes_.back().node.op; }

  // Computes the root's result from `inputs` (one per external input).
  Result<Tensor> Run(std::span<const Tensor> inputs, ThreadPool* pool) const;

 private:
  std::vector<Node> nodes_;
  int num_inputs_;
  std::vector<int64_t> dims_;
};

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_INTERPRETER_ELEMENTWISE_HPP_
