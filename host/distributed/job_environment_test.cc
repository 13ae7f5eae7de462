#include "distributed/job_environment.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>

#include "scoped_env.hpp"
#include "temp_dir.hpp"

namespace berth::distributed {
namespace {

using ::testing::HasSubstr;
using berth::testing::FakeEnv;
using ::testing::Not;


// A file in a fresh temporary folder, removed at the end of the test.
class TempFile {
 public:
  explicit TempFile(const std::string& content, mode_t mode = 0600)
      : path_(dir_.Write("token", content).string()) {
    ::chmod(path_.c_str(), mode);
  }
  const std::string& path() const { return path_; }

 private:
  berth::testing::TempDir dir_;
  std::string path_;
};

TEST(JobEnvironmentTest, NothingSetMeansSingleProcess) {
  auto job = DetectJobEnvironment(FakeEnv({}));
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  EXPECT_FALSE(job->has_value());
}

TEST(JobEnvironmentTest, ReadsBerthLaunchVariables) {
  auto job = DetectJobEnvironment(FakeEnv({{"BERTH_NODE_ID", "2"},
                                           {"BERTH_NUM_NODES", "4"},
                                           {"BERTH_COORDINATOR", "10.0.0.1:1234"},
                                           {"BERTH_COORDINATOR_TOKEN", "s3cret"},
                                           {"BERTH_DEVICES_PER_NODE", "8"}}));
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  ASSERT_TRUE(job->has_value());
  const JobEnvironment& env = **job;
  EXPECT_EQ(env.node_id, 2);
  EXPECT_EQ(env.num_nodes, 4);
  EXPECT_EQ(env.coordinator_address, "10.0.0.1:1234");
  EXPECT_EQ(env.token, "s3cret");
  EXPECT_EQ(env.devices_per_node, 8);
  EXPECT_EQ(env.source, "berth");
}

TEST(JobEnvironmentTest, ReadsSlicesAndRefusesHalfOrImpossibleOnes) {
  const std::map<std::string, std::string> job = {
      {"BERTH_NODE_ID", "3"}, {"BERTH_NUM_NODES", "4"}, {"BERTH_COORDINATOR", "10.0.0.1:1234"}};
  auto with = [&](std::map<std::string, std::string> slices) {
    slices.insert(job.begin(), job.end());
    return DetectJobEnvironment(FakeEnv(slices));
  };
  auto none = with({});
  ASSERT_TRUE(none.ok() && none->has_value());
  EXPECT_EQ((*none)->num_slices, 1);
  EXPECT_EQ((*none)->slice_id, 0);
  auto two = with({{"BERTH_NUM_SLICES", "2"}, {"BERTH_SLICE_ID", "1"}});
  ASSERT_TRUE(two.ok() && two->has_value()) << two.status().ToString();
  EXPECT_EQ((*two)->num_slices, 2);
  EXPECT_EQ((*two)->slice_id, 1);
  const std::pair<std::map<std::string, std::string>, const char*> refused[] = {
      {{{"BERTH_NUM_SLICES", "2"}}, "BERTH_NUM_SLICES is set but BERTH_SLICE_ID is not"},
      {{{"BERTH_SLICE_ID", "0"}}, "BERTH_SLICE_ID is set but BERTH_NUM_SLICES is not"},
      {{{"BERTH_NUM_SLICES", "2"}, {"BERTH_SLICE_ID", "2"}}, "BERTH_SLICE_ID=2 is not below"},
      {{{"BERTH_NUM_SLICES", "5"}, {"BERTH_SLICE_ID", "0"}}, "more than the 4 nodes"},
      {{{"BERTH_NUM_SLICES", "0"}, {"BERTH_SLICE_ID", "0"}}, "BERTH_NUM_SLICES='0'"},
      {{{"BERTH_NUM_SLICES", "2"}, {"BERTH_SLICE_ID", "-1"}}, "BERTH_SLICE_ID='-1'"},
  };
  for (const auto& [vars, message] : refused) {
    auto result = with(vars);
    EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument) << message;
    EXPECT_THAT(result.status().message(), HasSubstr(message));
  }
}

// Under srun across hosts, each host is a slice unless BERTH_NUM_SLICES says
// otherwise; SLURM's host variables alone mean nothing to other launchers.
TEST(JobEnvironmentTest, SlurmJobAcrossHostsHasASlicePerHost) {
  const std::map<std::string, std::string> slurm = {{"SLURM_PROCID", "5"},
                                                    {"SLURM_NTASKS", "8"},
                                                    {"SLURM_NNODES", "4"},
                                                    {"SLURM_NODEID", "2"},
                                                    {"BERTH_COORDINATOR", "h:1"}};
  auto job = DetectJobEnvironment(FakeEnv(slurm));
  ASSERT_TRUE(job.ok() && job->has_value()) << job.status().ToString();
  EXPECT_EQ((*job)->num_slices, 4);
  EXPECT_EQ((*job)->slice_id, 2);
  std::map<std::string, std::string> one_slice = slurm;
  one_slice["BERTH_NUM_SLICES"] = "1";
  one_slice["BERTH_SLICE_ID"] = "0";
  auto overridden = DetectJobEnvironment(FakeEnv(one_slice));
  ASSERT_TRUE(overridden.ok() && overridden->has_value());
  EXPECT_EQ((*overridden)->num_slices, 1);
  std::map<std::string, std::string> wrong = slurm;
  wrong["SLURM_NODEID"] = "4";
  auto refused = DetectJobEnvironment(FakeEnv(wrong));
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(),
              HasSubstr("SLURM_NODEID=4 and SLURM_NNODES=4 do not fit"));
  auto berth = DetectJobEnvironment(FakeEnv({{"BERTH_NODE_ID", "1"},
                                             {"BERTH_NUM_NODES", "2"},
                                             {"BERTH_COORDINATOR", "h:1"},
                                             {"SLURM_NNODES", "2"},
                                             {"SLURM_NODEID", "1"}}));
  ASSERT_TRUE(berth.ok() && berth->has_value());
  EXPECT_EQ((*berth)->num_slices, 1);
}

TEST(JobEnvironmentTest, ReadsOpenMpiPmiAndSlurmVariables) {
  struct Case {
    const char* rank;
    const char* size;
    const char* source;
  };
  for (const Case& c :
       {Case{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "openmpi"},
        Case{"PMI_RANK", "PMI_SIZE", "pmi"}, Case{"SLURM_PROCID", "SLURM_NTASKS", "slurm"}}) {
    auto job =
        DetectJobEnvironment(FakeEnv({{c.rank, "1"}, {c.size, "3"}, {"BERTH_COORDINATOR", "host:99"}}));
    ASSERT_TRUE(job.ok()) << job.status().ToString();
    ASSERT_TRUE(job->has_value()) << c.source;
    EXPECT_EQ((*job)->node_id, 1);
    EXPECT_EQ((*job)->num_nodes, 3);
    EXPECT_EQ((*job)->source, c.source);
    EXPECT_EQ((*job)->token, "");
  }
}

TEST(JobEnvironmentTest, BerthVariablesTakePrecedenceOverTheLauncher) {
  auto job = DetectJobEnvironment(FakeEnv({{"BERTH_NODE_ID", "0"},
                                           {"BERTH_NUM_NODES", "2"},
                                           {"SLURM_PROCID", "5"},
                                           {"SLURM_NTASKS", "8"},
                                           {"BERTH_COORDINATOR", "h:1"}}));
  ASSERT_TRUE(job.ok() && job->has_value());
  EXPECT_EQ((*job)->num_nodes, 2);
  EXPECT_EQ((*job)->source, "berth");
}

TEST(JobEnvironmentTest, ALauncherWithoutCoordinatorIsAClearError) {
  auto job = DetectJobEnvironment(FakeEnv({{"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "4"}}));
  ASSERT_FALSE(job.ok());
  EXPECT_EQ(job.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(job.status().message(), HasSubstr("4-node job"));
  EXPECT_THAT(job.status().message(), HasSubstr("SLURM_PROCID=1"));
  EXPECT_THAT(job.status().message(), HasSubstr("BERTH_COORDINATOR is not set"));
}

TEST(JobEnvironmentTest, AOneNodeJobWithoutCoordinatorRunsSingleProcess) {
  auto job = DetectJobEnvironment(FakeEnv({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}}));
  ASSERT_TRUE(job.ok());
  EXPECT_FALSE(job->has_value());
}

TEST(JobEnvironmentTest, RankWithoutSizeIsAnError) {
  auto job = DetectJobEnvironment(FakeEnv({{"BERTH_NODE_ID", "1"}, {"BERTH_COORDINATOR", "h:1"}}));
  ASSERT_FALSE(job.ok());
  EXPECT_EQ(job.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(job.status().message(), HasSubstr("BERTH_NODE_ID is set but BERTH_NUM_NODES is not"));
}

TEST(JobEnvironmentTest, MalformedAndOutOfRangeNumbersAreErrors) {
  auto bad = DetectJobEnvironment(
      FakeEnv({{"BERTH_NODE_ID", "one"}, {"BERTH_NUM_NODES", "2"}, {"BERTH_COORDINATOR", "h:1"}}));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("BERTH_NODE_ID='one' is not an integer"));
  auto range = DetectJobEnvironment(
      FakeEnv({{"PMI_RANK", "2"}, {"PMI_SIZE", "2"}, {"BERTH_COORDINATOR", "h:1"}}));
  ASSERT_FALSE(range.ok());
  EXPECT_THAT(range.status().message(), HasSubstr("PMI_RANK=2 is out of range for PMI_SIZE=2"));
  auto zero = DetectJobEnvironment(
      FakeEnv({{"BERTH_NODE_ID", "0"}, {"BERTH_NUM_NODES", "0"}, {"BERTH_COORDINATOR", "h:1"}}));
  EXPECT_FALSE(zero.ok());
}

TEST(JobEnvironmentTest, ACoordinatorWithoutNodeIdIsAnError) {
  auto job = DetectJobEnvironment(FakeEnv({{"BERTH_COORDINATOR", "h:1"}}));
  ASSERT_FALSE(job.ok());
  EXPECT_THAT(job.status().message(), HasSubstr("set BERTH_NODE_ID and BERTH_NUM_NODES"));
}

TEST(JobEnvironmentTest, TokenComesFromAFileTrimmed) {
  TempFile file("  from-file\n");
  auto job = DetectJobEnvironment(FakeEnv({{"BERTH_NODE_ID", "0"},
                                           {"BERTH_NUM_NODES", "2"},
                                           {"BERTH_COORDINATOR", "h:1"},
                                           {"BERTH_COORDINATOR_TOKEN_FILE", file.path()}}));
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  EXPECT_EQ((*job)->token, "from-file");
}

TEST(JobEnvironmentTest, TheTokenVariableWinsOverTheFile) {
  TempFile file("from-file");
  auto token = TokenFromEnvironment(
      FakeEnv({{"BERTH_COORDINATOR_TOKEN", "direct"}, {"BERTH_COORDINATOR_TOKEN_FILE", file.path()}}));
  ASSERT_TRUE(token.ok());
  EXPECT_EQ(*token, "direct");
}

TEST(JobEnvironmentTest, AMissingTokenFileIsNamedButNotItsContent) {
  auto token = TokenFromEnvironment(FakeEnv({{"BERTH_COORDINATOR_TOKEN_FILE", "/nonexistent/tok"}}));
  ASSERT_FALSE(token.ok());
  EXPECT_EQ(token.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(token.status().message(), HasSubstr("'/nonexistent/tok'"));
  EXPECT_THAT(token.status().message(), HasSubstr("BERTH_COORDINATOR_TOKEN_FILE"));
}

TEST(JobEnvironmentTest, AnEmptyTokenFileIsAnError) {
  TempFile file(" \n");
  auto token = ReadTokenFile(file.path());
  ASSERT_FALSE(token.ok());
  EXPECT_EQ(token.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(token.status().message(), HasSubstr("is empty"));
}

}  // namespace
}  // namespace berth::distributed
