// The persistent compilation cache (ClientOptions::compilation_cache_dir,
// BERTH_COMPILATION_CACHE_DIR, `berth run --cache-dir`) on the cpu plugin:
// a hit loads what an earlier compile stored and computes the same; any
// key component changed is a miss; a corrupted entry is replaced; the least
// recently used entries go past the limit; processes racing on one folder
// all get right results and leave whole entries.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <thread>

#include "berth/berth.hpp"
#include "test_util.hpp"

namespace berth {
namespace {

using ::testing::HasSubstr;

constexpr char kSquarePlusOne[] = R"(
func.func @main(%x: tensor<6xi32>) -> tensor<6xi32> {
  %0 = stablehlo.multiply %x, %x : tensor<6xi32>
  %one = stablehlo.constant dense<1> : tensor<6xi32>
  %1 = stablehlo.add %0, %one : tensor<6xi32>
  return %1 : tensor<6xi32>
}
)";

std::vector<std::filesystem::path> Entries(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> entries;
  for (const auto& item : std::filesystem::directory_iterator(dir)) entries.push_back(item.path());
  std::sort(entries.begin(), entries.end());
  return entries;
}

class CompilationCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    manifests_.Write("cpu.json", testing::PluginManifest("cpu", BERTH_CPU_PLUGIN));
    // The same library under another name: another plugin to the cache.
    manifests_.Write("cpu_twin.json", testing::PluginManifest("cpu_twin", BERTH_CPU_PLUGIN, {{"platform", "cpu"}}));
    testing::ScopedEnv path("BERTH_PLUGIN_PATH", manifests_.path().string());
    Result<Host> host = Host::Create();
    ASSERT_TRUE(host.ok()) << host.status().ToString();
    host_.emplace(std::move(host).value());
  }

  Client NewClient(ClientOptions options = {}, const std::string& plugin = "cpu") {
    if (options.compilation_cache_dir.empty()) options.compilation_cache_dir = cache_.path();
    Result<Client> client = host_->CreateClient(plugin, options);
    EXPECT_TRUE(client.ok()) << client.status().ToString();
    return std::move(client).value();
  }

  // Compiles `program` and checks that it computes x * x + 1 on random x.
  void ExpectRuns(const Client& client, const std::string& program, const CompileOptions& options = {}) {
    Result<Executable> executable = client.Compile(program, options);
    ASSERT_TRUE(executable.ok()) << executable.status().ToString();
    std::uniform_int_distribution<int32_t> value(-1000, 1000);
    std::vector<int32_t> x(6), got(6);
    for (int32_t& v : x) v = value(random_);
    const std::vector<int64_t> dims = {6};
    Result<Buffer> in = client.BufferFromHost(x.data(), ElementType::kS32, dims, executable->addressable_devices()[0]);
    ASSERT_TRUE(in.ok()) << in.status().ToString();
    Result<ExecuteResult> result = executable->Execute({{&*in}});
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    ASSERT_TRUE(result->completion[0].Await().ok());
    ASSERT_TRUE(result->outputs[0][0].ToHost(got.data(), got.size() * sizeof(int32_t)).ok());
    for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(got[i], x[i] * x[i] + 1) << i;
  }

  testing::TempDir manifests_;
  testing::TempDir cache_;
  std::optional<Host> host_;
  std::mt19937 random_{7};
};

TEST_F(CompilationCacheTest, ASecondCompileOfTheSameProgramIsAHitAndComputesTheSame) {
  Client first = NewClient();
  ExpectRuns(first, kSquarePlusOne);
  EXPECT_EQ(first.compilation_cache_stats().misses, 1);
  EXPECT_EQ(first.compilation_cache_stats().stores, 1);
  ASSERT_EQ(Entries(cache_.path()).size(), 1u);
  // Another client (as another process would) loads the entry.
  Client second = NewClient();
  ExpectRuns(second, kSquarePlusOne);
  EXPECT_EQ(second.compilation_cache_stats().hits, 1);
  EXPECT_EQ(second.compilation_cache_stats().misses, 0);
  EXPECT_EQ(Entries(cache_.path()).size(), 1u);
}

TEST_F(CompilationCacheTest, WithoutAFolderTheCacheIsOff) {
  testing::ScopedEnv unset("BERTH_COMPILATION_CACHE_DIR", std::nullopt);
  Result<Client> client = host_->CreateClient("cpu");
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  ExpectRuns(*client, kSquarePlusOne);
  EXPECT_EQ(client->compilation_cache_stats().misses, 0);
  EXPECT_TRUE(Entries(cache_.path()).empty());
}

TEST_F(CompilationCacheTest, TheEnvironmentNamesTheFolder) {
  testing::ScopedEnv dir("BERTH_COMPILATION_CACHE_DIR", (cache_.path() / "from_env").string());
  Result<Client> client = host_->CreateClient("cpu");
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  ExpectRuns(*client, kSquarePlusOne);
  EXPECT_EQ(Entries(cache_.path() / "from_env").size(), 1u);
}

// Each component of the key, changed alone, is a miss (a new entry).
TEST_F(CompilationCacheTest, ChangingAnyKeyComponentIsAMiss) {
  struct Variant {
    const char* name;
    std::string program = kSquarePlusOne;
    CompileOptions options;
    ClientOptions client;
    std::string plugin = "cpu";
    bool register_handler = false;
    std::string partitioner_identity;
  };
  std::vector<Variant> variants(10);
  variants[0].name = "the program as first compiled";
  variants[1].name = "the program's text";
  variants[1].program = std::string(kSquarePlusOne) + "\n";
  variants[2].name = "an entry name";
  variants[2].options.entry_name = "main";
  variants[3].name = "a compile option";
  variants[3].options.options["source_name"] = std::string("other.mlir");
  variants[4].name = "the client's create options";
  variants[4].client.options["device_count"] = int64_t{2};
  variants[5].name = "the device assignment (the client of the variant before)";
  variants[5].client.options["device_count"] = int64_t{2};
  variants[5].options.device_assignment = {1};
  variants[6].name = "the plugin";
  variants[6].plugin = "cpu_twin";
  variants[7].name = "an FFI handler registered";
  variants[7].register_handler = true;
  variants[8].name = "a custom partitioner registered";
  variants[8].partitioner_identity = "rule v1";
  variants[9].name = "another custom partitioner identity";
  variants[9].partitioner_identity = "rule v2";
  size_t entries = 0;
  for (const Variant& v : variants) {
    SCOPED_TRACE(v.name);
    Client client = NewClient(v.client, v.plugin);
    if (v.register_handler) {
      ASSERT_TRUE(client.RegisterFfiHandler("test.noop", [](FfiCall&) { return OkStatus(); }).ok());
    }
    if (!v.partitioner_identity.empty()) {
      CustomPartitionerRule rule;
      rule.identity = v.partitioner_identity;
      rule.partition = [](const CustomPartitionerSite&) -> Result<CustomPartitioning> {
        return UnimplementedError("not called");
      };
      ASSERT_TRUE(client.RegisterCustomPartitioner("test.rowwise", std::move(rule)).ok());
    }
    ExpectRuns(client, v.program, v.options);
    EXPECT_EQ(client.compilation_cache_stats().misses, 1);
    EXPECT_EQ(client.compilation_cache_stats().hits, 0);
    EXPECT_EQ(Entries(cache_.path()).size(), ++entries);
    // Compiled again in the same set-up: a hit.
    ExpectRuns(client, v.program, v.options);
    EXPECT_EQ(client.compilation_cache_stats().hits, 1);
  }
}

TEST_F(CompilationCacheTest, ACorruptedEntryIsReplacedWithAWarning) {
  ExpectRuns(NewClient(), kSquarePlusOne);
  const std::vector<std::filesystem::path> entries = Entries(cache_.path());
  ASSERT_EQ(entries.size(), 1u);
  for (bool truncate : {false, true}) {
    SCOPED_TRACE(truncate ? "truncated" : "a byte flipped");
    std::string bytes;
    {
      std::ifstream in(entries[0], std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    if (truncate) {
      bytes.resize(bytes.size() / 2);
    } else {
      bytes[bytes.size() - 3] ^= 0x20;
    }
    std::ofstream(entries[0], std::ios::binary | std::ios::trunc) << bytes;
    testing::LogCapture log;
    Client client = NewClient();
    ExpectRuns(client, kSquarePlusOne);
    EXPECT_EQ(client.compilation_cache_stats().discarded, 1);
    EXPECT_EQ(client.compilation_cache_stats().stores, 1);
    EXPECT_TRUE(log.Has(LogLevel::kWarning, "is not usable and is replaced")) << log.All();
    // The replacement loads.
    Client after = NewClient();
    ExpectRuns(after, kSquarePlusOne);
    EXPECT_EQ(after.compilation_cache_stats().hits, 1);
  }
}

// Entries of about 600 bytes under a 1,500-byte limit: the third program
// stored evicts the least recently used, which is the second (the first
// was loaded again in between).
TEST_F(CompilationCacheTest, TheLeastRecentlyUsedEntriesGoPastTheLimit) {
  ClientOptions options;
  options.compilation_cache_max_bytes = 1500;
  Client client = NewClient(options);
  auto program = [](int n) { return std::string(kSquarePlusOne) + std::string(static_cast<size_t>(n), '\n'); };
  ExpectRuns(client, program(0));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ExpectRuns(client, program(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ExpectRuns(client, program(0));  // a hit: now the more recent
  EXPECT_EQ(client.compilation_cache_stats().hits, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ExpectRuns(client, program(2));
  EXPECT_EQ(client.compilation_cache_stats().evictions, 1);
  EXPECT_EQ(Entries(cache_.path()).size(), 2u);
  ExpectRuns(client, program(0));
  ExpectRuns(client, program(2));
  EXPECT_EQ(client.compilation_cache_stats().hits, 3);
  ExpectRuns(client, program(1));  // evicted: compiled again
  EXPECT_EQ(client.compilation_cache_stats().misses, 4);
}

TEST_F(CompilationCacheTest, ABadLimitOrFolderIsRefusedAtClientCreation) {
  ClientOptions negative;
  negative.compilation_cache_dir = cache_.path();
  negative.compilation_cache_max_bytes = -5;
  Result<Client> client = host_->CreateClient("cpu", negative);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(client.status().message(), HasSubstr("-5 bytes"));

  const std::filesystem::path file = cache_.Write("a_file", "not a folder");
  ClientOptions on_a_file;
  on_a_file.compilation_cache_dir = file;
  client = host_->CreateClient("cpu", on_a_file);
  ASSERT_FALSE(client.ok());
  EXPECT_THAT(client.status().message(), HasSubstr(file.string()));

  testing::ScopedEnv limit("BERTH_COMPILATION_CACHE_MAX_BYTES", "12kb");
  ClientOptions from_env;
  from_env.compilation_cache_dir = cache_.path() / "sub";
  client = host_->CreateClient("cpu", from_env);
  ASSERT_FALSE(client.ok());
  EXPECT_THAT(client.status().message(), HasSubstr("BERTH_COMPILATION_CACHE_MAX_BYTES is '12kb'"));
}

// Four `berth run --cache-dir` processes start at once on an empty folder:
// each prints the right result, and the one entry left loads.
TEST_F(CompilationCacheTest, ProcessesRacingOnOneFolderAllSucceedAndLeaveAWholeEntry) {
  testing::TempDir work;
  const std::filesystem::path program = work.Write("p.mlir", kSquarePlusOne);
  const std::string command = "BERTH_PLUGIN_PATH=" + testing::ShellQuote(manifests_.path().string()) + " " +
                              std::string(BERTH_EXE) + " run " + program.string() +
                              " --arg 'dense<[1, -2, 3, -4, 5, 6]> : tensor<6xi32>' --cache-dir " +
                              testing::ShellQuote(cache_.path().string()) + " 2>&1";
  std::vector<std::thread> runs;
  std::vector<testing::CommandResult> results(4);
  for (size_t i = 0; i < results.size(); ++i) {
    runs.emplace_back([&, i] { results[i] = testing::RunCommand(command); });
  }
  for (std::thread& run : runs) run.join();
  for (const testing::CommandResult& result : results) {
    EXPECT_EQ(result.exit_code, 0) << result.out;
    EXPECT_THAT(result.out, HasSubstr("dense<[2, 5, 10, 17, 26, 37]> : tensor<6xi32>"));
  }
  const std::vector<std::filesystem::path> entries = Entries(cache_.path());
  ASSERT_EQ(entries.size(), 1u) << "temporary files left behind?";
  EXPECT_EQ(entries[0].extension(), ".bexe");
  testing::CommandResult again = testing::RunCommand(command);
  EXPECT_EQ(again.exit_code, 0) << again.out;
  EXPECT_THAT(again.out, HasSubstr("dense<[2, 5, 10, 17, 26, 37]> : tensor<6xi32>"));
}

}  // namespace
}  // namespace berth
