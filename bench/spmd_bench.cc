// Benchmarks of the SPMD partitioner.
//
// BM_Partition: a generated module of 1,000 ops (layers of dot_general,
// broadcast bias add, tanh, a row reduction and its broadcast back,
// elementwise arithmetic) whose arguments are sharded over a 2x4 mesh,
// partitioned per iteration: the per-op rules, the resharding between them
// and the printing of the per-device text. Parsing is not timed.
#include <benchmark/benchmark.h>

#include <string>

#include "berth/spmd/partitioner.hpp"
#include "berth/stablehlo/parser.hpp"

namespace {

namespace shlo = berth::stablehlo;

// 10 ops per layer; `%h<i>` is the layer's input, `%h<i+1>` its output.
std::string GeneratedModule(int ops) {
  const std::string t = "tensor<64x128xf32>";
  std::string body;
  int layer = 0;
  for (; (layer + 1) * 10 <= ops; ++layer) {
    const std::string n = std::to_string(layer), in = "%h" + n, out = "%h" + std::to_string(layer + 1);
    body += "    %d" + n + " = stablehlo.dot_general " + in + ", %w, contracting_dims = [1] x [0] : (" + t +
            ", tensor<128x128xf32>) -> " + t + "\n";
    body += "    %b" + n + " = stablehlo.broadcast_in_dim %bias, dims = [1] : (tensor<128xf32>) -> " + t + "\n";
    body += "    %s" + n + " = stablehlo.add %d" + n + ", %b" + n + " : " + t + "\n";
    body += "    %t" + n + " = stablehlo.tanh %s" + n + " : " + t + "\n";
    body += "    %z" + n + " = stablehlo.constant dense<0.0> : tensor<f32>\n";
    body += "    %r" + n + " = stablehlo.reduce(%t" + n + " init: %z" + n +
            ") applies stablehlo.add across dimensions = [1] : (" + t + ", tensor<f32>) -> tensor<64xf32>\n";
    body += "    %rb" + n + " = stablehlo.broadcast_in_dim %r" + n + ", dims = [0] : (tensor<64xf32>) -> " + t + "\n";
    body += "    %m" + n + " = stablehlo.multiply %t" + n + ", %rb" + n + " : " + t + "\n";
    body += "    %q" + n + " = stablehlo.subtract %m" + n + ", " + in + " : " + t + "\n";
    body += "    " + out + " = stablehlo.add %q" + n + ", %t" + n + " : " + t + "\n";
  }
  return "module @generated attributes {mhlo.num_partitions = 8 : i32} {\n"
         "  func.func public @main(%h0: " + t + " {mhlo.sharding = \"{devices=[2,4]<=[8]}\"},\n"
         "      %w: tensor<128x128xf32> {mhlo.sharding = \"{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}\"},\n"
         "      %bias: tensor<128xf32> {mhlo.sharding = \"{replicated}\"})\n"
         "      -> (" + t + " {mhlo.sharding = \"{devices=[2,1,4]<=[8] last_tile_dim_replicate}\"}) {\n" + body +
         "    return %h" + std::to_string(layer) + " : " + t + "\n  }\n}\n";
}

void BM_Partition(benchmark::State& state) {
  berth::Result<shlo::Module> module = shlo::ParseModule(GeneratedModule(1000), "generated.mlir");
  if (!module.ok()) {
    state.SkipWithError(module.status().ToString().c_str());
    return;
  }
  size_t text_bytes = 0;
  for (auto _ : state) {
    berth::Result<berth::spmd::PartitionedProgram> program = berth::spmd::Partition(*module);
    if (!program.ok()) {
      state.SkipWithError(program.status().ToString().c_str());
      return;
    }
    text_bytes = program->text.size();
    benchmark::DoNotOptimize(program->text.data());
  }
  state.counters["ops"] = 1000;
  state.counters["text_bytes"] = static_cast<double>(text_bytes);
}
BENCHMARK(BM_Partition)->Unit(benchmark::kMillisecond);

}  // namespace
