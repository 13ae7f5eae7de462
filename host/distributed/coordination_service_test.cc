// The coordination service end to end over gRPC on 127.0.0.1: one server and
// several clients (nodes) in this process, each client on its own threads.
// Heartbeat settings are short so failure detection fits in a few seconds.
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include "distributed/coordination_client.hpp"
#include "distributed/coordination_server.hpp"

namespace berth::distributed {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Pair;
using Steady = std::chrono::steady_clock;

double SecondsSince(Steady::time_point start) {
  return std::chrono::duration<double>(Steady::now() - start).count();
}

// A port nothing listens on (bound, read back, released).
int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

// Records what an error callback received, and when.
class ErrorRecorder {
 public:
  ErrorCallback Callback() {
    return [this](const Status& status) {
      std::lock_guard lock(mu_);
      ++calls_;
      if (!status_) status_ = status;
      cv_.notify_all();
    };
  }
  std::optional<Status> WaitFor(Duration timeout) {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, timeout, [this] { return status_.has_value(); });
    return status_;
  }
  int calls() const {
    std::lock_guard lock(mu_);
    return calls_;
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::optional<Status> status_;
  int calls_ = 0;
};

// Forwards TCP connections to a port until frozen; frozen, it keeps every
// connection open but moves no more bytes, like a coordinator host that
// vanished from the network without closing anything.
class FreezableProxy {
 public:
  explicit FreezableProxy(int upstream_port) : upstream_port_(upstream_port) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    EXPECT_EQ(::listen(listen_fd_, 16), 0);
    socklen_t len = sizeof(addr);
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    threads_.emplace_back([this] { AcceptLoop(); });
  }

  ~FreezableProxy() {
    stop_ = true;
    for (std::thread& t : threads_) t.join();
    for (int fd : fds_) ::close(fd);
    ::close(listen_fd_);
  }

  int port() const { return port_; }
  void Freeze() { frozen_ = true; }

 private:
  void AcceptLoop() {
    while (!stop_) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      const int client = ::accept(listen_fd_, nullptr, nullptr);
      if (client < 0) continue;
      const int upstream = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      addr.sin_port = htons(static_cast<uint16_t>(upstream_port_));
      if (::connect(upstream, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
        ::close(client);
        ::close(upstream);
        continue;
      }
      std::lock_guard lock(mu_);
      fds_.push_back(client);
      fds_.push_back(upstream);
      threads_.emplace_back([this, client, upstream] { Pump(client, upstream); });
      threads_.emplace_back([this, client, upstream] { Pump(upstream, client); });
    }
  }

  void Pump(int from, int to) {
    char buffer[16384];
    while (!stop_) {
      if (frozen_) {
        std::this_thread::sleep_for(milliseconds(20));
        continue;
      }
      pollfd p{from, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      if (frozen_) continue;
      const ssize_t n = ::read(from, buffer, sizeof(buffer));
      if (n <= 0) {
        ::shutdown(to, SHUT_WR);
        return;
      }
      for (ssize_t done = 0; done < n;) {
        const ssize_t w = ::write(to, buffer + done, static_cast<size_t>(n - done));
        if (w <= 0) return;
        done += w;
      }
    }
  }

  const int upstream_port_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<bool> frozen_{false};
  std::mutex mu_;
  std::vector<int> fds_;
  std::vector<std::thread> threads_;  // the accept thread adds pumps; joined after stop_
};

class CoordinationServiceTest : public ::testing::Test {
 protected:
  void StartServer(int num_nodes,
                   const std::function<void(CoordinationServerOptions&)>& tweak = {}) {
    CoordinationServerOptions options;
    options.num_nodes = num_nodes;
    if (tweak) tweak(options);
    auto server = CoordinationServer::Start(options);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
    ASSERT_GT(server_->BoundPort(), 0);
  }

  CoordinationClientOptions ClientOptions(int node_id) {
    CoordinationClientOptions options;
    options.address = server_ ? server_->address() : "";
    options.node_id = node_id;
    options.heartbeat_interval = milliseconds(100);
    options.connect_timeout = seconds(5);
    return options;
  }

  std::unique_ptr<CoordinationClient> MustConnect(int node_id, ErrorRecorder* recorder = nullptr) {
    CoordinationClientOptions options = ClientOptions(node_id);
    if (recorder != nullptr) options.error_callback = recorder->Callback();
    auto client = CoordinationClient::Connect(options);
    EXPECT_TRUE(client.ok()) << client.status().ToString();
    return client.ok() ? std::move(*client) : nullptr;
  }

  std::unique_ptr<CoordinationServer> server_;
};

TEST_F(CoordinationServiceTest, BoundPortAndAddressNameThePickedPort) {
  StartServer(1);
  EXPECT_EQ(server_->address(), "127.0.0.1:" + std::to_string(server_->BoundPort()));
}

TEST_F(CoordinationServiceTest, ASecondServerCannotTakeTheSamePort) {
  StartServer(1);
  CoordinationServerOptions options;
  options.num_nodes = 1;
  options.listen_address = server_->address();
  auto second = CoordinationServer::Start(options);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(second.status().message(), HasSubstr(server_->address()));
  EXPECT_THAT(second.status().message(), HasSubstr("cannot listen"));
}

TEST_F(CoordinationServiceTest, KeyValueRoundTrip) {
  StartServer(2);
  auto a = MustConnect(0);
  auto b = MustConnect(1);
  ASSERT_TRUE(a && b);

  auto waiting = std::async(std::launch::async, [&] { return b->Get("ready", seconds(10)); });
  ASSERT_TRUE(a->Set("ready", "yes").ok());
  ASSERT_EQ(waiting.wait_for(seconds(10)), std::future_status::ready);
  EXPECT_EQ(waiting.get().value_or(""), "yes");

  Status again = a->Set("ready", "no");
  EXPECT_EQ(again.code(), StatusCode::kAlreadyExists);
  EXPECT_THAT(again.message(), HasSubstr("key 'ready' already exists"));
  EXPECT_TRUE(a->Set("ready", "no", /*allow_overwrite=*/true).ok());
  EXPECT_EQ(b->TryGet("ready").value_or(""), "no");
  EXPECT_EQ(b->Get("ready", Duration::max()).value_or(""), "no");  // "forever" does not overflow
  EXPECT_EQ(b->TryGet("absent").status().code(), StatusCode::kNotFound);

  const std::string binary_key("bin/\0\xff", 6);
  ASSERT_TRUE(a->Set(binary_key, std::string("\0\1\2", 3)).ok());
  EXPECT_EQ(b->TryGet(binary_key).value_or(""), std::string("\0\1\2", 3));

  ASSERT_TRUE(a->Set("dir/x", "1").ok());
  ASSERT_TRUE(a->Set("dir/y/z", "2").ok());
  ASSERT_TRUE(a->Set("dirt", "3").ok());
  auto dir = b->GetDir("dir");
  ASSERT_TRUE(dir.ok()) << dir.status().ToString();
  EXPECT_THAT(*dir, ElementsAre(Pair("dir/x", "1"), Pair("dir/y/z", "2")));
  ASSERT_TRUE(b->Delete("dir").ok());
  EXPECT_TRUE(b->GetDir("dir")->empty());
  EXPECT_TRUE(b->TryGet("dirt").ok());

  EXPECT_EQ(a->Increment("count").value_or(-1), 1);
  EXPECT_EQ(b->Increment("count", 10).value_or(-1), 11);

  Result<std::string> timed_out = b->Get("never", milliseconds(200));
  EXPECT_EQ(timed_out.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_THAT(timed_out.status().message(), HasSubstr("key 'never' was not set within 0.20 s"));
}

TEST_F(CoordinationServiceTest, OversizedKeysAndValuesAreRejectedClearly) {
  StartServer(1);
  CoordinationClientOptions options = ClientOptions(0);
  auto client = MustConnect(0);
  ASSERT_TRUE(client);
  // Checked by the client before sending.
  Status status = client->Set("big", std::string(5 * 1024 * 1024, 'x'));
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("value of 5.0 MiB for key 'big' is over the limit of 4.0 MiB"));
  status = client->Set(std::string(5000, 'k'), "v");
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("key of 5000 bytes is over the limit of 4096 bytes"));

  // Checked by the service when a client allows more.
  options.node_id = 0;
  options.incarnation = client->incarnation();  // the same process, another connection
  options.max_value_bytes = 7 * 1024 * 1024;
  auto lax = CoordinationClient::Connect(options);
  ASSERT_TRUE(lax.ok()) << lax.status().ToString();
  status = (*lax)->Set("big", std::string(5 * 1024 * 1024, 'x'));
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("over the limit of 4.0 MiB"));
  // A message over the transport limit is refused too, with a clear code.
  options.max_value_bytes = 64 * 1024 * 1024;
  options.max_message_bytes = 64 * 1024 * 1024;
  auto huge = CoordinationClient::Connect(options);
  ASSERT_TRUE(huge.ok());
  status = (*huge)->Set("huge", std::string(9 * 1024 * 1024, 'x'));
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted) << status.ToString();
}

TEST_F(CoordinationServiceTest, BarrierAcrossEightClients) {
  constexpr int kNodes = 8;
  StartServer(kNodes);
  std::vector<std::unique_ptr<CoordinationClient>> clients;
  for (int i = 0; i < kNodes; ++i) clients.push_back(MustConnect(i));
  std::vector<std::future<std::vector<Status>>> results;
  for (int i = 0; i < kNodes; ++i) {
    results.push_back(std::async(std::launch::async, [&, i] {
      std::vector<Status> rounds;
      for (int round = 0; round < 3; ++round) {
        rounds.push_back(clients[static_cast<size_t>(i)]->Barrier("step", seconds(10)));
      }
      return rounds;
    }));
  }
  for (auto& result : results) {
    ASSERT_EQ(result.wait_for(seconds(20)), std::future_status::ready);
    for (const Status& status : result.get()) EXPECT_TRUE(status.ok()) << status.ToString();
  }
}

TEST_F(CoordinationServiceTest, BarrierTimeoutNamesTheMissingNodes) {
  StartServer(4);
  auto c0 = MustConnect(0);
  auto c1 = MustConnect(1);
  auto c2 = MustConnect(2);
  auto other =
      std::async(std::launch::async, [&] { return c2->Barrier("sync", milliseconds(500)); });
  Status status = c0->Barrier("sync", milliseconds(500));
  EXPECT_EQ(status.code(), StatusCode::kDeadlineExceeded);
  EXPECT_THAT(status.message(), HasSubstr("barrier 'sync' timed out after 0.50 s; nodes 1, 3 did "
                                          "not arrive (node 1 at 127.0.0.1; node 3 has not registered)"));
  EXPECT_EQ(other.get(), status);
  EXPECT_EQ(c1->Barrier("sync", seconds(5)), status);  // late: the same result
}

TEST_F(CoordinationServiceTest, ErrorPropagatesWhenANodeStopsHeartbeating) {
  StartServer(3, [](CoordinationServerOptions& o) { o.heartbeat_timeout = seconds(1); });
  ErrorRecorder r0, r1;
  auto c0 = MustConnect(0, &r0);
  auto c1 = MustConnect(1, &r1);
  auto c2 = MustConnect(2);
  auto blocked = std::async(std::launch::async, [&] { return c0->Get("never", seconds(30)); });
  std::this_thread::sleep_for(milliseconds(100));

  const auto start = Steady::now();
  c2.reset();  // a crash, as far as the service can tell
  for (ErrorRecorder* r : {&r0, &r1}) {
    std::optional<Status> error = r->WaitFor(seconds(4));
    ASSERT_TRUE(error.has_value()) << "no error callback within 4 s";
    EXPECT_EQ(error->code(), StatusCode::kUnavailable);
    // Named with the address it registered from (gRPC's view of the peer).
    EXPECT_THAT(error->message(), HasSubstr("node 2 at 127.0.0.1 (incarnation"));
    EXPECT_THAT(error->message(), HasSubstr("declared dead"));
  }
  EXPECT_LT(SecondsSince(start), 1.0 + 2.5);
  ASSERT_EQ(blocked.wait_for(seconds(3)), std::future_status::ready);
  Result<std::string> got = blocked.get();
  EXPECT_EQ(got.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(got.status().message(), HasSubstr("node 2"));
  EXPECT_LT(SecondsSince(start), 1.0 + 3.0);
  // Waiting calls made after the failure fail at once.
  EXPECT_EQ(c1->Barrier("later", seconds(30)).code(), StatusCode::kUnavailable);
  EXPECT_EQ(r0.calls(), 1);
}

TEST_F(CoordinationServiceTest, ClientsLearnThatTheCoordinatorStopped) {
  StartServer(2);
  ErrorRecorder r0, r1;
  auto c0 = MustConnect(0, &r0);
  auto c1 = MustConnect(1, &r1);
  const std::string address = server_->address();
  auto blocked = std::async(std::launch::async, [&] { return c0->Barrier("b", seconds(30)); });
  std::this_thread::sleep_for(milliseconds(100));
  const auto start = Steady::now();
  server_->Shutdown();
  for (ErrorRecorder* r : {&r0, &r1}) {
    std::optional<Status> error = r->WaitFor(seconds(5));
    ASSERT_TRUE(error.has_value());
    EXPECT_EQ(error->code(), StatusCode::kUnavailable);
    EXPECT_THAT(error->message(), HasSubstr(address));
  }
  ASSERT_EQ(blocked.wait_for(seconds(5)), std::future_status::ready);
  EXPECT_FALSE(blocked.get().ok());
  EXPECT_LT(SecondsSince(start), 5.0);
}

TEST_F(CoordinationServiceTest, AnUnreachableCoordinatorIsDetectedByHeartbeats) {
  StartServer(1);  // its own heartbeat timeout (10 s) is not what is tested here
  FreezableProxy proxy(server_->BoundPort());
  ErrorRecorder recorder;
  CoordinationClientOptions options = ClientOptions(0);
  options.address = "127.0.0.1:" + std::to_string(proxy.port());
  options.heartbeat_timeout = seconds(1);
  options.error_callback = recorder.Callback();
  auto client = CoordinationClient::Connect(options);
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  auto blocked =
      std::async(std::launch::async, [&] { return (*client)->Get("never", seconds(30)); });
  std::this_thread::sleep_for(milliseconds(200));

  const auto start = Steady::now();
  proxy.Freeze();
  std::optional<Status> error = recorder.WaitFor(seconds(5));
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->code(), StatusCode::kUnavailable);
  EXPECT_THAT(error->message(),
              HasSubstr("coordination service at " + options.address + " unreachable for"));
  EXPECT_LT(SecondsSince(start), 1.0 + 2.5);
  // The call in flight is cancelled and gives the same error.
  ASSERT_EQ(blocked.wait_for(seconds(3)), std::future_status::ready);
  EXPECT_EQ(blocked.get().status(), *error);
}

TEST_F(CoordinationServiceTest, AWrongTokenIsUnauthenticatedWithinFiveSeconds) {
  StartServer(1, [](CoordinationServerOptions& o) { o.token = "the-right-token"; });
  for (const char* token : {"a-wrong-token", ""}) {
    CoordinationClientOptions options = ClientOptions(0);
    options.token = token;
    const auto start = Steady::now();
    auto client = CoordinationClient::Connect(options);
    EXPECT_LT(SecondsSince(start), 5.0);
    ASSERT_FALSE(client.ok());
    EXPECT_EQ(client.status().code(), StatusCode::kUnauthenticated);
    EXPECT_THAT(client.status().message(), HasSubstr("wrong or missing coordination token"));
    EXPECT_THAT(client.status().message(), Not(HasSubstr("the-right-token")));
    EXPECT_THAT(client.status().message(), Not(HasSubstr("a-wrong-token")));
  }
  CoordinationClientOptions options = ClientOptions(0);
  options.token = "the-right-token";
  auto client = CoordinationClient::Connect(options);
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  EXPECT_TRUE((*client)->Set("k", "v").ok());
}

TEST_F(CoordinationServiceTest, ADuplicateNodeIdIsRefused) {
  StartServer(2);
  auto first = MustConnect(1);
  CoordinationClientOptions options = ClientOptions(1);
  auto second = CoordinationClient::Connect(options);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kAlreadyExists);
  EXPECT_THAT(second.status().message(),
              HasSubstr("node 1 is already registered by a live process"));
  EXPECT_THAT(second.status().message(), HasSubstr("duplicate node id?"));
}

TEST_F(CoordinationServiceTest, ARestartedNodeIsAcceptedOnceTheOldOneIsDeclaredDead) {
  StartServer(2, [](CoordinationServerOptions& o) { o.heartbeat_timeout = seconds(1); });
  ErrorRecorder r0;
  auto c0 = MustConnect(0, &r0);
  auto c1 = MustConnect(1);
  const uint64_t old_incarnation = c1->incarnation();
  c1.reset();
  ASSERT_TRUE(r0.WaitFor(seconds(4)).has_value());
  auto restarted = MustConnect(1);
  ASSERT_TRUE(restarted);
  EXPECT_NE(restarted->incarnation(), old_incarnation);
  auto live = c0->GetLiveNodes();
  ASSERT_TRUE(live.ok()) << live.status().ToString();
  ASSERT_EQ(live->size(), 2u);
  EXPECT_EQ((*live)[1].node_id, 1);
  EXPECT_EQ((*live)[1].incarnation, restarted->incarnation());
  EXPECT_EQ((*live)[1].restarts, 1);
}

TEST_F(CoordinationServiceTest, ConnectingToADeadAddressFailsClearlyAfterTheConnectTimeout) {
  const std::string address = "127.0.0.1:" + std::to_string(FreePort());
  CoordinationClientOptions options;
  options.address = address;
  options.node_id = 1;
  options.connect_timeout = seconds(1);
  const auto start = Steady::now();
  auto client = CoordinationClient::Connect(options);
  const double elapsed = SecondsSince(start);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(
      client.status().message(),
      HasSubstr("node 1 could not reach the coordination service at " + address + " within 1.0 s"));
  EXPECT_THAT(client.status().message(), HasSubstr("check that the coordinator is running"));
  EXPECT_GE(elapsed, 0.9);
  EXPECT_LT(elapsed, 3.0);
}

TEST_F(CoordinationServiceTest, ACoordinatorThatStartsLateIsFound) {
  const int port = FreePort();
  auto later = std::async(std::launch::async, [port] {
    std::this_thread::sleep_for(milliseconds(500));
    CoordinationServerOptions options;
    options.num_nodes = 1;
    options.listen_address = "127.0.0.1:" + std::to_string(port);
    return CoordinationServer::Start(options);
  });
  CoordinationClientOptions options;
  options.address = "127.0.0.1:" + std::to_string(port);
  options.node_id = 0;
  options.connect_timeout = seconds(10);
  auto client = CoordinationClient::Connect(options);
  auto server = later.get();
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  EXPECT_TRUE((*client)->Shutdown(seconds(5)).ok());
}

TEST_F(CoordinationServiceTest, ANodeCountMismatchIsRefusedAtConnect) {
  StartServer(2);
  CoordinationClientOptions options = ClientOptions(0);
  options.num_nodes = 4;
  auto client = CoordinationClient::Connect(options);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(client.status().message(), HasSubstr("expects a job of 4 nodes"));
  EXPECT_THAT(client.status().message(), HasSubstr("started for 2"));
  EXPECT_TRUE(server_->state().GetLiveNodes().empty());  // refused before registering
}

TEST_F(CoordinationServiceTest, ReportErrorReachesEveryNode) {
  StartServer(3);
  ErrorRecorder r0, r2;
  auto c0 = MustConnect(0, &r0);
  auto c1 = MustConnect(1);
  auto c2 = MustConnect(2, &r2);
  ASSERT_TRUE(c1->ReportError(InternalError("loss is NaN")).ok());
  for (ErrorRecorder* r : {&r0, &r2}) {
    std::optional<Status> error = r->WaitFor(seconds(5));
    ASSERT_TRUE(error.has_value());
    EXPECT_EQ(error->code(), StatusCode::kAborted);
    EXPECT_THAT(error->message(), HasSubstr("node 1 reported an error: INTERNAL: loss is NaN"));
  }
}

TEST_F(CoordinationServiceTest, LiveNodesAndACleanShutdownRaiseNoErrors) {
  StartServer(3, [](CoordinationServerOptions& o) { o.heartbeat_timeout = seconds(1); });
  ErrorRecorder recorders[3];
  std::vector<std::unique_ptr<CoordinationClient>> clients;
  for (int i = 0; i < 3; ++i) clients.push_back(MustConnect(i, &recorders[i]));
  auto live = clients[0]->GetLiveNodes();
  ASSERT_TRUE(live.ok());
  ASSERT_EQ(live->size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ((*live)[static_cast<size_t>(i)].node_id, i);
    EXPECT_EQ((*live)[static_cast<size_t>(i)].incarnation,
              clients[static_cast<size_t>(i)]->incarnation());
  }
  std::vector<std::future<Status>> done;
  for (auto& client : clients) {
    done.push_back(
        std::async(std::launch::async, [&client] { return client->Shutdown(seconds(5)); }));
  }
  for (auto& d : done) EXPECT_TRUE(d.get().ok());
  EXPECT_TRUE(server_->state().GetLiveNodes().empty());
  std::this_thread::sleep_for(milliseconds(1500));  // past the heartbeat timeout
  EXPECT_FALSE(server_->state().GetJobError().has_value());
  for (auto& r : recorders) EXPECT_EQ(r.calls(), 0);
  EXPECT_EQ(clients[0]->Shutdown().code(), StatusCode::kFailedPrecondition);
}

TEST_F(CoordinationServiceTest, DestroyingAClientIsPrompt) {
  StartServer(1);
  CoordinationClientOptions options = ClientOptions(0);
  options.heartbeat_interval = seconds(1);
  auto client = CoordinationClient::Connect(options);
  ASSERT_TRUE(client.ok());
  std::this_thread::sleep_for(milliseconds(300));  // a watch long poll is in flight
  const auto start = Steady::now();
  client->reset();
  EXPECT_LT(SecondsSince(start), 0.5);
}

// With 16 nodes each holding a watch, a barrier and a get open on the
// service, the service must still answer new calls: waits hold no threads.
TEST_F(CoordinationServiceTest, SixteenNodesAllBlockedDoNotStarveTheService) {
  constexpr int kNodes = 16;
  StartServer(kNodes);
  std::vector<std::unique_ptr<CoordinationClient>> clients;
  for (int i = 0; i < kNodes; ++i) clients.push_back(MustConnect(i));
  std::vector<std::future<Result<std::string>>> gets;
  std::vector<std::future<Status>> barriers;
  for (int i = 0; i < kNodes; ++i) {
    CoordinationClient* client = clients[static_cast<size_t>(i)].get();
    gets.push_back(
        std::async(std::launch::async, [client] { return client->Get("go", seconds(20)); }));
    if (i < kNodes - 1) {
      barriers.push_back(
          std::async(std::launch::async, [client] { return client->Barrier("all", seconds(20)); }));
    }
  }
  // 16 watches + 16 gets + 15 barrier arrivals pending at once.
  const auto start = Steady::now();
  while (server_->state().NumPendingWaits() < 3 * kNodes - 1 && SecondsSince(start) < 10) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  ASSERT_EQ(server_->state().NumPendingWaits(), static_cast<size_t>(3 * kNodes - 1));
  CoordinationClient& last = *clients.back();
  ASSERT_TRUE(last.Set("go", "now").ok());
  ASSERT_TRUE(last.GetLiveNodes().ok());
  EXPECT_TRUE(last.Barrier("all", seconds(20)).ok());
  for (auto& get : gets) {
    ASSERT_EQ(get.wait_for(seconds(10)), std::future_status::ready);
    EXPECT_EQ(get.get().value_or(""), "now");
  }
  for (auto& barrier : barriers) {
    ASSERT_EQ(barrier.wait_for(seconds(10)), std::future_status::ready);
    EXPECT_TRUE(barrier.get().ok());
  }
  EXPECT_LT(SecondsSince(start), 15.0);
}

}  // namespace
}  // namespace berth::distributed
