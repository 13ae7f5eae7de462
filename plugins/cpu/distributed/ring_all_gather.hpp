// All-gather between the ranks of a Gloo context as a ring, written on
// Gloo's transport (unbound buffers) so that its waits can be aborted
// (WaitAborter): at step s each rank passes the block it received at step
// s-1 (its own at first) to the right, and receives the next from the left.
#ifndef BERTH_PLUGINS_CPU_DISTRIBUTED_RING_ALL_GATHER_HPP_
#define BERTH_PLUGINS_CPU_DISTRIBUTED_RING_ALL_GATHER_HPP_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "berth/status.hpp"
#include "cpu/distributed/gloo_collectives.hpp"

namespace gloo {
class Context;
}

namespace berth::cpu {

struct RingAllGatherArgs {
  const void* mine = nullptr;  // sizes[rank] bytes
  void* out = nullptr;         // sum(sizes) bytes: rank r's block at sum(sizes[0..r))
  std::vector<size_t> sizes;   // one per rank
  uint32_t tag = 0;            // unique per operation on the context, the same on every rank
  std::chrono::milliseconds timeout{0};  // bound on each wait
  WaitAborter* aborter = nullptr;        // may be null
};

// Throws what Gloo throws on a timeout or a broken connection; returns the
// aborter's reason if a wait is aborted.
Status RingAllGather(gloo::Context& context, const RingAllGatherArgs& args);

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_DISTRIBUTED_RING_ALL_GATHER_HPP_
