// `berth bench collectives`: its parsing, the programs it times (run through
// `berth run` against scalar references computed here), and the command end
// to end on one process of several virtual devices (the multi-process runs
// are in tests/distributed/job_test.cc).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <tuple>

#include "cli/collectives_bench.hpp"
#include "test_util.hpp"

namespace berth {
namespace {

using cli::CollectiveOp;
using ::testing::HasSubstr;
using testing::RunCommand;
using testing::ShellQuote;

constexpr CollectiveOp kOps[] = {CollectiveOp::kAllReduce, CollectiveOp::kAllGather,
                                 CollectiveOp::kReduceScatter, CollectiveOp::kAllToAll};

std::string Berth(const std::string& args) { return std::string(BERTH_EXE) + " " + args; }

TEST(BenchCollectivesTest, SizesTakeBinarySuffixes) {
  Result<std::vector<int64_t>> sizes = cli::ParseByteSizes("1K,1M,16M,64m,4096,2G");
  ASSERT_TRUE(sizes.ok()) << sizes.status().ToString();
  EXPECT_EQ(*sizes,
            (std::vector<int64_t>{1024, 1 << 20, 16 << 20, 64 << 20, 4096, int64_t{2} << 30}));
}

TEST(BenchCollectivesTest, MalformedSizesAreRefusedNamingTheEntry) {
  for (const char* bad : {"", "0", "1X", "K", "-1", "1K,,2", "1.5M", "17G", "1K,"}) {
    Result<std::vector<int64_t>> sizes = cli::ParseByteSizes(bad);
    EXPECT_EQ(sizes.status().code(), StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_THAT(cli::ParseByteSizes("1K,7Q").status().message(), HasSubstr("'7Q'"));
}

TEST(BenchCollectivesTest, OpsAndBusBandwidthFactorsAreNcclTests) {
  for (CollectiveOp op : kOps) {
    Result<CollectiveOp> parsed = cli::ParseCollectiveOp(cli::CollectiveOpName(op));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, op);
  }
  EXPECT_EQ(cli::ParseCollectiveOp("broadcast").status().code(), StatusCode::kInvalidArgument);
  EXPECT_DOUBLE_EQ(cli::BusBandwidthFactor(CollectiveOp::kAllReduce, 4), 1.5);
  EXPECT_DOUBLE_EQ(cli::BusBandwidthFactor(CollectiveOp::kAllGather, 4), 0.75);
  EXPECT_DOUBLE_EQ(cli::BusBandwidthFactor(CollectiveOp::kReduceScatter, 8), 0.875);
  EXPECT_DOUBLE_EQ(cli::BusBandwidthFactor(CollectiveOp::kAllToAll, 2), 0.5);
}

// What device `r` of `n` gets when every device passes `x`.
std::vector<double> Reference(CollectiveOp op, const std::vector<double>& x, int64_t n, int64_t r) {
  const size_t chunk = x.size() / static_cast<size_t>(n);
  std::vector<double> out;
  switch (op) {
    case CollectiveOp::kAllReduce:
      for (double v : x) out.push_back(v * static_cast<double>(n));
      break;
    case CollectiveOp::kAllGather:
      for (int64_t q = 0; q < n; ++q) out.insert(out.end(), x.begin(), x.end());
      break;
    case CollectiveOp::kReduceScatter:
      for (size_t j = 0; j < chunk; ++j) out.push_back(x[r * chunk + j] * static_cast<double>(n));
      break;
    case CollectiveOp::kAllToAll:
      for (int64_t q = 0; q < n; ++q) {
        out.insert(out.end(), x.begin() + r * chunk, x.begin() + (r + 1) * chunk);
      }
      break;
  }
  return out;
}

// The program of each op over 2, 3 and 4 devices, on counts that are no
// multiple of a vector width, run by `berth run` with every device passing
// the same random integers.
TEST(BenchCollectivesTest, ProgramsComputeTheirCollective) {
  testing::TempDir dir;
  std::mt19937 random(17);
  std::uniform_int_distribution<int> value(-9, 9);
  for (CollectiveOp op : kOps) {
    for (int64_t n : {2, 3, 4}) {
      const int64_t count = n * 5;
      const int64_t in = op == CollectiveOp::kAllGather ? count / n : count;
      std::vector<double> x(static_cast<size_t>(in));
      std::string literal = "dense<[";
      for (size_t i = 0; i < x.size(); ++i) {
        x[i] = value(random);
        literal += (i ? ", " : "") + std::to_string(static_cast<int>(x[i])) + ".0";
      }
      literal += "]> : tensor<" + std::to_string(in) + "xf32>";
      const std::string name = std::string(cli::CollectiveOpName(op)) + std::to_string(n);
      std::string program =
          dir.Write(name + ".mlir", cli::CollectiveProgram(op, ElementType::kF32, count, n))
              .string();
      testing::CommandResult result =
          RunCommand(Berth("run " + ShellQuote(program) + " --json --arg " + ShellQuote(literal)));
      ASSERT_EQ(result.exit_code, 0) << name << "\n" << result.out;
      nlohmann::json report = nlohmann::json::parse(result.out);
      ASSERT_EQ(report["devices"].size(), static_cast<size_t>(n)) << name;
      for (int64_t r = 0; r < n; ++r) {
        const nlohmann::json& device = report["devices"][static_cast<size_t>(r)];
        ASSERT_EQ(device["device"], r) << name;
        std::vector<double> got = device["results"][0]["data"].get<std::vector<double>>();
        EXPECT_EQ(got, Reference(op, x, n, r)) << name << " device " << r;
      }
    }
  }
}

// Every op and element type on four devices of one process, at sizes that
// round down (1000 B) and that are not a multiple of the vector widths.
TEST(BenchCollectivesTest, EveryOpAndTypeIsCheckedCorrect) {
  for (CollectiveOp op : kOps) {
    for (const char* dtype : {"f32", "f64", "f16", "bf16", "i32", "i64"}) {
      const std::string what = std::string(cli::CollectiveOpName(op)) + " " + dtype;
      testing::CommandResult result = RunCommand(Berth(
          "bench collectives --devices 4 --iters 2 --warmup 1 --sizes 1000,65560 --json --op " +
          std::string(cli::CollectiveOpName(op)) + " --dtype " + dtype));
      ASSERT_EQ(result.exit_code, 0) << what << "\n" << result.out;
      nlohmann::json report = nlohmann::json::parse(result.out);
      EXPECT_EQ(report["devices"], 4);
      EXPECT_EQ(report["nodes"], 1);
      ASSERT_EQ(report["results"].size(), 2u) << what;
      const int64_t width = ElementTypeByteSize(*ParseElementType(dtype));
      const int64_t requested[] = {1000, 65560};
      for (size_t i = 0; i < 2; ++i) {
        const nlohmann::json& r = report["results"][i];
        EXPECT_EQ(r["op"], cli::CollectiveOpName(op));
        EXPECT_EQ(r["dtype"], dtype);
        EXPECT_EQ(r["algorithm"], "auto");
        EXPECT_EQ(r["size"], requested[i] / (4 * width) * 4 * width) << what;
        EXPECT_TRUE(r["correct"].get<bool>()) << what << " size " << r["size"];
        EXPECT_GT(r["time_us"].get<double>(), 0.0);
        EXPECT_DOUBLE_EQ(r["algbw"].get<double>(),
                         r["size"].get<double>() / (r["time_us"].get<double>() * 1e-6) / 1e9);
        EXPECT_NEAR(r["busbw"].get<double>(),
                    r["algbw"].get<double>() * cli::BusBandwidthFactor(op, 4),
                    1e-12 * r["busbw"].get<double>());
      }
    }
  }
}

TEST(BenchCollectivesTest, TheTablePrintsOneCheckedLinePerSize) {
  testing::CommandResult result =
      RunCommand(Berth("bench collectives --devices 2 --iters 1 --warmup 0 --sizes 4K,8K"));
  ASSERT_EQ(result.exit_code, 0) << result.out;
  EXPECT_THAT(result.out, HasSubstr("# 2 devices on 1 node"));
  EXPECT_THAT(result.out, HasSubstr("busbw (GB/s)"));
  EXPECT_THAT(result.out, ::testing::ContainsRegex("4096  all_reduce +f32 +auto .* yes\n"));
  EXPECT_THAT(result.out, ::testing::ContainsRegex("8192  all_reduce +f32 +auto .* yes\n"));
}

// Usage errors exit 2; each message names what was wrong.
TEST(BenchCollectivesTest, BadArgumentsAreRefusedNamingThem) {
  // {arguments, exit code, message}
  const std::tuple<const char*, int, const char*> cases[] = {
      {"collectives --op broadcast", 2, "unknown collective 'broadcast'"},
      {"collectives --sizes 1K,2Q", 2, "size '2Q'"},
      {"collectives --dtype f7", 2, "unknown --dtype 'f7'"},
      {"collectives --dtype ui8", 2, "--dtype ui8 is not one the check reads back exactly"},
      {"collectives --algorithm ring", 2, "unknown --algorithm 'ring'"},
      {"collectives --devices 4 --sizes 8", 2, "holds less than one f32 per device (4 devices)"},
      {"collectives --iters 0", 2, "at least one timed iteration"},
      {"kernels", 2, "unknown scenario 'kernels'"},
  };
  for (const auto& [args, exit_code, message] : cases) {
    testing::CommandResult result = RunCommand(Berth("bench " + std::string(args) + " 2>&1"));
    EXPECT_EQ(result.exit_code, exit_code) << args << "\n" << result.out;
    EXPECT_THAT(result.out, HasSubstr(message)) << args;
  }
}

}  // namespace
}  // namespace berth
