// CPU plugin benchmarks: elementwise throughput through the host, against a
// memcpy baseline measured in the same run, and a whole-tensor sum against
// a plain loop. Both report bytes_per_second
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

// The sum of all elements of one 64 MiB f32 tensor: one result.
std::string SumProgram() {
  const std::string t = "tensor<" + std::to_string(kElements) + "xf32>";
  return "func.func @main(%x: " + t + ") -> tensor<f32> {\n" +
         "  %zero = stablehlo.constant dense<0.0> : tensor<f32>\n" +
         "  %0 = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0] : "
         "(" +
         t + ", tensor<f32>) -> tensor<f32>\n" + "  return %0 : tensor<f32>\n}\n";
}

// `program` on the cpu plugin with `num_inputs` 64 MiB inputs; reports
// `bytes_per_run` bytes moved per run.
void RunProgram(benchmark::State& state, const std::string& program, int num_inputs,
                double bytes_per_run) {
  berth::bench::CpuClientFixture cpu("cpu");
  std::optional<berth::Executable> executable = cpu.CompileOrSkip(state, program);
  if (!executable) return;
  berth::Client& client = cpu.client();
  std::vector<float> host(static_cast<size_t>(kElements));
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(i % 1000) * 0.5f;
  const int64_t dims[] = {kElements};
  std::vector<berth::Buffer> inputs;
  for (int i = 0; i < num_inputs; ++i) {
    berth::Result<berth::Buffer> buffer =
        client.BufferFromHost(host.data(), berth::ElementType::kF32, dims, client.devices()[0]);
    if (!buffer.ok()) {
      state.SkipWithError(buffer.status().ToString().c_str());
      return;
    }
    inputs.push_back(std::move(buffer).value());
  }
  std::vector<const berth::Buffer*> args;
  for (const berth::Buffer& input : inputs) args.push_back(&input);
  for (auto _ : state) {
    berth::Result<berth::ExecuteResult> result = executable->Execute({args});
    berth::Status done = result.ok() ? result->completion[0].Await() : result.status();
    if (!done.ok()) {
      state.SkipWithError(done.ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(result);
  }
  state.counters["bytes_per_second"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * bytes_per_run, benchmark::Counter::kIsRate);
}

// x * y + z on the cpu plugin: three 64 MiB inputs read, one written per run.
void RunBerth(benchmark::State& state) { RunProgram(state, FmaProgram(), 3, 4.0 * kTensorBytes); }

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

// The sum of 16M f32 on the cpu plugin (one result: its row's blocks are
// shared out over the threads), against a plain loop of eight partial sums
// on one thread (the order the cpu plugin kept before blocks, 2026-12-07).
void RunBerthSum(benchmark::State& state) { RunProgram(state, SumProgram(), 1, kTensorBytes); }

void RunLoopSum(benchmark::State& state) {
  std::vector<float> x(static_cast<size_t>(kElements));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 1000) * 0.5f;
  for (auto _ : state) {
    float lanes[8] = {};
    for (size_t i = 0; i + 8 <= x.size(); i += 8) {
      for (int j = 0; j < 8; ++j) lanes[j] += x[i + j];
    }
    float sum = 0;
    for (float lane : lanes) sum += lane;
    benchmark::DoNotOptimize(sum);
  }
  state.counters["bytes_per_second"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * kTensorBytes, benchmark::Counter::kIsRate);
}

// The variants: `run` is one of the Run functions above.
void BM_Elementwise(benchmark::State& state, void (*run)(benchmark::State&)) { run(state); }
BENCHMARK_CAPTURE(BM_Elementwise, berth, RunBerth)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Elementwise, memcpy, RunMemcpy)->Unit(benchmark::kMillisecond)->UseRealTime();
void BM_ReduceSum(benchmark::State& state, void (*run)(benchmark::State&)) { run(state); }
BENCHMARK_CAPTURE(BM_ReduceSum, berth, RunBerthSum)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_ReduceSum, loop, RunLoopSum)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
