// Transfers and collective_reduce on the cpu plugin, in the harness's
// interpreter.run_parallel: send/recv by channel (host and device
// channels, several values in one send, order kept per channel), infeed
// from run_parallel's `infeed` functions, outfeed, the refusals outside
// run_parallel and of mismatched values; collective_reduce against a
// reference computed here from seeded random inputs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "program_runner.hpp"

namespace berth {
namespace {

using testing::CpuRunner;
using ::testing::HasSubstr;
using testing::Literal;

std::vector<int64_t> RandomValues(size_t n, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> out(n);
  for (int64_t& v : out) v = static_cast<int64_t>(rng() >> 1) - (int64_t{1} << 61);
  return out;
}

std::string List(const std::vector<int64_t>& values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return "[" + out + "]";
}

TEST(CpuTransferTest, SendAndRecvKeepTheOrderOfEachChannel) {
  std::vector<int64_t> a = RandomValues(5, 1), b = RandomValues(5, 2);
  Result<std::vector<Literal>> out =
      CpuRunner::Get().Run(R"(
func.func @send(%a: tensor<5xi64>, %b: tensor<5xi64>, %t: !stablehlo.token) -> !stablehlo.token {
  %t1 = "stablehlo.send"(%a, %t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>, is_host_transfer = true} : (tensor<5xi64>, !stablehlo.token) -> !stablehlo.token
  %t2 = "stablehlo.send"(%b, %t1) {channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>} : (tensor<5xi64>, !stablehlo.token) -> !stablehlo.token
  %t3 = "stablehlo.send"(%b, %a, %t2) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>, is_host_transfer = true} : (tensor<5xi64>, tensor<5xi64>, !stablehlo.token) -> !stablehlo.token
  return %t3 : !stablehlo.token
}
func.func @recv(%t: !stablehlo.token) -> (tensor<5xi64>, tensor<5xi64>, tensor<5xi64>, tensor<5xi64>) {
  %x, %t1 = "stablehlo.recv"(%t) {channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>} : (!stablehlo.token) -> (tensor<5xi64>, !stablehlo.token)
  %y, %t2 = "stablehlo.recv"(%t1) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 3>, is_host_transfer = true} : (!stablehlo.token) -> (tensor<5xi64>, !stablehlo.token)
  %z:3 = "stablehlo.recv"(%t2) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 3>, is_host_transfer = true} : (!stablehlo.token) -> (tensor<5xi64>, tensor<5xi64>, !stablehlo.token)
  return %x, %y, %z#0, %z#1 : tensor<5xi64>, tensor<5xi64>, tensor<5xi64>, tensor<5xi64>
}
func.func @main(%a: tensor<5xi64>, %b: tensor<5xi64>) -> (tensor<5xi64>, tensor<5xi64>, tensor<5xi64>, tensor<5xi64>) {
  %t = stablehlo.after_all : !stablehlo.token
  %r:5 = "interpreter.run_parallel"(%a, %b, %t, %t) {programs = [[@send], [@recv]]} : (tensor<5xi64>, tensor<5xi64>, !stablehlo.token, !stablehlo.token) -> (!stablehlo.token, tensor<5xi64>, tensor<5xi64>, tensor<5xi64>, tensor<5xi64>)
  return %r#1, %r#2, %r#3, %r#4 : tensor<5xi64>, tensor<5xi64>, tensor<5xi64>, tensor<5xi64>
}
)",
                           {Literal::Of(a, {5}), Literal::Of(b, {5})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 4u);
  EXPECT_EQ(out->at(0).Values<int64_t>(), b);  // channel 2
  EXPECT_EQ(out->at(1).Values<int64_t>(), a);  // channel 1, first send
  EXPECT_EQ(out->at(2).Values<int64_t>(), b);  // channel 1, second send (two values)
  EXPECT_EQ(out->at(3).Values<int64_t>(), a);
}

TEST(CpuTransferTest, RecvOfAnotherTypeIsRefused) {
  Status status = CpuRunner::Get()
                      .Run(R"(
func.func @send(%t: !stablehlo.token) -> !stablehlo.token {
  %v = stablehlo.constant dense<[1.5, 2.5]> : tensor<2xf32>
  %t1 = "stablehlo.send"(%v, %t) {channel_handle = #stablehlo.channel_handle<handle = 7, type = 1>} : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
  return %t1 : !stablehlo.token
}
func.func @recv(%t: !stablehlo.token) -> tensor<2xi32> {
  %x, %t1 = "stablehlo.recv"(%t) {channel_handle = #stablehlo.channel_handle<handle = 7, type = 1>} : (!stablehlo.token) -> (tensor<2xi32>, !stablehlo.token)
  return %x : tensor<2xi32>
}
func.func @main() -> tensor<2xi32> {
  %t = stablehlo.after_all : !stablehlo.token
  %r:2 = "interpreter.run_parallel"(%t, %t) {programs = [[@send], [@recv]]} : (!stablehlo.token, !stablehlo.token) -> (!stablehlo.token, tensor<2xi32>)
  return %r#1 : tensor<2xi32>
}
)",
                           {})
                      .status();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status.ToString();
  EXPECT_THAT(status.message(), HasSubstr("tensor<2xi32>"));
  EXPECT_THAT(status.message(), HasSubstr("tensor<2xf32>"));
}

TEST(CpuTransferTest, InfeedTakesTheFeedFunctionsValuesInOrder) {
  std::vector<int64_t> first = RandomValues(4, 3), second = RandomValues(4, 4);
  const std::string program = R"(
func.func @feed0() -> tensor<4xi64> {
  %v = stablehlo.constant dense<)" +
                              List(first) + R"(> : tensor<4xi64>
  return %v : tensor<4xi64>
}
func.func @feed1() -> tensor<4xi64> {
  %v = stablehlo.constant dense<)" +
                              List(second) + R"(> : tensor<4xi64>
  return %v : tensor<4xi64>
}
func.func @take(%t: !stablehlo.token, %x: tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>) {
  %a:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<4xi64>, !stablehlo.token)
  %b:2 = "stablehlo.infeed"(%a#1) : (!stablehlo.token) -> (tensor<4xi64>, !stablehlo.token)
  %o = "stablehlo.outfeed"(%x, %b#1) : (tensor<4xi64>, !stablehlo.token) -> !stablehlo.token
  return %a#0, %b#0 : tensor<4xi64>, tensor<4xi64>
}
func.func @main(%x: tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>) {
  %t = stablehlo.after_all : !stablehlo.token
  %r:2 = "interpreter.run_parallel"(%t, %x) {infeed = [@feed0, @feed1], programs = [[@take]]} : (!stablehlo.token, tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>)
  return %r#0, %r#1 : tensor<4xi64>, tensor<4xi64>
}
)";
  Result<std::vector<Literal>> out = CpuRunner::Get().Run(program, {Literal::Of(first, {4})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->at(0).Values<int64_t>(), first);
  EXPECT_EQ(out->at(1).Values<int64_t>(), second);

  // One feed for two infeeds: the second finds the queue empty.
  std::string one_feed = program;
  one_feed.replace(one_feed.find("infeed = [@feed0, @feed1]"), 25, "infeed = [@feed0]");
  Status empty = CpuRunner::Get().Run(one_feed, {Literal::Of(first, {4})}).status();
  EXPECT_EQ(empty.code(), StatusCode::kFailedPrecondition) << empty.ToString();
  EXPECT_THAT(empty.message(), HasSubstr("infeed queue is empty"));
}

TEST(CpuTransferTest, HostTransfersOutsideRunParallelAreUnimplemented) {
  for (
      std::string op : {
          R"(%v:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xi32>, !stablehlo.token))",
          R"(%v = "stablehlo.outfeed"(%x, %t) : (tensor<2xi32>, !stablehlo.token) -> !stablehlo.token)",
          R"(%v = "stablehlo.send"(%x, %t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>, is_host_transfer = true} : (tensor<2xi32>, !stablehlo.token) -> !stablehlo.token)",
      }) {
    Status status = CpuRunner::Get()
                        .Run(R"(
func.func @main(%x: tensor<2xi32>) -> tensor<2xi32> {
  %t = stablehlo.after_all : !stablehlo.token
  )" + op + R"(
  return %x : tensor<2xi32>
}
)",
                             {Literal::Of<int32_t>({1, 2}, {2})})
                        .status();
    EXPECT_EQ(status.code(), StatusCode::kUnimplemented) << op << ": " << status.ToString();
    EXPECT_THAT(status.message(), HasSubstr("no host transfer API")) << op;
  }
}

// collective_reduce over 4 instances in groups [[1, 0], [2, 3]]: the first
// member of each group (1 and 2) gets the group's reduction, the others zeros.
TEST(CpuTransferTest, CollectiveReduceGivesTheRootTheReductionAndOthersZeros) {
  std::vector<std::vector<int64_t>> inputs;
  for (uint32_t i = 0; i < 4; ++i) inputs.push_back(RandomValues(6, 10 + i));
  std::vector<Literal> args;
  for (const auto& v : inputs) args.push_back(Literal::Of(v, {6}));
  Result<std::vector<Literal>> out = CpuRunner::Get().Run(R"(
func.func @reduce(%x: tensor<6xi64>) -> tensor<6xi64> {
  %r = "stablehlo.collective_reduce"(%x) ({
    ^bb0(%a: tensor<i64>, %b: tensor<i64>):
      %s = stablehlo.add %a, %b : tensor<i64>
      stablehlo.return %s : tensor<i64>
  }) {replica_groups = dense<[[1, 0], [2, 3]]> : tensor<2x2xi64>} : (tensor<6xi64>) -> tensor<6xi64>
  return %r : tensor<6xi64>
}
func.func @main(%a: tensor<6xi64>, %b: tensor<6xi64>, %c: tensor<6xi64>, %d: tensor<6xi64>) -> (tensor<6xi64>, tensor<6xi64>, tensor<6xi64>, tensor<6xi64>) {
  %r:4 = "interpreter.run_parallel"(%a, %b, %c, %d) {programs = [[@reduce], [@reduce], [@reduce], [@reduce]]} : (tensor<6xi64>, tensor<6xi64>, tensor<6xi64>, tensor<6xi64>) -> (tensor<6xi64>, tensor<6xi64>, tensor<6xi64>, tensor<6xi64>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<6xi64>, tensor<6xi64>, tensor<6xi64>, tensor<6xi64>
}
)",
                                                          args);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 4u);
  std::vector<int64_t> sum01(6), sum23(6), zeros(6, 0);
  for (size_t k = 0; k < 6; ++k) {
    // Wrapping sums, as i64 add wraps.
    sum01[k] = static_cast<int64_t>(static_cast<uint64_t>(inputs[0][k]) +
                                    static_cast<uint64_t>(inputs[1][k]));
    sum23[k] = static_cast<int64_t>(static_cast<uint64_t>(inputs[2][k]) +
                                    static_cast<uint64_t>(inputs[3][k]));
  }
  EXPECT_EQ(out->at(0).Values<int64_t>(), zeros);
  EXPECT_EQ(out->at(1).Values<int64_t>(), sum01);
  EXPECT_EQ(out->at(2).Values<int64_t>(), sum23);
  EXPECT_EQ(out->at(3).Values<int64_t>(), zeros);
}

}  // namespace
}  // namespace berth
