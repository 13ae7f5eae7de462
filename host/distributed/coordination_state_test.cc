// Semantics of the coordination service, without a network: a FakeClock
// drives time, and (unless a test says otherwise) the checker thread is off,
// so the test calls CheckNow() and every callback runs on the test's thread.
#include "distributed/coordination_state.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <future>
#include <thread>

namespace berth::distributed {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Pair;

class CoordinationStateTest : public ::testing::Test {
 protected:
  std::unique_ptr<CoordinationState> Make(int num_nodes, Duration heartbeat_timeout = seconds(10),
                                          bool checker = false) {
    CoordinationStateOptions options;
    options.num_nodes = num_nodes;
    options.heartbeat_timeout = heartbeat_timeout;
    options.run_checker_thread = checker;
    options.clock = &clock_;
    options.max_key_bytes = 64;
    options.max_value_bytes = 1024;
    options.max_total_bytes = 4096;
    auto state = CoordinationState::Create(options);
    EXPECT_TRUE(state.ok()) << state.status().ToString();
    return std::move(*state);
  }

  // Registers nodes 0..n-1 with incarnation 100 + id.
  std::unique_ptr<CoordinationState> MakeRegistered(int num_nodes) {
    auto state = Make(num_nodes);
    for (int i = 0; i < num_nodes; ++i) EXPECT_TRUE(state->Register(i, 100 + i).ok());
    return state;
  }

  FakeClock clock_;
};

// Collects the outcome of an *Async call that completes on the test thread.
template <typename T>
struct Outcome {
  std::optional<T> value;
  std::function<void(T)> Callback() {
    return [this](T v) { value.emplace(std::move(v)); };
  }
};

// ------------------------------------------------------------- registration

TEST_F(CoordinationStateTest, CreateRejectsZeroNodes) {
  CoordinationStateOptions options;
  options.num_nodes = 0;
  auto state = CoordinationState::Create(options);
  ASSERT_FALSE(state.ok());
  EXPECT_EQ(state.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(state.status().message(), HasSubstr("num_nodes"));
}

TEST_F(CoordinationStateTest, RegisterTwiceWithSameIncarnationIsAnIdempotentRetry) {
  auto state = Make(2);
  EXPECT_TRUE(state->Register(1, 42).ok());
  EXPECT_TRUE(state->Register(1, 42).ok());
  EXPECT_THAT(state->GetLiveNodes(), ElementsAre(NodeInfo{1, 42, 0}));
}

TEST_F(CoordinationStateTest, RegisterRejectsOutOfRangeNodeId) {
  auto state = Make(4);
  Status status = state->Register(4, 1);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("node id 4 is out of range"));
  EXPECT_THAT(status.message(), HasSubstr("4 nodes"));
  EXPECT_EQ(state->Register(-1, 1).code(), StatusCode::kInvalidArgument);
}

TEST_F(CoordinationStateTest, RegisterRefusesDuplicateNodeIdWhileTheOldProcessIsAlive) {
  auto state = Make(3);
  ASSERT_TRUE(state->Register(2, 0xaaa).ok());
  clock_.Advance(milliseconds(400));
  Status status = state->Register(2, 0xbbb);
  EXPECT_EQ(status.code(), StatusCode::kAlreadyExists);
  EXPECT_THAT(status.message(), HasSubstr("node 2 is already registered by a live process"));
  EXPECT_THAT(status.message(), HasSubstr("0x0000000000000aaa"));
  EXPECT_THAT(status.message(), HasSubstr("last heartbeat 0.40 s ago"));
  EXPECT_THAT(status.message(), HasSubstr("duplicate node id?"));
  EXPECT_FALSE(state->GetJobError().has_value());
}

TEST_F(CoordinationStateTest, RestartAfterDeathIsAcceptedAndRecorded) {
  auto state = MakeRegistered(2);
  clock_.Advance(seconds(6));
  ASSERT_TRUE(state->Heartbeat(0, 100).ok());
  clock_.Advance(seconds(5));
  state->CheckNow();  // node 1 silent for 11 s
  ASSERT_TRUE(state->GetJobError().has_value());

  EXPECT_TRUE(state->Register(1, 202).ok());
  EXPECT_THAT(state->GetLiveNodes(), ElementsAre(NodeInfo{0, 100, 0}, NodeInfo{1, 202, 1}));
  // The job error stays the first one: the death.
  EXPECT_THAT(state->GetJobError()->status.message(), HasSubstr("declared dead"));
}

TEST_F(CoordinationStateTest, RestartAfterLeavingWhileOthersRunIsAJobError) {
  auto state = MakeRegistered(2);
  Outcome<Status> shutdown;
  state->ShutdownAsync(0, seconds(5), shutdown.Callback());
  clock_.Advance(seconds(6));
  state->CheckNow();  // node 1 never arrives: node 0 leaves with a timeout
  ASSERT_TRUE(shutdown.value.has_value());
  ASSERT_TRUE(state->Heartbeat(1, 101).ok());

  ASSERT_TRUE(state->Register(0, 300).ok());
  auto error = state->GetJobError();
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->status.code(), StatusCode::kAborted);
  EXPECT_EQ(error->node_id, 0);
  EXPECT_THAT(error->status.message(),
              HasSubstr("node 0 restarted (incarnation 0x0000000000000064 -> "
                        "0x000000000000012c)"));
}

TEST_F(CoordinationStateTest, SameIncarnationAfterBeingDeclaredDeadIsAborted) {
  auto state = MakeRegistered(2);
  clock_.Advance(seconds(10));
  ASSERT_TRUE(state->Heartbeat(1, 101).ok());
  state->CheckNow();
  Status status = state->Register(0, 100);
  EXPECT_EQ(status.code(), StatusCode::kAborted);
  EXPECT_THAT(status.message(), HasSubstr("declared dead"));
}

// --------------------------------------------------------------- heartbeats

TEST_F(CoordinationStateTest, ADeadNodeIsNamedWithTheAddressItRegisteredFrom) {
  auto state = Make(2);
  ASSERT_TRUE(state->Register(0, 100, "10.231.0.1").ok());
  ASSERT_TRUE(state->Register(1, 101, "10.231.0.2").ok());
  clock_.Advance(seconds(9));
  ASSERT_TRUE(state->Heartbeat(0, 100).ok());
  clock_.Advance(seconds(2));
  state->CheckNow();
  auto error = state->GetJobError();
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->node_id, 1);
  EXPECT_THAT(error->status.message(), HasSubstr("node 1 at 10.231.0.2 (incarnation"));
}

TEST_F(CoordinationStateTest, ABarrierTimeoutNamesTheMissingNodesAddresses) {
  auto state = Make(3);
  ASSERT_TRUE(state->Register(0, 100, "10.231.0.1").ok());
  ASSERT_TRUE(state->Register(1, 101, "10.231.0.2").ok());
  Outcome<Status> b;
  state->BarrierAsync(0, "x", seconds(5), {}, b.Callback());
  clock_.Advance(seconds(5));
  ASSERT_TRUE(state->Heartbeat(1, 101).ok());
  state->CheckNow();
  ASSERT_TRUE(b.value.has_value());
  EXPECT_THAT(b.value->message(),
              HasSubstr("nodes 1, 2 did not arrive (node 1 at 10.231.0.2; node 2 has not registered)"));
}

TEST_F(CoordinationStateTest, HeartbeatTimeoutDeclaresTheNodeDeadAndFailsTheJob) {
  auto state = MakeRegistered(3);
  clock_.Advance(seconds(9));
  ASSERT_TRUE(state->Heartbeat(0, 100).ok());
  ASSERT_TRUE(state->Heartbeat(1, 101).ok());
  state->CheckNow();
  EXPECT_FALSE(state->GetJobError().has_value());

  clock_.Advance(seconds(1));
  state->CheckNow();
  auto error = state->GetJobError();
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->status.code(), StatusCode::kUnavailable);
  EXPECT_EQ(error->node_id, 2);
  EXPECT_THAT(error->status.message(),
              HasSubstr("node 2 (incarnation 0x0000000000000066) missed heartbeats for 10.0 s; "
                        "declared dead"));
  EXPECT_THAT(state->GetLiveNodes(), ElementsAre(NodeInfo{0, 100, 0}, NodeInfo{1, 101, 0}));
}

TEST_F(CoordinationStateTest, HeartbeatFromADeadNodeIsAborted) {
  auto state = MakeRegistered(1);
  clock_.Advance(seconds(11));
  state->CheckNow();
  Status status = state->Heartbeat(0, 100);
  EXPECT_EQ(status.code(), StatusCode::kAborted);
  EXPECT_THAT(status.message(), HasSubstr("node 0"));
  EXPECT_THAT(status.message(), HasSubstr("declared dead"));
}

TEST_F(CoordinationStateTest, HeartbeatWithAStaleIncarnationIsAborted) {
  auto state = MakeRegistered(2);
  clock_.Advance(seconds(11));
  ASSERT_TRUE(state->Heartbeat(0, 100).ok());
  state->CheckNow();
  ASSERT_TRUE(state->Register(1, 999).ok());  // restarted
  Status status = state->Heartbeat(1, 101);
  EXPECT_EQ(status.code(), StatusCode::kAborted);
  EXPECT_THAT(status.message(), HasSubstr("stale"));
  EXPECT_TRUE(state->Heartbeat(1, 999).ok());
}

TEST_F(CoordinationStateTest, HeartbeatFromAnUnregisteredNodeIsAFailedPrecondition) {
  auto state = Make(2);
  Status status = state->Heartbeat(1, 5);
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("node 1 is not registered"));
}

TEST_F(CoordinationStateTest, CheckerThreadFollowsTheFakeClock) {
  auto state = Make(1, seconds(10), /*checker=*/true);
  ASSERT_TRUE(state->Register(0, 1).ok());
  std::promise<Result<std::string>> got;
  state->GetAsync("k", seconds(5), [&got](Result<std::string> r) { got.set_value(std::move(r)); });
  auto future = got.get_future();
  while (clock_.NumSleepers() == 0) std::this_thread::sleep_for(milliseconds(1));
  EXPECT_EQ(future.wait_for(milliseconds(50)), std::future_status::timeout);
  clock_.Advance(seconds(5));
  ASSERT_EQ(future.wait_for(seconds(10)), std::future_status::ready);
  Result<std::string> r = future.get();
  EXPECT_EQ(r.status().code(), StatusCode::kDeadlineExceeded);
}

// ---------------------------------------------------------- key-value store

TEST_F(CoordinationStateTest, SetThenGetAndTryGet) {
  auto state = Make(1);
  ASSERT_TRUE(state->Set("a", "1", false).ok());
  EXPECT_EQ(state->TryGet("a").value_or(""), "1");
  EXPECT_EQ(state->Get("a", seconds(1)).value_or(""), "1");
}

TEST_F(CoordinationStateTest, SetWithoutOverwriteRefusesAnExistingKey) {
  auto state = Make(1);
  ASSERT_TRUE(state->Set("a", "1", false).ok());
  Status status = state->Set("a", "2", false);
  EXPECT_EQ(status.code(), StatusCode::kAlreadyExists);
  EXPECT_THAT(status.message(), HasSubstr("key 'a' already exists"));
  EXPECT_TRUE(state->Set("a", "3", true).ok());
  EXPECT_EQ(state->TryGet("a").value_or(""), "3");
}

TEST_F(CoordinationStateTest, TryGetOfAMissingKeyIsNotFound) {
  auto state = Make(1);
  auto r = state->TryGet("missing");
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(r.status().message(), HasSubstr("key 'missing' not found"));
}

TEST_F(CoordinationStateTest, BlockingGetIsWokenBySet) {
  auto state = Make(1);
  Outcome<Result<std::string>> got;
  EXPECT_NE(state->GetAsync("k", seconds(5), got.Callback()), 0u);
  EXPECT_FALSE(got.value.has_value());
  ASSERT_TRUE(state->Set("k", "v", false).ok());
  ASSERT_TRUE(got.value.has_value());
  EXPECT_EQ(got.value->value_or(""), "v");
  EXPECT_EQ(state->NumPendingWaits(), 0u);
}

TEST_F(CoordinationStateTest, BlockingGetFromAnotherThreadIsWokenBySet) {
  auto state = Make(1);
  auto future = std::async(std::launch::async, [&] { return state->Get("k", seconds(30)); });
  while (state->NumPendingWaits() == 0) std::this_thread::sleep_for(milliseconds(1));
  ASSERT_TRUE(state->Set("k", "v", false).ok());
  ASSERT_EQ(future.wait_for(seconds(10)), std::future_status::ready);
  EXPECT_EQ(future.get().value_or(""), "v");
}

TEST_F(CoordinationStateTest, BlockingGetTimesOutNamingTheKey) {
  auto state = Make(1);
  Outcome<Result<std::string>> got;
  state->GetAsync("config/x", seconds(5), got.Callback());
  clock_.Advance(milliseconds(4999));
  state->CheckNow();
  EXPECT_FALSE(got.value.has_value());
  clock_.Advance(milliseconds(1));
  state->CheckNow();
  ASSERT_TRUE(got.value.has_value());
  EXPECT_EQ(got.value->status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_THAT(got.value->status().message(), HasSubstr("key 'config/x' was not set within 5.0 s"));
}

TEST_F(CoordinationStateTest, GetDirTreatsThePrefixAsADirectory) {
  auto state = Make(1);
  for (const char* key : {"a/b/c", "a/b/a", "a/bc", "a/b", "a/b/d/e", "b/x"}) {
    ASSERT_TRUE(state->Set(key, key, false).ok());
  }
  auto entries = state->GetDir("a/b");
  ASSERT_TRUE(entries.ok());
  EXPECT_THAT(*entries, ElementsAre(Pair("a/b/a", "a/b/a"), Pair("a/b/c", "a/b/c"),
                                    Pair("a/b/d/e", "a/b/d/e")));
  EXPECT_EQ(state->GetDir("a/b/")->size(), 3u);
  EXPECT_EQ(state->GetDir("")->size(), 6u);
  EXPECT_TRUE(state->GetDir("nothing")->empty());
}

TEST_F(CoordinationStateTest, DeleteRemovesTheKeyAndItsSubtreeOnly) {
  auto state = Make(1);
  for (const char* key : {"a", "a/b", "a/b/c", "ab", "b"})
    ASSERT_TRUE(state->Set(key, "v", false).ok());
  ASSERT_TRUE(state->Delete("a").ok());
  EXPECT_EQ(state->TryGet("a").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(state->TryGet("a/b/c").status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(state->TryGet("ab").ok());
  EXPECT_TRUE(state->TryGet("b").ok());
  EXPECT_TRUE(state->Delete("never-set").ok());
}

TEST_F(CoordinationStateTest, IncrementStartsAtZeroAndStoresDecimalText) {
  auto state = Make(1);
  EXPECT_EQ(state->Increment("n", 5).value_or(-1), 5);
  EXPECT_EQ(state->Increment("n", -7).value_or(-1), -2);
  EXPECT_EQ(state->TryGet("n").value_or(""), "-2");
}

TEST_F(CoordinationStateTest, IncrementWakesWaitingGets) {
  auto state = Make(1);
  Outcome<Result<std::string>> got;
  state->GetAsync("n", seconds(5), got.Callback());
  ASSERT_TRUE(state->Increment("n", 1).ok());
  ASSERT_TRUE(got.value.has_value());
  EXPECT_EQ(got.value->value_or(""), "1");
}

TEST_F(CoordinationStateTest, IncrementRejectsANonIntegerValue) {
  auto state = Make(1);
  ASSERT_TRUE(state->Set("n", "12abc", false).ok());
  auto r = state->Increment("n", 1);
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("not a decimal int64: '12abc'"));
}

TEST_F(CoordinationStateTest, IncrementOverflowIsOutOfRange) {
  auto state = Make(1);
  ASSERT_TRUE(state->Set("n", std::to_string(INT64_MAX), false).ok());
  EXPECT_EQ(state->Increment("n", 1).status().code(), StatusCode::kOutOfRange);
}

TEST_F(CoordinationStateTest, KeysAndValuesOverTheLimitsAreRejected) {
  auto state = Make(1);  // limits: key 64 bytes, value 1 KiB
  Status status = state->Set(std::string(65, 'k'), "v", false);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("key of 65 bytes is over the limit of 64 bytes"));
  status = state->Set("k", std::string(1025, 'v'), false);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("value of 1.0 KiB for key 'k' is over the limit"));
  EXPECT_TRUE(state->Set("k", std::string(1024, 'v'), false).ok());
  status = state->Set("", "v", false);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("key is empty"));
}

TEST_F(CoordinationStateTest, TheStoreAsAWholeIsBounded) {
  auto state = Make(1);  // total 4 KiB
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(state->Set("k" + std::to_string(i), std::string(1000, 'v'), false).ok());
  }
  Status status = state->Set("k9", std::string(1024, 'v'), false);
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted);
  ASSERT_TRUE(state->Delete("k0").ok());
  EXPECT_TRUE(state->Set("k9", std::string(1024, 'v'), false).ok());
}

TEST_F(CoordinationStateTest, BinaryKeysAreQuotedInMessages) {
  auto state = Make(1);
  auto r = state->TryGet(std::string("a\0\xff", 3));
  EXPECT_THAT(r.status().message(), HasSubstr("'a\\x00\\xff'"));
}

// ----------------------------------------------------------------- barriers

TEST_F(CoordinationStateTest, BarrierPassesWhenEveryNodeArrives) {
  auto state = MakeRegistered(3);
  Outcome<Status> a, b, c;
  state->BarrierAsync(0, "init", seconds(5), {}, a.Callback());
  state->BarrierAsync(2, "init", seconds(5), {}, b.Callback());
  EXPECT_FALSE(a.value.has_value());
  state->BarrierAsync(1, "init", seconds(5), {}, c.Callback());
  ASSERT_TRUE(a.value && b.value && c.value);
  EXPECT_TRUE(a.value->ok() && b.value->ok() && c.value->ok());
}

TEST_F(CoordinationStateTest, BarrierTimeoutNamesTheNodesThatDidNotArrive) {
  auto state = MakeRegistered(4);
  Outcome<Status> a, b;
  state->BarrierAsync(0, "x", seconds(5), {}, a.Callback());
  state->BarrierAsync(2, "x", seconds(5), {}, b.Callback());
  clock_.Advance(seconds(5));
  state->CheckNow();
  ASSERT_TRUE(a.value && b.value);
  EXPECT_EQ(a.value->code(), StatusCode::kDeadlineExceeded);
  EXPECT_THAT(a.value->message(),
              HasSubstr("barrier 'x' timed out after 5.0 s; nodes 1, 3 did not arrive"));
  EXPECT_EQ(*a.value, *b.value);
}

TEST_F(CoordinationStateTest, BarrierTimeoutSaysWhichMissingNodesNeverRegistered) {
  auto state = Make(3);
  ASSERT_TRUE(state->Register(0, 1).ok());
  ASSERT_TRUE(state->Register(1, 1).ok());
  Outcome<Status> a;
  state->BarrierAsync(0, "x", seconds(1), {}, a.Callback());
  clock_.Advance(seconds(1));
  state->CheckNow();
  ASSERT_TRUE(a.value.has_value());
  EXPECT_THAT(a.value->message(),
              HasSubstr("nodes 1, 2 did not arrive (node 2 has not registered)"));
}

TEST_F(CoordinationStateTest, LateCallerOfATimedOutBarrierGetsTheSameResult) {
  auto state = MakeRegistered(2);
  Outcome<Status> first, late;
  state->BarrierAsync(0, "x", seconds(5), {}, first.Callback());
  clock_.Advance(seconds(6));
  state->CheckNow();
  state->BarrierAsync(1, "x", seconds(5), {}, late.Callback());
  ASSERT_TRUE(first.value && late.value);
  EXPECT_EQ(late.value->code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(*first.value, *late.value);
}

TEST_F(CoordinationStateTest, TheFirstCallerSetsTheDeadline) {
  auto state = MakeRegistered(3);
  Outcome<Status> a, b;
  state->BarrierAsync(0, "x", seconds(5), {}, a.Callback());
  clock_.Advance(seconds(4));
  state->BarrierAsync(1, "x", seconds(100), {}, b.Callback());
  clock_.Advance(seconds(1));
  state->CheckNow();
  ASSERT_TRUE(a.value && b.value);
  EXPECT_THAT(b.value->message(), HasSubstr("timed out after 5.0 s; node 2 did not arrive"));
}

TEST_F(CoordinationStateTest, BarrierOverASubsetOfNodes) {
  auto state = MakeRegistered(4);
  Outcome<Status> a, b;
  state->BarrierAsync(3, "pair", seconds(5), {1, 3}, a.Callback());
  state->BarrierAsync(1, "pair", seconds(5), {3, 1, 1}, b.Callback());
  ASSERT_TRUE(a.value && b.value);
  EXPECT_TRUE(a.value->ok());
  EXPECT_TRUE(b.value->ok());
}

TEST_F(CoordinationStateTest, ANonParticipantIsRejected) {
  auto state = MakeRegistered(4);
  Outcome<Status> a;
  state->BarrierAsync(0, "pair", seconds(5), {1, 3}, a.Callback());
  ASSERT_TRUE(a.value.has_value());
  EXPECT_EQ(a.value->code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(a.value->message(),
              HasSubstr("node 0 called barrier 'pair' but is not one of its participants (1, 3)"));
}

TEST_F(CoordinationStateTest, ParticipantMismatchFailsTheBarrierForEveryone) {
  auto state = MakeRegistered(3);
  Outcome<Status> a, b;
  state->BarrierAsync(0, "x", seconds(5), {0, 1}, a.Callback());
  state->BarrierAsync(1, "x", seconds(5), {}, b.Callback());
  ASSERT_TRUE(a.value && b.value);
  EXPECT_EQ(b.value->code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(b.value->message(),
              HasSubstr("node 1 named participants (0, 1, 2) but the barrier was started with "
                        "(0, 1)"));
  EXPECT_EQ(*a.value, *b.value);
}

TEST_F(CoordinationStateTest, AJobErrorFailsWaitingBarriersAtOnce) {
  auto state = MakeRegistered(3);
  Outcome<Status> a;
  state->BarrierAsync(0, "x", seconds(60), {}, a.Callback());
  ASSERT_TRUE(state->ReportError(2, InternalError("out of memory")).ok());
  ASSERT_TRUE(a.value.has_value());
  EXPECT_EQ(a.value->code(), StatusCode::kAborted);
  EXPECT_THAT(a.value->message(), HasSubstr("node 2 reported an error: INTERNAL: out of memory"));
  // And new callers fail at once too.
  Outcome<Status> b;
  state->BarrierAsync(1, "y", seconds(60), {}, b.Callback());
  ASSERT_TRUE(b.value.has_value());
  EXPECT_EQ(b.value->code(), StatusCode::kAborted);
}

TEST_F(CoordinationStateTest, ABarrierIdCanBeReusedAfterItPassed) {
  auto state = MakeRegistered(2);
  for (int round = 0; round < 3; ++round) {
    Outcome<Status> a, b;
    state->BarrierAsync(0, "step", seconds(5), {}, a.Callback());
    EXPECT_FALSE(a.value.has_value()) << "round " << round;
    state->BarrierAsync(1, "step", seconds(5), {}, b.Callback());
    ASSERT_TRUE(a.value && b.value);
    EXPECT_TRUE(a.value->ok() && b.value->ok());
  }
}

TEST_F(CoordinationStateTest, AnUnregisteredNodeCannotJoinABarrier) {
  auto state = Make(2);
  Outcome<Status> a;
  state->BarrierAsync(1, "x", seconds(5), {}, a.Callback());
  ASSERT_TRUE(a.value.has_value());
  EXPECT_EQ(a.value->code(), StatusCode::kFailedPrecondition);
}

// ------------------------------------------------------- job errors, watches

TEST_F(CoordinationStateTest, AJobErrorFailsWaitingGetsAtOnce) {
  auto state = MakeRegistered(2);
  Outcome<Result<std::string>> got;
  state->GetAsync("k", seconds(60), got.Callback());
  clock_.Advance(seconds(10));
  ASSERT_TRUE(state->Heartbeat(0, 100).ok());
  state->CheckNow();
  ASSERT_TRUE(got.value.has_value());
  EXPECT_EQ(got.value->status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(got.value->status().message(), HasSubstr("node 1"));
  // A key that exists is still readable; a missing one fails fast.
  ASSERT_TRUE(state->Set("there", "v", false).ok());
  EXPECT_TRUE(state->Get("there", seconds(60)).ok());
  EXPECT_EQ(state->Get("missing", seconds(60)).status().code(), StatusCode::kUnavailable);
}

TEST_F(CoordinationStateTest, WatchReportsTheJobErrorAndWhichNodeCausedIt) {
  auto state = MakeRegistered(3);
  Outcome<WatchEvent> watch;
  state->WatchAsync(0, seconds(30), watch.Callback());
  EXPECT_FALSE(watch.value.has_value());
  ASSERT_TRUE(state->ReportError(1, UnknownError("bad step")).ok());
  ASSERT_TRUE(watch.value.has_value());
  EXPECT_EQ(watch.value->kind, WatchEvent::Kind::kJobFailed);
  EXPECT_EQ(watch.value->error.node_id, 1);
  EXPECT_THAT(watch.value->error.status.message(), HasSubstr("node 1 reported an error"));

  Outcome<WatchEvent> later;
  state->WatchAsync(2, seconds(30), later.Callback());
  ASSERT_TRUE(later.value.has_value());
  EXPECT_EQ(later.value->kind, WatchEvent::Kind::kJobFailed);
}

TEST_F(CoordinationStateTest, WatchEndsWithNoErrorAfterThePollTimeout) {
  auto state = MakeRegistered(1);
  Outcome<WatchEvent> watch;
  state->WatchAsync(0, seconds(30), watch.Callback());
  clock_.Advance(seconds(9));
  ASSERT_TRUE(state->Heartbeat(0, 100).ok());
  clock_.Advance(seconds(9));
  ASSERT_TRUE(state->Heartbeat(0, 100).ok());
  clock_.Advance(seconds(9));
  ASSERT_TRUE(state->Heartbeat(0, 100).ok());
  clock_.Advance(seconds(3));
  state->CheckNow();
  ASSERT_TRUE(watch.value.has_value());
  EXPECT_EQ(watch.value->kind, WatchEvent::Kind::kNoError);
}

TEST_F(CoordinationStateTest, ReportErrorWithOkIsRejected) {
  auto state = MakeRegistered(1);
  EXPECT_EQ(state->ReportError(0, OkStatus()).code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(state->GetJobError().has_value());
}

TEST_F(CoordinationStateTest, CancelEndsAWaitWithCancelled) {
  auto state = MakeRegistered(1);
  Outcome<Result<std::string>> got;
  auto id = state->GetAsync("k", seconds(60), got.Callback());
  state->Cancel(id);
  ASSERT_TRUE(got.value.has_value());
  EXPECT_EQ(got.value->status().code(), StatusCode::kCancelled);
  state->Cancel(id);  // a second time: ignored
  EXPECT_EQ(state->NumPendingWaits(), 0u);
}

TEST_F(CoordinationStateTest, StopEndsEveryWaitAndRefusesNewOnes) {
  auto state = MakeRegistered(2);
  Outcome<Result<std::string>> got;
  Outcome<Status> barrier;
  Outcome<WatchEvent> watch;
  state->GetAsync("k", seconds(60), got.Callback());
  state->BarrierAsync(0, "b", seconds(60), {}, barrier.Callback());
  state->WatchAsync(1, seconds(60), watch.Callback());
  state->Stop(UnavailableError("going away"));
  ASSERT_TRUE(got.value && barrier.value && watch.value);
  EXPECT_EQ(got.value->status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(barrier.value->code(), StatusCode::kUnavailable);
  EXPECT_EQ(watch.value->kind, WatchEvent::Kind::kServiceStopping);
  EXPECT_EQ(state->Get("k", seconds(60)).status().code(), StatusCode::kUnavailable);
}

// ----------------------------------------------------- shutdown, live nodes

TEST_F(CoordinationStateTest, ShutdownBarrierWaitsForEveryConnectedNodeThenDisconnects) {
  auto state = MakeRegistered(3);
  Outcome<Status> a, b, c;
  state->ShutdownAsync(0, seconds(30), a.Callback());
  state->ShutdownAsync(1, seconds(30), b.Callback());
  EXPECT_FALSE(a.value.has_value());
  state->ShutdownAsync(2, seconds(30), c.Callback());
  ASSERT_TRUE(a.value && b.value && c.value);
  EXPECT_TRUE(a.value->ok() && b.value->ok() && c.value->ok());
  EXPECT_TRUE(state->GetLiveNodes().empty());
  // Silence after a clean shutdown is not an error.
  clock_.Advance(seconds(60));
  state->CheckNow();
  EXPECT_FALSE(state->GetJobError().has_value());
  EXPECT_EQ(state->Heartbeat(0, 100).code(), StatusCode::kFailedPrecondition);
}

TEST_F(CoordinationStateTest, ShutdownCountsOnlyConnectedNodes) {
  auto state = Make(3);
  ASSERT_TRUE(state->Register(0, 1).ok());
  ASSERT_TRUE(state->Register(1, 1).ok());
  EXPECT_TRUE(state->Shutdown(0, seconds(0)).code() == StatusCode::kDeadlineExceeded);
  // Node 2 never registered, so only node 1 had been missing.
  Outcome<Status> b;
  state->ShutdownAsync(1, seconds(30), b.Callback());
  ASSERT_TRUE(b.value.has_value());
  EXPECT_THAT(b.value->message(), HasSubstr("shutdown barrier timed out"));
  EXPECT_THAT(b.value->message(), HasSubstr("node 1 did not arrive"));
}

TEST_F(CoordinationStateTest, ShutdownTimeoutNamesMissingNodesAndStillDisconnects) {
  auto state = MakeRegistered(3);
  Outcome<Status> a;
  state->ShutdownAsync(0, seconds(5), a.Callback());
  clock_.Advance(seconds(5));
  ASSERT_TRUE(state->Heartbeat(1, 101).ok());
  ASSERT_TRUE(state->Heartbeat(2, 102).ok());
  state->CheckNow();
  ASSERT_TRUE(a.value.has_value());
  EXPECT_EQ(a.value->code(), StatusCode::kDeadlineExceeded);
  EXPECT_THAT(a.value->message(),
              HasSubstr("shutdown barrier timed out after 5.0 s; nodes 1, 2 did not arrive"));
  EXPECT_THAT(state->GetLiveNodes(), ElementsAre(NodeInfo{1, 101, 0}, NodeInfo{2, 102, 0}));
}

TEST_F(CoordinationStateTest, ShutdownAfterAJobErrorReturnsItAndDisconnects) {
  auto state = MakeRegistered(2);
  ASSERT_TRUE(state->ReportError(1, InternalError("boom")).ok());
  Status status = state->Shutdown(0, seconds(30));
  EXPECT_EQ(status.code(), StatusCode::kAborted);
  EXPECT_THAT(status.message(), HasSubstr("node 1 reported an error"));
  EXPECT_THAT(state->GetLiveNodes(), ElementsAre(NodeInfo{1, 101, 0}));
}

TEST_F(CoordinationStateTest, ANewJobEpochStartsWhenEveryNodeHasLeft) {
  auto state = MakeRegistered(2);
  ASSERT_TRUE(state->Set("k", "old", false).ok());
  ASSERT_TRUE(state->Barrier(0, "x", seconds(0)).code() == StatusCode::kDeadlineExceeded);
  ASSERT_TRUE(state->ReportError(1, InternalError("boom")).ok());
  EXPECT_FALSE(state->Shutdown(0, seconds(1)).ok());
  EXPECT_FALSE(state->Shutdown(1, seconds(1)).ok());
  EXPECT_EQ(state->epoch(), 1u);

  ASSERT_TRUE(state->Register(0, 500).ok());
  EXPECT_EQ(state->epoch(), 2u);
  EXPECT_FALSE(state->GetJobError().has_value());
  EXPECT_EQ(state->TryGet("k").status().code(), StatusCode::kNotFound);
  ASSERT_TRUE(state->Register(1, 501).ok());
  EXPECT_TRUE(state->Barrier(1, "x", seconds(0), {1}).ok());
  EXPECT_THAT(state->GetLiveNodes(), ElementsAre(NodeInfo{0, 500, 0}, NodeInfo{1, 501, 0}));
}

TEST_F(CoordinationStateTest, LiveNodesListsConnectedNodesWithIncarnations) {
  auto state = Make(4);
  ASSERT_TRUE(state->Register(3, 7).ok());
  ASSERT_TRUE(state->Register(1, 9).ok());
  EXPECT_THAT(state->GetLiveNodes(), ElementsAre(NodeInfo{1, 9, 0}, NodeInfo{3, 7, 0}));
  EXPECT_THAT(state->GetLiveNodes(), Not(::testing::Contains(NodeInfo{0, 0, 0})));
}

}  // namespace
}  // namespace berth::distributed
