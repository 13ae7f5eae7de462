// BM_Matmul: a 1024x1024x1024 f32 matrix product through the host and the
// cpu plugin (stablehlo.dot_general, compiled once, executed and awaited per
// iteration) against Eigen called directly in the same process, with the
// same number of threads. Counter `flops` is 2*M*N*K per iteration as a
// rate; `threads` is the thread count both sides use.
#include <benchmark/benchmark.h>
#include <stdlib.h>
#include <unistd.h>

#include <Eigen/Core>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <thread>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "berth/berth.hpp"
#include "cpu_client_fixture.hpp"

namespace {

constexpr int64_t kSize = 1024;
constexpr double kFlops = 2.0 * kSize * kSize * kSize;

// The thread count of both sides: Eigen inside the plugin uses OpenMP's
// default (omp_get_max_threads(), the hardware threads unless
// OMP_NUM_THREADS says otherwise); the baseline is set to the same.
int Threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

std::vector<float> RandomMatrix(int seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> m(static_cast<size_t>(kSize * kSize));
  for (float& x : m) x = dist(random);
  return m;
}

void BM_MatmulEigen(benchmark::State& state) {
  Eigen::setNbThreads(Threads());
  using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  std::vector<float> a = RandomMatrix(1), b = RandomMatrix(2), c(a.size());
  Eigen::Map<const Matrix> am(a.data(), kSize, kSize), bm(b.data(), kSize, kSize);
  Eigen::Map<Matrix> cm(c.data(), kSize, kSize);
  for (auto _ : state) {
    cm.noalias() = am * bm;
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  state.counters["flops"] = benchmark::Counter(kFlops, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["threads"] = Eigen::nbThreads();
}

constexpr char kMatmul[] = R"(
func.func @main(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %c = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0]
      : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %c : tensor<1024x1024xf32>
}
)";

void BM_MatmulBerth(benchmark::State& state) {
  berth::bench::CpuClientFixture cpu("matmul");
  if (!cpu.error().empty()) {
    state.SkipWithError(cpu.error().c_str());
    return;
  }
  berth::Result<berth::Executable> executable = cpu.client().Compile(kMatmul);
  if (!executable.ok()) {
    state.SkipWithError(executable.status().ToString().c_str());
    return;
  }
  const berth::Device& device = executable->addressable_devices().front();
  std::vector<float> a = RandomMatrix(1), b = RandomMatrix(2);
  std::vector<int64_t> dims = {kSize, kSize};
  berth::Result<berth::Buffer> ab = cpu.client().BufferFromHost(a.data(), berth::ElementType::kF32, dims, device);
  berth::Result<berth::Buffer> bb = cpu.client().BufferFromHost(b.data(), berth::ElementType::kF32, dims, device);
  if (!ab.ok() || !bb.ok()) {
    state.SkipWithError("buffer upload failed");
    return;
  }
  for (auto _ : state) {
    berth::Result<berth::ExecuteResult> result = executable->Execute({{&*ab, &*bb}});
    berth::Status done = result.ok() ? result->completion[0].Await() : result.status();
    if (!done.ok()) {
      state.SkipWithError(done.ToString().c_str());
      break;
    }
  }
  state.counters["flops"] = benchmark::Counter(kFlops, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["threads"] = Threads();
}

BENCHMARK(BM_MatmulBerth)->Name("BM_Matmul/berth")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MatmulEigen)->Name("BM_Matmul/eigen")->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
