// berth_bench_allreduce_peer ADDRESS: node 1 of BM_AllReduce. Runs the rounds
// node 0 announces until "stop".
#include <charconv>
#include <cstdio>
#include <string>

#include "allreduce_node.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: berth_bench_allreduce_peer HOST:PORT\n");
    return 2;
  }
  berth::JobConfig config;
  config.node_id = 1;
  config.num_nodes = 2;
  config.coordinator_address = argv[1];
  auto node = berth::bench::AllReduceNode::Create(config);
  if (!node.ok()) {
    std::fprintf(stderr, "allreduce peer: %s\n", node.status().ToString().c_str());
    return 1;
  }
  for (int round = 0;; ++round) {
    auto announced = (*node)->control().Get("round/" + std::to_string(round), std::chrono::hours(1));
    if (!announced.ok()) {
      std::fprintf(stderr, "allreduce peer: %s\n", announced.status().ToString().c_str());
      return 1;
    }
    if (*announced == "stop") break;
    size_t space = announced->find(' ');
    std::string mode = announced->substr(0, space);
    int64_t iterations = 0;
    std::from_chars(announced->data() + space + 1, announced->data() + announced->size(), iterations);
    berth::Status status = (*node)->Run(mode, iterations);
    if (!status.ok()) {
      std::fprintf(stderr, "allreduce peer: round %d: %s\n", round, status.ToString().c_str());
      return 1;
    }
  }
  return 0;
}
