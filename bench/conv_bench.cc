// BM_Conv2D: a 3x3 convolution, 64 -> 64 channels, 56x56, batch 8, f32,
// NHWC ([b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], padding 1: a ResNet stage-1
// layer) through the host and the cpu plugin, against a matrix product of
// the same FLOPs through berth in the same run (1024x882 times 882x1024:
// 2 * 1024 * 1024 * 882 = 2 * (8 * 56 * 56) * 64 * (9 * 64) multiply-adds).
// Each program is compiled once and executed and awaited per iteration.
// Counter `flops` is the convolution's 2 * multiply-adds (padding included,
// as the spec computes them) as a rate; the label names the ISA level.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "berth/berth.hpp"
#include "isa/isa.hpp"
#include "random_operands.hpp"

namespace {

constexpr int64_t kBatch = 8, kSize = 56, kChannels = 64, kWindow = 3;
constexpr double kFlops = 2.0 * kBatch * kSize * kSize * kChannels * kWindow * kWindow * kChannels;
// The baseline's product: M = N = 1024, K = 882 (same FLOPs exactly).
constexpr int64_t kM = 1024, kK = 882;
static_assert(2 * kM * kM * kK == static_cast<int64_t>(kFlops));

constexpr char kConv[] = R"(
func.func @main(%x: tensor<8x56x56x64xf32>, %w: tensor<3x3x64x64xf32>) -> tensor<8x56x56x64xf32> {
  %y = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
      window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]}
      {batch_group_count = 1 : i64, feature_group_count = 1 : i64}
      : (tensor<8x56x56x64xf32>, tensor<3x3x64x64xf32>) -> tensor<8x56x56x64xf32>
  return %y : tensor<8x56x56x64xf32>
}
)";


std::string IsaLevel() {
  berth::Result<const berth::cpu::isa::Kernels*> selected = berth::cpu::isa::Selected();
  return selected.ok() ? (*selected)->name : "";
}

// `program` on two random f32 operands, per iteration.
void RunProgram(benchmark::State& state, std::string_view program, std::vector<int64_t> a_dims,
                std::vector<int64_t> b_dims) {
  berth::bench::RunOnRandomOperands(state, "conv", program, a_dims, b_dims);
  state.counters["flops"] = benchmark::Counter(kFlops, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(IsaLevel());
}

void BM_Conv2DBerth(benchmark::State& state) {
  RunProgram(state, kConv, {kBatch, kSize, kSize, kChannels}, {kWindow, kWindow, kChannels, kChannels});
}

void BM_Conv2DMatmul(benchmark::State& state) {
  RunProgram(state, berth::bench::MatmulProgram(kM, kK, kM), {kM, kK}, {kK, kM});
}

BENCHMARK(BM_Conv2DBerth)->Name("BM_Conv2D/berth")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Conv2DMatmul)->Name("BM_Conv2D/matmul")->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
