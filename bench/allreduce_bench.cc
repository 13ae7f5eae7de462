// All-reduce of 16 MiB of f32 across 2 processes on 127.0.0.1.
//   BM_AllReduce/berth   a 2-replica stablehlo.all_reduce through the cpu
//                        plugin (Execute + await; Gloo underneath)
//   BM_AllReduce/communicator  the same sum through a communicator of the
//                        collectives extension (Communicator::AllReduce + await)
//   BM_AllReduce/gloo    gloo::allreduce called directly (the baseline)
// This process is node 0 of a job whose coordinator it hosts; node 1 is
// berth_bench_allreduce_peer, started on first use and stopped at exit.
#include <benchmark/benchmark.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cstdlib>

#include "allreduce_node.hpp"
#include "distributed/coordination_server.hpp"

extern char** environ;

namespace berth::bench {
namespace {

struct AllReduceJob {
  std::unique_ptr<distributed::CoordinationServer> server;
  std::unique_ptr<AllReduceNode> node;
  pid_t peer = -1;
  int next_round = 0;
  std::string error;
};

// Built once, on first use; kept until exit (the peer is told to stop then).
AllReduceJob& SharedJob() {
  static AllReduceJob* job = [] {
    auto* job = new AllReduceJob();
    distributed::CoordinationServerOptions options;
    options.num_nodes = 2;
    Result<std::unique_ptr<distributed::CoordinationServer>> server =
        distributed::CoordinationServer::Start(options);
    if (!server.ok()) {
      job->error = server.status().ToString();
      return job;
    }
    job->server = std::move(server).value();
    std::string address = job->server->address();
    char* argv[] = {const_cast<char*>(BERTH_BENCH_ALLREDUCE_PEER), address.data(), nullptr};
    if (posix_spawn(&job->peer, argv[0], nullptr, nullptr, argv, environ) != 0) {
      job->error = "cannot start " BERTH_BENCH_ALLREDUCE_PEER;
      return job;
    }
    JobConfig config;
    config.node_id = 0;
    config.num_nodes = 2;
    config.coordinator_address = address;
    Result<std::unique_ptr<AllReduceNode>> node = AllReduceNode::Create(config);
    if (!node.ok()) {
      job->error = node.status().ToString();
      kill(job->peer, SIGKILL);
      waitpid(job->peer, nullptr, 0);
      job->peer = -1;
      return job;
    }
    job->node = std::move(node).value();
    std::atexit([] {
      AllReduceJob& j = SharedJob();
      if (j.peer <= 0) return;
      (void)j.node->control().Put("round/" + std::to_string(j.next_round++), "stop");
      j.node.reset();  // leaves through the shutdown barrier, as the peer does
      waitpid(j.peer, nullptr, 0);
      j.server.reset();
    });
    return job;
  }();
  return *job;
}

void BM_AllReduce(benchmark::State& state, const std::string& mode) {
  AllReduceJob& job = SharedJob();
  if (!job.node) {
    state.SkipWithError(job.error.c_str());
    return;
  }
  const int64_t iterations = static_cast<int64_t>(state.max_iterations);
  Status announced = job.node->control().Put("round/" + std::to_string(job.next_round++),
                                             mode + " " + std::to_string(iterations));
  if (!announced.ok()) {
    state.SkipWithError(announced.ToString().c_str());
    return;
  }
  Status status;
  for (auto _ : state) {
    status = job.node->Run(mode, 1);
    if (!status.ok()) {
      state.SkipWithError(status.ToString().c_str());
      break;
    }
  }
  state.SetBytesProcessed(state.iterations() * kAllReduceBytes);
}

BENCHMARK_CAPTURE(BM_AllReduce, berth, std::string("berth"))->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_AllReduce, communicator, std::string("communicator"))
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_AllReduce, gloo, std::string("gloo"))->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace berth::bench
