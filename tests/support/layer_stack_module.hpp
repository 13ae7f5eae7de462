// A StableHLO module of dense layers over a 2x4 mesh, for the partitioner's
// tests and benchmarks: 10 ops per layer (dot_general, broadcast bias add,
// tanh, a row reduction and its broadcast back, elementwise arithmetic);
// `%h<i>` is layer i's input, `%h<i+1>` its output. The input is cut over
// both mesh axes, the weights by rows over one axis, the result by rows.
#ifndef BERTH_TESTS_SUPPORT_LAYER_STACK_MODULE_HPP_
#define BERTH_TESTS_SUPPORT_LAYER_STACK_MODULE_HPP_

#include <cstdint>
#include <string>

namespace berth::testing {

struct LayerStack {
  std::string name;       // the module's name
  int64_t rows = 0;       // of the input and every layer's output
  int64_t width = 0;      // columns of the input, and the weights' size
  int layers = 0;
  std::string bias_sharding;  // the bias argument's sharding; empty: none
};

inline std::string LayerStackModule(const LayerStack& stack) {
  const std::string t = "tensor<" + std::to_string(stack.rows) + "x" + std::to_string(stack.width) + "xf32>";
  const std::string w = "tensor<" + std::to_string(stack.width) + "x" + std::to_string(stack.width) + "xf32>";
  const std::string bias = "tensor<" + std::to_string(stack.width) + "xf32>";
  const std::string row = "tensor<" + std::to_string(stack.rows) + "xf32>";
  std::string body;
  for (int layer = 0; layer < stack.layers; ++layer) {
    const std::string n = std::to_string(layer), in = "%h" + n, out = "%h" + std::to_string(layer + 1);
    body += "    %d" + n + " = stablehlo.dot_general " + in + ", %w, contracting_dims = [1] x [0] : (" + t + ", " + w +
            ") -> " + t + "\n";
    body += "    %b" + n + " = stablehlo.broadcast_in_dim %bias, dims = [1] : (" + bias + ") -> " + t + "\n";
    body += "    %s" + n + " = stablehlo.add %d" + n + ", %b" + n + " : " + t + "\n";
    body += "    %t" + n + " = stablehlo.tanh %s" + n + " : " + t + "\n";
    body += "    %z" + n + " = stablehlo.constant dense<0.0> : tensor<f32>\n";
    body += "    %r" + n + " = stablehlo.reduce(%t" + n + " init: %z" + n +
            ") applies stablehlo.add across dimensions = [1] : (" + t + ", tensor<f32>) -> " + row + "\n";
    body += "    %rb" + n + " = stablehlo.broadcast_in_dim %r" + n + ", dims = [0] : (" + row + ") -> " + t + "\n";
    body += "    %m" + n + " = stablehlo.multiply %t" + n + ", %rb" + n + " : " + t + "\n";
    body += "    %q" + n + " = stablehlo.subtract %m" + n + ", " + in + " : " + t + "\n";
    body += "    " + out + " = stablehlo.add %q" + n + ", %t" + n + " : " + t + "\n";
  }
  const std::string bias_attribute =
      stack.bias_sharding.empty() ? "" : " {mhlo.sharding = \"" + stack.bias_sharding + "\"}";
  return "module @" + stack.name + " attributes {mhlo.num_partitions = 8 : i32} {\n"
         "  func.func public @main(%h0: " + t + " {mhlo.sharding = \"{devices=[2,4]<=[8]}\"},\n"
         "      %w: " + w + " {mhlo.sharding = \"{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}\"},\n"
         "      %bias: " + bias + bias_attribute + ")\n"
         "      -> (" + t + " {mhlo.sharding = \"{devices=[2,1,4]<=[8] last_tile_dim_replicate}\"}) {\n" + body +
         "    return %h" + std::to_string(stack.layers) + " : " + t + "\n  }\n}\n";
}

}  // namespace berth::testing

#endif  // BERTH_TESTS_SUPPORT_LAYER_STACK_MODULE_HPP_
