// CPU plugin benchmarks: elementwise throughput through the host, against a
// memcpy baseline measured in the same run. Both report bytes_per_second
// counting bytes read and written, so their ratio says how close the fused
// elementwise path comes to memory bandwidth.
#include <benchmark/benchmark.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "berth/berth.hpp"
#include "cpu_client_fixture.hpp"

namespace {

constexpr int64_t kElements = int64_t{1} << 24;  // 16M f32 = 64 MiB per tensor
constexpr size_t kTensorBytes = static_cast<size_t>(kElements) * sizeof(float);

std::string FmaProgram() {
  const std::string t = "tensor<" + std::to_string(kElements) + "xf32>";
  return "func.func @main(%x: " + t + ", %y: " + t + ", %z: " + t + ") -> " + t + " {\n" +
         "  %0 = stablehlo.multiply %x, %y : " + t + "\n" +
         "  %1 = stablehlo.add %0, %z : " + t + "\n" +
         "  return %1 : " + t + "\n}\n";
}

// x * y + z on the cpu plugin: three 64 MiB inputs read, one written per run.
void RunBerth(benchmark::State& state) {
  berth::bench::CpuClientFixture cpu("cpu");
  std::optional<berth::Executable> executable = cpu.CompileOrSkip(state, FmaProgram());
  if (!executable) return;
  berth::Client& client = cpu.client();
  std::vector<float> host(static_cast<size_t>(kElements));
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(i % 1000) * 0.5f;
  const int64_t dims[] = {kElements};
  std::vector<berth::Buffer> inputs;
  for (int i = 0; i < 3; ++i) {
    berth::Result<berth::Buffer> buffer =
        client.BufferFromHost(host.data(), berth::ElementType::kF32, dims, client.devices()[0]);
    if (!buffer.ok()) {
      state.SkipWithError(buffer.status().ToString().c_str());
      return;
    }
    inputs.push_back(std::move(buffer).value());
  }
  const berth::Buffer* args[] = {&inputs[0], &inputs[1], &inputs[2]};
  for (auto _ : state) {
    berth::Result<berth::ExecuteResult> result =
        executable->Execute({std::vector<const berth::Buffer*>(args, args + 3)});
    berth::Status done = result.ok() ? result->completion[0].Await() : result.status();
    if (!done.ok()) {
      state.SkipWithError(done.ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(result);
  }
  state.counters["bytes_per_second"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * 4.0 * kTensorBytes, benchmark::Counter::kIsRate);
}

// The baseline: one 64 MiB memcpy between preallocated buffers per run.
void RunMemcpy(benchmark::State& state) {
  std::unique_ptr<char[]> from(new char[kTensorBytes]);
  std::unique_ptr<char[]> to(new char[kTensorBytes]);
  std::memset(from.get(), 1, kTensorBytes);
  std::memset(to.get(), 0, kTensorBytes);
  for (auto _ : state) {
    std::memcpy(to.get(), from.get(), kTensorBytes);
    benchmark::ClobberMemory();
  }
  state.counters["bytes_per_second"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * 2.0 * kTensorBytes, benchmark::Counter::kIsRate);
}

// The variants: `run` is one of the Run functions above.
void BM_Elementwise(benchmark::State& state, void (*run)(benchmark::State&)) { run(state); }
BENCHMARK_CAPTURE(BM_Elementwise, berth, RunBerth)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Elementwise, memcpy, RunMemcpy)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
