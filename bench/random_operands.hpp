// Running a program on the cpu plugin once per benchmark iteration, on random
// f32 operands. Shared by the convolution and matrix product benchmarks.
#ifndef BERTH_BENCH_RANDOM_OPERANDS_HPP_
#define BERTH_BENCH_RANDOM_OPERANDS_HPP_

#include <benchmark/benchmark.h>

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "berth/berth.hpp"
#include "cpu_client_fixture.hpp"

namespace berth::bench {

// `n` floats uniform in [-1, 1), from a generator seeded with `seed`.
inline std::vector<float> RandomFloats(size_t n, int seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(random);
  return v;
}

// The product of an `m`x`k` and a `k`x`n` f32 matrix (dot_general).
inline std::string MatmulProgram(int64_t m, int64_t k, int64_t n) {
  auto type = [](int64_t rows, int64_t cols) {
    return "tensor<" + std::to_string(rows) + "x" + std::to_string(cols) + "xf32>";
  };
  return "\nfunc.func @main(%a: " + type(m, k) + ", %b: " + type(k, n) + ") -> " + type(m, n) + " {\n"
         "  %c = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0]\n"
         "      : (" + type(m, k) + ", " + type(k, n) + ") -> " + type(m, n) + "\n"
         "  return %c : " + type(m, n) + "\n}\n";
}

// Compiles `program` on a fresh cpu client (`tag` names its temp folder)
// and executes and awaits it per iteration of `state` on two random f32
// operands (seeds 1 and 2) with dims `a_dims` and `b_dims`; a failed step
// skips the benchmark with its error.
inline void RunOnRandomOperands(benchmark::State& state, std::string_view tag, std::string_view program,
                                const std::vector<int64_t>& a_dims,
                                const std::vector<int64_t>& b_dims) {
  CpuClientFixture cpu(tag);
  std::optional<Executable> executable = cpu.CompileOrSkip(state, program);
  if (!executable) return;
  const Device& device = executable->addressable_devices().front();
  auto count = [](const std::vector<int64_t>& dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return static_cast<size_t>(n);
  };
  std::vector<float> a = RandomFloats(count(a_dims), 1), b = RandomFloats(count(b_dims), 2);
  Result<Buffer> ab = cpu.client().BufferFromHost(a.data(), ElementType::kF32, a_dims, device);
  Result<Buffer> bb = cpu.client().BufferFromHost(b.data(), ElementType::kF32, b_dims, device);
  if (!ab.ok() || !bb.ok()) {
    state.SkipWithError("buffer upload failed");
    return;
  }
  for (auto _ : state) {
    Result<ExecuteResult> result = executable->Execute({{&*ab, &*bb}});
    Status done = result.ok() ? result->completion[0].Await() : result.status();
    if (!done.ok()) {
      state.SkipWithError(done.ToString().c_str());
      break;
    }
  }
}

}  // namespace berth::bench

#endif  // BERTH_BENCH_RANDOM_OPERANDS_HPP_
