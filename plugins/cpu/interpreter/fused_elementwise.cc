#include <algorithm>

#include "interpreter/elementwise.hpp"
#include "interpreter/parallel.hpp"

namespace berth::cpu {

namespace {

// Elements per block: scratch for one node is kBlock * 8 bytes, so a chain
// of kMaxFusedOps nodes stays in L2.
constexpr int64_t kBlock = 2048;
// Below this many elements a chain runs on the calling thread.
constexpr int64_t kMinParallelElements = 1 << 15;

}  // namespace

Result<Tensor> FusedElementwise::Run(std::span<const Tensor> inputs, ThreadPool* pool) const {
  if (static_cast<int>(inputs.size()) != num_inputs_) {
    return InternalError("fused elementwise step takes " + std::to_string(num_inputs_) +
                         " inputs, got " + std::to_string(inputs.size()));
  }
  const ElementwiseNode& root = nodes_.back().node;
  BERTH_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(root.out_type, dims_));
  const int64_t total = out.num_elements();
  if (total == 0) return out;

  std::vector<size_t> input_sizes(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    input_sizes[i] = stablehlo::StorageBytes(inputs[i].type());
  }
  std::vector<size_t> node_sizes(nodes_.size());
  for (size_t k = 0; k < nodes_.size(); ++k) {
    node_sizes[k] = stablehlo::StorageBytes(nodes_[k].node.out_type);
  }

  auto run_range = [&](int64_t begin, int64_t end) {
    // Scratch for every node but the root, which writes to the output.
    std::vector<std::byte> scratch(static_cast<size_t>(kBlock) * 8 * nodes_.size());
    for (int64_t start = begin; start < end; start += kBlock) {
      const int64_t n = std::min(kBlock, end - start);
      for (size_t k = 0; k < nodes_.size(); ++k) {
        const Node& node = nodes_[k];
        const void* args[3] = {nullptr, nullptr, nullptr};
        for (int a = 0; a < node.node.num_args; ++a) {
          int ref = node.args[a];
          if (ref >= 0) {
            args[a] = scratch.data() + static_cast<size_t>(ref) * kBlock * 8;
          } else {
            const Tensor& input = inputs[static_cast<size_t>(-1 - ref)];
            size_t offset = node.node.scalar_arg[a] ? 0 : static_cast<size_t>(start);
            args[a] = input.bytes() + offset * input_sizes[static_cast<size_t>(-1 - ref)];
          }
        }
        void* target = k + 1 == nodes_.size()
                           ? static_cast<void*>(out.bytes() + static_cast<size_t>(start) * node_sizes[k])
                           : static_cast<void*>(scratch.data() + k * kBlock * 8);
        node.node.fn(node.node, args, target, n);
      }
    }
  };
  if (total < kMinParallelElements) {
    run_range(0, total);
  } else {
    ParallelFor(pool, total, kBlock * 8, run_range);
  }
  return out;
}

}  // namespace berth::cpu
