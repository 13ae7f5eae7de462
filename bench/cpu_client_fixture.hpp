// A host with one cpu client, loaded from the built plugin through a manifest
// written to a temp folder (removed when the object goes away), and a loop
// that runs a program on it per iteration. Shared by the benchmarks that run
// programs on the cpu plugin.
#ifndef BERTH_BENCH_CPU_CLIENT_FIXTURE_HPP_
#define BERTH_BENCH_CPU_CLIENT_FIXTURE_HPP_

#include <benchmark/benchmark.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "berth/berth.hpp"

namespace berth::bench {

class CpuClientFixture {
 public:
  // `options` reach Host::CreateClient (a job's options, for instance).
  explicit CpuClientFixture(std::string_view tag, const ClientOptions& options = {}) {
    folder_ = std::filesystem::temp_directory_path() /
              ("berth-bench-" + std::string(tag) + "-" + std::to_string(::getpid()));
    std::filesystem::create_directories(folder_);
    std::ofstream(folder_ / "cpu.json")
        << R"({"file_format_version": "1.0.0", "plugin": {"name": "cpu", "library_path": ")"
        << BERTH_CPU_PLUGIN << R"(", "api_version": "1.0", "platform": "cpu"}})";
    setenv("BERTH_PLUGIN_PATH", folder_.c_str(), 1);
    Result<Host> host = Host::Create();
    unsetenv("BERTH_PLUGIN_PATH");
    if (!host.ok()) {
      error_ = host.status().ToString();
      return;
    }
    host_.emplace(std::move(host).value());
    Result<Client> client = host_->CreateClient("cpu", options);
    if (!client.ok()) {
      error_ = client.status().ToString();
      return;
    }
    client_.emplace(std::move(client).value());
  }
  ~CpuClientFixture() {
    client_.reset();
    host_.reset();
    std::error_code ec;
    std::filesystem::remove_all(folder_, ec);
  }
  CpuClientFixture(const CpuClientFixture&) = delete;
  CpuClientFixture& operator=(const CpuClientFixture&) = delete;

  // Empty when the client was created.
  const std::string& error() const { return error_; }
  Client& client() { return *client_; }

 private:
  std::filesystem::path folder_;
  std::string error_;
  std::optional<Host> host_;
  std::optional<Client> client_;
};

// `n` floats uniform in [-1, 1), from a generator seeded with `seed`.
inline std::vector<float> RandomFloats(size_t n, int seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(random);
  return v;
}

// Compiles `program` on a fresh cpu client (`tag` names its temp folder)
// and executes and awaits it per iteration of `state` on two random f32
// operands (seeds 1 and 2) with dims `a_dims` and `b_dims`; a failed step
// skips the benchmark with its error.
inline void RunOnRandomOperands(benchmark::State& state, std::string_view tag, const char* program,
                                const std::vector<int64_t>& a_dims,
                                const std::vector<int64_t>& b_dims) {
  CpuClientFixture cpu(tag);
  if (!cpu.error().empty()) {
    state.SkipWithError(cpu.error().c_str());
    return;
  }
  Result<Executable> executable = cpu.client().Compile(program);
  if (!executable.ok()) {
    state.SkipWithError(executable.status().ToString().c_str());
    return;
  }
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

#endif  // BERTH_BENCH_CPU_CLIENT_FIXTURE_HPP_
