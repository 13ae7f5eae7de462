// BM_Matmul: a 1024x1024x1024 f32 matrix product through the host and the
// cpu plugin (stablehlo.dot_general, compiled once, executed and awaited per
// iteration) against Eigen called directly in the same process, with the
// same number of threads, compiled for the ISA level the plugin computes
// with (bench/eigen_gemm_baseline.cc; BERTH_CPU_ISA=v3 compares the AVX2
// kernels on an AVX-512 machine). Counter `flops` is 2*M*N*K per iteration
// as a rate; `threads` is the thread count both sides use; the label names
// the ISA level.
#include <benchmark/benchmark.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "berth/berth.hpp"
#include "isa/isa.hpp"
#include "random_operands.hpp"

// Eigen's GEMM per variant (eigen_gemm_baseline.cc).
#define BERTH_CPU_ISA_VARIANT(name)                                                     \
  extern "C" void berth_bench_eigen_gemm_##name(const float* a, const float* b, float* c, \
                                                int64_t n, int threads);
#include "cpu_isa_variants.h"
#undef BERTH_CPU_ISA_VARIANT

namespace {

using EigenGemm = void (*)(const float*, const float*, float*, int64_t, int);

constexpr int64_t kSize = 1024;
constexpr double kFlops = 2.0 * kSize * kSize * kSize;

// The cpu plugin's thread pool has one thread per hardware thread; Eigen
// gets as many OpenMP threads.
int Threads() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

// Eigen built for the level the plugin selected (same BERTH_CPU_ISA rules).
EigenGemm EigenForSelectedIsa(std::string* level) {
  berth::Result<const berth::cpu::isa::Kernels*> selected = berth::cpu::isa::Selected();
  if (!selected.ok()) return nullptr;
  *level = (*selected)->name;
  const std::string_view name = berth::cpu::isa::ShortName((*selected)->level);
#define BERTH_CPU_ISA_VARIANT(variant) \
  if (name == #variant) return berth_bench_eigen_gemm_##variant;
#include "cpu_isa_variants.h"
#undef BERTH_CPU_ISA_VARIANT
  return nullptr;
}

std::vector<float> RandomMatrix(int seed) {
  return berth::bench::RandomFloats(static_cast<size_t>(kSize * kSize), seed);
}

void BM_MatmulEigen(benchmark::State& state) {
  std::string level;
  EigenGemm gemm = EigenForSelectedIsa(&level);
  if (gemm == nullptr) {
    state.SkipWithError("no Eigen baseline for the selected ISA level");
    return;
  }
  std::vector<float> a = RandomMatrix(1), b = RandomMatrix(2), c(a.size());
  for (auto _ : state) {
    gemm(a.data(), b.data(), c.data(), kSize, Threads());
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  state.counters["flops"] = benchmark::Counter(kFlops, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["threads"] = Threads();
  state.SetLabel(level);
}

void BM_MatmulBerth(benchmark::State& state) {
  berth::bench::RunOnRandomOperands(state, "matmul", berth::bench::MatmulProgram(kSize, kSize, kSize), {kSize, kSize},
                                    {kSize, kSize});
  state.counters["flops"] = benchmark::Counter(kFlops, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["threads"] = Threads();
  std::string level;
  EigenForSelectedIsa(&level);
  state.SetLabel(level);
}

BENCHMARK(BM_MatmulBerth)->Name("BM_Matmul/berth")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MatmulEigen)->Name("BM_Matmul/eigen")->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
