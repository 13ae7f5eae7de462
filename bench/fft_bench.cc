// BM_Fft: a 1M-point (2^20) complex<f32> FFT through the host and the cpu
// plugin (stablehlo.fft, type = FFT), against Eigen's FFT module (the same
// kissfft backend the kernel uses) called directly on the same data in the
// same run. Each berth iteration executes and awaits the compiled program;
// each Eigen iteration transforms into a preallocated vector with a warm
// plan, so the ratio shows what the plugin adds (dispatch, the output
// buffer, a fresh plan per execution).
#include <benchmark/benchmark.h>

#include <complex>
#include <optional>
#include <unsupported/Eigen/FFT>
#include <vector>

#include "berth/berth.hpp"
#include "cpu_client_fixture.hpp"
#include "random_operands.hpp"

namespace {

constexpr int64_t kPoints = int64_t{1} << 20;

std::vector<std::complex<float>> RandomSignal() {
  std::vector<float> parts = berth::bench::RandomFloats(2 * kPoints, 3);
  std::vector<std::complex<float>> signal(kPoints);
  for (int64_t i = 0; i < kPoints; ++i) signal[i] = {parts[2 * i], parts[2 * i + 1]};
  return signal;
}

void BM_FftBerth(benchmark::State& state) {
  const std::string type = "tensor<" + std::to_string(kPoints) + "xcomplex<f32>>";
  const std::string program = "func.func @main(%x: " + type + ") -> " + type +
                              " {\n  %0 = stablehlo.fft %x, type = FFT, length = [" +
                              std::to_string(kPoints) + "] : (" + type + ") -> " + type +
                              "\n  return %0 : " + type + "\n}\n";
  berth::bench::CpuClientFixture cpu("fft");
  std::optional<berth::Executable> executable = cpu.CompileOrSkip(state, program);
  if (!executable) return;
  std::vector<std::complex<float>> signal = RandomSignal();
  const std::vector<int64_t> dims = {kPoints};
  berth::Result<berth::Buffer> input = cpu.client().BufferFromHost(
      signal.data(), berth::ElementType::kC64, dims, executable->addressable_devices().front());
  if (!input.ok()) {
    state.SkipWithError(input.status().ToString().c_str());
    return;
  }
  for (auto _ : state) {
    berth::Result<berth::ExecuteResult> result = executable->Execute({{&*input}});
    berth::Status done = result.ok() ? result->completion[0].Await() : result.status();
    if (!done.ok()) {
      state.SkipWithError(done.ToString().c_str());
      break;
    }
  }
}

void BM_FftEigen(benchmark::State& state) {
  std::vector<std::complex<float>> signal = RandomSignal();
  std::vector<std::complex<float>> spectrum(kPoints);
  Eigen::FFT<float> fft;
  for (auto _ : state) {
    fft.fwd(spectrum.data(), signal.data(), kPoints);
    benchmark::DoNotOptimize(spectrum.data());
  }
}

BENCHMARK(BM_FftBerth)->Name("BM_Fft/berth")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_FftEigen)->Name("BM_Fft/eigen")->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
