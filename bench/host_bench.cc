// Host benchmarks: manifest discovery and plugin loading.
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "berth/berth.hpp"

namespace {

// A temp folder holding `count` generated manifests (removed at exit).
class ManifestFolder {
 public:
  explicit ManifestFolder(int count) {
    std::random_device random;
    path_ = std::filesystem::temp_directory_path() / ("berth-bench-" + std::to_string(random()));
    std::filesystem::create_directories(path_);
    for (int i = 0; i < count; ++i) {
      std::string name = "plugin" + std::to_string(i);
      std::ofstream(path_ / (name + ".json"))
          << R"({"file_format_version": "1.0.0", "plugin": {"name": ")" << name
          << R"(", "library_path": "lib/lib)" << name << R"(.so", "api_version": "1.0",)"
          << R"( "platform": "bench", "priority": )" << i
          << R"(, "description": "generated for BM_DiscoverManifests",)"
          << R"( "create_options": {"device_count": 4, "name": "x"}}})";
    }
  }
  ~ManifestFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Discovery and validation of 1000 manifests; no library is opened.
void BM_DiscoverManifests(benchmark::State& state) {
  ManifestFolder folder(static_cast<int>(state.range(0)));
  berth::HostOptions options;
  options.only_manifests = {folder.path()};
  for (auto _ : state) {
    berth::Result<berth::Host> host = berth::Host::Create(options);
    if (!host.ok() || host->Plugins().size() != static_cast<size_t>(state.range(0))) {
      state.SkipWithError("discovery failed");
      break;
    }
    benchmark::DoNotOptimize(host);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_DiscoverManifests)->Arg(1000)->Unit(benchmark::kMillisecond);

// Open, negotiate and initialize the cpu plugin, then create a client. Each
// iteration starts from an unloaded library.
void BM_LoadPlugin(benchmark::State& state) {
  std::filesystem::path folder = std::filesystem::temp_directory_path() /
                                 ("berth-bench-load-" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "cpu.json")
      << R"({"file_format_version": "1.0.0", "plugin": {"name": "cpu", "library_path": ")"
      << BERTH_CPU_PLUGIN << R"(", "api_version": "1.0", "platform": "cpu"}})";
  berth::HostOptions options;
  options.only_manifests = {folder};
  for (auto _ : state) {
    berth::Result<berth::Host> host = berth::Host::Create(options);
    berth::Result<berth::Client> client =
        host.ok() ? host->CreateClient("cpu") : berth::Result<berth::Client>(host.status());
    if (!client.ok()) {
      state.SkipWithError(client.status().ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(client);
  }
  std::filesystem::remove_all(folder);
}
BENCHMARK(BM_LoadPlugin)->Unit(benchmark::kMicrosecond);

}  // namespace
