// ResolveNodeAddress: the variables first (an address as given, an
// interface's address), else the route to the coordinator; errors name the
// variable and what is there.
#include "distributed/node_address.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "scoped_env.hpp"

namespace berth::distributed {
namespace {

using ::testing::HasSubstr;
using berth::testing::FakeEnv;

TEST(NodeAddressTest, TheAddressVariableWinsAsGiven) {
  Result<std::string> v4 = ResolveNodeAddress(FakeEnv({{kEnvNodeAddress, "10.231.0.2"}, {kEnvNodeInterface, "lo"}}),
                                              "127.0.0.1:1");
  ASSERT_TRUE(v4.ok()) << v4.status().ToString();
  EXPECT_EQ(*v4, "10.231.0.2");
  Result<std::string> v6 = ResolveNodeAddress(FakeEnv({{kEnvNodeAddress, "[fd00::2]"}}), "127.0.0.1:1");
  ASSERT_TRUE(v6.ok()) << v6.status().ToString();
  EXPECT_EQ(*v6, "fd00::2");
}

TEST(NodeAddressTest, AHostNameIsNotAnAddress) {
  Result<std::string> named = ResolveNodeAddress(FakeEnv({{kEnvNodeAddress, "node7.cluster"}}), "127.0.0.1:1");
  ASSERT_FALSE(named.ok());
  EXPECT_EQ(named.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(named.status().message(), HasSubstr("BERTH_NODE_ADDRESS=node7.cluster is not an IP address"));
}

TEST(NodeAddressTest, AnInterfaceGivesItsAddress) {
  Result<std::string> lo = ResolveNodeAddress(FakeEnv({{kEnvNodeInterface, "lo"}}), "127.0.0.1:1");
  ASSERT_TRUE(lo.ok()) << lo.status().ToString();
  EXPECT_EQ(*lo, "127.0.0.1");
  Result<std::string> missing = InterfaceAddress("nosuch0");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("BERTH_NODE_INTERFACE=nosuch0"));
  EXPECT_THAT(missing.status().message(), HasSubstr("lo"));  // the interfaces there are
}

TEST(NodeAddressTest, WithoutVariablesTheRouteToTheCoordinatorDecides) {
  Result<std::string> loopback = ResolveNodeAddress(FakeEnv({}), "127.0.0.1:5000");
  ASSERT_TRUE(loopback.ok()) << loopback.status().ToString();
  EXPECT_EQ(*loopback, "127.0.0.1");
  // Any 127/8 address routes through lo and leaves from that address.
  Result<std::string> other = LocalAddressTowards("127.0.0.7:5000");
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  EXPECT_EQ(other->rfind("127.", 0), 0u) << *other;
  Result<std::string> v6 = LocalAddressTowards("[::1]:5000");
  if (v6.ok()) {
    EXPECT_EQ(*v6, "::1");  // hosts without IPv6 have no route
  }
}

TEST(NodeAddressTest, ACoordinatorThatIsNotHostPortIsRefused) {
  for (const char* bad : {"127.0.0.1", "127.0.0.1:", ":5000", "[]:5000"}) {
    Result<std::string> address = LocalAddressTowards(bad);
    ASSERT_FALSE(address.ok()) << bad;
    EXPECT_EQ(address.status().code(), StatusCode::kInvalidArgument) << address.status().ToString();
  }
}

}  // namespace
}  // namespace berth::distributed
