// One process of the 2-process all-reduce benchmark (BM_AllReduce): a node of
// a job with a cpu client running a 16 MiB f32 all-reduce program, the same
// all-reduce through a communicator of the collectives extension, and a
// Gloo context for the baseline that calls Gloo's allreduce directly. The
// benchmark process is node 0; berth_bench_allreduce_peer is node 1. They
// agree on each round (mode and iteration count) through the job's
// key-value store.
#ifndef BERTH_BENCH_ALLREDUCE_NODE_HPP_
#define BERTH_BENCH_ALLREDUCE_NODE_HPP_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "berth/berth.hpp"
#include "berth/job.hpp"
#include "berth/plugin/key_value.hpp"
#include "cpu_client_fixture.hpp"

namespace gloo {
class Context;
}

namespace berth::bench {

inline constexpr int64_t kAllReduceElements = 4 * 1024 * 1024;  // 16 MiB of f32
inline constexpr int64_t kAllReduceBytes = kAllReduceElements * 4;

class AllReduceNode {
 public:
  static Result<std::unique_ptr<AllReduceNode>> Create(const JobConfig& config);
  ~AllReduceNode();

  // `iterations` all-reduces through the cpu plugin (Execute + await).
  Status RunBerth(int64_t iterations);
  // `iterations` calls of gloo::allreduce on a 16 MiB f32 buffer.
  Status RunGloo(int64_t iterations);
  // `iterations` Communicator::AllReduce calls (+ await) on the client's device.
  Status RunCommunicator(int64_t iterations);
  // One of the three by name: "berth", "gloo" or "communicator".
  Status Run(const std::string& mode, int64_t iterations);

  // The store node 0 announces rounds in: "round/<k>" = "MODE N" or "stop".
  const plugin::KeyValueStore& control() const { return *control_; }

 private:
  AllReduceNode() = default;

  std::unique_ptr<Job> job_;
  ClientOptions control_options_;
  ClientOptions gloo_options_;
  std::optional<plugin::KeyValueStore> control_;
  std::optional<plugin::KeyValueStore> gloo_kv_;
  std::unique_ptr<CpuClientFixture> fixture_;
  std::optional<Executable> executable_;
  std::optional<Communicator> communicator_;
  std::optional<Buffer> input_;
  std::shared_ptr<gloo::Context> gloo_context_;
  std::vector<float> gloo_buffer_;
  uint32_t gloo_tag_ = 0;
};

}  // namespace berth::bench

#endif  // BERTH_BENCH_ALLREDUCE_NODE_HPP_
