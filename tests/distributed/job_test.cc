// Multi-process jobs end to end: the real `berth` binary as coordinator,
// launcher and nodes, on 127.0.0.1. Every wait is bounded; a test that
// would hang fails at its bound instead.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "berth/job.hpp"
#include "replica_programs.hpp"
#include "test_util.hpp"

extern char** environ;

namespace berth {
namespace {

using testing::ReplicaProgram;
using testing::SumOverReplicas;

using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// Sums the replica ids of 3 replicas: 0 + 1 + 2 = 3 everywhere.
const std::string kAllReduce3 = ReplicaProgram(SumOverReplicas("sum", "id"), "sum");

// Two all-reduces back to back.
const std::string kTwoAllReduces = ReplicaProgram(
    SumOverReplicas("s1", "id") + SumOverReplicas("s2", "s1"), "s2");

// The same two all-reduces with a loop between them that runs for hours:
// the node running it keeps the others waiting in the second all-reduce.
const std::string kStallBetweenAllReduces = ReplicaProgram(
    SumOverReplicas("s1", "id") + R"(    %zero = stablehlo.constant dense<0> : tensor<i64>
    %one = stablehlo.constant dense<1> : tensor<i64>
    %limit = stablehlo.constant dense<1000000000000> : tensor<i64>
    %n = stablehlo.while(%i = %zero) : tensor<i64>
    cond {
      %go = stablehlo.compare LT, %i, %limit : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %go : tensor<i1>
    } do {
      %next = stablehlo.add %i, %one : tensor<i64>
      stablehlo.return %next : tensor<i64>
    }
)" + SumOverReplicas("s2", "s1"),
    "s2");

// A child process with its output in files.
class Process {
 public:
  Process(std::vector<std::string> argv, const std::map<std::string, std::string>& env,
          const std::filesystem::path& out, const std::filesystem::path& err)
      : out_(out), err_(err) {
    std::vector<std::string> env_strings;
    for (char** e = environ; *e != nullptr; ++e) {
      std::string entry(*e);
      if (entry.rfind("BERTH_COORDINATOR", 0) == 0 || entry.rfind("BERTH_NODE_ID", 0) == 0 ||
          entry.rfind("BERTH_NUM_NODES", 0) == 0 || entry.rfind("BERTH_DEVICES_PER_NODE", 0) == 0) {
        continue;
      }
      env_strings.push_back(entry);
    }
    for (const auto& [name, value] : env) env_strings.push_back(name + "=" + value);
    std::vector<char*> c_argv, c_env;
    for (std::string& a : argv) c_argv.push_back(a.data());
    c_argv.push_back(nullptr);
    for (std::string& e : env_strings) c_env.push_back(e.data());
    c_env.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (posix_spawn(&pid_, c_argv[0], &actions, nullptr, c_argv.data(), c_env.data()) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
  }

  ~Process() {
    if (pid_ > 0 && !status_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  bool started() const { return pid_ > 0; }
  void Kill(int signal = SIGKILL) { kill(pid_, signal); }

  // The exit code (128 + signal when killed), or nullopt when still running
  // after `timeout`.
  std::optional<int> Wait(std::chrono::milliseconds timeout) {
    auto deadline = Clock::now() + timeout;
    while (!status_) {
      int status = 0;
      pid_t done = waitpid(pid_, &status, WNOHANG);
      if (done == pid_) {
        status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        break;
      }
      if (Clock::now() >= deadline) return std::nullopt;
      std::this_thread::sleep_for(20ms);
    }
    return status_;
  }

  std::string out() const { return ReadFile(out_); }
  std::string err() const { return ReadFile(err_); }

 private:
  static std::string ReadFile(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  pid_t pid_ = -1;
  std::optional<int> status_;
  std::filesystem::path out_, err_;
};

class JobTest : public ::testing::Test {
 protected:
  std::unique_ptr<Process> Start(std::vector<std::string> argv,
                                 const std::map<std::string, std::string>& env,
                                 const std::string& name) {
    auto process = std::make_unique<Process>(std::move(argv), env, dir_ / (name + ".out"),
                                             dir_ / (name + ".err"));
    EXPECT_TRUE(process->started()) << name;
    return process;
  }

  // `berth coordinator` on a free loopback port; returns its address.
  std::string StartCoordinator(int nodes, const std::string& token_file = "") {
    std::vector<std::string> argv = {BERTH_EXE, "coordinator", "--listen", "127.0.0.1:0",
                                     "--nodes", std::to_string(nodes),
                                     "--heartbeat-timeout", "3"};
    if (!token_file.empty()) {
      argv.push_back("--token-file");
      argv.push_back(token_file);
    }
    coordinator_ = Start(argv, {{"BERTH_COORDINATOR_TOKEN", ""}}, "coordinator");
    const std::string marker = "listening on ";
    auto deadline = Clock::now() + 20s;
    while (Clock::now() < deadline) {
      std::string out = coordinator_->out();
      size_t at = out.find(marker);
      if (at != std::string::npos) {
        size_t end = out.find(' ', at + marker.size());
        if (end != std::string::npos) return out.substr(at + marker.size(), end - at - marker.size());
      }
      if (coordinator_->Wait(50ms)) break;
    }
    ADD_FAILURE() << "the coordinator did not start: " << coordinator_->err();
    return "";
  }

  std::unique_ptr<Process> StartNode(const std::string& address, int node, int nodes,
                                     const std::string& program, const std::string& token = "",
                                     std::map<std::string, std::string> more_env = {}) {
    more_env.insert({{"BERTH_COORDINATOR", address},
                     {"BERTH_NODE_ID", std::to_string(node)},
                     {"BERTH_NUM_NODES", std::to_string(nodes)},
                     {"BERTH_COORDINATOR_TOKEN", token},
                     {"BERTH_LOG", "error"}});
    return Start({BERTH_EXE, "run", program, "--json"}, more_env,
                 "node" + std::to_string(node) + "_" + std::to_string(started_++));
  }

  // Three nodes under a fresh coordinator: nodes 0 and 1 run two
  // all-reduces; node 2 passes the first, then loops for hours, so the
  // others wait for it in the second. Empty when the coordinator failed.
  std::vector<std::unique_ptr<Process>> StartStalledJob() {
    std::vector<std::unique_ptr<Process>> nodes;
    std::string address = StartCoordinator(3);
    if (address.empty()) return nodes;
    std::string two = dir_.Write("two.mlir", kTwoAllReduces).string();
    std::string stall = dir_.Write("stall.mlir", kStallBetweenAllReduces).string();
    for (int node = 0; node < 3; ++node) {
      nodes.push_back(StartNode(address, node, 3, node == 2 ? stall : two));
    }
    return nodes;
  }

  // Waits until `node` exits, at most 8 s (the heartbeat timeout, 3 s, +
  // 5 s) after `killed`; its exit code, or none when it still runs.
  static std::optional<int> WaitAfterKill(Process& node, Clock::time_point killed) {
    auto left = 8s - std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - killed);
    return node.Wait(std::max<std::chrono::milliseconds>(left, 0ms));
  }

  // `berth launch -n NODES [LAUNCH_ARGS] -- berth run PROGRAM --json`, which
  // must succeed within 90 s: each node's JSON report.
  std::map<int, nlohmann::json> Launch(int nodes, const std::string& program_text,
                                       const std::vector<std::string>& launch_args = {},
                                       const std::vector<std::string>& run_args = {}) {
    std::string program = dir_.Write("program" + std::to_string(started_) + ".mlir", program_text).string();
    std::vector<std::string> command = {BERTH_EXE, "run", program};
    command.insert(command.end(), run_args.begin(), run_args.end());
    command.push_back("--json");
    return LaunchCommand(nodes, launch_args, command);
  }

  // `berth launch -n NODES [LAUNCH_ARGS] -- COMMAND...`, each node printing
  // one JSON report (or only the first `reporting` nodes).
  std::map<int, nlohmann::json> LaunchCommand(int nodes,
                                              const std::vector<std::string>& launch_args,
                                              const std::vector<std::string>& command,
                                              int reporting = -1) {
    std::vector<std::string> argv = {BERTH_EXE, "launch", "-n", std::to_string(nodes)};
    argv.insert(argv.end(), launch_args.begin(), launch_args.end());
    argv.push_back("--");
    argv.insert(argv.end(), command.begin(), command.end());
    auto launch = Start(argv, {{"BERTH_LOG", "error"}}, "launch" + std::to_string(started_++));
    std::optional<int> code = launch->Wait(90s);
    if (!code.has_value()) {
      ADD_FAILURE() << "berth launch did not finish within 90 s";
      return {};
    }
    EXPECT_EQ(*code, 0) << launch->out() << launch->err();
    // Each node's JSON report comes out as lines prefixed "[node I] ".
    std::map<int, std::string> texts;
    std::istringstream lines(launch->out());
    for (std::string line; std::getline(lines, line);) {
      int node = -1;
      if (std::sscanf(line.c_str(), "[node %d] ", &node) != 1) continue;
      texts[node] += line.substr(line.find("] ") + 2) + "\n";
    }
    std::map<int, nlohmann::json> reports;
    for (const auto& [node, text] : texts) {
      reports[node] = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
      EXPECT_FALSE(reports[node].is_discarded()) << "node " << node << ": " << text;
    }
    EXPECT_EQ(reports.size(), static_cast<size_t>(reporting < 0 ? nodes : reporting))
        << launch->out();
    return reports;
  }

  testing::TempDir dir_;
  std::unique_ptr<Process> coordinator_;
  int started_ = 0;
};

TEST_F(JobTest, LaunchedAllReducePrintsTheSameSumOnEveryNode) {
  std::map<int, nlohmann::json> reports = Launch(3, kAllReduce3);
  ASSERT_EQ(reports.size(), 3u);
  for (const auto& [node, report] : reports) {
    EXPECT_EQ(report["node"], node);
    EXPECT_EQ(report["num_nodes"], 3);
    EXPECT_EQ(report["results"][0]["data"], nlohmann::json::array({3})) << "node " << node << ": " << report;
  }
}

// Each of 6 replicas all-reduces 1,003 floats of mixed magnitudes drawn
// from its replica id (so that the order of summation shows in the bits).
constexpr char kMixedAllReduce6[] = R"(
module @mixed attributes {mhlo.num_replicas = 6 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main() -> tensor<1003xf32> {
    %id = stablehlo.replica_id : tensor<ui32>
    %r = stablehlo.convert %id : (tensor<ui32>) -> tensor<f32>
    %rb = stablehlo.broadcast_in_dim %r, dims = [] : (tensor<f32>) -> tensor<1003xf32>
    %i = stablehlo.iota dim = 0 : tensor<1003xf32>
    %c = stablehlo.constant dense<0.37> : tensor<1003xf32>
    %t = stablehlo.multiply %rb, %c : tensor<1003xf32>
    %u = stablehlo.add %i, %t : tensor<1003xf32>
    %s = stablehlo.sine %u : tensor<1003xf32>
    %e = stablehlo.exponential %s : tensor<1003xf32>
    %k = stablehlo.constant dense<1000.0> : tensor<1003xf32>
    %big = stablehlo.multiply %s, %k : tensor<1003xf32>
    %x = stablehlo.add %big, %e : tensor<1003xf32>
    %sum = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %v = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %v : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3, 4, 5]]> : tensor<1x6xi64>} : (tensor<1003xf32>) -> tensor<1003xf32>
    return %sum : tensor<1003xf32>
  }
}
)";

// On 3 slices of 2 nodes the all-reduce runs hierarchically (within each
// slice, the shares across, gathered back): every node gets the same bits,
// and the flat ring's sums up to float reassociation.
TEST_F(JobTest, HierarchicalAllReduceIsTheSameOnEveryNodeAndCloseToTheFlatOne) {
  std::map<int, nlohmann::json> sliced = Launch(6, kMixedAllReduce6, {"--slices", "3"});
  std::map<int, nlohmann::json> flat = Launch(6, kMixedAllReduce6);
  ASSERT_EQ(sliced.size(), 6u);
  ASSERT_EQ(flat.size(), 6u);
  const std::vector<double> first = sliced[0]["results"][0]["data"].get<std::vector<double>>();
  const std::vector<double> ring = flat[0]["results"][0]["data"].get<std::vector<double>>();
  ASSERT_EQ(first.size(), 1003u);
  ASSERT_EQ(ring.size(), 1003u);
  for (int node = 1; node < 6; ++node) {
    EXPECT_EQ(sliced[node]["results"][0]["data"].get<std::vector<double>>(), first) << node;
    EXPECT_EQ(flat[node]["results"][0]["data"].get<std::vector<double>>(), ring) << node;
  }
  size_t reordered = 0;
  for (size_t i = 0; i < first.size(); ++i) {
    EXPECT_NEAR(first[i], ring[i], 1e-5 * (std::abs(ring[i]) + 6000.0)) << i;
    reordered += first[i] != ring[i];
  }
  // The two orders of summation are deterministic and differ (388 of the
  // 1,003 sums here): all equal would mean the sliced job ran the flat ring.
  EXPECT_GT(reordered, 0u);
}

TEST_F(JobTest, DevicesPerNodeReachTheClientAsItsDeviceCount) {
  // 2 nodes x 2 devices = 4 replicas; each replica's all-reduce sums the
  // replica ids 0 + 1 + 2 + 3 = 6, on both devices of both nodes.
  const std::string program = ReplicaProgram(SumOverReplicas("sum", "id", 4), "sum", 4);
  std::map<int, nlohmann::json> reports = Launch(2, program, {"--devices-per-node", "2"});
  ASSERT_EQ(reports.size(), 2u);
  for (const auto& [node, report] : reports) {
    ASSERT_EQ(report["devices"].size(), 2u) << "node " << node << ": " << report;
    for (const nlohmann::json& device : report["devices"]) {
      EXPECT_EQ(device["results"][0]["data"], nlohmann::json::array({6})) << "node " << node << ": " << report;
    }
  }
}

// A sharded module on 2 nodes x 2 devices: each device is given its rows
// of the global argument, and every node prints the same global result,
// checked against a scalar loop.
// `values` (rows x cols, row-major) as an i32 MLIR literal for `--arg`.
std::string IntMatrix(const std::vector<int>& values, int rows, int cols) {
  return testing::DenseMatrixText(rows, cols, "i32", [&](int64_t r, int64_t c) {
    return values[static_cast<size_t>(r * cols + c)];
  });
}

// `berth bench collectives` under `berth launch`: node 0 reports each size,
// checked on every node of the job (3 nodes x 1 device; 2 nodes x 2 devices).
TEST_F(JobTest, BenchCollectivesMeasuresAndChecksAcrossNodes) {
  const std::vector<std::string> bench = {BERTH_EXE, "bench", "collectives", "--json",
                                          "--iters", "3",     "--warmup",    "1"};
  struct Case {
    int nodes;
    std::vector<std::string> launch_args, args;
    int64_t devices, size;
  };
  const Case cases[] = {
      {3, {}, {"--op", "all_reduce", "--sizes", "3010"}, 3, 3000},
      {2,
       {"--devices-per-node", "2"},
       {"--op", "reduce_scatter", "--dtype", "bf16", "--sizes", "64K"},
       4,
       65536},
      {2,
       {"--devices-per-node", "2"},
       {"--op", "all_to_all", "--dtype", "i64", "--sizes", "1000"},
       4,
       992},
      // Hierarchical over 2 slices, pipelined in pieces (4 MiB and more).
      {4,
       {"--slices", "2"},
       {"--op", "all_reduce", "--algorithm", "hierarchical", "--sizes", "8390004"},
       4,
       8390000},
  };
  for (const Case& c : cases) {
    std::vector<std::string> command = bench;
    command.insert(command.end(), c.args.begin(), c.args.end());
    std::map<int, nlohmann::json> reports = LaunchCommand(c.nodes, c.launch_args, command, 1);
    ASSERT_EQ(reports.count(0), 1u) << c.args[1];
    const nlohmann::json& report = reports[0];
    EXPECT_EQ(report["nodes"], c.nodes);
    EXPECT_EQ(report["devices"], c.devices);
    ASSERT_EQ(report["results"].size(), 1u) << report.dump();
    EXPECT_EQ(report["results"][0]["op"], c.args[1]);
    EXPECT_EQ(report["results"][0]["size"], c.size);
    EXPECT_TRUE(report["results"][0]["correct"].get<bool>()) << report.dump();
  }
}

TEST_F(JobTest, ShardedModulePrintsTheGlobalResultOnEveryNode) {
  const std::string program = R"(module @sharded attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @main(%a0: tensor<8x3xi32> {mhlo.sharding = "{devices=[4,1]<=[4]}"},
                         %a1: tensor<3x2xi32> {mhlo.sharding = "{devices=[1,2,2]<=[4] last_tile_dim_replicate}"})
      -> (tensor<8x2xi32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) {
    %0 = stablehlo.dot_general %a0, %a1, contracting_dims = [1] x [0] : (tensor<8x3xi32>, tensor<3x2xi32>) -> tensor<8x2xi32>
    %1 = stablehlo.add %0, %0 : tensor<8x2xi32>
    return %1 : tensor<8x2xi32>
  }
})";
  std::vector<int> a(24), b(6);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<int>(i * 7 % 11) - 5;
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<int>(i * 5 % 7) - 3;
  nlohmann::json expected = nlohmann::json::array();
  for (int r = 0; r < 8; ++r) {
    for (int c = 0; c < 2; ++c) {
      int sum = 0;
      for (int k = 0; k < 3; ++k) sum += a[static_cast<size_t>(r * 3 + k)] * b[static_cast<size_t>(k * 2 + c)];
      expected.push_back(2 * sum);
    }
  }
  std::map<int, nlohmann::json> reports =
      Launch(2, program, {"--devices-per-node", "2"}, {"--arg", IntMatrix(a, 8, 3), "--arg", IntMatrix(b, 3, 2)});
  ASSERT_EQ(reports.size(), 2u);
  for (const auto& [node, report] : reports) {
    ASSERT_EQ(report["results"].size(), 1u) << "node " << node << ": " << report;
    EXPECT_EQ(report["results"][0]["shape"], nlohmann::json::array({8, 2})) << "node " << node << ": " << report;
    EXPECT_EQ(report["results"][0]["data"], expected) << "node " << node << ": " << report;
    EXPECT_FALSE(report.contains("devices")) << "node " << node << ": " << report;
  }
}

// The partitioner's moves between layouts across two processes (2 nodes x
// 2 devices): rows to columns (an all_to_all whose groups span both
// nodes), rows to the reversed device order (a collective_permute), and a
// split contracting dimension whose result is wanted by rows (a
// reduce_scatter). Every node prints the global results of scalar loops.
TEST_F(JobTest, ReshardingCollectivesCrossNodes) {
  const std::string program = R"(module @moves attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @main(%a: tensor<8x4xi32> {mhlo.sharding = "{devices=[4,1]<=[4]}"},
                         %b: tensor<4x4xi32> {mhlo.sharding = "{devices=[4,1]<=[4]}"})
      -> (tensor<8x4xi32> {mhlo.sharding = "{devices=[1,4]<=[4]}"},
          tensor<8x4xi32> {mhlo.sharding = "{devices=[4,1]3,2,1,0}"},
          tensor<8x4xi32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) {
    %0 = stablehlo.negate %a : tensor<8x4xi32>
    %1 = stablehlo.add %a, %a : tensor<8x4xi32>
    %c = stablehlo.custom_call @Sharding(%a) {mhlo.sharding = "{devices=[1,4]<=[4]}"} : (tensor<8x4xi32>) -> tensor<8x4xi32>
    %2 = stablehlo.dot_general %c, %b, contracting_dims = [1] x [0] : (tensor<8x4xi32>, tensor<4x4xi32>) -> tensor<8x4xi32>
    return %0, %1, %2 : tensor<8x4xi32>, tensor<8x4xi32>, tensor<8x4xi32>
  }
})";
  std::vector<int> a(32), b(16);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<int>(i * 7 % 13) - 6;
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<int>(i * 5 % 9) - 4;
  nlohmann::json negated = nlohmann::json::array(), doubled = nlohmann::json::array(),
                 product = nlohmann::json::array();
  for (int r = 0; r < 8; ++r) {
    for (int c = 0; c < 4; ++c) {
      negated.push_back(-a[static_cast<size_t>(r * 4 + c)]);
      doubled.push_back(2 * a[static_cast<size_t>(r * 4 + c)]);
      int sum = 0;
      for (int k = 0; k < 4; ++k) sum += a[static_cast<size_t>(r * 4 + k)] * b[static_cast<size_t>(k * 4 + c)];
      product.push_back(sum);
    }
  }
  std::map<int, nlohmann::json> reports =
      Launch(2, program, {"--devices-per-node", "2"}, {"--arg", IntMatrix(a, 8, 4), "--arg", IntMatrix(b, 4, 4)});
  ASSERT_EQ(reports.size(), 2u);
  for (const auto& [node, report] : reports) {
    ASSERT_EQ(report["results"].size(), 3u) << "node " << node << ": " << report;
    EXPECT_EQ(report["results"][0]["data"], negated) << "node " << node << ": " << report;
    EXPECT_EQ(report["results"][1]["data"], doubled) << "node " << node << ": " << report;
    EXPECT_EQ(report["results"][2]["data"], product) << "node " << node << ": " << report;
  }
}

// The same kind of module on berth::ShardedArray (sharded_array_node.cc):
// each node holds the shards of its own two devices only, each of them right,
// a row-split output cannot be gathered on one node (FAILED_PRECONDITION
// naming another process), and the replicated output can, on both.
TEST_F(JobTest, ShardedArraysHoldOnlyTheNodesShards) {
  std::map<int, nlohmann::json> reports = LaunchCommand(2, {"--devices-per-node", "2"}, {BERTH_SHARDED_ARRAY_NODE});
  ASSERT_EQ(reports.size(), 2u);
  for (const auto& [node, report] : reports) {
    EXPECT_EQ(report["node"], node) << report;
    // x rows (2 of 4), w replicated (2 of 4), the rows output (2 of 4), the sums (2 of 4).
    EXPECT_EQ(report["held"], nlohmann::json::array({2, 2, 2, 2})) << "node " << node << ": " << report;
    EXPECT_EQ(report["shards_match"], true) << "node " << node << ": " << report;
    EXPECT_EQ(report["gather"], "FAILED_PRECONDITION") << "node " << node << ": " << report;
    EXPECT_EQ(report["sums_ok"], true) << "node " << node << ": " << report;
    EXPECT_EQ(report["slices"], 1) << "node " << node << ": " << report;
    EXPECT_EQ(report["device_slices"], nlohmann::json::array({0, 0, 0, 0})) << report;
  }
}

// `berth info` under a launcher joins the job: every node lists every
// node's devices, each with its slice.
TEST_F(JobTest, InfoInAJobShowsEveryDeviceAndItsSlice) {
  std::map<int, nlohmann::json> reports =
      LaunchCommand(3, {"--slices", "2"}, {BERTH_EXE, "info", "cpu", "--json"});
  ASSERT_EQ(reports.size(), 3u);
  for (const auto& [node, report] : reports) {
    EXPECT_EQ(report["slices"], 2) << "node " << node << ": " << report;
    ASSERT_EQ(report["devices"].size(), 3u) << report;
    for (int device = 0; device < 3; ++device) {
      const nlohmann::json& d = report["devices"][static_cast<size_t>(device)];
      EXPECT_EQ(d["process_index"], device);
      EXPECT_EQ(d["slice"], device * 2 / 3) << "node " << node << ", device " << device;
      EXPECT_EQ(d["addressable"], device == node);
    }
  }
}

// Every node's client reports the job's slices, each device in its node's.
TEST_F(JobTest, EveryNodeSeesTheSlicesOfEveryDevice) {
  std::map<int, nlohmann::json> reports =
      LaunchCommand(2, {"--devices-per-node", "2", "--slices", "2"}, {BERTH_SHARDED_ARRAY_NODE});
  ASSERT_EQ(reports.size(), 2u);
  for (const auto& [node, report] : reports) {
    EXPECT_EQ(report["slices"], 2) << "node " << node << ": " << report;
    EXPECT_EQ(report["device_slices"], nlohmann::json::array({0, 0, 1, 1})) << report;
    EXPECT_EQ(report["sums_ok"], true) << "node " << node << ": " << report;
  }
}

// The collectives extension across processes (collectives_node.cc): every
// operation on every type the cpu plugin lists, checked on every node
// against the reference, with 2 processes of 2 devices, 3 of 1 and 4 of 1,
// after a program's all-reduce in the same job (the two share no Gloo group).
TEST_F(JobTest, CommunicatorOperationsAreRightOnEveryNode) {
  struct Case {
    int nodes;
    int devices_per_node;
  };
  for (const Case& c : {Case{2, 2}, Case{3, 1}, Case{4, 1}}) {
    std::map<int, nlohmann::json> reports =
        LaunchCommand(c.nodes, {"--devices-per-node", std::to_string(c.devices_per_node)},
                      {BERTH_COLLECTIVES_NODE, "every"});
    ASSERT_EQ(reports.size(), static_cast<size_t>(c.nodes));
    for (const auto& [node, report] : reports) {
      EXPECT_EQ(report["ranks"], c.nodes * c.devices_per_node) << report;
      // 13 types x 13 outputs per rank.
      EXPECT_EQ(report["checked"], 13 * 13 * c.devices_per_node)
          << "node " << node << ": " << report;
      EXPECT_EQ(report["failures"], nlohmann::json::array())
          << "node " << node << " of " << c.nodes;
      EXPECT_EQ(report["program_sum_ok"], true) << "node " << node << ": " << report;
    }
  }
}

// A node whose ranks never call an all-reduce: the others fail after the
// communicator's 1.5 s timeout, naming its ranks and its address.
// Nodes 0 and 1 report that ranks 4 and 5 (node 2's) did not arrive.
void ExpectRanksFourAndFiveMissing(std::map<int, nlohmann::json>& reports) {
  for (int node : {0, 1}) {
    const nlohmann::json& report = reports[node];
    EXPECT_EQ(report["code"], "DEADLINE_EXCEEDED") << report;
    const std::string message = report["message"];
    EXPECT_THAT(message, HasSubstr("timed out after 1500 ms: ranks 4, 5 did not arrive"))
        << message;
    EXPECT_THAT(message, HasSubstr("rank 4 (device 4 on node 2 (")) << message;
    EXPECT_LT(report["seconds"].get<double>(), 10.0) << report;
  }
}

// Cold: the wait is in connecting the Gloo context; warm (after one
// all-reduce): in Gloo's transport.
TEST_F(JobTest, CommunicatorNamesTheRanksOfANodeThatNeverArrives) {
  for (const char* warmth : {"cold", "warm"}) {
    SCOPED_TRACE(warmth);
    std::map<int, nlohmann::json> reports =
        LaunchCommand(3, {"--devices-per-node", "2"}, {BERTH_COLLECTIVES_NODE, "missing", warmth});
    ASSERT_EQ(reports.size(), 3u);
    ExpectRanksFourAndFiveMissing(reports);
  }
}

// Node 0 aborts while the others wait in an all-gather it never calls (with
// a 60 s timeout): they fail with its reason within a second or two.
TEST_F(JobTest, CommunicatorAbortReachesEveryNode) {
  for (const char* warmth : {"cold", "warm"}) {
    SCOPED_TRACE(warmth);
    std::map<int, nlohmann::json> reports =
        LaunchCommand(3, {}, {BERTH_COLLECTIVES_NODE, "abort", warmth});
    ASSERT_EQ(reports.size(), 3u);
    for (int node : {1, 2}) {
      const nlohmann::json& report = reports[node];
      EXPECT_EQ(report["code"], "ABORTED") << report;
      EXPECT_THAT(report["message"].get<std::string>(), HasSubstr("node 0 stops the job"))
          << report;
      EXPECT_LT(report["seconds"].get<double>(), 5.0) << report;
    }
  }
}

TEST_F(JobTest, NodeWithoutInstanceOfAOneReplicaProgramHasNothingToRun) {
  // Replica 0 runs on global device 0, node 0's; node 1 holds no instance.
  const std::string program = R"(func.func @main() -> tensor<3xi32> {
    %i = stablehlo.iota dim = 0 : tensor<3xi32>
    %c = stablehlo.constant dense<[10, 20, 30]> : tensor<3xi32>
    %s = stablehlo.add %i, %c : tensor<3xi32>
    return %s : tensor<3xi32>
  })";
  std::map<int, nlohmann::json> reports = Launch(2, program);
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0]["results"][0]["data"], nlohmann::json::array({10, 21, 32})) << reports[0];
  EXPECT_EQ(reports[1]["results"], nlohmann::json::array()) << reports[1];
  EXPECT_EQ(reports[1]["nothing_to_run"], true) << reports[1];
}

TEST_F(JobTest, TwoReplicaProgramOnThreeNodesRunsOnTheFirstTwo) {
  // An all-reduce over replicas 0 and 1 (nodes 0 and 1); node 2 has none.
  const std::string program = R"(module @two attributes {mhlo.num_replicas = 2 : i32} {
  func.func @main() -> tensor<ui32> {
    %id = stablehlo.replica_id : tensor<ui32>
    %seven = stablehlo.constant dense<7> : tensor<ui32>
    %x = stablehlo.add %id, %seven : tensor<ui32>
    %sum = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<ui32>, %b: tensor<ui32>):
        %s = stablehlo.add %a, %b : tensor<ui32>
        stablehlo.return %s : tensor<ui32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<ui32>) -> tensor<ui32>
    return %sum : tensor<ui32>
  }
})";
  std::map<int, nlohmann::json> reports = Launch(3, program);
  ASSERT_EQ(reports.size(), 3u);
  for (int node : {0, 1}) {
    EXPECT_EQ(reports[node]["results"][0]["data"], nlohmann::json::array({15})) << reports[node];
  }
  EXPECT_EQ(reports[2]["nothing_to_run"], true) << reports[2];
}

// A node that fails fails the job: `berth launch` says so once, naming the
// node, and exits non-zero.
TEST_F(JobTest, FailedLaunchSaysJobFailedOnceNamingTheNode) {
  std::string program = dir_.Write("missing-arg.mlir", kAllReduce3).string();
  auto launch = Start({BERTH_EXE, "launch", "-n", "2", "--", BERTH_EXE, "run", program,
                       "--arg", "not a literal"},
                      {{"BERTH_LOG", "error"}}, "failing-launch");
  std::optional<int> code = launch->Wait(90s);
  ASSERT_TRUE(code.has_value()) << "berth launch did not finish within 90 s";
  EXPECT_NE(*code, 0);
  const std::string err = launch->err();
  size_t first = err.find("job failed");
  ASSERT_NE(first, std::string::npos) << err;
  EXPECT_EQ(err.find("job failed", first + 1), std::string::npos) << err;
  EXPECT_THAT(err, HasSubstr("berth launch: job failed: node"));
}

TEST_F(JobTest, KilledNodeFailsTheOthersNamingIt) {
  std::vector<std::unique_ptr<Process>> nodes = StartStalledJob();
  ASSERT_EQ(nodes.size(), 3u);
  // Node 2 passes the first all-reduce, then loops; nodes 0 and 1 wait for
  // it in the second. Kill it there (were it earlier, they would wait in
  // the first all-reduce or the rendezvous, which must fail alike).
  std::this_thread::sleep_for(4s);
  ASSERT_FALSE(nodes[0]->Wait(0ms).has_value()) << nodes[0]->err();
  nodes[2]->Kill(SIGKILL);
  const auto killed = Clock::now();
  for (Process* node : {nodes[0].get(), nodes[1].get()}) {
    std::optional<int> code = WaitAfterKill(*node, killed);
    ASSERT_TRUE(code.has_value()) << "a node still runs 8 s after node 2 was killed";
    EXPECT_NE(*code, 0);
    // The service's verdict, not just the broken connection.
    EXPECT_THAT(node->err(), HasSubstr("job failed: UNAVAILABLE: node 2 "));
    EXPECT_THAT(node->err(), HasSubstr("declared dead"));
  }
}

TEST_F(JobTest, KilledCoordinatorFailsEveryNode) {
  std::vector<std::unique_ptr<Process>> nodes = StartStalledJob();
  ASSERT_EQ(nodes.size(), 3u);
  std::this_thread::sleep_for(4s);
  coordinator_->Kill(SIGKILL);
  const auto killed = Clock::now();
  for (const std::unique_ptr<Process>& node : nodes) {
    std::optional<int> code = WaitAfterKill(*node, killed);
    ASSERT_TRUE(code.has_value()) << "a node still runs 8 s after the coordinator was killed";
    EXPECT_NE(*code, 0);
    EXPECT_THAT(node->err(), HasSubstr("coordination service"));
  }
}

TEST_F(JobTest, WrongTokenIsRefused) {
  std::string token_file = dir_.Write("token", "right-secret\n").string();
  std::filesystem::permissions(token_file, std::filesystem::perms::owner_read |
                                               std::filesystem::perms::owner_write);
  std::string address = StartCoordinator(2, token_file);
  ASSERT_FALSE(address.empty());
  std::string program = dir_.Write("two.mlir", kTwoAllReduces).string();
  auto node = StartNode(address, 0, 2, program, "wrong-secret");
  std::optional<int> code = node->Wait(5s);
  ASSERT_TRUE(code.has_value()) << "a wrong token was not refused within 5 s";
  EXPECT_EQ(*code, 1);
  EXPECT_THAT(node->err(), HasSubstr("UNAUTHENTICATED"));
}

TEST_F(JobTest, DuplicateNodeIdIsRefused) {
  std::string address = StartCoordinator(2);
  ASSERT_FALSE(address.empty());
  std::string program = dir_.Write("sum.mlir", kAllReduce3).string();
  // The first node 0 waits for node 1's devices, which never come.
  auto first = StartNode(address, 0, 2, program);
  std::this_thread::sleep_for(2s);
  auto second = StartNode(address, 0, 2, program);
  std::optional<int> code = second->Wait(10s);
  ASSERT_TRUE(code.has_value()) << "a duplicate node 0 was not refused within 10 s";
  EXPECT_EQ(*code, 1);
  EXPECT_THAT(second->err(), HasSubstr("already registered"));
  EXPECT_FALSE(first->Wait(0ms).has_value()) << "the first node 0 should still run: " << first->err();
}

// Nodes that disagree on the number of slices are refused when their
// clients meet, each naming the other's count and its own.
TEST_F(JobTest, NodesCountingOtherSlicesAreRefusedNamingBoth) {
  std::string address = StartCoordinator(2);
  ASSERT_FALSE(address.empty());
  std::string program = dir_.Write("sum.mlir", kAllReduce3).string();
  auto zero =
      StartNode(address, 0, 2, program, "", {{"BERTH_NUM_SLICES", "2"}, {"BERTH_SLICE_ID", "0"}});
  auto one =
      StartNode(address, 1, 2, program, "", {{"BERTH_NUM_SLICES", "1"}, {"BERTH_SLICE_ID", "0"}});
  for (auto* node : {zero.get(), one.get()}) {
    std::optional<int> code = node->Wait(30s);
    ASSERT_TRUE(code.has_value()) << "a node of another slice count was not refused in 30 s";
    EXPECT_NE(*code, 0);
  }
  const std::string errors = zero->err() + one->err();
  EXPECT_THAT(errors, HasSubstr("is in a job of 1 slices, node 0 in one of 2")) << errors;
}

// A one-node job hosting its own coordination service on a free port.
Result<std::unique_ptr<Job>> JoinAlone(std::optional<int> devices_per_node) {
  JobConfig config;
  config.coordinator_address = "127.0.0.1:0";
  config.host_service = true;
  config.devices_per_node = devices_per_node;
  return Job::Join(config);
}

TEST(JobClientOptionsTest, DevicesPerNodeBecomeTheDeviceCountOption) {
  Result<std::unique_ptr<Job>> job = JoinAlone(3);
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  EXPECT_EQ((*job)->devices_per_node(), 3);
  ClientOptions options = (*job)->ClientOptionsFor("cpu");
  EXPECT_EQ(options.options["device_count"], NamedValueData(int64_t{3}));
  EXPECT_EQ(options.options["node_id"], NamedValueData(int64_t{0}));
  EXPECT_EQ(options.options["num_nodes"], NamedValueData(int64_t{1}));
  EXPECT_TRUE((*job)->Shutdown().ok());
}

TEST(JobClientOptionsTest, WithoutDevicesPerNodeNoDeviceCountIsPassed) {
  Result<std::unique_ptr<Job>> job = JoinAlone(std::nullopt);
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  EXPECT_EQ((*job)->devices_per_node(), std::nullopt);
  EXPECT_EQ((*job)->ClientOptionsFor("cpu").options.count("device_count"), 0u);
  EXPECT_TRUE((*job)->Shutdown().ok());
}

TEST(JobClientOptionsTest, ZeroDevicesPerNodeIsInvalidArgument) {
  Result<std::unique_ptr<Job>> job = JoinAlone(0);
  ASSERT_FALSE(job.ok());
  EXPECT_EQ(job.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(job.status().message(), HasSubstr("devices_per_node"));
}

}  // namespace
}  // namespace berth
