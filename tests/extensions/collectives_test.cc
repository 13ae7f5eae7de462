// The collectives extension in one process (the cpu plugin's devices as the
// ranks): every operation on every listed type against a reference, a rank
// that never arrives, abort, ranks calling different operations, arguments
// refused, and a plugin without the extension. Across processes:
// distributed_job_test with collectives_node.
#include <chrono>
#include <thread>

#include "collective_checks.hpp"
#include "extension_test_util.hpp"

namespace berth::testing {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

class CollectivesTest : public ExtensionTest {
 protected:
  Client ClientWith(int64_t devices) {
    Result<Client> client = host().CreateClient("cpu", {{{"device_count", devices}}});
    EXPECT_TRUE(client.ok()) << client.status().ToString();
    return std::move(client).value();
  }

  static std::vector<int64_t> Ids(const Client& client) {
    std::vector<int64_t> ids;
    for (const Device& d : client.devices()) ids.push_back(d.id());
    return ids;
  }

  static Buffer S32(const Client& client, const std::vector<int32_t>& values, int64_t device) {
    const std::vector<int64_t> dims = {static_cast<int64_t>(values.size())};
    Result<Buffer> buffer = client.BufferFromHost(values.data(), ElementType::kS32, dims,
                                                  client.devices()[static_cast<size_t>(device)]);
    EXPECT_TRUE(buffer.ok()) << buffer.status().ToString();
    return std::move(buffer).value();
  }
};

TEST_F(CollectivesTest, ListsEveryElementTypeTheCpuPluginHolds) {
  Result<std::vector<ElementType>> types = cpu().CollectiveElementTypes();
  ASSERT_TRUE(types.ok()) << types.status().ToString();
  EXPECT_EQ(types->size(), 13u);
  EXPECT_TRUE(cpu().HasExtension(BERTH_Extension_Type_Collectives));
}

// 1 to 4 ranks, and the ranks in another order than the devices.
TEST_F(CollectivesTest, EveryOperationOnEveryTypeMatchesTheReference) {
  for (int64_t devices = 1; devices <= 4; ++devices) {
    Client client = ClientWith(devices);
    std::vector<int64_t> ids = Ids(client);
    if (devices == 4) std::swap(ids[0], ids[2]);
    Result<Communicator> comm = client.CreateCommunicator(ids);
    ASSERT_TRUE(comm.ok()) << comm.status().ToString();
    EXPECT_EQ(comm->size(), devices);
    EXPECT_EQ(comm->local_ranks().size(), static_cast<size_t>(devices));
    CollectiveCheckResult result =
        CheckEveryCollective(client, *comm, 0x5eed + static_cast<uint64_t>(devices));
    // 13 types x (4 all-reduces, 4 reduce-scatters, all-gather, all-to-all,
    // broadcast, permute, recv) per rank.
    EXPECT_EQ(result.checked, 13 * 13 * devices);
    EXPECT_TRUE(result.failures.empty()) << devices << " ranks: " << result.failures.front()
                                         << " (and " << result.failures.size() - 1 << " more)";
  }
}

// Two communicators over the same devices, each rank driven by a thread of
// its own issuing 40 operations on both before waiting for any: every result
// right, nothing mixed between the communicators.
TEST_F(CollectivesTest, ManyOperationsInFlightOnTwoCommunicatorsFromThreads) {
  Client client = ClientWith(4);
  Result<Communicator> first = client.CreateCommunicator(Ids(client));
  Result<Communicator> second = client.CreateCommunicator(Ids(client));
  ASSERT_TRUE(first.ok() && second.ok());
  constexpr int kRounds = 40;
  std::vector<std::vector<Result<CollectiveOutput>>> sums(4), gathers(4);
  std::vector<std::thread> threads;
  for (int64_t rank = 0; rank < 4; ++rank) {
    threads.emplace_back([&, rank] {
      for (int round = 0; round < kRounds; ++round) {
        const int32_t value = static_cast<int32_t>(rank * 1000 + round);
        Buffer in = S32(client, {value, -value, 7}, rank);
        sums[static_cast<size_t>(rank)].push_back(first->AllReduce(rank, in));
        gathers[static_cast<size_t>(rank)].push_back(second->AllGather(rank, in));
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int64_t rank = 0; rank < 4; ++rank) {
    for (int round = 0; round < kRounds; ++round) {
      Result<CollectiveOutput>& sum = sums[static_cast<size_t>(rank)][static_cast<size_t>(round)];
      Result<CollectiveOutput>& gather =
          gathers[static_cast<size_t>(rank)][static_cast<size_t>(round)];
      ASSERT_TRUE(sum.ok() && gather.ok());
      ASSERT_TRUE(sum->done.Await().ok() && gather->done.Await().ok());
      const int32_t total = 6000 + 4 * round;  // (0 + 1 + 2 + 3) * 1000 + 4 * round
      EXPECT_EQ(Read<int32_t>(sum->output), (std::vector<int32_t>{total, -total, 28}))
          << rank << " " << round;
      std::vector<int32_t> expected;
      for (int32_t r = 0; r < 4; ++r)
        expected.insert(expected.end(), {r * 1000 + round, -(r * 1000 + round), 7});
      EXPECT_EQ(Read<int32_t>(gather->output), expected) << rank << " " << round;
    }
  }
}

TEST_F(CollectivesTest, RankThatNeverArrivesIsNamedAfterTheTimeout) {
  Client client = ClientWith(3);
  Result<Communicator> comm = client.CreateCommunicator(Ids(client), 300ms);
  ASSERT_TRUE(comm.ok()) << comm.status().ToString();
  Buffer a = S32(client, {1, 2}, 0), b = S32(client, {3, 4}, 1);
  const auto begin = std::chrono::steady_clock::now();
  Result<CollectiveOutput> r0 = comm->AllReduce(0, a);
  Result<CollectiveOutput> r1 = comm->AllReduce(1, b);
  ASSERT_TRUE(r0.ok() && r1.ok());
  // Rank 2 never calls it.
  for (Result<CollectiveOutput>* r : {&r0, &r1}) {
    Status status = (*r)->done.Await();
    EXPECT_EQ(status.code(), StatusCode::kDeadlineExceeded) << status.ToString();
    EXPECT_THAT(status.message(), HasSubstr("all_reduce #0"));
    EXPECT_THAT(status.message(), HasSubstr("timed out after 300 ms: rank 2 did not arrive"));
    EXPECT_THAT(status.message(), HasSubstr("rank 2 (device 2 on node 0"));
    EXPECT_EQ((*r)->output.ToHostBytes().status().code(), StatusCode::kDeadlineExceeded);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - begin, 10s);
  // The communicator is broken: the next operation fails with the same error.
  Result<CollectiveOutput> later = comm->AllGather(0, a);
  ASSERT_TRUE(later.ok());
  EXPECT_EQ(later->done.Await().code(), StatusCode::kDeadlineExceeded);
}

TEST_F(CollectivesTest, AbortFailsPendingAndLaterOperations) {
  Client client = ClientWith(2);
  Result<Communicator> comm = client.CreateCommunicator(Ids(client));
  ASSERT_TRUE(comm.ok());
  Buffer a = S32(client, {1, 2, 3}, 0);
  Result<CollectiveOutput> pending = comm->AllGather(0, a);  // rank 1 never comes
  Result<CollectiveOutput> recv = comm->Recv(0, 1, ElementType::kS32, std::vector<int64_t>{3});
  ASSERT_TRUE(pending.ok() && recv.ok());
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(pending->done.IsReady());
  const auto begin = std::chrono::steady_clock::now();
  ASSERT_TRUE(comm->Abort("the job is shutting down").ok());
  Status status = pending->done.Await();
  EXPECT_EQ(status.code(), StatusCode::kAborted);
  EXPECT_THAT(status.message(), HasSubstr("the job is shutting down"));
  EXPECT_EQ(recv->done.Await().code(), StatusCode::kAborted);
  EXPECT_LT(std::chrono::steady_clock::now() - begin, 5s);
  Result<CollectiveOutput> later = comm->AllReduce(1, S32(client, {1, 2, 3}, 1));
  ASSERT_TRUE(later.ok());
  EXPECT_EQ(later->done.Await().code(), StatusCode::kAborted);
}

TEST_F(CollectivesTest, DestroyingACommunicatorFailsWhatIsPending) {
  Client client = ClientWith(2);
  Result<CollectiveOutput> pending = [&] {
    Result<Communicator> comm = client.CreateCommunicator(Ids(client));
    EXPECT_TRUE(comm.ok());
    return comm->AllReduce(0, S32(client, {5}, 0));
  }();
  ASSERT_TRUE(pending.ok());
  Status status = pending->done.Await();
  EXPECT_EQ(status.code(), StatusCode::kAborted);
  EXPECT_THAT(status.message(), HasSubstr("was destroyed"));
}

TEST_F(CollectivesTest, RanksCallingDifferentOperationsFailNamingBoth) {
  Client client = ClientWith(2);
  Result<Communicator> comm = client.CreateCommunicator(Ids(client));
  ASSERT_TRUE(comm.ok());
  Result<CollectiveOutput> sum = comm->AllReduce(0, S32(client, {1, 2}, 0));
  Result<CollectiveOutput> gather = comm->AllGather(1, S32(client, {1, 2}, 1));
  ASSERT_TRUE(sum.ok() && gather.ok());
  Status status = sum->done.Await();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status.ToString();
  EXPECT_THAT(status.message(), HasSubstr(" #0 of communicator '"));
  EXPECT_THAT(status.message(),
              HasSubstr("the ranks call different operations: rank 0 calls all_reduce of "
                        "i32 (8 bytes), sum; rank 1 calls all_gather of i32 (8 bytes)"));
  EXPECT_EQ(gather->done.Await().code(), StatusCode::kInvalidArgument);
}

TEST_F(CollectivesTest, SizesThatDifferBetweenRanksFail) {
  Client client = ClientWith(2);
  Result<Communicator> comm = client.CreateCommunicator(Ids(client));
  ASSERT_TRUE(comm.ok());
  Result<CollectiveOutput> a = comm->AllReduce(0, S32(client, {1, 2}, 0));
  Result<CollectiveOutput> b = comm->AllReduce(1, S32(client, {1, 2, 3}, 1));
  ASSERT_TRUE(a.ok() && b.ok());
  Status status = a->done.Await();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("(8 bytes)"));
  EXPECT_THAT(status.message(), HasSubstr("(12 bytes)"));
}

TEST_F(CollectivesTest, ArgumentsTheCallCanCheckAreRefused) {
  Client client = ClientWith(3);
  const std::vector<int64_t> ids = Ids(client);
  auto expect_invalid = [](const Status& status, const std::string& fragment) {
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status.ToString();
    EXPECT_THAT(status.message(), HasSubstr(fragment));
  };
  expect_invalid(client.CreateCommunicator(std::vector<int64_t>{0, 1, 0}).status(),
                 "device 0 is listed twice (ranks 0 and 2)");
  expect_invalid(client.CreateCommunicator(std::vector<int64_t>{0, 7}).status(), "rank 1");
  expect_invalid(client.CreateCommunicator(std::vector<int64_t>{}).status(), "no devices");
  Result<Communicator> comm = client.CreateCommunicator(ids);
  ASSERT_TRUE(comm.ok());
  Buffer on0 = S32(client, {1, 2, 3, 4}, 0);
  expect_invalid(comm->AllReduce(3, on0).status(), "rank 3 is not a rank of the communicator of 3");
  expect_invalid(comm->AllReduce(1, on0).status(),
                 "the input of rank 1 is on device 0, the rank's device is 1");
  expect_invalid(comm->ReduceScatter(0, on0).status(),
                 "dimension 0 of the input (4) must be a multiple of the 3 ranks");
  expect_invalid(comm->AllToAll(0, on0).status(), "must be a multiple of the 3 ranks");
  expect_invalid(comm->Broadcast(0, on0, -1).status(), "root -1 is not a rank");
  const std::vector<std::pair<int64_t, int64_t>> twice = {{0, 1}, {2, 1}};
  expect_invalid(comm->CollectivePermute(0, on0, twice).status(), "repeats a source or a target");
  expect_invalid(comm->Send(0, on0, 5).status(), "peer 5 is not a rank");
  const std::vector<int64_t> dims = {2};
  expect_invalid(comm->Recv(0, 1, ElementType::kC64, dims).status(),
                 "is not one the plugin's collectives take");
  const std::vector<float> c64 = {1, 2, 3, 4};
  Result<Buffer> complex =
      client.BufferFromHost(c64.data(), ElementType::kC64, dims, client.devices()[0]);
  if (complex.ok()) expect_invalid(comm->AllGather(0, *complex).status(), "element type c64");
  // Nothing was started: the communicator still works.
  Result<CollectiveOutput> ok = comm->AllGather(0, on0);
  Result<CollectiveOutput> ok1 = comm->AllGather(1, S32(client, {5, 6, 7, 8}, 1));
  Result<CollectiveOutput> ok2 = comm->AllGather(2, S32(client, {9, 10, 11, 12}, 2));
  ASSERT_TRUE(ok.ok() && ok1.ok() && ok2.ok());
  EXPECT_TRUE(ok->done.Await().ok());
  EXPECT_EQ(Read<int32_t>(ok2->output),
            (std::vector<int32_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
}

// A communicator over some of the devices: the others are no ranks.
TEST_F(CollectivesTest, CommunicatorOverSomeDevicesLeavesTheOthersOut) {
  Client client = ClientWith(4);
  Result<Communicator> comm = client.CreateCommunicator(std::vector<int64_t>{3, 1});
  ASSERT_TRUE(comm.ok());
  Result<CollectiveOutput> a = comm->AllReduce(0, S32(client, {1, 10}, 3), ReduceOp::kMax);
  Result<CollectiveOutput> b = comm->AllReduce(1, S32(client, {7, 2}, 1), ReduceOp::kMax);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(a->done.Await().ok());
  EXPECT_EQ(Read<int32_t>(a->output), (std::vector<int32_t>{7, 10}));
  Result<Device> device = a->output.device();
  ASSERT_TRUE(device.ok());
  EXPECT_EQ(device->id(), 3);
  EXPECT_EQ(comm->AllReduce(0, S32(client, {1}, 0)).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(CollectivesTest, PluginWithoutTheExtensionAnswersUnimplemented) {
  Client good = GoodWithout(BERTH_Extension_Type_Collectives);
  ExpectUnimplemented(good.CreateCommunicator(std::vector<int64_t>{0}).status(), "'collectives'");
  ExpectUnimplemented(good.CollectiveElementTypes().status(), "'collectives'");
}

}  // namespace
}  // namespace berth::testing
