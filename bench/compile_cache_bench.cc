// BM_CompileCache: compiling a generated 5,000-op module on the cpu plugin
// (cold: no cache) against loading it from the persistent compilation cache
// (warm: each Compile is a hit), in the same run.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "berth/berth.hpp"
#include "common/sha256.hpp"
#include "cpu_client_fixture.hpp"

namespace berth::bench {
namespace {

// A chain of `ops` elementwise ops on tensor<64xf32>, each on the value
// before it and one further back.
std::string ElementwiseChain(int ops) {
  static const char* const kOps[] = {"add", "multiply", "subtract", "maximum"};
  std::string text = "func.func @main(%v0: tensor<64xf32>, %v1: tensor<64xf32>) -> tensor<64xf32> {\n";
  for (int i = 2; i < ops + 2; ++i) {
    text += "  %v" + std::to_string(i) + " = stablehlo." + kOps[i % 4] + " %v" + std::to_string(i - 1) + ", %v" +
            std::to_string(i - 2) + " : tensor<64xf32>\n";
  }
  text += "  return %v" + std::to_string(ops + 1) + " : tensor<64xf32>\n}\n";
  return text;
}

void BM_CompileCache(benchmark::State& state, bool warm) {
  const std::filesystem::path cache_dir =
      std::filesystem::temp_directory_path() / ("berth-bench-cache-" + std::to_string(::getpid()));
  ClientOptions options;
  if (warm) options.compilation_cache_dir = cache_dir;
  CpuClientFixture fixture(warm ? "cache-warm" : "cache-cold", options);
  if (!fixture.error().empty()) {
    state.SkipWithError(fixture.error().c_str());
    return;
  }
  const std::string program = ElementwiseChain(5000);
  if (warm) {
    Result<Executable> stored = fixture.client().Compile(program);  // fills the cache
    if (!stored.ok()) {
      state.SkipWithError(stored.status().ToString().c_str());
      return;
    }
  }
  for (auto _ : state) {
    Result<Executable> executable = fixture.client().Compile(program);
    if (!executable.ok()) {
      state.SkipWithError(executable.status().ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(executable);
  }
  if (warm) {
    const CompilationCacheStats stats = fixture.client().compilation_cache_stats();
    state.counters["hits"] = static_cast<double>(stats.hits);
  }
  std::error_code ignored;
  std::filesystem::remove_all(cache_dir, ignored);
}
BENCHMARK_CAPTURE(BM_CompileCache, cold, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CompileCache, warm, true)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace berth::bench

namespace berth::bench {
namespace {

// SHA-256 over 1 MiB, the portable compression against the accelerated one
// (x86 SHA-NI) in the same run: what hashing a cache key or a container's
// payload costs.
void BM_Sha256(benchmark::State& state, bool accelerated) {
  if (accelerated && !common::Sha256::HasAcceleration()) {
    state.SkipWithError("this CPU has no SHA extensions");
    return;
  }
  std::string data(1 << 20, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 131 + 7);
  const auto* blocks = reinterpret_cast<const uint8_t*>(data.data());
  common::Sha256::State digest{};
  for (auto _ : state) {
    if (accelerated) {
      common::Sha256::CompressAccelerated(digest, blocks, data.size() / 64);
    } else {
      common::Sha256::CompressPortable(digest, blocks, data.size() / 64);
    }
    benchmark::DoNotOptimize(digest);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(data.size()));
}
BENCHMARK_CAPTURE(BM_Sha256, portable, false)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Sha256, accelerated, true)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace berth::bench
