#include <algorithm>
#include <memory>

#include "interpreter/elementwise.hpp"
#include "interpreter/parallel.hpp"

namespace berth::cpu {

namespace {

// Elements per block: every node but the root writes one block of at most
// 16-byte values (complex<f64>) to scratch, so a chain of 32 nodes needs
// 1 MiB; the usual short chain stays in L1/L2 while the block moves through it.
constexpr int64_t kBlock = 2048;
constexpr size_t kScratchStride = static_cast<size_t>(kBlock) * 16;
// Below this many elements a chain runs on the calling thread.
constexpr int64_t kMinParallelElements = 1 << 15;
// Each parallel task takes at least this many elements (a multiple of
// kBlock, so tasks start on block boundaries).
constexpr int64_t kMinTaskElements = kBlock * 16;

// Runs a node whose operands or result are narrow (narrow_types.hpp):
// decodes the narrow operands into `wide` (four blocks: three operands and
// the result), runs the block function in the compute types and encodes
// the result into `target`.
void RunWidened(const ElementwiseNode& node, const void* const* args, void* target, int64_t n,
                std::byte* wide) {
  const void* computed_args[3] = {args[0], args[1], args[2]};
  for (int a = 0; a < node.num_args; ++a) {
    const size_t i = static_cast<size_t>(a);
    if (node.arg_type[i] == node.compute_arg[i]) continue;
    std::byte* decoded = wide + i * kScratchStride;
    DecodeNarrow(node.arg_type[i], static_cast<const uint8_t*>(args[a]), node.compute_arg[i],
                 decoded, node.scalar_arg[i] ? 1 : n, node.decode_bits);
    computed_args[a] = decoded;
  }
  if (node.compute_out == node.out_type) {
    node.fn(node, computed_args, target, n);
    // bitcast_convert into a narrow integer: re-extend its bits.
    NormalizeNarrowIntegers(node.out_type, static_cast<uint8_t*>(target), n);
    return;
  }
  std::byte* result = wide + 3 * kScratchStride;
  node.fn(node, computed_args, result, n);
  EncodeNarrow(node.compute_out, result, node.out_type, static_cast<uint8_t*>(target), n,
               node.encode);
}

bool HasDynamicDim(const std::vector<int64_t>& dims) {
  return std::any_of(dims.begin(), dims.end(), [](int64_t d) { return d == stablehlo::kDynamic; });
}

}  // namespace

Result<Tensor> FusedElementwise::Run(std::span<const Tensor> inputs, ThreadPool* pool) const {
  if (static_cast<int>(inputs.size()) != num_inputs_) {
    return InternalError("fused elementwise step takes " + std::to_string(num_inputs_) +
                         " inputs, got " + std::to_string(inputs.size()));
  }
  // Which inputs are rank-0 values broadcast to every element (clamp's
  // bounds, select's predicate).
  std::vector<char> scalar_input(inputs.size(), 0);
  for (const Node& node : nodes_) {
    for (int a = 0; a < node.node.num_args; ++a) {
      int ref = node.args[static_cast<size_t>(a)];
      if (ref < 0 && node.node.scalar_arg[static_cast<size_t>(a)]) {
        scalar_input[static_cast<size_t>(-1 - ref)] = 1;
      }
    }
  }
  // Dynamic result dims take the dims of a full-size input.
  std::vector<int64_t> dims = dims_;
  if (HasDynamicDim(dims)) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!scalar_input[i] && inputs[i].rank() == static_cast<int64_t>(dims.size())) {
        dims = inputs[i].dims();
        break;
      }
    }
    if (HasDynamicDim(dims)) return InternalError("fused elementwise step has no full-size input");
  }
  const ElementwiseNode& root = nodes_.back().node;
  BERTH_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(root.out_type, std::move(dims)));
  const int64_t total = out.num_elements();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& input = inputs[i];
    int64_t expected = scalar_input[i] ? 1 : total;
    if (!input.is_tensor() || input.num_elements() != expected) {
      return InvalidArgumentError("elementwise input " + std::to_string(i) + " is " +
                                  input.TypeString() + ", expected " + std::to_string(expected) +
                                  " elements like the result " + out.TypeString());
    }
  }
  if (total == 0) return out;

  std::vector<size_t> input_sizes(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    input_sizes[i] = stablehlo::StorageBytes(inputs[i].type());
  }
  const size_t out_size = stablehlo::StorageBytes(root.out_type);
  const size_t num_nodes = nodes_.size();

  const bool any_widened =
      std::any_of(nodes_.begin(), nodes_.end(), [](const Node& node) { return node.node.widened; });

  auto run_range = [&](int64_t begin, int64_t end) {
    // Scratch for every node but the root, which writes to the output.
    std::unique_ptr<std::byte[]> scratch;
    if (num_nodes > 1) scratch.reset(new std::byte[kScratchStride * (num_nodes - 1)]);
    // The decoded operands and the result of a widened node.
    std::unique_ptr<std::byte[]> wide;
    if (any_widened) wide.reset(new std::byte[kScratchStride * 4]);
    for (int64_t start = begin; start < end; start += kBlock) {
      const int64_t n = std::min(kBlock, end - start);
      for (size_t k = 0; k < num_nodes; ++k) {
        const Node& node = nodes_[k];
        const void* args[3] = {nullptr, nullptr, nullptr};
        for (int a = 0; a < node.node.num_args; ++a) {
          int ref = node.args[static_cast<size_t>(a)];
          if (ref >= 0) {
            args[a] = scratch.get() + static_cast<size_t>(ref) * kScratchStride;
          } else {
            size_t input = static_cast<size_t>(-1 - ref);
            size_t offset = scalar_input[input] ? 0 : static_cast<size_t>(start);
            args[a] = inputs[input].bytes() + offset * input_sizes[input];
          }
        }
        void* target = k + 1 == num_nodes
                           ? static_cast<void*>(out.bytes() + static_cast<size_t>(start) * out_size)
                           : static_cast<void*>(scratch.get() + k * kScratchStride);
        if (node.node.widened) {
          RunWidened(node.node, args, target, n, wide.get());
        } else {
          node.node.fn(node.node, args, target, n);
        }
      }
    }
  };
  if (total < kMinParallelElements) {
    run_range(0, total);
  } else {
    ParallelFor(pool, total, kMinTaskElements, run_range);
  }
  return out;
}

}  // namespace berth::cpu
