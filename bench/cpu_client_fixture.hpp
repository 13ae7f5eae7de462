// A host with one cpu client, loaded from the built plugin through a manifest
// written to a temp folder (removed when the object goes away). Shared by the
// benchmarks that run programs on the cpu plugin.
#ifndef BERTH_BENCH_CPU_CLIENT_FIXTURE_HPP_
#define BERTH_BENCH_CPU_CLIENT_FIXTURE_HPP_

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

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

  // `program` compiled on the client; nothing when the client was not
  // created or the compile failed, and `state` (a benchmark::State: a
  // template, so that the all-reduce peer that shares this header needs no
  // Google Benchmark) is then skipped with the error.
  template <typename State>
  std::optional<Executable> CompileOrSkip(State& state, std::string_view program) {
    if (!error_.empty()) {
      state.SkipWithError(error_.c_str());
      return std::nullopt;
    }
    Result<Executable> executable = client_->Compile(program);
    if (!executable.ok()) {
      state.SkipWithError(executable.status().ToString().c_str());
      return std::nullopt;
    }
    return std::move(executable).value();
  }

 private:
  std::filesystem::path folder_;
  std::string error_;
  std::optional<Host> host_;
  std::optional<Client> client_;
};

}  // namespace berth::bench

#endif  // BERTH_BENCH_CPU_CLIENT_FIXTURE_HPP_
