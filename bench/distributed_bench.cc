// Coordination service round trips through a real gRPC server on 127.0.0.1.
//   BM_KeyValue    one client: Set + Get of a 64-byte value per iteration
//   BM_Barrier/8   8 clients (threads): one barrier round per iteration
#include <benchmark/benchmark.h>

#include <memory>
#include <thread>
#include <vector>

#include "distributed/coordination_client.hpp"
#include "distributed/coordination_server.hpp"

namespace berth::distributed {
namespace {

std::unique_ptr<CoordinationServer> StartServer(int num_nodes) {
  CoordinationServerOptions options;
  options.num_nodes = num_nodes;
  options.token = "bench-token";
  auto server = CoordinationServer::Start(options);
  return server.ok() ? std::move(*server) : nullptr;
}

std::unique_ptr<CoordinationClient> ConnectNode(const CoordinationServer& server, int node_id) {
  CoordinationClientOptions options;
  options.address = server.address();
  options.node_id = node_id;
  options.token = "bench-token";
  auto client = CoordinationClient::Connect(options);
  return client.ok() ? std::move(*client) : nullptr;
}

void BM_KeyValue(benchmark::State& state) {
  auto server = StartServer(1);
  auto client = server ? ConnectNode(*server, 0) : nullptr;
  if (!client) {
    state.SkipWithError("cannot start the coordination service");
    return;
  }
  const std::string value(64, 'v');
  for (auto _ : state) {
    if (!client->Set("bench/key", value, /*allow_overwrite=*/true).ok() ||
        !client->Get("bench/key", std::chrono::seconds(5)).ok()) {
      state.SkipWithError("round trip failed");
      break;
    }
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["round_trips/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  (void)client->Shutdown(std::chrono::seconds(5));
}
BENCHMARK(BM_KeyValue)->UseRealTime();

void BM_Barrier(benchmark::State& state) {
  const int num_nodes = static_cast<int>(state.range(0));
  auto server = StartServer(num_nodes);
  std::vector<std::unique_ptr<CoordinationClient>> clients;
  for (int i = 0; server && i < num_nodes; ++i) {
    clients.push_back(ConnectNode(*server, i));
    if (!clients.back()) break;
  }
  if (static_cast<int>(clients.size()) != num_nodes || !clients.back()) {
    state.SkipWithError("cannot start the coordination service");
    return;
  }
  // Nodes 1..N-1 run exactly as many rounds as the measured loop of node 0.
  const int64_t rounds = static_cast<int64_t>(state.max_iterations);
  std::vector<std::thread> others;
  for (int i = 1; i < num_nodes; ++i) {
    others.emplace_back([&clients, i, rounds] {
      for (int64_t r = 0; r < rounds; ++r) {
        if (!clients[static_cast<size_t>(i)]->Barrier("bench", std::chrono::seconds(30)).ok()) {
          return;
        }
      }
    });
  }
  for (auto _ : state) {
    if (!clients[0]->Barrier("bench", std::chrono::seconds(30)).ok()) {
      state.SkipWithError("barrier failed");
      break;
    }
  }
  for (std::thread& t : others) t.join();
  state.counters["barriers/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Barrier)->Arg(8)->UseRealTime();

}  // namespace
}  // namespace berth::distributed
