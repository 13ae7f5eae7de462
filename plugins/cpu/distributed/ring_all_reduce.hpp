// All-reduce between the ranks of a Gloo context as a ring: a reduce-scatter
// then an all-gather, written on Gloo's transport (unbound buffers).
//
// Unlike gloo::allreduce it works out of place without first copying the
// input into the output: the first step sends from the input and reduces
// the input with what arrives straight into the output. Each chunk moves in
// segments, so reducing one segment overlaps receiving the next. Every rank
// ends with the same bits (each chunk is reduced once, in ring order, then
// passed around).
#ifndef BERTH_PLUGINS_CPU_DISTRIBUTED_RING_ALL_REDUCE_HPP_
#define BERTH_PLUGINS_CPU_DISTRIBUTED_RING_ALL_REDUCE_HPP_

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "berth/status.hpp"
#include "cpu/distributed/gloo_collectives.hpp"

namespace gloo {
class Context;
}

namespace berth::cpu {

struct RingAllReduceArgs {
  const void* in = nullptr;   // count elements; may equal out
  void* out = nullptr;        // count elements
  size_t count = 0;
  size_t element_size = 0;
  GlooReduceFn reduce;
  // Unique per operation on the context, and the same on every rank.
  uint32_t tag = 0;
  // Bound on each wait for a peer.
  std::chrono::milliseconds timeout{0};
  // Bytes per message (rounded down to whole elements).
  size_t segment_bytes = size_t{1} << 18;
  // Both halves (an all-reduce), or one of them: after the reduce-scatter
  // rank r holds RingShare(count, size, r) of `out` reduced over every rank
  // (the rest of `out` is partial); the all-gather starts from that state and
  // leaves every rank with all of `out`.
  RingPhases phases = RingPhases::kBoth;
  // Interrupts the waits (an aborted one returns its reason); may be null.
  WaitAborter* aborter = nullptr;
};

// The elements [begin, end) that rank `rank` of `size` holds reduced after
// the reduce-scatter half.
struct RingRange {
  size_t begin;
  size_t end;
};
RingRange RingShare(size_t count, int size, int rank);

// Throws what Gloo throws (gloo::IoException on a timeout or a broken
// connection); returns the aborter's reason if a wait is aborted.
Status RingAllReduce(gloo::Context& context, const RingAllReduceArgs& args);

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_DISTRIBUTED_RING_ALL_REDUCE_HPP_
