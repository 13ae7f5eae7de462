// BM_Dispatch: what the host and the C ABI add to one execution. Both sides
// compile the same one-element add on the cpu plugin and, per iteration,
// execute it and await its completion:
//   BM_Dispatch/host    through berth::Client (host wrappers, the C ABI, the
//                       plugin's ABI edge), the plugin loaded from its library;
//   BM_Dispatch/direct  the plugin's executor called directly (its C++ client
//                       linked into the benchmark, no host, no C ABI).
// The difference of the two times is the host's cost per execution.
#include <benchmark/benchmark.h>

#include <memory>
#include <optional>
#include <vector>

#include "berth/plugin/executable.hpp"
#include "berth/plugin/key_value.hpp"
#include "cpu_client.hpp"
#include "cpu_client_fixture.hpp"

namespace {

constexpr char kAdd[] = R"(
func.func @main(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %c = stablehlo.add %a, %b : tensor<f32>
  return %c : tensor<f32>
}
)";

void RunHost(benchmark::State& state) {
  berth::bench::CpuClientFixture cpu("dispatch");
  std::optional<berth::Executable> executable = cpu.CompileOrSkip(state, kAdd);
  if (!executable) return;
  berth::Client& client = cpu.client();
  const float one = 1.0f;
  berth::Result<berth::Buffer> a =
      client.BufferFromHost(&one, berth::ElementType::kF32, {}, client.devices()[0]);
  berth::Result<berth::Buffer> b =
      client.BufferFromHost(&one, berth::ElementType::kF32, {}, client.devices()[0]);
  if (!a.ok() || !b.ok()) {
    state.SkipWithError("buffer upload failed");
    return;
  }
  const std::vector<std::vector<const berth::Buffer*>> args = {{&*a, &*b}};
  for (auto _ : state) {
    berth::Result<berth::ExecuteResult> result = executable->Execute(args);
    berth::Status done = result.ok() ? result->completion[0].Await() : result.status();
    if (!done.ok()) {
      state.SkipWithError(done.ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(result);
  }
}

void RunDirect(benchmark::State& state) {
  namespace plugin = berth::plugin;
  const plugin::KeyValueStore no_job(nullptr);
  berth::Result<std::unique_ptr<berth::cpu::CpuClient>> client =
      berth::cpu::CpuClient::Create({}, no_job);
  if (!client.ok()) {
    state.SkipWithError(client.status().ToString().c_str());
    return;
  }
  berth::Result<std::unique_ptr<plugin::LoadedExecutable>> executable =
      (*client)->Compile(plugin::Program{"stablehlo", kAdd}, plugin::CompileOptions{});
  if (!executable.ok()) {
    state.SkipWithError(executable.status().ToString().c_str());
    return;
  }
  plugin::Device* device = (*executable)->addressable_devices().front();
  const float one = 1.0f;
  std::vector<std::unique_ptr<plugin::Buffer>> inputs;
  for (int i = 0; i < 2; ++i) {
    plugin::HostBufferArgs upload;
    upload.data = &one;
    upload.type = berth::ElementType::kF32;
    upload.device = device;
    berth::Result<plugin::HostBufferResult> buffer = (*client)->BufferFromHostBuffer(upload);
    if (!buffer.ok()) {
      state.SkipWithError(buffer.status().ToString().c_str());
      return;
    }
    inputs.push_back(std::move(buffer->buffer));
  }
  const std::vector<std::vector<plugin::Buffer*>> args = {{inputs[0].get(), inputs[1].get()}};
  for (auto _ : state) {
    berth::Result<plugin::ExecuteResult> result =
        (*executable)->Execute(args, plugin::ExecuteOptions{}, nullptr);
    berth::Status done = result.ok() ? result->completion[0].Await() : result.status();
    if (!done.ok()) {
      state.SkipWithError(done.ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(result);
  }
}

// The variants: `run` is one of the Run functions above.
void BM_Dispatch(benchmark::State& state, void (*run)(benchmark::State&)) { run(state); }
BENCHMARK_CAPTURE(BM_Dispatch, host, RunHost)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Dispatch, direct, RunDirect)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace
