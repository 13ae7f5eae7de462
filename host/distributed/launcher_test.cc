// The local job launcher with real processes: /bin/sh -c scripts and the
// test node program run as the job's nodes (the launcher itself runs them
// without a shell). Output is captured through temporary files.
#include "distributed/launcher.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <future>
#include <regex>
#include <sstream>
#include <thread>

#include "temp_dir.hpp"

namespace berth::distributed {
namespace {

using berth::testing::TempDir;

using std::chrono::milliseconds;
using std::chrono::seconds;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;
using Steady = std::chrono::steady_clock;

struct JobRun {
  Status status;
  LaunchResult result;
  std::string out;
  std::string err;
  double seconds = 0;
};

std::string ReadAll(FILE* file) {
  std::rewind(file);
  std::string text;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof(buffer), file)) > 0;) text.append(buffer, n);
  std::fclose(file);
  return text;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

JobRun Launch(LaunchOptions options) {
  FILE* out = std::tmpfile();
  FILE* err = std::tmpfile();
  options.stdout_fd = ::fileno(out);
  options.stderr_fd = ::fileno(err);
  JobRun run;
  const auto start = Steady::now();
  Result<LaunchResult> result = LaunchJob(options);
  run.seconds = std::chrono::duration<double>(Steady::now() - start).count();
  run.status = result.status();
  if (result.ok()) run.result = std::move(*result);
  run.out = ReadAll(out);
  run.err = ReadAll(err);
  return run;
}

LaunchOptions Shell(int num_nodes, const std::string& script) {
  LaunchOptions options;
  options.num_nodes = num_nodes;
  options.command = {"/bin/sh", "-c", script};
  options.grace_period = seconds(1);
  options.forward_signals = false;
  return options;
}

bool FileExists(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0;
}

pid_t ReadPid(const std::string& path) {
  std::ifstream in(path);
  pid_t pid = 0;
  in >> pid;
  return pid;
}

// Gone, or a zombie nobody has reaped yet (it runs no more code).
bool ProcessGone(pid_t pid) {
  if (::kill(pid, 0) != 0) return errno == ESRCH;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] == 'Z';
}

TEST(LauncherTest, PrefixesEveryLineWithTheNodeAndKeepsStreamsApart) {
  JobRun run = Launch(Shell(2,
                            "echo \"out $BERTH_NODE_ID\"; echo \"err $BERTH_NODE_ID\" >&2; "
                            "printf \"partial $BERTH_NODE_ID\""));
  ASSERT_TRUE(run.status.ok()) << run.status.ToString();
  EXPECT_EQ(run.result.exit_code, 0);
  EXPECT_THAT(Lines(run.out), UnorderedElementsAre("[node 0] out 0", "[node 0] partial 0",
                                                   "[node 1] out 1", "[node 1] partial 1"));
  EXPECT_THAT(Lines(run.err), UnorderedElementsAre("[node 0] err 0", "[node 1] err 1"));
}

TEST(LauncherTest, LinesAreNeverInterleaved) {
  JobRun run = Launch(Shell(3,
                            "i=0; line=$(printf '%0200d' 0); while [ $i -lt 500 ]; do "
                            "echo \"$line\"; i=$((i+1)); done"));
  ASSERT_TRUE(run.status.ok()) << run.status.ToString();
  const std::vector<std::string> lines = Lines(run.out);
  EXPECT_EQ(lines.size(), 1500u);
  const std::regex whole("\\[node [0-2]\\] 0{200}");
  for (const std::string& line : lines) {
    ASSERT_TRUE(std::regex_match(line, whole)) << line.substr(0, 60);
  }
}

TEST(LauncherTest, ExportsTheJobEnvironmentToEveryNode) {
  LaunchOptions options = Shell(3,
                                "echo \"$BERTH_NODE_ID $BERTH_NUM_NODES $BERTH_COORDINATOR "
                                "${#BERTH_COORDINATOR_TOKEN} $BERTH_DEVICES_PER_NODE $EXTRA\"");
  options.devices_per_node = 4;
  options.extra_env = {{"EXTRA", "x"}};
  JobRun run = Launch(options);
  ASSERT_TRUE(run.status.ok()) << run.status.ToString();
  const std::string& address = run.result.coordinator_address;
  EXPECT_THAT(address, HasSubstr("127.0.0.1:"));
  EXPECT_THAT(Lines(run.out), UnorderedElementsAre("[node 0] 0 3 " + address + " 64 4 x",
                                                   "[node 1] 1 3 " + address + " 64 4 x",
                                                   "[node 2] 2 3 " + address + " 64 4 x"));
}

TEST(LauncherTest, ExportsSlicesAsContiguousBlocksOfNodes) {
  LaunchOptions options = Shell(5, "echo \"$BERTH_SLICE_ID/$BERTH_NUM_SLICES\"");
  options.num_slices = 2;
  JobRun run = Launch(options);
  ASSERT_TRUE(run.status.ok()) << run.status.ToString();
  EXPECT_THAT(Lines(run.out), UnorderedElementsAre("[node 0] 0/2", "[node 1] 0/2", "[node 2] 0/2",
                                                   "[node 3] 1/2", "[node 4] 1/2"));
  for (int nodes : {1, 2, 3, 7, 64}) {
    for (int slices = 1; slices <= nodes; ++slices) {
      int previous = 0;
      for (int node = 0; node < nodes; ++node) {
        const int slice = SliceOfNode(node, nodes, slices);
        EXPECT_TRUE(slice == previous || slice == previous + 1) << nodes << " " << slices;
        previous = slice;
      }
      EXPECT_EQ(SliceOfNode(0, nodes, slices), 0);
      EXPECT_EQ(SliceOfNode(nodes - 1, nodes, slices), slices - 1) << nodes << " " << slices;
    }
  }
  options.num_slices = 6;
  EXPECT_THAT(LaunchJob(options).status().message(), HasSubstr("6 slices for 5 nodes"));
}

TEST(LauncherTest, ReturnsZeroWhenEveryNodeSucceeds) {
  JobRun run = Launch(Shell(3, "exit 0"));
  ASSERT_TRUE(run.status.ok());
  EXPECT_EQ(run.result.exit_code, 0);
  EXPECT_EQ(run.result.failure, "");
  ASSERT_EQ(run.result.nodes.size(), 3u);
  for (const NodeExit& node : run.result.nodes) {
    EXPECT_FALSE(node.signaled);
    EXPECT_EQ(node.exit_code, 0);
    EXPECT_FALSE(node.stopped_by_launcher);
  }
  EXPECT_EQ(run.err, "");
}

TEST(LauncherTest, AFailingNodeStopsTheOthersQuicklyAndIsNamed) {
  JobRun run = Launch(Shell(3, "if [ \"$BERTH_NODE_ID\" = 1 ]; then exit 3; fi; sleep 30"));
  ASSERT_TRUE(run.status.ok()) << run.status.ToString();
  EXPECT_LT(run.seconds, 5.0);
  EXPECT_EQ(run.result.exit_code, 3);
  EXPECT_EQ(run.result.failure, "node 1 exited with code 3");
  EXPECT_THAT(run.err,
              HasSubstr("berth launch: node 1 exited with code 3; stopping the other nodes"));
  EXPECT_THAT(run.err, HasSubstr("berth launch: job failed: node 1 exited with code 3; nodes 0, 2 "
                                 "stopped by the launcher"));
  for (int i : {0, 2}) {
    const NodeExit& node = run.result.nodes[static_cast<size_t>(i)];
    EXPECT_TRUE(node.stopped_by_launcher);
    EXPECT_TRUE(node.signaled);
    EXPECT_EQ(node.signal, SIGTERM);
  }
}

TEST(LauncherTest, ANodeKilledByASignalIsNamed) {
  JobRun run = Launch(Shell(2, "if [ \"$BERTH_NODE_ID\" = 0 ]; then kill -KILL $$; fi; sleep 30"));
  ASSERT_TRUE(run.status.ok());
  EXPECT_EQ(run.result.exit_code, 128 + SIGKILL);
  EXPECT_EQ(run.result.failure, "node 0 was killed by SIGKILL");
  EXPECT_LT(run.seconds, 5.0);
}

TEST(LauncherTest, ANodeIgnoringSigtermIsKilledAfterTheGracePeriod) {
  LaunchOptions options = Shell(2,
                                "if [ \"$BERTH_NODE_ID\" = 1 ]; then sleep 0.2; exit 1; fi; "
                                "trap '' TERM; sleep 30");
  options.grace_period = milliseconds(500);
  JobRun run = Launch(options);
  ASSERT_TRUE(run.status.ok());
  EXPECT_LT(run.seconds, 4.0);
  EXPECT_EQ(run.result.failure, "node 1 exited with code 1");
  EXPECT_TRUE(run.result.nodes[0].signaled);
  EXPECT_EQ(run.result.nodes[0].signal, SIGKILL);
  EXPECT_EQ(run.result.nodes[0].Describe(),
            "node 0 was killed by SIGKILL (stopped by the launcher)");
}

TEST(LauncherTest, NoProcessOfAFailedJobIsLeftBehind) {
  TempDir dir;
  const std::string d = dir.path();
  JobRun run = Launch(Shell(3, "sleep 60 & echo $! > " + d +
                                   "/pid.$BERTH_NODE_ID; "
                                   "if [ \"$BERTH_NODE_ID\" = 1 ]; then "
                                   "  while [ ! -f " +
                                   d + "/pid.0 ] || [ ! -f " + d +
                                   "/pid.2 ]; do "
                                   "sleep 0.05; done; exit 1; fi; wait"));
  ASSERT_TRUE(run.status.ok());
  EXPECT_EQ(run.result.failure, "node 1 exited with code 1");
  for (int i = 0; i < 3; ++i) {
    const pid_t pid = ReadPid(d + "/pid." + std::to_string(i));
    ASSERT_GT(pid, 0);
    EXPECT_TRUE(ProcessGone(pid)) << "background process of node " << i << " survived";
  }
}

TEST(LauncherTest, NoProcessOfASuccessfulJobIsLeftBehind) {
  TempDir dir;
  JobRun run =
      Launch(Shell(2, "sleep 60 & echo $! > " + dir.path().string() + "/pid.$BERTH_NODE_ID; exit 0"));
  ASSERT_TRUE(run.status.ok());
  EXPECT_EQ(run.result.exit_code, 0);
  EXPECT_LT(run.seconds, 4.0);
  for (int i = 0; i < 2; ++i) {
    const pid_t pid = ReadPid(dir.path().string() + "/pid." + std::to_string(i));
    ASSERT_GT(pid, 0);
    EXPECT_TRUE(ProcessGone(pid));
  }
}

TEST(LauncherTest, ACommandThatCannotRunIsAnError) {
  LaunchOptions options;
  options.num_nodes = 2;
  options.command = {"/nonexistent/berth-no-such-program", "arg"};
  JobRun run = Launch(options);
  EXPECT_EQ(run.status.code(), StatusCode::kNotFound);
  EXPECT_THAT(run.status.message(), HasSubstr("launch: node 0"));
  EXPECT_THAT(run.status.message(), HasSubstr("cannot run '/nonexistent/berth-no-such-program'"));
}

TEST(LauncherTest, BadOptionsAreRejected) {
  LaunchOptions options;
  options.num_nodes = 0;
  options.command = {"/bin/true"};
  EXPECT_EQ(LaunchJob(options).status().code(), StatusCode::kInvalidArgument);
  options.num_nodes = 1;
  options.command.clear();
  EXPECT_EQ(LaunchJob(options).status().code(), StatusCode::kInvalidArgument);
}

TEST(LauncherTest, SigtermIsForwardedToEveryNode) {
  TempDir dir;
  LaunchOptions options = Shell(2, "touch " + dir.path().string() + "/up.$BERTH_NODE_ID; sleep 30");
  options.forward_signals = true;
  auto running = std::async(std::launch::async, [&] { return Launch(options); });
  const auto start = Steady::now();
  while (!(FileExists(dir.path().string() + "/up.0") && FileExists(dir.path().string() + "/up.1")) &&
         Steady::now() - start < seconds(10)) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  ASSERT_TRUE(FileExists(dir.path().string() + "/up.1"));
  ::kill(::getpid(), SIGTERM);
  ASSERT_EQ(running.wait_for(seconds(10)), std::future_status::ready);
  JobRun run = running.get();
  ASSERT_TRUE(run.status.ok());
  EXPECT_EQ(run.result.exit_code, 128 + SIGTERM);
  EXPECT_EQ(run.result.failure, "interrupted by SIGTERM");
  EXPECT_THAT(run.err, HasSubstr("berth launch: got SIGTERM; passing it to every node"));
  for (const NodeExit& node : run.result.nodes) {
    EXPECT_TRUE(node.signaled);
    EXPECT_EQ(node.signal, SIGTERM);
  }
}

TEST(LauncherTest, NodesCoordinateThroughTheLaunchedService) {
  LaunchOptions options;
  options.num_nodes = 4;
  options.command = {BERTH_TEST_NODE, "barrier"};
  options.forward_signals = false;
  JobRun run = Launch(options);
  ASSERT_TRUE(run.status.ok()) << run.status.ToString();
  EXPECT_EQ(run.result.exit_code, 0) << run.err;
  EXPECT_THAT(Lines(run.out),
              UnorderedElementsAre("[node 0] node 0 sees 4 nodes", "[node 1] node 1 sees 4 nodes",
                                   "[node 2] node 2 sees 4 nodes", "[node 3] node 3 sees 4 nodes"));
}

TEST(LauncherTest, AHungNodeThatReportedAnErrorDoesNotHangTheJob) {
  LaunchOptions options;
  options.num_nodes = 3;
  options.command = {BERTH_TEST_NODE, "report"};
  options.forward_signals = false;
  options.grace_period = seconds(1);
  JobRun run = Launch(options);
  ASSERT_TRUE(run.status.ok()) << run.status.ToString();
  EXPECT_LT(run.seconds, 10.0);
  EXPECT_EQ(run.result.exit_code, 7) << run.err;
  EXPECT_THAT(run.result.failure, ::testing::MatchesRegex("node [02] exited with code 7"));
  EXPECT_THAT(run.err, HasSubstr("node 1 reported an error: INTERNAL: simulated failure"));
  EXPECT_TRUE(run.result.nodes[1].stopped_by_launcher);
}

}  // namespace
}  // namespace berth::distributed
