// Cross-process collectives that break report it once: a Gloo context that
// cannot connect (here: the key-value store is gone) fails every later
// operation with the same error, and the failure hook - which the cpu client
// turns into the callback extension's PluginFatal event - runs exactly once.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "cpu/distributed/gloo_collectives.hpp"

namespace berth::cpu {
namespace {

using ::testing::HasSubstr;

BERTH_Error_Code Unavailable(BERTH_KeyValue_Get_Args*) { return BERTH_Error_Code_UNAVAILABLE; }
BERTH_Error_Code UnavailablePut(BERTH_KeyValue_Put_Args*) { return BERTH_Error_Code_UNAVAILABLE; }

TEST(GlooFailureTest, BrokenContextReportsOnceAndStaysFailed) {
  BERTH_KeyValueStore c_store{};
  c_store.struct_size = BERTH_KeyValueStore_STRUCT_SIZE;
  c_store.get = Unavailable;
  c_store.put = UnavailablePut;
  plugin::KeyValueStore store(&c_store);
  std::vector<Status> reported;
  GlooCollectives gloo(store, 0, {"127.0.0.1", "10.231.0.2"}, std::chrono::milliseconds(200),
                       [&](const Status& status) { reported.push_back(status); });
  const std::vector<int> nodes{0, 1};
  int32_t mine = 7;
  std::vector<int32_t> all(2);
  Status first = gloo.AllGather("g", nodes, &mine, {4, 4}, all.data());
  ASSERT_FALSE(first.ok());
  // Peers are named with their addresses.
  EXPECT_THAT(first.message(), HasSubstr("connecting across nodes 0 (127.0.0.1), 1 (10.231.0.2)"));
  Status second = gloo.AllGather("g", nodes, &mine, {4, 4}, all.data());
  EXPECT_EQ(second.message(), first.message());
  ASSERT_EQ(reported.size(), 1u);
  EXPECT_EQ(reported[0].message(), first.message());

  // Another group breaks on its own and is reported on its own.
  EXPECT_FALSE(gloo.AllGather("h", nodes, &mine, {4, 4}, all.data()).ok());
  EXPECT_EQ(reported.size(), 2u);
}

}  // namespace
}  // namespace berth::cpu
